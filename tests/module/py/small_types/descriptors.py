import abc, types
def getter(self):
    return 'got'
def fn(*a):
    return a
prop = property(getter, None, None, 'the doc')
objs = [prop, classmethod(fn), staticmethod(fn),
        abc.abstractproperty(getter), abc.abstractclassmethod(fn),
        abc.abstractstaticmethod(fn), int.real, types.FunctionType.__code__]
