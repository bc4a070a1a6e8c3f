import ccloudpickle as cp, os, sys
top = os.path.join(CPK_SOURCE_DIR, 'tests', 'fixtures', 'formats')
KEY = b'format-fixtures-key-0123456789ab'
same = sys.version_info[:2] == (3, 11)
versions = sorted(d for d in os.listdir(top)
                  if os.path.isdir(os.path.join(top, d)))
want = ['0.1.0', '0.2.0', '0.3.0', '0.4.0', '0.5.0', '0.6.0']
assert versions == want, versions
count = 0
for v in versions:
    with open(os.path.join(top, v, 'MANIFEST')) as f:
        rows = [l.rstrip('\n').split('\t') for l in f]
    assert len(rows) >= 4, (v, rows)
    for name, what, check in rows:
        with open(os.path.join(top, v, name), 'rb') as f:
            data = f.read()
        kw = {'verify_key': KEY} if name == 'signed.pkl' else {}
        try:
            obj = cp.loads(data, **kw)
        except cp.SignatureError as e:
            # an envelope names the Python that signed it
            assert not same and name == 'signed.pkl', (v, name, e)
            assert 'signed by Python 3.11' in str(e), (v, name, e)
            continue
        except cp.UnpicklingError as e:
            assert not same and name != 'portable.pkl', (v, name, e)
            assert 'compiled by Python 3.11' in str(e), (v, name, e)
            continue
        assert eval(check, {'obj': obj}), (v, name, what, check)
        count += 1
assert count > 0
