# Exceptions keep __cause__, __context__, __suppress_context__, __notes__
# and their attributes; the pickled copy gets one extra note holding the
# formatted traceback. Exception classes defined by value too.
import sys


class TaskError(Exception):
    pass


def parse(text):
    return int(text)


def load_config():
    try:
        parse("x1")
    except ValueError as e:
        err = TaskError("config failed")
        err.path = "/etc/app.conf"
        err.code = 7
        if sys.version_info >= (3, 11):
            err.add_note("while loading the config")
        raise err from e


def cleanup():
    try:
        load_config()
    except TaskError:
        raise KeyError("cleanup")  # context: the TaskError


def make():
    try:
        cleanup()
    except KeyError as e:
        top = e
    # A context cycle made by hand.
    a, b = RuntimeError("a"), RuntimeError("b")
    a.__context__, b.__context__ = b, a
    before = (sys.version_info >= (3, 11) and
              list(top.__context__.__notes__))
    r = top, (a, b), before
    if before is not False:
        assert top.__context__.__notes__ == before  # not mutated
    return r
# --- load ---
import sys

top, (a, b), notes_before = obj
assert type(top) is KeyError and top.args == ("cleanup",)
assert top.__cause__ is None and not top.__suppress_context__
mid = top.__context__
assert type(mid).__name__ == "TaskError" and mid.args == ("config failed",)
assert isinstance(mid, Exception)
assert mid.path == "/etc/app.conf" and mid.code == 7
root = mid.__cause__
assert type(root) is ValueError and "x1" in str(root)
assert mid.__suppress_context__  # raise ... from
assert mid.__context__ is root
assert root.__cause__ is None and root.__context__ is None
assert mid.__traceback__ is None
# One extra note each: the traceback they had before pickling.
for e, fn in ((top, "cleanup"), (mid, "load_config"), (root, "parse")):
    note = e.__notes__[-1]
    assert note.startswith("Traceback (most recent call last"), note
    assert "in " + fn in note, note
if sys.version_info >= (3, 11):
    assert mid.__notes__[:-1] == ["while loading the config"]
    assert notes_before == ["while loading the config"]
assert a.__context__ is b and b.__context__ is a
assert not hasattr(a, "__notes__")  # never raised: no traceback, no note
# Raising the loaded chain shows the root cause.
import traceback
try:
    raise top
except KeyError:
    text = traceback.format_exc()
assert "ValueError" in text and "config failed" in text, text
