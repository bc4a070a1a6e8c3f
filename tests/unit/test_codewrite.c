/* test_codewrite.c - code objects are written straight in the compact
 * marshal form (src/types/codewrite.c). The oracle is the definition: marshal's
 * version 2 bytes rewritten as doc/FORMAT.md says (ASCII strings in the
 * short forms, small tuples as TYPE_SMALL_TUPLE, set elements sorted),
 * done here in Python on marshal.dumps(code, 2). Every code object of the
 * running interpreter's standard library, and constants of every kind,
 * must give exactly those bytes, and load back to code that marshal
 * writes the same way again. */
#include "internal.h" /* cpk_code_compact */
#include "support.h"

/* The pickler's calls of the writer go through this wrapper (the Makefile
 * links this test with --wrap=cpk_code_compact), counted: the pickle is
 * the same whether the writer or the old path made it, so only the count
 * shows the writer is used. */
PyObject *__real_cpk_code_compact(PyObject *code);
PyObject *__wrap_cpk_code_compact(PyObject *code);
static long writer_calls;

PyObject *
__wrap_cpk_code_compact(PyObject *code)
{
    writer_calls++;
    return __real_cpk_code_compact(code);
}

/* direct(code): what the writer alone gives, None where it declines;
 * calls(): how many times the pickler called it. */
static PyObject *
direct(PyObject *self, PyObject *code)
{
    (void)self;
    PyObject *out = __real_cpk_code_compact(code);
    if (out == NULL && !PyErr_Occurred())
        Py_RETURN_NONE;
    return out;
}

static PyObject *
calls(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyLong_FromLong(writer_calls);
}

static PyMethodDef hooks[] = {
    {"direct", direct, METH_O, NULL},
    {"calls", calls, METH_NOARGS, NULL},
};

static void
start(void)
{
    cpk_py_start();
    for (size_t i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++) {
        PyObject *f = PyCFunction_New(&hooks[i], NULL);
        cr_assert(f != NULL && PyDict_SetItemString(PyEval_GetBuiltins(),
                                                    hooks[i].ml_name,
                                                    f) == 0);
        Py_DECREF(f);
    }
}

TestSuite(codewrite, .init = start, .fini = cpk_py_stop);

/* norm(marshal_bytes) -> compact bytes; payload(code) -> the data
 * ccloudpickle writes for it (the third argument of _code_unmarshal). */
#define ORACLE                                                               \
    "import ccloudpickle as cp, io, marshal, pickle, sys\n"                  \
    "NEW = sys.version_info >= (3, 11)\n"                                    \
    "def norm(b):\n"                                                         \
    "    pos = 0\n"                                                          \
    "    def take(n):\n"                                                     \
    "        nonlocal pos\n"                                                 \
    "        pos += n\n"                                                     \
    "        return b[pos - n:pos]\n"                                        \
    "    def i32(raw):\n"                                                    \
    "        return int.from_bytes(raw, 'little', signed=True)\n"            \
    "    def le(n):\n"                                                       \
    "        return n.to_bytes(4, 'little', signed=True)\n"                  \
    "    def obj():\n"                                                       \
    "        t = take(1)\n"                                                  \
    "        if t in (b'0', b'N', b'F', b'T', b'S', b'.'):\n"                \
    "            return t\n"                                                 \
    "        if t == b'i':\n"                                                \
    "            return t + take(4)\n"                                       \
    "        if t == b'g':\n"                                                \
    "            return t + take(8)\n"                                       \
    "        if t == b'y':\n"                                                \
    "            return t + take(16)\n"                                      \
    "        if t == b'l':\n"                                                \
    "            raw = take(4)\n"                                            \
    "            return t + raw + take(2 * abs(i32(raw)))\n"                 \
    "        if t == b's':\n"                                                \
    "            raw = take(4)\n"                                            \
    "            return t + raw + take(i32(raw))\n"                          \
    "        if t == b'u':\n"                                                \
    "            n = i32(take(4))\n"                                         \
    "            d = take(n)\n"                                              \
    "            if not d.isascii():\n"                                      \
    "                return b'u' + le(n) + d\n"                              \
    "            return (b'z' + bytes([n]) if n < 256 else b'a' + le(n)) + d\n" \
    "        if t in (b'(', b'['):\n"                                        \
    "            n = i32(take(4))\n"                                         \
    "            head = (b')' + bytes([n]) if t == b'(' and n < 256\n"       \
    "                    else t + le(n))\n"                                  \
    "            return head + b''.join(obj() for _ in range(n))\n"          \
    "        if t in (b'<', b'>'):\n"                                        \
    "            raw = take(4)\n"                                            \
    "            return t + raw + b''.join(sorted(obj()\n"                   \
    "                                             for _ in range(i32(raw))))\n" \
    "        if t == b'{':\n"                                                \
    "            out = t\n"                                                  \
    "            while b[pos:pos + 1] != b'0':\n"                            \
    "                out += obj() + obj()\n"                                 \
    "            return out + take(1)\n"                                     \
    "        if t == b'c':\n"                                                \
    "            out = t + take(20 if NEW else 24)\n"                        \
    "            out += b''.join(obj() for _ in range(8)) + take(4)\n"       \
    "            return out + b''.join(obj() for _ in range(2 if NEW else 1))\n" \
    "        raise ValueError('unexpected marshal type %r' % t)\n"           \
    "    out = obj()\n"                                                      \
    "    assert pos == len(b)\n"                                             \
    "    return out\n"                                                       \
    "class Rec(pickle.Unpickler):\n"                                         \
    "    def find_class(self, m, n):\n"                                      \
    "        if n in ('_code_unmarshal', '_code_new'):\n"                    \
    "            return lambda *a: (n, a)\n"                                 \
    "        return super().find_class(m, n)\n"                              \
    "def payload(code):\n"                                                   \
    "    before = calls()\n"                                                 \
    "    data = cp.dumps(code)\n"                                            \
    "    assert calls() > before, 'the pickler did not call the writer'\n"   \
    "    return Rec(io.BytesIO(data)).load()\n"                              \
    "def check(code, where, equal=True):\n"                                  \
    "    name, (version, magic, data) = payload(code)\n"                     \
    "    assert name == '_code_unmarshal', (where, name)\n"                  \
    "    want = norm(marshal.dumps(code, 2))\n"                              \
    "    assert data == want, (where, len(data), len(want))\n"               \
    "    again = norm(marshal.dumps(marshal.loads(data), 2))\n"                 \
    "    assert again == data, (where, 'reloaded')\n"                          \
    "    assert not equal or marshal.loads(data) == code, where\n"        \
    "    alone = direct(code)\n"                                           \
    "    assert alone is None or alone == want, (where, 'direct')\n"       \
    "    return alone is not None\n"

Test(codewrite, standard_library_byte_for_byte)
{
    cpk_py(ORACLE
           "import glob, os, sysconfig\n"
           "lib = sysconfig.get_paths()['stdlib']\n"
           "files = sorted(glob.glob(os.path.join(lib, '*.py')) +\n"
           "               glob.glob(os.path.join(lib, '*', '*.py')))\n"
           "import warnings\n"
           "done = written = 0\n"
           "for path in files:\n"
           "    try:\n"
           "        with open(path, 'rb') as fh:\n"
           "            source = fh.read()\n"
           /* (old escapes in the test suites warn at compile time) */
           "        with warnings.catch_warnings():\n"
           "            warnings.simplefilter('ignore', SyntaxWarning)\n"
           "            warnings.simplefilter('ignore', DeprecationWarning)\n"
           "            code = compile(source, path, 'exec')\n"
           "    except (SyntaxError, ValueError):\n"
           "        continue\n"
           /* (code == code fails for some constants on 3.9: NaN) */
           "    written += check(code, path, equal=False)\n"
           "    done += 1\n"
           "assert done > 300, done\n"
           "assert written > 0.8 * done, (written, done)\n");
}

Test(codewrite, every_kind_of_constant)
{
    cpk_py(ORACLE
           "src = '''\n"
           "def f(x):\n"
           "    a = (1.5, -0.0, 2j, 2**31 - 1, -2**31, 2**31, -2**31 - 1,\n"
           "         2**62, 10**40, -10**40, 0, -1, b'', b'\\\\x00\\\\xff',\n"
           "         'é\\\\udc80', 'ascii', '', 'x' * 300, 'ü' * 300,\n"
           "         tuple(range(300)), (), ((),), ..., None, True, False)\n"
           "    b = x in {'alpha', 'beta', 1, 2.5, b'raw', (1, 'a')}\n"
           "    c = x in frozenset(range(50))\n"
           "    def g(y=(1, 2)):\n"
           "        return lambda: y\n"
           "    return a, b, c, g\n"
           "'''\n"
           "check(compile(src, 'consts.py', 'exec'), 'constants')\n"
           /* a name that is not valid UTF-8 without surrogatepass */
           "code = compile('def f():\\n    return 1\\n', 'x.py', 'exec')\n"
           "inner = code.co_consts[0].replace(co_name='bad\\udc80name')\n"
           "assert check(inner, 'surrogate name')\n"
           "assert check(code.replace(co_filename='dir/ü/file.py'), 'non-ASCII path')\n"
           /* constants put there by hand: a dict, which marshal writes
            * (code with a dict constant equals no other code: compared
            * by identity); a long tuple of code */
           "check(inner.replace(co_consts=({'k': (1, 2)}, None)), 'dict',\n"
           "      equal=False)\n"
           "many = tuple(inner for _ in range(260))\n"
           "assert check(code.replace(co_consts=many), 'tuple of 260 codes')\n");
}

/* What the writer leaves to the old path gives the old path's answer:
 * code nested deeper than it goes, constants marshal refuses (the code
 * then travels as its constructor's fields). */
Test(codewrite, what_it_leaves_to_marshal)
{
    cpk_py(ORACLE
           "deep = compile('f = ' + 'lambda: ' * 150 + '1', 'deep', 'exec')\n"
           /* (equality of code this deep takes exponential time: the
            * code is run instead) */
           "assert not check(deep, 'deep', equal=False)\n"
           "f = cp.loads(cp.dumps(deep))\n"
           "ns = {}\n"
           "exec(f, ns)\n"
           "g = ns['f']\n"
           "for _ in range(150):\n"
           "    g = g()\n"
           "assert g == 1\n"
           "code = compile('def f():\\n    return 1\\n', 'x.py', 'exec')\n"
           "odd = code.replace(co_consts=(object(), None))\n"
           "name, args = payload(odd)\n"
           "assert name == '_code_new', name\n"
           /* a frozenset constant nested nearly as deep as marshal
            * writes: marshal counts its depth from the code (review
            * i11g: written alone, it was shipped as data no loader
            * reads) */
           "sys.setrecursionlimit(100000)\n"
           "t = ()\n"
           "for _ in range(1997):\n"
           "    t = (t,)\n"
           "inner = code.co_consts[0]\n"
           "odd = inner.replace(co_consts=(frozenset({t}), None))\n"
           "assert direct(odd) is None\n"
           "back = cp.loads(cp.dumps(odd))\n"
           /* (compared by walking: == on it overflows 3.12's C stack
            * limit, which setrecursionlimit does not raise) */
           "assert type(back.co_consts[0]) is frozenset\n"
           "x, = back.co_consts[0]\n"
           "depth = 0\n"
           "while x != ():\n"
           "    assert type(x) is tuple and len(x) == 1\n"
           "    x, = x\n"
           "    depth += 1\n"
           "assert depth == 1997, depth\n"
           "class Weird(int):\n"
           "    pass\n"
           "odd = code.replace(co_consts=(Weird(3), None))\n"
           "assert payload(odd)[0] == '_code_new'\n");
}
