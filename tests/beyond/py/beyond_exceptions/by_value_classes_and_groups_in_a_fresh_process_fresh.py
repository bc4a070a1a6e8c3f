import sys
e = obj
if sys.version_info >= (3, 11):
    assert type(e) is ExceptionGroup
    assert e.__notes__[0].startswith('Traceback')
    e = e.exceptions[0]
assert type(e).__name__ == 'AppError'
assert e.args == ('app',)
assert e.__cause__.args == ('bad', 2)
assert e.__cause__.hint == 'retry'
assert e.__cause__.__cause__.args == ('k',)
