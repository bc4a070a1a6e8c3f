# A code object whose argument counts overflow CPython's int sum: the
# check "co_varnames is too small" passes, a call reads past the frame.
import ccloudpickle, marshal
def f(self, item):
    return item
try:
    bad = f.__code__.replace(co_argcount=2002738946,
                             co_posonlyargcount=1919639909,
                             co_kwonlyargcount=1600087653)
except ValueError:
    bad = None  # 3.9, 3.10: the interpreter refuses it itself
E = ccloudpickle.ReconstructorValueError
def refused(call, *args):
    try:
        call(*args)
    except E as e:
        assert 'corrupt code' in str(e) and 'argcount 2002738946' in \
            str(e), e
    else:
        raise AssertionError('accepted by %r' % (call,))
