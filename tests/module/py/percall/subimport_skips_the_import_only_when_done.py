import builtins, ccloudpickle as cp, math, sys, types
calls = []
real = builtins.__import__
def hook(name, *a, **k):
    calls.append(name)
    return real(name, *a, **k)
builtins.__import__ = hook
try:
    assert cp.subimport('math') is math and calls == [], calls
    m = types.ModuleType('halfway')
    m.__spec__ = types.SimpleNamespace(name='halfway',
                                       _initializing=True)
    sys.modules['halfway'] = m
    assert cp.subimport('halfway') is m
    assert calls == ['halfway'], calls
    m.__spec__._initializing = False
    assert cp.subimport('halfway') is m and len(calls) == 1
    sys.modules.pop('colorsys', None)
    c = cp.subimport('colorsys')
    assert c is sys.modules['colorsys'] and calls[1] == 'colorsys'
    sys.modules['notamodule'] = 42
    assert cp.subimport('notamodule') == 42
    assert calls[-1] == 'notamodule'
    try:
        cp.subimport('no_such_module_here')
        raise AssertionError('imported nothing')
    except ImportError:
        pass
finally:
    builtins.__import__ = real
