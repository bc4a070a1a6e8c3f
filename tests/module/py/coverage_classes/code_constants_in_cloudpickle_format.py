expect = consts('alpha')
import ccloudpickle, pickle, cloudpickle
data = ccloudpickle.dumps(consts, compat='cloudpickle')
assert b'ccloudpickle' not in data
g = pickle.loads(data)
assert g('alpha') == expect
assert g.__code__.co_consts == consts.__code__.co_consts
