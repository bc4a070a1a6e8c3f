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


def make():
    return account(), counter()
# --- load ---
(deposit, withdraw, report), (incr, reset) = obj
deposit(100)
withdraw(30)
assert report() == 70, report()
assert incr() == 11
reset()
assert incr() == 1
