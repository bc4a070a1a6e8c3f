import ccloudpickle as cp, os, pickle
master, slave = os.openpty()
f = open(slave, 'r')
assert f.isatty()
try:
    cp.dumps(f)
except pickle.PicklingError as e:
    assert str(e) == 'Cannot pickle files that map to tty '\
        'objects', e
else:
    raise AssertionError('pickled a terminal')
f.close()
os.close(master)
