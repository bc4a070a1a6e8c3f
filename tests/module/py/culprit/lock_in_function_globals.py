e = failure(lambda: cp.dumps(locked))
assert type(e) is TypeError, repr(e)
assert culprit(e) == "when pickling locked.__globals__['LOCK'] (_thread._local)", culprit(e)
assert str(e).startswith("cannot pickle '_thread._local' object")
