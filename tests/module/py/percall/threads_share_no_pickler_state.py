import ccloudpickle as cp, threading, time
class Slow:
    def __init__(self, n):
        self.n = n
    def __reduce__(self):
        time.sleep(0.0005)
        return (Slow, (self.n,))
errors = []
def work(k):
    try:
        for i in range(150):
            fn = (lambda k=k, i=i: (k, i))
            obj = [fn, Slow(i), {'k': k}]
            fn2, s, d = cp.loads(cp.dumps(obj))
            assert fn2() == (k, i) and s.n == i and d == {'k': k}
    except BaseException as e:
        errors.append(e)
ts = [threading.Thread(target=work, args=(k,)) for k in range(4)]
[t.start() for t in ts]
[t.join() for t in ts]
assert not errors, errors
