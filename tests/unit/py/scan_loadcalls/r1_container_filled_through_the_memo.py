import pickle, io
class P(pickle.Pickler):
    pass
lst = []
obj = [lst, R(sorted, (lst,))]
lst.append(Color.RED); lst.append(Color.GREEN)
data = cp.dumps(obj, protocol=5)
try:
    cp.loads(data, allow=[])
    raise AssertionError('not refused')
except cp.PolicyError as e:
    assert 'code carried by value' in str(e), str(e)
assert hits() == []
