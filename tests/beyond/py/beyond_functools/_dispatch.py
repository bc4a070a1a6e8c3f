import ccloudpickle as cp, functools, pickle, sys
class P:
    pass
@functools.singledispatch
def d(x):
    return 'obj'
@d.register(list)
def _(x):
    return [d(i) for i in x]
d.register(int, lambda x: 'int')
d.register(P, lambda x: 'P')
@functools.lru_cache(maxsize=7, typed=True)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
