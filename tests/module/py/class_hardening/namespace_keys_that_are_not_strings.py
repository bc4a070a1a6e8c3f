import pickle, ccloudpickle
C = type('C', (), {1: 'one', (2, 'x'): 'two', 'a': 1,
                   'f': lambda self: self.a + 1})
b = ccloudpickle.dumps(C)
assert ccloudpickle.loads(b) is C
try:
    ccloudpickle.dumps(C, compat='cloudpickle')
except pickle.PicklingError as e:
    assert 'not strings' in str(e), e
else:
    raise AssertionError('the cloudpickle format took it')
