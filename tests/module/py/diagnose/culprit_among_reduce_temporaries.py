import ccloudpickle as cp, threading
class Fine:
    def __reduce__(self):
        return (Fine, ())
class Holder:
    def __init__(self, bad):
        self.bad = bad
    def __reduce_ex__(self, proto):
        if self.bad:
            return (Holder, (threading.local(),))
        return (Holder, (Fine(),))
items = [Holder(False) for _ in range(50)] + [Holder(True)]
path, culprit = cp._find_unpicklable(items)
assert path == '[50].__reduce_ex__()[1][0]', path
assert type(culprit).__name__ == '_local', culprit
