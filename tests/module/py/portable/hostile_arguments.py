import importlib.util, marshal
OK = (cp.ReconstructorTypeError, cp.ReconstructorValueError,
      cp.UnpicklingError)
ver = '%d.%d.%d' % sys.version_info[:3]
magic = int.from_bytes(importlib.util.MAGIC_NUMBER[:2],
                       'little') | 0x0a0d0000
data = marshal.dumps(M.top.__code__)
good = ('def f(x):\n    return x\n', 'm.py', 'f', 1, 0, 0)
def bad(*a):
    try:
        cp._code_portable(*a)
    except OK:
        return
    raise AssertionError('accepted: %r' % (a,))
def other_ok(src):
    return cp._code_portable('3.0.0', 1, data, src)
assert other_ok(good).co_name == 'f'
bad()
bad(ver, magic, data)
bad(ver, magic, data, good, 1)
bad(1, magic, data, good)
bad(ver, 'x', data, good)
bad(ver, magic, 'data', good)
bad(ver, magic, b'\x00garbage', good)
for src in (None, 1, b'x', ['a'], {'a': 1}, good[:5], good + (0,),
            list(good), (b'def f(): pass',) + good[1:],
            good[:1] + (None,) + good[2:],
            good[:2] + (1,) + good[3:],
            good[:3] + ('1',) + good[4:],
            good[:4] + (None, 0), good[:5] + ('0',)):
    bad(ver, magic, data, src)
    bad('3.0.0', 1, data, src)
T = lambda text, name='f', line=1, flags=0, shift=0: (
    text, 'm.py', name, line, flags, shift)
assert other_ok(T(good[0], line=5, shift=4)).co_firstlineno == 5
for src in (T('def f(:\n'), T('def f(x):\n  return x\x00\n'),
            T('x = 1\n'), T(good[0], 'g'), T(good[0], line=2),
            T(good[0], line=-1), T(good[0], line=2 ** 70),
            T(good[0], flags=0x400), T(good[0], flags=-1),
            T(good[0], flags=2 ** 70), T(good[0], flags=0x2000),
            T(good[0], shift=-1), T(good[0], shift=10 ** 7 + 1),
            T(good[0], line=2 ** 31 + 1, shift=2 ** 31),
            T('(' * 100000 + ')' * 100000),
            T('x = ' + '-' * 1000000 + '1\n'),
            T('def f(x):\n  match x:\n    case 1 1: pass\n'),
            'f (m.py, line 1): no source'):
    bad('3.0.0', 1, data, src)
# Under the same magic the source is not compiled, but its shape
# is still checked.
assert cp._code_portable(ver, magic, data, T('def f(:')) \
    .co_name == 'top'
# Through loads: an UnpicklingError (or a reconstructor's).
class R:
    def __init__(self, src):
        self.src = src
    def __reduce__(self):
        return cp._code_portable, ('3.0.0', 1, data, self.src)
for src in (T('def f(:'), T(good[0], 'nope'), (1, 2), 'why'):
    try:
        cp.loads(pickle.dumps(R(src)))
    except OK:
        pass
    else:
        raise AssertionError(src)
