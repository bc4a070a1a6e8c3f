import ccloudpickle as cp, os, pickle, pickletools
# str('os') . 'getcwd' -> STACK_GLOBAL -> call
data = (b'\x80\x04cbuiltins\nstr\n(Vos\ntR'
        b'Vgetcwd\n\x93)R.')
at = [pos for op, arg, pos in pickletools.genops(data)
      if op.name == 'STACK_GLOBAL']
assert len(at) == 1
# Plain pickle runs it: the policy is what stops it.
assert pickle.loads(data) == os.getcwd()
for allow in (['builtins.str'], ['builtins.str', 'os.getcwd'],
              ['builtins.*', 'os.*']):
    try:
        cp.loads(data, allow=allow)
    except cp.PolicyError as e:
        assert str(e) == 'import policy refuses 1 import: a '\
            'name computed at load time (byte %d)' % at[0], e
    else:
        raise AssertionError(allow)
