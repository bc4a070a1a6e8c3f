import ccloudpickle as cp, io, pickle, sys, types
import email.mime.text, xml.dom.minidom
states = []
class Rec(pickle.Unpickler):
    def find_class(self, m, n):
        if n == '_function_make':
            return lambda *a: states.append(a[3])
        if n == '_function_fill':
            return lambda f, st: states.append(st)
        return super().find_class(m, n)
def subs(f):
    states.clear()
    Rec(io.BytesIO(cp.dumps(f))).load()
    assert len(states) == 1, states
    return sorted(m.__name__
                  for m in states[0].get('__submodules__', []))
def mk(mod):
    def f():
        return mod.mime.text, mod.dom
    return f
def fake(name, mod):
    sys.modules[name] = mod
    sys.modules[name + '.dom'] = types.ModuleType(name + '.dom')
    return mod
assert subs(mk(email)) == ['email.mime', 'email.mime.text'], \
       subs(mk(email))
# a module subclass whose __package__ is a property
import importlib
class Lazy(types.ModuleType):
    def __reduce__(self):
        return importlib.import_module, (self.__name__,)
    @property
    def __package__(self):
        return self.__name__
lx = fake('lz_pkg', Lazy('lz_pkg'))
assert subs(mk(lx)) == ['lz_pkg.dom'], subs(mk(lx))
# a plain module without __package__ in its dict: its own
# __getattr__ answers (PEP 562)
px = fake('px_pkg', types.ModuleType('px_pkg'))
del px.__dict__['__package__']
assert subs(mk(px)) == [], subs(mk(px))
px.__getattr__ = lambda n: 'px' if n == '__package__' else 1/0
assert subs(mk(px)) == ['px_pkg.dom'], subs(mk(px))
# a module whose __package__ is false: none
email_flat = types.ModuleType('email')
email_flat.__package__ = ''
assert subs(mk(email_flat)) == []
# an error reading it propagates
class Bad(types.ModuleType):
    @property
    def __package__(self):
        raise KeyError('no package')
try:
    cp.dumps(mk(fake('bad_pkg', Bad('bad_pkg'))))
except KeyError as e:
    assert 'no package' in str(e)
else:
    raise AssertionError('no error')
# an empty cell
def mk_empty():
    def f():
        return later.dom
    return f
    later = 1
assert subs(mk_empty()) == []
