import io
refused('posix.system', allow=['_ccloudpickle_engines._rebuild'])
refused('posix.system', allow=['_ccloudpickle_engines.*'])
refused('posix.system', allow=['_ccloudpickle_engines._rebuild'],
        deny=['posix*'])
try:
    cp.load(io.BytesIO(outer),
            allow=iter(['_ccloudpickle_engines._rebuild']))
except cp.PolicyError as e:
    assert 'posix.system' in str(e), str(e)
else:
    raise AssertionError('load() ran the inner pickle')
assert not os.path.exists(marker)
assert cp._load_policy.get(None) is None
