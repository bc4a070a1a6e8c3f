head = chain(20000)
a = ccloudpickle.dumps(head)
b = ccloudpickle.dumps(head)
assert a == b
# The file path writes those same bytes, once.
f = io.BytesIO()
ccloudpickle.dump(head, f)
assert f.getvalue() == a
p = ccloudpickle.Pickler(io.BytesIO())
assert length(ccloudpickle.loads(a)) == 20000
# a plain pickle: the stdlib loads it (the class is ours).
assert length(pickle.loads(a)) == 20000
# the recursion budget is as it was
def rec(n): return rec(n + 1)
try:
    rec(0)
except RecursionError:
    pass
else:
    raise AssertionError('no RecursionError')
