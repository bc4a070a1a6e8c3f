import ccloudpickle as cp, functools
class C:
    @functools.singledispatchmethod
    def m(self, x):
        return 'base'
    @m.register
    def _(self, x: int):
        return 'int'
