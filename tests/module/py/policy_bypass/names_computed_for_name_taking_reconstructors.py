import sys, types
class R:
    def __init__(s, f, a): s.f, s.a = f, a
    def __reduce__(s): return (s.f, s.a)
    def __call__(s, *a): pass
def evil():
    open(marker, 'w').close()
c = evil.__code__
def BT(n): return R(cp._builtin_type, (R(str, (n,)),))
code = R(BT('CodeType'), (c.co_argcount, c.co_posonlyargcount,
    c.co_kwonlyargcount, c.co_nlocals, c.co_stacksize,
    c.co_flags, c.co_code, c.co_consts, c.co_names,
    c.co_varnames, c.co_filename, c.co_name)
    + ((c.co_qualname,) if sys.version_info >= (3, 11) else ())
    + (c.co_firstlineno,
       c.co_linetable if sys.version_info >= (3, 10)
       else c.co_lnotab)
    + ((c.co_exceptiontable,) if sys.version_info >= (3, 11)
       else ()) + (c.co_freevars, c.co_cellvars))
run = cp.dumps(R(R(BT('FunctionType'),
                   (code, {'open': open, 'marker': marker})), ()))
imp = cp.dumps(R(cp.subimport, (R(''.join, (['wa', 've'],)),)))
for data, name in ((run, 'ccloudpickle._builtin_type'),
                   (imp, 'ccloudpickle.subimport')):
    for kw in ({'allow': []}, {'allow': ['math']},
               {'deny': ['os']}):
        refused(data, name, **kw)
sys.modules.pop('wave', None)
refused(imp, 'subimport', allow=['wave'])
assert 'wave' not in sys.modules
ok = cp.dumps([R(cp.subimport, ('math',)),
               R(cp._builtin_type, ('CodeType',))])
import math
assert cp.loads(ok, allow=['math']) == [math, types.CodeType]
assert cp.loads(ok, deny=['os']) == [math, types.CodeType]
cp.loads(run)
assert exists(), 'the pickle does not run without a policy'
