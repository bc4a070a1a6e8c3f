import sys, cloudpickle as stock, ccloudpickle
import cpk_fixture_funcs as m
stock.register_pickle_by_value(m)
alias = ccloudpickle.install_alias(replace=True)
import cloudpickle
assert cloudpickle is alias is not stock
assert 'cloudpickle' not in [n for n, v in sys.modules.items()
                             if v is stock]
# Whoever still holds stock shares the registry with us.
assert cloudpickle.list_registry_pickle_by_value() == {'cpk_fixture_funcs'}
assert cloudpickle.loads(cloudpickle.dumps(m.triple)) is not m.triple
cloudpickle.unregister_pickle_by_value(m)
assert stock.list_registry_pickle_by_value() == set()
# Stock still pickles by value (its reconstructors stay
# findable under their names), and its pickles load.
import pickle, types
class K:
    def m(self):
        return 6
def f(n):
    return lambda: n + 1
data = stock.dumps([f(4), K, K(), types.CellType(1), sys])
g, K2, k, cell, s = pickle.loads(data)
assert g() == 5 and K2 is K and k.m() == 6 and s is sys
g, K2, k, cell, s = cloudpickle.loads(data)
assert g() == 5 and K2 is K and cell.cell_contents == 1
assert cloudpickle.cloudpickle.subimport is stock.cloudpickle.subimport
assert cloudpickle.cloudpickle.dumps is ccloudpickle.dumps
