"""Where a load of a newer Python's pickle is, and is not, the version error.

Run in the suite's interpreter (tests/cli/test_portable_newer.c), with TMP set to
a scratch directory. A "newer" pickle is one of ours whose code says it was
compiled by a later Python: a portable function (it compiles from its
source here) with its bytecode magic and version forged.
"""
import io
import os
import pickle
import struct
import sys
import importlib.util

import ccloudpickle as cp

MINE = "%d.%d" % sys.version_info[:2]
MAGIC = struct.unpack("<H", importlib.util.MAGIC_NUMBER[:2])[0]
# same length as MINE: the pickle's frames keep their sizes
THEIRS = "4.0" if len(MINE) == 3 else "3.99"

with open(os.path.join(TMP, "cpk_newer_src.py"), "w") as f:
    f.write("def f(x):\n    return x + 1\n")
sys.path.insert(0, TMP)
import cpk_newer_src  # noqa: E402

F = cpk_newer_src.f
F.__module__ = "__main__"  # by value, with its source
F.__qualname__ = "f_by_value"


class Call:
    """Pickles as a call of fn(*args)."""

    def __init__(self, fn, *args):
        self.fn, self.args = fn, args

    def __reduce__(self):
        return self.fn, self.args


def newer(obj, version=THEIRS):
    """A pickle of (F, obj) that says F was compiled by `version`."""
    data = cp.dumps((F, obj), portable=True)
    old = b"J" + struct.pack("<I", MAGIC | 0x0A0D << 16)
    assert old in data
    data = data.replace(old, b"J" + struct.pack("<I", 9999 | 0x0A0D << 16))
    ver = bytes([0x8C, len(MINE)]) + MINE.encode()
    assert ver in data
    return data.replace(ver, bytes([0x8C, len(version)]) + version.encode())


def outcome(load):
    try:
        load()
    except Exception as e:
        return e
    raise AssertionError("loaded")


def version_error(e):
    return (type(e) is pickle.UnpicklingError
            and str(e).startswith("this pickle holds code compiled by"))


def loads_and_load(data):
    path = os.path.join(TMP, "one.pkl")
    with open(path, "wb") as f:
        f.write(data)
    with open(path, "rb") as f:
        yield outcome(lambda: cp.loads(data))
        yield outcome(lambda: cp.load(io.BytesIO(data)))
        yield outcome(lambda: cp.load(f))


# A newer pickle loads here, and the rule is live: a C type refusing the
# arguments the newer Python gave it is the version error, caused by it.
ok = newer(1)
assert cp.loads(ok)[0](1) == 2
for e in loads_and_load(newer(Call(int, "1", "2", "3"))):
    assert version_error(e), repr(e)
    assert type(e.__cause__) is TypeError, repr(e.__cause__)
    assert ("Python %s, with objects Python %s cannot rebuild (TypeError"
            % (THEIRS, MINE)) in str(e), str(e)

# What says something of its own keeps its own error.
for obj, kind in ((Call(open, os.path.join(TMP, "absent")), FileNotFoundError),
                  (Call(int, "x"), ValueError),
                  (Call(pickle.loads, b""), EOFError)):
    for e in loads_and_load(newer(obj)):
        assert type(e) is kind, repr(e)

# A higher magic that says our own version is no newer Python.
for e in loads_and_load(newer(Call(int, "1", "2", "3"), version=MINE)):
    assert type(e) is TypeError, repr(e)

# Reading a stream of newer pickles to its end ends with EOFError.
path = os.path.join(TMP, "stream.pkl")
with open(path, "wb") as f:
    f.write(ok + ok)
for fh in (io.BytesIO(ok + ok), open(path, "rb")):
    n = 0
    try:
        while True:
            cp.load(fh)
            n += 1
    except EOFError:
        pass
    assert n == 2, n
    fh.close()

# A plain pickle failing after a newer one that loaded is not the newer
# one's failure (a buffered file stops at the start of the failing one,
# which is the end of the one before).
bad = cp.dumps(Call(int, "1", "2", "3"))
with open(path, "wb") as f:
    f.write(ok + bad)
for fh in (io.BytesIO(ok + bad), open(path, "rb")):
    cp.load(fh)
    e = outcome(lambda: cp.load(fh))
    assert type(e) is TypeError, repr(e)
    fh.close()
print("newer_rule: ok")
