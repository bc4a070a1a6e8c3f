import sys, importlib, ccloudpickle
alias = ccloudpickle.install_alias()
for n in [n for n in sys.modules if n.split('.')[0] == 'cloudpickle']:
    del sys.modules[n]
import cloudpickle.cloudpickle
import cloudpickle
assert cloudpickle is alias and cloudpickle.dumps is ccloudpickle.dumps
assert importlib.reload(cloudpickle) is alias
