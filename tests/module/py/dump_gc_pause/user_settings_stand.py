gc.disable()
cp.dumps([Seen() for _ in range(600)])
assert not gc.isenabled() and gc.get_threshold() == before
gc.enable()
class Set:
    def __reduce__(self):
        gc.set_threshold(555)
        return (Set, ())
try:
    cp.dumps([Seen() for _ in range(600)] + [Set()])
    assert gc.get_threshold()[0] == 555, gc.get_threshold()
finally:
    gc.set_threshold(*before)
