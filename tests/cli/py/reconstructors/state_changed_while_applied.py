state = {}
class Key(str):
    def __hash__(self):
        return hash(str(self))
    def __eq__(self, other):
        state.clear()
        return str(self) == other
g = {}
f = cp._function_new(code0, g, None)
state['__globals__'] = {Key('a'): [1] * 10}
g[Key('a')] = 0
cp._function_fill(f, state)
assert f.__globals__['a'] == [1] * 10
class K:
    pass
cs = {'_abc_impl': [], 'x': 1}
cs2 = {}
class Setter(type):
    def __setattr__(cls, name, value):
        cs.clear()
        type.__setattr__(cls, name, value)
K2 = cp._make_skeleton_class(Setter, 'K2', (), {}, None, None)
assert cp._class_setstate(K2, (cs, cs2)) is K2
