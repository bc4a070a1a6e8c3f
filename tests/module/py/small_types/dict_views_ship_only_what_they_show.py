import collections
d = {'k1': 'secret1', 'k2': 'secret2'}
od = collections.OrderedDict([('b', 1), ('a', 2)])
objs = [d.keys(), d.values(), d.items(), od.keys(), od.values(),
        od.items()]
import ccloudpickle as cp
assert b'secret1' not in cp.dumps(d.keys())
assert b'k1' not in cp.dumps(d.values())
