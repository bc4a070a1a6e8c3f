# through globals
def fact(n):
    return 1 if n < 2 else n * fact(n - 1)
assert form(fact) == 'split'
check(fact, 6)
# through its own cell
def outer():
    def rec(n):
        return 0 if n == 0 else 1 + rec(n - 1)
    return rec
assert form(outer()) == 'split'
check(outer(), 5)
# through a default and an attribute
def d(x, me=None):
    return x
d.__defaults__ = (d,)
assert form(d) == 'split'
g = cp.loads(cp.dumps(d))
assert g.__defaults__[0] is g
def a(x):
    return x
a.me = [a]
assert form(a) == 'split'
g = cp.loads(cp.dumps(a))
assert g.me[0] is g
# through a tuple, a dict
def t(x):
    return x
t.__kwdefaults__ = None
t.box = {'k': (1, [t])}
assert form(t) == 'split'
g = cp.loads(cp.dumps(t))
assert g.box['k'][1][0] is g
