e = failure(lambda: cp.Pickler(io.BytesIO()).dump(locked))
assert culprit(e) == "when pickling locked.__globals__['LOCK'] (_thread._local)", culprit(e)
class Sub(cp.Pickler):
    pass
e = failure(lambda: Sub(io.BytesIO()).dump(locked))
assert culprit(e) == "when pickling locked.__globals__['LOCK'] (_thread._local)", culprit(e)
# loky's way: a dispatch_table with its own reducers, which the
# search uses too (the thread-local is fine there, the generator is not).
import copyreg
class Custom(cp.Pickler):
    def __init__(self, f):
        super().__init__(f)
        self.dispatch_table = copyreg.dispatch_table.copy()
        self.dispatch_table[type(LOCK)] = lambda l: (threading.Lock, ())
e = failure(lambda: Custom(io.BytesIO()).dump([LOCK, {'r': (i for i in ())}]))
assert culprit(e) == "when pickling <list object>[1]['r'] (generator)", culprit(e)
# An entry added to an instance's view of the default table.
p = cp.Pickler(io.BytesIO())
p.dispatch_table[type(LOCK)] = lambda l: (threading.Lock, ())
e = failure(lambda: p.dump([LOCK, (i for i in ())]))
assert culprit(e) == 'when pickling <list object>[1] (generator)', culprit(e)
# Its own reducer_override or persistent_id: a plain Pickler
# cannot retrace its steps, so no path.
class Override(cp.Pickler):
    def reducer_override(self, obj):
        return super().reducer_override(obj)
e = failure(lambda: Override(io.BytesIO()).dump(locked))
assert type(e) is TypeError and culprit(e) is None, culprit(e)
class Persistent(cp.Pickler):
    def persistent_id(self, obj):
        return None
e = failure(lambda: Persistent(io.BytesIO()).dump(locked))
assert type(e) is TypeError and culprit(e) is None, culprit(e)
# A dump() of its own is left alone, unless it calls ours.
class OwnDump(cp.Pickler):
    def dump(self, obj):
        return super().dump(obj)
e = failure(lambda: OwnDump(io.BytesIO()).dump(locked))
assert culprit(e) == "when pickling locked.__globals__['LOCK'] (_thread._local)", culprit(e)
