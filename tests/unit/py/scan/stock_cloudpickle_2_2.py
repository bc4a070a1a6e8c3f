sys.path.append('/usr/lib/python3/dist-packages')
import cloudpickle
assert cloudpickle.__version__.startswith('2.2')
