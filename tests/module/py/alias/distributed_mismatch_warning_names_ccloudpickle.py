import ccloudpickle
ccloudpickle.install_alias()
import cloudpickle
import distributed.protocol.pickle as dpp
from distributed import versions
assert dpp.cloudpickle is cloudpickle and dpp.CLOUDPICKLE_GTE_20
here = versions.get_versions()
assert here['packages']['cloudpickle'] == cloudpickle.__version__
stock = {'packages': dict(here['packages'], cloudpickle='3.1.2')}
msg = versions.error_message(here, {'w': stock}, here)['warning']
assert 'Mismatched versions' in msg and '+ccloudpickle.' in msg, msg
