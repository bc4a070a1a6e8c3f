# The bytes of a new Pickler writing to a file: the reference.
import ccloudpickle as cp, io, pickle
def by_pickler(obj, **kw):
    buf = io.BytesIO()
    cp.Pickler(buf, **kw).dump(obj)
    return buf.getvalue()
