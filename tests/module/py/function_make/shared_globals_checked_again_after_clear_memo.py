import io
cfg = types.ModuleType('cfg_fm')
sys.modules['cfg_fm'] = cfg
cfg.RATE = 2
def mk(n):
    g = {'__name__': 'plug%d' % n, 'cfg': cfg}
    exec('def f():\n    return cfg.RATE\n', g)
    return g['f']
f1, f2, f3 = mk(1), mk(2), mk(3)
cfg.hook = f3
buf = io.BytesIO()
p = cp.Pickler(buf)
p.dump(f1)
p.clear_memo()
cp.register_pickle_by_value(cfg)
try:
    start = buf.tell()
    p.dump(f2)
finally:
    cp.unregister_pickle_by_value(cfg)
g2 = pickle.loads(buf.getvalue()[start:])
assert g2() == 2
assert g2.__globals__['cfg'].hook() == 2
