class Base:
    def __init_subclass__(cls, **kw):
        pass
exec('class NoSource(Base, fmt=1):\n    def m(self): pass\n')
define('''
opts = {'fmt': 1}
class Spread(Base, **opts):
    def m(self): pass
def factory(fmt):
    class Local(Base, fmt=fmt):
        def m(self): pass
    return Local
Local = factory(2)
class Called(Base, fmt=len('ab')):
    def m(self): pass
class Fine(Base, fmt=1):
    def m(self): pass
''')
for c in (NoSource, Spread, Local, Called):
    assert b'class_kwargs' not in cp.dumps(c), c
assert b'class_kwargs' in cp.dumps(Fine)
