# refused(obj, proto, want): under allow=[] the pickle is refused for
# running `want` (reason and name), at a REDUCE opcode; without a policy
# it loads (the call is real).
import ccloudpickle as cp, copyreg, re
ran = []
class C:
    def __init__(self):
        self.v = 1
    def __setstate__(self, s):
        ran.append('setstate')
        self.__dict__.update(s)
def f(*a):
    return 0
class R:
    def __init__(self, fn, args):
        self.fn, self.args = fn, args
    def __reduce__(self):
        return (self.fn, self.args)
PREFIX = ('import policy refuses a pickle whose load runs code '
          'carried by value: ')
def refused(obj, proto, want):
    data = cp.dumps(obj, protocol=proto)
    try:
        cp.loads(data, allow=[])
    except cp.PolicyError as e:
        s = str(e)
        assert s.startswith(PREFIX + want + ' (byte '), (want, s)
        at = int(re.search(r'\(byte (\d+)\)$', s).group(1))
        assert data[at:at + 1] == b'R', (want, at, data[at:at + 1])
    else:
        raise AssertionError('not refused: ' + want)
    return data
