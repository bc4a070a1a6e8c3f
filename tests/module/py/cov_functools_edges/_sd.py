import ccloudpickle as cp, functools, pickle
@functools.singledispatch
def sd(x):
    return 'base'
@sd.register
def _(x: int):
    return 'int'
