import sys, types
stand = types.ModuleType('cloudpickle.cloudpickle')
stand._PICKLE_BY_VALUE_MODULES = frozenset({'cpk_some_mod'})
sys.modules['cloudpickle.cloudpickle'] = stand
import ccloudpickle as cp, json
reg = stand._PICKLE_BY_VALUE_MODULES
assert type(reg) is set and reg == {'cpk_some_mod'}, reg
assert cp.list_registry_pickle_by_value() == {'cpk_some_mod'}
cp.register_pickle_by_value(json)
assert stand._PICKLE_BY_VALUE_MODULES == {'cpk_some_mod', 'json'}
stand._PICKLE_BY_VALUE_MODULES.discard('cpk_some_mod')
assert cp.list_registry_pickle_by_value() == {'json'}
