f = io.BytesIO()
e = failure(lambda: cp.dump({'f': locked}, f))
assert culprit(e) == "when pickling <dict object>['f'].__globals__['LOCK'] (_thread._local)", culprit(e)
# With a protocol and with a signing key (made in memory).
e = failure(lambda: cp.dump([locked], f, 2))
assert culprit(e) == "when pickling <list object>[0].__globals__['LOCK'] (_thread._local)", culprit(e)
e = failure(lambda: cp.dump([locked], f, sign_key=b'k' * 32))
assert culprit(e) == "when pickling <list object>[0].__globals__['LOCK'] (_thread._local)", culprit(e)
assert f.getvalue() == b''
