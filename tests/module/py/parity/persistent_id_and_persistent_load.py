import ccloudpickle as cp, io
class DB:
    pass
db = DB()
class P(cp.Pickler):
    def persistent_id(self, obj):
        return 'db' if obj is db else None
class U(cp.Unpickler):
    def persistent_load(self, pid):
        assert pid == 'db'
        return db
buf = io.BytesIO()
P(buf).dump([db, lambda: db])
buf.seek(0)
x, f = U(buf).load()
assert x is db and f() is db
