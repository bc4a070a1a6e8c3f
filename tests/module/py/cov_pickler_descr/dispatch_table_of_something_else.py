import ccloudpickle as cp, io
d = vars(cp.Pickler)['dispatch_table']
for call in (lambda: d.__get__(5), lambda: d.__set__(5, {}),
             lambda: d.__get__(io.BytesIO(), type(None))):
    try:
        call()
    except TypeError as e:
        assert str(e) == 'not a ccloudpickle.Pickler', e
    else:
        raise AssertionError('accepted')
# On the class: the default table, the same each time.
assert d.__get__(None, cp.Pickler) is cp.Pickler.dispatch_table
