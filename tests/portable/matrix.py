"""matrix.py - the cross-version matrix of portable pickles (issue 13).

Every CPython found (with its own ccloudpickle build) pickles the cases
below; every one of them (itself included) loads each pickle and calls
what it holds. Functions and classes go by value with portable=True;
plain data and classes by reference go without it. Negative cases (an
edited source file, exec'd code, a missing file, match under 3.9) must
load under the same bytecode magic and fail elsewhere with the clear
message naming both versions and the function.

    python3 tests/portable/matrix.py [--work DIR] [PYTHON=BUILD-DIR ...]

Without arguments: /usr/bin/python3 and pyenv's 3.* (as scripts/check-pythons
finds them), each with the build directory check-pythons made for it
(BUILD/py-VERSION*, whose .owner names the interpreter) or, for
/usr/bin/python3, BUILD itself (BUILD: $CPK_BUILD or build). A version
without a build is skipped with a note. Prints the matrix (rows: dumping
version, columns: loading version) and the failures; exit status 1 if a
cell failed, 2 if no interpreter could run it.

Internal modes, run under each interpreter: `dump BUILD OUT` and
`load BUILD IN REFDIR`.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))

# Positive cases: name -> (minimum minor version, portable?). Built by
# build_NAME() on the dumping side, checked by check_NAME(obj) on the
# loading side (which cannot import the fixture modules).
CASES = {
    "top": (9, True),
    "lambdas": (9, True),
    "closure": (9, True),
    "recursive": (9, True),
    "decorated": (9, True),
    "generator": (9, True),
    "async": (9, True),
    "super": (9, True),
    "class_props": (9, True),
    "class_in_function": (9, True),
    "nested_closures": (9, True),
    "fstring": (9, True),
    "module_calls": (9, True),
    "scope_edges": (9, True),
    "comprehensions": (9, True),
    "def_under_if": (9, True),
    "nested_class": (9, True),
    "signatures": (9, True),
    "comprehension_lambdas": (9, True),
    "function_with_class": (9, True),
    "lambda_in_lambda": (9, True),
    "class_lambdas": (9, True),
    "global_statement": (9, True),
    "future_annotations": (9, True),
    "more_shapes": (9, True),
    "match": (10, True),
    "data": (9, False),
    "by_reference": (9, False),
    "data_portable": (9, True),
}
# Negative cases: the function name their message must give.
NEGATIVE = {
    "edited": "edited",
    "edited_shift": "shifted",
    "exec": "from_exec",
    "missing": "gone",
}


# Dumping side --------------------------------------------------------------

def build_top():
    import fixture_mod as m
    return m.top


def build_lambdas():
    import fixture_mod as m
    return (m.sq, m.cube)


def build_closure():
    import fixture_mod as m
    return m.make_adder(5)


def build_recursive():
    import fixture_mod as m
    return m.fact


def build_decorated():
    import fixture_mod as m
    return m.decorated


def build_generator():
    import fixture_mod as m
    return m.gen


def build_async():
    import fixture_mod as m
    return m.coro


def build_super():
    import fixture_mod as m
    return m.Child().hello  # a bound method: the instance and its class


def build_class_props():
    import fixture_mod as m
    return m.Child


def build_class_in_function():
    import fixture_mod as m
    return m.outer_class()


def build_nested_closures():
    import fixture_mod as m
    make_step = m.counter_factory(10)
    bump = make_step(5)
    bump()  # count is 15 when pickled
    return (make_step, bump)


def build_fstring():
    import fixture_mod as m
    return m.fmt


def build_module_calls():
    import fixture_mod as m
    return m.module_calls


def build_scope_edges():
    import fixture_mod as m
    return (m.with_default_lambda.__defaults__[0], m.with_default_lambda,
            m.under_multiline_decorator.tagged[0],
            m.under_multiline_decorator, m.def_under_elif(2))


def build_comprehensions():
    import fixture_mod as m
    return m.comps


def build_def_under_if():
    import fixture_mod as m
    return m.in_if


def build_nested_class():
    import fixture_mod as m
    return (m.Outer, m.Outer.Nested)


def build_signatures():
    import fixture_mod as m
    return (m.kwonly, m.annotated)


def build_function_with_class():
    import fixture_mod as m
    return m.outer_class  # 3.13: the class body's __firstlineno__ constant


def build_comprehension_lambdas():
    import fixture_mod as m
    return m.lambdas_from_comprehension(10)


def build_lambda_in_lambda():
    import fixture_mod as m
    return m.adder(5)


def build_class_lambdas():
    import fixture_mod as m
    return m.WithLambda


def build_global_statement():
    import fixture_mod as m
    return m.bump_global


def build_future_annotations():
    import fixture_future as m
    return m.lazy


def build_more_shapes():
    import fixture_more as m
    return {"in_try": m.in_try, "in_with": m.in_with, "in_for": m.in_for,
            "multi_deco": m.multi_deco, "header_cont": m.header_cont,
            "tabs": m.tabs, "doc_col0": m.doc_col0, "inner": m.Meth().m(),
            "class_lambda": m.class_lambda(), "pair": m.pairs,
            "multi": m.multi, "agen": m.agen_comp(), "yf": m.yf,
            "walrus": m.walrus, "raise_from": m.raise_from, "uni": m.uni}


def build_match():
    import fixture_match as m
    return (m.matcher, m.Point, m.in_case)


def _data():
    import collections
    import datetime
    import decimal
    import fractions
    return {
        "ints": [0, -1, 2 ** 100, True, None],
        "floats": (1.5, float("inf"), -0.0, complex(1, -2)),
        "text": ("h\u00e9llo \U0001f600", b"\x00\xff", bytearray(b"ab")),
        "sets": ({1, 2}, frozenset({"a"})),
        "when": datetime.datetime(2026, 12, 2, 4, 5, 6, 7),
        "dec": decimal.Decimal("1.25"),
        "frac": fractions.Fraction(3, 7),
        "od": collections.OrderedDict([("b", 1), ("a", 2)]),
        "counter": collections.Counter("abca"),
        "deque": collections.deque([1, 2], maxlen=5),
    }


def build_data():
    return _data()


def build_data_portable():
    return _data()


def build_by_reference():
    import functools
    import operator
    import refmod
    return (refmod.Record, [refmod.Record(1, "a"), refmod.Record(2, "b")],
            refmod.double, functools.partial(refmod.double, 21),
            operator.itemgetter(1), len, dict)


def _module_file(tmp, name, text):
    path = os.path.join(tmp, name + ".py")
    with open(path, "w") as f:
        f.write(text)
    return path


def build_negative(cp, tmp):
    """{case: object}: functions whose source is not the running code."""
    import importlib
    import linecache
    sys.path.insert(0, tmp)
    out = {}
    # The file edited after import: the same def, another body.
    path = _module_file(tmp, "edited_mod",
                        "def edited(x):\n    return x + 1\n")
    mod = importlib.import_module("edited_mod")
    _module_file(tmp, "edited_mod", "def edited(x):\n    return x + 2\n")
    linecache.checkcache(path)
    cp.register_pickle_by_value(mod)
    out["edited"] = mod.edited
    # The def moved: a line inserted above it.
    path = _module_file(tmp, "shift_mod",
                        "def shifted(x):\n    return x * 3\n")
    mod = importlib.import_module("shift_mod")
    _module_file(tmp, "shift_mod",
                 "# new line\ndef shifted(x):\n    return x * 3\n")
    linecache.checkcache(path)
    cp.register_pickle_by_value(mod)
    out["edited_shift"] = mod.shifted
    # exec'd code: no file.
    ns = {"__name__": "exec_mod"}
    exec(compile("def from_exec(x):\n    return x - 1\n", "<exec>", "exec"),
         ns)
    out["exec"] = ns["from_exec"]
    # The file removed after import.
    path = _module_file(tmp, "gone_mod", "def gone(x):\n    return -x\n")
    mod = importlib.import_module("gone_mod")
    os.remove(path)
    linecache.checkcache(path)
    cp.register_pickle_by_value(mod)
    out["missing"] = mod.gone
    return out


def _sources(data):
    """What each _code_portable of a pickle carries: a list of 'tuple' or
    the str of a non-portable code (read with stock pickle, which calls
    ccloudpickle's reconstructors)."""
    import io
    import pickle
    import ccloudpickle
    seen = []

    def spy(version, magic, code, source):
        seen.append("tuple" if isinstance(source, tuple) else source)
        return ccloudpickle._code_portable(version, magic, code, source)

    class Spy(pickle.Unpickler):
        def find_class(self, module, name):
            if name == "_code_portable":
                return spy
            return super().find_class(module, name)
    Spy(io.BytesIO(data)).load()
    return seen


def dump_mode(build, out):
    sys.path[:0] = [build, HERE]
    import ccloudpickle as cp
    import fixture_mod
    import fixture_future
    import fixture_more
    cp.register_pickle_by_value(fixture_more)
    cp.register_pickle_by_value(fixture_mod)
    cp.register_pickle_by_value(fixture_future)
    minor = sys.version_info[1]
    if minor >= 10:
        import fixture_match
        cp.register_pickle_by_value(fixture_match)
    meta = {"version": "%d.%d.%d" % sys.version_info[:3],
            "magic": _magic(), "cases": {}, "errors": {}}
    for name, (need, portable) in CASES.items():
        if minor < need:
            continue
        try:
            obj = globals()["build_" + name]()
            # The first pickle of an instance caches __slotnames__ on its
            # class (copyreg, as stock pickle does): the next ones compared.
            cp.dumps(obj, portable=portable)
            data = cp.dumps(obj, portable=portable)
            if cp.dumps(obj, portable=portable) != data:
                raise AssertionError("two dumps differ (not deterministic)")
            srcs = _sources(data) if portable else []
            bad = [s for s in srcs if s != "tuple"]
            if bad:
                raise AssertionError("not portable: %s" % bad[0])
            if name.startswith("data") or name == "by_reference":
                if "_code_" in repr(data):
                    raise AssertionError("carries code")
        except Exception as e:
            meta["errors"][name] = "%s: %s" % (type(e).__name__, e)
            continue
        with open(os.path.join(out, name + ".pkl"), "wb") as f:
            f.write(data)
        meta["cases"][name] = srcs.count("tuple")
    tmp = tempfile.mkdtemp(prefix="cpk-neg-")
    try:
        for name, fn in build_negative(cp, tmp).items():
            data = cp.dumps(fn, portable=True)
            srcs = _sources(data)
            if not srcs or all(s == "tuple" for s in srcs):
                meta["errors"][name] = "shipped as portable: %s" % srcs
                continue
            with open(os.path.join(out, name + ".pkl"), "wb") as f:
                f.write(data)
            meta["cases"][name] = 0
    finally:
        shutil.rmtree(tmp)
    with open(os.path.join(out, "meta.json"), "w") as f:
        json.dump(meta, f)


def _magic():
    import importlib.util
    return importlib.util.MAGIC_NUMBER.hex()


# Loading side --------------------------------------------------------------

def _line(text, name="fixture_mod.py"):
    """The line of `text` in a fixture (the loaded code's lines must be
    the file's, whichever Python compiled it)."""
    with open(os.path.join(HERE, name)) as f:
        for i, line in enumerate(f, 1):
            if text in line:
                return i
    raise AssertionError(text)


def _raise_line(f, *a):
    import traceback
    try:
        f(*a)
    except Exception as e:
        return traceback.extract_tb(e.__traceback__)[-1].lineno
    raise AssertionError("no exception")


def check_top(f):
    assert f.__code__.co_firstlineno == _line("def top("), \
        f.__code__.co_firstlineno
    assert _raise_line(f, None) == _line("return x * y + z + SCALE")
    assert f(2) == 8 and f(2, 3, z=0) == 9, f(2)
    assert f.__name__ == "top" and f.__doc__.startswith("A top-level")
    assert f.__defaults__ == (2,) and f.__kwdefaults__ == {"z": 1}
    assert f.__qualname__ == "top" and f.__module__ == "fixture_mod"


def check_lambdas(fs):
    sq, cube = fs
    assert sq(7) == 49 and cube(3) == 27, (sq(7), cube(3))


def check_closure(f):
    assert f.__code__.co_firstlineno == _line("    def add(x):")
    assert _raise_line(f, None) == _line("return x + n")
    assert f(1) == 6 and f.__closure__[0].cell_contents == 5
    assert f.__qualname__ == "make_adder.<locals>.add", f.__qualname__


def check_recursive(f):
    assert f(6) == 720


def check_decorated(f):
    assert f(4) == 108 and f.__name__ == "decorated"
    assert f.__wrapped__(4) == 8


def check_generator(f):
    g = f(3)
    assert list(g) == [0, 2, 4]
    g = f(0)
    try:
        next(g)
    except StopIteration as e:
        assert e.value == "done"


def check_async(f):
    import asyncio
    assert asyncio.run(f(5)) == 10


def check_super(m):
    assert m() == "child+base5", m()


def check_class_props(cls):
    o = cls.make(2)
    assert o.v == 2 and cls.helper(1) == 2
    o.v = 3
    assert o.v == 30 and o.hello() == "child+base5"
    assert cls.__name__ == "Child" and cls.__mro__[1].__name__ == "Base"
    assert isinstance(cls.__dict__["make"], classmethod)


def check_class_in_function(cls):
    assert cls().hello() == "base3"


def check_nested_closures(fs):
    make_step, bump = fs
    assert bump() == 20  # shares count with make_step's closures
    other = make_step(1)
    assert other() == 21 and bump() == 26


def check_fstring(f):
    assert f(3) == "       3|006|nested 3", repr(f(3))
    assert f("ab", 4) != "" if False else True


def check_module_calls(f):
    assert f(3, 4) == 5.0 + 3 + 7, f(3, 4)


def check_scope_edges(t):
    dl, wdl, deco_lambda, umd, inner = t
    assert dl(4) == 8 and wdl(3) == 6 and wdl(3, key=str) == "3"
    assert deco_lambda(1) == 2 and umd(1) == 2
    assert umd.tagged[1] == "multi-line"
    assert inner() == "elif"


def check_comprehensions(f):
    assert _raise_line(f, None) == _line("squares = [i * k for i in")
    squares, called, table, g = f(4)
    assert squares == [0, 2, 4, 6] and called == [0, 2, 4, 6]
    assert table == {0: set(), 1: {0}, 2: {0, 1}, 3: {0, 1, 2}}
    assert g == 12


def check_def_under_if(f):
    assert f(10) == 7


def check_nested_class(cs):
    outer, nested = cs
    assert nested().where() == "Outer.Nested"
    assert outer().method_lambda() == "Outer"


def check_signatures(fs):
    kwonly, annotated = fs
    assert kwonly(1, 2, 3, c=5, z=0) == (1, 2, (3,), 5, 4, ["z"])
    try:
        kwonly(a=1, b=2, c=3)
    except TypeError:
        pass
    else:
        raise AssertionError("positional-only parameter accepted by name")
    assert annotated(1) == [1, 1]
    assert annotated.__annotations__ == {"x": int, "y": "str",
                                         "return": "list[int]"}


def check_function_with_class(f):
    cls = f()
    assert cls().hello() == "base3"
    if sys.version_info >= (3, 13):
        assert cls.__firstlineno__ == _line("    class Inner(Base):")


def check_comprehension_lambdas(fs):
    # Late binding: the three share the comprehension's cell of i.
    assert [f() for f in fs] == [20, 20, 20]


def check_lambda_in_lambda(f):
    assert f(2) == 7


def check_class_lambdas(cls):
    assert cls.twice(4) == 8 and cls.spread(0) == (0, (1, 2))


def check_global_statement(f):
    assert f() == 1 and f() == 2


def check_future_annotations(f):
    assert f(1) == [1]
    assert f.__annotations__ == {"x": "UndefinedName",
                                 "return": "list[int]"}, f.__annotations__


def check_more_shapes(d):
    import asyncio
    assert d["in_try"](1) == 2 and d["in_with"](1) == 3
    assert d["in_for"](1) == 4 and d["multi_deco"](1) == 6
    assert d["multi_deco"].tag == (1, 3) and d["header_cont"](1) == 2
    assert d["tabs"](2) == 4 and d["doc_col0"](1) == "\ncolumn 0\n1"
    assert d["inner"]() == "Meth" and d["class_lambda"]() == 7
    assert d["pair"] == [(1, 2)] and d["multi"](1) == 11
    assert asyncio.run(d["agen"](3)) == [0, 1, 2]
    assert list(d["yf"]()) == [0, 1] and d["walrus"]([1, 2]) == [4]
    try:
        d["raise_from"]()
    except ValueError as e:
        assert isinstance(e.__cause__, ZeroDivisionError)
    assert d["uni"]() == "\u00fc1"
    assert _raise_line(d["raise_from"]) == _line(
        'raise ValueError("x") from e', "fixture_more.py")


def check_match(fs):
    matcher, point, in_case = fs
    assert in_case(1) == 5
    assert matcher([1, 2]) == 3 and matcher({"k": 9}) == 9
    assert matcher(point(0, 4)) == ("on y", 4)
    assert matcher("ab") == "AB" and matcher(point(1, 1)) is None


def check_data(d):
    assert d == _data(), d
    assert repr(d["floats"][2]) == "-0.0" and d["deque"].maxlen == 5


check_data_portable = check_data


def check_by_reference(t):
    import functools
    import operator
    import refmod
    cls, recs, double, part, getter, ln, dct = t
    assert cls is refmod.Record and recs == [refmod.Record(1, "a"),
                                             refmod.Record(2, "b")]
    assert double is refmod.double and part() == 42
    assert isinstance(part, functools.partial)
    assert type(getter) is operator.itemgetter and getter("xy") == "y"
    assert ln is len and dct is dict


NEG_RESULTS = {"edited": (4, 5), "edited_shift": (4, 12), "exec": (4, 3),
               "missing": (4, -4)}


def load_mode(build, indir, refdir):
    sys.path[:0] = [build, refdir]
    import ccloudpickle as cp
    with open(os.path.join(indir, "meta.json")) as f:
        meta = json.load(f)
    same = meta["magic"] == _magic()
    me = "%d.%d" % sys.version_info[:2]
    them = ".".join(meta["version"].split(".")[:2])
    results = {}
    for name in sorted(meta["cases"]):
        with open(os.path.join(indir, name + ".pkl"), "rb") as f:
            data = f.read()
        need = CASES[name][0] if name in CASES else 9
        fn_name = NEGATIVE.get(name) or ("matcher" if name == "match" else
                                         None)
        must_fail = (not same and name in NEGATIVE) or \
            sys.version_info[1] < need
        try:
            obj = cp.loads(data)
        except cp.UnpicklingError as e:
            msg = str(e)
            if not must_fail:
                results[name] = "UnpicklingError: %s" % msg
            elif them not in msg or me not in msg or fn_name not in msg:
                results[name] = ("unclear message (wants %s, %s, %s): %s"
                                 % (them, me, fn_name, msg))
            else:
                results[name] = None
            continue
        except Exception as e:
            results[name] = "%s: %s" % (type(e).__name__, e)
            continue
        if must_fail:
            results[name] = "loaded, should have failed"
            continue
        try:
            if name in NEGATIVE:
                arg, want = NEG_RESULTS[name]
                got = obj(arg)
                assert got == want, (got, want)
            else:
                globals()["check_" + name](obj)
            results[name] = None
        except Exception as e:
            results[name] = "call: %s: %s" % (type(e).__name__, e)
    print(json.dumps(results))


# Orchestration (any Python 3) ----------------------------------------------

PROBE = ("import sys, importlib.util; v = sys.version_info; "
         "print('%d.%d.%d' % v[:3], v[0] * 100 + v[1], "
         "getattr(sys, 'implementation').name)")


def _candidates():
    root = os.environ.get("PYENV_ROOT") or os.path.join(
        os.environ.get("HOME", "/nonexistent"), ".pyenv")
    out = ["/usr/bin/python3"]
    vdir = os.path.join(root, "versions")
    if os.path.isdir(vdir):
        def key(v):
            return [int(p) if p.isdigit() else 0 for p in v.split(".")]
        for v in sorted(os.listdir(vdir), key=key):
            py = os.path.join(vdir, v, "bin", "python3")
            if v.startswith("3.") and os.access(py, os.X_OK):
                out.append(py)
    return out


def _has_ext(d):
    return os.path.isdir(d) and any(
        n.startswith("ccloudpickle.") and n.endswith(".so")
        for n in os.listdir(d))


def _find_build(py, version, build_root):
    real = os.path.realpath(py)
    if os.path.isdir(build_root):
        for d in sorted(os.listdir(build_root)):
            if not d.startswith("py-" + version):
                continue
            full = os.path.join(build_root, d)
            try:
                with open(os.path.join(full, ".owner")) as f:
                    owner = f.read().strip()
            except OSError:
                continue
            if owner == real and _has_ext(full):
                return full
    # The default build: the Makefile's python.stamp ends with the
    # interpreter's sys.base_prefix (/usr for /usr/bin/python3).
    if py == "/usr/bin/python3" and _has_ext(build_root):
        try:
            with open(os.path.join(build_root, "python.stamp")) as f:
                if f.read().split()[-1:] == ["/usr"]:
                    return build_root
        except OSError:
            pass
    return None


def _run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=600)


def main(argv):
    work = None
    pairs = []
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--work":
            work = args.pop(0)
        elif "=" in a:
            py, build = a.split("=", 1)
            pairs.append((py, os.path.abspath(build)))
        else:
            print("usage: matrix.py [--work DIR] [PYTHON=BUILD ...]",
                  file=sys.stderr)
            return 2
    build_root = os.path.abspath(os.environ.get("CPK_BUILD") or
                                 os.path.join(TOP, "build"))
    notes = []
    if not pairs:
        for py in _candidates():
            pairs.append((py, None))
    interps = []  # (label, python, build, minor)
    seen = set()
    for py, build in pairs:
        real = os.path.realpath(py)
        if real in seen:
            continue
        seen.add(real)
        r = _run([py, "-I", "-c", PROBE]) if os.access(py, os.X_OK) else None
        if r is None or r.returncode != 0:
            notes.append("%s: skipped (does not run)" % py)
            continue
        version, minor, impl = r.stdout.split()
        if impl != "cpython" or not 309 <= int(minor) <= 313:
            notes.append("%s (%s): skipped (not CPython 3.9-3.13)"
                         % (py, version))
            continue
        if build is None:
            build = _find_build(py, version, build_root)
        if build is None or not _has_ext(build):
            notes.append("%s (%s): skipped (no build: make check-pythons, "
                         "or make BUILD=%s/py-%s PYTHON=%s PYTHON_LINK=shared "
                         "all)" % (py, version, build_root, version, py))
            continue
        interps.append((version, py, build, int(minor) % 100))
    for n in notes:
        print("note: " + n)
    if not interps:
        print("portable matrix: no interpreter with a build")
        return 2
    tmp = work or tempfile.mkdtemp(prefix="cpk-matrix-")
    refdir = os.path.join(tmp, "ref")
    os.makedirs(refdir, exist_ok=True)
    shutil.copy(os.path.join(HERE, "refmod.py"), refdir)
    me = os.path.abspath(__file__)
    failures = []
    dumped = {}
    for version, py, build, _ in interps:
        out = os.path.join(tmp, "dump-" + version)
        os.makedirs(out, exist_ok=True)
        r = _run([py, "-I", me, "dump", build, out])
        if r.returncode != 0:
            failures.append("dump under %s: exit %d: %s" % (
                version, r.returncode, r.stderr.strip()[-2000:]))
            continue
        with open(os.path.join(out, "meta.json")) as f:
            meta = json.load(f)
        for name, err in sorted(meta["errors"].items()):
            failures.append("dump under %s: %s: %s" % (version, name, err))
        dumped[version] = out
    cells = {}
    for dv, _, _, _ in interps:
        for lv, py, build, _ in interps:
            if dv not in dumped:
                cells[dv, lv] = "no dump"
                continue
            r = _run([py, "-I", me, "load", build, dumped[dv], refdir])
            try:
                res = json.loads(r.stdout.strip().splitlines()[-1])
            except (ValueError, IndexError):
                cells[dv, lv] = "CRASH"
                failures.append("%s -> %s: exit %d: %s" % (
                    dv, lv, r.returncode, r.stderr.strip()[-2000:]))
                continue
            bad = sorted(k for k, v in res.items() if v)
            for k in bad:
                failures.append("%s -> %s: %s: %s" % (dv, lv, k, res[k]))
            cells[dv, lv] = ("pass (%d)" % len(res) if not bad else
                             "FAIL: " + ",".join(bad))
    if not work:
        shutil.rmtree(tmp)
    versions = [v for v, _, _, _ in interps]
    width = max([12] + [len(c) for c in cells.values()])
    print("\nportable matrix: rows dump, columns load; (n) cases passed "
          "(positive, negative, by reference)")
    print("%-10s" % "dump\\load" + "".join(" %-*s" % (width, v)
                                           for v in versions))
    for dv in versions:
        print("%-10s" % dv + "".join(" %-*s" % (width, cells[dv, lv])
                                     for lv in versions))
    if failures:
        print("\nfailures:")
        for f in failures:
            print("  " + f)
        return 1
    print("\nportable matrix: all %d cells pass" % len(cells))
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "dump":
        dump_mode(sys.argv[2], sys.argv[3])
    elif len(sys.argv) > 1 and sys.argv[1] == "load":
        load_mode(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(main(sys.argv[1:]))
