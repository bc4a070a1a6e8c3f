import ccloudpickle as cp, pickle, sys
assert cp.__version__ == '0.5.0', cp.__version__
lines = sys.stdin.read().split()
task, Point, red, item = [cp.loads(bytes.fromhex(l))
                          for l in lines[:4]]
assert task(2.5) == 5
assert Point(-4).norm() == 4
assert red.value == 1 and red.name == 'RED'
assert (item.name, item.n) == ('a', 2), item
assert pickle.loads(bytes.fromhex(lines[0]))(1.5) == 4
assert cp.loads(bytes.fromhex(lines[4]))(2.5) == 5
try:
    cp.loads(bytes.fromhex(lines[5]))
except AttributeError as e:
    assert str(e).startswith('this pickle needs ccloudpickle._format_'), e
    assert str(e).endswith(', which ccloudpickle 0.5.0 does not have ''(written by a newer version?)'), e
else:
    raise AssertionError('0.5.0 loaded a newer format')
print('ok')
