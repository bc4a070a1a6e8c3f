import ccloudpickle as cp
key = b'k' * 32
class Short:
    def __init__(self, d):
        self.d, self.pos = d, 0
    def read(self, n=-1):
        b = self.d[self.pos:self.pos + 1]
        self.pos += len(b)
        return b
