import ccloudpickle as cp
def gen():
    yield 1
asked = []
class Holder:
    def __init__(self):
        self.g = gen()
    def __getattr__(self, name):
        if name == '__qualname__':
            asked.append(name)
            raise RuntimeError('no qualname')
        raise AttributeError(name)
try:
    cp.dumps(Holder())
except TypeError as e:
    # before 3.11 the note is in the message, after '; '
    msg, _, note = str(e).partition('; ')
    notes = getattr(e, '__notes__', [note])
    assert msg == "cannot pickle 'generator' object", e
    assert notes == ['when pickling <Holder object>.g '
                     '(generator)'], notes
else:
    raise AssertionError('pickled a generator')
assert asked == ['__qualname__'], asked
