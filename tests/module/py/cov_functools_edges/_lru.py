import ccloudpickle as cp, functools, pickle
@functools.lru_cache(maxsize=4)
def w(x):
    return x * 2
