deep = compile('f = ' + 'lambda: ' * 150 + '1', 'deep', 'exec')
# (equality of code this deep takes exponential time: the
# code is run instead)
assert not check(deep, 'deep', equal=False)
f = cp.loads(cp.dumps(deep))
ns = {}
exec(f, ns)
g = ns['f']
for _ in range(150):
    g = g()
assert g == 1
code = compile('def f():\n    return 1\n', 'x.py', 'exec')
odd = code.replace(co_consts=(object(), None))
name, args = payload(odd)
assert name == '_code_new', name
# a frozenset constant nested nearly as deep as marshal
# writes: marshal counts its depth from the code (review
# i11g: written alone, it was shipped as data no loader
# reads)
sys.setrecursionlimit(100000)
t = ()
for _ in range(1997):
    t = (t,)
inner = code.co_consts[0]
odd = inner.replace(co_consts=(frozenset({t}), None))
assert direct(odd) is None
back = cp.loads(cp.dumps(odd))
# (compared by walking: == on it overflows 3.12's C stack
# limit, which setrecursionlimit does not raise)
assert type(back.co_consts[0]) is frozenset
x, = back.co_consts[0]
depth = 0
while x != ():
    assert type(x) is tuple and len(x) == 1
    x, = x
    depth += 1
assert depth == 1997, depth
class Weird(int):
    pass
odd = code.replace(co_consts=(Weird(3), None))
assert payload(odd)[0] == '_code_new'
