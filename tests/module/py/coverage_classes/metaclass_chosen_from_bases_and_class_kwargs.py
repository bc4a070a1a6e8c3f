class Meta(type):
    def __new__(mcls, name, bases, ns, **kw):
        ns['made_by'] = mcls.__name__
        return super().__new__(mcls, name, bases, ns)
class SubMeta(Meta):
    def hello(cls):
        return 'hello ' + cls.__name__
class Root(metaclass=Meta):
    pass
class Other(metaclass=SubMeta):
    pass
class Mixed(Root, Other):
    pass
class Hooked:
    seen = []
    def __init_subclass__(cls, flavor='plain', **kw):
        super().__init_subclass__(**kw)
        cls.flavor = flavor
class Sweet(Hooked, flavor='sweet'):
    pass
