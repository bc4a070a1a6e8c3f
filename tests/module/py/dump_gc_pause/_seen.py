# Seen records gc.get_threshold()[0] at each reduction of its instances.
import ccloudpickle as cp, gc, io, _pickle
seen = []
class Seen:
    def __reduce__(self):
        seen.append(gc.get_threshold()[0])
        return (Seen, ())
before = gc.get_threshold()
