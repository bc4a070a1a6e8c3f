import ccloudpickle as cp, threading
class Key:
    def __repr__(self):
        d.clear()
        global decoys
        decoys = [object() for _ in range(100)]
        return 'Key()'
d = {Key(): threading.local()}
path, culprit = cp._find_unpicklable(d)
assert path == '[Key()]', path
assert type(culprit).__name__ == '_local', culprit
