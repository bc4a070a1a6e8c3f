import ccloudpickle as cp, functools
@functools.singledispatch
def d(x):
    return 0
def plain(x):
    return x
class R:
    def __init__(self, f, args):
        self.f, self.args = f, args
    def __reduce__(self):
        return (self.f, self.args)
