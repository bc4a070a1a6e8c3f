# another function by value, a class by value, an instance
def helper(x):
    return x + 1
def uses_helper(x):
    return helper(x)
assert form(uses_helper) == 'split'
check(uses_helper, 1)
class K:
    v = 3
def uses_class():
    return K.v
assert form(uses_class) == 'split'
check(uses_class)
def annotated(x: K):
    return 1
assert form(annotated) == 'split'
# a str subclass, an int subclass: not exact types
class S(str):
    pass
def f(x=S('a')):
    return str(x)
assert form(f) == 'split'
check(f)
# a module registered to go by value may hold the function
mod = types.ModuleType('byvalue_mod')
sys.modules['byvalue_mod'] = mod
exec('def get():\n    return 5\n', mod.__dict__)
cp.register_pickle_by_value(mod)
def uses_mod():
    return mod.get()
assert form(uses_mod) == 'split'
check(uses_mod)
cp.unregister_pickle_by_value(mod)
assert form(uses_mod) == 'make'
