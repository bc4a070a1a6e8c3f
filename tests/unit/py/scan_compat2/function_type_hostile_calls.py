def body():
    return 42
code = body.__code__
FT = types.FunctionType
def call(fn, args, proto=5):
    return cp.dumps(R(fn, args), protocol=proto)
def call_c2(fn, args, proto=5):
    return cp.dumps(R(fn, args), protocol=proto,
                    compat='cloudpickle2')
# the hand-made forms load as the report says
assert cp.loads(call(FT, (code, {})))() == 42
made = cp.loads(call(R(FT, (code, {})), ()))
assert made == 42
newobj = op_swap(cp.dumps((FT, (code, {})), protocol=3),
                 'TUPLE2', b'\x81')
assert cp.loads(newobj)() == 42
def newobj_ex(args, kw):
    return op_swap(cp.dumps((FT, args, kw), protocol=4),
                   'TUPLE3', b'\x92')
ex1 = newobj_ex((code, {}), {'argdefs': (1,)})
assert cp.loads(ex1).__defaults__ == (1,)
ex2 = newobj_ex((code,), {'globals': {}})
assert cp.loads(ex2)() == 42
def body_of(obj, proto, **kw):
    d = cp.dumps(obj, protocol=proto, **kw)
    if d[2] == 0x95: d = d[:2] + d[11:]  # the FRAME
    return d[2:-1]
args = (code, {'__name__': 'm'}, 'g', (1,), None)
by_global = (b'\x80\x03ctypes\nFunctionType\n' +
             body_of(args, 3) + b'R.')
by_stack_global = (b'\x80\x04\x8c\x05types'
                   b'\x8c\x0cFunctionType\x93' +
                   body_of(args, 4) + b'R.')
for d in (by_global, by_stack_global):
    g = cp.loads(d)
    assert g.__name__ == 'g' and g.__module__ == 'm', g
    assert g.__defaults__ == (1,) and g() == 42
notuple = (b'\x80\x02' +
           body_of(FT, 2, compat='cloudpickle2') +
           b']K\x01aR.')
try:
    cp.loads(notuple)
except TypeError:
    pass
else:
    raise AssertionError('a list as arguments loaded')
try:
    cp.loads(call(R(FT, (code, {})), ()), allow=[])
except cp.PolicyError as e:
    assert 'calls a function carried by value' in str(e), e
else:
    raise AssertionError('not refused')
