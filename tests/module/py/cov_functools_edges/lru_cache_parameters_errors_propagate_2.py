class Typed:
    def __bool__(self):
        raise RuntimeError('typed or not')
w.cache_parameters = lambda: {'maxsize': 3,
                              'typed': Typed()}
cp.dumps(w)
