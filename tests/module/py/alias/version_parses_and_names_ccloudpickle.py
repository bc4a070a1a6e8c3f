import ccloudpickle, re, sys, warnings
ccloudpickle.install_alias()
import cloudpickle
v = cloudpickle.__version__
own = ccloudpickle.__version__
assert v == '3.1.2+ccloudpickle.' + own, (v, own)
# PEP 440's grammar of a local version label.
assert re.fullmatch(r'3\.1\.2\+[a-z0-9]+(\.[a-z0-9]+)*', v), v
assert tuple(int(x) for x in v.split('+')[0].split('.')) == (3, 1, 2)
assert v.split('.')[:2] == ['3', '1']
import _ccloudpickle_alias as a
assert a.alias_version('1.0.0-rc1+local') == '3.1.2+ccloudpickle.1.0.0.rc1.local'
assert a.alias_version('') == '3.1.2+ccloudpickle.0'
try:
    from packaging.version import Version
except ImportError:
    Version = None
if Version is not None:
    pv = Version(v)
    assert pv.release == (3, 1, 2) and pv.local.startswith('ccloudpickle.')
    assert Version('2.0.0') <= pv and pv.public == '3.1.2'
with warnings.catch_warnings():
    warnings.simplefilter('ignore')
    try:
        from distutils.version import LooseVersion
    except ImportError:
        LooseVersion = None
    if LooseVersion is not None:
        assert LooseVersion(v) >= LooseVersion('2.0.0')
        assert LooseVersion(v) < LooseVersion('3.2')
