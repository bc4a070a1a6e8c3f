class Holder:
    lock = threading.local()
    def meth(self):
        return 1
e = failure(lambda: cp.dumps(Holder))
assert culprit(e) == 'when pickling Holder.lock (_thread._local)', culprit(e)
e = failure(lambda: cp.dumps([Holder]))
assert culprit(e) == 'when pickling <list object>[0].lock (_thread._local)', culprit(e)
