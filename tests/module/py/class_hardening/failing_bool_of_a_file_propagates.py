import io, ccloudpickle
class Boom:
    def __bool__(self):
        raise ZeroDivisionError('bool of ' + self.what)
    def __init__(self, what):
        self.what = what
class Raw(io.RawIOBase):
    name = 'raw'
    bad = 'closed'
    def readable(self):
        return True
    @property
    def closed(self):
        return Boom('closed') if self.bad == 'closed' else False
    def isatty(self):
        return Boom('isatty')
for bad in ('closed', 'isatty'):
    raw = Raw()
    raw.bad = bad
    f = io.TextIOWrapper(raw)
    f.mode = 'r'
    try:
        ccloudpickle.dumps(f)
    except ZeroDivisionError as e:
        assert str(e) == 'bool of ' + bad, e
    else:
        raise AssertionError('pickled')
    raw.bad = None
