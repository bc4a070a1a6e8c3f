"""check.py - every row of the closed table (src/scan/pkscan_table.c)
behaves as it says under the running CPython, and every name the scanner
calls plain is either in the table or listed below as deliberately absent.

    python3 check.py TABLE.json SOURCE_DIR [--module]

TABLE.json is what build/tests/unit/closed_table_json prints; SOURCE_DIR
is the project's tree (the scanner's name tables are read from
src/scan/pkscan_classify.c). The rows of ccloudpickle and cloudpickle
need the module built for this interpreter: with --module it must import
(test_closed_table.c passes it, with the build directory on PYTHONPATH),
without it those rows are skipped when it does not. Only the standard
library is used otherwise, so any supported CPython (3.9-3.13) runs it.

For each row and form (call, new):
  new    the result is none of the arguments nor reachable from them, a
         second identical call gives another object (a cache would give
         the same), and storing into the result (setattr, item, append,
         add) leaves every argument as it was, but for the `shares`
         arguments, which the result must hold;
  value  the call changes none of its arguments (argument 0 excepted
         for `writes0` rows);
  opaque nothing is claimed.
Rows with PKT_DISPATCH must return what argument 0's own method does.
Reconstructors are called with the arguments loading ccloudpickle's own
pickles of sample objects gives them (a few by hand); cloudpickle's rows
must equal the row of the function find_class maps them to; fill
reconstructors (writes0) must refuse a target an imported module owns,
but for KNOWN_RUNTIME_GAPS. Plain names outside the table must be in
ABSENT (those a call cannot make are checked to raise); FINDINGS, plain
names the scanner should not accept at all, are printed.
Exit status 0 when every claim holds, 1 otherwise (one line per failure).
"""
import collections
import dataclasses
import decimal
import fractions
import gc
import importlib
import json
import os
import re
import sys
import types
import uuid
import warnings

warnings.simplefilter("ignore")


class Shared:
    """An object a pickle could reach by import: a shared class and its
    instance, whose attributes must never change."""
    attr = 1


SHARED = Shared()
PROBE = object()  # what the check stores into a result


# Sample arguments ----------------------------------------------------------
# A factory per name returns a list of (args, kwargs) made fresh for each
# check. Names without one are tried with generic() until one call succeeds.

def fresh_list():
    return [1, "a", [2, 3], {"k": [4]}, SHARED]


def fresh_dict():
    return {"a": [1, 2], "b": {"c": 3}, "s": SHARED}


def generic():
    return [((fresh_list(),), {}), ((fresh_dict(),), {}),
            ((bytearray(b"ab"),), {}), ((), {}), ((["x", "y"],), {}),
            (("abc",), {}), ((2,), {}), ((0.5,), {}), ((2, 3), {}),
            ((0.5, 0.25), {}), ((fresh_list(), 1), {}),
            (("abc", "b"), {}), (([1, 2, 3],), {}), ((Shared,), {}),
            ((SHARED,), {}), ((1, 2, 3), {}), ((0.5, 0.25, 0.125), {})]


def exc_args():
    return [(("message", fresh_list()), {})]


def mod(name):
    return importlib.import_module(name)


SAMPLES = {
    ("builtins", "UnicodeDecodeError"):
        lambda: [(("utf-8", bytearray(b"\xff"), 0, 1, "bad"), {})],
    ("builtins", "UnicodeEncodeError"):
        lambda: [(("ascii", "\xff", 0, 1, "bad"), {})],
    ("builtins", "UnicodeTranslateError"):
        lambda: [(("\xff", 0, 1, "bad"), {})],
    ("builtins", "bytearray"): lambda: [((bytearray(b"abc"),), {}),
                                        (([1, 2, 3],), {})],
    ("builtins", "bytearray.fromhex"): lambda: [(("ab cd",), {})],
    ("builtins", "bytes.fromhex"): lambda: [(("ab cd",), {})],
    ("builtins", "dict"): lambda: [((fresh_dict(),), {}),
                                   (([["k", fresh_list()]],), {})],
    ("builtins", "dict.fromkeys"): lambda: [((["a", "b"], fresh_list()), {})],
    ("builtins", "enumerate"): lambda: [((fresh_list(),), {})],
    ("builtins", "filter"): lambda: [((None, fresh_list()), {})],
    ("builtins", "int.from_bytes"): lambda: [((b"\x01\x02", "big"), {})],
    ("builtins", "float.fromhex"): lambda: [(("0x1p3",), {})],
    ("builtins", "iter"): lambda: [((fresh_list(),), {}),
                                   ((fresh_dict(),), {})],
    ("builtins", "list"): lambda: [((fresh_list(),), {})],
    ("builtins", "map"): lambda: [((len, fresh_list()), {})],
    ("builtins", "max"): lambda: [((fresh_list()[:2] + [0],), {"key": id})],
    ("builtins", "min"): lambda: [(([Shared, fractions.Fraction],),
                                   {"key": id})],
    ("builtins", "next"): lambda: [((iter([SHARED]),), {})],
    ("builtins", "property"): lambda: [((len, None, None, "doc"), {})],
    ("builtins", "classmethod"): lambda: [((len,), {})],
    ("builtins", "staticmethod"): lambda: [((len,), {})],
    ("builtins", "reversed"): lambda: [((fresh_list(),), {})],
    ("builtins", "set"): lambda: [((["a", "b", "c"],), {})],
    ("builtins", "sorted"): lambda: [((["b", "a"],), {})],
    ("builtins", "sum"): lambda: [(([], SHARED), {}),
                                  (([[1], [2]], []), {})],
    ("builtins", "type"): lambda: [((SHARED,), {})],
    ("builtins", "tuple"): lambda: [(((1, fresh_list()),), {}),
                                    ((fresh_list(),), {})],
    ("builtins", "frozenset"): lambda: [((frozenset({1, "a"}),), {}),
                                        ((["a", "b"],), {})],
    ("builtins", "str"): lambda: [(("abc",), {}), ((fresh_list(),), {})],
    ("builtins", "bytes"): lambda: [((b"abc",), {}),
                                    ((bytearray(b"ab"),), {})],
    ("builtins", "isinstance"): lambda: [((SHARED, Shared), {})],
    ("builtins", "issubclass"): lambda: [((Shared, object), {})],
    ("builtins", "ord"): lambda: [(("a",), {})],
    ("math", "dist"): lambda: [(([0, 1], [2, 3]), {})],
    ("math", "sumprod"): lambda: [(([0, 1], [2, 3]), {})],
    ("operator", "matmul"): lambda: [((MatMul(), fresh_list()), {})],
    ("_operator", "matmul"): lambda: [((MatMul(), fresh_list()), {})],
    ("builtins", "zip"): lambda: [((fresh_list(), fresh_list()), {})],
    ("collections", "ChainMap"): lambda: [((fresh_dict(),), {})],
    ("collections", "Counter"): lambda: [((fresh_dict(),), {})],
    ("collections", "OrderedDict"): lambda: [((fresh_dict(),), {})],
    ("collections", "OrderedDict.fromkeys"):
        lambda: [((["a"], fresh_list()), {})],
    ("collections", "UserDict"): lambda: [((fresh_dict(),), {})],
    ("collections", "UserList"): lambda: [((fresh_list(),), {})],
    ("collections", "UserString"): lambda: [((fresh_list(),), {})],
    ("collections", "defaultdict"): lambda: [((list, fresh_dict()), {})],
    ("collections", "deque"): lambda: [((fresh_list(),), {})],
    ("collections", "namedtuple"): lambda: [(("P", ["x", "y"]), {})],
    ("datetime", "date"): lambda: [((2020, 1, 2), {})],
    ("datetime", "datetime"): lambda: [((2020, 1, 2, 3, 4), {})],
    ("datetime", "time"): lambda: [((3, 4), {})],
    ("datetime", "timedelta"): lambda: [((1, 2), {})],
    ("datetime", "timezone"): lambda: [((mod("datetime").timedelta(0),), {}),
                                       ((mod("datetime").timedelta(hours=1),
                                         "X"), {})],
    ("decimal", "Context"):
        lambda: [((), {"prec": 5, "traps": [decimal.Overflow],
                       "flags": [decimal.Inexact]})],
    ("decimal", "Decimal"): lambda: [(("1.5",), {}),
                                     ((decimal.Decimal("2.5"),), {})],
    ("decimal", "DecimalTuple"): lambda: [((0, (1, 2), -1), {})],
    ("enum", "Enum"): lambda: [(("Color", "RED GREEN"), {})],
    ("enum", "IntEnum"): lambda: [(("Num", "ONE TWO"), {})],
    ("enum", "Flag"): lambda: [(("Perm", "R W"), {})],
    ("enum", "IntFlag"): lambda: [(("IPerm", "R W"), {})],
    ("enum", "StrEnum"): lambda: [(("S", "A B"), {})],
    ("enum", "EnumCheck"): lambda: [((first_value("enum", "EnumCheck"),),
                                     {})],
    ("enum", "FlagBoundary"):
        lambda: [((first_value("enum", "FlagBoundary"),), {})],
    ("enum", "ReprEnum"): lambda: [(("R", "A B"), {"type": int})],
    ("enum", "auto"): lambda: [((), {})],
    ("enum", "member"): lambda: [((fresh_list(),), {})],
    ("enum", "nonmember"): lambda: [((fresh_list(),), {})],
    ("enum", "property"): lambda: [((len,), {})],
    ("enum", "DynamicClassAttribute"): lambda: [((len,), {})],
    ("enum", "unique"): lambda: [((mod("enum").Enum("U", "A B"),), {})],
    ("enum", "verify"): lambda: [((mod("enum").UNIQUE,), {})],
    ("enum", "global_enum_repr"): lambda: [((mod("re").RegexFlag.I,), {})],
    ("enum", "global_flag_repr"): lambda: [((mod("re").RegexFlag.I,), {})],
    ("enum", "global_str"): lambda: [((mod("re").RegexFlag.I,), {})],
    ("enum", "pickle_by_enum_name"):
        lambda: [((mod("re").RegexFlag.I, 2), {})],
    ("enum", "pickle_by_global_name"):
        lambda: [((mod("re").RegexFlag.I, 2), {})],
    ("enum", "show_flag_values"): lambda: [((5,), {})],
    ("fractions", "Fraction"): lambda: [((1, 3), {}),
                                        ((fractions.Fraction(1, 3),), {})],
    ("fractions", "Decimal"): lambda: [(("1.5",), {})],
    ("ipaddress", "IPv4Address"): lambda: [(("10.0.0.1",), {})],
    ("ipaddress", "IPv4Interface"): lambda: [(("10.0.0.1/24",), {})],
    ("ipaddress", "IPv4Network"): lambda: [(("10.0.0.0/24",), {})],
    ("ipaddress", "IPv6Address"): lambda: [(("::1",), {})],
    ("ipaddress", "IPv6Interface"): lambda: [(("::1/64",), {})],
    ("ipaddress", "IPv6Network"): lambda: [(("::/64",), {})],
    ("ipaddress", "collapse_addresses"):
        lambda: [(([mod("ipaddress").ip_network("10.0.0.0/25"),
                    mod("ipaddress").ip_network("10.0.0.128/25")],), {})],
    ("ipaddress", "get_mixed_type_key"):
        lambda: [((mod("ipaddress").ip_address("10.0.0.1"),), {})],
    ("ipaddress", "ip_address"): lambda: [(("10.0.0.1",), {})],
    ("ipaddress", "ip_interface"): lambda: [(("10.0.0.1/24",), {})],
    ("ipaddress", "ip_network"): lambda: [(("10.0.0.0/24",), {})],
    ("ipaddress", "summarize_address_range"):
        lambda: [((mod("ipaddress").ip_address("10.0.0.0"),
                   mod("ipaddress").ip_address("10.0.0.9")), {})],
    ("ipaddress", "v4_int_to_packed"): lambda: [((7,), {})],
    ("ipaddress", "v6_int_to_packed"): lambda: [((7,), {})],
    ("functools", "partial"): lambda: [((len, fresh_list()), {"k": [1]})],
    ("operator", "itemgetter"): lambda: [((1, fresh_list()), {})],
    ("_operator", "itemgetter"): lambda: [((1, fresh_list()), {})],
    ("types", "SimpleNamespace"): lambda: [((), {"a": fresh_list(),
                                                 "b": SHARED})],
    ("types", "CellType"): lambda: [((fresh_list(),), {})],
    ("types", "MethodType"): lambda: [((len, fresh_list()), {})],
    ("types", "MappingProxyType"): lambda: [((fresh_dict(),), {})],
    ("types", "ModuleType"): lambda: [(("m", "doc"), {})],
    ("weakref", "WeakSet"): lambda: [(([Shared, SHARED],), {})],
    ("_weakrefset", "WeakSet"): lambda: [(([Shared, SHARED],), {})],
    ("io", "BytesIO"): lambda: [((bytearray(b"abc"),), {})],
    ("_io", "BytesIO"): lambda: [((bytearray(b"abc"),), {})],
    ("io", "StringIO"): lambda: [(("abc",), {})],
    ("_io", "StringIO"): lambda: [(("abc",), {})],
    ("array", "array"): lambda: [(("b", [1, 2]), {}),
                                 (("b", bytearray(b"ab")), {})],
    ("_codecs", "encode"): lambda: [(("abc", "latin1"), {})],
    ("re", "_compile"): lambda: [(("a+b", 0), {})],
    ("logging", "getLogger"): lambda: [(("cpk.closed_table",), {})],
    ("zoneinfo", "ZoneInfo"): lambda: [(("UTC",), {})],
    ("zoneinfo", "ZoneInfo._unpickle"): lambda: [(("UTC", 1), {})],
    ("uuid", "UUID"): lambda: [(("12345678123456781234567812345678",), {})],
    ("uuid", "SafeUUID"): lambda: [((first_value("uuid", "SafeUUID"),),
                                    {})],
    ("uuid", "uuid3"): lambda: [((uuid.NAMESPACE_DNS, "x"), {})],
    ("uuid", "uuid5"): lambda: [((uuid.NAMESPACE_DNS, "x"), {})],
    ("dataclasses", "field"): lambda: [((), {"default": 1,
                                            "metadata": fresh_dict()})],
    ("dataclasses", "InitVar"): lambda: [((int,), {})],
    ("dataclasses", "_FIELD_BASE"): lambda: [(("F",), {})],
    ("dataclasses", "asdict"): lambda: [((DC(fresh_list()),), {})],
    ("dataclasses", "astuple"): lambda: [((DC(fresh_list()),), {})],
    ("dataclasses", "fields"): lambda: [((DC(fresh_list()),), {})],
    ("dataclasses", "is_dataclass"): lambda: [((DC(fresh_list()),), {})],
    ("numbers", "abstractmethod"): lambda: [((sample_function(),), {})],
    ("typing", "Counter"): lambda: [((fresh_dict(),), {})],
    ("typing", "DefaultDict"): lambda: [((list, fresh_dict()), {})],
    ("typing", "Deque"): lambda: [((fresh_list(),), {})],
    ("typing", "OrderedDict"): lambda: [((fresh_dict(),), {})],
    ("typing", "cast"): lambda: [((int, SHARED), {})],
    ("typing", "assert_type"): lambda: [((SHARED, Shared), {})],
    ("typing", "get_args"): lambda: [((mod("typing").List[int],), {})],
    ("typing", "get_origin"): lambda: [((mod("typing").List[int],), {})],
    ("typing", "is_typeddict"): lambda: [((Shared,), {})],
}

# The new form's arguments (NEWOBJ's, after the class) when not ():
# exceptions and the classes whose __new__ needs its value.
NEW_SAMPLES = {
    ("enum", "EnumCheck"): SAMPLES[("enum", "EnumCheck")],
    ("enum", "FlagBoundary"): SAMPLES[("enum", "FlagBoundary")],
    ("uuid", "SafeUUID"): SAMPLES[("uuid", "SafeUUID")],
    ("builtins", "range"): lambda: [((3,), {})],
    ("builtins", "slice"): lambda: [((3,), {})],
    ("types", "CellType"): lambda: [((), {})],
    ("types", "ModuleType"): lambda: [(("m",), {})],
    ("dataclasses", "_FIELD_BASE"): lambda: [(("F",), {})],
    ("dataclasses", "InitVar"): lambda: [((int,), {})],
    ("zoneinfo", "ZoneInfo"): lambda: [(("UTC",), {})],
}

@dataclasses.dataclass
class DC:
    items: list


def first_value(m, n):
    return list(getattr(mod(m), n))[0].value


class MatMul:
    def __matmul__(self, other):
        return 1


def sample_function():
    def f():
        pass
    return f


def global_pickle(module, name):
    """A protocol-4 pickle of the global module.name (STACK_GLOBAL: the
    name may be dotted)."""
    def text(t):
        b = t.encode()
        return b"\x8c" + bytes([len(b)]) + b
    return b"\x80\x04" + text(module) + text(name) + b"\x93."


# Model of an object for comparison ----------------------------------------

ATOMS = (int, float, complex, str, bytes, bool, type(None), range, slice)


def snap(obj, seen=None):
    """A comparable picture of obj's contents: containers and instance
    namespaces by value (recursively), classes by their own namespace,
    anything else by identity."""
    if seen is None:
        seen = {}
    if isinstance(obj, ATOMS):
        return ("atom", type(obj), obj)
    if id(obj) in seen:
        return ("cycle", seen[id(obj)])
    seen[id(obj)] = len(seen)
    if isinstance(obj, (list, tuple, collections.deque)):
        return (type(obj), [snap(x, seen) for x in obj])
    if isinstance(obj, (set, frozenset)):
        return (type(obj), sorted(map(repr, obj)))
    if isinstance(obj, bytearray):
        return (bytearray, bytes(obj))
    if isinstance(obj, dict):
        return (type(obj), [(repr(k), snap(v, seen)) for k, v in obj.items()])
    if isinstance(obj, type):
        return ("class", id(obj),
                sorted((k, id(v)) for k, v in vars(obj).items()))
    if isinstance(obj, types.ModuleType):
        return ("module", id(obj), sorted(vars(obj)))
    if isinstance(obj, types.FunctionType):
        return ("function", id(obj), sorted(vars(obj)),
                id(obj.__globals__), len(obj.__globals__))
    d = getattr(obj, "__dict__", None)
    if isinstance(d, dict):
        return ("object", id(obj), snap(d, seen))
    return ("id", id(obj))


def reachable(roots):
    """ids of everything the arguments hold, through containers and
    instance namespaces (not through classes, modules or functions,
    which lead to the whole process)."""
    out, todo = set(), list(roots)
    while todo:
        o = todo.pop()
        if id(o) in out:
            continue
        out.add(id(o))
        if isinstance(o, (type, types.ModuleType, types.FunctionType,
                          types.BuiltinFunctionType)):
            continue
        if isinstance(o, (list, tuple, set, frozenset, dict,
                          collections.deque)) or hasattr(o, "__dict__"):
            todo.extend(gc.get_referents(o))
    return out


def store_into(r):
    """Store into r every way it allows (what BUILD, SETITEM(S),
    APPEND(S) and ADDITEMS would do)."""
    for how in (lambda: setattr(r, "_cpk_probe", PROBE),
                lambda: r.__setitem__("_cpk_probe", PROBE),
                lambda: r.__setitem__(0, PROBE),
                lambda: r.__setitem__(0, 0x7a), lambda: r.append(0x7a),
                lambda: r.append(PROBE), lambda: r.add(PROBE),
                lambda: r.update({"_cpk_probe": PROBE}),
                lambda: r.__dict__.update(_cpk_probe=PROBE)):
        try:
            how()
        except Exception:
            pass


# The checks ----------------------------------------------------------------

failures = []
counts = collections.Counter()


def fail(row, form, msg):
    failures.append(f"{row['module']}.{row['name']} ({form}): {msg}")


def call_form(obj, form):
    if form == "call":
        return obj
    return lambda *a, **k: obj.__new__(obj, *a, **k)


def samples_for(row, form):
    key = (row["module"], row["name"])
    table = NEW_SAMPLES if form == "new" else SAMPLES
    if key in table:
        return table[key](), True
    if form == "new":
        # NEWOBJ(cls, ()) is the usual shape; else the call's arguments
        calls = SAMPLES[key]() if key in SAMPLES else exc_args()
        return [((), {})] + calls, False
    return generic(), False


def check_new(row, form, f, args, kwargs):
    shares = set(row["shares"]) if form == "call" else set()

    def unshared():
        return ([a for i, a in enumerate(args) if i not in shares], kwargs)
    before = snap(unshared())
    r = f(*args, **kwargs)
    if id(r) in reachable([(args, kwargs)]):
        fail(row, form, f"the result {type(r).__name__} is one of its "
             "arguments or held by them")
        return
    r2 = f(*args, **kwargs)
    if r2 is r:
        fail(row, form, "a second identical call returned the same object")
        return
    for k in shares:
        if args[k] is not getattr(r, "__globals__", None) and \
                args[k] is not getattr(r, "__dict__", None):
            fail(row, form, f"does not hold argument {k}, which it shares")
    store_into(r)
    if snap(unshared()) != before:
        fail(row, form, "storing into the result changed an argument")


class Dispatch:
    """An object whose own methods decide what iter() and reversed()
    return: here, an iterator shared by everyone."""
    shared = iter(())

    def __iter__(self):
        return self.shared

    def __reversed__(self):
        return self.shared


def check_dispatch(row, obj):
    """PKT_DISPATCH: the result is what argument 0's method returns, so
    the kind holds only for a pickle-made container."""
    if obj(Dispatch()) is not Dispatch.shared:
        fail(row, "call", "is not what argument 0's method returns: "
             "drop PKT_DISPATCH")


def check_value(row, form, f, args, kwargs):
    skip0 = row["writes0"] and form == "call"
    kept = [a for i, a in enumerate(args) if not (skip0 and i == 0)]
    before = snap((kept, kwargs))
    f(*args, **kwargs)
    if snap((kept, kwargs)) != before:
        fail(row, form, "the call changed an argument")


def resolve(row, have_module):
    m, n = row["module"], row["name"]
    if m in ("ccloudpickle", "cloudpickle"):
        if not have_module:
            return None
        import ccloudpickle
        return ccloudpickle.loads(global_pickle(m, n))
    try:
        obj = importlib.import_module(m)
        for part in n.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        return None
    return obj


# Rows whose class cannot be made on this system (pathlib's other flavour).
OTHER_SYSTEM = {(m, "WindowsPath" if os.name != "nt" else "PosixPath")
                for m in ("pathlib", "pathlib._local")}


def check_row(row, have_module):
    if (row["module"], row["name"]) in OTHER_SYSTEM:
        counts["for another system"] += 1
        return
    if row["module"] in ("ccloudpickle", "cloudpickle") and not have_module:
        counts["reconstructor rows skipped"] += 1
        return
    obj = resolve(row, have_module)
    if obj is None:
        counts["not on this version"] += 1
        return
    if row["module"] in ("ccloudpickle", "cloudpickle"):
        counts["reconstructor rows (see check_reconstructors)"] += 1
        return
    if row["dispatch"]:
        check_dispatch(row, obj)
    counts["checked"] += 1
    for form in ("call", "new"):
        kind = row[form]
        if kind == "opaque":
            continue
        if form == "new" and not isinstance(obj, type):
            fail(row, form, "has a new form but is not a class")
            continue
        f = call_form(obj, form)
        sets, explicit = samples_for(row, form)
        ok = 0
        for args, kwargs in sets:
            try:
                if kind == "new":
                    check_new(row, form, f, args, kwargs)
                else:
                    check_value(row, form, f, args, kwargs)
                ok += 1
            except Exception as e:
                if explicit:
                    fail(row, form, f"sample {args!r} raised {e!r}")
        if not ok and not explicit:
            fail(row, form, "no generic sample call succeeded: give it one")


# Reconstructors: their arguments as ccloudpickle's own pickles give them.

def recorded_calls():
    """The reconstructors' calls, with their arguments, as loading
    ccloudpickle's own pickles of representative objects makes them (also
    in stock cloudpickle's format): {(module, name): [(callable, args)]},
    cloudpickle's three module spellings as "cloudpickle"."""
    import ccloudpickle
    import contextvars
    import functools
    import io
    import pickle
    import threading
    import typing
    import weakref

    calls = collections.defaultdict(list)

    class Recorder(pickle.Unpickler):
        def find_class(self, module, name):
            obj = ccloudpickle.loads(global_pickle(module, name))
            if module.split(".")[0] in ("ccloudpickle", "cloudpickle") \
                    and callable(obj):
                key = (module.split(".")[0], name)

                def rec(*a, _obj=obj, _key=key):
                    calls[_key].append((_obj, a))
                    return _obj(*a)
                return rec
            return obj

    g = 10

    def outer():
        y = [1]

        def inner(x=2):
            return x + y[0] + g + len(types.__name__)
        return inner

    def empty_cell():
        if g > 100:
            z = 1

        def uses():
            return z
        return uses

    class Local:
        def m(self):
            return g

    Color = importlib.import_module("enum").Enum("Color", "RED GREEN")
    Color.__module__ = "__main__"
    Color.__qualname__ = "Color"

    @functools.singledispatch
    def sd(x):
        return 0

    @sd.register
    def _(x: int):
        return 1

    T = typing.TypeVar("T")
    T.__module__ = "__main__"
    UserId = typing.NewType("UserId", int)
    UserId.__module__ = "__main__"

    @dataclasses.dataclass
    class Rec:
        a: int = 1
        b: typing.ClassVar[int] = 2
    cached = functools.lru_cache(4)(lambda v: v)
    objects = [outer(), empty_cell(), Local, Local(), Color, sd, cached, T,
               UserId, Rec, contextvars.ContextVar("cv"),
               weakref.WeakKeyDictionary(), weakref.WeakValueDictionary(),
               threading.Lock(), threading.RLock(), threading.Event(),
               threading.Condition(), threading.Semaphore(2),
               importlib.import_module("struct").Struct("<i"),
               {1: 2}.keys(), {1: 2}.values(), {1: 2}.items(),
               types.ModuleType("dyn_mod"), types.FunctionType,
               io.StringIO("text")]
    dumps = [dict(), dict(portable=True)]
    for o in objects:
        for kw in dumps:
            try:
                data = ccloudpickle.dumps(o, **kw)
            except Exception:
                continue  # not in that format
            try:
                Recorder(io.BytesIO(data)).load()
            except Exception as e:
                fail({"module": "(sample pickle)", "name": repr(o)}, "load",
                     repr(e))
    # the names only stock cloudpickle's pickles (or older formats) use
    code = sample_function().__code__
    fn = ccloudpickle._make_function(code, {}, "f", None, None)
    by_hand = {
        "_make_function": (code, {"g": [1]}, "f", None, None),
        "_function_setstate": (fn, ({"x": [1]}, {"__name__": "y"})),
        "_make_empty_cell": (),
        "_file_reconstructor": (io.StringIO("text"),),
        "dynamic_subimport": ("cpk_closed_table_dyn", {"a": [1]}),
    }
    for name, args in by_hand.items():
        calls[("ccloudpickle", name)].append(
            (getattr(ccloudpickle, name), args))
    return calls


def check_reconstructors(rows):
    calls = recorded_calls()
    unexercised = []
    import ccloudpickle
    mapped = ccloudpickle._compat_names()
    ours = {id(getattr(ccloudpickle, r["name"], None)): r for r in rows
            if r["module"] == "ccloudpickle"}
    fields = ("call", "new", "shares", "writes0", "bounded", "dispatch")
    for row in rows:
        key = (row["module"], row["name"])
        if row["module"] == "cloudpickle":
            # find_class hands out ccloudpickle's function: same row
            twin = ours.get(id(mapped.get(row["name"])))
            if twin is None:
                fail(row, "call", "maps to no ccloudpickle row")
            elif any(twin[f] != row[f] for f in fields):
                fail(row, "call", f"differs from ccloudpickle.{twin['name']}"
                     ", the function it maps to")
            else:
                counts["cloudpickle rows equal to the row they map to"] += 1
            continue
        if row["module"] != "ccloudpickle":
            continue
        if key not in calls:
            counts["reconstructors not exercised"] += 1
            unexercised.append(".".join(key))
            continue
        counts["reconstructors checked"] += 1
        for obj, args in calls[key][:3]:
            args = tuple(args)
            try:
                if row["call"] == "new":
                    check_new(row, "call", obj, args, {})
                elif row["call"] == "value":
                    check_value(row, "call", obj, args, {})
            except Exception as e:
                fail(row, "call", f"recorded call raised {e!r}")
        if row["writes0"]:
            check_imported_target(row, calls[key][0])
    if unexercised:
        print("reconstructors no sample pickle calls: " +
              " ".join(unexercised))


def imported_targets():
    """For each fill reconstructor, an object an imported module owns, of
    the kind its argument 0 takes: a module made for the check and put
    in sys.modules, so that a reconstructor that wrongly accepts it
    changes nothing else."""
    victim = types.ModuleType("cpk_closed_table_victim")
    exec("def f():\n    return 1\nclass C:\n    pass\n", vars(victim))
    sys.modules[victim.__name__] = victim
    return {"_function_fill": victim.f, "_function_setstate": victim.f,
            "_module_fill": victim, "_class_setstate": victim.C}


# Fill reconstructors that write an imported target at run time, where
# only the static scan (calls_pass's fill rule) refuses such a pickle.
KNOWN_RUNTIME_GAPS = {
    "_class_setstate": "sets the attributes of any class this process "
                       "has not pickled (cpk_tracker_is_original), an "
                       "imported one included",
}


def check_imported_target(row, call):
    """A writes0 row writes argument 0; the reconstructor itself must
    refuse an object an imported module owns (the state pass only adds
    the static check)."""
    target = imported_targets().get(row["name"])
    if target is None:
        counts["fill reconstructors without an imported-target sample"] += 1
        return
    obj, args = call
    before = snap(target)
    try:
        obj(target, *args[1:])
        refused = False
    except Exception:
        refused = True
    changed = snap(target) != before
    gap = KNOWN_RUNTIME_GAPS.get(row["name"])
    if gap is not None:
        if refused and not changed:
            fail(row, "call", "now refuses an imported target: remove it "
                 "from KNOWN_RUNTIME_GAPS")
        else:
            print(f"known gap: {row['module']}.{row['name']} {gap}")
        return
    if not refused:
        fail(row, "call", f"accepted an imported {type(target).__name__} "
             "as its target")
    if changed:
        fail(row, "call", "changed an imported object")
    counts["fill reconstructors refusing an imported target"] += 1


# Every plain name is reviewed ----------------------------------------------

def c_arrays(source):
    """The scanner's name tables, read from pkscan_classify.c."""
    with open(os.path.join(source, "src/scan/pkscan_classify.c")) as f:
        text = f.read()
    out = {}
    for m in re.finditer(r"static const (char \*const|name_rule) (\w+)\[\] ="
                         r" \{(.*?)\n\};", text, re.S):
        body = re.sub(r"/\*.*?\*/", "", m.group(3), flags=re.S)
        if m.group(1) == "name_rule":
            out[m.group(2)] = re.findall(
                r'\{"([^"]+)",\s*(?:"([^"]+)"|NULL|0)', body)
        else:
            out[m.group(2)] = re.findall(r'"([^"]*)"', body)
    lists = re.search(r"plain_lists\[\] = \{(.*?)\n\};", text, re.S).group(1)
    out["plain_lists"] = re.findall(r'NAMES\("([^"]+)", (\w+)\)', lists)
    return out


# Names the scanner calls plain that the table leaves out (their results
# are opaque), each with why. A new plain name fails the check until it is
# given a row or a line here.
RAISES = "calling it raises TypeError: a special form or an abstract class"
ABSENT = {
    ("builtins", "NotImplemented"): "not callable",
    ("builtins", "Ellipsis"): "not callable",
    ("builtins", "memoryview"): "a view: writes through to its argument",
    ("builtins", "super"): "a proxy of its second argument",
    ("builtins", "pow"): "value-sized: pow(2, 10**9)",
    ("builtins", "format"): "value-sized: format(1, '999999999')",
    ("copyreg", "__newobj__"): "a form: the new form of its cls argument",
    ("copyreg", "__newobj_ex__"): "a form: the new form of its cls argument",
    ("copyreg", "_reconstructor"):
        "a form: the new form of its cls when its base is object",
    ("copy_reg", "_reconstructor"): "copyreg's, by fix_imports",
    ("array", "_array_reconstructor"):
        "a form: a new array.array, else the new form of argument 0",
    ("operator", "getitem"): "an item an object computes (defaultdict)",
    ("operator", "mul"): "value-sized: mul('a', 10**9)",
    ("operator", "pow"): "value-sized",
    ("operator", "lshift"): "value-sized: lshift(1, 10**9)",
    ("operator", "mod"): "value-sized: mod('%999999999d', 1)",
    ("math", "factorial"): "value-sized",
    ("math", "comb"): "value-sized",
    ("math", "perm"): "value-sized",
    ("math", "prod"): "quadratic in its items",
    ("enum", "EnumMeta"): "makes a class from a namespace",
    ("enum", "EnumType"): "makes a class from a namespace",
    ("enum", "EnumDict"): "the namespace of a class being made",
    ("enum", "MappingProxyType"):
        "types.MappingProxyType: a live view (plain only through enum)",
    ("enum", "bin"): "value-sized: bin(1, 10**9) pads to max_bits",
    ("enum", "global_enum"):
        "writes the members into its class's module's namespace",
    ("enum", "reduce"): "functools.reduce (3.11, 3.12): calls its argument",
    ("numbers", "ABCMeta"): "makes a class from a namespace",
    ("dataclasses", "replace"): "calls its argument's class",
    ("dataclasses", "_replace"): "calls its argument's class",
    ("typing", "ChainMap"): "collections.ChainMap: writes through",
    ("typing", "ForwardRef"): "compiles its text argument",
    ("typing", "TypeVar"): "a string bound compiles as a ForwardRef",
    ("typing", "ParamSpec"): "a string bound compiles as a ForwardRef",
    ("typing", "TypeVarTuple"): "a string default compiles (3.13)",
    ("typing", "NamedTuple"): "makes a class; string types compile",
    ("typing", "TypedDict"): "makes a class; string types compile",
    ("typing", "NewType"): "ccloudpickle rebuilds it (_make_newtype)",
    ("typing", "TypeAliasType"): "its value is evaluated lazily",
    ("typing", "Generic"): "instances of an abstract marker class",
    ("typing", "Protocol"): "instances of an abstract marker class",
    ("typing", "IO"): "an abstract file class",
    ("typing", "BinaryIO"): "an abstract file class",
    ("typing", "TextIO"): "an abstract file class",
    ("typing", "ItemsView"): "a view of its argument",
    ("typing", "KeysView"): "a view of its argument",
    ("typing", "ValuesView"): "a view of its argument",
    ("typing", "MappingView"): "a view of its argument",
    ("typing", "ParamSpecArgs"): "holds its argument; no pickle makes one",
    ("typing", "ParamSpecKwargs"): "holds its argument; no pickle makes one",
    ("typing", "assert_never"): "always raises",
    ("ccloudpickle", "_import"): "dangerous: imports by name",
    ("ccloudpickle", "_empty_cell_value"): "not callable",
    ("cloudpickle", "_empty_cell_value"): "not callable",
    ("cloudpickle", "CellType"): "not a reconstructor ccloudpickle maps",
}
for n in ("Any", "Callable", "ClassVar", "Final", "Literal", "Optional",
          "Tuple", "Type", "Union", "Concatenate", "TypeAlias", "TypeGuard",
          "TypeIs", "Self", "LiteralString", "Never", "NoReturn",
          "Required", "NotRequired", "ReadOnly", "Unpack", "Annotated",
          "AbstractSet", "ByteString", "Container", "ContextManager",
          "Hashable", "Iterable", "Iterator", "Mapping", "MutableMapping",
          "MutableSequence", "MutableSet", "Sequence", "Sized", "Awaitable",
          "AsyncIterator", "AsyncIterable", "Coroutine", "Collection",
          "AsyncGenerator", "AsyncContextManager", "Reversible",
          "SupportsAbs", "SupportsBytes", "SupportsComplex", "SupportsFloat",
          "SupportsIndex", "SupportsInt", "SupportsRound", "Dict", "List",
          "Set", "FrozenSet", "Generator", "Match", "Pattern"):
    ABSENT[("typing", n)] = RAISES
for n in ("Complex", "Integral", "Rational", "Real"):
    ABSENT[("numbers", n)] = RAISES
ABSENT[("numbers", "Number")] = "a bare instance of a marker class"
for (m, n), why in list(ABSENT.items()):
    if m == "operator":
        ABSENT[("_operator", n)] = why
# collections.abc: abstract classes and the types of views and iterators,
# none of which a call makes (RAISES); the few that do are absent for
# their own reason.
for n, why in {
        "ABCMeta": "makes a class from a namespace",
        "FunctionType": "types.FunctionType (3.13): builds a function",
        "mappingproxy": "types.MappingProxyType: a live view",
        "GenericAlias": "types.GenericAlias: no pickle needs to call it",
        "EllipsisType": "returns the Ellipsis singleton",
        "abstractmethod": "writes into its argument (see numbers')",
        "framelocalsproxy": "a view of a frame's variables (3.13)",
        "zip_iterator": "builtins.zip by another name (3.13)",
        "ItemsView": "a view of its argument",
        "KeysView": "a view of its argument",
        "ValuesView": "a view of its argument",
        "MappingView": "a view of its argument"}.items():
    ABSENT[("collections.abc", n)] = why
# Plain names whose absence here is not enough: the scanner's categories
# should not call them plain at all (they build functions, write a
# module's namespace or call their argument). Printed on every run until
# pkscan_classify.c stops accepting them.
FINDINGS = {
    ("collections.abc", "FunctionType"), ("collections.abc", "mappingproxy"),
    ("enum", "MappingProxyType"), ("enum", "global_enum"),
    ("enum", "reduce"),
}


def candidates(source):
    arrs = c_arrays(source)
    for name in ("plain_builtins", "plain_rules", "plain_dotted",
                 "plain_modules", "not_plain", "ccp_names", "cp_names",
                 "danger_rules"):
        if not arrs.get(name):
            failures.append(f"pkscan_classify.c: table {name} not found: "
                            "update candidates() in this check")
    out = set()
    for n in arrs["plain_builtins"]:
        out.add(("builtins", n))
    import builtins
    for n in dir(builtins):
        if n.endswith(("Error", "Exception", "Warning")):
            out.add(("builtins", n))
    out.add(("builtins", "BaseException"))
    for m, n in arrs["plain_rules"] + arrs["plain_dotted"]:
        out.add((m, n))
    for m, arr in arrs["plain_lists"]:
        for n in arrs[arr]:
            out.add((m, n))
    for n in arrs["ccp_names"]:
        out.add(("ccloudpickle", n))
    for n in arrs["cp_names"]:
        out.add(("cloudpickle", n))
    skip = {(m, n) for m, n in arrs["not_plain"]}
    skip |= {(m, n) for m, n in arrs["danger_rules"] if n}
    skip |= {("_" + m, n) for m, n in skip}
    for m in arrs["plain_modules"] + ["collections.abc"]:
        module = importlib.import_module(m)
        for n in dir(module):
            if n.startswith("_") or (m, n) in skip:
                continue
            obj = getattr(module, n)
            if callable(obj) and not isinstance(obj, types.ModuleType):
                out.add((m, n))
    return out


def check_reviewed(rows, source):
    inside = {(r["module"], r["name"]) for r in rows}
    for key in sorted(inside & set(ABSENT)):
        failures.append(f"{'.'.join(key)}: both in the table and in ABSENT")
    found = []
    for m, n in sorted(candidates(source)):
        if (m, n) in inside:
            continue
        if (m, n) in FINDINGS:
            found.append(f"{m}.{n}")
        why = ABSENT.get((m, n))
        if why is None and m == "collections.abc":
            why = RAISES
        if why == RAISES:
            check_raises(m, n)
        if why is not None:
            counts["plain names deliberately absent"] += 1
            continue
        obj = resolve_plain(m, n)
        if m in ("ccloudpickle", "cloudpickle") or callable(obj):
            failures.append(f"{m}.{n}: plain but neither in the closed "
                            "table nor in ABSENT")
    if found:
        print("plain names the scanner should not accept (see FINDINGS): "
              + " ".join(found))


def resolve_plain(m, n):
    try:
        obj = importlib.import_module(m)
        for part in n.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        return None
    return obj


def check_raises(m, n):
    obj = resolve_plain(m, n)
    if obj is None or not callable(obj):
        return
    for args in ((), (int,), ("x",), (int, int)):
        try:
            obj(*args)
        except Exception:
            continue
        failures.append(f"{m}.{n}{args!r} did not raise, as ABSENT says")
        return


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__.strip().splitlines()[4].strip())
    with open(argv[0]) as f:
        rows = json.load(f)
    source = argv[1]
    want_module = "--module" in argv[2:]
    try:
        importlib.import_module("ccloudpickle")
        have_module = True
    except ImportError:
        if want_module:
            sys.exit("check.py: --module: ccloudpickle does not import")
        have_module = False
    for row in rows:
        check_row(row, have_module)
    if have_module:
        check_reconstructors(rows)
    check_reviewed(rows, source)
    v = ".".join(map(str, sys.version_info[:3]))
    print(f"closed table on CPython {v}: {len(rows)} rows; " +
          ", ".join(f"{k} {c}" for k, c in sorted(counts.items())) +
          ("" if have_module else "; ccloudpickle not importable: its rows"
           " skipped"))
    for line in failures:
        print("FAIL " + line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
