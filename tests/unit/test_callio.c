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
    cpk_py_file("json_plain_values_as_json_dumps.py");
}

Test(callio, json_random_nested_data)
{
    cpk_py_file("json_random_nested_data.py");
}

Test(callio, json_refusals_name_the_type)
{
    cpk_py_file("json_refusals_name_the_type.py");
}

Test(callio, json_failed_walk_leaves_no_false_cycle)
{
    /* json's C encoder leaves the ids of the containers it was in when it
     * failed in its markers; a later object at the same address must not
     * be taken for a cycle. */
    cpk_py_file("json_failed_walk_leaves_no_false_cycle.py");
}

Test(callio, repr_and_none)
{
    cpk_py_file("repr_and_none.py");
}

Test(callio, pickle_round_trip_and_refusal)
{
    cpk_py_file("pickle_round_trip_and_refusal.py");
}

Test(callio, pickle_refusal_carries_exception_notes)
{
    if (PY_VERSION_HEX < 0x030B0000)
        cr_skip_test("exception notes are 3.11+");
    cpk_py_file("pickle_refusal_carries_exception_notes.py");
}

Test(callio, keyboard_interrupt_and_memory_error_propagate)
{
    cpk_py_file("keyboard_interrupt_and_memory_error_propagate.py");
}

Test(callio, error_info_records)
{
    cpk_py_file("error_info_records.py");
}
