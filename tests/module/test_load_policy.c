/* test_load_policy.c - the import policy of the Python API:
 * loads/load/_loads_exact(..., allow=[...], deny=[...]). A refused pickle
 * is refused before a single opcode runs (marker files prove nothing
 * ran), with every refused import listed; what the policy permits loads
 * (ccloudpickle's and stock cloudpickle's pickles under allow=[]); the
 * Unpickler's find_class refuses any lookup the static check did not
 * permit; two threads with different policies do not meet. The C rules
 * themselves are tests/unit/test_policy.c. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h" /* CPK_UNPICKLER_EXT */
#include "scan/pkscan.h"
#include "scan/policy.h"
#include "support.h"

TestSuite(load_policy, .init = cpk_py_start, .fini = cpk_py_stop);

/* Python that defines `marker` (a path that does not exist yet) and
 * `exists()`; `evil` is a pickle (protocol 5, by pickle itself) that runs
 * os.system('touch <marker>'), `evil_os` the same spelled GLOBAL os system
 * (protocol 0, hand-written). */
#define EVIL_SETUP                                                           \
    "import ccloudpickle as cp, pickle, os, tempfile\n"                      \
    "marker = os.path.join(tempfile.mkdtemp(), 'marker')\n"                  \
    "def exists():\n"                                                        \
    "    return os.path.exists(marker)\n"                                    \
    "class Evil:\n"                                                          \
    "    def __reduce__(self):\n"                                            \
    "        return (os.system, ('touch ' + marker,))\n"                     \
    "evil = {p: pickle.dumps(Evil(), protocol=p) for p in range(6)}\n"       \
    "evil_os = (b'cos\\nsystem\\n(S\\'touch ' + marker.encode() +\n"       \
    "           b'\\'\\ntR.')\n"                                             \
    "def refused(data, fragment, **kw):\n"                                   \
    "    try:\n"                                                             \
    "        cp.loads(data, **kw)\n"                                         \
    "    except pickle.UnpicklingError as e:\n"                              \
    "        assert fragment in str(e), (fragment, str(e))\n"                \
    "        assert not exists(), 'the refused pickle ran'\n"                \
    "        return str(e)\n"                                                \
    "    raise AssertionError('not refused: %r' % (kw,))\n"

Test(load_policy, os_system_refused_before_anything_runs)
{
    cpk_py(EVIL_SETUP
           "for p, data in evil.items():\n"
           "    refused(data, 'import policy refuses 1 import: posix.system "
           "(byte ', allow=[])\n"
           "    refused(data, 'posix.system', deny=['posix'])\n"
           "    refused(data, 'posix.system', deny=['posix.system'])\n"
           "    refused(data, 'posix.system', allow=['os.*'])\n"
           "    refused(data, 'posix.system', allow=['posix.system'],\n"
           "            deny=['posix'])\n"
           "refused(evil_os, 'os.system (byte 0)', allow=[])\n"
           "refused(evil_os, 'os.system (byte 0)', deny=['os'])\n"
           "refused(evil_os, 'os.system', deny=['os.system'])\n"
           "refused(evil_os, 'os.system', allow=['mymod.*'])\n"
           "refused(evil_os, 'os.system', deny=['*'])\n"
           "assert not exists()\n"
           /* the pickles are live: without a policy, or with one that
            * permits them, they do run (so the refusals above mean
            * something) */
           "cp.loads(evil_os)\n"
           "assert exists()\n"
           "os.unlink(marker)\n"
           "cp.loads(evil_os, allow=['os.system'], deny=['posix'])\n"
           "assert exists()\n"
           "os.unlink(marker)\n"
           "cp.loads(evil[2], allow=['posix.system'])\n"
           "assert exists()\n");
}

Test(load_policy, every_refused_import_is_listed)
{
    cpk_py(EVIL_SETUP
           "import subprocess, collections, cpk_fixture_funcs\n"
           "data = pickle.dumps([os.system, collections.OrderedDict,\n"
           "                     subprocess.call, cpk_fixture_funcs.triple,\n"
           "                     Evil()], protocol=4)\n"
           "msg = refused(data, 'import policy refuses 3 imports: ',\n"
           "              allow=[])\n"
           "names = msg.split(': ', 1)[1].split(', ')\n"
           "assert [n.split(' (byte ')[0] for n in names] == [\n"
           "    'posix.system', 'subprocess.call',\n"
           "    'cpk_fixture_funcs.triple'], names\n"
           /* offsets: where each global is imported */
           "import pickletools\n"
           "offs = [int(n.split(' (byte ')[1].rstrip(')')) for n in names]\n"
           "ops = {pos: op.name for op, arg, pos in pickletools.genops(data)}\n"
           "assert all(ops[o] == 'STACK_GLOBAL' for o in offs), (offs, ops)\n"
           "assert offs == sorted(offs)\n"
           /* deny refuses what it denies, and what is dangerous */
           "msg = refused(data, 'refuses 3 imports', deny=['subprocess',\n"
           "              'collections'])\n"
           "assert 'collections.OrderedDict' in msg and 'posix.system' in msg\n"
           "assert 'cpk_fixture_funcs' not in msg\n");
}

Test(load_policy, function_using_math_loads_restricted)
{
    /* pkscan counts subimport("math") as plain data */
    cpk_py("import ccloudpickle as cp, math\n"
           "def f(x):\n"
           "    return math.sqrt(x) + 1\n"
           "for proto in (2, 3, 5):\n"
           "    for compat in (None, 'cloudpickle'):\n"
           "        if compat and proto < 3:\n"
           "            continue  # see by_value_objects_load_restricted\n"
           "        g = cp.loads(cp.dumps(f, protocol=proto, compat=compat),\n"
           "                     allow=[])\n"
           "        assert g(9) == 4.0\n");
}

Test(load_policy, by_value_objects_load_restricted)
{
    cpk_py("import ccloudpickle as cp, enum, collections, dataclasses\n"
           "y = 10\n"
           "def outer(k):\n"
           "    def inner(x, *, z=2):\n"
           "        return x + k + y + z\n"
           "    return inner\n"
           "class Base:\n"
           "    def hello(self):\n"
           "        return 'hi ' + type(self).__name__\n"
           "class Thing(Base):\n"
           "    kind = 'thing'\n"
           "    @classmethod\n"
           "    def make(cls):\n"
           "        return cls()\n"
           "    @property\n"
           "    def p(self):\n"
           "        return 5\n"
           "class Color(enum.Enum):\n"
           "    RED = 1\n"
           "    GREEN = 2\n"
           "class Flag(enum.IntFlag):\n"
           "    A = 1\n"
           "    B = 2\n"
           "@dataclasses.dataclass\n"
           "class DC:\n"
           "    a: int = 1\n"
           "objs = [lambda a, b=3: a * b, outer(1), Thing, Color, Color.RED,\n"
           "        Flag.A | Flag.B, None, None,\n"
           "        collections.OrderedDict(a=1), {1, 2}, frozenset([3]),\n"
           "        collections.defaultdict(list), (1.5, b'x', None)]\n"
           "for proto in (2, 3, 4, 5):\n"
           "    for compat in (None, 'cloudpickle'):\n"
           /* compat pickles below protocol 3 spell __import__ as
            * __builtin__.__import__, which the Unpickler does not map to
            * its shim (a defect outside the policy): they need stock
            * cloudpickle, with or without a policy */
           "        if compat and proto < 3:\n"
           "            continue\n"
           "        got = cp.loads(cp.dumps(objs, protocol=proto,\n"
           "                                compat=compat), allow=[])\n"
           "        lam, inn, T, C, red, fl, D, d5, od, s, fs, dd, t = got\n"
           "        assert lam(2) == 6 and inn(1) == 14\n"
           "        assert T.make().hello() == 'hi Thing' and T().p == 5\n"
           "        assert [m.name for m in C] == ['RED', 'GREEN']\n"
           "        assert red is C.RED and int(fl) == 3\n"

           "        assert od == {'a': 1} and s == {1, 2}\n"
           "        assert t == (1.5, b'x', None)\n"
           /* a dataclass by value: its __repr__ wrapper (reprlib) refers to
            * the module _thread, which pkscan does not count as plain */
           "        D = cp.loads(cp.dumps(DC, protocol=proto, compat=compat),\n"
           "                     allow=['_thread'])\n"
           "        assert D(5).a == 5 and D().a == 1 and repr(D(5)) == 'DC(a=5)'\n"
           /* an instance of a class by value with methods: its methods
            * may run during the load (policy.h), refused by any policy */
           "        data = cp.dumps(DC(5), protocol=proto, compat=compat)\n"
           "        try:\n"
           "            cp.loads(data, allow=['_thread'])\n"
           "        except cp.PolicyError as e:\n"
           "            assert 'class carried by value' in str(e), e\n"
           "        else:\n"
           "            raise AssertionError('by-value instance loaded')\n"
           "        assert cp.loads(data).a == 5\n");
}

Test(load_policy, stock_cloudpickle_2_2_loads_restricted)
{
    struct stat st;
    if (strcmp(CPK_PYTHON, "/usr/bin/python3") != 0 ||
        stat("/usr/lib/python3/dist-packages/cloudpickle", &st) != 0)
        cr_skip_test("Debian's cloudpickle 2.2 is for /usr/bin/python3");
    cpk_proc p;
    cpk_python(&p,
               "import cloudpickle, ccloudpickle as cp, enum, math, pickle\n"
               "assert cloudpickle.__version__.startswith('2.2')\n"
               "k = 4\n"
               "def f(x):\n"
               "    return math.floor(x) + k\n"
               "class C:\n"
               "    def m(self):\n"
               "        return 7\n"
               "class E(enum.Enum):\n"
               "    A = 1\n"
               "data = cloudpickle.dumps([f, lambda: k, C, E, E.A])\n"
               "g, lam, C2, E2, a = cp.loads(data, allow=[])\n"
               "assert g(2.5) == 6 and lam() == 4 and C2().m() == 7\n"
               "assert a is E2.A\n"
               "try:\n"
               "    cp.loads(data, deny=['cloudpickle'])\n"
               "except pickle.UnpicklingError as e:\n"
               "    assert 'cloudpickle.cloudpickle._make_function' in str(e)\n"
               "else:\n"
               "    raise AssertionError('deny=[cloudpickle] not enforced')\n"
               "print('ok')\n",
               NULL, 0);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "ok\n");
    cpk_proc_free(&p);
}

Test(load_policy, allow_patterns)
{
    cpk_py("import ccloudpickle as cp, pickle, cpk_fixture_funcs as m\n"
           "import cpk_fixture_pkg, cpk_fixture_pkg.sub\n"
           "data = cp.dumps([m.triple, m.Point(1, 2)])\n"
           "for allow in (['cpk_fixture_funcs.*'], ['cpk_fixture_funcs'],\n"
           "              ['cpk_fixture_funcs.triple', 'cpk_fixture_funcs.Point'],\n"
           "              ['cpk_fixture_*'], ['*']):\n"
           "    f, pt = cp.loads(data, allow=allow)\n"
           "    assert f(2) == 6 and pt.norm() == 5 ** 0.5, allow\n"
           "for allow in ([], ['cpk_fixture_funcs.triple'],\n"
           "              ['cpk_fixture_funcs.tri'], ['cpk_fixture_funcsx.*'],\n"
           "              ['cpk_fixture'], ['cpk_fixture_pkg.*']):\n"
           "    try:\n"
           "        cp.loads(data, allow=allow)\n"
           "    except pickle.UnpicklingError as e:\n"
           "        assert 'cpk_fixture_funcs.Point' in str(e), str(e)\n"
           "    else:\n"
           "        raise AssertionError(allow)\n"
           /* a submodule is covered by its package's name */
           "d2 = cp.dumps(cpk_fixture_pkg.sub.__dict__.get('sub_func',\n"
           "              cpk_fixture_pkg.pkg_func))\n"
           "assert cp.loads(d2, allow=['cpk_fixture_pkg'])() is not None\n"
           /* any iterable of str */
           "assert cp.loads(data, allow=('cpk_fixture_funcs',))[0](1) == 3\n"
           "assert cp.loads(data, allow=iter(['cpk_fixture_funcs']))[0](1) == 3\n"
           "assert cp.loads(data, allow={'cpk_fixture_funcs'})[0](1) == 3\n");
}

Test(load_policy, deny_patterns_and_deny_wins)
{
    cpk_py("import ccloudpickle as cp, pickle, collections\n"
           "import cpk_fixture_funcs as m\n"
           "data = cp.dumps([m.triple, collections.OrderedDict(a=1), {1}])\n"
           "def refused(frag, **kw):\n"
           "    try:\n"
           "        cp.loads(data, **kw)\n"
           "    except pickle.UnpicklingError as e:\n"
           "        assert frag in str(e), (frag, str(e))\n"
           "    else:\n"
           "        raise AssertionError(kw)\n"
           /* deny only: everything else passes, even non-plain names */
           "f, od, s = cp.loads(data, deny=['os', 'subprocess'])\n"
           "assert f(1) == 3 and od == {'a': 1} and s == {1}\n"
           "assert cp.loads(data, deny=[])[0](2) == 6\n"
           "refused('cpk_fixture_funcs.triple', deny=['cpk_fixture_funcs'])\n"
           "refused('collections.OrderedDict', deny=['collections.*'])\n"
           /* deny wins over allow */
           "refused('refuses 1 import: cpk_fixture_funcs.triple',\n"
           "        allow=['cpk_fixture_funcs.*'],\n"
           "        deny=['cpk_fixture_funcs.triple'])\n"
           "refused('collections.OrderedDict', allow=['collections'],\n"
           "        deny=['collections.OrderedDict'])\n"
           /* deny=None and allow=None are no policy at all */
           "assert cp.loads(data, allow=None, deny=None)[0](1) == 3\n");
}

Test(load_policy, bad_patterns_refused)
{
    cpk_py("import ccloudpickle as cp, io\n"
           "data = cp.dumps(1)\n"
           "calls = [lambda **kw: cp.loads(data, **kw),\n"
           "         lambda **kw: cp._loads_exact(data, **kw),\n"
           "         lambda **kw: cp.load(io.BytesIO(data), **kw)]\n"
           "def expect(exc, frag, **kw):\n"
           "    for call in calls:\n"
           "        try:\n"
           "            call(**kw)\n"
           "        except exc as e:\n"
           "            assert frag in str(e), (frag, str(e))\n"
           "        else:\n"
           "            raise AssertionError(kw)\n"
           "for key in ('allow', 'deny'):\n"
           "    for pat, why in (('', 'empty'), ('a b', 'whitespace'),\n"
           "                     ('*os', \"'*' is only allowed at the end\"),\n"
           "                     ('os..path', 'empty component'),\n"
           "                     ('os.', 'empty component'),\n"
           "                     ('os/x', 'not a dotted name'),\n"
           "                     ('o\\x00s', 'not a dotted name'),\n"
           "                     ('\\udc80', 'not encodable'),\n"
           "                     ('9lives', 'a component starts with a digit')):\n"
           "        expect(ValueError, 'bad %s pattern %r: %s' % (key, pat, why),\n"
           "               **{key: ['ok_mod', pat]})\n"
           "    expect(TypeError, '%s patterns must be str, not int' % key,\n"
           "           **{key: ['os', 1]})\n"
           "    expect(TypeError, '%s patterns must be str, not bytes' % key,\n"
           "           **{key: [b'os']})\n"
           "    expect(TypeError, 'must be an iterable of str patterns, not str',\n"
           "           **{key: 'os'})\n"
           "    expect(TypeError, 'must be an iterable of str patterns, not int',\n"
           "           **{key: 5})\n"
           /* an iterator that fails: its error, unchanged */
           "def gen():\n"
           "    yield 'os'\n"
           "    raise KeyError('from the iterator')\n"
           "try:\n"
           "    cp.loads(data, allow=gen())\n"
           "except KeyError as e:\n"
           "    assert 'from the iterator' in str(e)\n"
           "else:\n"
           "    raise AssertionError('iterator error lost')\n");
}

Test(load_policy, malformed_pickle_refused_at_byte)
{
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp.loads(b'\\x80\\x05\\x95\\x10', allow=[])\n",
                  "UnpicklingError", "at byte 2");
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp.loads(b'(\\xff.', deny=['os'])\n",
                  "UnpicklingError", "at byte 1");
    /* a memo index no pickler writes: refused in the scan, no huge
     * allocation */
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp.loads(b'\\x80\\x05N\\x94j\\x00\\x00\\x00\\x10.', "
                  "allow=[])\n",
                  "UnpicklingError", "at byte ");
    /* loads ignores data after STOP, as pickle.loads does; _loads_exact
     * refuses it before loading */
    cpk_py("import ccloudpickle as cp, pickle, os, tempfile\n"
           "assert cp.loads(b'K\\x05.junk', allow=[]) == 5\n"
           "marker = os.path.join(tempfile.mkdtemp(), 'm')\n"
           "evil = (b'cposix\\nsystem\\n(S\\'touch ' + marker.encode() +\n"
           "        b'\\'\\ntR.x')\n"
           "try:\n"
           "    cp._loads_exact(evil, allow=['posix.system'])\n"
           "except pickle.UnpicklingError as e:\n"
           "    assert 'at byte' in str(e), str(e)\n"
           "else:\n"
           "    raise AssertionError('trailing data accepted')\n"
           "assert not os.path.exists(marker)\n"
           "assert cp._loads_exact(b'K\\x05.', allow=[], deny=['os']) == 5\n");
}

Test(load_policy, ext_opcodes_refused)
{
    cpk_py(EVIL_SETUP
           "import copyreg\n"
           "copyreg.add_extension('posix', 'system', 240)\n"
           "copyreg.add_extension('collections', 'OrderedDict', 241)\n"
           "try:\n"
           "    data = pickle.dumps(Evil(), protocol=2)\n"
           "    harmless = pickle.dumps(__import__('collections')\n"
           "                            .OrderedDict(a=1), protocol=2)\n"
           "finally:\n"
           "    copyreg.remove_extension('posix', 'system', 240)\n"
           "assert b'\\x82\\xf0' in data\n"
           /* any active policy: nothing proves the code is not denied */
           "refused(data, 'extension code 240 (byte ', allow=['*'])\n"
           "refused(data, 'extension code 240', deny=['nothing_here'])\n"
           "refused(harmless, 'extension code 241', allow=[])\n"
           /* without a policy the registry is used as pickle does */
           "assert cp.loads(harmless) == {'a': 1}\n"
           "copyreg.remove_extension('collections', 'OrderedDict', 241)\n");
}

Test(load_policy, fix_imports_false_is_modelled)
{
    cpk_py("import ccloudpickle as cp, pickle\n"
           "data = b'\\x80\\x02c__builtin__\\nset\\n]\\x85R.'\n"
           "assert cp.loads(data, allow=[]) == set()\n"
           "try:\n"
           "    cp.loads(data, allow=[], fix_imports=False)\n"
           "except pickle.UnpicklingError as e:\n"
           "    assert 'refuses 1 import: __builtin__.set' in str(e), str(e)\n"
           "else:\n"
           "    raise AssertionError('not refused')\n"
           /* denying the Python 3 name denies the Python 2 spelling */
           "try:\n"
           "    cp.loads(data, deny=['builtins.set'])\n"
           "except pickle.UnpicklingError as e:\n"
           "    assert 'builtins.set (byte 2)' in str(e), str(e)\n"
           "else:\n"
           "    raise AssertionError('not refused')\n");
}

Test(load_policy, bytes_like_data)
{
    cpk_py("import ccloudpickle as cp, array\n"
           "data = cp.dumps(lambda: 42)\n"
           "for d in (bytearray(data), memoryview(data),\n"
           "          memoryview(bytearray(data))):\n"
           "    assert cp.loads(d, allow=[])() == 42\n"
           "try:\n"
           "    cp.loads([1, 2], allow=[])\n"
           "except TypeError as e:\n"
           "    assert 'bytes-like object is required' in str(e)\n"
           "else:\n"
           "    raise AssertionError('list accepted')\n");
    cpk_py_raises("import ccloudpickle as cp\ncp.loads('text', allow=[])\n",
                  "TypeError", "Can't load pickle from unicode string");
}

Test(load_policy, load_from_files)
{
    cpk_py(EVIL_SETUP
           "import io\n"
           "buf = io.BytesIO()\n"
           "buf.write(b'prefix')\n"
           "cp.dump(lambda: 1, buf)\n"
           "cp.dump({'k': 2}, buf, protocol=2)\n"
           "buf.write(evil[5])\n"
           "buf.seek(6)\n"
           "assert cp.load(buf, allow=[])() == 1\n"
           "assert cp.load(buf, deny=['os'])['k'] == 2\n"
           "pos = buf.tell()\n"
           "try:\n"
           "    cp.load(buf, allow=[])\n"
           "except pickle.UnpicklingError as e:\n"
           "    assert 'posix.system' in str(e)\n"
           "else:\n"
           "    raise AssertionError('not refused')\n"
           "assert not exists()\n"
           /* a file that cannot tell: fine with one pickle, refused before
            * loading when something follows it */
           "class Pipe:\n"
           "    def __init__(self, data):\n"
           "        self.f = io.BytesIO(data)\n"
           "        self.read = self.f.read\n"
           "        self.readline = self.f.readline\n"
           "        self.readinto = self.f.readinto\n"
           "    def tell(self):\n"
           "        raise io.UnsupportedOperation('not seekable')\n"
           "assert cp.load(Pipe(cp.dumps([3])), allow=[]) == [3]\n"
           "try:\n"
           "    cp.load(Pipe(evil_os + b'more'), allow=['os'])\n"
           "except pickle.UnpicklingError as e:\n"
           "    assert 'cannot seek back' in str(e), str(e)\n"
           "else:\n"
           "    raise AssertionError('not refused')\n"
           "assert not exists()\n"
           /* read() must give bytes */
           "class Text:\n"
           "    def read(self, *a):\n"
           "        return 'text'\n"
           "    readline = read\n"
           "    def tell(self):\n"
           "        return 0\n"
           "try:\n"
           "    cp.load(Text(), allow=[])\n"
           "except TypeError as e:\n"
           "    assert 'bytes-like' in str(e), str(e)\n"
           "else:\n"
           "    raise AssertionError('str accepted')\n");
}

/* find_class of an Unpickler holding a policy's lookup set: only the
 * lookups the static scan listed and the policy permitted run; anything
 * else, even plain data, is refused. This is what makes a disagreement
 * between the scan and the load a refusal. */
Test(load_policy, find_class_refuses_what_the_scan_did_not_permit)
{
    cpk_py("import ccloudpickle as cp, io, collections\n"
           "u = cp.Unpickler(io.BytesIO(b''))\n"
           /* protocol 2 with Python 2 spellings, and one refused name */
           "scanned = (b'\\x80\\x02(ccollections\\nOrderedDict\\n'\n"
           "           b'c__builtin__\\nset\\ncposix\\nsystem\\n'\n"
           "           b'cccloudpickle\\n_make_cell\\nt.')\n");
    size_t n;
    char *data = cpk_py_bytes("scanned", &n);
    pkscan_report *r = pkscan_scan(data, n, 0);
    free(data);
    cr_assert(r != NULL && r->status == PKSCAN_OK);
    cpk_policy *p = cpk_policy_new();
    const char *why;
    cr_assert(cpk_policy_add(p, 0, "posix", &why) == 0);
    cpk_policy_names *names = cpk_policy_names_new(p, r);
    cr_assert(names != NULL);
    cpk_policy_free(p);
    pkscan_free(r);
    PyObject *u = PyDict_GetItemString(
        PyModule_GetDict(PyImport_AddModule("__main__")), "u");
    cr_assert(u != NULL);
    CPK_UNPICKLER_EXT(u)->policy_names = names; /* u frees it */
    cpk_py("import ccloudpickle as cp, pickle, collections\n"
           "assert u.find_class('collections', 'OrderedDict') is \\\n"
           "    collections.OrderedDict\n"
           "assert u.find_class('__builtin__', 'set') is set\n"
           "assert u.find_class('builtins', 'set') is set\n"
           "assert u.find_class('ccloudpickle', '_make_cell') is \\\n"
           "    cp._make_cell\n"
           "for mod, name in (('posix', 'system'), ('collections', 'deque'),\n"
           "                  ('builtins', 'frozenset'),\n"
           "                  ('ccloudpickle', '_make_empty_cell'),\n"
           "                  ('collections', 'OrderedDict.fromkeys'),\n"
           "                  ('cloudpickle.cloudpickle', '_make_cell'),\n"
           "                  ('builtins', '__import__'),\n"
           "                  ('collections\\udc80', 'OrderedDict'),\n"
           "                  (b'collections', 'OrderedDict')):\n"
           "    try:\n"
           "        u.find_class(mod, name)\n"
           "    except pickle.UnpicklingError as e:\n"
           "        want = 'import policy refuses find_class(%r, %r)' % (mod, name)\n"
           "        assert want in str(e), str(e)\n"
           "    else:\n"
           "        raise AssertionError((mod, name))\n"
           "del u\n"
           /* an Unpickler of its own has no policy */
           "u2 = cp.Unpickler(io.BytesIO(b''))\n"
           "assert u2.find_class('collections', 'deque') is \\\n"
           "    collections.deque\n");
}

/* Two threads load the same pickle at once under different policies,
 * each load pausing in the middle (time.sleep runs as one of its
 * reductions) so the other's lookups happen meanwhile: each sees only
 * its own policy. */
Test(load_policy, concurrent_loads_keep_their_own_policy, .timeout = 120)
{
    cpk_py("import ccloudpickle as cp, pickle, threading, time, sys\n"
           "import cpk_fixture_funcs as m, cpk_fixture_pkg as pkg\n"
           "class Nap:\n"
           "    def __reduce__(self):\n"
           "        return (time.sleep, (0.0005,))\n"
           "da = cp.dumps([Nap(), m.triple, Nap(), m.Point])\n"
           "db = cp.dumps([Nap(), pkg.pkg_func, Nap(), pkg.pkg_func])\n"
           "errors = []\n"
           "start = threading.Barrier(2)\n"
           "def run(data, allow, other, check):\n"
           "    start.wait()\n"
           "    try:\n"
           "        for i in range(150):\n"
           "            check(cp.loads(data, allow=allow))\n"
           "            try:\n"
           "                cp.loads(data, allow=other)\n"
           "            except pickle.UnpicklingError:\n"
           "                pass\n"
           "            else:\n"
           "                errors.append('other policy permitted')\n"
           "    except BaseException as e:\n"
           "        errors.append(repr(e))\n"
           "def ca(o):\n"
           "    assert o[1](1) == 3 and o[3] is m.Point\n"
           "def cb(o):\n"
           "    assert o[1] is pkg.pkg_func\n"
           "sys.setswitchinterval(1e-5)\n"
           "ta = threading.Thread(target=run, args=(da,\n"
           "    ['time.sleep', 'cpk_fixture_funcs'],\n"
           "    ['time.sleep', 'cpk_fixture_pkg'], ca))\n"
           "tb = threading.Thread(target=run, args=(db,\n"
           "    ['time.sleep', 'cpk_fixture_pkg'],\n"
           "    ['time.sleep', 'cpk_fixture_funcs'], cb))\n"
           "ta.start(); tb.start(); ta.join(); tb.join()\n"
           "assert not errors, errors[:3]\n");
}

Test(load_policy, docstrings_name_the_options)
{
    cpk_py("import ccloudpickle as cp\n"
           "for f in (cp.loads, cp.load):\n"
           "    assert 'allow=None, deny=None' in f.__text_signature__\n"
           "    assert 'UnpicklingError' in f.__doc__\n");
}

/* Protocol 4 find_class resolves dotted names by attribute lookup, and
 * pkscan classifies by the module: `dataclasses` + `inspect.os.system` is
 * os.system reached through plain modules. Neither that, nor a module
 * object in hand, nor a getattr chain from one gets past a policy. */
Test(load_policy, attribute_paths_out_of_a_module_refused)
{
    cpk_py(EVIL_SETUP
           "def glob(m, n):\n"
           "    return (b'\\x8c' + bytes([len(m)]) + m.encode() + b'\\x8c' +\n"
           "            bytes([len(n)]) + n.encode() + b'\\x93')\n"
           "cmd = ('touch ' + marker).encode()\n"
           "call = b'\\x8c' + bytes([len(cmd)]) + cmd + b'\\x85R.'\n"
           "path = b'\\x80\\x04' + glob('dataclasses', 'inspect.os.system') + call\n"
           "tail = b'\\x80\\x04' + glob('uuid', 'os.system') + call\n"
           "mod = b'\\x80\\x04' + glob('uuid', 'os') + b'.'\n"
           "chain = (b'\\x80\\x04' + glob('builtins', 'getattr') + b'\\x94' +\n"
           "         glob('builtins', 'getattr') + glob('dataclasses', 'inspect')\n"
           "         + b'\\x8c\\x02os\\x86R\\x8c\\x06system\\x86R' + call)\n"
           "refused(path, 'refuses 1 import: dataclasses.inspect.os.system '\n"
           "        '(byte 34)', allow=[])\n"
           "refused(path, 'dataclasses.inspect.os.system', deny=['os'])\n"
           "refused(tail, 'refuses 1 import: uuid.os.system', allow=[])\n"
           "refused(tail, 'uuid.os.system', deny=['os'])\n"
           "refused(tail, 'uuid.os.system', deny=['os.system'])\n"
           /* restricted: uuid + os names the module os (pkscan.h) */
           "refused(mod, 'refuses 1 import: uuid.os (byte 12)', allow=[])\n"
           /* a module reached through an attribute is dangerous
            * (pkscan.h), so deny-only refuses it statically; an allow
            * rule naming it leaves find_class's own refusal */
           "refused(mod, 'refuses 1 import: uuid.os (byte 12)',\n"
           "        deny=['nothing'])\n"
           "refused(mod, \"find_class('uuid', 'os'): it gives a module \"\n"
           "        'object', allow=['uuid'])\n"
           "refused(chain, 'dataclasses.inspect.os (byte ', allow=[])\n"
           "refused(chain, 'dataclasses.inspect.os.system (byte ',\n"
           "        deny=['os'])\n"
           "refused(chain, 'dataclasses.inspect.os.system (byte ',\n"
           "        deny=['posix'])\n"
           "refused(chain, \"find_class('dataclasses', 'inspect'): it gives \"\n"
           "        'a module object', allow=['dataclasses'])\n"
           "assert not exists()\n"
           /* enums still load: enum.Enum.__new__ is a path of dunders */
           "import enum\n"
           "class E(enum.Enum):\n"
           "    A = 1\n"
           "assert b'Enum.__new__' in cp.dumps(E)\n"
           "assert cp.loads(cp.dumps(E), allow=[]).A.value == 1\n"
           /* a classmethod of a plain class by reference needs its name */
           "import collections\n"
           "fk = pickle.dumps(collections.OrderedDict.fromkeys, protocol=4)\n"
           "refused(fk, 'collections.OrderedDict.fromkeys', allow=[])\n"
           "assert cp.loads(fk, allow=['collections.OrderedDict'])('ab') == \\\n"
           "    {'a': None, 'b': None}\n");
}

/* A signed pickle is verified first, then its pickle gets the policy of
 * the same call: a correctly signed os.system pickle is still refused by
 * allow=[] or deny=, from bytes and from a file; a permitted one loads. */
Test(load_policy, signed_pickles_get_the_policy_too)
{
    cpk_py(EVIL_SETUP
           "import io\n"
           "key = os.urandom(32)\n"
           "for p in (2, 5):\n"
           "    env = cp.dumps(Evil(), protocol=p, sign_key=key)\n"
           "    refused(env, 'posix.system', verify_key=key, allow=[])\n"
           "    refused(env, 'posix.system', verify_key=key, deny=['posix'])\n"
           "    try:\n"
           "        cp.load(io.BytesIO(env), verify_key=key, allow=[])\n"
           "    except pickle.UnpicklingError as e:\n"
           "        assert 'posix.system' in str(e), e\n"
           "    else:\n"
           "        raise AssertionError('load(verify_key, allow) ran it')\n"
           "    assert not exists()\n"
           "    f = cp.loads(cp.dumps(lambda x: x * 2, protocol=p,\n"
           "                          sign_key=key), verify_key=key, allow=[])\n"
           "    assert f(21) == 42\n"
           "# The policy without the key: still refused as unverified.\n"
           "refused(env, 'verify_key', allow=['posix'])\n"
           "assert not exists()\n");
}

/* Code carried by value that the load itself runs is refused by any
 * active policy, whatever the patterns: a by-value function the pickle
 * calls, an instance of a by-value class with a __setstate__ (a plain
 * dumps of it). Without a policy both load and run. */
Test(load_policy, code_the_load_runs_is_refused_by_any_policy)
{
    cpk_py(EVIL_SETUP
           "def f():\n"
           "    open(marker, 'w').close()\n"
           "    return 1\n"
           "f.__module__ = '__main__'\n"
           "class R:\n"
           "    def __reduce__(self):\n"
           "        return (f, ())\n"
           "class K:\n"
           "    def __setstate__(self, state):\n"
           "        open(marker, 'w').close()\n"
           "K.__module__ = '__main__'\n"
           "calls = cp.dumps(R())\n"
           "k = K()\n"
           "k.x = 1\n"
           "inst = cp.dumps(k)\n"
           "for kw in ({'allow': []}, {'deny': ['os']}, {'allow': ['*']},\n"
           "           {'allow': ['__main__', 'posix']}):\n"
           "    e = refused(calls, 'runs code carried by value: calls a '\n"
           "                'function carried by value f (byte ', **kw)\n"
           "    refused(inst, 'creates an instance of a class carried by '\n"
           "            'value', **kw)\n"
           "    assert e.startswith('import policy refuses a pickle'), e\n"
           "assert not exists()\n"
           "assert cp.loads(calls) == 1 and exists()\n"
           "os.unlink(marker)\n"
           "cp.loads(inst)\n"
           "assert exists()\n");
}

/* One name written two ways (protocol 2: exceptions.Exception and
 * __builtin__.Exception) is permitted statically and by find_class. */
Test(load_policy, every_written_spelling_is_permitted_at_load)
{
    cpk_py("import ccloudpickle as cp\n"
           "d = (b'\\x80\\x02(cexceptions\\nException\\n'\n"
           "     b'c__builtin__\\nException\\nt.')\n"
           "assert cp.loads(d, allow=[]) == (Exception, Exception)\n");
}

/* A chain of containers linked top-down through the memo, deeper than
 * cloudpickle-load accepts, is refused before the load (freeing a deep
 * deque chain overflows CPython's C stack). */
Test(load_policy, deep_memo_chains_are_refused)
{
    cpk_py("import ccloudpickle as cp, pickle, struct\n"
           "def chain(n):\n"
           "    put = lambda i: b'r' + struct.pack('<I', i)\n"
           "    get = lambda i: b'j' + struct.pack('<I', i)\n"
           "    out = [b'\\x80\\x02ccollections\\ndeque\\n', put(0), b'0']\n"
           "    for i in range(1, n + 1):\n"
           "        out += [get(0), b')R', put(i), b'0']\n"
           "    for i in range(1, n):\n"
           "        out += [get(i), get(i + 1), b'a0']\n"
           "    return b''.join(out + [get(1), b'.'])\n"
           "assert len(cp.loads(chain(50), allow=[])) == 1\n"
           "try:\n"
           "    cp.loads(chain(20000), allow=[])\n"
           "except pickle.UnpicklingError as e:\n"
           "    assert 'more than 10000' in str(e), e\n"
           "else:\n"
           "    raise AssertionError('a 20000-deep chain was loaded')\n");
}

/* Review i11f: the policy reads protocol 0-2 strings as their bytes, the
 * load decodes them with `encoding`: an escaping codec made "\x72unpy"
 * import runpy past deny=['runpy']. Under a policy only encodings that
 * keep ASCII bytes as they are load; others are refused before anything
 * runs. Without a policy every encoding still loads. */
Test(load_policy, encodings_that_respell_names_refused)
{
    cpk_py("import ccloudpickle as cp, sys\n"
           "def s(x):\n"
           "    b = x.encode()\n"
           "    return b'\\x8c' + bytes([len(b)]) + b\n"
           "def U(b):\n"
           "    return b'U' + bytes([len(b)]) + b\n"
           "cases = [('unicode_escape', b'\\\\x72unpy'),\n"
           "         ('raw_unicode_escape', b'\\\\u0072unpy'),\n"
           "         ('utf-7', b'+AHI-unpy'), ('cp037', 'runpy'.encode('cp037'))]\n"
           "for enc, raw in cases:\n"
           "    data = (b'\\x80\\x04' + s('ccloudpickle') + s('subimport') +\n"
           "            b'\\x93' + U(raw) + b'\\x85R.')\n"
           "    sys.modules.pop('runpy', None)\n"
           "    try:\n"
           "        cp.loads(data, encoding=enc, deny=['runpy'])\n"
           "    except cp.PolicyError as e:\n"
           "        assert 'encoding' in str(e), str(e)\n"
           "    else:\n"
           "        raise AssertionError(enc)\n"
           "    assert 'runpy' not in sys.modules, enc\n"
           "    assert cp.loads(data, encoding=enc).__name__ == 'runpy'\n"
           /* what keeps ASCII bytes loads under a policy */
           "ok = (b'\\x80\\x02' + s('ccloudpickle') + s('subimport') + b'\\x93'\n"
           "      + U(b'math') + b'\\x85R.')\n"
           "for enc in ('ASCII', 'ascii', 'latin1', 'latin-1', 'utf-8',\n"
           "            'UTF8'):\n"
           "    assert cp.loads(ok, encoding=enc, deny=['os']).__name__ == "
           "'math', enc\n"
           "try:\n"
           "    cp.loads(ok, encoding='no-such-codec', allow=['math'])\n"
           "except cp.PolicyError as e:\n"
           "    assert 'no-such-codec' in str(e)\n"
           "else:\n"
           "    raise AssertionError('no-such-codec')\n");
}
