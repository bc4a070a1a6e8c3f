# KEY, OTHER, the malicious object EVIL (its load touches MARKER), and
# reseal(env, key, **fields) which rewrites header bytes and signs the
# result properly with `key` (an honest signer on another CPython).
import ccloudpickle as cp, pickle, os, io, sys, hmac, hashlib
import importlib.util, tempfile
KEY = bytes(range(1, 33))
OTHER = bytes(range(2, 34))
D = tempfile.mkdtemp()
MARKER = os.path.join(D, 'MARKER')
class Evil:
    def __reduce__(self):
        return (os.system, ('touch ' + MARKER,))
EVIL = Evil()
def reseal(env, key, **f):
    n = env[12]
    b = bytearray(env[:-32])
    off = {'major': 13 + n, 'minor': 14 + n, 'micro': 15 + n,
           'protocol': 18 + n}
    for k, v in f.items():
        if k == 'magic':
            b[16 + n:18 + n] = v.to_bytes(2, 'big')
        else:
            b[off[k]] = v
    return bytes(b) + hmac.new(key, bytes(b), hashlib.sha256).digest()
def refused(f, fragment=''):
    try:
        f()
    except cp.UnpicklingError as e:
        assert fragment in str(e), str(e)
        return str(e)
    raise AssertionError('not refused')
