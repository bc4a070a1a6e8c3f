class Full:
    calls = 0
    def write(self, b):
        Full.calls += 1
        raise OSError('disk full')
try:
    cp.dump({'a': 1}, Full(), sign_key=key)
except OSError as e:
    assert str(e) == 'disk full', e
else:
    raise AssertionError('written')
# One write, of the whole envelope.
assert Full.calls == 1
