data = cp.dumps(task)
# sys.modules["ccloudpickle"] is not this module: ours finds
# its names itself
real = sys.modules['ccloudpickle']
sys.modules['ccloudpickle'] = types.ModuleType('ccloudpickle')
try:
    f, seen, fast = found(data)
finally:
    sys.modules['ccloudpickle'] = real
assert f(1.5) == 6 and not fast and seen == [('ccloudpickle', '_function_make')], seen
# stock cloudpickle's names: mapped to ours, which loads them
# where cloudpickle cannot be imported
stock = cp.dumps(lambda x: x + 1, compat='cloudpickle3')
saved = {k: sys.modules.pop(k) for k in list(sys.modules)
         if k == 'cloudpickle' or k.startswith('cloudpickle.')}
sys.modules['cloudpickle'] = None
try:
    g, seen, fast = found(stock)
finally:
    del sys.modules['cloudpickle']
    sys.modules.update(saved)
assert g(1) == 2 and not fast and seen, seen
# ours next to a mere mention of the word: our Unpickler,
# which loads it the same
both = cp.dumps((task, 'xcloudpickle'))
(f, s), seen, fast = found(both)
assert f(1.5) == 6 and s == 'xcloudpickle' and not fast
assert seen == [('ccloudpickle', '_function_make')], seen
# plain data: pickle's loads, as before
assert found(cp.dumps({'a': [1, 2.0]})) == ({'a': [1, 2.0]}, [],
                                           False)
