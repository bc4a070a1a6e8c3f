saved = traceback.format_tb
traceback.format_tb = lambda tb: 1 / 0
try:
    cp.dumps(exc)
except ZeroDivisionError:
    pass
else:
    raise AssertionError('pickled without its note')
traceback.format_tb = saved
back = cp.loads(cp.dumps(exc))
assert type(back) is ZeroDivisionError
note = back.__notes__[-1]
assert note.startswith('Traceback (most recent call last, '
                       'before pickling):\n'), note
assert 'in fail' in note and not note.endswith('\n'), note
assert not hasattr(exc, '__notes__')
