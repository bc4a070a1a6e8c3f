import ccloudpickle as cp, pickle
class Boom:
    def __init__(self, exc): self.exc = exc
    def __reduce__(self): raise self.exc
    def __repr__(self): return '<Boom>'
try:
    pickle.dumps(cp.wrap(Boom(MemoryError())))
except MemoryError:
    pass
else:
    raise AssertionError('MemoryError did not propagate')
try:
    pickle.dumps(cp.wrap(Boom(ValueError('no'))))
except pickle.PicklingError as e:
    assert 'Boom' in str(e) and 'no' in str(e), str(e)
else:
    raise AssertionError('ValueError not turned into PicklingError')
