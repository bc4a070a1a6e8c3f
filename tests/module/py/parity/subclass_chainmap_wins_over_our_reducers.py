import ccloudpickle as cp, collections, io
def reduce_property(p):
    return (str, ('custom property',))
class MyPickler(cp.Pickler):
    dispatch_table = collections.ChainMap(
        {property: reduce_property}, cp.Pickler.dispatch_table)
buf = io.BytesIO()
MyPickler(buf).dump([property(), lambda: 3])
prop, f = cp.loads(buf.getvalue())
assert prop == 'custom property' and f() == 3
