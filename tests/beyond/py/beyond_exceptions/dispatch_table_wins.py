import io
f = io.BytesIO()
p = cp.Pickler(f)
p.dispatch_table = {ValueError: lambda e: (ValueError, ('t',))}
p.dump(exc)
e = pickle.loads(f.getvalue())
assert e.args == ('t',) and e.__cause__ is None
