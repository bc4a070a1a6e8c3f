import ccloudpickle as cp, copyreg, pickle, sys
def fail():
    try:
        {}['k']
    except KeyError as e:
        err = ValueError('bad', 2)
        err.hint = 'retry'
        raise err from e
try:
    fail()
except ValueError as e:
    exc = e
NOTE = 'Traceback (most recent call last, before pickling):\n'
