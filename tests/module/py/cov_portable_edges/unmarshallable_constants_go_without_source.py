import ccloudpickle as cp, pickletools
def g():
    return 2
g.__code__ = g.__code__.replace(co_consts=(None, 7))
plain = cp.dumps(g, portable=True)
assert b'_code_portable' in plain
class K:
    pass
h = type(g)(g.__code__.replace(co_consts=(None, K())), {})
data = cp.dumps(h, portable=True)
names = {a for op, a, _ in pickletools.genops(data)
         if isinstance(a, str)}
assert '_code_new' in names, names
assert '_code_portable' not in names, names
# The constant travels with the code: g's 2 is now K().
assert type(cp.loads(data)()).__name__ == 'K'
