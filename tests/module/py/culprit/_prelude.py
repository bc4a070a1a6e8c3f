# failure(fn): the exception fn() raises. culprit(e): its "when pickling
# ..." words (the note, or the tail of the message before 3.11), None if
# it has none; it also checks that the rest of the exception is as
# _pickle made it (one note at most; before 3.11 args is the one str).
import ccloudpickle as cp, threading, io, sys, pickle
NOTES = sys.version_info >= (3, 11)
def failure(fn):
    try:
        fn()
    except BaseException as e:
        return e
    raise AssertionError('no error')
def culprit(e):
    if NOTES:
        notes = getattr(e, '__notes__', [])
        assert len(notes) <= 1, notes
        return notes[0] if notes else None
    assert not hasattr(e, '__notes__')
    msg = str(e)
    i = msg.find('; when pickling ')
    if i < 0:
        return None
    assert e.args == (msg,), e.args
    return msg[i + 2:]
LOCK = threading.local()
def locked():
    return LOCK
