import sys, importlib, _ccloudpickle_alias as a
a._install_finder()
import cloudpickle
assert cloudpickle.__ccloudpickle_version__
cc = cloudpickle.cloudpickle
for _ in range(3):
    assert importlib.reload(cc) is cc
assert cc.__spec__.loader is a._loader, cc.__spec__.loader
assert cc.__loader__ is a._loader
del sys.modules['cloudpickle.cloudpickle']
import cloudpickle.cloudpickle
assert sys.modules['cloudpickle.cloudpickle'].__spec__.loader is a._loader
