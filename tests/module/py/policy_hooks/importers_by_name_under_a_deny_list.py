touch = 'touch ' + marker
data = (PROTO + g('pydoc', 'locate') + s('os.system') +
        b'\x85' + R + s(touch) + b'\x85' + R + STOP)
refused(data, 'pydoc.locate')
for m, n in (('logging.config', 'dictConfig'),
             ('doctest', 'run_docstring_examples'),
             ('unittest', 'TestLoader'), ('tempfile', 'mkstemp')):
    d = PROTO + g(m, n) + STOP
    try:
        cp.loads(d, deny=['os'])
    except cp.PolicyError:
        pass
    else:
        raise AssertionError(m + '.' + n)
