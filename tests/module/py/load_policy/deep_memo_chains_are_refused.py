import ccloudpickle as cp, pickle, struct
def chain(n):
    put = lambda i: b'r' + struct.pack('<I', i)
    get = lambda i: b'j' + struct.pack('<I', i)
    out = [b'\x80\x02ccollections\ndeque\n', put(0), b'0']
    for i in range(1, n + 1):
        out += [get(0), b')R', put(i), b'0']
    for i in range(1, n):
        out += [get(i), get(i + 1), b'a0']
    return b''.join(out + [get(1), b'.'])
assert len(cp.loads(chain(50), allow=[])) == 1
try:
    cp.loads(chain(20000), allow=[])
except pickle.UnpicklingError as e:
    assert 'more than 10000' in str(e), e
else:
    raise AssertionError('a 20000-deep chain was loaded')
