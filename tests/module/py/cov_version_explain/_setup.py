# other(data, magic): data with its code's magic (BININT of
# importlib.util.MAGIC_NUMBER) made `magic`, and its version string made
# 3.12's.
import ccloudpickle as cp, importlib.util, pickle, re, sys
mine = '%d.%d' % sys.version_info[:2]
OLD = b'J' + importlib.util.MAGIC_NUMBER
def other(data, magic=3531):
    assert data.count(OLD) >= 1
    new = b'J' + magic.to_bytes(2, 'little') + b'\r\n'
    return data.replace(b'\x8c\x043.11', b'\x8c\x043.12').replace(OLD, new)
def refusal(data):
    try:
        cp.loads(data)
    except pickle.UnpicklingError as e:
        return str(e)
    raise AssertionError('loaded')
def f(a):
    return a + 1
def where(fn, name=None):
    c = fn.__code__
    return '%s (%s, line %d)' % (name or fn.__qualname__,
                                 c.co_filename, c.co_firstlineno)
