import dataclasses
odd = dataclasses._FIELD_BASE('custom')
e = failure(lambda: cp.dumps({'k': [odd]}, compat='2.2'))
assert type(e) is pickle.PicklingError
assert culprit(e) == "when pickling <dict object>['k'][0] (_FIELD_BASE)", culprit(e)
e = failure(lambda: cp.dumps(locked, compat='cloudpickle3'))
assert culprit(e) == "when pickling locked.__globals__['LOCK'] (_thread._local)", culprit(e)
e = failure(lambda: cp.Pickler(io.BytesIO(), compat='2.2').dump([1, odd]))
assert culprit(e) == 'when pickling <list object>[1] (_FIELD_BASE)', culprit(e)
