import cloudpickle, ccloudpickle as cp, pickle, enum
class C:
    pass
class E(enum.Enum):
    A = 1
# Pickled by stock first: we reuse its ids, ...
theirs = [cloudpickle.dumps(C), cloudpickle.dumps(E)]
ours = [cp.dumps(C), cp.dumps(E)]
# ... and its pickles load back as the originals here.
assert cp.loads(theirs[0]) is C and cp.loads(theirs[1]) is E
data = cp.dumps(theirs + ours)
