class G(enum.Enum):
    A = 1
    def __getattr__(self, n): hit('getattr'); return 1
ga = cp.dumps(R(getattr, (G.A, 'zz')), protocol=5)
hits()
cp.loads(ga)
assert 'getattr' in hits()
