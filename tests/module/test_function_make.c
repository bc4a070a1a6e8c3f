/* test_function_make.c - a function whose state cannot lead back to it is
 * written as one call, _function_make(code, globals, ncells, state); any
 * other keeps _function_new then _function_fill, which memoizes the
 * function before its state (recursion through globals, closures,
 * defaults, attributes, modules by value). Both load, with ours and with
 * plain pickle, and behave the same. */
#include "support.h"

TestSuite(function_make, .init = cpk_py_start, .fini = cpk_py_stop);

/* form(obj): 'make' or 'split' from the names the pickle holds; check(f):
 * the dump loads with plain pickle and with ours into a working copy. */
#define PRELUDE                                                              \
    "import ccloudpickle as cp, pickle, pickletools, sys, types, math\n"     \
    "def names(data):\n"                                                     \
    "    return {a for op, a, _ in pickletools.genops(data)\n"               \
    "            if op.name == 'SHORT_BINUNICODE'}\n"                        \
    "def form(obj):\n"                                                       \
    "    n = names(cp.dumps(obj))\n"                                         \
    "    make = '_function_make' in n\n"                                     \
    "    split = '_function_new' in n and '_function_fill' in n\n"           \
    "    assert make != split or not (make or split), n\n"                   \
    "    return 'make' if make else 'split' if split else 'bare'\n"          \
    "def check(f, *args):\n"                                                 \
    "    data = cp.dumps(f)\n"                                               \
    "    for load in (cp.loads, pickle.loads):\n"                            \
    "        g = load(data)\n"                                               \
    "        assert g is not f and g(*args) == f(*args), (g(*args),)\n"      \
    "        assert g.__name__ == f.__name__\n"                              \
    "        assert g.__qualname__ == f.__qualname__\n"                      \
    "        assert g.__defaults__ == f.__defaults__\n"                      \
    "        assert g.__kwdefaults__ == f.__kwdefaults__\n"

Test(function_make, task_closure_is_one_call)
{
    /* numbers, strings, a module found by name, builtin types and
     * functions, containers of them: the engines' task closure */
    cpk_py(PRELUDE
           "SCALE = 2.5\n"
           "def make(a):\n"
           "    def task(x, y=1, *, z=(1, 'b', None)):\n"
           "        return math.floor((x + a) * SCALE) + y + len(z)\n"
           "    return task\n"
           "t = make(3)\n"
           "t.__module__ = '__main__'\n"
           "assert form(t) == 'make'\n"
           "check(t, 4)\n"
           "def ann(x: int, y: str = 'a') -> float:\n"
           "    return float(x)\n"
           "ann.attr = {'k': [1, 2.0, b'x', None, True, math.pi]}\n"
           "assert form(ann) == 'make'\n"
           "check(ann, 2)\n"
           "assert cp.loads(cp.dumps(ann)).attr == ann.attr\n"
           "assert cp.loads(cp.dumps(ann)).__annotations__ == "
           "ann.__annotations__\n"
           "from os.path import join\n"
           "from collections import OrderedDict\n"
           "def uses_names(a, k=OrderedDict, j=join):\n"
           "    return k([(j(a, 'b'), 1)])\n"
           "assert form(uses_names) == 'make'\n"
           "check(uses_names, 'a')\n"
           "def uses_builtin_fn(a):\n"
           "    return join(a, 'b')\n"
           "assert form(uses_builtin_fn) == 'make'\n"
           "check(uses_builtin_fn, 'a')\n"
           /* a function with an empty state has no call to fill it */
           "assert form(lambda: 0) in ('bare', 'make')\n"
           "assert cp.loads(cp.dumps(lambda: 7))() == 7\n");
}

Test(function_make, recursion_keeps_the_split_form)
{
    cpk_py(PRELUDE
           /* through globals */
           "def fact(n):\n"
           "    return 1 if n < 2 else n * fact(n - 1)\n"
           "assert form(fact) == 'split'\n"
           "check(fact, 6)\n"
           /* through its own cell */
           "def outer():\n"
           "    def rec(n):\n"
           "        return 0 if n == 0 else 1 + rec(n - 1)\n"
           "    return rec\n"
           "assert form(outer()) == 'split'\n"
           "check(outer(), 5)\n"
           /* through a default and an attribute */
           "def d(x, me=None):\n"
           "    return x\n"
           "d.__defaults__ = (d,)\n"
           "assert form(d) == 'split'\n"
           "g = cp.loads(cp.dumps(d))\n"
           "assert g.__defaults__[0] is g\n"
           "def a(x):\n"
           "    return x\n"
           "a.me = [a]\n"
           "assert form(a) == 'split'\n"
           "g = cp.loads(cp.dumps(a))\n"
           "assert g.me[0] is g\n"
           /* through a tuple, a dict */
           "def t(x):\n"
           "    return x\n"
           "t.__kwdefaults__ = None\n"
           "t.box = {'k': (1, [t])}\n"
           "assert form(t) == 'split'\n"
           "g = cp.loads(cp.dumps(t))\n"
           "assert g.box['k'][1][0] is g\n");
}

Test(function_make, what_may_lead_back_keeps_the_split_form)
{
    cpk_py(PRELUDE
           /* another function by value, a class by value, an instance */
           "def helper(x):\n"
           "    return x + 1\n"
           "def uses_helper(x):\n"
           "    return helper(x)\n"
           "assert form(uses_helper) == 'split'\n"
           "check(uses_helper, 1)\n"
           "class K:\n"
           "    v = 3\n"
           "def uses_class():\n"
           "    return K.v\n"
           "assert form(uses_class) == 'split'\n"
           "check(uses_class)\n"
           "def annotated(x: K):\n"
           "    return 1\n"
           "assert form(annotated) == 'split'\n"
           /* a str subclass, an int subclass: not exact types */
           "class S(str):\n"
           "    pass\n"
           "def f(x=S('a')):\n"
           "    return str(x)\n"
           "assert form(f) == 'split'\n"
           "check(f)\n"
           /* a module registered to go by value may hold the function */
           "mod = types.ModuleType('byvalue_mod')\n"
           "sys.modules['byvalue_mod'] = mod\n"
           "exec('def get():\\n    return 5\\n', mod.__dict__)\n"
           "cp.register_pickle_by_value(mod)\n"
           "def uses_mod():\n"
           "    return mod.get()\n"
           "assert form(uses_mod) == 'split'\n"
           "check(uses_mod)\n"
           "cp.unregister_pickle_by_value(mod)\n"
           "assert form(uses_mod) == 'make'\n");
}

Test(function_make, budget_bounds_the_walk)
{
    /* more than 64 objects to visit: the split form, which is always
     * right; at most: one call */
    cpk_py(PRELUDE
           "def big(x=tuple(range(100))):\n"
           "    return len(x)\n"
           "assert form(big) == 'split'\n"
           "check(big)\n"
           "def small(x=tuple(range(20))):\n"
           "    return len(x)\n"
           "assert form(small) == 'make'\n"
           "check(small)\n"
           "deep = []\n"
           "cur = deep\n"
           "for _ in range(200):\n"
           "    cur.append([])\n"
           "    cur = cur[0]\n"
           "def nested(x=deep):\n"
           "    return 1\n"
           "assert form(nested) == 'split'\n"
           "check(nested)\n");
}

Test(function_make, pickles_are_deterministic_and_scanned)
{
    /* the same dump twice: the same bytes; the loader's policy sees the
     * import its state makes */
    cpk_py(PRELUDE
           "import os as o2\n"
           "def make(a):\n"
           "    return lambda x: o2.sep + x + a\n"
           "f = make('1')\n"
           "assert cp.dumps(f) == cp.dumps(f)\n"
           "assert form(f) == 'make'\n"
           "data = cp.dumps(f)\n"
           "assert cp.loads(data, allow=['os'])('4') == o2.sep + '41'\n"
           "try:\n"
           "    cp.loads(data, allow=['math'])\n"
           "    raise AssertionError('os was let through')\n"
           "except cp.PolicyError as e:\n"
           "    assert 'refuses 1 import: os' in str(e), e\n");
}

Test(function_make, closures_of_one_def_share_their_globals)
{
    /* the globals subset of 200 closures is written once; each still
     * loads with its own cells; different values are never shared */
    cpk_py(PRELUDE
           "SCALE = 2.5\n"
           "def make(a):\n"
           "    return lambda x: math.floor((x + a) * SCALE)\n"
           "fs = [make(i) for i in range(200)]\n"
           "data = cp.dumps(fs)\n"
           "ops = [op.name for op, a, _ in pickletools.genops(data)]\n"
           "assert ops.count('BINFLOAT') == 1, ops.count('BINFLOAT')\n"
           "assert sum(1 for op, a, _ in pickletools.genops(data)\n"
           "           if a == 'SCALE') == 1\n"
           "for load in (cp.loads, pickle.loads):\n"
           "    gs = load(data)\n"
           "    assert [g(1) for g in gs] == [f(1) for f in fs]\n"
           "    assert len({id(g.__globals__) for g in gs}) == 1\n"
           "m1 = types.ModuleType('m1')\n"
           "m2 = types.ModuleType('m2')\n"
           "src = 'K = {}\\ndef f():\\n    return K\\n'\n"
           "exec(src.format(1), m1.__dict__)\n"
           "exec(src.format(2), m2.__dict__)\n"
           "a, b = cp.loads(cp.dumps([m1.f, m2.f]))\n"
           "assert (a(), b()) == (1, 2)\n"
           "assert a.__globals__ is not b.__globals__\n"
           /* the same values in two modules: one subset dict, two
            * namespaces */
           "exec(src.format(1), m2.__dict__)\n"
           "m2.K = m1.K\n"
           "a, b = cp.loads(cp.dumps([m1.f, m2.f]))\n"
           "assert (a(), b()) == (1, 1)\n"
           "assert a.__globals__ is not b.__globals__\n"
           "assert a.__globals__['__name__'] == 'm1'\n"
           "assert b.__globals__['__name__'] == 'm2'\n");
}

/* Closures of one def met again reuse the subset they read without
 * making it again, only while every global they read is still the very
 * object it was: a __reduce__ between them that rebinds one gives the
 * next closures a subset of their own, one that registers a module among
 * them by value gives them the split form. */
Test(function_make, same_def_reread_when_globals_change_mid_dump)
{
    cpk_py(PRELUDE
           "import io\n"
           "class Rec(pickle.Unpickler):\n"
           "    def find_class(self, m, n):\n"
           "        if n == '_function_make':\n"
           "            return lambda *a: ('made', a)\n"
           "        return super().find_class(m, n)\n"
           "def made(data):\n"
           "    return [o[1] for o in Rec(io.BytesIO(data)).load()\n"
           "            if isinstance(o, tuple) and o[0] == 'made']\n"
           "m = types.ModuleType('m_mid')\n"
           "exec('K = [1]\\nR = 0.5\\ndef mk(a):\\n'\n"
           "     '    return lambda: (K, R, a)\\n', m.__dict__)\n"
           "class Rebind:\n"
           "    def __reduce__(self):\n"
           "        m.K = [2]\n"
           "        return (int, (0,))\n"
           "fs = [m.mk(0), m.mk(1), Rebind(), m.mk(2), m.mk(3)]\n"
           "args = made(cp.dumps(fs))\n"
           "assert len(args) == 4, args\n"
           "subsets = [a[3]['__globals__'] for a in args]\n"
           "assert [s['K'] for s in subsets] == [[1], [1], [2], [2]]\n"
           "assert subsets[0] is subsets[1] and subsets[2] is subsets[3]\n"
           "assert subsets[1] is not subsets[2]\n"
           /* a name the code reads, gone between two closures */
           "class Unbind:\n"
           "    def __reduce__(self):\n"
           "        del m.R\n"
           "        return (int, (0,))\n"
           "args = made(cp.dumps([m.mk(0), Unbind(), m.mk(1)]))\n"
           "assert [sorted(a[3]['__globals__']) for a in args] == \\\n"
           "       [['K', 'R'], ['K']], args\n"
           /* a module among the globals, registered by value between */
           "cfg = types.ModuleType('cfg_mid')\n"
           "sys.modules['cfg_mid'] = cfg\n"
           "cfg.RATE = 5\n"
           "m.cfg = cfg\n"
           "exec('def mk2(a):\\n    return lambda: (cfg.RATE, a)\\n',\n"
           "     m.__dict__)\n"
           "class Reg:\n"
           "    def __reduce__(self):\n"
           "        cp.register_pickle_by_value(cfg)\n"
           "        return (int, (0,))\n"
           "try:\n"
           "    data = cp.dumps([m.mk2(0), m.mk2(1), Reg(), m.mk2(2)])\n"
           "finally:\n"
           "    cp.unregister_pickle_by_value(cfg)\n"
           "assert len(made(data)) == 2, made(data)\n"
           "out = cp.loads(data)\n"
           "assert out[3]() == (5, 2) and out[0]() == (5, 0)\n"
           "assert out[3].__globals__['cfg'] is not cfg\n");
}

/* Code run by a lookup in __globals__ (a colliding key's __eq__) while the
 * last subset is compared may clear the memo, and with it the last
 * subset: the comparison keeps what it compared (review i11g: this
 * crashed). The memo is cleared at the first lookup after the first
 * closure is written: the second closure's comparison. Protocol 2 numbers
 * memo entries in the pickle (BINPUT), so a memo cleared mid-dump still
 * gives a pickle that loads; from protocol 4 MEMOIZE numbers them by
 * count, and a clear before a BINGET desyncs CPython's own pickler. */
Test(function_make, same_def_survives_clear_memo_during_lookup)
{
    cpk_py(PRELUDE
           "import io\n"
           "p = None\n"
           "cleared = []\n"
           "class Evil:\n"
           "    def __hash__(self):\n"
           "        return hash('Q')\n"
           "    def __eq__(self, other):\n"
           "        if not cleared and len(p.memo.copy()) > 1:\n"
           "            cleared.append(len(p.memo.copy()))\n"
           "            p.clear_memo()\n"
           "        return False\n"
           "g = {'__name__': 'm_evil', '__builtins__': __builtins__}\n"
           "g[Evil()] = 1\n"
           "exec('K = 1\\ndef mk(a):\\n    return lambda: (K, Q, a)\\n', g)\n"
           "fs = [g['mk'](0), g['mk'](1)]\n"
           "for proto in (2, 3):\n"
           "    cleared.clear()\n"
           "    buf = io.BytesIO()\n"
           "    p = cp.Pickler(buf, protocol=proto)\n"
           "    p.dump(fs)\n"
           "    assert cleared, 'the memo was never cleared'\n"
           "    out = pickle.loads(buf.getvalue())\n"
           "    assert [f.__code__.co_consts for f in out] == \\\n"
           "           [f.__code__.co_consts for f in fs]\n"
           "    assert [f.__closure__[0].cell_contents for f in out] == [0, 1]\n");
}

Test(function_make, globals_still_being_written_are_never_shared)
{
    /* a's globals reach, through the class X they hold, a method with the
     * same globals in another module: sharing a's dict, still empty while
     * X is written, would leave X out of the method's module */
    cpk_py(PRELUDE
           "m1 = types.ModuleType('m1')\n"
           "m2 = types.ModuleType('m2')\n"
           "exec('class X:\\n    pass\\n'\n"
           "     'def meth(self):\\n    return X\\n', m2.__dict__)\n"
           "m2.X.meth = m2.meth\n"
           "m1.X = m2.X\n"
           "exec('def a():\\n    return X\\n', m1.__dict__)\n"
           "import ccloudpickle\n");
    /* where X's class is new (this process would give back m2.X) */
    cpk_fresh("ccloudpickle.dumps(m1.a)", "X = obj()\n"
                                          "assert X().meth() is X\n");
}

/* A module of this process that pickles by reference: Registry, whose
 * handlers a Pickler subclass's reducer_override writes with it. */
#define REGISTRY                                                             \
    "modc = types.ModuleType('modc_fm')\n"                                   \
    "sys.modules['modc_fm'] = modc\n"                                        \
    "exec('class Registry:\\n    handlers = []\\n'\n"                        \
    "     'def rebuild(handlers):\\n'\n"                                     \
    "     '    Registry.handlers = list(handlers)\\n'\n"                     \
    "     '    return Registry\\n', modc.__dict__)\n"                        \
    "class P(cp.Pickler):\n"                                                 \
    "    def reducer_override(self, obj):\n"                                 \
    "        if obj is modc.Registry:\n"                                     \
    "            return (modc.rebuild, (tuple(modc.Registry.handlers),))\n"  \
    "        return super().reducer_override(obj)\n"                         \
    "import io\n"                                                            \
    "def p_dumps(obj):\n"                                                    \
    "    buf = io.BytesIO()\n"                                               \
    "    P(buf).dump(obj)\n"                                                 \
    "    return buf.getvalue()\n"

Test(function_make, user_hooks_keep_the_split_form)
{
    /* what ccloudpickle would write by name, the user's reducer writes
     * with functions inside: no one-call form, no shared globals */
    cpk_py(PRELUDE REGISTRY
           "src = 'def f{n}():\\n    return Registry, x\\n'\n"
           "g1 = {'__name__': 'plugin_a', 'Registry': modc.Registry, 'x': 1}\n"
           "g2 = {'__name__': 'plugin_b', 'Registry': modc.Registry, 'x': 1}\n"
           "exec(src.format(n=1), g1)\n"
           "exec(src.format(n=2), g2)\n"
           "modc.Registry.handlers[:] = [g2['f2']]\n"
           "data = p_dumps(g1['f1'])\n"
           "assert '_function_make' not in names(data)\n"
           "modc.Registry.handlers = []\n"
           "f1 = pickle.loads(data)\n"
           "f2 = modc.Registry.handlers[0]\n"
           "assert f1() == (modc.Registry, 1)\n"
           "assert f2 is not g2['f2'] and f2() == (modc.Registry, 1)\n"
           /* a closure the reducer leads back to */
           "def mk(R):\n"
           "    def h(x):\n"
           "        return R, x\n"
           "    return h\n"
           "h = mk(modc.Registry)\n"
           "modc.Registry.handlers[:] = [h]\n"
           "back = pickle.loads(p_dumps(h))\n"
           "assert modc.Registry.handlers[0] is back\n"
           "assert back(1) == (modc.Registry, 1)\n"
           /* a plain Pickler, an instance persistent_id, a dispatch table:
            * the same function, each form as its hooks allow */
           "def plain(x):\n"
           "    return math.sqrt(x)\n"
           "assert '_function_make' in names(cp.dumps(plain))\n"
           "buf = io.BytesIO()\n"
           "q = cp.Pickler(buf)\n"
           "q.persistent_id = lambda obj: None\n"
           "q.dump(plain)\n"
           "assert '_function_make' not in names(buf.getvalue())\n"
           "assert pickle.loads(buf.getvalue())(4) == 2.0\n"
           "buf = io.BytesIO()\n"
           "q = cp.Pickler(buf)\n"
           "q.dispatch_table[complex] = lambda c: (complex, (1, 2))\n"
           "q.dump(plain)\n"
           "assert '_function_make' not in names(buf.getvalue())\n");
}

Test(function_make, shared_globals_checked_again_after_clear_memo)
{
    /* the subset kept from a first dump holds a module that a second dump
     * must write by value (registered meanwhile), whose hook function has
     * the same globals: no sharing of a dict still being written */
    cpk_py(PRELUDE
           "import io\n"
           "cfg = types.ModuleType('cfg_fm')\n"
           "sys.modules['cfg_fm'] = cfg\n"
           "cfg.RATE = 2\n"
           "def mk(n):\n"
           "    g = {'__name__': 'plug%d' % n, 'cfg': cfg}\n"
           "    exec('def f():\\n    return cfg.RATE\\n', g)\n"
           "    return g['f']\n"
           "f1, f2, f3 = mk(1), mk(2), mk(3)\n"
           "cfg.hook = f3\n"
           "buf = io.BytesIO()\n"
           "p = cp.Pickler(buf)\n"
           "p.dump(f1)\n"
           "p.clear_memo()\n"
           "cp.register_pickle_by_value(cfg)\n"
           "try:\n"
           "    start = buf.tell()\n"
           "    p.dump(f2)\n"
           "finally:\n"
           "    cp.unregister_pickle_by_value(cfg)\n"
           "g2 = pickle.loads(buf.getvalue()[start:])\n"
           "assert g2() == 2\n"
           "assert g2.__globals__['cfg'].hook() == 2\n");
}

/* The code goes inline, as _code_unmarshal's (python_version, magic,
 * data), where the loader's code cache keeps what it reads: closures of
 * one def still load with one code object. Larger code is written as a
 * code object, memoized once, for the same reason. */
Test(function_make, code_inline_while_the_loader_keeps_it)
{
    cpk_py(PRELUDE
           "def mk(n):\n"
           "    ns = {}\n"
           "    exec('def make(a):\\n'\n"
           "         '    def f():\\n'\n"
           "         '        return a, len(' + repr('x' * n) + ')\\n'\n"
           "         '    return f\\n', ns)\n"
           "    return ns['make']\n"
           "for n, inline in ((10, True), (100_000, False)):\n"
           "    make = mk(n)\n"
           "    fs = [make(i) for i in range(3)]\n"
           "    assert ('_code_unmarshal' not in names(cp.dumps(fs))) == inline\n"
           "    data = cp.dumps(fs + [fs[0].__code__])\n"
           "    assert form(fs[0]) == 'make'\n"
           "    for load in (cp.loads, pickle.loads):\n"
           "        out = load(data)\n"
           "        assert [g() for g in out[:3]] == [(i, n) for i in range(3)]\n"
           "        assert out[0].__code__ is out[1].__code__ is out[2].__code__\n"
           "        assert out[0].__code__ is out[3]\n"
           "    assert cp.dumps(fs) == cp.dumps(fs)\n");
}
