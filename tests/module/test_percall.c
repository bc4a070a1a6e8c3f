/* test_percall.c - the per-call fast paths of dumps() and loads() give
 * what the slow paths give: plain data straight to _pickle.dumps (the same
 * bytes as a new Pickler), the spare Pickler of dumps() reset between calls
 * (no memo, globals sharing or options carried over, nested and threaded
 * calls each get their own), loads(bytes) without argument parsing (signed
 * data still verified), and code read from the same marshal bytes shared
 * by loads (version checks still run, corrupt code never kept). */
#include "support.h"

TestSuite(percall, .init = cpk_py_start, .fini = cpk_py_stop);

/* The bytes of a new Pickler writing to a file: the reference. */
#define BY_PICKLER                                                           \
    "import ccloudpickle as cp, io, pickle\n"                                \
    "def by_pickler(obj, **kw):\n"                                           \
    "    buf = io.BytesIO()\n"                                               \
    "    cp.Pickler(buf, **kw).dump(obj)\n"                                  \
    "    return buf.getvalue()\n"

Test(percall, plain_data_bytes_are_the_picklers)
{
    cpk_py(BY_PICKLER
           "deep = [[[1]]]\n"
           "big = list(range(100))\n"
           "s = 'sp\\u00e9cial'\n"
           "cases = [1, -5, 2**70, 1.5, float('nan'), None, True, False,\n"
           "         'x', s, b'by', (), [], {}, (1, 'a', None),\n"
           "         [s, s, s], {'a': 1, 'b': 2.5, 'c': 'x', 'd': None,\n"
           "         'e': True, 'f': b'by'}, {1: [1, 2], 'k': (3, [4])},\n"
           "         deep, [[[[1]]]], big, {i: i for i in range(40)}]\n"
           "for obj in cases:\n"
           "    for kw in ({}, {'protocol': 2}, {'protocol': 5},\n"
           "               {'protocol': -1}, {'protocol': 0}):\n"
           "        got = cp.dumps(obj, **kw)\n"
           "        assert got == by_pickler(obj, **kw), (obj, kw)\n"
           "        back = pickle.loads(got)\n"
           "        assert back == obj or obj != obj, (obj, back)\n"
           "    assert cp.dumps(obj) == pickle.dumps(obj, 5), obj\n");
}

Test(percall, lookalikes_of_plain_data_take_the_pickler)
{
    /* Subclasses and containers of non-plain objects are not plain: they
     * must reach reducer_override and dispatch tables. */
    cpk_py(BY_PICKLER
           "import enum, collections\n"
           "class Color(enum.IntEnum):\n"
           "    RED = 1\n"
           "class S(str):\n"
           "    pass\n"
           "class D(dict):\n"
           "    pass\n"
           "for obj in [Color.RED, S('x'), D(a=1), [Color.RED],\n"
           "            {'k': S('y')}, collections.OrderedDict(a=1),\n"
           "            (lambda: 1,), {'f': len}, [1] * 100]:\n"
           "    got = cp.dumps(obj)\n"
           "    assert got == by_pickler(obj), obj\n"
           "back = cp.loads(cp.dumps([Color.RED]))\n"
           "assert type(back[0]) is Color\n"
           "assert type(cp.loads(cp.dumps({'k': S('y')}))['k']) is S\n"
           "assert cp.loads(cp.dumps((lambda: 7,)))[0]() == 7\n");
}

Test(percall, spare_pickler_carries_nothing_over)
{
    cpk_py(BY_PICKLER
           "y = 3\n"
           "def f(): return y\n"
           "def g(): return y + 1\n"
           /* The same bytes as a new Pickler, on every call, in any order:
            * no memo entry or globals sharing left from the call before. */
           "first = cp.dumps(f)\n"
           "assert first == by_pickler(f)\n"
           "for _ in range(3):\n"
           "    assert cp.dumps(g) == by_pickler(g)\n"
           "    assert cp.dumps(f) == first\n"
           "    assert cp.dumps((f, g)) == by_pickler((f, g))\n"
           "f2, g2 = cp.loads(cp.dumps((f, g)))\n"
           "assert f2.__globals__ is g2.__globals__\n"
           "assert cp.loads(cp.dumps(f)).__globals__ is not "
           "cp.loads(cp.dumps(g)).__globals__\n"
           /* Options of one call do not stick to the next. */
           "assert cp.dumps(f, protocol=2) == by_pickler(f, protocol=2)\n"
           "assert cp.dumps(f) == first\n"
           "assert cp.dumps(f, diagnose=False) == first\n"
           "bufs = []\n"
           "cp.dumps(f, buffer_callback=bufs.append)\n"
           "assert cp.dumps(f) == first\n"
           /* A large pickle (the spare is dropped), then small ones. */
           "big = [lambda i=i: i for i in range(3000)]\n"
           "assert cp.dumps(big) == by_pickler(big)\n"
           "assert [h() for h in cp.loads(cp.dumps(big))[:3]] == [0, 1, 2]\n"
           "assert cp.dumps(f) == first\n");
}

Test(percall, spare_pickler_after_a_failed_dump)
{
    cpk_py(BY_PICKLER
           "import threading\n"
           "y = 3\n"
           "def f(): return y\n"
           "first = cp.dumps(f)\n"
           "lock = threading.local()\n"
           "for _ in range(3):\n"
           "    try:\n"
           "        cp.dumps([f, lock])\n"
           "    except TypeError:\n"
           "        pass\n"
           "    else:\n"
           "        raise AssertionError('a lock pickled')\n"
           "    assert cp.dumps(f) == first\n"
           "    assert cp.loads(cp.dumps(f))() == 3\n");
}

Test(percall, nested_dumps_get_their_own_pickler)
{
    /* A __reduce__ calling dumps() while the outer dumps() runs: the
     * spare is taken, so each call writes its own, whole pickle. */
    cpk_py(BY_PICKLER
           "y = 5\n"
           "def f(): return y\n"
           "class Box:\n"
           "    def __init__(self, inner):\n"
           "        self.inner = inner\n"
           "    def __reduce__(self):\n"
           "        return (cp.loads, (cp.dumps(self.inner),))\n"
           "obj = [f, Box(f), Box([Box(f)]), f]\n"
           "data = cp.dumps(obj)\n"
           "assert data == by_pickler(obj)\n"
           "a, b, c, d = cp.loads(data)\n"
           "assert a is d and a() == b() == c[0]() == 5\n"
           "assert cp.dumps(f) == by_pickler(f)\n");
}

Test(percall, threads_share_no_pickler_state)
{
    /* Threads switch while a dump runs Python code (a __reduce__ that
     * sleeps): every pickle must still be its object's own. */
    cpk_py("import ccloudpickle as cp, threading, time\n"
           "class Slow:\n"
           "    def __init__(self, n):\n"
           "        self.n = n\n"
           "    def __reduce__(self):\n"
           "        time.sleep(0.0005)\n"
           "        return (Slow, (self.n,))\n"
           "errors = []\n"
           "def work(k):\n"
           "    try:\n"
           "        for i in range(150):\n"
           "            fn = (lambda k=k, i=i: (k, i))\n"
           "            obj = [fn, Slow(i), {'k': k}]\n"
           "            fn2, s, d = cp.loads(cp.dumps(obj))\n"
           "            assert fn2() == (k, i) and s.n == i and d == {'k': k}\n"
           "    except BaseException as e:\n"
           "        errors.append(e)\n"
           "ts = [threading.Thread(target=work, args=(k,)) for k in range(4)]\n"
           "[t.start() for t in ts]\n"
           "[t.join() for t in ts]\n"
           "assert not errors, errors\n");
}

Test(percall, loads_fast_path_keeps_every_check)
{
    cpk_py("import ccloudpickle as cp, pickle\n"
           "assert cp.loads(pickle.dumps({'a': [1, 2]}, 5)) == {'a': [1, 2]}\n"
           "assert cp.loads(pickle.dumps(1, 2)) == 1\n"
           "assert cp.loads(bytearray(pickle.dumps(3))) == 3\n");
    /* Signed data given positionally alone is still verified: without
     * a key it is refused. */
    cpk_py_raises("import ccloudpickle as cp\n"
                  "signed = cp.dumps(1, sign_key=b'k' * 32)\n"
                  "cp.loads(signed)\n",
                  "SignatureError", NULL);
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp.loads(b'\\x80\\x05K')\n",
                  "UnpicklingError", NULL);
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp.loads('text')\n",
                  "TypeError", "unicode");
}

Test(percall, loads_share_the_code_of_the_same_bytes)
{
    cpk_py("import ccloudpickle as cp\n"
           "def make(k):\n"
           "    def f(x):\n"
           "        return x * k\n"
           "    return f\n"
           "data = cp.dumps(make(3))\n"
           "f1, f2 = cp.loads(data), cp.loads(data)\n"
           /* One code object, as for two closures of one def; the
            * functions, cells and values stay apart. */
           "assert f1 is not f2 and f1.__code__ is f2.__code__\n"
           "assert f1.__closure__[0] is not f2.__closure__[0]\n"
           "assert f1(2) == f2(2) == 6\n"
           "g = cp.loads(cp.dumps(make(4)))\n"
           "assert g(2) == 8\n"
           "h = cp.loads(cp.dumps(lambda x: x - 1))\n"
           "assert h.__code__ is not f1.__code__ and h(2) == 1\n");
}

Test(percall, code_cache_keeps_the_version_check)
{
    /* A pickle of the same code bytes claiming another bytecode magic is
     * refused, even after those bytes were loaded (and kept). */
    cpk_py_raises("import ccloudpickle as cp, marshal, sys, importlib.util\n"
                  "def f(x):\n"
                  "    return x + 1\n"
                  "cp.loads(cp.dumps(f))\n"
                  "magic = int.from_bytes(importlib.util.MAGIC_NUMBER,"
                  " 'little')\n"
                  "code = marshal.dumps(f.__code__)\n"
                  "cp._code_unmarshal('3.11', magic, code)\n"
                  "cp._code_unmarshal('9.99', magic + 1, code)\n",
                  "UnpicklingError", "9.99");
}

Test(percall, corrupt_code_is_never_kept)
{
    /* The same corrupt bytes are refused on every load. */
    cpk_py("import ccloudpickle as cp, importlib.util\n"
           "magic = int.from_bytes(importlib.util.MAGIC_NUMBER, "
           "'little')\n"
           "for _ in range(3):\n"
           "    try:\n"
           "        cp._code_unmarshal('x', magic, b'\\xe3garbage')\n"
           "    except cp.UnpicklingError as e:\n"
           "        assert 'corrupt' in str(e), e\n"
           "    else:\n"
           "        raise AssertionError('corrupt code loaded')\n");
}

Test(percall, spare_stored_during_a_reset_is_not_lost)
{
    /* Emptying the spare's memo runs __del__ of what only it held, which
     * may make (and keep) a spare of its own: exactly one Pickler stays,
     * none leaks. */
    cpk_py("import ccloudpickle as cp, gc\n"
           "class Tmp:\n"
           "    def __del__(self):\n"
           "        cp.dumps(lambda: 1)\n"
           "class Holder:\n"
           "    def __reduce__(self):\n"
           "        return (tuple, ((Tmp(),),))\n"
           "def picklers():\n"
           "    gc.collect()\n"
           "    return sum(type(o) is cp.Pickler for o in gc.get_objects())\n"
           "cp.dumps(lambda: 0)\n"
           "for _ in range(200):\n"
           "    cp.dumps(Holder())\n"
           "assert picklers() == 1, picklers()\n"
           /* A large pickle's Pickler is not kept (its memo table). */
           "cp.dumps([lambda: 0] + [[] for _ in range(20000)])\n"
           "assert picklers() == 0, picklers()\n"
           "cp.dumps(lambda: 0)\n"
           "assert picklers() == 1, picklers()\n");
}

Test(percall, class_changes_reach_every_dumps)
{
    /* CPython reads persistent_id and dispatch_table in __init__: set on
     * the class after the first dumps(), they must still apply, to plain
     * data too, as they do for a new Pickler. */
    cpk_py(BY_PICKLER
           "def f(): return 1\n"
           "cp.dumps(f); cp.dumps(1)\n"
           "cp.Pickler.persistent_id = lambda self, obj: "
           "'PID' if obj == 7 else None\n"
           "try:\n"
           "    for obj in (7, [7, 8], f, (f, 7)):\n"
           "        assert cp.dumps(obj) == by_pickler(obj), obj\n"
           "    assert b'PID' in cp.dumps(7) and b'PID' in cp.dumps((f, 7))\n"
           "finally:\n"
           "    del cp.Pickler.persistent_id\n"
           "assert b'PID' not in cp.dumps(7)\n"
           "assert cp.dumps((f, 7)) == by_pickler((f, 7))\n");
}

Test(percall, spare_serves_protocol_5_and_minus_1)
{
    /* Engines pass protocol=pickle.HIGHEST_PROTOCOL: the same Pickler as
     * the default, so the same spare; other protocols make their own. */
    cpk_py(BY_PICKLER
           "import gc\n"
           "def picklers():\n"
           "    gc.collect()\n"
           "    return [o for o in gc.get_objects() if type(o) is cp.Pickler]\n"
           "def f(): return 1\n"
           "first = cp.dumps(f)\n"
           "spare = picklers()\n"
           "assert len(spare) == 1\n"
           "for proto in (5, -1, None):\n"
           "    assert cp.dumps(f, protocol=proto) == first\n"
           "    assert picklers() == spare, proto\n"
           "del spare\n"
           "assert cp.dumps(f, protocol=4) == by_pickler(f, protocol=4)\n"
           "assert cp.dumps(f, protocol=2**80 - 2**80 + 5) == first\n");
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp.dumps(lambda: 1, protocol=2**80)\n",
                  "OverflowError", NULL);
}

/* Our reconstructors go by name, as CPython's own path writes them (the
 * pickler skips __reduce_ex__ for them); a dispatch_table the user set
 * for builtin functions still wins. */
Test(percall, reconstructors_by_name_as_cpython_writes_them)
{
    cpk_py("import ccloudpickle as cp, io, pickle, types\n"
           "for f in (cp._function_new, cp._function_make, cp.subimport,\n"
           "          cp._code_unmarshal, cp._function_fill):\n"
           "    for proto in (2, 4, 5):\n"
           "        assert cp.dumps(f, protocol=proto) == "
           "pickle.dumps(f, proto), f\n"
           "    assert cp.loads(cp.dumps(f)) is f\n"
           "class P(cp.Pickler):\n"
           "    dispatch_table = {types.BuiltinFunctionType:\n"
           "                      lambda f: (str, ('by the table',))}\n"
           "buf = io.BytesIO()\n"
           "P(buf).dump(cp.subimport)\n"
           "assert pickle.loads(buf.getvalue()) == 'by the table'\n"
           /* a name the pickle already holds as an equal str: written
            * again, as CPython's own path writes it */
           "obj = ['subimport', cp.subimport, '_function_make']\n"
           "assert cp.dumps(obj) == pickle.dumps(obj, 5)\n"
           /* copyreg's table, consulted by CPython after our reducer */
           "import copyreg\n"
           "copyreg.dispatch_table[types.BuiltinFunctionType] = (\n"
           "    lambda f: (str, ('by copyreg',)))\n"
           "try:\n"
           "    assert cp.loads(cp.dumps(cp.subimport)) == 'by copyreg'\n"
           "finally:\n"
           "    del copyreg.dispatch_table[types.BuiltinFunctionType]\n");
}

/* subimport of a module already imported takes it from sys.modules
 * without the import machinery; one another thread is still importing
 * (its spec says _initializing), or one not imported yet, goes through
 * __import__ as before. */
Test(percall, subimport_skips_the_import_only_when_done)
{
    cpk_py("import builtins, ccloudpickle as cp, math, sys, types\n"
           "calls = []\n"
           "real = builtins.__import__\n"
           "def hook(name, *a, **k):\n"
           "    calls.append(name)\n"
           "    return real(name, *a, **k)\n"
           "builtins.__import__ = hook\n"
           "try:\n"
           "    assert cp.subimport('math') is math and calls == [], calls\n"
           "    m = types.ModuleType('halfway')\n"
           "    m.__spec__ = types.SimpleNamespace(name='halfway',\n"
           "                                       _initializing=True)\n"
           "    sys.modules['halfway'] = m\n"
           "    assert cp.subimport('halfway') is m\n"
           "    assert calls == ['halfway'], calls\n"
           "    m.__spec__._initializing = False\n"
           "    assert cp.subimport('halfway') is m and len(calls) == 1\n"
           "    sys.modules.pop('colorsys', None)\n"
           "    c = cp.subimport('colorsys')\n"
           "    assert c is sys.modules['colorsys'] and calls[1] == "
           "'colorsys'\n"
           "    sys.modules['notamodule'] = 42\n"
           "    assert cp.subimport('notamodule') == 42\n"
           "    assert calls[-1] == 'notamodule'\n"
           "    try:\n"
           "        cp.subimport('no_such_module_here')\n"
           "        raise AssertionError('imported nothing')\n"
           "    except ImportError:\n"
           "        pass\n"
           "finally:\n"
           "    builtins.__import__ = real\n");
}

/* Another thread's import in progress: subimport waits for it and returns
 * what sys.modules holds after it (the replacement a module put there, or
 * the import's error), never the object seen before. */
Test(percall, subimport_during_another_threads_import)
{
    char dir[256], path[300];
    cpk_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/selfrepl_pc.py", dir);
    cpk_write_file(path, "import sys, time, types\n"
                         "time.sleep(0.3)\n"
                         "_r = types.ModuleType(__name__)\n"
                         "_r.tag = 'replacement'\n"
                         "sys.modules[__name__] = _r\n");
    snprintf(path, sizeof path, "%s/slowfail_pc.py", dir);
    cpk_write_file(path, "import time\n"
                         "X = 1\n"
                         "time.sleep(0.3)\n"
                         "raise RuntimeError('slowfail_pc fails')\n");
    char code[2048];
    snprintf(code, sizeof code,
             "import ccloudpickle as cp, importlib, sys, threading, time\n"
             "sys.path.insert(0, %s%s%s)\n"
             "def importer(name, out):\n"
             "    try:\n"
             "        importlib.import_module(name)\n"
             "    except RuntimeError as e:\n"
             "        out.append(e)\n"
             "def race(name):\n"
             "    out = []\n"
             "    t = threading.Thread(target=importer, args=(name, out))\n"
             "    t.start()\n"
             "    while name not in sys.modules:\n"
             "        time.sleep(0.005)\n"
             "    try:\n"
             "        got = cp.subimport(name)\n"
             "    except BaseException as e:\n"
             "        got = e\n"
             "    t.join()\n"
             "    return got\n"
             "got = race('selfrepl_pc')\n"
             "assert getattr(got, 'tag', None) == 'replacement', got\n"
             "got = race('slowfail_pc')\n"
             "assert isinstance(got, (ImportError, KeyError, RuntimeError))"
             ", got\n",
             "'", dir, "'");
    cpk_py(code);
}
