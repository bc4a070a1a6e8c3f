import ccloudpickle as cp
try:
    try:
        open('/nonexistent/x')
    except OSError as e:
        raise ImportError('no', name='m', path='/p') from e
except ImportError as e:
    exc = e
e = cp.loads(cp.dumps(exc))
assert (e.name, e.path) == ('m', '/p')
c = e.__cause__
assert type(c) is FileNotFoundError and c.filename == '/nonexistent/x'
assert c.errno == exc.__cause__.errno
assert c.__notes__[0].startswith('Traceback')
