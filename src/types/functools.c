/* functools.c - functools' wrappers by value, both sides. A
 * singledispatch function travels as its undecorated function and its
 * registrations, replayed on a new dispatcher (whose weak references and
 * dispatch caches are made anew, never pickled). An lru_cache wrapper
 * travels as its function, maxsize and typed-ness: a new, empty cache.
 * The hooks: function.c (a singledispatch wrapper is a plain function)
 * and reducers.c (the lru_cache wrapper's type, found by lazytypes.c).
 */
#include "types/functools.h"
#include "core/state.h"
#include "common/pycompat.h"
#include "core/args.h"
#include "core/lookup.h"
#include "core/subtype.h"

/* The wrapper's __dict__ entries that functools.singledispatch makes
 * itself; the rest (what update_wrapper copied, what the user set)
 * travels. */
static const char *const dispatch_own[] = {
    "registry", "dispatch", "register", "_clear_cache", "__wrapped__",
};
#define NOWN (sizeof(dispatch_own) / sizeof(dispatch_own[0]))

/* 1 if `func` is a function functools.singledispatch made (its code is
 * functools' `wrapper`, its globals functools', its __dict__ holds the
 * registry), 0 if not, -1 on error. Runs no Python code but dict lookups
 * of str keys in the function's own __dict__. */
static int
is_singledispatch(cpk_state *st, PyObject *func)
{
    PyFunctionObject *f = (PyFunctionObject *)func;
    PyObject *name = ((PyCodeObject *)f->func_code)->co_name;
    if (f->func_dict == NULL || !PyUnicode_Check(name) ||
        PyUnicode_CompareWithASCIIString(name, "wrapper") != 0)
        return 0;
    PyObject *m;
    if (cpk_dict_get_ref(st->sys_modules, st->str_functools, &m) <= 0)
        return PyErr_Occurred() ? -1 : 0;
    int r = PyModule_Check(m) && PyModule_GetDict(m) == f->func_globals;
    Py_DECREF(m);
    if (r == 0)
        return 0;
    PyObject *d = Py_NewRef(f->func_dict);
    r = PyDict_Contains(d, st->str_registry);
    if (r > 0)
        r = PyDict_Contains(d, st->str_register);
    if (r > 0)
        r = PyDict_Contains(d, st->str___wrapped__);
    Py_DECREF(d);
    return r;
}

/* A copy of `d` without the singledispatch's own entries. */
static PyObject *
dispatch_attrs(PyObject *d)
{
    PyObject *attrs = PyDict_Copy(d);
    for (size_t i = 0; attrs != NULL && i < NOWN; i++) {
        PyObject *k = PyUnicode_FromString(dispatch_own[i]);
        int r = k == NULL ? -2 : PyDict_DelItem(attrs, k);
        Py_XDECREF(k);
        if (r == -1 && PyErr_ExceptionMatches(PyExc_KeyError))
            PyErr_Clear();
        else if (r < 0)
            Py_CLEAR(attrs);
    }
    return attrs;
}

/* The registrations to replay, in the registry's order (its dict's
 * order: the order of registration), as ((cls, impl), ...): all but the
 * entry for object that singledispatch(func) makes itself. */
static PyObject *
dispatch_pairs(PyObject *registry, PyObject *wrapped)
{
    PyObject *items = PyMapping_Items(registry), *pairs = NULL;
    if (items == NULL)
        return NULL;
    pairs = PyList_New(0);
    for (Py_ssize_t i = 0; pairs != NULL && i < PyList_GET_SIZE(items); i++) {
        PyObject *it = PyList_GET_ITEM(items, i);
        if (!PyTuple_Check(it) || PyTuple_GET_SIZE(it) != 2) {
            PyErr_SetString(PyExc_TypeError,
                            "singledispatch registry items must be pairs");
            Py_CLEAR(pairs);
            break;
        }
        if (PyTuple_GET_ITEM(it, 0) == (PyObject *)&PyBaseObject_Type &&
            PyTuple_GET_ITEM(it, 1) == wrapped)
            continue;
        if (PyList_Append(pairs, it) < 0)
            Py_CLEAR(pairs);
    }
    Py_DECREF(items);
    if (pairs != NULL)
        Py_SETREF(pairs, PyList_AsTuple(pairs));
    return pairs;
}

PyObject *
cpk_reduce_singledispatch(cpk_state *st, PyObject *pickler, PyObject *func)
{
    int r = is_singledispatch(st, func);
    if (r <= 0)
        return r < 0 ? NULL : Py_NewRef(Py_NotImplemented);
    /* Stock loaders have no way to replay the registrations: the stock
     * formats keep today's behaviour (the registry's weak references do
     * not pickle). */
    if (CPK_PICKLER_EXT(pickler)->format != CPK_FORMAT_NATIVE)
        return Py_NewRef(Py_NotImplemented);
    PyObject *d = Py_NewRef(((PyFunctionObject *)func)->func_dict);
    PyObject *wrapped = NULL, *registry = NULL, *pairs = NULL, *attrs = NULL;
    PyObject *args = NULL, *state = NULL, *result = NULL;
    if (cpk_dict_get_ref(d, st->str___wrapped__, &wrapped) <= 0 ||
        cpk_dict_get_ref(d, st->str_registry, &registry) <= 0) {
        if (!PyErr_Occurred())
            PyErr_Format(st->PicklingError,
                         "Can't pickle singledispatch function %R: its "
                         "__wrapped__ or registry is gone",
                         func);
        goto done;
    }
    if ((pairs = dispatch_pairs(registry, wrapped)) == NULL ||
        (attrs = dispatch_attrs(d)) == NULL ||
        (args = PyTuple_Pack(1, wrapped)) == NULL ||
        (state = PyTuple_Pack(2, pairs, attrs)) == NULL)
        goto done;
    result = cpk_reduce6(st->singledispatch_new, args, state,
                         st->singledispatch_fill);
done:
    Py_DECREF(d);
    Py_XDECREF(wrapped);
    Py_XDECREF(registry);
    Py_XDECREF(pairs);
    Py_XDECREF(attrs);
    Py_XDECREF(args);
    Py_XDECREF(state);
    return result;
}

/* functools.<name> (new reference), importing functools. */
static PyObject *
functools_attr(cpk_state *st, PyObject *name)
{
    PyObject *m = PyImport_Import(st->str_functools);
    if (m == NULL)
        return NULL;
    PyObject *r = PyObject_GetAttr(m, name);
    Py_DECREF(m);
    return r;
}

PyObject *
cpk_reduce_lru_cache(cpk_state *st, int format, PyObject *obj)
{
    /* Importable wrappers go by reference: what the type's __reduce__
     * gives (its qualname), not NotImplemented, so that _reduce in a
     * dispatch table CPython consults works too. */
    int r = cpk_should_pickle_by_reference(st, obj);
    if (r != 0)
        return r < 0 ? NULL
                     : PyObject_CallMethodNoArgs(obj, st->str___reduce__);
    PyObject *dict = NULL, *func = NULL, *params = NULL, *maxsize = NULL;
    PyObject *typed = NULL, *args = NULL, *result = NULL, *callable = NULL;
    dict = PyObject_GetAttr(obj, st->str___dict__);
    if (dict == NULL)
        goto done;
    if (!PyDict_Check(dict)) {
        PyErr_Format(st->PicklingError,
                     "Can't pickle %R: its __dict__ is not a dict", obj);
        goto done;
    }
    Py_SETREF(dict, PyDict_Copy(dict));
    if (dict == NULL)
        goto done;
    /* The wrapped function is only reachable as update_wrapper's
     * __wrapped__; maxsize and typed only through cache_parameters(),
     * which lru_cache adds (documented since 3.9). */
    if (cpk_dict_get_ref(dict, st->str___wrapped__, &func) < 0)
        goto done;
    if (func == NULL) {
        PyErr_Format(st->PicklingError,
                     "Can't pickle lru_cache wrapper %R by value: it has no "
                     "__wrapped__",
                     obj);
        goto done;
    }
    params = PyObject_CallMethodNoArgs(obj, st->str_cache_parameters);
    if (params == NULL)
        goto done;
    if (!PyDict_Check(params) ||
        cpk_dict_get_ref(params, st->str_maxsize, &maxsize) <= 0 ||
        cpk_dict_get_ref(params, st->str_typed, &typed) <= 0 ||
        (maxsize != Py_None && !PyLong_Check(maxsize))) {
        if (!PyErr_Occurred())
            PyErr_Format(st->PicklingError,
                         "Can't pickle lru_cache wrapper %R by value: its "
                         "cache_parameters() is not {'maxsize': int or None, "
                         "'typed': ...}",
                         obj);
        goto done;
    }
    int is_typed = PyObject_IsTrue(typed);
    if (is_typed < 0)
        goto done;
    if (format == CPK_FORMAT_NATIVE) {
        /* The reconstructor makes both anew. */
        if ((PyDict_DelItem(dict, st->str___wrapped__) < 0) ||
            (PyDict_DelItem(dict, st->str_cache_parameters) < 0 &&
             !PyErr_ExceptionMatches(PyExc_KeyError)))
            goto done;
        PyErr_Clear();
        args = PyTuple_Pack(3, func, maxsize, is_typed ? Py_True : Py_False);
        callable = Py_NewRef(st->lru_cache_new);
    }
    else {
        /* Stock loaders: functools' own constructor, what lru_cache
         * calls; __dict__ (update_wrapper's attributes, cache_parameters)
         * set by BUILD. */
        PyObject *info = functools_attr(st, st->str__CacheInfo);
        callable = functools_attr(st, st->str__lru_cache_wrapper);
        if (info != NULL && callable != NULL)
            args = PyTuple_Pack(4, func, maxsize,
                                is_typed ? Py_True : Py_False, info);
        Py_XDECREF(info);
    }
    if (args != NULL)
        result = PyTuple_Pack(3, callable, args, dict);
done:
    Py_XDECREF(dict);
    Py_XDECREF(func);
    Py_XDECREF(params);
    Py_XDECREF(maxsize);
    Py_XDECREF(typed);
    Py_XDECREF(args);
    Py_XDECREF(callable);
    return result;
}

/* singledispatchmethod(func), then BUILD of its __dict__: the dispatcher
 * (a singledispatch function, above) replaces the one __init__ made.
 * From 3.12.? __init__ also makes _method_cache, a WeakKeyDictionary of
 * bound methods: per process, not pickled. The stock formats keep
 * stock's own path (the dispatcher's weak dicts go as per-process
 * objects, primitives.c). */
PyObject *
cpk_reduce_sdmethod(cpk_state *st, int format, PyObject *obj)
{
    if (format != CPK_FORMAT_NATIVE)
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *dict = PyObject_GetAttr(obj, st->str___dict__), *func = NULL;
    PyObject *callable = NULL, *args = NULL, *result = NULL;
    if (dict == NULL)
        return NULL;
    if (!PyDict_Check(dict)) {
        Py_DECREF(dict);
        Py_RETURN_NOTIMPLEMENTED;
    }
    Py_SETREF(dict, PyDict_Copy(dict));
    if (dict == NULL || cpk_dict_get_ref(dict, st->str_func, &func) < 0)
        goto done;
    if (func == NULL) {
        result = Py_NewRef(Py_NotImplemented);
        goto done;
    }
    if (PyDict_DelItem(dict, st->str__method_cache) < 0) {
        if (!PyErr_ExceptionMatches(PyExc_KeyError))
            goto done;
        PyErr_Clear();
    }
    callable = functools_attr(st, st->str_singledispatchmethod);
    if (callable != NULL && (args = PyTuple_Pack(1, func)) != NULL)
        result = PyTuple_Pack(3, callable, args, dict);
done:
    Py_XDECREF(dict);
    Py_XDECREF(func);
    Py_XDECREF(callable);
    Py_XDECREF(args);
    return result;
}

/* Load side ---------------------------------------------------------------*/

SIG(_singledispatch_new, -1, {"func", CPK_ARG_ANY});

/* _singledispatch_new(func): functools.singledispatch(func), its
 * registrations to come from _singledispatch_fill. New reference. */
static PyObject *
singledispatch_new(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &_singledispatch_new_sig, args, nargs))
        return NULL;
    if (!PyCallable_Check(args[0])) {
        cpk_arg_error(st, 0, "_singledispatch_new",
                      "argument 1 (func) must be callable, not %s",
                      Py_TYPE(args[0])->tp_name);
        return NULL;
    }
    PyObject *sd = functools_attr(st, st->str_singledispatch);
    if (sd == NULL)
        return NULL;
    PyObject *r = PyObject_CallOneArg(sd, args[0]);
    Py_DECREF(sd);
    return r;
}

/* Check _singledispatch_fill's state: ((cls, impl), ...), {str: value}
 * without the dispatcher's own names. 1 or 0 with an error set. */
static int
check_fill_state(cpk_state *st, PyObject *state)
{
    const char *fn = "_singledispatch_fill";
    if (PyTuple_GET_SIZE(state) != 2)
        return cpk_arg_error(st, 1, fn,
                             "argument 2 (state) must be (registrations, "
                             "attributes), a tuple of 2, not of %zd",
                             PyTuple_GET_SIZE(state));
    PyObject *pairs = PyTuple_GET_ITEM(state, 0);
    PyObject *attrs = PyTuple_GET_ITEM(state, 1);
    if (!cpk_check_value(st, fn, "state[0]", pairs, CPK_ARG_TUPLE) ||
        !cpk_check_items(st, fn, "state[0]", pairs, CPK_ARG_TUPLE) ||
        !cpk_check_value(st, fn, "state[1]", attrs, CPK_ARG_DICT))
        return 0;
    /* The function's own fields are not attributes a singledispatch
     * wrapper is given: refused before anything is registered. */
    static const char *const inner[] = {"__code__", "__globals__",
                                        "__closure__", "__defaults__",
                                        "__kwdefaults__", "__dict__"};
    for (size_t i = 0; i < sizeof inner / sizeof inner[0]; i++) {
        PyObject *key = PyUnicode_InternFromString(inner[i]);
        int has = key ? PyDict_Contains(attrs, key) : -1;
        Py_XDECREF(key);
        if (has != 0) {
            if (has > 0)
                cpk_arg_error(st, 1, "_singledispatch_fill",
                              "argument 2 (state) item 1 may not set %s",
                              inner[i]);
            return 0;
        }
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(pairs); i++) {
        PyObject *p = PyTuple_GET_ITEM(pairs, i);
        if (PyTuple_GET_SIZE(p) != 2 || !PyType_Check(PyTuple_GET_ITEM(p, 0)) ||
            !PyCallable_Check(PyTuple_GET_ITEM(p, 1)))
            return cpk_arg_error(st, 0, fn,
                                 "state[0] item %zd must be (class, "
                                 "callable), not %R",
                                 i, p);
    }
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (PyDict_Next(attrs, &pos, &k, &v)) {
        if (!PyUnicode_Check(k))
            return cpk_arg_error(st, 0, fn,
                                 "state[1] keys must be str, not %s",
                                 Py_TYPE(k)->tp_name);
        for (size_t j = 0; j < NOWN; j++)
            if (PyUnicode_CompareWithASCIIString(k, dispatch_own[j]) == 0)
                return cpk_arg_error(st, 1, fn,
                                     "state[1] must not set %R: the "
                                     "dispatcher makes it",
                                     k);
    }
    return 1;
}

SIG(_singledispatch_fill, -1, {"wrapper", CPK_ARG_FUNCTION},
    {"state", CPK_ARG_TUPLE});

/* _singledispatch_fill(wrapper, (registrations, attributes)): register
 * each (cls, impl) in order, then setattr the attributes. None. */
static PyObject *
singledispatch_fill(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &_singledispatch_fill_sig, args, nargs))
        return NULL;
    PyObject *wrapper = args[0], *state = args[1];
    int r = is_singledispatch(st, wrapper);
    if (r <= 0) {
        if (r == 0)
            cpk_arg_error(st, 0, "_singledispatch_fill",
                          "argument 1 (wrapper) must be a function made by "
                          "functools.singledispatch, not %R",
                          wrapper);
        return NULL;
    }
    if (!check_fill_state(st, state))
        return NULL;
    PyObject *pairs = PyTuple_GET_ITEM(state, 0);
    PyObject *attrs = PyTuple_GET_ITEM(state, 1);
    PyObject *reg = NULL;
    PyObject *d = Py_NewRef(((PyFunctionObject *)wrapper)->func_dict);
    r = cpk_dict_get_ref(d, st->str_register, &reg);
    Py_DECREF(d);
    if (r <= 0) {
        if (r == 0)
            PyErr_SetString(PyExc_AttributeError, "register");
        return NULL;
    }
    /* singledispatch's own register, not one a BUILD on the wrapper put
     * in its __dict__ (a function the pickle carries would run). */
    if (!PyFunction_Check(reg) ||
        PyFunction_GET_GLOBALS(reg) != PyFunction_GET_GLOBALS(wrapper) ||
        PyUnicode_CompareWithASCIIString(
            ((PyFunctionObject *)reg)->func_qualname,
            "singledispatch.<locals>.register") != 0) {
        Py_DECREF(reg);
        cpk_arg_error(st, 0, "_singledispatch_fill",
                      "argument 1 (wrapper) has a register attribute "
                      "functools.singledispatch did not make");
        return NULL;
    }
    /* The tuples are immutable and held by our caller: registering (which
     * runs Python code) cannot free what we read. */
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(pairs); i++) {
        PyObject *p = PyTuple_GET_ITEM(pairs, i);
        PyObject *out = PyObject_CallFunctionObjArgs(
            reg, PyTuple_GET_ITEM(p, 0), PyTuple_GET_ITEM(p, 1), NULL);
        if (out == NULL) {
            Py_DECREF(reg);
            return NULL;
        }
        Py_DECREF(out);
    }
    Py_DECREF(reg);
    /* A copy: setattr may run code that changes the dict. */
    PyObject *items = PyDict_Items(attrs);
    if (items == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items); i++) {
        PyObject *it = PyList_GET_ITEM(items, i);
        if (PyObject_SetAttr(wrapper, PyTuple_GET_ITEM(it, 0),
                             PyTuple_GET_ITEM(it, 1)) < 0) {
            Py_DECREF(items);
            return NULL;
        }
    }
    Py_DECREF(items);
    Py_RETURN_NONE;
}

SIG(_lru_cache_new, -1, {"func", CPK_ARG_ANY},
    {"maxsize", CPK_ARG_INT | CPK_ARG_OR_NONE}, {"typed", CPK_ARG_BOOL});

/* _lru_cache_new(func, maxsize, typed): functools.lru_cache(maxsize,
 * typed)(func), its cache empty. New reference. */
static PyObject *
lru_cache_new(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &_lru_cache_new_sig, args, nargs))
        return NULL;
    if (!PyCallable_Check(args[0])) {
        cpk_arg_error(st, 0, "_lru_cache_new",
                      "argument 1 (func) must be callable, not %s",
                      Py_TYPE(args[0])->tp_name);
        return NULL;
    }
    PyObject *lru = functools_attr(st, st->str_lru_cache);
    if (lru == NULL)
        return NULL;
    PyObject *deco = PyObject_CallFunctionObjArgs(lru, args[1], args[2], NULL);
    Py_DECREF(lru);
    if (deco == NULL)
        return NULL;
    PyObject *r = PyObject_CallOneArg(deco, args[0]);
    Py_DECREF(deco);
    return r;
}

PyMethodDef cpk_functools_methods[] = {
    FAST("_singledispatch_new", singledispatch_new,
         "_singledispatch_new(func)\n--\n\nfunctools.singledispatch(func)."),
    FAST("_singledispatch_fill", singledispatch_fill,
         "_singledispatch_fill(wrapper, state)\n--\n\n"
         "Replay a singledispatch function's registrations."),
    FAST("_lru_cache_new", lru_cache_new,
         "_lru_cache_new(func, maxsize, typed)\n--\n\n"
         "functools.lru_cache(maxsize, typed)(func), empty."),
    {NULL, NULL, 0, NULL},
};
