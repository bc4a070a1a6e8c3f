#!/usr/bin/env python3
"""Write tests/fuzz/strict_cases/: the known bypasses of issue 25 as small
regression pickles, built with strict_diff.py's opcode helpers and its
function carried by value (co_filename <carried-by-value>).

Each pickle is accepted by `cloudpickle-load --strict` or by
`loads(allow=[])` today and breaks the promise when loaded; so
    strict_diff.py --replay tests/fuzz/strict_cases --expect-findings
passes today, and once the closed world lands
    strict_diff.py --replay tests/fuzz/strict_cases
must report no finding (every case refused, or harmless).

Usage: PYTHONPATH=build make_strict_cases.py [DIR]
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from strict_diff import (carried_bodies, op_get, op_import, op_int,  # noqa
                         op_put, op_str, op_tuple)

F, H = 100, 101     # memo slots of the carried functions


def case(proto, code, with_h=False):
    """A whole pickle: PROTO, f in slot F (and h in H), `code` (which
    leaves one value), STOP."""
    bodies = BODIES[proto]
    out = b"\x80" + bytes([proto]) if proto >= 2 else b""
    out += bodies["f"] + op_put(F) + b"0"
    if with_h:
        out += bodies["h"] + op_put(H) + b"0"
    return out + code + b"."


def call(proto, mod, name, *args):
    return op_import(proto, mod, name) + op_tuple(list(args)) + b"R"


def hook(name="__setstate__", slot=F):
    return b"}" + op_str(name) + op_get(slot) + b"s"


def plant_then_trigger(proto, alias):
    """BUILD (None, {'__setstate__': f}) on `alias` (an expression that is
    the class Fraction at load time), then Fraction('2') + BUILD."""
    return (alias + op_tuple([b"N", hook()]) + b"b0"
            + call(proto, "fractions", "Fraction", op_str("2"))
            + op_str("payload") + b"b")


def cases():
    p = 3
    frac = op_import(p, "fractions", "Fraction")
    frac1 = call(p, "fractions", "Fraction", op_str("1"))
    yield "alias-type", case(p, plant_then_trigger(
        p, call(p, "builtins", "type", frac1)))
    yield "alias-getitem", case(p, plant_then_trigger(
        p, call(p, "operator", "getitem", op_tuple([frac]), op_int(0))))
    yield "alias-min", case(p, plant_then_trigger(
        p, call(p, "builtins", "min", op_tuple([frac]))))
    yield "alias-inst-type", case(p, plant_then_trigger(
        p, b"(" + frac1 + b"ibuiltins\ntype\n"))
    # ChainMap(d) writes through into d; d becomes an instance's state
    yield "writethrough-chainmap", case(p, (
        b"}" + op_put(102) + b"0"
        + call(p, "collections", "ChainMap", op_get(102))
        + op_str("__setstate__") + op_get(F) + b"s0"
        + call(p, "types", "SimpleNamespace") + op_get(102) + b"b"
        + op_str("payload") + b"b"))
    # a bound method forwards attribute lookups to its function (h)
    yield "methodtype", case(p, call(
        p, "types", "MethodType", op_get(H), op_int(1)) + op_str("x") + b"b",
        with_h=True)
    # a harmless dunder re-initialising a process-wide object
    p4 = 4
    yield "init-dunder-defaultcontext", case(p4, (
        op_import(p4, "decimal", "Context.__init__")
        + op_tuple([op_import(p4, "decimal", "DefaultContext"), op_int(3)])
        + b"R0" + op_import(p4, "decimal", "DefaultContext")))
    # copy_reg is renamed below protocol 3 only: here it is imported
    yield "trap-copy_reg", case(p, (
        op_import(p, "copy_reg", "_reconstructor")
        + op_tuple([op_import(p, "builtins", "object"),
                    op_import(p, "builtins", "object"), b"N"]) + b"R"))
    # an unknown zone key makes zoneinfo import tzdata from sys.path
    yield "trap-tzdata", case(p, call(
        p, "zoneinfo", "ZoneInfo", op_str("Unknown/Key")))
    # ForwardRef compiles its text
    yield "compile-forwardref", case(p, call(
        p, "typing", "ForwardRef", op_str("__import__('os').getpid()")))
    # unbounded work
    yield "limit-pow", case(p, call(
        p, "builtins", "pow", op_int(10), op_int(10 ** 9)))
    yield "limit-sum-range", case(p, call(
        p, "builtins", "sum", call(p, "builtins", "range",
                                   op_int(10 ** 12))))
    yield "limit-sorted-range", case(p, call(
        p, "builtins", "sorted", call(p, "builtins", "range",
                                      op_int(10 ** 9))))
    yield "limit-bytes", case(p, call(
        p, "builtins", "bytes", op_int(10 ** 10)))
    # more aliases of the class: sum's start, an item of an iterator
    yield "alias-sum-start", case(p, plant_then_trigger(
        p, call(p, "builtins", "sum", op_tuple([]), frac)))
    yield "alias-next-iter", case(p, plant_then_trigger(
        p, call(p, "builtins", "next", call(
            p, "builtins", "iter", b"]" + frac + b"a"))))
    # a dict the pickle made, given to a call outside the table, then
    # filled: the callee may have kept it (copy.copy does not, but the
    # scan cannot know what a named callable does)
    yield "taint-named-call", case(p, (
        b"}" + op_put(102) + b"0"
        + call(p, "copy", "copy", op_get(102)) + b"0"
        + op_get(102) + op_str("__setstate__") + op_get(F) + b"s0"
        + call(p, "types", "SimpleNamespace") + op_get(102) + b"b"
        + op_str("payload") + b"b"))
    # text compiled at load: a typing subscription with a string, a
    # TypeVar by value with a string bound, a portable code object whose
    # source is computed instead of written as a literal
    yield "compile-typing-getitem", case(p, call(
        p, "operator", "getitem", op_import(p, "typing", "List"),
        op_str("__import__('os')")))
    yield "compile-typevar-bound", case(p, call(
        p, "ccloudpickle", "_make_typevar", op_str("T"),
        op_str("__import__('os')"), op_tuple([]), b"\x89", b"\x89", b"N"))
    yield "compile-portable-computed", case(p, call(
        p, "ccloudpickle", "_code_portable", op_str("3.8"), op_int(3413),
        b"C\x01\x00", call(p, "builtins", "tuple", b"](" + op_str("x = 1")
                              + op_str("f.py") + op_str("f") + b"e")))
    # a Python 2 module name left unmapped at protocol 3
    yield "trap-py2-queue", case(p, call(p, "Queue", "Queue"))


def main():
    global BODIES
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        HERE, "strict_cases")
    BODIES = carried_bodies()
    os.makedirs(out, exist_ok=True)
    for name, data in cases():
        with open(os.path.join(out, name + ".pkl"), "wb") as fp:
            fp.write(data)
        print("%s.pkl %d bytes" % (name, len(data)))


if __name__ == "__main__":
    main()
