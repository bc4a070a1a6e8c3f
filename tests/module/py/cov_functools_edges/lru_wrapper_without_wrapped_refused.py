del w.__wrapped__
try:
    cp.dumps(w)
except pickle.PicklingError as e:
    assert str(e) == ("Can't pickle lru_cache wrapper %r by "
                      'value: it has no __wrapped__' % (w,)), e
else:
    raise AssertionError('pickled')
