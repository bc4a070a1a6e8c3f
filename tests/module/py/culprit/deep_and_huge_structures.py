deep = [LOCK]
for _ in range(600000):
    deep = [deep]
e = failure(lambda: cp.dumps(deep))
assert type(e) is pickle.PicklingError, repr(e)
assert type(e.__cause__) is RecursionError
assert culprit(e) is None
big = list(range(1000000)) + [LOCK]
e = failure(lambda: cp.dumps(big))
assert culprit(e) == 'when pickling <list object>[1000000] (_thread._local)', culprit(e)
big = {i: str(i) for i in range(100000)}
big['lock'] = LOCK
e = failure(lambda: cp.dumps(big))
assert culprit(e) == "when pickling <dict object>['lock'] (_thread._local)", culprit(e)
# Deep but within the limit: the path stops at 40 levels.
mid = LOCK
for _ in range(60):
    mid = [mid]
e = failure(lambda: cp.dumps(mid))
assert culprit(e) == 'when pickling <list object>' + '[0]' * 40 + ' (list)', culprit(e)
