# _class_setstate's _cpk_member_attrs sets attributes on an enum's
# members: without any policy, a name that is not a member (a base, an
# inherited function) is refused before anything is set. The pickle
# (tests/fuzz/strict_cases/review/) names __base__ of a class by value
# whose base is collections.UserDict (CASES: the folder, set by the
# test).
import collections, os, pickle
import ccloudpickle as cp

path = os.path.join(CASES, 'class_setstate_member_attrs_base.pkl')
data = open(path, 'rb').read()
try:
    cp.loads(data)
except pickle.UnpicklingError as e:
    assert 'not a member of the class' in str(e), e
else:
    raise AssertionError('a non-member got attributes')
assert not hasattr(collections.UserDict, 'PWNED')
# an enum by value keeps its members' attributes
import enum
ns = {}
exec('''
import enum
class Planet(enum.Enum):
    EARTH = (5.97, 6.37)
    def __init__(self, mass, radius):
        self.mass = mass
        self.radius = radius
''', ns)
got = cp.loads(cp.dumps(ns['Planet'].EARTH))
assert got.mass == 5.97 and got.radius == 6.37, got.__dict__
