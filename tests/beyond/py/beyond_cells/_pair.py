import ccloudpickle as cp, pickle, types
def pair():
    n = 0
    def incr():
        nonlocal n
        n += 1
        return n
    def get():
        return n
    return incr, get
