/* test_function_modules.c - the modules among a task function's globals
 * go by name in _function_make's fifth argument, (name, module name, ...)
 * pairs the loader imports as subimport does, instead of a subimport call
 * each. What is written, what loads (ours and plain pickle), what the
 * reconstructor refuses, and what the import policy sees: every module
 * named there is an import, and names it cannot read make the pickle
 * dangerous, as subimport's do. */
#include "support.h"

TestSuite(function_modules, .init = cpk_py_start, .fini = cpk_py_stop);

/* made(data): the argument tuples of each _function_make call of a pickle
 * (an Unpickler whose _function_make returns them). */
#define PRELUDE                                                              \
    "import ccloudpickle as cp, io, pickle, pickletools, sys, types\n"       \
    "class Rec(pickle.Unpickler):\n"                                         \
    "    def find_class(self, m, n):\n"                                      \
    "        if n == '_function_make':\n"                                    \
    "            return lambda *a: ('made', a)\n"                            \
    "        return super().find_class(m, n)\n"                              \
    "def made(data):\n"                                                      \
    "    out = []\n"                                                         \
    "    def walk(o):\n"                                                     \
    "        if isinstance(o, tuple) and len(o) == 2 and o[0] == 'made':\n"  \
    "            out.append(o[1])\n"                                         \
    "        elif isinstance(o, (list, tuple)):\n"                           \
    "            for x in o: walk(x)\n"                                      \
    "    walk(Rec(io.BytesIO(data)).load())\n"                               \
    "    return out\n"                                                       \
    "def names(data):\n"                                                     \
    "    return {a for op, a, _ in pickletools.genops(data)\n"               \
    "            if op.name in ('SHORT_BINUNICODE', 'BINUNICODE')}\n"

Test(function_modules, modules_go_by_name)
{
    cpk_py(PRELUDE
           "import math, math as m2\n"
           "import os.path as osp\n"
           "import collections.abc as cabc\n"
           "SCALE = 2\n"
           "def f(x):\n"
           "    return (math.floor(x) + len(osp.join('a', 'b')) + m2.ceil(x)\n"
           "            + isinstance(x, cabc.Hashable) + SCALE)\n"
           "data = cp.dumps(f)\n"
           "assert 'subimport' not in names(data), names(data)\n"
           "(a,) = made(data)\n"
           "assert len(a) == 5, a\n"
           "pairs = sorted(zip(a[4][::2], a[4][1::2]))\n"
           "assert pairs == [('cabc', 'collections.abc'), ('m2', 'math'),\n"
           "                 ('math', 'math'), ('osp', osp.__name__)], pairs\n"
           "assert a[3]['__globals__'] == {'SCALE': 2}, a[3]\n"
           "for load in (cp.loads, pickle.loads):\n"
           "    g = load(data)\n"
           "    assert g is not f and g(2.5) == f(2.5)\n"
           "    for k in ('math', 'm2', 'osp', 'cabc'):\n"
           "        assert g.__globals__[k] is f.__globals__[k], k\n"
           /* only modules among the globals: no __globals__ key left */
           "def h(x):\n"
           "    return math.floor(x)\n"
           "(a,) = made(cp.dumps(h))\n"
           "assert a[4] == ('math', 'math') and '__globals__' not in a[3]\n"
           "assert cp.loads(cp.dumps(h))(2.5) == 2\n"
           /* recursion through the globals: the split form, whose
            * globals keep the module */
           "def rec(n):\n"
           "    return rec(n - 1) if n else math.floor(2.5)\n"
           "data = cp.dumps(rec)\n"
           "assert '_function_make' not in names(data) and not made(data)\n"
           "assert cp.loads(data)(3) == 2 and pickle.loads(data)(2) == 2\n"
           /* leaf globals, a closure leading back: the split form
            * still, its globals with the module */
           "def outer():\n"
           "    def inner(n):\n"
           "        return math.floor(n) + len(helpers)\n"
           "    helpers = [inner]\n"
           "    return inner\n"
           "data = cp.dumps(outer())\n"
           "assert '_function_make' not in names(data) and not made(data)\n"
           "assert cp.loads(data)(2.5) == 3 and pickle.loads(data)(2.5) == 3\n"
           /* no module: four arguments, as before */
           "def k(x):\n"
           "    return x + SCALE\n"
           "(a,) = made(cp.dumps(k))\n"
           "assert len(a) == 4, a\n");
}

/* Closures of one def share one pairs tuple and one globals dict through
 * the memo; the pickle of 200 closures stays small. */
Test(function_modules, closures_of_one_def_share_them)
{
    cpk_py(PRELUDE
           "import math\n"
           "SCALE = 3\n"
           "def make(a):\n"
           "    def t(x):\n"
           "        return math.floor(x + a) * SCALE\n"
           "    return t\n"
           "fs = [make(i) for i in range(200)]\n"
           "data = cp.dumps(fs)\n"
           "args = made(data)\n"
           "assert len(args) == 200\n"
           "assert len({id(a[4]) for a in args}) == 1\n"
           "assert len({id(a[3]['__globals__']) for a in args}) == 1\n"
           "assert len(data) < 200 * 40, len(data)\n"
           "gs = cp.loads(data)\n"
           "assert [g(1.5) for g in gs] == [f(1.5) for f in fs]\n"
           "assert gs[0].__globals__ is gs[199].__globals__\n"
           /* a second def in the same dump gets its own pairs */
           "import os\n"
           "def other():\n"
           "    return os.sep\n"
           "args = made(cp.dumps([fs[0], other, fs[1]]))\n"
           "assert [a[4] for a in args] == [('math', 'math'), ('os', 'os'),\n"
           "                                ('math', 'math')], args\n");
}

/* What does not go by name keeps its old form: a module registered by
 * value, a dynamic module; a module not imported yet when the pickle
 * loads is imported then. */
Test(function_modules, by_value_and_not_yet_imported)
{
    cpk_py(PRELUDE
           "dyn = types.ModuleType('dyn_fm')\n"
           "dyn.V = 7\n"
           "def d():\n"
           "    return dyn.V\n"
           "data = cp.dumps(d)\n"
           "assert all(len(a) == 4 for a in made(data))\n"
           "assert cp.loads(data)() == 7\n"
           "import colorsys\n"
           "def c():\n"
           "    return colorsys.rgb_to_hsv(1, 0, 0)\n"
           "data = cp.dumps(c)\n"
           "del sys.modules['colorsys']\n"
           "g = cp.loads(data)\n"
           "assert 'colorsys' in sys.modules\n"
           "assert g.__globals__['colorsys'] is sys.modules['colorsys']\n"
           "assert g() == (0.0, 1.0, 1.0)\n");
}

/* The reconstructor checks the whole argument before it imports, and
 * refuses an imported module's namespace as globals before it sets
 * anything there. */
Test(function_modules, reconstructor_refuses_bad_modules)
{
    cpk_py(PRELUDE
           "import math, json\n"
           "def z(x=1):\n"
           "    return x\n"
           "(a,) = made(cp.dumps(z))\n"
           "code = a[0]\n"
           "F = cp._function_make\n"
           "def err(exc, *args):\n"
           "    sys.modules.pop('colorsys', None)\n"
           "    try:\n"
           "        F(*args)\n"
           "    except exc as e:\n"
           "        assert 'colorsys' not in sys.modules, args\n"
           "        return str(e)\n"
           "    raise AssertionError(args)\n"
           "def base():\n"
           "    return {'__name__': 'x'}\n"
           "m = err(cp.ReconstructorValueError, code, base(), None, {},\n"
           "        ('colorsys', 'colorsys', 'm'))\n"
           "assert 'argument 5 (modules)' in m and 'pairs' in m, m\n"
           "m = err(cp.ReconstructorTypeError, code, base(), None, {},\n"
           "        ('m', 'colorsys', 'n', 1))\n"
           "assert 'item 3 must be str, not int' in m, m\n"
           "class S(str):\n"
           "    def __hash__(self):\n"
           "        raise AssertionError('ran')\n"
           "m = err(cp.ReconstructorTypeError, code, base(), None, {},\n"
           "        ('m', 'colorsys', S('n'), 'math'))\n"
           "assert 'item 2 must be str' in m, m\n"
           "m = err(cp.ReconstructorTypeError, code, base(), None, {},\n"
           "        ['m', 'colorsys'])\n"
           "assert 'must be tuple, not list' in m, m\n"
           "err(cp.ReconstructorTypeError, code, base(), None, {}, (), ())\n"
           "err(ModuleNotFoundError, code, base(), None, {},\n"
           "    ('m', 'no_such_module_fm'))\n"
           "err(cp.UnpicklingError, code, vars(json), None, {},\n"
           "    ('planted', 'colorsys'))\n"
           "assert 'planted' not in vars(json)\n"
           "g = F(code, base(), None, {}, ('mm', 'math', 'm2', 'math'))\n"
           "assert g.__globals__['mm'] is math is g.__globals__['m2']\n"
           "assert g(5) == 5\n");
}

/* The scan lists each module of the argument as an import, so the policy
 * judges it as it judges subimport's; an argument it cannot read (a name
 * computed at load, a list, an odd count, more arguments) makes the
 * reconstructor a dangerous name, refused under every policy before
 * anything is imported. */
Test(function_modules, policy_sees_the_modules)
{
    cpk_py("import ccloudpickle as cp, struct, marshal, sys, importlib.util\n"
           "def s(x):\n"
           "    b = x.encode()\n"
           "    return b'X' + struct.pack('<I', len(b)) + b\n"
           "def g(m, n): return s(m) + s(n) + b'\\x93'\n"
           "def i(n): return b'J' + struct.pack('<i', n)\n"
           "ns = {}\n"
           "exec('def f():\\n    return c\\n', ns)\n"
           "blob = marshal.dumps(ns['f'].__code__)\n"
           "ver = '%d.%d' % sys.version_info[:2]\n"
           "magic = int.from_bytes(importlib.util.MAGIC_NUMBER, 'little')\n"
           "CODE = (s(ver) + i(magic) + b'B' + struct.pack('<I', len(blob))\n"
           "        + blob + b'\\x87')\n"
           "def make(mods):\n"
           "    return (b'\\x80\\x04' + g('ccloudpickle', '_function_make') +\n"
           "            b'(' + CODE + b'}' + s('__name__') + s('t') + b's' +\n"
           "            b'N' + b'}' + mods + b't' + b'R' + b'.')\n"
           "def load(data, **kw):\n"
           "    sys.modules.pop('colorsys', None)\n"
           "    try:\n"
           "        f = cp.loads(data, **kw)\n"
           "    except cp.PolicyError as e:\n"
           "        assert 'colorsys' not in sys.modules, kw\n"
           "        return str(e)\n"
           "    return f()\n"
           "C = s('colorsys')\n"
           "ok = make(b'(' + s('c') + C + b't')\n"
           "for kw in ({'allow': ['colorsys']}, {'deny': ['os']}):\n"
           "    assert load(ok, **kw) is sys.modules['colorsys'], kw\n"
           "for kw in ({'allow': []}, {'allow': ['math']},\n"
           "           {'deny': ['colorsys']}):\n"
           "    m = load(ok, **kw)\n"
           "    assert 'refuses 1 import: colorsys' in m, (kw, m)\n"
           "bad = {\n"
           "    'computed': b'(' + s('c') + g('builtins', 'str') + C +\n"
           "                b'\\x85' + b'R' + b't',\n"
           "    'odd': b'(' + s('c') + C + s('d') + b't',\n"
           "    'list': b'(' + s('c') + C + b'l',\n"
           "    'int': b'(' + s('c') + i(3) + b't',\n"
           "    'six': b'(' + s('c') + C + b't' + b')',\n"
           "}\n"
           /* 'os\\0' imports os under a name no rule names: refused */
           "nul = make(b'(' + s('c') + s('os\\x00') + b't')\n"
           "for kw in ({'deny': ['os']}, {'deny': ['subprocess']}):\n"
           "    m = load(nul, **kw)\n"
           "    assert isinstance(m, str) and 'os' in m, (kw, m)\n"
           "for what, mods in bad.items():\n"
           "    for kw in ({'allow': ['colorsys', 'builtins']},\n"
           "               {'deny': ['os']}):\n"
           "        m = load(make(mods), **kw)\n"
           "        assert 'ccloudpickle._function_make' in m, (what, kw, m)\n"
           /* a real dump with modules passes the strictest policy that
            * allows them, and stays deterministic */
           "import math\n"
           "def task(x):\n"
           "    return math.floor(x)\n"
           "data = cp.dumps(task)\n"
           "assert data == cp.dumps(task)\n"
           "assert cp.loads(data, allow=['math'])(2.5) == 2\n");
}

/* Review i11e: a module name holding a NUL ('os\0') imported the frozen
 * os under a name no deny rule matched. The scan calls such a name
 * dangerous, and the loader refuses it, in subimport too. */
Test(function_modules, nul_in_a_module_name)
{
    cpk_py("import ccloudpickle as cp, struct, sys\n"
           "def s(x):\n"
           "    b = x.encode()\n"
           "    return b'\\x8c' + bytes([len(b)]) + b\n"
           "sub = (b'\\x80\\x04' + s('ccloudpickle') + s('subimport') +\n"
           "       b'\\x93' + s('os\\x00') + b'\\x85R.')\n"
           "for kw in ({'deny': ['os']}, {'deny': ['subprocess']}):\n"
           "    try:\n"
           "        cp.loads(sub, **kw)\n"
           "    except cp.PolicyError as e:\n"
           "        assert 'os' in str(e), str(e)\n"
           "    else:\n"
           "        raise AssertionError(kw)\n"
           "try:\n"
           "    cp.loads(sub)\n"
           "except cp.ReconstructorValueError as e:\n"
           "    assert 'holds a NUL character' in str(e), str(e)\n"
           "else:\n"
           "    raise AssertionError('loaded')\n"
           "def code_of(f):\n"
           "    import io, pickle\n"
           "    class R(pickle.Unpickler):\n"
           "        def find_class(self, m, n):\n"
           "            if n == '_function_make':\n"
           "                return lambda *a: a\n"
           "            return super().find_class(m, n)\n"
           "    return R(io.BytesIO(cp.dumps(f))).load()[0]\n"
           "def z(x=1):\n"
           "    return x\n"
           "try:\n"
           "    cp._function_make(code_of(z), {'__name__': 'x'}, None, {},\n"
           "                      ('o', 'os\\x00'))\n"
           "except cp.ReconstructorValueError as e:\n"
           "    assert 'holds a NUL character' in str(e), str(e)\n"
           "else:\n"
           "    raise AssertionError('made')\n");
}

/* Review i11e: a persistent_id however CPython got it (a subclass's
 * method; before 3.13 also a subclass's __getattr__, CPython's own
 * descriptor, an assignment) keeps the module objects in the hook's
 * sight: the split form, not _function_make. */
Test(function_modules, any_persistent_id_sees_the_modules)
{
    cpk_py(PRELUDE
           "import math, _pickle\n"
           "def task(x):\n"
           "    return math.floor(x)\n"
           "seen = []\n"
           "def pid(obj):\n"
           "    seen.append(obj)\n"
           "    return None\n"
           "class ViaGetattr(cp.Pickler):\n"
           "    def __getattr__(self, name):\n"
           "        if name == 'persistent_id':\n"
           "            return pid\n"
           "        raise AttributeError(name)\n"
           /* 3.13 looks persistent_id up as a method, which the class
            * has: __getattr__ is never asked there */
           "class Sub(cp.Pickler):\n"
           "    def persistent_id(self, obj):\n"
           "        return pid(obj)\n"
           "ways = [Sub]\n"
           "if sys.version_info < (3, 13):\n"
           "    ways.append(lambda b: ViaGetattr(b))\n"
           "    def via_descriptor(b):\n"
           "        p = cp.Pickler(b)\n"
           "        _pickle.Pickler.persistent_id.__set__(p, pid)\n"
           "        return p\n"
           "    def via_attribute(b):\n"
           "        p = cp.Pickler(b)\n"
           "        p.persistent_id = pid\n"
           "        return p\n"
           "    ways += [via_descriptor, via_attribute]\n"
           "for make in ways:\n"
           "    del seen[:]\n"
           "    buf = io.BytesIO()\n"
           "    make(buf).dump(task)\n"
           "    assert any(o is math for o in seen), make\n"
           "    assert '_function_make' not in names(buf.getvalue()), make\n"
           "    assert pickle.loads(buf.getvalue())(2.5) == 2\n");
}

/* Review i11e: the retry of a dump too deep for the recursion limit
 * starts from an empty memo and no shared globals: the same bytes as the
 * dump that needed no retry. */
Test(function_modules, deep_retry_writes_the_same_bytes)
{
    cpk_py("import ccloudpickle as cp, sys, math, os\n"
           "x, y = 1, 2\n"
           "def f_a():\n"
           "    return (math, os, x, y)\n"
           "def f_b():\n"
           "    return (os,)\n"
           "def f_z():\n"
           "    return (y, x, os, math)\n"
           "def deep(n):\n"
           "    d = None\n"
           "    for _ in range(n):\n"
           "        d = [d]\n"
           "    return d\n"
           "obj = [f_a, f_b, f_z, deep(3000)]\n"
           "old = sys.getrecursionlimit()\n"
           "b1 = cp.dumps(obj)\n"
           "sys.setrecursionlimit(100000)\n"
           "try:\n"
           "    b2 = cp.dumps(obj)\n"
           "finally:\n"
           "    sys.setrecursionlimit(old)\n"
           "assert b1 == b2, (len(b1), len(b2))\n");
}
