out = {}
def work(i):
    obj = {'t%d' % i: [locked]}
    for _ in range(20):
        out[i] = culprit(failure(lambda: cp.dumps(obj)))
ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
for t in ts: t.start()
for t in ts: t.join()
for i in range(4):
    assert out[i] == "when pickling <dict object>['t%d'][0].__globals__['LOCK'] (_thread._local)" % i, out
