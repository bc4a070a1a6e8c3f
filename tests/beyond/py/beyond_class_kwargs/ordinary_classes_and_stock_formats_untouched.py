define('''
class Plain:
    def m(self): pass
class Child(Plain):
    pass
class Base:
    def __init_subclass__(cls, fmt, **kw):
        pass
class Csv(Base, fmt='csv'):
    def m(self): pass
''')
d = cp.dumps([Plain, Child])
assert '_ccloudpickle_classkw' not in sys.modules
assert b'class_kwargs' not in d
assert b'class_kwargs' in cp.dumps(Csv)
assert '_ccloudpickle_classkw' in sys.modules
for fmt in ('cloudpickle3', 'cloudpickle2'):
    assert b'class_kwargs' not in cp.dumps(Csv, compat=fmt)
