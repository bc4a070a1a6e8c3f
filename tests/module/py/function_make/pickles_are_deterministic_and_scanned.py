import os as o2
def make(a):
    return lambda x: o2.sep + x + a
f = make('1')
assert cp.dumps(f) == cp.dumps(f)
assert form(f) == 'make'
data = cp.dumps(f)
assert cp.loads(data, allow=['os'])('4') == o2.sep + '41'
try:
    cp.loads(data, allow=['math'])
    raise AssertionError('os was let through')
except cp.PolicyError as e:
    assert 'refuses 1 import: os' in str(e), e
