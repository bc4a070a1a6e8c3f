class Own(Exception):
    def __reduce__(self):
        return (Own, ('own',))
class OwnEx(Exception):
    def __reduce_ex__(self, p):
        return (OwnEx, ('ownex',))
class OwnState(Exception):
    def __setstate__(self, s):
        self.got = s
class Reg(Exception):
    pass
copyreg.pickle(Reg, lambda e: (Reg, ('reg',)))
for cls in (Own, OwnEx, OwnState, Reg):
    try:
        raise cls('x') from exc
    except cls as e:
        e.attr = 1
        e2 = cp.loads(cp.dumps(e))
        assert type(e2) is cls and e2.__cause__ is None, cls
        assert not hasattr(e2, '__notes__'), cls
assert e2.args == ('reg',)
# A subclass of a plain exception class is ours again.
class Sub(Reg):
    pass
try:
    raise Sub('s') from exc
except Sub as e:
    assert cp.loads(cp.dumps(e)).__cause__.args == ('bad', 2)
