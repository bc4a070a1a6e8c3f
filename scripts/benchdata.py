"""The benchmark's workloads (scripts/bench). Each builder returns the object
to pickle; building happens before any timing.

Importable on purpose: workload (b)'s class must be found by reference.
"""
import datetime
import random
import types


class Record:
    """A plain importable class (workload b)."""

    def __init__(self, ident, name, score):
        self.ident = ident
        self.name = name
        self.score = score


def build_a(n=200_000):
    """dict of str keys to small lists of ints, floats and strs."""
    rnd = random.Random(1)
    return {f"key-{i:07d}": [i, rnd.random(), f"v{i % 97}"] for i in range(n)}


def build_b_objects(n=200_000):
    return [Record(i, f"name{i % 1000}", i * 0.5) for i in range(n)]


def build_b_datetimes(n=200_000):
    base = datetime.datetime(2024, 1, 1)
    step = datetime.timedelta(seconds=37)
    return [base + i * step for i in range(n)]


def _dynamic_module(name, source):
    """A module that exists only in this process (not in sys.modules)."""
    mod = types.ModuleType(name)
    exec(compile(source, f"<{name}>", "exec"), mod.__dict__)
    return mod


FACTORY_SOURCE = """
import math
SCALE = 2.5
UNUSED = list(range(1000))

def make(a, b):
    def closure(x):
        return math.floor((x + a) * SCALE) + b
    return closure
"""


def build_c(n=5_000):
    """Distinct closures from a factory in a dynamic module: 2 cells
    (a, b), 2 globals (math, SCALE)."""
    mod = _dynamic_module("bench_factory", FACTORY_SOURCE)
    return [mod.make(i, -i) for i in range(n)]


def build_d(n=500):
    """Dynamic classes with 5 methods, plus one instance of each."""
    mod = _dynamic_module("bench_classes", "")
    out = []
    for i in range(n):
        ns = {}
        exec(
            f"class Model{i}:\n"
            f"    kind = {i}\n"
            "    def __init__(self, x):\n"
            "        self.x = x\n"
            "    def double(self):\n"
            "        return self.x * 2\n"
            "    def add(self, y):\n"
            "        return self.x + y\n"
            "    def describe(self):\n"
            "        return f'{type(self).__name__}({self.x})'\n"
            "    @classmethod\n"
            "    def make(cls, x):\n"
            "        return cls(x)\n"
            "    @staticmethod\n"
            "    def helper(v):\n"
            "        return v + 1\n",
            mod.__dict__,
            ns,
        )
        cls = ns[f"Model{i}"]
        cls.__module__ = "bench_classes"
        out.append(cls)
        out.append(cls(i))
    return out


BIG_SOURCE = """
TABLE = {f"k{i}": i * 3 for i in range(10_000)}

def big(items: list, scale: float = 1.0, *, limit: int = 100) -> dict:
    '''One big function: nested functions, defaults, annotations.'''
    def clean(v: int, bias: int = 1) -> int:
        return TABLE.get(f"k{v}", 0) + bias

    def summarise(values, key=abs):
        total = 0
        for v in values:
            total += key(v)
        return total

    class Acc:
        def __init__(self):
            self.seen = []

        def push(self, v):
            self.seen.append(v)

    acc = Acc()
    for i, item in enumerate(items):
        if i >= limit:
            break
        acc.push(clean(item) * scale)
    return {"sum": summarise(acc.seen), "n": len(acc.seen)}
"""


def build_e():
    return _dynamic_module("bench_big", BIG_SOURCE).big


def build_f(megabytes=50):
    import numpy

    return numpy.arange(megabytes * (1 << 20) // 8, dtype=numpy.float64)


JOB_SOURCE = """
import math


def job(x=2):
    '''The whole-process benchmark's function.'''
    return math.sqrt(x) * 10
"""
