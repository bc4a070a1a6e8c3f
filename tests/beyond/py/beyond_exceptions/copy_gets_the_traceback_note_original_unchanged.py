before = dict(exc.__dict__)
e = cp.loads(cp.dumps(exc))
assert exc.__dict__ == before and not hasattr(exc, '__notes__')
assert e.args == ('bad', 2) and e.hint == 'retry'
assert e.__notes__ == [e.__notes__[0]]
n = e.__notes__[0]
assert n.startswith(NOTE + '  File '), n
assert 'line 8, in fail' in n, n
assert not n.endswith('\n')
c = e.__cause__
assert type(c) is KeyError and c.args == ('k',)
assert 'in fail' in c.__notes__[0]
assert e.__suppress_context__ and e.__context__ is c
assert e.__traceback__ is None
# Same object, same bytes; builtins only: allow=[] loads it.
assert cp.dumps(exc) == cp.dumps(exc)
assert cp.loads(cp.dumps(exc), allow=[]).__cause__.args == ('k',)
