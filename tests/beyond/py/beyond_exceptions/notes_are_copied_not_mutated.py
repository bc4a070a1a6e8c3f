if sys.version_info >= (3, 11):
    exc.add_note('first')
else:
    exc.__notes__ = ['first']
e = cp.loads(cp.dumps(exc))
assert exc.__notes__ == ['first']
assert e.__notes__[0] == 'first' and len(e.__notes__) == 2
assert e.__notes__[1].startswith(NOTE)
# Not a list: left as it is, no note added.
exc.__notes__ = ('t',)
assert cp.loads(cp.dumps(exc)).__notes__ == ('t',)
# Never raised: no traceback, no note, no state at all.
plain = KeyError('x')
assert cp.dumps(plain) == pickle.dumps(plain, 5)
