import sys, importlib.util, ccloudpickle
own_version = ccloudpickle.__version__
assert 'cloudpickle' not in sys.modules
alias = ccloudpickle.install_alias()
import cloudpickle, cloudpickle.cloudpickle, cloudpickle.cloudpickle_fast
from cloudpickle import dumps, loads
from cloudpickle.cloudpickle import dumps as dumps2
from cloudpickle.cloudpickle_fast import CloudPickler
assert alias is cloudpickle is sys.modules['cloudpickle']
assert dumps is dumps2 is ccloudpickle.dumps and loads is ccloudpickle.loads
assert CloudPickler is ccloudpickle.CloudPickler
assert cloudpickle.cloudpickle is sys.modules['cloudpickle.cloudpickle']
assert cloudpickle.cloudpickle_fast is sys.modules['cloudpickle.cloudpickle_fast']
# The public API, from each of the three.
api = ['dumps', 'dump', 'loads', 'load', 'Pickler', 'CloudPickler',
       'register_pickle_by_value', 'unregister_pickle_by_value',
       'list_registry_pickle_by_value', 'PicklingError',
       'DEFAULT_PROTOCOL']
for m in (cloudpickle, cloudpickle.cloudpickle, cloudpickle.cloudpickle_fast):
    for n in api:
        assert getattr(m, n) is getattr(ccloudpickle, n), (m, n)
# Versions: the API level labelled as ours, ours unchanged.
assert cloudpickle.__version__.startswith('3.1.2+ccloudpickle.')
assert cloudpickle.__ccloudpickle_version__ == own_version
assert ccloudpickle.__version__ == own_version != '3.1.2'
assert set(cloudpickle.__all__) >= {'dumps', 'loads', 'Pickler', '__version__'}
# Stock's reconstructor names, answered by ours.
names = ccloudpickle._compat_names()
for n in ('_make_function', '_make_skeleton_class', '_class_setstate',
          '_function_setstate', '_make_skeleton_enum', 'subimport',
          'dynamic_subimport', '_make_cell', '_builtin_type',
          '_empty_cell_value', 'CellType'):
    for m in (cloudpickle.cloudpickle, cloudpickle.cloudpickle_fast):
        assert getattr(m, n) is names[n], n
assert cloudpickle.cloudpickle._make_skeleton_class is ccloudpickle._make_skeleton_class
assert cloudpickle.subimport is ccloudpickle.subimport
# A package of three modules, and nothing else.
spec = importlib.util.find_spec('cloudpickle')
assert spec.origin == 'ccloudpickle alias' and spec.submodule_search_locations == []
assert repr(cloudpickle) == "<module 'cloudpickle' (ccloudpickle alias)>"
try:
    import cloudpickle.nosuchmodule
    raise AssertionError('imported a submodule that does not exist')
except ModuleNotFoundError:
    pass
# It pickles, and a second call changes nothing.
assert cloudpickle.loads(cloudpickle.dumps(lambda: 3))() == 3
assert ccloudpickle.install_alias() is alias
assert sys.modules['cloudpickle'] is alias
