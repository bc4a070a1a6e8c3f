import functools
ns = {}
# No builtin: 3.9 gives a function made with globals {}
# no builtins (open would be a NameError). Running it is
# a ZeroDivisionError raised in body.
exec('def body():\n    return 1 // 0\n', ns)
code = ns['body'].__code__
FT = types.FunctionType
P = functools.partial
def live(data, what, why=''):
    try:
        cp.loads(data, allow=[])
    except cp.PolicyError as e:
        assert ('code object carried by value' in str(e) or
                'passes code carried' in str(e) or
                (why and why in str(e))), (what, e)
    else:
        raise AssertionError('not refused: ' + what)
    try:
        cp.loads(data)
    except ZeroDivisionError as e:
        tb = e.__traceback__
        while tb.tb_next is not None:
            tb = tb.tb_next
        assert tb.tb_frame.f_code.co_name == 'body', what
    else:
        raise AssertionError('not live: ' + what)
own = cp.dumps(R(R(P(cp._function_new, code), ({}, 0)), ()))
c2p = c2(R(R(P(FT, code), ({},)), ()), 5)
c2map = cp.dumps(R(R(next, (R(map, (FT, [code], [{}])),)), ()),
                 compat='cloudpickle2')
import importlib.util, marshal
triple = ('{}.{}'.format(*sys.version_info[:2]),
          int.from_bytes(importlib.util.MAGIC_NUMBER, 'little'),
          marshal.dumps(code))
make = cp.dumps(R(R(P(cp._function_make, triple),
                    ({}, None, {})), ()))
live(own, 'partial(_function_new, code)')
# _function_make imports what its fifth argument names:
# used otherwise than called on a literal tuple, its name
# is dangerous first
live(make, 'partial(_function_make, (version, magic, data))',
     'ccloudpickle._function_make')
# _function_make kept in a class carried by value, called
# through getattr: no partial, no code node
class K:
    f = cp._function_make
via_class = cp.dumps(R(R(R(getattr, (K, 'f')),
                         (triple, {}, None, {})), ()))
def refused_and_live(data, what):
    try:
        cp.loads(data, allow=[])
    except cp.PolicyError as e:
        pass
    else:
        raise AssertionError('not refused: ' + what)
    try:
        cp.loads(data)
    except ZeroDivisionError:
        pass
    else:
        raise AssertionError('not live: ' + what)
refused_and_live(via_class, 'getattr(K, "f")(t, ...)')
# a record of a str, an int and bytes is plain data
assert cp.loads(cp.dumps(R(tuple, (('3.11', 1, b'cx'),))),
                allow=[]) == ('3.11', 1, b'cx')
live(c2p, 'partial(LambdaType, code)')
live(c2map, 'map(LambdaType, [code], [{}])')
def nested(xs):
    f = lambda v: v + 1
    return [f(x) for x in xs if x]
assert cp.loads(c2(nested, 5), allow=[])([1, 0]) == [2]
