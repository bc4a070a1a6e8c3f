import abc
prop, cm, sm, aprop, acm, asm, real, tdict = obj
assert type(prop) is property and prop.__doc__ == 'the doc'
assert prop.fget(None) == 'got'
assert type(cm) is classmethod and cm.__func__(1) == (1,)
assert type(sm) is staticmethod
assert type(aprop) is abc.abstractproperty
assert aprop.__isabstractmethod__
assert type(acm) is abc.abstractclassmethod
assert type(asm) is abc.abstractstaticmethod
assert real is int.real and (5).real == real.__get__(5)
import types
assert tdict is types.FunctionType.__code__
