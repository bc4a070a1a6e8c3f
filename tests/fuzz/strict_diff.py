#!/usr/bin/env python3
"""Differential fuzzer of the closed-world promise (issue 25).

`cloudpickle-load --strict`, `cloudpickle-load --strict --load` and
`ccloudpickle.loads(data, allow=[])` promise that a pickle they accept runs
no code carried by value while it loads, imports nothing the static report
did not list, and patches nothing it did not make.  This program checks the
promise against real loads:

1. it generates pickles from a grammar of opcodes and names (seeded, so a
   seed reproduces a run), biased toward the shapes that matter: a call whose
   result may be an existing object, a state operation on it, a second
   construction that would run what the state planted;
2. it asks the static side: `cloudpickle-load --strict --json FILE` (exit 0:
   accepted, and the imports the report lists), and the static pass of
   `loads(data, allow=[])`;
3. for every pickle one of them accepts, it loads it for real in a forked
   child of this process (which imported the name pool first), watched by an
   audit hook (find_class, imports, compile/exec), a profile hook (any call of
   code carried by value, recognised by its co_filename) and a snapshot of
   everything reachable from sys.modules one level down, under a time and
   address-space limit.

A finding is an accepted pickle whose load ran carried code, imported a name
the report did not list, imported a trap module (a module planted at the end
of sys.path under a name only a confused import reaches: copy_reg, tzdata,
Python 2 names), compiled text the pickle carries, patched something
reachable from sys.modules, exceeded the time or memory limit, or crashed.
A load that merely raises is fine.  Each finding is minimised (statements
dropped while it persists) and written as a regression pickle with a
one-line reason.

Usage (PYTHONPATH=build, or `make fuzz-strict`):
  strict_diff.py [--seconds N] [--seed S] [--out DIR] [--build DIR]
  strict_diff.py --replay DIR [--expect-findings]

A run prints each new finding (its class, the minimised pickle saved in
--out with a .txt of one line beside it), then the rate and a count per
class.  tests/fuzz/strict_cases/ (make_strict_cases.py) holds the bypasses
known when this was written: `--replay tests/fuzz/strict_cases
--expect-findings` passes while they work, and plain `--replay` of them
must pass once the scanner refuses them.

Exit status: 1 if any finding (with --expect-findings: if any pickle of DIR
is NOT a finding), 0 otherwise, 2 on a usage error.
"""

import argparse
import hashlib
import json
import os
import random
import re
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# The co_filename every function carried by value gets: a call of code with
# this filename during a load is code carried by value running.
CARRIED_FILE = "<carried-by-value>"

# Limits of one real load.
LOAD_SECONDS = 5
LOAD_BYTES = 2 << 30

# Dunder (and plain) attribute names under which the carried function is
# planted: every hook some load step may look up.
HOOK_NAMES = [
    "__setstate__", "__reduce_ex__", "__reduce__", "__getattr__",
    "__getattribute__", "__setattr__", "__eq__", "__hash__", "__init__",
    "__new__", "__del__", "__set_name__", "__init_subclass__",
    "__class_getitem__", "__missing__", "__iter__", "__len__", "__call__",
    "__setitem__", "__getitem__", "__mro_entries__", "__index__", "__int__",
    "__bool__", "__repr__", "__format__", "__instancecheck__",
    "__subclasscheck__", "__getstate__", "__copy__", "__contains__",
    "__lt__", "__add__", "__enter__", "extend", "append", "add", "update",
    "keys", "items", "__dict__", "__class__", "default_factory", "fn",
]

# ---------------------------------------------------------------------------
# The name pool: read from the scanner's own tables, so that every name it
# treats as plain (or as a reconstructor) is tried.


def _c_strings(src, table):
    """The string literals of `static const ... table[] = { ... };`."""
    m = re.search(r"\b%s\[\]\s*=\s*\{(.*?)\};" % re.escape(table), src, re.S)
    if not m:
        return []
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
    return re.findall(r'"((?:[^"\\]|\\.)*)"', body)


def _c_pairs(src, table):
    """(module, name) pairs of a name_rule table."""
    s = _c_strings(src, table)
    return list(zip(s[0::2], s[1::2]))


def name_pool():
    """Every (module, name) worth importing, and the trap module names.

    Returns (pool, traps): pool a list of (module, dotted name) pairs,
    traps the names of modules that must never be imported (Python 2
    names of fix_imports that do not exist in Python 3, tzdata)."""
    scan = os.path.join(ROOT, "src/scan")
    src = "\n".join(open(os.path.join(scan, f)).read()
                    for f in sorted(os.listdir(scan))
                    if f.startswith("pkscan") and f.endswith(".c"))
    fix = open(os.path.join(ROOT, "src/scan/pkscan_fix_imports.inc")).read()
    pool = set()
    for mod in _c_strings(src, "plain_modules"):
        try:
            m = __import__(mod)
        except ImportError:
            continue
        for n in dir(m):
            if not n.startswith("_"):
                pool.add((mod, n))
    for mod, n in _c_pairs(src, "not_plain"):
        pool.add((mod, n))
    for table in ("plain_typing", "plain_dataclasses", "plain_uuid",
                  "plain_zoneinfo"):
        mod = table[len("plain_"):]
        for n in _c_strings(src, table):
            pool.add((mod, n))
    for mod, n in _c_pairs(src, "plain_rules") + _c_pairs(src, "plain_dotted"):
        pool.add((mod, n))
    for n in _c_strings(src, "plain_builtins"):
        pool.add(("builtins", n))
    for n in ("ValueError", "KeyError", "Exception", "getattr", "setattr",
              "vars", "dir"):
        pool.add(("builtins", n))
    for n in _c_strings(src, "ccp_names"):
        pool.add(("ccloudpickle", n))
    for n in _c_strings(src, "cp_names"):
        pool.add(("cloudpickle", n))
    # Python 2 names (fix_imports maps them below protocol 3 only) and the
    # Python 2 spelling of copyreg at every protocol.
    names = re.findall(r'\{"([^"]+)", "([^"]+)", "[^"]+", "[^"]+"\}', fix)
    py2_mods = set(re.findall(r'\{"([^"]+)", "[^"]+", \d+\}', fix))
    for m, n in names[::7]:
        pool.add((m, n))
    for n in ("_reconstructor", "__newobj__", "_reconstructor.__call__"):
        pool.add(("copy_reg", n))
    # A dunder after a plain name (harmless_dunders): a class's own
    # constructor or call protocol, through a dotted name.
    dunders = _c_strings(src, "harmless_dunders")
    classes = [(m, n) for m, n in pool if "." not in n and m != "ccloudpickle"
               and n[:1].isupper()]
    rnd = random.Random(0)
    for m, n in rnd.sample(sorted(classes), min(60, len(classes))):
        for d in dunders:
            pool.add((m, n + "." + d))
    for m, n in [("decimal", "Context"), ("fractions", "Fraction"),
                 ("collections", "ChainMap"), ("types", "SimpleNamespace")]:
        for d in dunders:
            pool.add((m, n + "." + d))
    traps = {"tzdata"}
    for mod in py2_mods | {m for m, _ in names}:
        top = mod.split(".")[0]
        try:
            __import__(top)
        except ImportError:
            traps.add(top)
        except Exception:
            pass
    return sorted(pool), sorted(traps)


# Names the grammar favours (they appear in the pool anyway): callables
# whose result may be an existing object or share state with an argument.
FAVOURED = [
    ("builtins", "type"), ("builtins", "min"), ("builtins", "max"),
    ("builtins", "next"), ("builtins", "iter"), ("builtins", "sum"),
    ("builtins", "tuple"), ("builtins", "frozenset"), ("builtins", "sorted"),
    ("builtins", "memoryview"), ("builtins", "object"), ("builtins", "pow"),
    ("builtins", "range"), ("builtins", "super"), ("builtins", "reversed"),
    ("builtins", "map"), ("builtins", "filter"), ("builtins", "getattr"),
    ("operator", "getitem"), ("operator", "attrgetter"),
    ("operator", "itemgetter"), ("operator", "setitem"),
    ("collections", "ChainMap"), ("collections", "OrderedDict"),
    ("collections", "defaultdict"), ("collections", "UserDict"),
    ("types", "SimpleNamespace"), ("types", "MethodType"),
    ("types", "MappingProxyType"), ("functools", "partial"),
    ("typing", "cast"), ("typing", "ForwardRef"), ("typing", "NewType"),
    ("fractions", "Fraction"), ("decimal", "Decimal"),
    ("decimal", "Context"), ("decimal", "Context.__init__"),
    ("decimal", "DefaultContext"), ("zoneinfo", "ZoneInfo"),
    ("re", "_compile"), ("logging", "getLogger"), ("enum", "Enum"),
    ("copyreg", "_reconstructor"), ("copyreg", "__newobj__"),
    ("copy_reg", "_reconstructor"), ("uuid", "UUID"),
    ("datetime", "timezone"), ("datetime", "date"), ("pathlib", "Path"),
    ("io", "BytesIO"), ("weakref", "WeakSet"), ("array", "array"),
    ("ccloudpickle", "_function_fill"), ("ccloudpickle", "_class_setstate"),
    ("ccloudpickle", "_module_new"), ("ccloudpickle", "_make_cell"),
    ("ccloudpickle", "subimport"), ("dataclasses", "replace"),
]

# Two roles among them.  Callables that may return one of their arguments,
# an element of one, or an existing shared object (an alias), or an object
# that writes through into an argument:
PASSERS = [
    ("builtins", "type"), ("builtins", "min"), ("builtins", "max"),
    ("builtins", "next"), ("builtins", "iter"), ("builtins", "sum"),
    ("builtins", "tuple"), ("builtins", "frozenset"), ("builtins", "super"),
    ("builtins", "getattr"), ("operator", "getitem"), ("typing", "cast"),
    ("types", "MethodType"), ("collections", "ChainMap"),
    ("builtins", "memoryview"), ("types", "MappingProxyType"),
    ("functools", "partial"), ("re", "_compile"), ("logging", "getLogger"),
    ("copyreg", "_reconstructor"), ("builtins", "object.__new__"),
    ("operator", "itemgetter"), ("builtins", "sorted"),
]
# those that most often hand back an alias or a view count twice
PASSERS += [("builtins", "type"), ("builtins", "min"),
            ("operator", "getitem"), ("collections", "ChainMap"),
            ("types", "MethodType"), ("typing", "cast"),
            ("builtins", "type"), ("collections", "ChainMap")]
# The arguments each passer takes, as shapes (Gen.shaped): "inst" an
# instance of a target, "cls" a target class, "seq" a tuple or list
# holding one, "iter" an iterator over one, "map" a memo'd dict, "fn" the
# carried function; literals "zero", "one", "empty", "none", "str".
PASSER_ARGS = {
    "type": [["inst"]], "min": [["seq"]], "max": [["seq"]],
    "sorted": [["seq"]], "next": [["iter"]], "iter": [["seq"]],
    "sum": [["empty", "cls"]], "tuple": [["seq"]], "frozenset": [["seq"]],
    "getitem": [["seq", "zero"]], "cast": [["cls", "cls"], ["cls", "inst"]],
    "MethodType": [["fn", "one"], ["fn", "inst"]], "ChainMap": [["map"]],
    "MappingProxyType": [["map"]], "memoryview": [["any"]],
    "partial": [["cls"], ["cls", "str"]], "super": [["cls", "inst"]],
    "getattr": [["cls", "str"]], "object.__new__": [["cls"]],
    "_reconstructor": [["cls", "cls", "none"]], "itemgetter": [["zero"]],
    "_compile": [["str", "zero"]], "getLogger": [["str"]],
}

# Classes whose instances (or the classes themselves) make good targets of a
# state operation and are constructed again later:
TARGETS = [
    ("fractions", "Fraction"), ("decimal", "Decimal"), ("decimal", "Context"),
    ("types", "SimpleNamespace"), ("collections", "OrderedDict"),
    ("collections", "defaultdict"), ("collections", "Counter"),
    ("collections", "UserDict"), ("collections", "deque"),
    ("datetime", "date"), ("datetime", "timezone"), ("uuid", "UUID"),
    ("pathlib", "PurePosixPath"), ("ipaddress", "IPv4Address"),
    ("enum", "Enum"), ("re", "RegexFlag"), ("builtins", "object"),
    ("builtins", "ValueError"), ("typing", "TypeVar"), ("io", "BytesIO"),
    ("weakref", "WeakSet"), ("zoneinfo", "ZoneInfo"),
    ("decimal", "DefaultContext"),
]

# classes written in Python (their type is mutable) and instances with a
# __dict__ count twice
TARGETS += [("fractions", "Fraction"), ("types", "SimpleNamespace"),
            ("fractions", "Fraction"), ("types", "SimpleNamespace"),
            ("collections", "UserDict"), ("collections", "Counter"),
            ("uuid", "UUID"), ("weakref", "WeakSet")]

# Arguments worth passing: strings the favoured callables give meaning to.
TEXTS = ["1", "2", "Unknown/Key", "UTC", "x", "__setstate__", "os",
         "copy_reg", "1/3", "__import__('os')", "int", "a.b", ""]

# ---------------------------------------------------------------------------
# Opcode emitters.  Memo slots of the grammar start at MEMO_BASE, above any
# the carried function's own body uses (checked in carried_bodies); a memo
# index must stay below the pickle's size (pkscan refuses others), so
# assemble() pads a short pickle.

MEMO_BASE = 128


def op_int(v):
    if 0 <= v < 256:
        return b"K" + bytes([v])
    if -2**31 <= v < 2**31:
        return b"J" + struct.pack("<i", v)
    n = (v.bit_length() + 8) // 8
    return b"\x8a" + bytes([n]) + v.to_bytes(n, "little", signed=True)


def op_str(s):
    b = s.encode("utf-8", "surrogatepass")
    return b"X" + struct.pack("<I", len(b)) + b


def op_bytes(b):
    return b"B" + struct.pack("<I", len(b)) + b


def op_put(i):
    return b"r" + struct.pack("<I", i)


def op_get(i):
    return b"j" + struct.pack("<I", i)


def op_tuple(items):
    if len(items) <= 3:
        return b"".join(items) + (b")", b"\x85", b"\x86", b"\x87")[len(items)]
    return b"(" + b"".join(items) + b"t"


def op_import(proto, mod, name):
    """GLOBAL below protocol 4, STACK_GLOBAL from 4 on (as picklers do)."""
    if proto >= 4:
        return op_str(mod) + op_str(name) + b"\x93"
    return b"c" + mod.encode() + b"\n" + name.encode() + b"\n"


def strip_framing(body):
    """The opcodes of a whole pickle without PROTO, FRAME and STOP, and
    with each MEMOIZE made an explicit PUT of the index it took (MEMOIZE
    takes the memo's size, which anything memoised before the spliced
    body would shift)."""
    import pickletools
    out = []
    ops = list(pickletools.genops(body))
    n = 0
    for i, (op, arg, pos) in enumerate(ops):
        end = ops[i + 1][2] if i + 1 < len(ops) else len(body)
        if op.name in ("PROTO", "FRAME", "STOP"):
            continue
        if op.name == "MEMOIZE":
            out.append(op_put(n))
            n += 1
            continue
        if "PUT" in op.name:
            n = max(n, arg + 1)
        out.append(body[pos:end])
    return b"".join(out)


# ---------------------------------------------------------------------------
# Functions carried by value: `f` does nothing; `h` carries f under hook
# names in its own __dict__ (a bound method forwards attribute lookups to
# its function).  Their bodies are dumped per protocol by ccloudpickle.

CARRIED_SRC = '''
def f(*args, **kwargs):
    return None
def h(*args, **kwargs):
    return 0
h.__setstate__ = f
h.extend = f
h.__set_name__ = f
h.append = f
'''


def carried_bodies(protocols=range(6)):
    import ccloudpickle
    import pickletools
    ns = {"__name__": "__carried__"}
    exec(compile(CARRIED_SRC, CARRIED_FILE, "exec"), ns)
    out = {}
    for p in protocols:
        out[p] = {k: strip_framing(ccloudpickle.dumps(ns[k], protocol=p))
                  for k in ("f", "h")}
        for body in out[p].values():
            for op, arg, _ in pickletools.genops(body + b"."):
                if "PUT" in op.name:
                    assert arg < MEMO_BASE, "raise MEMO_BASE"
    return out


# ---------------------------------------------------------------------------
# The grammar.  A program is a list of statements; each leaves the stack as
# it found it (it makes a value, stores it in a memo slot and pops it, or
# applies a state operation to a memo'd value and pops it).  The final
# opcodes return a tuple of every slot still defined, so dropping a
# statement (minimisation) never leaves a dangling GET.


class Stmt:
    def __init__(self, code, slot=None, kind=None, needs=()):
        self.code = code          # bytes, stack-neutral
        self.slot = slot          # memo slot it defines, or None
        self.kind = kind          # what the slot holds, for the grammar
        self.needs = set(needs)   # slots it reads
        self.extra = []           # slots it defines on the way


class Gen:
    def __init__(self, rnd, pool, bodies):
        self.r = rnd
        self.pool = pool
        self.bodies = bodies
        # classes of the pool (targets beyond TARGETS)
        self.classes = [(m, n) for m, n in pool if "." not in n
                        and n[:1].isupper() and m not in ("ccloudpickle",
                                                          "cloudpickle")]

    # -- helpers
    def pick(self, seq):
        return seq[self.r.randrange(len(seq))]

    def chance(self, p):
        return self.r.random() < p

    def slots(self, *kinds):
        return [s for s, k in self.defined.items() if not kinds or k in kinds]

    def others(self):
        """Slots of anything but the carried functions (a state operation
        on a carried function is refused by any scan: a waste of time)."""
        return [s for s, k in self.defined.items() if k != "fn"]

    def get(self, slot):
        self.reads.add(slot)
        return op_get(slot)

    def name(self):
        """A (module, name): one the program already used (so that a
        second construction meets what a state operation planted), a
        favoured one, or any of the pool."""
        if self.used and self.chance(0.35):
            return self.pick(self.used)
        if self.chance(0.5):
            mn = self.pick(FAVOURED)
        else:
            mn = self.pick(self.pool)
        self.used.append(mn)
        return mn

    def imp(self, mod=None, name=None):
        if mod is None:
            mod, name = self.name()
        # a dotted name or a getattr chain: through builtins.getattr
        if self.chance(0.05) and "." not in name:
            return (op_import(self.proto, "builtins", "getattr")
                    + op_tuple([op_import(self.proto, mod, name),
                                op_str(self.pick(["__new__", "__init__",
                                                  "fromkeys", "__call__",
                                                  "real", "__class__"]))])
                    + b"R")
        return op_import(self.proto, mod, name)

    def fn(self):
        """The carried function (or h), from its slot."""
        s = self.slots("fn")
        return self.get(self.pick(s))

    def hook_name(self):
        """A hook name; BUILD's own (__setstate__) half of the time."""
        if self.chance(0.5):
            return "__setstate__"
        return self.pick(HOOK_NAMES)

    def hook_dict(self):
        """A dict {hook name: carried function, ...}."""
        items = []
        for _ in range(1 + self.r.randrange(2)):
            items.append(op_str(self.hook_name()) + self.fn())
        return b"}(" + b"".join(items) + b"u"

    # -- values
    def literal(self, depth):
        c = self.r.randrange(12)
        if c == 0:
            return op_int(self.pick([0, 1, 2, 3, -1, 255, 10, 2**31, 2**40]))
        if c == 1:
            return op_int(self.pick([10**9, 10**12, 2**64, 10**30, 10**100]))
        if c == 2:
            return op_str(self.pick(TEXTS + HOOK_NAMES[:6]))
        if c == 3:
            return op_bytes(self.pick([b"", b"ab", b"\x00" * 8]))
        if c == 4:
            return self.pick([b"N", b"\x88", b"\x89", b"G" + struct.pack(
                ">d", 1.5)])
        if c == 5:
            return op_tuple([self.value(depth + 1)
                             for _ in range(self.r.randrange(4))])
        if c == 6:
            return b"](" + b"".join(self.value(depth + 1) for _ in range(
                self.r.randrange(3))) + b"e"
        if c == 7 and self.chance(0.2):
            return self.hook_dict()
        if c == 8:
            return b"}(" + b"".join(op_str(self.pick(TEXTS)) + self.value(
                depth + 1) for _ in range(self.r.randrange(3))) + b"u"
        if c == 9:
            return b"\x8f(" + b"".join(self.value(depth + 1) for _ in range(
                self.r.randrange(3))) + b"\x90"
        if c == 10:
            return b"(" + b"".join(self.value(depth + 1) for _ in range(
                self.r.randrange(3))) + b"\x91"
        if c == 11 and self.chance(0.1):
            return self.fn()
        return op_int(self.r.randrange(-5, 300))

    def value(self, depth=0):
        """Any expression: a literal, a memo'd value, an import, a call."""
        c = self.r.random()
        if depth > 3:
            c = c * 0.5
        if c < 0.25:
            return self.literal(depth)
        if c < 0.55 and self.others():
            return self.get(self.pick(self.others()))
        if c < 0.75:
            return self.imp()
        return self.call(depth + 1)

    def args(self, depth, n=None):
        if n is None:
            n = self.pick([0, 1, 1, 1, 2, 2, 3])
        return [self.value(depth) for _ in range(n)]

    def target(self):
        """A (module, name) of TARGETS, mostly one of the program's focus
        (so that what one statement plants, another meets)."""
        if self.chance(0.85):
            return self.pick(self.focus)
        mn = self.pick(TARGETS if self.chance(0.5) else self.classes)
        self.used.append(mn)
        return mn

    def construct(self):
        """A target made again with few plain arguments (most of them take
        a number or a string, or nothing)."""
        args = self.pick([[], [op_int(1)], [op_str("1")], [op_int(1)],
                          [op_int(2), op_int(1)], [op_int(1)] * 3,
                          [op_str(self.pick(TEXTS))]])
        form = self.r.randrange(4)
        callee = self.imp(*self.target())
        if form == 0:
            return callee + op_tuple(args) + b"\x81"
        if form == 1 and not args:
            return b"(" + callee + b"o"
        return callee + op_tuple(args) + b"R"

    def shaped(self, shape):
        """An argument of the shape PASSER_ARGS names."""
        if shape == "inst":
            return self.construct()
        if shape == "cls":
            return self.imp(*self.target())
        if shape in ("seq", "iter"):
            item = self.imp(*self.target()) if self.chance(0.7) \
                else self.construct()
            seq = op_tuple([item]) if self.chance(0.5) else \
                b"](" + item + b"e"
            if shape == "iter":
                return op_import(self.proto, "builtins", "iter") + \
                    op_tuple([seq]) + b"R"
            return seq
        if shape == "map":
            if self.slots("dict") and self.chance(0.8):
                return self.get(self.pick(self.slots("dict")))
            # a new dict, kept in a slot of its own for later statements
            slot = self.next_slot
            self.next_slot += 1
            self.defined[slot] = "dict"
            self.extra.append(slot)
            return b"}" + op_put(slot)
        if shape == "fn":
            return self.fn()
        if shape == "str":
            return op_str(self.pick(TEXTS))
        return {"zero": op_int(0), "one": op_int(1), "empty": b")",
                "none": b"N"}.get(shape) or self.value(2)

    def passer_args(self, name):
        """Arguments for a passer: shaped as it expects, or (a fifth of
        the time) anything class-like."""
        forms = PASSER_ARGS.get(name.rsplit(".", 1)[-1]
                                if name != "object.__new__" else name)
        if forms is None or self.chance(0.2):
            return [self.classish(1)]
        return [self.shaped(x) for x in self.pick(forms)]

    def passer(self):
        if self.chance(0.8):
            return self.pick(self.focus_passers)
        return self.pick(PASSERS)

    def classish(self, depth):
        """A target class, an instance of one, a container holding one, or
        a memo'd container (what a passer may hand back or write into)."""
        c = self.pick([0, 1, 1, 1, 2, 3, 4, 4, 5])
        if c == 0:
            return self.imp(*self.target())
        if c == 1:
            return self.construct()
        if c == 2:
            return op_tuple([self.imp(*self.target())])
        if c == 3:
            return b"](" + self.imp(*self.target()) + b"e"
        if c == 4 and self.slots("dict", "list"):
            return self.get(self.pick(self.slots("dict", "list")))
        return self.value(depth + 1)

    def call(self, depth=0, callee=None):
        """A call in one of the five forms; returns bytes pushing a value."""
        if callee is None:
            c = self.r.random()
            if c < 0.1 and self.others():
                callee = self.get(self.pick(self.others()))
            elif c < 0.4 and depth < 3:
                # a passer applied to something class-like
                mod, name = self.passer()
                self.used.append((mod, name))
                args = [self.classish(depth)]
                if self.chance(0.3):
                    args.append(self.pick([op_int(0), op_int(1), op_str("x"),
                                           self.imp(*self.target())]))
                return self.imp(mod, name) + op_tuple(args) + b"R"
            elif c < 0.6:
                callee = self.imp(*self.target())
            else:
                callee = self.imp()
        form = self.r.randrange(10)
        if form < 6:        # REDUCE
            return callee + op_tuple(self.args(depth)) + b"R"
        if form < 8:        # NEWOBJ
            return callee + op_tuple(self.args(depth)) + b"\x81"
        if form == 8:       # NEWOBJ_EX
            kw = b"}"
            if self.chance(0.5):
                kw = b"}(" + op_str(self.pick(TEXTS[:5])) + self.value(
                    depth) + b"u"
            return callee + op_tuple(self.args(depth)) + kw + b"\x92"
        if self.chance(0.5):  # OBJ
            return b"(" + callee + b"".join(self.args(depth)) + b"o"
        mod, name = self.name()  # INST
        return (b"(" + b"".join(self.args(depth)) + b"i" + mod.encode()
                + b"\n" + name.encode() + b"\n")

    def state(self):
        """A BUILD state: a dict, (None|dict, dict) slot state, a memo'd
        dict, or anything."""
        c = self.pick([0, 1, 1, 2, 3, 3, 4, 5])
        if c == 0:
            return self.hook_dict()
        if c == 1:
            return op_tuple([b"N", self.hook_dict()])
        if c == 2:
            return op_tuple([self.hook_dict(), self.hook_dict()])
        if c == 3 and self.slots("dict"):
            return self.get(self.pick(self.slots("dict")))
        if c == 4:
            return op_str("payload")
        return self.value(1)

    def mutation(self):
        """A state operation on the value on top of the stack."""
        c = self.r.randrange(10)
        if c < 5:
            return self.state() + b"b"
        if c < 7:
            return op_str(self.hook_name()) + self.fn() + b"s"
        if c == 7:
            return b"(" + self.fn() + b"e"
        if c == 8:
            return self.fn() + b"a"
        return b"(" + self.fn() + b"\x90"

    # -- statements
    def stmt(self):
        self.reads = set()
        self.extra = []
        c = self.r.random()
        slot = self.next_slot
        self.next_slot += 1
        if c < 0.1:
            # a fresh dict or list kept for later (write-through targets)
            kind = self.pick(["dict", "dict", "list"])
            code = (b"}" if kind == "dict" else b"]") + op_put(slot) + b"0"
        elif c < 0.18:
            # a call result (maybe an alias, maybe sharing an argument)
            code, kind = self.call(), "call"
            if self.chance(0.5):
                code += self.mutation()
            code += op_put(slot) + b"0"
        elif c < 0.53:
            # a passer's result given a state at once: what an alias of a
            # class or shared object, or a view of an argument, would keep
            mod, name = self.passer()
            code = self.imp(mod, name) + op_tuple(self.passer_args(name)) \
                + b"R"
            c2 = self.r.random()
            if self.extra or name.endswith(("ChainMap", "MappingProxyType")):
                c2 = 0.5 + c2 / 2     # a view of a dict: write through it
            if c2 < 0.35:     # slot state: setattr, as on a class
                code += op_tuple([b"N", self.hook_dict()]) + b"b"
            elif c2 < 0.5:
                code += self.state() + b"b"
            else:
                code += op_str(self.hook_name()) + self.fn() + b"s"
            kind = "call"
            code += op_put(slot) + b"0"
        elif c < 0.58:
            # an import kept for later
            code, kind = self.imp(), "import"
            code += op_put(slot) + b"0"
        elif c < 0.66 and self.others():
            # a state operation on a memo'd value
            code = self.get(self.pick(self.others())) + self.mutation() + b"0"
            slot = kind = None
        elif self.others():
            # a second use: call again what made a slot, then hook it
            target = self.pick(self.others())
            c2 = self.pick([0, 1, 2, 2, 2, 2, 2, 2, 2, 3])
            if c2 == 0:
                code = self.call(callee=self.get(target)) + self.mutation()
            elif c2 == 1:   # hash it: a dict key, a set item
                code = b"}" + self.get(target) + b"Ns"
            elif c2 == 2:
                # construct a target again, give it a state, then another
                # (the first may plant a hook, the second runs it)
                code = self.construct()
                if self.slots("dict") and self.chance(0.6):
                    # a memo'd dict (written through a view?) as state
                    code += self.get(self.pick(self.slots("dict"))) + b"b"
                else:
                    code += self.pick([self.state() + b"b", b""])
                code += op_str("payload") + b"b"
            else:
                code = self.get(target) + op_str("payload") + b"b"
            code += b"0"
            slot = kind = None
        else:
            return None
        st = Stmt(code, slot, kind, self.reads - set(self.extra))
        st.extra = self.extra
        if slot is not None:
            self.defined[slot] = kind
        return st

    def program(self):
        """(protocol, [Stmt]) of a fresh pickle."""
        self.proto = self.pick([0, 1, 2, 3, 3, 4, 4, 5])
        self.defined = {}
        self.used = []
        # the program's focus: one or two targets and passers
        self.focus = self.r.sample(TARGETS, 1 + self.r.randrange(2))
        self.focus_passers = self.r.sample(PASSERS, self.pick([1, 1, 2]))
        self.used += self.focus
        self.next_slot = MEMO_BASE
        stmts = []
        if self.chance(0.3):
            # a dict kept first: what a later passer may write through
            stmts.append(Stmt(b"}" + op_put(self.next_slot) + b"0",
                              self.next_slot, "dict"))
            self.defined[self.next_slot] = "dict"
            self.next_slot += 1
        for k in ("f", "h"):
            if k == "h" and not self.chance(0.15):
                continue
            slot = self.next_slot
            self.next_slot += 1
            stmts.append(Stmt(self.bodies[self.proto][k] + op_put(slot)
                              + b"0", slot, "fn"))
            self.defined[slot] = "fn"
        # few statements: the first that raises ends the load
        for _ in range(2 + self.r.randrange(3)):
            st = self.stmt()
            if st is not None:
                stmts.append(st)
        return self.proto, stmts


def assemble(proto, stmts):
    """The pickle of a program: PROTO, the statements whose reads are all
    defined earlier, a tuple of the slots, STOP."""
    out = [b"\x80" + bytes([proto])] if proto >= 2 else []
    have = []
    for st in stmts:
        if not st.needs <= set(have):
            continue
        out.append(st.code)
        have.extend(st.extra)
        if st.slot is not None:
            have.append(st.slot)
    out.append(b"(" + b"".join(op_get(s) for s in have[-8:]) + b"t.")
    data = b"".join(out)
    top = max(have, default=0) + 1
    if len(data) <= top:
        pad = op_str("." * (top - len(data) + 8)) + b"0"
        data = data[:len(out[0]) if proto >= 2 else 0] + pad + \
            data[len(out[0]) if proto >= 2 else 0:]
    return data


# ---------------------------------------------------------------------------
# The watched load, in a forked child.

# Entries of the snapshot that change on their own (caches, lazy imports).
VOLATILE_MODULES = {"sys", "linecache", "__main__", "__mp_main__",
                    "strict_diff", "re", "sre_compile",
                    "sre_parse", "functools", "typing", "abc", "_abc",
                    "encodings", "warnings", "copyreg", "_weakrefset",
                    "random", "threading", "gc", "posixpath", "importlib",
                    "_frozen_importlib", "_frozen_importlib_external",
                    "zipimport", "tracemalloc", "_thread", "enum"}


def _fingerprint(v):
    """A cheap picture of a module-level object without __dict__."""
    t = type(v)
    if t in (dict, list, set, bytearray, frozenset, tuple):
        if t is dict:
            items = [id(x) for kv in list(v.items())[:64] for x in kv]
        else:
            items = [id(x) for x in list(v)[:64]]
        return (t.__name__, len(v), tuple(items))
    try:
        return repr(v)[:200]
    except Exception:
        return "?"


_PLAIN_TYPES = (str, bytes, int, float, complex, bool, type(None))


def snapshot(only=None):
    """{path: fingerprint} of what is reachable from sys.modules one level
    down: module globals (by identity), class __dict__ entries, instance
    vars of module-level objects, a picture of objects without __dict__.
    `only`: the names of the modules to look at (all when None)."""
    snap = {}
    seen_cls = set()
    for mname, mod in list(sys.modules.items()):
        if only is not None and mname not in only:
            continue
        d = getattr(mod, "__dict__", None)
        if not isinstance(d, dict):
            continue
        vol = mname.split(".")[0] in VOLATILE_MODULES
        for k, v in list(d.items()):
            if not vol:
                snap[(mname, k)] = id(v)
            if isinstance(v, type):
                if id(v) in seen_cls:
                    continue
                seen_cls.add(id(v))
                for ck, cv in list(v.__dict__.items()):
                    if ck in ("__abstractmethods__", "_abc_impl",
                              "__subclasshook__", "__weakref__",
                              "_value2member_map_", "_member_map_"):
                        continue
                    snap[(mname, k, ck)] = id(cv)
            elif isinstance(v, _PLAIN_TYPES) or vol or k.startswith("__"):
                continue
            elif type(v).__name__ in ("module", "builtin_function_or_method",
                                      "method_descriptor",
                                      "wrapper_descriptor"):
                continue
            else:
                dd = getattr(v, "__dict__", None)
                if isinstance(dd, dict):
                    for ik, iv in list(dd.items())[:64]:
                        snap[(mname, k, "." + str(ik))] = id(iv)
                    snap[(mname, k, "#")] = len(dd)
                elif not k.startswith("_"):
                    snap[(mname, k, "=")] = _fingerprint(v)
    return snap


def diff_snapshots(a, b):
    """Paths whose fingerprint changed or that were added to a class or an
    object (a new module global is a lazy import, not a patch)."""
    out = []
    for k, v in b.items():
        if k in a:
            if a[k] != v:
                out.append(".".join(map(str, k)) + " changed")
        elif len(k) == 3 and (k[0], k[1]) in a:
            out.append(".".join(map(str, k)) + " added")
    for k in a:
        if k not in b and len(k) == 3 and (k[0], k[1]) in b:
            out.append(".".join(map(str, k)) + " removed")
    return sorted(out)


class Watch:
    """The hooks of one load: audit events and calls of carried code."""

    AUDITED = {"os.system", "subprocess.Popen",
               "os.exec", "os.posix_spawn", "ctypes.dlopen", "socket.connect"}

    def __init__(self, data):
        self.data = data
        self.on = False
        self.find_class = []
        self.imports = []
        self.events = []
        self.ran = []

    def audit(self, event, args):
        if not self.on:
            return
        if event == "pickle.find_class":
            self.find_class.append((str(args[0]), str(args[1])))
        elif event == "import":
            self.imports.append(str(args[0]))
        elif event == "compile":
            # a lazy import compiles its module's file, namedtuple and
            # typing compile text of their own: only text the pickle
            # carries is a finding (calls of carried code are the profile
            # hook's)
            src = args[0]
            if isinstance(src, str):
                src = src.encode("utf-8", "surrogatepass")
            if isinstance(src, bytes) and len(src) >= 3 and src in self.data:
                self.events.append(event)
        elif event in self.AUDITED:
            self.events.append(event)

    def module_globals(self):
        self.known = {id(getattr(m, "__dict__", None))
                      for m in list(sys.modules.values())}

    def profile(self, frame, event, arg):
        """Flag a call of code carried by value: our functions' code has
        CARRIED_FILE as co_filename; any other (a carried pickle from
        elsewhere) runs with globals that are no module's namespace (the
        dict the pickle built).  Code generated by namedtuple runs in a
        namespace of its own too; it is not carried."""
        if event != "call" or not self.on:
            return
        code = frame.f_code
        g = frame.f_globals
        if code.co_filename != CARRIED_FILE:
            if id(g) in self.known:
                return
            self.module_globals()
            if id(g) in self.known or \
                    str(g.get("__name__", "")).startswith("namedtuple_"):
                return
        back = frame.f_back
        self.ran.append("%s (%s) from %s" % (
            code.co_name, code.co_filename,
            back.f_code.co_name if back is not None else "C"))


def reach(pool):
    """The modules a pickle of the pool's names can reach: those of the
    pool, and the modules of the classes and objects they hold (an alias
    of type(x) is the class of x).  Looking only at these makes the
    snapshot several times cheaper than all of sys.modules."""
    names = {m for m, _ in pool} | {"builtins", "sys", "_decimal", "_io",
                                    "_collections", "_functools",
                                    "_operator", "_datetime", "_weakrefset",
                                    "_zoneinfo", "_pydecimal", "abc",
                                    "_abc", "copyreg", "ccloudpickle"}
    for m in list(names):
        mod = sys.modules.get(m)
        for v in list(getattr(mod, "__dict__", {}).values()):
            for owner in (getattr(v, "__module__", None),
                          type(v).__module__):
                if isinstance(owner, str) and owner in sys.modules:
                    names.add(owner)
    return names


def child_load(data, mode, trapdir, before, only=None):
    """Run in the child: load, watch, return a result dict."""
    import resource
    import threading
    import ccloudpickle
    resource.setrlimit(resource.RLIMIT_AS, (LOAD_BYTES, LOAD_BYTES))
    w = Watch(data)
    w.module_globals()
    sys.addaudithook(w.audit)
    res = {"mode": mode, "error": None, "policy_refused": False}
    sys.setprofile(w.profile)
    threading.setprofile(w.profile)
    w.on = True
    t0 = time.monotonic()
    try:
        if mode == "allow":
            obj = ccloudpickle.loads(data, allow=[])
        else:
            obj = ccloudpickle.loads(data)
    except ccloudpickle.PolicyError as e:
        res["error"] = "PolicyError: %s" % str(e)[:200]
        res["policy_refused"] = True
        obj = None
    except MemoryError:
        res["error"] = "MemoryError"
        res["memory"] = True
        obj = None
    except BaseException as e:
        res["error"] = "%s: %s" % (type(e).__name__, str(e)[:200])
        obj = None
    w.on = False
    res["load_s"] = time.monotonic() - t0
    sys.setprofile(None)
    threading.setprofile(None)
    res["find_class"] = w.find_class
    res["imports"] = w.imports
    res["events"] = w.events
    res["ran"] = w.ran
    res["traps"] = sorted(n for n, m in list(sys.modules.items())
                          if (getattr(m, "__file__", None) or "")
                          .startswith(trapdir))
    # a pickle refused before it imported anything touched nothing (the
    # snapshot is the costly part: copy-on-write faults on every object)
    res["patched"] = []
    if w.find_class and not (res["policy_refused"] and not w.ran):
        res["patched"] = diff_snapshots(before, snapshot(only))[:20]
    del obj
    return res


class Oracle:
    def __init__(self, build, trapdir, only=None):
        self.build = build
        self.trapdir = trapdir
        self.tmp = tempfile.mkdtemp(prefix="strict_diff.")
        self.only = only
        self.before = snapshot(only)
        self.loads = 0
        self.stats = {"strict accepted": 0, "allow accepted": 0}

    def report(self, data, strict):
        """(exit status, JSON report or None) of cloudpickle-load --json,
        with --strict or not; status None when it ran more than 30 s."""
        path = os.path.join(self.tmp, "in.pkl")
        with open(path, "wb") as fp:
            fp.write(data)
        argv = [os.path.join(self.build, "cloudpickle-load"), "--json", path]
        if strict:
            argv.insert(1, "--strict")
        try:
            p = subprocess.run(argv, capture_output=True, timeout=30)
        except subprocess.TimeoutExpired:
            return None, None
        if p.returncode != 0:
            return p.returncode, None
        return 0, json.loads(p.stdout)

    @staticmethod
    def listed(doc):
        """Every spelling of every import of a report: the name a load
        asks find_class for may be the written one (fix_imports)."""
        names = set()
        for im in doc["imports"] if doc else ():
            m, n = im["module"], im["name"]
            names.add((m, n))
            names.add((im["written_module"] or m, im["written_name"] or n))
            for wm, wn in im["alt_written"]:
                names.add((wm, wn))
        return names

    def static(self, data):
        """(accepted, set of import names) of cloudpickle-load --strict:
        accepted is True, False or "timeout"."""
        status, doc = self.report(data, True)
        if status is None:
            return "timeout", set()
        return status == 0, self.listed(doc)

    def names(self, data):
        """The names a pickle imports (its static report, without a
        policy), but for reconstructors: the shape of a finding."""
        status, doc = self.report(data, False)
        if doc is None:
            return []
        return sorted({"%s.%s" % (im["module"], im["name"])
                       for im in doc["imports"]
                       if im["category"] not in ("ccloudpickle",
                                                 "cloudpickle")
                       and im["module"] != "_codecs"})

    def run(self, data, mode):
        """The result of a watched load in a forked child."""
        self.loads += 1
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(rfd)
            try:
                sys.stdout.flush()
                null = os.open(os.devnull, os.O_RDWR)
                os.dup2(null, 0)
                os.dup2(null, 1)
                os.dup2(null, 2)
                res = child_load(data, mode, self.trapdir, self.before,
                                 self.only)
                out = json.dumps(res).encode()
            except BaseException as e:
                out = json.dumps({"mode": mode, "harness": repr(e)}).encode()
            os.write(wfd, out)
            os._exit(0)
        os.close(wfd)
        buf = b""
        deadline = time.monotonic() + LOAD_SECONDS
        timed_out = False
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            r, _, _ = select.select([rfd], [], [], left)
            if not r:
                continue
            chunk = os.read(rfd, 65536)
            if not chunk:
                break
            buf += chunk
        os.close(rfd)
        if timed_out:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        if timed_out:
            return {"mode": mode, "timeout": True}
        if not buf:
            return {"mode": mode, "crash": os.WIFSIGNALED(status) and
                    os.WTERMSIG(status)}
        return json.loads(buf)

    def check(self, data):
        """The findings of one pickle: a list of (class, reason)."""
        found = []
        ok, names = self.static(data)
        if ok == "timeout":
            found.append(("scan-timeout", "strict: the static scan took "
                          "more than 30 s"))
        elif ok:
            self.stats["strict accepted"] += 1
            found += self.judge(self.run(data, "strict"), names, "strict")
        res = self.run(data, "allow")
        # allow=[] accepted unless its static pass refused (PolicyError
        # before any find_class); what then ran is judged against the CLI's
        # list of imports when it has one
        refused = res.get("policy_refused") and not res.get("find_class") \
            and not res.get("ran")
        if not refused:
            self.stats["allow accepted"] += 1
            # the report allow=[] checked is the scan without --strict
            if ok is not True:
                names = self.listed(self.report(data, False)[1])
            found += self.judge(res, names, "allow")
        return found

    @staticmethod
    def judge(res, names, mode):
        found = []
        if res.get("timeout"):
            found.append(("limit-time", "%s: the load ran more than %d s"
                          % (mode, LOAD_SECONDS)))
            return found
        if res.get("crash") is not None and "find_class" not in res:
            found.append(("crash", "%s: the load died by signal %s"
                          % (mode, res["crash"])))
            return found
        if "harness" in res:
            return found
        if res.get("memory"):
            found.append(("limit-memory", "%s: the load ran out of %d GiB"
                          % (mode, LOAD_BYTES >> 30)))
        if res["ran"]:
            found.append(("ran-carried", "%s: code carried by value ran: %s"
                          % (mode, res["ran"][0])))
        if res["traps"]:
            found.append(("trap-import", "%s: imported trap module %s"
                          % (mode, res["traps"][0])))
        if res["events"]:
            found.append(("audit-" + res["events"][0],
                          "%s: audit event %s during the load"
                          % (mode, res["events"][0])))
        if names is not None:
            extra = [m + "." + n for m, n in res["find_class"]
                     if (m, n) not in names]
            if extra:
                found.append(("unlisted-import", "%s: imported %s, not in "
                              "the static report" % (mode, extra[0])))
        if res["patched"]:
            top = res["patched"][0]
            found.append(("patched:" + top.split(" ")[0].rsplit(".", 1)[0],
                          "%s: patched %s" % (mode, top)))
        return found


def make_traps(traps):
    """A directory of modules that must never be imported."""
    d = tempfile.mkdtemp(prefix="strict_diff_traps.")
    for name in traps:
        pkg = os.path.join(d, name)
        os.mkdir(pkg)
        with open(os.path.join(pkg, "__init__.py"), "w") as fp:
            fp.write("# a trap: importing this module is a finding\n"
                     "def _reconstructor(*a):\n    return None\n")
    return d


def preimport(pool, traps):
    """Import every module of the pool in this process (the children inherit
    them), and resolve each name once, so lazy imports happen before the
    snapshot."""
    import importlib
    for mod in sorted({m for m, _ in pool}):
        if mod.split(".")[0] in traps:
            continue
        try:
            m = importlib.import_module(mod)
        except Exception:
            continue
        for mm, n in pool:
            if mm != mod:
                continue
            o = m
            try:
                for part in n.split("."):
                    o = getattr(o, part)
            except Exception:
                pass
    import zoneinfo
    try:
        zoneinfo.ZoneInfo("UTC")
    except Exception:
        pass


# ---------------------------------------------------------------------------
# Minimisation and output.


def classes(findings):
    return {c for c, _ in findings}


def minimise(oracle, proto, stmts, cls, budget=40):
    """Drop statements (and lower nothing else) while `cls` persists."""
    i = len(stmts) - 1
    while i >= 0 and budget > 0:
        trial = stmts[:i] + stmts[i + 1:]
        budget -= 1
        if cls in classes(oracle.check(assemble(proto, trial))):
            stmts = trial
        i -= 1
    return stmts


def save(outdir, cls, reason, data):
    os.makedirs(outdir, exist_ok=True)
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", cls)[:60]
    h = hashlib.sha256(data).hexdigest()[:10]
    path = os.path.join(outdir, "%s-%s.pkl" % (slug, h))
    with open(path, "wb") as fp:
        fp.write(data)
    with open(path[:-4] + ".txt", "w") as fp:
        fp.write(reason + "\n")
    return path


def fuzz(args, oracle, pool):
    seed = args.seed if args.seed is not None else int(time.time())
    print("strict_diff: seed %d, %d names, %d s" % (seed, len(pool),
                                                     args.seconds))
    rnd = random.Random(seed)
    gen = Gen(rnd, pool, carried_bodies())
    t0 = time.monotonic()
    n = accepted = 0
    seen = {}
    saved = set()
    while time.monotonic() - t0 < args.seconds:
        proto, stmts = gen.program()
        data = assemble(proto, stmts)
        n += 1
        found = oracle.check(data)
        if found:
            accepted += 1
        for cls, reason in found:
            seen.setdefault(cls, 0)
            seen[cls] += 1
            # minimise the first few of each class; save one pickle per
            # class and set of names imported (the shape of the finding)
            if seen[cls] > 6:
                continue
            small = assemble(proto, minimise(oracle, proto, stmts, cls))
            sig = cls + " " + ",".join(oracle.names(small))
            if sig in saved:
                continue
            saved.add(sig)
            # the reason of the first mode (strict, then allow) that
            # finds it, naming every mode that does
            hits = [r2 for c2, r2 in oracle.check(small) if c2 == cls]
            if hits:
                modes = "+".join(h.split(":", 1)[0] for h in hits)
                reason = modes + ":" + hits[0].split(":", 1)[1]
            reason += "  [imports %s]" % (", ".join(oracle.names(small)))
            path = save(args.out, cls, reason, small)
            print("finding %-40s %s (%d bytes)\n  %s" % (
                cls, os.path.basename(path), len(small), reason))
            sys.stdout.flush()
    dt = time.monotonic() - t0
    print("strict_diff: %d pickles in %.0f s (%.1f/s), %d real loads, "
          "%d with findings, %d finding classes, %d shapes saved" % (
              n, dt, n / dt, oracle.loads, accepted, len(seen),
              len(saved)))
    print("  " + ", ".join("%s %d" % kv for kv in oracle.stats.items()))
    for cls in sorted(seen):
        print("  %5d  %s" % (seen[cls], cls))
    return 1 if seen else 0


def replay(args, oracle):
    files = sorted(f for f in os.listdir(args.replay) if f.endswith(".pkl"))
    bad = 0
    for f in files:
        data = open(os.path.join(args.replay, f), "rb").read()
        found = oracle.check(data)
        if args.expect_findings:
            status = "finding" if found else "NO FINDING"
            bad += not found
        else:
            status = "FINDING" if found else "ok"
            bad += bool(found)
        print("%-10s %s%s" % (status, f, (": " + found[0][1]) if found
                              else ""))
    print("strict_diff: %d pickles, %d %s" % (
        len(files), bad, "not findings" if args.expect_findings
        else "findings"))
    return 1 if bad else 0


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="strict_diff.py",
        description="Differential fuzzer of --strict / loads(allow=[]).")
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--out", default=os.path.join(HERE, "strict_findings"))
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--jobs", type=int, default=1,
                    help="only 1 is supported")
    ap.add_argument("--full-snapshot", action="store_true",
                    help="look for patches in every module of sys.modules "
                    "(slower), not only those the name pool reaches")
    ap.add_argument("--replay", metavar="DIR",
                    help="re-check the pickles of DIR instead of fuzzing")
    ap.add_argument("--expect-findings", action="store_true",
                    help="with --replay: every pickle must be a finding")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    if args.jobs != 1:
        print("strict_diff.py: --jobs: only 1 is supported", file=sys.stderr)
        return 2
    if args.replay and not os.path.isdir(args.replay):
        print("strict_diff.py: %s: not a directory" % args.replay,
              file=sys.stderr)
        return 2
    args.build = os.path.abspath(args.build)
    if not os.access(os.path.join(args.build, "cloudpickle-load"), os.X_OK):
        print("strict_diff.py: %s: no cloudpickle-load (make BUILD=...)"
              % args.build, file=sys.stderr)
        return 2
    sys.path.insert(0, args.build)
    pool, traps = name_pool()
    trapdir = make_traps(traps)
    preimport(pool, traps)
    sys.path.append(trapdir)
    oracle = Oracle(args.build, trapdir,
                    None if args.full_snapshot else reach(pool))
    if args.replay:
        return replay(args, oracle)
    return fuzz(args, oracle, pool)


if __name__ == "__main__":
    sys.exit(main())
