# weakref.WeakValueDictionary / WeakKeyDictionary: the entries travel;
# after loading, an entry stays while something else the pickle rebuilt
# holds its referent, and goes with the referent otherwise.
import weakref


class Conn:
    def __init__(self, name):
        self.name = name


KEPT = Conn("kept")          # also held by the shipped list below
LOST = Conn("lost")          # held only by the weak dicts
CACHE = weakref.WeakValueDictionary({"kept": KEPT, "lost": LOST})
META = weakref.WeakKeyDictionary({KEPT: "k", LOST: "l"})
LIVE = [KEPT]


def lookup(name):
    c = CACHE.get(name)
    return c.name if c is not None else None


def make():
    return lookup, META, LIVE
# --- load ---
import gc
import weakref
lookup, meta, live = obj
gc.collect()
cache = lookup.__globals__["CACHE"]
assert type(cache) is weakref.WeakValueDictionary
assert type(meta) is weakref.WeakKeyDictionary
assert lookup("kept") == "kept" and lookup("lost") is None
assert sorted(cache.keys()) == ["kept"], sorted(cache.keys())
assert cache["kept"] is live[0]          # the same object, not a copy
assert dict(meta) == {live[0]: "k"}, dict(meta)
# still weak: drop the last holder and the entries go
live.clear()
gc.collect()
assert lookup("kept") is None and len(cache) == 0 and len(meta) == 0
