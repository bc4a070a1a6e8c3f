class Other(types.ModuleType):
    def __getattr__(self, name):
        raise AttributeError(name)
sys.modules['cov_other'] = Other('cov_other')
home = types.ModuleType('cov_home')
home.f = f
sys.modules['cov_home'] = home
data = cp.dumps(f)
assert names(data)[:2] == ['cov_home', 'f'], names(data)
assert b'co_code' not in data and cp.loads(data) is f
