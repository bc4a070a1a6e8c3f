import ccloudpickle as cp, io, types
class Foo:
    pass
def reduce_foo(obj):
    return (str, ('reduced Foo',))
buf = io.BytesIO()
p = cp.Pickler(buf)
p.dispatch_table[Foo] = reduce_foo
assert p.dispatch_table[Foo] is reduce_foo
assert p.dispatch_table is p.dispatch_table
p.dump([Foo(), Foo()])
assert cp.loads(buf.getvalue()) == ['reduced Foo'] * 2
# Our own types and functions too, for this instance.
buf = io.BytesIO()
q = cp.Pickler(buf)
q.dispatch_table[property] = lambda pr: (str, ('a property',))
q.dispatch_table[types.FunctionType] = lambda f: (str, (f.__name__,))
def named():
    pass
q.dump([property(), named, (lambda: 1).__code__])
prop, name, code = cp.loads(buf.getvalue())
assert prop == 'a property' and name == 'named'
assert isinstance(code, types.CodeType)
