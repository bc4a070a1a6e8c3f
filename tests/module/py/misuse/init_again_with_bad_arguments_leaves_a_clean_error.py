import ccloudpickle as cp, io, pickle
p = cp.Pickler(io.BytesIO())
p.dump(lambda: 1)
for args, kw, exc in (((io.BytesIO(), 99), {}, ValueError),
                      ((io.BytesIO(),), {'compat': 'dill'}, ValueError),
                      ((object(),), {}, TypeError),
                      ((), {}, TypeError)):
    try:
        p.__init__(*args, **kw)
        raise AssertionError('accepted %r %r' % (args, kw))
    except exc:
        pass
# Still usable once initialised properly again.
buf = io.BytesIO()
p.__init__(buf)
p.dump(lambda: 2)
assert cp.loads(buf.getvalue())() == 2
