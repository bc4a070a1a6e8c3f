# A module of this process that pickles by reference: Registry, whose
# handlers a Pickler subclass's reducer_override writes with it.
modc = types.ModuleType('modc_fm')
sys.modules['modc_fm'] = modc
exec('class Registry:\n    handlers = []\n'
     'def rebuild(handlers):\n'
     '    Registry.handlers = list(handlers)\n'
     '    return Registry\n', modc.__dict__)
class P(cp.Pickler):
    def reducer_override(self, obj):
        if obj is modc.Registry:
            return (modc.rebuild, (tuple(modc.Registry.handlers),))
        return super().reducer_override(obj)
import io
def p_dumps(obj):
    buf = io.BytesIO()
    P(buf).dump(obj)
    return buf.getvalue()
src = 'def f{n}():\n    return Registry, x\n'
g1 = {'__name__': 'plugin_a', 'Registry': modc.Registry, 'x': 1}
g2 = {'__name__': 'plugin_b', 'Registry': modc.Registry, 'x': 1}
exec(src.format(n=1), g1)
exec(src.format(n=2), g2)
modc.Registry.handlers[:] = [g2['f2']]
data = p_dumps(g1['f1'])
assert '_function_make' not in names(data)
modc.Registry.handlers = []
f1 = pickle.loads(data)
f2 = modc.Registry.handlers[0]
assert f1() == (modc.Registry, 1)
assert f2 is not g2['f2'] and f2() == (modc.Registry, 1)
# a closure the reducer leads back to
def mk(R):
    def h(x):
        return R, x
    return h
h = mk(modc.Registry)
modc.Registry.handlers[:] = [h]
back = pickle.loads(p_dumps(h))
assert modc.Registry.handlers[0] is back
assert back(1) == (modc.Registry, 1)
# a plain Pickler, an instance persistent_id, a dispatch table:
# the same function, each form as its hooks allow
def plain(x):
    return math.sqrt(x)
assert '_function_make' in names(cp.dumps(plain))
buf = io.BytesIO()
q = cp.Pickler(buf)
q.persistent_id = lambda obj: None
q.dump(plain)
assert '_function_make' not in names(buf.getvalue())
assert pickle.loads(buf.getvalue())(4) == 2.0
buf = io.BytesIO()
q = cp.Pickler(buf)
q.dispatch_table[complex] = lambda c: (complex, (1, 2))
q.dump(plain)
assert '_function_make' not in names(buf.getvalue())
