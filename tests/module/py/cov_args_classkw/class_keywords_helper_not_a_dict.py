import ccloudpickle as cp
import _ccloudpickle_classkw as ck
class Base:
    def __init_subclass__(cls, flag=False, **kw):
        super().__init_subclass__(**kw)
        cls.flag = flag
class Sub(Base, flag=True):
    pass
assert cp.loads(cp.dumps(Sub)).flag is True
ck.class_keywords = lambda cls: [('flag', True)]
try:
    cp.dumps(Sub)
except TypeError as e:
    assert str(e) == '_ccloudpickle_classkw.class_keywords() '\
        'returned list', e
else:
    raise AssertionError('pickled without its keywords')
