import sys
sys.path.append('/usr/lib/python3/dist-packages')
import cloudpickle
