"""Regenerate tests/fuzz/corpus_loads, the seeds of fuzz_loads: valid
ccloudpickle pickles (protocols 2-5, and compat='cloudpickle') of lambdas,
closures, nested and recursive functions, classes with methods, slots and
properties, dataclasses, enums, typing constructs, arrays, dict views,
cells and partials. Every seed loads under fuzz_loads's allow-list.

    PYTHONPATH=build /usr/bin/python3 tests/fuzz/make_corpus_loads.py

Prints the globals the seeds import (each module.name once), which
fuzz_loads.c's allow-list must cover.
"""
import abc
import array
import collections
import dataclasses
import enum
import functools
import io
import logging
import os
import pickletools
import sys
import types
import typing
import weakref

import ccloudpickle

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus_loads")
os.makedirs(out, exist_ok=True)
for old in os.listdir(out):
    os.unlink(os.path.join(out, old))

# Pickled by value: they live in __main__.
__name__ = "__main__"  # noqa: A001 (the seeds' objects are "dynamic")


def make_objects():
    objs = {}
    objs["lambda"] = lambda x, y=2: x * y + 1
    objs["lambda-kwonly"] = lambda *a, k=3, **kw: (a, k, kw)

    z = 10

    def closure(a):
        return a + z

    objs["closure"] = closure

    def outer(n):
        m = n * 2

        def inner(k, /, j=1):
            return k + m + j

        return inner

    objs["nested"] = outer(3)

    def fact(n):
        return 1 if n <= 1 else n * fact(n - 1)

    objs["recursive"] = fact

    def gen(n):
        yield from range(n)

    objs["generator-func"] = gen

    class Point:
        __slots__ = ("x", "y")

        def __init__(self, x, y):
            self.x, self.y = x, y

        @property
        def norm(self):
            return abs(self.x) + abs(self.y)

        @classmethod
        def origin(cls):
            return cls(0, 0)

        @staticmethod
        def kind():
            return "point"

    objs["class-slots"] = Point
    objs["instance-slots"] = Point(1, 2)

    class Base:
        attr = 1

        def method(self):
            return self.attr

    class Derived(Base):
        """A docstring."""
        other = [1, 2]

        def method(self):
            return super().method() + 1

    objs["class-inherit"] = Derived
    objs["instance-inherit"] = Derived()

    @dataclasses.dataclass
    class DC:
        a: int
        b: str = "x"
        c: list = dataclasses.field(default_factory=list)

    objs["dataclass"] = DC
    objs["dataclass-instance"] = DC(1)

    @dataclasses.dataclass(frozen=True)
    class Frozen:
        v: typing.ClassVar[int] = 3
        w: float = 1.5

    objs["dataclass-frozen"] = Frozen()

    class Color(enum.Enum):
        RED = 1
        GREEN = "g"

    objs["enum"] = Color
    objs["enum-member"] = Color.GREEN

    class Perm(enum.IntFlag):
        R = 4
        W = 2
        X = 1

    objs["intflag"] = Perm.R | Perm.W

    T = typing.TypeVar("T", bound=int)
    U = typing.TypeVar("U", str, bytes, covariant=True)
    objs["typevar"] = T

    class Box(typing.Generic[T]):
        def __init__(self, item: T):
            self.item = item

    objs["generic"] = Box
    objs["generic-alias"] = (Box[int], typing.List[U], typing.Optional[T])

    objs["array"] = (array.array("i", [1, 2, 3]), array.array("d", [0.5]),
                     array.array("u", "hi"))
    d = {"a": 1, "b": 2}
    objs["dict-views"] = (d.keys(), d.values(), d.items())

    def cell_holder():
        c = 5

        def get():
            return c

        return get

    objs["cell"] = cell_holder().__closure__[0]

    def unbound_cell():
        if False:
            x = 1  # noqa: F841

        def get():
            return x  # noqa: F821

        return get

    objs["cell-empty"] = unbound_cell().__closure__[0]
    objs["partial"] = functools.partial(closure, 1)
    objs["partial-kw"] = functools.partial(outer(1), j=4)
    objs["od-counter"] = (collections.OrderedDict(a=1),
                          collections.Counter("hello"),
                          collections.deque([1, 2]),
                          collections.defaultdict(list, k=[1]))
    objs["namedtuple"] = collections.namedtuple("NT", "a b")(1, 2)
    objs["mixed"] = [closure, Point, Color.RED, {1, 2}, frozenset({3}),
                     b"bytes", bytearray(b"ba"), 1.5, 2 ** 70, complex(1, 2),
                     None, True, range(3), slice(1, 2)]
    objs["module-attr"] = (typing, collections.abc.Mapping)
    objs["code"] = closure.__code__
    objs["code-fields"] = fact.__code__.replace(co_consts=(None, 1, Box))
    dyn = types.ModuleType("dynmod")
    dyn.x = 1
    exec("def f(a):\n    return a + x\n", dyn.__dict__)
    objs["dynamic-module"] = (dyn, dyn.f)
    objs["mappingproxy"] = types.MappingProxyType({"k": [1]})
    od = collections.OrderedDict(a=1)
    objs["odict-views"] = (od.keys(), od.values(), od.items())
    objs["memoryview"] = memoryview(b"abc")
    objs["getset"] = (types.FunctionType.__dict__["__code__"],
                      Point.__dict__["x"])
    objs["text-file"] = io.StringIO("text")
    sio_path = os.path.join(os.path.dirname(out), "make_corpus_loads.py")
    with open(sio_path) as fh:
        objs["open-file"] = fh
        objs["open-file"] = ccloudpickle.dumps(fh)  # pickled while open
    objs["logger"] = (logging.getLogger("cpk.fuzz"), logging.getLogger())
    ws_members = [Point, Base]
    objs["weakset"] = weakref.WeakSet(ws_members)

    class Abstract(abc.ABC):
        @abc.abstractmethod
        def run(self):
            pass

        @property
        @abc.abstractmethod
        def size(self):
            pass

    objs["abc"] = Abstract
    objs["bound-method"] = Derived().method
    objs["builtin-method"] = ([].append, len, dict.fromkeys)

    def annotated(a: int, *, k: str = "v") -> list:
        """Doc."""
        return [a, k]

    annotated.extra = {"attr": 1}
    objs["annotated"] = annotated
    objs["typevars"] = (typing.TypeVar("C", int, str),
                        typing.TypeVar("K", contravariant=True))
    objs["sentinel"] = dataclasses.fields(DC)
    objs["singletons"] = (NotImplemented, Ellipsis, type(None),
                          type(NotImplemented))
    return objs


globs = set()
total = 0
for name, obj in make_objects().items():
    variants = [(f"p{p}", dict(protocol=p)) for p in (2, 3, 4, 5)]
    variants.append(("cp", dict(compat="cloudpickle")))
    for tag, kw in variants:
        if isinstance(obj, bytes):  # already a pickle
            if tag != "p5":
                continue
            data = obj
        else:
            data = ccloudpickle.dumps(obj, **kw)
        ccloudpickle.loads(data)  # a seed must load
        path = os.path.join(out, f"{name}-{tag}.pkl")
        with open(path, "wb") as f:
            f.write(data)
        total += len(data)
        stack = []
        for op, arg, _ in pickletools.genops(data):
            if op.name in ("SHORT_BINUNICODE", "BINUNICODE", "UNICODE"):
                stack.append(arg)
            elif op.name == "STACK_GLOBAL" and len(stack) >= 2:
                globs.add(f"{stack[-2]}.{stack[-1]}")
            elif op.name == "GLOBAL":
                globs.add(arg.replace(" ", "."))
print(f"{len(os.listdir(out))} seeds, {total} bytes", file=sys.stderr)
for g in sorted(globs):
    print(g)
