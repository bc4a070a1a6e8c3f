class Registry(type):
    made = []
    def __new__(mcls, name, bases, ns, **kw):
        cls = super().__new__(mcls, name, bases, ns)
        mcls.made.append(name)
        return cls
    def describe(cls):
        return 'I am ' + cls.__name__
class Thing(metaclass=Registry):
    value = 3
