import ccloudpickle as cp, os, os.path, sys
assert cp._import('os') is os
assert cp._import('os.path', None, None, ('join',)) is os.path
assert cp._import('os.path') is os
shim = cp._import('cloudpickle.cloudpickle')
assert shim is cp._import('cloudpickle.cloudpickle')
assert shim.__name__ == 'cloudpickle.cloudpickle'
assert sys.modules.get('cloudpickle.cloudpickle') is not shim
assert shim._make_skeleton_class is cp._make_skeleton_class
