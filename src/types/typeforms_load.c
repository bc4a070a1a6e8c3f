/* typeforms_load.c - the load side of typeforms.c: _make_typeparam
 * (TypeVar with 3.12/3.13 options, ParamSpec, TypeVarTuple) and
 * _make_newtype, each made once per tracker id (tracker.c). Arguments
 * come from a pickle: checked before use (args.c), as in reconstruct.c,
 * which holds _make_typevar.
 */
#include "types/typeforms_load.h"
#include "core/state.h"
#include "core/args.h"
#include "core/tracker.h"

/* typing.<name> (new reference). */
static PyObject *
typing_attr(const char *name)
{
    PyObject *typing = PyImport_ImportModule("typing");
    if (typing == NULL)
        return NULL;
    PyObject *r = PyObject_GetAttrString(typing, name);
    Py_DECREF(typing);
    return r;
}

/* The keyword arguments each kind's constructor takes from a pickle, and
 * whether each must be a bool. */
static const struct {
    const char *key;
    int is_bool;
    int kinds; /* bit 0 TypeVar, 1 ParamSpec, 2 TypeVarTuple */
} param_options[] = {
    {"bound", 0, 3},          {"covariant", 1, 3}, {"contravariant", 1, 3},
    {"infer_variance", 1, 3}, {"default", 0, 7},
};

static const char *const param_kinds[] = {"TypeVar", "ParamSpec",
                                          "TypeVarTuple"};

/* Check `options` against the kind (index into param_kinds). 1 or 0 with
 * an error set. Runs no Python code (exact str keys). */
static int
check_options(cpk_state *st, int kind, PyObject *options)
{
    static const char *const fname = "_make_typeparam";
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (PyDict_Next(options, &pos, &k, &v)) {
        if (!PyUnicode_CheckExact(k))
            return cpk_arg_error(st, 0, fname,
                                 "argument 4 (options) keys must be str, "
                                 "not %s",
                                 Py_TYPE(k)->tp_name);
        size_t i = 0, n = sizeof(param_options) / sizeof(param_options[0]);
        while (i < n &&
               PyUnicode_CompareWithASCIIString(k, param_options[i].key))
            i++;
        if (i == n || !(param_options[i].kinds & (1 << kind)))
            return cpk_arg_error(st, 1, fname,
                                 "argument 4 (options) has %R, which %s "
                                 "does not take",
                                 k, param_kinds[kind]);
        if (param_options[i].is_bool &&
            !cpk_check_value(st, fname, "argument 4 (options) value", v,
                             CPK_ARG_BOOL))
            return 0;
    }
    return 1;
}

SIG(_make_typeparam, -1, {"kind", CPK_ARG_STR}, {"name", CPK_ARG_STR},
    {"constraints", CPK_ARG_TUPLE}, {"options", CPK_ARG_DICT},
    {"tracker_id", CPK_ARG_STR | CPK_ARG_OR_NONE});

/* _make_typeparam(kind, name, constraints, options, tracker_id):
 * typing.<kind>(name, *constraints, **options), kind being "TypeVar",
 * "ParamSpec" or "TypeVarTuple", once per tracker id. New reference. */
static PyObject *
make_typeparam(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    static const char *const fname = "_make_typeparam";
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &_make_typeparam_sig, args, nargs))
        return NULL;
    int kind = 0;
    while (kind < 3 &&
           PyUnicode_CompareWithASCIIString(args[0], param_kinds[kind]))
        kind++;
    if (kind == 3) {
        cpk_arg_error(st, 1, fname,
                      "argument 1 (kind) must be 'TypeVar', 'ParamSpec' or "
                      "'TypeVarTuple', not %R",
                      args[0]);
        return NULL;
    }
    if (kind != 0 && PyTuple_GET_SIZE(args[2]) != 0) {
        cpk_arg_error(st, 1, fname,
                      "argument 3 (constraints) must be empty for a %s",
                      param_kinds[kind]);
        return NULL;
    }
    if (!check_options(st, kind, args[3]))
        return NULL;
    PyObject *ctor = typing_attr(param_kinds[kind]);
    if (ctor == NULL)
        return NULL;
    PyObject *name = NULL, *pos = NULL, *kw = NULL, *obj = NULL;
    PyObject *result = NULL;
    name = PyTuple_Pack(1, args[1]);
    if (name == NULL)
        goto done;
    pos = PySequence_Concat(name, args[2]);
    /* A copy: the constructor may run code that changes the original. */
    kw = PyDict_Copy(args[3]);
    if (pos == NULL || kw == NULL)
        goto done;
    obj = PyObject_Call(ctor, pos, kw);
    if (obj != NULL) {
        int found;
        result = cpk_tracker_lookup_or_track(st, args[4], obj, &found);
    }
done:
    Py_XDECREF(name);
    Py_XDECREF(pos);
    Py_XDECREF(kw);
    Py_XDECREF(obj);
    Py_DECREF(ctor);
    return result;
}

SIG(_make_newtype, -1, {"qualname", CPK_ARG_STR}, {"supertype", CPK_ARG_ANY},
    {"module", CPK_ARG_STR | CPK_ARG_OR_NONE},
    {"tracker_id", CPK_ARG_STR | CPK_ARG_OR_NONE});

/* _make_newtype(qualname, supertype, module, tracker_id):
 * typing.NewType(qualname, supertype) with that __module__, once per
 * tracker id. New reference. */
static PyObject *
make_newtype(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &_make_newtype_sig, args, nargs))
        return NULL;
    PyObject *ctor = typing_attr("NewType");
    if (ctor == NULL)
        return NULL;
    PyObject *nt = PyObject_CallFunctionObjArgs(ctor, args[0], args[1], NULL);
    Py_DECREF(ctor);
    if (nt == NULL)
        return NULL;
    /* NewType takes its __module__ from its caller's frame, here whoever
     * called the loader. */
    if (args[2] != Py_None &&
        PyObject_SetAttr(nt, st->str___module__, args[2]) < 0) {
        Py_DECREF(nt);
        return NULL;
    }
    int found;
    PyObject *result = cpk_tracker_lookup_or_track(st, args[3], nt, &found);
    Py_DECREF(nt);
    return result;
}

PyMethodDef cpk_typeform_methods[] = {
    FAST("_make_typeparam", make_typeparam,
         "_make_typeparam(kind, name, constraints, options, tracker_id)\n--\n"
         "\nRebuild a TypeVar, ParamSpec or TypeVarTuple, once per tracker "
         "id."),
    FAST("_make_newtype", make_newtype,
         "_make_newtype(qualname, supertype, module, tracker_id)\n--\n\n"
         "Rebuild a typing.NewType, once per tracker id."),
    {NULL, NULL, 0, NULL},
};
