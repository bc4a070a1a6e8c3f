def outer():
    lock = threading.local()
    def inner():
        return lock
    return inner
e = failure(lambda: cp.dumps(outer()))
assert culprit(e) == 'when pickling outer.<locals>.inner.__closure__[0].cell_contents (_thread._local)', culprit(e)
