import ccloudpickle as cp, sys, tempfile, os, importlib
d = tempfile.mkdtemp()
with open(os.path.join(d, 'only_here.py'), 'w') as f:
    f.write('RATE = 3\n'
            'class Job:\n'
            '    def __init__(self, n):\n'
            '        self.n = n\n'
            '    def run(self):\n'
            '        return helper(self.n) * RATE\n'
            'def helper(x):\n'
            '    return x + 1\n')
sys.path.insert(0, d)
import only_here
cp.register_pickle_by_value(only_here)
data = cp.dumps(only_here.Job(4))
