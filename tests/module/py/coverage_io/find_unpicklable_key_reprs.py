import ccloudpickle as cp, threading
lock = threading.local()
key = 'k' * 100
path, culprit = cp._find_unpicklable({key: lock})
assert path == '[' + repr(key)[:57] + '...]', path
assert culprit is lock
class BadRepr:
    def __repr__(self):
        raise ValueError('no repr')
path, culprit = cp._find_unpicklable({BadRepr(): lock})
assert path == '[?]' and culprit is lock, path
