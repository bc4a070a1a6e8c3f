import ccloudpickle, types
def f(a, b=2, /, c=3, *args, d, e=5, **kw):
    x = a + b
    def g():
        return x + c
    return g() + d + e + len(args) + len(kw)
for kw in ({}, {'compat': 'cloudpickle'}):
    for p in (2, 5):
        g = ccloudpickle.loads(ccloudpickle.dumps(f, p, **kw))
        assert g(1, d=4) == 15, g(1, d=4)
        assert g(1, 1, 1, 9, 9, d=0, e=0, z=1) == 6
src = 'def h(%s): return 0' % ', '.join('a%d' % i
                                        for i in range(300))
ns = {}
exec(src, ns)
h = ccloudpickle.loads(ccloudpickle.dumps(ns['h']))
assert h(*range(300)) == 0
c = ns['h'].__code__
fn, args = ccloudpickle._reduce(c.replace(co_consts=(None, object())))
assert fn is ccloudpickle._code_new
assert fn(*args).co_argcount == 300
