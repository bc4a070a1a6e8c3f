import marshal
def f():
    return 12345
co = f.__code__
f.__code__ = co.replace(co_consts=tuple(
    range(3, 9) if type(k) is int and k == 12345 else k
    for k in co.co_consts))
assert f() == range(3, 9)
try:
    marshal.dumps(f.__code__)
except ValueError:
    pass
else:
    raise AssertionError('marshal wrote a range')
