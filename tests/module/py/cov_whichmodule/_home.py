import ccloudpickle as cp, pickletools, sys, types
def names(data):
    return [a for op, a, _ in pickletools.genops(data)
            if isinstance(a, str)]
def f():
    return 1
f.__module__ = None
