# functools.lru_cache / functools.cache wrappers defined by value and
# referenced as globals: rebuilt with the same maxsize and typed-ness,
# their cache empty, and recursion goes through the new cache.
import functools


@functools.lru_cache(maxsize=None)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


@functools.lru_cache(maxsize=32, typed=True)
def square(x):
    "Square it."
    return x * x


@functools.cache
def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)


square.tag = "sq"
fib(30), square(3), fact(10)  # caches filled before pickling


def make():
    return fib, square, fact
# --- load ---
fib, square, fact = obj
assert fib.cache_info().currsize == 0  # the cache starts empty
assert fib.cache_parameters() == {"maxsize": None, "typed": False}
# Exponential without the cache: returns at once only if the recursion
# goes through the new cache.
assert fib(200) == 280571172992510140037611932413038677189525
info = fib.cache_info()
assert info.misses == 201 and info.hits == 198, info
assert square.cache_parameters() == {"maxsize": 32, "typed": True}
assert square(3) == 9 and square(3.0) == 9.0
assert square.cache_info().misses == 2  # typed: 3 and 3.0 are two keys
assert square.__doc__ == "Square it." and square.tag == "sq"
assert square.__wrapped__(4) == 16
assert fact.cache_parameters() == {"maxsize": None, "typed": False}
assert fact(20) == 2432902008176640000
assert fact.cache_info().misses == 20
assert fact.__name__ == "fact" and fact.__qualname__ == "fact"
