import sys, _operator, ccloudpickle
saved = sys.modules.pop('operator', None)
try:
    data = ccloudpickle.dumps(_operator.itemgetter(1))
finally:
    if saved is not None:
        sys.modules['operator'] = saved
if sys.version_info >= (3, 10):
    assert b'_make_skeleton_class' not in data, data
    assert b'operator' in data and b'itemgetter' in data
