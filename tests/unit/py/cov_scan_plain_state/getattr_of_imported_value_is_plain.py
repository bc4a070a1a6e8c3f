import ccloudpickle as cp
class C:
    up = str.upper
    n = None
    t = (1, 'a', b'b')
data = cp.dumps(C())
assert b'getattr' in data and b'upper' in data
obj = cp.loads(data, allow=['builtins.str.upper'])
assert type(obj).up is str.upper and type(obj).t == (1, 'a', b'b')
class D:
    up = str.upper
    def m(self):
        return 1
try:
    cp.loads(cp.dumps(D()), allow=['builtins.str.upper'])
except cp.PolicyError as e:
    assert 'creates an instance of a class carried by value' \
        in str(e), e
else:
    raise AssertionError('a class with a method was let in')
