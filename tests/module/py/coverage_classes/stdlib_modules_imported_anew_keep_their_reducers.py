import sys, dataclasses, logging, ccloudpickle
old_missing = dataclasses.MISSING
old_logger = logging.getLogger('cov.old')
del sys.modules['dataclasses']
import dataclasses as dc2
assert dc2.MISSING is not old_missing
assert type(dc2.MISSING) is not type(old_missing)
assert ccloudpickle.loads(ccloudpickle.dumps(dc2.MISSING)) is dc2.MISSING
try:
    ccloudpickle.dumps(old_missing)
except ccloudpickle.PicklingError as e:
    assert 'not the same object' in str(e), e
else:
    raise AssertionError('pickled a stale MISSING')
del sys.modules['logging']
import logging as lg2
new_logger = lg2.getLogger('cov.new')
assert type(new_logger) is not type(old_logger)
data = ccloudpickle.dumps([old_logger, new_logger])
assert b'cov.old' in data and b'cov.new' in data
