/* test_loads_prechecked.c - cpk_loads_input_prechecked, cloudpickle-load's
 * policed load (src/ccloudpickle.h): it loads exactly what
 * _loads_exact(..., allow=...) loads, without scanning the pickle again
 * (pkscan_scans_started does not move, where _loads_exact's counts one
 * scan); the lookups it permits are the names it was given, nothing
 * else; trailing data is refused with _loads_exact's message; a signed
 * envelope is refused. */
#include <string.h>

#include "ccloudpickle.h"
#include "scan/pkscan.h"
#include "scan/policy.h"
#include "scan/pycompat_scan.h" /* CPK_PY_SCAN_FLAGS */
#include "support.h"

TestSuite(loads_prechecked, .init = cpk_py_start, .fini = cpk_py_stop);

/* The value of a Python expression (pickle, collections, ccloudpickle
 * imported), new reference. */
static PyObject *
eval(const char *expr)
{
    PyObject *g = PyDict_New();
    cr_assert(g != NULL);
    PyObject *r = PyRun_String("import pickle, collections, ccloudpickle",
                               Py_file_input, g, g);
    cr_assert(r != NULL);
    Py_DECREF(r);
    r = PyRun_String(expr, Py_eval_input, g, g);
    if (r == NULL)
        PyErr_Print();
    cr_assert(r != NULL, "%s", expr);
    Py_DECREF(g);
    return r;
}

/* The lookups `data` may make under allow=`pattern`, from a scan as
 * cloudpickle-load makes it. */
static cpk_policy_names *
names_for(PyObject *data, const char *pattern)
{
    cpk_policy *p = cpk_policy_new();
    const char *why = NULL;
    cr_assert(p != NULL && cpk_policy_add(p, 1, pattern, &why) == 0);
    pkscan_report *r = pkscan_scan(PyBytes_AS_STRING(data),
                                   (size_t)PyBytes_GET_SIZE(data),
                                   CPK_PY_SCAN_FLAGS);
    cr_assert(r != NULL && r->status == PKSCAN_OK);
    cr_assert_eq(cpk_policy_check(p, r, NULL, 0), 0);
    cpk_policy_names *n = cpk_policy_names_new(p, r);
    cr_assert(n != NULL);
    pkscan_free(r);
    cpk_policy_free(p);
    return n;
}

/* The exception set is ccloudpickle.<name> (or a subclass); cleared. */
static void
assert_raised(PyObject *module, const char *name)
{
    PyObject *et, *ev, *etb;
    PyErr_Fetch(&et, &ev, &etb);
    cr_assert(et != NULL, "no exception set");
    PyObject *cls = PyObject_GetAttrString(module, name);
    cr_assert(cls != NULL);
    cr_assert(PyErr_GivenExceptionMatches(et, cls), "%s, not %s",
              ((PyTypeObject *)et)->tp_name, name);
    Py_DECREF(cls);
    Py_DECREF(et);
    Py_XDECREF(ev);
    Py_XDECREF(etb);
}

static PyObject *
allow_list(const char *pattern)
{
    PyObject *l = Py_BuildValue("[s]", pattern);
    cr_assert(l != NULL);
    return l;
}

Test(loads_prechecked, loads_as_loads_exact_without_a_second_scan)
{
    PyObject *module = PyImport_ImportModule(CPK_MODULE_NAME);
    cr_assert(module != NULL);
    PyObject *data = eval("pickle.dumps(collections.OrderedDict("
                          "a=[1, 'two', b'3'], b=(None, 4.5)), 5)");
    cpk_policy_names *n = names_for(data, "collections.*");
    PyObject *allow = allow_list("collections.*");

    size_t before = pkscan_scans_started();
    PyObject *obj = cpk_loads_input_prechecked(
        module, PyBytes_AS_STRING(data), (size_t)PyBytes_GET_SIZE(data), n,
        allow, NULL);
    cr_assert(obj != NULL);
    cr_assert_eq(pkscan_scans_started(), before, "the load scanned again");

    /* the same value as _loads_exact under the same policy, which scans */
    PyObject *fn = PyObject_GetAttrString(module, "_loads_exact");
    PyObject *args = PyTuple_Pack(1, data);
    PyObject *kw = Py_BuildValue("{sO}", "allow", allow);
    cr_assert(fn != NULL && args != NULL && kw != NULL);
    PyObject *want = PyObject_Call(fn, args, kw);
    cr_assert(want != NULL);
    cr_assert_eq(pkscan_scans_started(), before + 1);
    cr_assert_eq(PyObject_RichCompareBool(obj, want, Py_EQ), 1);
    cr_assert(Py_IS_TYPE(obj, Py_TYPE(want)));
    Py_DECREF(want);
    Py_DECREF(kw);
    Py_DECREF(args);
    Py_DECREF(fn);
    Py_DECREF(obj);
    Py_DECREF(allow);
    Py_DECREF(data);
    Py_DECREF(module);
}

/* The names are the verdict: a lookup they do not hold is refused at
 * load time (names made for another pickle). */
Test(loads_prechecked, a_lookup_the_names_lack_is_refused)
{
    PyObject *module = PyImport_ImportModule(CPK_MODULE_NAME);
    PyObject *other = eval("pickle.dumps(collections.OrderedDict(), 5)");
    PyObject *data = eval("pickle.dumps(collections.Counter('ab'), 5)");
    cpk_policy_names *n = names_for(other, "collections.*");
    PyObject *allow = allow_list("collections.*");
    PyObject *obj = cpk_loads_input_prechecked(
        module, PyBytes_AS_STRING(data), (size_t)PyBytes_GET_SIZE(data), n,
        allow, NULL);
    cr_assert_null(obj);
    assert_raised(module, "PolicyError");
    Py_DECREF(allow);
    Py_DECREF(data);
    Py_DECREF(other);
    Py_DECREF(module);
}

Test(loads_prechecked, trailing_data_and_signed_envelopes_are_refused)
{
    PyObject *module = PyImport_ImportModule(CPK_MODULE_NAME);
    PyObject *data = eval("pickle.dumps([1, 2], 5) + b'xy'");
    PyObject *plain = eval("pickle.dumps([1, 2], 5)");
    PyObject *allow = allow_list("collections.*");
    PyObject *obj = cpk_loads_input_prechecked(
        module, PyBytes_AS_STRING(data), (size_t)PyBytes_GET_SIZE(data),
        names_for(plain, "collections.*"), allow, NULL);
    cr_assert_null(obj);
    PyObject *et, *ev, *etb;
    PyErr_Fetch(&et, &ev, &etb);
    PyObject *msg = PyObject_Str(ev);
    cr_assert(msg != NULL);
    cr_assert_str_eq(PyUnicode_AsUTF8(msg),
                     "2 bytes of trailing data after the pickle");
    Py_DECREF(msg);
    Py_XDECREF(et);
    Py_XDECREF(ev);
    Py_XDECREF(etb);
    Py_DECREF(data);

    data = eval("ccloudpickle.dumps([1, 2], sign_key=b'k' * 32)");
    obj = cpk_loads_input_prechecked(
        module, PyBytes_AS_STRING(data), (size_t)PyBytes_GET_SIZE(data),
        names_for(plain, "collections.*"), allow, NULL);
    cr_assert_null(obj);
    assert_raised(module, "SignatureError");
    Py_DECREF(data);
    Py_DECREF(plain);
    Py_DECREF(allow);
    Py_DECREF(module);
}
