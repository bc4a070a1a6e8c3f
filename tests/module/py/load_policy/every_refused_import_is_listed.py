import subprocess, collections, cpk_fixture_funcs
data = pickle.dumps([os.system, collections.OrderedDict,
                     subprocess.call, cpk_fixture_funcs.triple,
                     Evil()], protocol=4)
msg = refused(data, 'import policy refuses 3 imports: ',
              allow=[])
names = msg.split(': ', 1)[1].split(', ')
assert [n.split(' (byte ')[0] for n in names] == [
    'posix.system', 'subprocess.call',
    'cpk_fixture_funcs.triple'], names
# offsets: where each global is imported
import pickletools
offs = [int(n.split(' (byte ')[1].rstrip(')')) for n in names]
ops = {pos: op.name for op, arg, pos in pickletools.genops(data)}
assert all(ops[o] == 'STACK_GLOBAL' for o in offs), (offs, ops)
assert offs == sorted(offs)
# deny refuses what it denies, and what is dangerous
msg = refused(data, 'refuses 3 imports', deny=['subprocess',
              'collections'])
assert 'collections.OrderedDict' in msg and 'posix.system' in msg
assert 'cpk_fixture_funcs' not in msg
