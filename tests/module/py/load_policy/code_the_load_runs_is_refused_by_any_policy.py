def f():
    open(marker, 'w').close()
    return 1
f.__module__ = '__main__'
class R:
    def __reduce__(self):
        return (f, ())
class K:
    def __setstate__(self, state):
        open(marker, 'w').close()
K.__module__ = '__main__'
calls = cp.dumps(R())
k = K()
k.x = 1
inst = cp.dumps(k)
for kw in ({'allow': []}, {'deny': ['os']}, {'allow': ['*']},
           {'allow': ['__main__', 'posix']}):
    e = refused(calls, 'runs code carried by value: calls a '
                'function carried by value f (byte ', **kw)
    refused(inst, 'creates an instance of a class carried by '
            'value', **kw)
    assert e.startswith('import policy refuses a pickle'), e
assert not exists()
assert cp.loads(calls) == 1 and exists()
os.unlink(marker)
cp.loads(inst)
assert exists()
