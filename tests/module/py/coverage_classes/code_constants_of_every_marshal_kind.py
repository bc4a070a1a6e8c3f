expect = consts('beta')
import ccloudpickle
d1 = ccloudpickle.dumps(consts)
d2 = ccloudpickle.dumps(consts)
assert d1 == d2
g = ccloudpickle.loads(d1)
assert g('beta') == expect and g('zeta')[10] is False
assert g.__code__.co_consts == consts.__code__.co_consts
