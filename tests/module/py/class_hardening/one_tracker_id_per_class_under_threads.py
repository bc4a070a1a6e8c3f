import sys, threading, re, pickle, ccloudpickle
try:
    import cloudpickle  # our tracker consults its: Python code
except ImportError:
    pass
sys.setswitchinterval(1e-6)
N = 8
runs = []
for run in range(100):
    C = type('C%d' % run, (), {'v': run})
    out = [None] * N
    barrier = threading.Barrier(N)
    def work(i):
        barrier.wait()
        out[i] = ccloudpickle.dumps(C)
    ts = [threading.Thread(target=work, args=(i,))
          for i in range(N)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    runs.append(out)
bad = [i for i, out in enumerate(runs)
       if len({re.search(rb'[0-9a-f]{32}', b).group()
               for b in out}) != 1]
assert not bad, 'runs with several ids: %r' % bad
data = pickle.dumps(runs)
