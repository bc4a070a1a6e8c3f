import os, tempfile
marker = os.path.join(tempfile.mkdtemp(), 'm')
def touch(path):
    open(path, 'w').close()
    return 7
data = c2(R(touch, (marker,)), 5)
try:
    cp.loads(data, allow=[])
except cp.PolicyError as e:
    assert 'calls a function carried by value' in str(e), e
else:
    raise AssertionError('not refused')
assert not os.path.exists(marker)
assert cp.loads(data) == 7 and os.path.exists(marker)
os.unlink(marker)
wrapped = lambda x, f=helper: f(x)
assert cp.loads(c2(wrapped, 5), allow=[])(1) == 2
