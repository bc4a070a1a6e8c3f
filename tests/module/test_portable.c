/* test_portable.c - dumps(portable=True) within one CPython (the default
 * build only: tests/portable/matrix.py, run by make check-pythons, loads
 * across versions). Same object, same bytes; under the same bytecode magic
 * the bytecode is loaded, not the source compiled (the file edited after
 * the dump changes nothing); the source path, forced by calling
 * _code_portable with another magic, compiles to the same code; an edited
 * file, exec'd code and a missing file are not portable and fail with the
 * message naming both versions and the function; hostile _code_portable
 * arguments raise, never crash; portable=True with compat= is refused. */
#include "support.h"

#include <string.h>

TestSuite(portable, .init = cpk_py_start, .fini = cpk_py_stop);

#define DEFAULT_BUILD_ONLY()                                                 \
    do {                                                                     \
        if (strcmp(CPK_PYTHON, "/usr/bin/python3") != 0)                     \
            cr_skip_test("default build only (matrix.py loads across "       \
                         "versions)");                                       \
    } while (0)

/* sources(data): what each _code_portable of a pickle carries ('tuple' or
 * the non-portable str). other(data): load it as another CPython would,
 * every _code_portable called with another magic and version "3.0.0". */
#define HELPERS                                                              \
    "import sys, io, os, pickle, importlib, linecache, tempfile\n"          \
    "import ccloudpickle as cp\n"                                           \
    "sys.path.insert(0, '" CPK_SOURCE_DIR "/tests/portable')\n"             \
    "def _spy(data, fake):\n"                                               \
    "    seen = []\n"                                                       \
    "    def spy(version, magic, code, source):\n"                          \
    "        seen.append('tuple' if type(source) is tuple else source)\n"   \
    "        if fake:\n"                                                    \
    "            version, magic = '3.0.0', magic + 1\n"                     \
    "        return cp._code_portable(version, magic, code, source)\n"      \
    "    class U(pickle.Unpickler):\n"                                      \
    "        def find_class(self, module, name):\n"                         \
    "            if name == '_code_portable':\n"                            \
    "                return spy\n"                                          \
    "            return super().find_class(module, name)\n"                 \
    "    return U(io.BytesIO(data)).load(), seen\n"                         \
    "def sources(data):\n"                                                  \
    "    return _spy(data, False)[1]\n"                                     \
    "def other(data):\n"                                                    \
    "    return _spy(data, True)[0]\n"                                      \
    "def module(text, name):\n"                                             \
    "    d = tempfile.mkdtemp()\n"                                          \
    "    path = os.path.join(d, name + '.py')\n"                            \
    "    with open(path, 'w') as f:\n"                                      \
    "        f.write(text)\n"                                               \
    "    sys.path.insert(0, d)\n"                                           \
    "    m = importlib.import_module(name)\n"                               \
    "    cp.register_pickle_by_value(m)\n"                                  \
    "    return m, path\n"                                                  \
    "def rewrite(path, text):\n"                                            \
    "    with open(path, 'w') as f:\n"                                      \
    "        f.write(text)\n"                                               \
    "    linecache.checkcache(path)\n"                                      \
    "import fixture_mod, fixture_match\n"                                   \
    "cp.register_pickle_by_value(fixture_mod)\n"                            \
    "cp.register_pickle_by_value(fixture_match)\n"                          \
    "M = fixture_mod\n"

Test(portable, same_object_same_bytes)
{
    DEFAULT_BUILD_ONLY();
    cpk_py(HELPERS
           "objs = [M.top, M.sq, M.make_adder(3), M.Child, M.comps,\n"
           "        M.counter_factory(1), M.outer_class(),\n"
           "        fixture_match.matcher]\n"
           "for o in objs:\n"
           "    a = cp.dumps(o, portable=True)\n"
           "    assert a == cp.dumps(o, portable=True), o\n"
           "    assert set(sources(a)) == {'tuple'}, (o, sources(a))\n");
    /* Two processes (each its own hash seed): the same bytes for
     * functions (a class by value carries a random tracker id). */
    const char *code =
        "import sys, hashlib\n"
        "sys.path.insert(0, '" CPK_SOURCE_DIR "/tests/portable')\n"
        "import ccloudpickle as cp, fixture_mod as M\n"
        "cp.register_pickle_by_value(M)\n"
        "d = cp.dumps([M.top, M.sq, M.make_adder(2), M.comps],\n"
        "             portable=True)\n"
        "print(hashlib.sha256(d).hexdigest())\n";
    cpk_proc a, b;
    cpk_python(&a, code, NULL, 0);
    cpk_python(&b, code, NULL, 0);
    cpk_assert_exit(&a, 0);
    cpk_assert_exit(&b, 0);
    cr_assert_str_eq(a.out, b.out);
    cpk_proc_free(&a);
    cpk_proc_free(&b);
}

Test(portable, plain_data_and_references_unchanged)
{
    DEFAULT_BUILD_ONLY();
    cpk_py(HELPERS
           "import os.path, collections, datetime\n"
           "for o in [{'a': [1, 2.5, None]}, (b'x', {3}), os.path.join,\n"
           "          collections.OrderedDict(a=1), datetime.date(2026, 1, 2),\n"
           "          len, dict]:\n"
           "    assert cp.dumps(o, portable=True) == cp.dumps(o), o\n");
}

/* The file edited after the dump: the same CPython still loads the
 * bytecode (no compile: the new text would give x + 2). */
Test(portable, same_magic_loads_bytecode)
{
    DEFAULT_BUILD_ONLY();
    cpk_py(HELPERS
           "m, path = module('def f(x):\\n    return x + 1\\n', 'cpk_pt_bc')\n"
           "DATA = cp.dumps(m.f, portable=True)\n"
           "assert sources(DATA) == ['tuple'], sources(DATA)\n"
           "rewrite(path, 'def f(x):\\n    return x + 2\\n')\n"
           "assert cp.loads(DATA)(1) == 2\n");
    cpk_fresh("DATA", "assert obj(1) == 2, obj(1)\n");
    /* Forced onto the source path, the shipped (original) text is what
     * compiles: still x + 1. */
    cpk_py("assert other(DATA)(1) == 2\n");
}

/* The source path compiles the same code as the running one. */
Test(portable, source_path_compiles_the_same_code)
{
    DEFAULT_BUILD_ONLY();
    cpk_py(HELPERS
           "import asyncio, types\n"
           "def codes(c):\n"
           "    yield c\n"
           "    for k in c.co_consts:\n"
           "        if isinstance(k, types.CodeType):\n"
           "            yield from codes(k)\n"
           "def same(f, g):\n"
           "    a, b = list(codes(f.__code__)), list(codes(g.__code__))\n"
           "    assert len(a) == len(b)\n"
           "    for x, y in zip(a, b):\n"
           "        assert x.co_code == y.co_code, (x, y)\n"
           "        assert x.co_firstlineno == y.co_firstlineno, (x, y)\n"
           "        assert x.co_filename == y.co_filename, (x, y)\n"
           "        assert x.co_qualname == y.co_qualname, (x, y)\n"
           "fns = [M.top, M.sq, M.cube, M.make_adder(4), M.fact, M.gen,\n"
           "       M.coro, M.fmt, M.comps, M.in_if, M.kwonly,\n"
           "       M.counter_factory(1)(2), fixture_match.matcher,\n"
           "       M.Child.hello, M.Child.__dict__['v'].fget,\n"
           "       M.outer_class().hello]\n"
           "for f in fns:\n"
           "    data = cp.dumps(f, portable=True)\n"
           "    assert 'tuple' in sources(data), f\n"
           "    g = other(data)\n"
           "    same(f, g)\n"
           "    assert g.__qualname__ == f.__qualname__\n"
           "# For a loader before 3.11 (no co_qualname): in the state.\n"
           "assert b'__qualname__' in cp.dumps(M.make_adder(4),\n"
           "                                   portable=True)\n"
           "assert b'__qualname__' not in cp.dumps(M.make_adder(4))\n"
           "g = other(cp.dumps(M.make_adder(4), portable=True))\n"
           "assert g(1) == 5\n"
           "C = other(cp.dumps(M.Child, portable=True))\n"
           "assert C().hello() == 'child+base5' and C.make(2).v == 2\n"
           "co = other(cp.dumps(M.coro, portable=True))\n"
           "assert asyncio.run(co(3)) == 3\n"
           "m = other(cp.dumps(fixture_match.matcher, portable=True))\n"
           "assert m([1, 2]) == 3 and m('a') == 'A'\n");
}

/* Edited file, exec'd code, missing file: not portable, said why; the
 * same magic loads them, another fails naming both versions and the
 * function. */
Test(portable, not_portable_sources)
{
    DEFAULT_BUILD_ONLY();
    cpk_py(HELPERS
           "me = '%d.%d' % sys.version_info[:2]\n"
           "def check(f, arg, want, why):\n"
           "    data = cp.dumps(f, portable=True)\n"
           "    s = sources(data)\n"
           "    assert len(s) == 1 and s[0] != 'tuple', s\n"
           "    assert f.__qualname__ in s[0] and why in s[0], s[0]\n"
           "    assert cp.loads(data)(arg) == want\n"
           "    try:\n"
           "        other(data)\n"
           "    except cp.UnpicklingError as e:\n"
           "        msg = str(e)\n"
           "    else:\n"
           "        raise AssertionError('loaded')\n"
           "    for word in ('3.0.0', me, f.__qualname__, why):\n"
           "        assert word in msg, (word, msg)\n"
           "m, path = module('def edited(x):\\n    return x + 1\\n',\n"
           "                 'cpk_pt_edit')\n"
           "rewrite(path, 'def edited(x):\\n    return x * 5\\n')\n"
           "check(m.edited, 2, 3, 'does not compile to the running code')\n"
           "m, path = module('def shifted(x):\\n    return -x\\n',\n"
           "                 'cpk_pt_shift')\n"
           "rewrite(path, '\\ndef shifted(x):\\n    return -x\\n')\n"
           "check(m.shifted, 2, -2, 'is not at')\n"
           "ns = {'__name__': 'cpk_pt_exec'}\n"
           "exec(compile('def run(x):\\n    return x * 3\\n', '<exec>',\n"
           "             'exec'), ns)\n"
           "check(ns['run'], 2, 6, 'no source file (<exec>)')\n"
           "# A pseudo-file whose text is in linecache (IPython's cells):\n"
           "# portable once proven; another text there is not.\n"
           "cell = 'def cell(x):\\n    return x * 7\\n'\n"
           "for text, ok in ((cell, True), (cell.replace('7', '8'), False)):\n"
           "    ns = {'__name__': 'cpk_pt_cell'}\n"
           "    exec(compile(cell, '<cell-1>', 'exec'), ns)\n"
           "    linecache.cache['<cell-1>'] = (len(text), None,\n"
           "                                  text.splitlines(True), '<cell-1>')\n"
           "    data = cp.dumps(ns['cell'], portable=True)\n"
           "    assert (sources(data) == ['tuple']) == ok, sources(data)\n"
           "    if ok:\n"
           "        assert other(data)(2) == 14\n"
           "    del linecache.cache['<cell-1>']\n"
           "m, path = module('def gone(x):\\n    return x - 1\\n',\n"
           "                 'cpk_pt_gone')\n"
           "os.remove(path)\n"
           "linecache.checkcache(path)\n"
           "check(m.gone, 2, 1, 'cannot be read')\n");
}

/* _code_portable is a reconstructor: every malformed argument raises one
 * of its errors. */
Test(portable, hostile_arguments)
{
    DEFAULT_BUILD_ONLY();
    cpk_py(HELPERS
           "import importlib.util, marshal\n"
           "OK = (cp.ReconstructorTypeError, cp.ReconstructorValueError,\n"
           "      cp.UnpicklingError)\n"
           "ver = '%d.%d.%d' % sys.version_info[:3]\n"
           "magic = int.from_bytes(importlib.util.MAGIC_NUMBER[:2],\n"
           "                       'little') | 0x0a0d0000\n"
           "data = marshal.dumps(M.top.__code__)\n"
           "good = ('def f(x):\\n    return x\\n', 'm.py', 'f', 1, 0, 0)\n"
           "def bad(*a):\n"
           "    try:\n"
           "        cp._code_portable(*a)\n"
           "    except OK:\n"
           "        return\n"
           "    raise AssertionError('accepted: %r' % (a,))\n"
           "def other_ok(src):\n"
           "    return cp._code_portable('3.0.0', 1, data, src)\n"
           "assert other_ok(good).co_name == 'f'\n"
           "bad()\n"
           "bad(ver, magic, data)\n"
           "bad(ver, magic, data, good, 1)\n"
           "bad(1, magic, data, good)\n"
           "bad(ver, 'x', data, good)\n"
           "bad(ver, magic, 'data', good)\n"
           "bad(ver, magic, b'\\x00garbage', good)\n"
           "for src in (None, 1, b'x', ['a'], {'a': 1}, good[:5], good + (0,),\n"
           "            list(good), (b'def f(): pass',) + good[1:],\n"
           "            good[:1] + (None,) + good[2:],\n"
           "            good[:2] + (1,) + good[3:],\n"
           "            good[:3] + ('1',) + good[4:],\n"
           "            good[:4] + (None, 0), good[:5] + ('0',)):\n"
           "    bad(ver, magic, data, src)\n"
           "    bad('3.0.0', 1, data, src)\n"
           "T = lambda text, name='f', line=1, flags=0, shift=0: (\n"
           "    text, 'm.py', name, line, flags, shift)\n"
           "assert other_ok(T(good[0], line=5, shift=4)).co_firstlineno == 5\n"
           "for src in (T('def f(:\\n'), T('def f(x):\\n  return x\\x00\\n'),\n"
           "            T('x = 1\\n'), T(good[0], 'g'), T(good[0], line=2),\n"
           "            T(good[0], line=-1), T(good[0], line=2 ** 70),\n"
           "            T(good[0], flags=0x400), T(good[0], flags=-1),\n"
           "            T(good[0], flags=2 ** 70), T(good[0], flags=0x2000),\n"
           "            T(good[0], shift=-1), T(good[0], shift=10 ** 7 + 1),\n"
           "            T(good[0], line=2 ** 31 + 1, shift=2 ** 31),\n"
           "            T('(' * 100000 + ')' * 100000),\n"
           "            T('x = ' + '-' * 1000000 + '1\\n'),\n"
           "            T('def f(x):\\n  match x:\\n    case 1 1: pass\\n'),\n"
           "            'f (m.py, line 1): no source'):\n"
           "    bad('3.0.0', 1, data, src)\n"
           "# Under the same magic the source is not compiled, but its shape\n"
           "# is still checked.\n"
           "assert cp._code_portable(ver, magic, data, T('def f(:')) \\\n"
           "    .co_name == 'top'\n"
           "# Through loads: an UnpicklingError (or a reconstructor's).\n"
           "class R:\n"
           "    def __init__(self, src):\n"
           "        self.src = src\n"
           "    def __reduce__(self):\n"
           "        return cp._code_portable, ('3.0.0', 1, data, self.src)\n"
           "for src in (T('def f(:'), T(good[0], 'nope'), (1, 2), 'why'):\n"
           "    try:\n"
           "        cp.loads(pickle.dumps(R(src)))\n"
           "    except OK:\n"
           "        pass\n"
           "    else:\n"
           "        raise AssertionError(src)\n");
}

Test(portable, compat_refused)
{
    DEFAULT_BUILD_ONLY();
    cpk_py(HELPERS
           "def refused(call):\n"
           "    try:\n"
           "        call()\n"
           "    except ValueError as e:\n"
           "        assert 'portable' in str(e), e\n"
           "    else:\n"
           "        raise AssertionError('accepted')\n"
           "for compat in ('cloudpickle3', 'cloudpickle2', '3.1.2'):\n"
           "    refused(lambda: cp.dumps(M.top, portable=True, compat=compat))\n"
           "    refused(lambda: cp.dump(M.top, io.BytesIO(), portable=True,\n"
           "                            compat=compat))\n"
           "    refused(lambda: cp.Pickler(io.BytesIO(), portable=True,\n"
           "                               compat=compat))\n"
           "    cp.dumps(M.top, compat=compat)\n"
           "    cp.dumps(M.top, portable=False, compat=compat)\n");
}

/* src/types/portable_source.h is src/types/portable_source.py as scripts/embed-py
 * writes it: the library runs the .py a reader sees. */
Test(portable, embedded_helper_matches_its_source)
{
    cpk_proc p;
    const char *argv[] = {"/bin/sh", CPK_SOURCE_DIR "/scripts/embed-py",
                          "portable_source_py",
                          "src/types/portable_source.py", NULL};
    cpk_spawn(&p, argv, CPK_SOURCE_DIR, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    size_t len;
    char *h = cpk_read_file(CPK_SOURCE_DIR "/src/types/portable_source.h", &len);
    cr_assert(h != NULL);
    cr_assert(len == p.out_len && memcmp(h, p.out, len) == 0,
              "src/types/portable_source.h is out of date: run make");
    free(h);
    cpk_proc_free(&p);
}

/* Source shipped for another Python is compiled on load: any policy
 * refuses that (the compiler is not hardened against hostile text: 3.9's
 * crashes on deep expressions), while the same pickle's own-version
 * bytecode loads under allow=[]. */
Test(portable, policies_refuse_compiling_shipped_source)
{
    cpk_py("import io, pickle, sys, ccloudpickle as cp\n"
           "sys.path.insert(0, '" CPK_SOURCE_DIR "/tests/portable')\n"
           "import fixture_mod\n"
           "cp.register_pickle_by_value(fixture_mod)\n"
           "try:\n"
           "    data = cp.dumps(fixture_mod.top, portable=True)\n"
           "finally:\n"
           "    cp.unregister_pickle_by_value(fixture_mod)\n"
           "assert cp.loads(data, allow=[])(1) == fixture_mod.top(1)\n"
           "seen = []\n"
           "class U(cp.Unpickler):\n"
           "    def find_class(self, m, n):\n"
           "        f = super().find_class(m, n)\n"
           "        if n != '_code_portable':\n"
           "            return f\n"
           "        return lambda *a: seen.append(a) or f(*a)\n"
           "U(io.BytesIO(data)).load()\n"
           "ver, magic, code, src = seen[0]\n"
           "assert isinstance(src, tuple)\n"
           "marker = object()\n"
           "class P(pickle.Pickler):\n"
           "    def reducer_override(self, o):\n"
           "        if o is marker:\n"
           "            return (cp._code_portable, ('3.99', 9999, code, src))\n"
           "        return NotImplemented\n"
           "b = io.BytesIO()\n"
           "P(b, 5).dump(marker)\n"
           "assert type(cp.loads(b.getvalue())).__name__ == 'code'\n"
           "try:\n"
           "    cp.loads(b.getvalue(), allow=[])\n"
           "except cp.PolicyError as e:\n"
           "    assert 'compiles source text shipped' in str(e), e\n"
           "else:\n"
           "    raise AssertionError('policy let a compile through')\n");
}
