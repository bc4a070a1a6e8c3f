# Closures sharing one cell keep sharing it after loading.
def account():
    balance = 0

    def deposit(x):
        nonlocal balance
        balance += x

    def withdraw(x):
        nonlocal balance
        balance -= x

    def report():
        return balance

    return deposit, withdraw, report


def counter():
    n = 10

    def incr():
        nonlocal n
        n += 1
        return n

    def reset():
        nonlocal n
        n = 0

    return incr, reset


def mutual():
    # Each closes over the other's cell, and over a cell empty at dump time.
    def is_even(n):
        return True if n == 0 else is_odd(n - 1)

    def is_odd(n):
        return False if n == 0 else is_even(n - 1)

    def set_late(v):
        nonlocal late
        late = v

    def get_late():
        return late

    return is_even, is_odd, set_late, get_late
    late = None  # never runs: `late` is a local, empty until set_late


def make():
    return account(), counter(), mutual()
# --- load ---
(deposit, withdraw, report), (incr, reset), mut = obj
is_even, is_odd, set_late, get_late = mut
deposit(100)
withdraw(30)
assert report() == 70, report()
assert incr() == 11
reset()
assert incr() == 1
assert is_even(10) and is_odd(7) and not is_even(7)
try:
    get_late()
except NameError:
    pass
else:
    raise AssertionError("the empty cell was filled")
set_late("now")
assert get_late() == "now"
