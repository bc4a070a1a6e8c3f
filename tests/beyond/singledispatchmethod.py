# functools.singledispatchmethod on a class defined by value: the methods
# dispatch after loading, for a builtin type and a class by value. (3.13
# keeps a WeakKeyDictionary of bound methods in it: made anew on load.)
import functools


class Money:
    def __init__(self, cents):
        self.cents = cents


class Fmt:
    def __init__(self, unit):
        self.unit = unit

    @functools.singledispatchmethod
    def show(self, x):
        return "?"

    @show.register
    def _(self, x: int):
        return "%d %s" % (x, self.unit)

    @show.register
    def _(self, x: Money):
        return self.show(x.cents // 100)

    @show.register(list)
    def _(self, x):
        return [self.show(i) for i in x]


f = Fmt("EUR")
f.show(1), f.show([Money(300)])  # caches filled


def make():
    return Fmt, Money, f
# --- load ---
Fmt, Money, f = obj
assert f.show(2) == "2 EUR"
assert f.show([Money(250), 1.5]) == ["2 EUR", "?"]
g = Fmt("USD")
assert g.show(Money(100)) == "1 USD"
show = Fmt.__dict__["show"]
assert list(show.dispatcher.registry)[1:] == [int, Money, list]
