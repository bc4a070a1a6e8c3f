/* test_callio.c - cli/map/callio.c in-process: results encoded as repr, JSON
 * (byte for byte what json.dumps(ensure_ascii=False, separators=(",",
 * ":"), allow_nan=False) writes, C fast path or not), pickle and none,
 * what cannot be encoded (the one-line why), and exceptions as error
 * records. The programs' use of it is test_cli_call_io.c's. */
#include <string.h>

#include "map/callio.h"
#include "support.h"
#include "common/pycompat.h" /* Py_NewRef before 3.10 */

/* enc_many(fmt, objs): one encoder for all of objs; a list holding, per
 * object, the bytes of its encoding or the str of its why. */
static PyObject *
enc_many(PyObject *self, PyObject *args)
{
    const char *fmt;
    PyObject *objs;
    if (!PyArg_ParseTuple(args, "sO!", &fmt, &PyList_Type, &objs))
        return NULL;
    cpk_result_format f;
    if (cpk_result_format_parse(fmt, &f) < 0) {
        PyErr_SetString(PyExc_ValueError, "bad format");
        return NULL;
    }
    cpk_encoder *e = cpk_encoder_new(f);
    if (e == NULL)
        return NULL;
    PyObject *res = PyList_New(0);
    for (Py_ssize_t i = 0; res != NULL && i < PyList_GET_SIZE(objs); i++) {
        /* Something before: a failure leaves it as it was. */
        cpk_bytebuf b = {0};
        cr_assert(cpk_bytebuf_put(&b, "<>", 2) == 0);
        char *why = NULL;
        PyObject *o = Py_NewRef(PyList_GET_ITEM(objs, i));
        int rc = cpk_encode_result(e, o, &b, &why);
        Py_DECREF(o);
        PyObject *r = NULL;
        if (rc == 0) {
            cr_assert(why == NULL);
            cr_assert(b.len >= 2 && memcmp(b.data, "<>", 2) == 0);
            r = PyBytes_FromStringAndSize(b.data + 2, (Py_ssize_t)b.len - 2);
        }
        else if (rc == 1) {
            cr_assert(why != NULL && strchr(why, '\n') == NULL);
            cr_assert_eq(b.len, 2, "a failure left %zu bytes", b.len - 2);
            r = PyUnicode_FromString(why);
            free(why);
        }
        else
            cr_assert(PyErr_Occurred());
        cpk_bytebuf_release(&b);
        if (r == NULL || PyList_Append(res, r) < 0)
            Py_CLEAR(res);
        Py_XDECREF(r);
    }
    cpk_encoder_free(e);
    return res;
}

/* err_info(fn, record): call fn(), which must raise; (the info dict, its
 * JSON bytes). */
static PyObject *
err_info(PyObject *self, PyObject *args)
{
    PyObject *fn;
    long long record;
    if (!PyArg_ParseTuple(args, "OL", &fn, &record))
        return NULL;
    PyObject *r = PyObject_CallNoArgs(fn);
    cr_assert(r == NULL, "fn() did not raise");
    PyObject *info = cpk_error_info(record);
    if (info == NULL)
        return NULL;
    cr_assert(!PyErr_Occurred());
    cpk_bytebuf b = {0};
    if (cpk_error_info_json(info, &b) < 0) {
        Py_DECREF(info);
        return NULL;
    }
    PyObject *bytes = PyBytes_FromStringAndSize(b.data, (Py_ssize_t)b.len);
    cpk_bytebuf_release(&b);
    PyObject *t = bytes ? PyTuple_Pack(2, info, bytes) : NULL;
    Py_XDECREF(bytes);
    Py_DECREF(info);
    return t;
}

static PyMethodDef methods[] = {
    {"enc_many", enc_many, METH_VARARGS, NULL},
    {"err_info", err_info, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static void
setup(void)
{
    cpk_py_start();
    PyObject *main = PyImport_AddModule("__main__");
    for (PyMethodDef *m = methods; m->ml_name != NULL; m++) {
        PyObject *f = PyCFunction_New(m, NULL);
        cr_assert(f != NULL && PyModule_AddObject(main, m->ml_name, f) == 0);
    }
    cpk_py("import json, math, pickle, sys\n"
           "def enc(fmt, obj):\n"
           "    return enc_many(fmt, [obj])[0]\n"
           "def dumps(o):\n"
           "    return (json.dumps(o, ensure_ascii=False, separators=(',', "
           "':'), allow_nan=False) + '\\n').encode()\n");
}

TestSuite(callio, .init = setup, .fini = cpk_py_stop);

Test(callio, format_names)
{
    cpk_result_format f;
    cr_assert(cpk_result_format_parse("repr", &f) == 0 && f == CPK_RESULT_REPR);
    cr_assert(cpk_result_format_parse("json", &f) == 0 && f == CPK_RESULT_JSON);
    cr_assert(cpk_result_format_parse("pickle", &f) == 0 &&
              f == CPK_RESULT_PICKLE);
    cr_assert(cpk_result_format_parse("none", &f) == 0 && f == CPK_RESULT_NONE);
    cr_assert(cpk_result_format_parse("JSON", &f) < 0);
    cr_assert(cpk_result_format_parse("", &f) < 0);
}

Test(callio, json_plain_values_as_json_dumps)
{
    cpk_py("import collections, enum\n"
           "class I(int): pass\n"
           "class F(float): pass\n"
           "class S(str): pass\n"
           "class L(list): pass\n"
           "class D(dict): pass\n"
           "class E(enum.IntEnum):\n"
           "    A = 3\n"
           "cases = [None, True, False, 0, -1, 1, 2**63 - 1, -2**63, 2**63,\n"
           "    -2**64 - 1, 10**300, 0.0, -0.0, 1.5, 1e16, 1e-7, 1/3,\n"
           "    5e-324, 1.7976931348623157e308, '', 'plain', 'caf\\u00e9',\n"
           "    '\\u65e5\\u672c', '\\U0001f600', 'q\"b\\\\s/\\x00\\x01\\x1f\\x7f'\n"
           "    '\\b\\f\\n\\r\\t\\u2028\\u2029', [], (), {}, [1, [2, [3, []]]],\n"
           "    (1, 'a', None), {'a': 1, 'b': [True, None, 2.5], '': {}},\n"
           "    {'\\u00e9\\n': 'x'}, {1: 'int key', 2.5: 'f', True: 't',\n"
           "    None: 'n'}, I(5), F(2.5), S('s'), L([1]), D(a=1), E.A,\n"
           "    collections.OrderedDict(b=1, a=2), [[[[[[[[[[1]]]]]]]]]],\n"
           "    [{'k': [1, 'x', {'y': None}]}] * 3]\n"
           "got = enc_many('json', cases)\n"
           "for c, g in zip(cases, got):\n"
           "    assert g == dumps(c), (c, g, dumps(c))\n");
}

Test(callio, json_random_nested_data)
{
    cpk_py("import random\n"
           "rnd = random.Random(1234)\n"
           "def s():\n"
           "    return ''.join(chr(rnd.choice([rnd.randrange(0, 0x80),\n"
           "        rnd.randrange(0x80, 0x800), rnd.randrange(0x800, 0xd800),\n"
           "        rnd.randrange(0xe000, 0x110000)])) for _ in\n"
           "        range(rnd.randrange(8)))\n"
           "def v(d):\n"
           "    k = rnd.randrange(9 if d < 4 else 6)\n"
           "    if k == 0: return None\n"
           "    if k == 1: return rnd.random() < 0.5\n"
           "    if k == 2: return rnd.randrange(-2**70, 2**70) >> rnd.randrange(70)\n"
           "    if k == 3: return rnd.uniform(-1e6, 1e6) * 10 ** rnd.randrange(-300, 300)\n"
           "    if k == 4: return s()\n"
           "    if k == 5: return rnd.choice([math.nan, math.inf, -math.inf,\n"
           "        struct.unpack('d', rnd.randbytes(8))[0]])\n"
           "    if k == 6: return [v(d + 1) for _ in range(rnd.randrange(4))]\n"
           "    if k == 7: return tuple(v(d + 1) for _ in range(rnd.randrange(4)))\n"
           "    return {s(): v(d + 1) for _ in range(rnd.randrange(4))}\n"
           "import struct\n"
           "cases = [v(0) for _ in range(3000)]\n"
           "got = enc_many('json', cases)\n"
           "n = 0\n"
           "for c, g in zip(cases, got):\n"
           "    try:\n"
           "        want = dumps(c)\n"
           "    except ValueError:\n"
           "        assert isinstance(g, str) and 'JSON compliant' in g, (c, g)\n"
           "        n += 1\n"
           "        continue\n"
           "    assert g == want, (c, g, want)\n"
           "    assert json.loads(g) == json.loads(want)\n"
           "assert 0 < n < 3000\n");
}

Test(callio, json_refusals_name_the_type)
{
    cpk_py("class Thing: pass\n"
           "deep = []\n"
           "for _ in range(100000):\n"
           "    deep = [deep]\n"
           "loop = [1]\n"
           "loop.append(loop)\n"
           "d = {}\n"
           "d['self'] = d\n"
           "cases = {\n"
           "  'set': ({1}, \"cannot encode a result of type 'set' as JSON\"),\n"
           "  'obj': (Thing(), \"cannot encode a result of type 'Thing' as "
           "JSON\"),\n"
           "  'nested': ([1, {2}], \"cannot encode a result of type 'list' "
           "as JSON: Object of type set is not JSON serializable\"),\n"
           "  'nan': (float('nan'), \"cannot encode a result of type 'float' "
           "as JSON: Out of range float values are not JSON compliant\"),\n"
           "  'inf': ([1, -math.inf], \"cannot encode a result of type 'list' "
           "as JSON: Out of range float values are not JSON compliant\"),\n"
           "  'loop': (loop, \"cannot encode a result of type 'list' as "
           "JSON: Circular reference detected\"),\n"
           "  'dloop': (d, \"cannot encode a result of type 'dict' as "
           "JSON: Circular reference detected\"),\n"
           "  'key': ({(1, 2): 3}, \"cannot encode a result of type 'dict' "
           "as JSON: keys must be str, int, float, bool or None, not "
           "tuple\"),\n"
           "  'surrogate': ('a\\udc80', \"cannot encode a result of type "
           "'str' as JSON: a string holds the lone surrogate '\\\\udc80', "
           "which UTF-8 cannot encode\"),\n"
           "  'surrogate2': ({'k': ['\\ud800x']}, \"cannot encode a result "
           "of type 'dict' as JSON: a string holds the lone surrogate "
           "'\\\\ud800', which UTF-8 cannot encode\"),\n"
           "  'deep': (deep, None),\n"
           "}\n"
           "got = enc_many('json', [c[0] for c in cases.values()])\n"
           "for (name, (obj, want)), g in zip(cases.items(), got):\n"
           "    assert isinstance(g, str), (name, g)\n"
           "    if want is None:\n"
           "        assert g.startswith(\"cannot encode a result of type "
           "'list' as JSON: maximum recursion depth exceeded\"), g\n"
           "    else:\n"
           "        assert g.startswith(want), (name, g, want)\n"
           "# After failures, the same encoder still encodes.\n"
           "got = enc_many('json', [loop, [1, [2]], {1}, {'a': [1]}])\n"
           "assert got[1:4:2] == [b'[1,[2]]\\n', b'{\"a\":[1]}\\n'], got\n");
}

Test(callio, json_failed_walk_leaves_no_false_cycle)
{
    /* json's C encoder leaves the ids of the containers it was in when it
     * failed in its markers; a later object at the same address must not
     * be taken for a cycle. */
    cpk_py("objs = []\n"
           "for i in range(200):\n"
           "    objs.append([[i, {1}]])\n"
           "    objs.append([[i, 1.5j]])\n"
           "got = enc_many('json', objs)\n"
           "assert all('Circular' not in g for g in got if isinstance(g, str))"
           ", got\n"
           "ids = set()\n"
           "def fresh():\n"
           "    return [['x', {'y': set()}]]\n"
           "cases = [fresh() if i % 2 == 0 else [['ok', {'y': i}]] for i in "
           "range(100)]\n"
           "got = enc_many('json', cases)\n"
           "for i, g in enumerate(got):\n"
           "    if i % 2: assert g == dumps(cases[i]), g\n");
}

Test(callio, repr_and_none)
{
    cpk_py("class R:\n"
           "    def __repr__(self): return 'r\\u00e9\\ud800!'\n"
           "class Bad:\n"
           "    def __repr__(self): raise RuntimeError('no\\nrepr')\n"
           "got = enc_many('repr', [1, 'caf\\u00e9', [1.5, None], {'a': b'x'},"
           " R(), Bad()])\n"
           "assert got[:5] == [b'1\\n', \"'caf\\u00e9'\\n\".encode(),\n"
           "    b'[1.5, None]\\n', b\"{'a': b'x'}\\n\", "
           "'r\\u00e9\\\\ud800!\\n'.encode()], got\n"
           "assert got[5] == \"cannot encode a result of type 'Bad' with "
           "repr(): RuntimeError: no repr\", got[5]\n"
           "assert enc_many('none', [1, {1}, Bad()]) == [b'', b'', b'']\n");
}

Test(callio, pickle_round_trip_and_refusal)
{
    cpk_py("import ccloudpickle, threading\n"
           "def f(x):\n"
           "    return x + 1\n"
           "got = enc_many('pickle', [f, {'a': [1, 2.5, 'x']}, "
           "threading.local()])\n"
           "assert got[0][:2] == b'\\x80\\x05', got[0][:2]\n"
           "assert ccloudpickle.loads(got[0])(2) == 3\n"
           "assert pickle.loads(got[1]) == {'a': [1, 2.5, 'x']}\n"
           "assert got[2].startswith(\"cannot encode a result of type '_local' "
           "as a pickle: TypeError: cannot pickle '_thread._local' object\"),"
           " got[2]\n");
}

Test(callio, pickle_refusal_carries_exception_notes)
{
    if (PY_VERSION_HEX < 0x030B0000)
        cr_skip_test("exception notes are 3.11+");
    cpk_py("class N:\n"
           "    def __reduce__(self):\n"
           "        e = ValueError('nope')\n"
           "        e.add_note('at x[0]')\n"
           "        e.add_note('second')\n"
           "        raise e\n"
           "g = enc('pickle', N())\n"
           "assert g == \"cannot encode a result of type 'N' as a pickle: "
           "ValueError: nope (at x[0]; second)\", g\n");
}

Test(callio, keyboard_interrupt_and_memory_error_propagate)
{
    cpk_py("class K:\n"
           "    def __repr__(self): raise KeyboardInterrupt\n"
           "    def __reduce__(self): raise MemoryError\n"
           "for fmt, exc in (('repr', KeyboardInterrupt), "
           "('pickle', MemoryError), ('json', None)):\n"
           "    try:\n"
           "        r = enc(fmt, K())\n"
           "    except BaseException as e:\n"
           "        assert type(e) is exc, (fmt, e)\n"
           "    else:\n"
           "        assert exc is None and r == \"cannot encode a result of "
           "type 'K' as JSON\", (fmt, r)\n");
}

Test(callio, error_info_records)
{
    cpk_py("import traceback\n"
           "class Mine(Exception): pass\n"
           "def boom():\n"
           "    raise ValueError('bad\\nthing \\u00e9')\n"
           "info, data = err_info(boom, 0)\n"
           "assert list(info) == ['type', 'message', 'traceback'], info\n"
           "assert info['type'] == 'ValueError'\n"
           "assert info['message'] == 'bad\\nthing \\u00e9'\n"
           "tb = info['traceback']\n"
           "assert tb.startswith('Traceback (most recent call last):\\n'), tb\n"
           "assert tb.endswith('ValueError: bad\\nthing \\u00e9\\n'), tb\n"
           "assert 'in boom' in tb, tb\n"
           "assert data.endswith(b'\\n') and data.count(b'\\n') == 1, data\n"
           "assert json.loads(data) == info\n"
           "assert data == dumps(info), data\n"
           "def mine():\n"
           "    raise Mine('\\ud800')\n"
           "info, data = err_info(mine, 7)\n"
           "assert info['type'] == '__main__.Mine', info\n"
           "assert info['message'] == '\\\\ud800', info\n"
           "assert info['record'] == 7 and list(info)[-1] == 'record'\n"
           "assert json.loads(data) == info\n"
           "class NoStr(Exception):\n"
           "    def __str__(self): raise RuntimeError('no')\n"
           "def nostr():\n"
           "    raise NoStr()\n"
           "info, data = err_info(nostr, 1)\n"
           "assert info['message'] == '' and info['type'] == '__main__.NoStr'\n"
           "assert json.loads(data) == info\n");
}
