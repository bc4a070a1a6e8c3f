import sys, types
m = types.ModuleType('memo_mod')
exec('G = 5\n'
     'def make(k):\n'
     '    def f(): return G + k\n'
     '    return f\n', m.__dict__)
sys.modules['memo_mod'] = m
cp.register_pickle_by_value(m)
f1, f2 = m.make(1), m.make(2)
def second(reset):
    f = io.BytesIO()
    p = cp.Pickler(f, 4)
    p.dump(f1)
    start = f.tell()
    if reset:
        p.memo = {}
    p.dump(f2)
    return f.getvalue()[start:]
assert cp.loads(second(True))() == 7
try:
    cp.loads(second(False))
except pickle.UnpicklingError as e:
    assert 'Memo value not found' in str(e), e
else:
    raise AssertionError('loaded without the first pickle')
