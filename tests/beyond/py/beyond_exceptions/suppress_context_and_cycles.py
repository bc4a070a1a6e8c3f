import ccloudpickle as cp
a, b = RuntimeError('a'), RuntimeError('b')
a.__cause__ = b
a.__suppress_context__ = False
b.__context__ = a
b.__suppress_context__ = True
a2 = cp.loads(cp.dumps(a))
b2 = a2.__cause__
assert b2.__context__ is a2 and a2.__context__ is None
assert not a2.__suppress_context__ and b2.__suppress_context__
assert b2.__cause__ is None
