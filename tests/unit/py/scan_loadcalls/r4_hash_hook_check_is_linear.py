import ccloudpickle as cp, pickletools, struct, __main__
def fm(self): pass
M, N = 50000, 800000
K = type('K', (), {'m%d' % i: fm for i in range(M)})
K.__module__ = '__main__'; K.__qualname__ = 'K'
__main__.K = K
p = cp.dumps(K.__new__(K), protocol=5)
nmemo = sum(1 for op, a, pos in pickletools.genops(p)
            if op.name == 'MEMOIZE')
get = b'j' + struct.pack('<I', nmemo)
slow = p[:-1] + b'\x94}(' + (get + b'N') * N + b'u\x86.'
