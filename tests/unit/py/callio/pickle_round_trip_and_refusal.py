import ccloudpickle, threading
def f(x):
    return x + 1
got = enc_many('pickle', [f, {'a': [1, 2.5, 'x']}, threading.local()])
assert got[0][:2] == b'\x80\x05', got[0][:2]
assert ccloudpickle.loads(got[0])(2) == 3
assert pickle.loads(got[1]) == {'a': [1, 2.5, 'x']}
assert got[2].startswith("cannot encode a result of type '_local' as a pickle: TypeError: cannot pickle '_thread._local' object"), got[2]
