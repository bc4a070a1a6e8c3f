/* test_determinism.c - the same function or class gives the same pickle
 * bytes whatever else holds references to its code, whatever the hash seed
 * of the process, and after any number of dump -> load elsewhere -> dump
 * again steps (what cloudpickle 3.x promises). Each pickle is made in a
 * fresh interpreter with its own PYTHONHASHSEED (tests/fixtures/
 * cpk_determinism.py). */
#include "support.h"

#include <string.h>

/* Run a driver snippet under /usr/bin/python3 (the helpers importable);
 * its assertions are the test's. */
static void
drive(const char *code)
{
    char full[16384];
    snprintf(full, sizeof(full), "from cpk_determinism import *\n%s", code);
    cpk_proc p;
    cpk_python(&p, full, NULL, 0);
    cr_assert(p.exited && p.status == 0, "driver failed (%d):\n%s",
              p.status, p.err);
    cpk_proc_free(&p);
}

/* A function with nested code, globals, a closure, frozenset and tuple
 * constants, strings that are and are not identifiers. */
#define FUNC_SRC                                                             \
    "import math\n"                                                          \
    "SCALE = 3\n"                                                            \
    "def helper(x):\n"                                                       \
    "    return x * SCALE\n"                                                 \
    "def f(a, b=('x', 1.5), *, c=None):\n"                                   \
    "    words = {'alpha', 'beta', 'gamma', 'delta', 'epsilon'}\n"           \
    "    def inner(y):\n"                                                    \
    "        return helper(y) + math.floor(1.5) + len(words)\n"              \
    "    label = 'not an identifier!'\n"                                     \
    "    return [a in words, a in ('p q', 'r s'), b, c, inner(a), label,\n"  \
    "            a in {'one', 'two', 'three', 'four'}]\n"

TestSuite(determinism);

Test(determinism, function_ignores_references_to_its_code)
{
    /* marshal flags objects whose reference count is above 1: references
     * held elsewhere must not change the bytes. */
    drive("SRC = '''" FUNC_SRC "'''\n"
          "KEEP = ('keep = [f.__code__, f.__code__.co_consts, '\n"
          "        'f.__code__.co_names, f.__code__.co_varnames, '\n"
          "        'f.__code__.co_filename, f.__code__.co_name] + '\n"
          "        'list(f.__code__.co_consts) + '\n"
          "        '[c.co_consts for c in f.__code__.co_consts '\n"
          "        'if hasattr(c, \"co_consts\")]')\n"
          "for proto in (2, 5):\n"
          "    plain = dump_in_child(SRC, 'f', 0, proto)\n"
          "    held = dump_in_child(SRC, 'f', 0, proto, after=KEEP)\n"
          "    assert_same(plain, held, 'with references to the code')\n"
          "    both = dump_in_child(SRC, '[f, f.__code__.co_consts]', 0,\n"
          "                         proto, after=KEEP)\n"
          "    ref = dump_in_child(SRC, '[f, f.__code__.co_consts]', 0,\n"
          "                        proto)\n"
          "    assert_same(ref, both, 'code and its constants')\n");
}

Test(determinism, function_ignores_hash_seed)
{
    drive("SRC = '''" FUNC_SRC "'''\n"
          "for proto in (2, 5):\n"
          "    first = dump_in_child(SRC, 'f', 0, proto)\n"
          "    for seed in (1, 2, 3, 4):\n"
          "        assert_same(first, dump_in_child(SRC, 'f', seed, proto),\n"
          "                    'for hash seed %d' % seed)\n"
          "    import ccloudpickle\n"
          "    f = ccloudpickle.loads(first)\n"
          "    assert f(2) == [False, False, ('x', 1.5), None, 12,\n"
          "                    'not an identifier!', False], f(2)\n");
}

/* Submodules a function reaches as attributes travel in its state, in
 * the order its code names them, never in string-hash order. */
Test(determinism, submodules_ignore_hash_seed)
{
    drive("SRC = '''import xml.dom, xml.sax, xml.etree, xml.parsers\n"
          "import email.mime.text\n"
          "def f():\n"
          "    return (xml.dom, xml.sax, xml.etree, xml.parsers,\n"
          "            email.mime.text)\n'''\n"
          "first = dump_in_child(SRC, 'f', 0, 5)\n"
          "for seed in (1, 2, 3, 4, 5, 6):\n"
          "    assert_same(first, dump_in_child(SRC, 'f', seed, 5),\n"
          "                'for hash seed %d' % seed)\n");
}

Test(determinism, function_chain)
{
    drive("SRC = '''" FUNC_SRC "'''\n"
          "for proto in (2, 5):\n"
          "    data = assert_chain(SRC, 'f', proto)\n"
          "    assert_chain(SRC, '[f, helper, SCALE]', proto)\n"
          "import ccloudpickle\n"
          "g = ccloudpickle.loads(data)\n"
          "out = g(2)\n"
          "assert out[:4] == [False, False, ('x', 1.5), None], out\n"
          "assert out[4] == 2 * 3 + 1 + 5 and out[5] == 'not an identifier!'\n");
}

/* cloudpickle's cases (tests/cloudpickle_test.py: *deterministic*), then
 * ours: slots, properties, class and static methods, closures, globals
 * whose names are also string values, an enum. */
static const char *const classes[] = {
    "class A:\n"
    "    '''Simple class definition'''\n"
    "    pass\n",

    "class A:\n"
    "    name = 'A'\n"
    "    __doc__ = 'Updated class definition'\n",

    "class A:\n"
    "    def __init__(self):\n"
    "        '''Class definition with explicit __init__'''\n"
    "        pass\n",

    "class A:\n"
    "    '''Class with potential string interning issues.'''\n"
    "    arg_1 = 'class_value'\n"
    "    def join(self):\n"
    "        pass\n"
    "    def test_method(self, arg_1, join):\n"
    "        pass\n",

    "class A:\n"
    "    '''Class with potential string interning issues.'''\n"
    "    arg_1 = 'join'\n"
    "    def join(self, arg_1):\n"
    "        pass\n"
    "A.join.arg_1 = 'join'\n",

    "class A:\n"
    "    '''Class with potential tuple memoization issues.'''\n"
    "    def func1(self):\n"
    "        pass\n"
    "    def func2(self):\n"
    "        pass\n",

    "import math\n"
    "GLOBAL = 'join'\n"
    "class Base:\n"
    "    def hello(self):\n"
    "        return 'hello'\n"
    "def make():\n"
    "    tag = 'tag value'\n"
    "    class A(Base):\n"
    "        __slots__ = ('x', '__y')\n"
    "        label = 'join'\n"
    "        limits = (1, 2.5, 'join', 'GLOBAL')\n"
    "        def __init__(self, x):\n"
    "            self.x = x\n"
    "            self.__y = 'x'\n"
    "        @property\n"
    "        def double(self):\n"
    "            return self.x * 2\n"
    "        @classmethod\n"
    "        def build(cls, v):\n"
    "            return cls(v + math.floor(1.5))\n"
    "        @staticmethod\n"
    "        def words(s):\n"
    "            return s in {'alpha', 'beta', 'gamma'} or s in (GLOBAL, tag)\n"
    "        def join(self, other):\n"
    "            return str(self.x) + other\n"
    "    A.join.label = 'label'\n"
    "    return A\n"
    "A = make()\n",

    "A = type('A', (), {1: 'one', (2, 'x'): 'two', 'b': 'b', 'a': 1,\n"
    "                   3.5: 'float key'})\n",

    "import enum\n"
    "class A(enum.Enum):\n"
    "    RED = 'red'\n"
    "    GREEN = 'GREEN'\n"
    "    def describe(self):\n"
    "        return self.name + '=' + self.value\n",
};

/* `src` as a Python string literal, in `lit`. */
static void
py_literal(const char *src, char *lit, size_t cap)
{
    size_t n = 0;
    lit[n++] = '\'';
    for (const char *s = src; *s; s++) {
        cr_assert(n + 4 < cap, "source too long");
        if (*s == '\n') {
            lit[n++] = '\\';
            lit[n++] = 'n';
            continue;
        }
        if (*s == '\'' || *s == '\\')
            lit[n++] = '\\';
        lit[n++] = *s;
    }
    lit[n++] = '\'';
    lit[n] = '\0';
}

Test(determinism, class_chain)
{
    char code[8192], lit[4096];
    for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
        py_literal(classes[i], lit, sizeof(lit));
        snprintf(code, sizeof(code),
                 "SRC = %s\n"
                 "for proto in (2, 5):\n"
                 "    assert_chain(SRC, 'A', proto)\n"
                 "assert_chain(SRC, '[A, A]', 5)\n",
                 lit);
        drive(code);
    }
}

Test(determinism, class_ignores_hash_seed)
{
    char code[8192], lit[4096];
    for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
        py_literal(classes[i], lit, sizeof(lit));
        snprintf(code, sizeof(code),
                 "SRC = %s\n"
                 "first = without_tracker_ids(dump_in_child(SRC, 'A', 0))\n"
                 "for seed in (1, 2, 3):\n"
                 "    assert_same(first, without_tracker_ids(\n"
                 "        dump_in_child(SRC, 'A', seed)), 'seed %%d' %% seed)\n",
                 lit);
        drive(code);
    }
}

Test(determinism, code_payload_is_normalized)
{
    /* The payload is marshal version 2 rewritten (code.c): no reference
     * flags, short string and tuple forms, so smaller than version 2 and
     * equal to the code once loaded. A version whose code layout the
     * rewrite does not know would fall back to plain version 2. */
    drive("import marshal, pickletools, types, ccloudpickle\n"
          "import json.encoder as je\n"
          "for f in (je._make_iterencode, je.py_encode_basestring,\n"
          "          lambda x: x in {'a b', 'c d'}):\n"
          "    g = types.FunctionType(f.__code__, {})\n"
          "    data = ccloudpickle.dumps(g)\n"
          "    payload = max((a for op, a, pos in pickletools.genops(data)\n"
          "                   if isinstance(a, bytes)), key=len)\n"
          "    assert payload[0] == ord('c'), payload[:1]\n"
          "    assert len(payload) < len(marshal.dumps(f.__code__, 2))\n"
          "    assert marshal.loads(payload) == f.__code__\n"
          "    # A frozenset constant rebuilt by marshal may iterate in another\n"
          "    # order than the compiler's (hash collisions): compare both\n"
          "    # payloads after one load each, never against the original.\n"
          "    plain = marshal.loads(marshal.dumps(f.__code__, 2))\n"
          "    assert marshal.dumps(marshal.loads(payload), 2) == \\\n"
          "        marshal.dumps(plain, 2)\n");
}

Test(determinism, cloudpickle_format_chain)
{
    /* compat='cloudpickle' ships code as types.CodeType's arguments: their
     * names are what the code constructor interns where it is loaded.
     * (Not frozenset constants: pickle writes sets in hash order, as for
     * cloudpickle 3.x.) */
    drive("SRC = '''import math\n"
          "SCALE = 'SCALE'\n"
          "def helper(x):\n"
          "    return x * SCALE\n"
          "def f(a, b=('x', 1.5), *, c=None):\n"
          "    def inner(y):\n"
          "        return helper(y) + str(math.floor(1.5))\n"
          "    return [a in ('p q', 'r s'), b, c, inner(a), 'f', 'a b']\n"
          "'''\n"
          "CLS = ('class A:\\n'\n"
          "       '    arg_1 = \"join\"\\n'\n"
          "       '    def join(self, arg_1):\\n'\n"
          "       '        return arg_1\\n'\n"
          "       'A.join.arg_1 = \"join\"\\n')\n"
          "import importlib.util\n"
          "# Below protocol 4 cloudpickle's names are reached through\n"
          "# __import__: loading needs cloudpickle installed.\n"
          "protos = (2, 5) if importlib.util.find_spec('cloudpickle') else (5,)\n"
          "for proto in protos:\n"
          "    assert_chain(SRC, 'f', proto, compat='cloudpickle')\n"
          "    assert_chain(CLS, 'A', proto, compat='cloudpickle')\n");
}

/* The private copies of names (names.c) are kept only while something uses
 * them: pickling ever new names (generated functions and globals) keeps
 * memory flat, and bytes stay the same for a name pickled again. */
Test(determinism, name_copies_do_not_accumulate)
{
    drive("import ccloudpickle as cp, gc, tracemalloc\n"
          "def make(i):\n"
          "    ns = {}\n"
          "    exec(f'g_{i} = 1\\ndef f_{i}():\\n    return g_{i}\\n', ns)\n"
          "    return ns[f'f_{i}']\n"
          "first = cp.dumps(make(0))\n"
          /* What making the functions alone keeps (3.12+ keeps the names
           * exec interns forever), against making and pickling them. */
          "def growth(start, pickle):\n"
          "    gc.collect()\n"
          "    before = tracemalloc.get_traced_memory()[0]\n"
          "    for i in range(start, start + 10000):\n"
          "        f = make(i)\n"
          "        if pickle:\n"
          "            cp.dumps(f)\n"
          "    gc.collect()\n"
          "    return tracemalloc.get_traced_memory()[0] - before\n"
          "tracemalloc.start()\n"
          "growth(1, True)\n"
          "alone = growth(100001, False)\n"
          "pickled = growth(200001, True)\n"
          "tracemalloc.stop()\n"
          /* 20,000 new names (f_i, g_i): without the sweep, about 780 KB
           * more. */
          "assert pickled - alone < 300_000, (pickled, alone)\n"
          "assert cp.dumps(make(0)) == first\n");
}
