class Base:
    def greet(self):
        return 'base'
class Child(Base):
    def greet(self):
        return 'child+' + super().greet()
    @property
    def prop(self):
        return 'prop'
    @prop.setter
    def prop(self, v):
        self._p = v
    @classmethod
    def make(cls):
        return cls()
    @staticmethod
    def twice(x):
        return 2 * x
    count: int
    label: 'str' = 'x'
