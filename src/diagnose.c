/* diagnose.c - after a dump failed, find the innermost part of the object
 * graph that cannot be pickled and the path to it from the root, such as
 * ".__globals__['lock']" (cloudpickle-dump names it in its error line).
 * It pickles sub-objects one by one, so it costs nothing unless a dump has
 * already failed, and it is bounded in depth and in the objects it tries.
 */
#include "internal.h"

#define MAX_DEPTH 40
#define MAX_TRIES 2000

typedef struct {
    PyObject *module;
    cpk_state *st;
    PyObject *protocol;
    PyObject *compat;  /* the failed dump's compat=, None for ours */
    /* {id(obj): obj} of the objects already tried. The values keep them
     * alive for the whole search: an id alone could be reused by an object
     * made later (a __reduce_ex__ result), which would then be skipped. */
    PyObject *seen;
    int tries;
} search;

/* 1 picklable, 0 not, -1 on an error that must propagate. */
static int
picklable(search *s, PyObject *obj)
{
    s->tries++;
    PyObject *r;
    if (s->compat == Py_None)
        r = PyObject_CallMethod(s->module, "dumps", "(OO)", obj,
                                s->protocol);
    else {
        /* Objects fail in a compat format that ours pickles. */
        PyObject *dumps = PyObject_GetAttrString(s->module, "dumps");
        PyObject *args[] = {obj, s->protocol, s->compat};
        r = dumps ? PyObject_Vectorcall(dumps, args, 2,
                                        s->st->kwnames_compat)
                  : NULL;
        Py_XDECREF(dumps);
    }
    if (r != NULL) {
        Py_DECREF(r);
        return 1;
    }
    if (!cpk_error_clearable())
        return -1;
    PyErr_Clear();
    return 0;
}

/* A short repr for paths: at most 60 characters. */
static PyObject *
short_repr(PyObject *o)
{
    PyObject *r = PyObject_Repr(o);
    if (r == NULL) {
        if (!cpk_error_clearable())
            return NULL;
        PyErr_Clear();
        return PyUnicode_FromString("?");
    }
    if (PyUnicode_GET_LENGTH(r) > 60) {
        PyObject *cut = PyUnicode_Substring(r, 0, 57);
        Py_DECREF(r);
        if (cut == NULL)
            return NULL;
        r = PyUnicode_FromFormat("%U...", cut);
        Py_DECREF(cut);
    }
    return r;
}

/* Append (path, child); steals path. `child` may be borrowed from its
 * container: it is held before the tuple's allocation (which may collect
 * and run finalizers that change that container). */
static int
add(PyObject *children, PyObject *path, PyObject *child)
{
    if (path == NULL)
        return -1;
    Py_INCREF(child);
    PyObject *pair = PyTuple_Pack(2, path, child);
    Py_DECREF(child);
    Py_DECREF(path);
    if (pair == NULL)
        return -1;
    int r = PyList_Append(children, pair);
    Py_DECREF(pair);
    return r;
}

/* Children of a mapping: ".key" for str keys when fmt_attr (".%U") is
 * given, else prefix[repr(key)]. Walks a copy of the items: a key's
 * __repr__ may change the dict, and would free what PyDict_Next lent. */
static int
add_items(PyObject *children, PyObject *dict, const char *fmt_attr,
          const char *prefix)
{
    PyObject *items = PyDict_Items(dict);
    if (items == NULL)
        return -1;
    int r = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items) && r == 0; i++) {
        PyObject *k = PyTuple_GET_ITEM(PyList_GET_ITEM(items, i), 0);
        PyObject *v = PyTuple_GET_ITEM(PyList_GET_ITEM(items, i), 1);
        PyObject *path;
        if (fmt_attr != NULL && PyUnicode_Check(k))
            path = PyUnicode_FromFormat(fmt_attr, k);
        else {
            PyObject *kr = short_repr(k);
            path = kr ? PyUnicode_FromFormat("%s[%U]", prefix, kr) : NULL;
            Py_XDECREF(kr);
        }
        r = add(children, path, v);
    }
    Py_DECREF(items);
    return r;
}

static int
add_seq(PyObject *children, PyObject *seq, const char *prefix)
{
    PyObject *fast = PySequence_Fast(seq, "not a sequence");
    if (fast == NULL)
        return -1;
    int r = 0;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast) && r == 0; i++)
        r = add(children, PyUnicode_FromFormat("%s[%zd]", prefix, i),
                PySequence_Fast_GET_ITEM(fast, i));
    Py_DECREF(fast);
    return r;
}

static int
function_children(search *s, PyObject *children, PyFunctionObject *f)
{
    PyObject *info = cpk_codeinfo_get(s->st, f->func_code);
    if (info == NULL)
        return -1;
    PyObject *names = PyTuple_GET_ITEM(info, 0);
    int r = 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names) && r == 0; i++) {
        PyObject *k = PyTuple_GET_ITEM(names, i), *v;
        r = cpk_dict_get_ref(f->func_globals, k, &v);
        if (r <= 0)
            continue;
        PyObject *kr = short_repr(k);
        r = add(children,
                kr ? PyUnicode_FromFormat(".__globals__[%U]", kr) : NULL, v);
        Py_XDECREF(kr);
        Py_DECREF(v);
    }
    Py_DECREF(info);
    /* Each field held while it is walked: the walk allocates, and a
     * collection's finalizers may reassign the function's attributes. */
    PyObject *closure = Py_XNewRef(f->func_closure);
    for (Py_ssize_t i = 0; r == 0 && closure != NULL &&
                           i < PyTuple_GET_SIZE(closure);
         i++) {
        PyObject *v = PyCell_GET(PyTuple_GET_ITEM(closure, i));
        if (v != NULL)
            r = add(children,
                    PyUnicode_FromFormat(".__closure__[%zd].cell_contents", i),
                    v);
    }
    Py_XDECREF(closure);
    PyObject *defaults = Py_XNewRef(f->func_defaults);
    if (r == 0 && defaults != NULL)
        r = add_seq(children, defaults, ".__defaults__");
    Py_XDECREF(defaults);
    PyObject *kwdefaults = Py_XNewRef(f->func_kwdefaults);
    if (r == 0 && kwdefaults != NULL)
        r = add_items(children, kwdefaults, NULL, ".__kwdefaults__");
    Py_XDECREF(kwdefaults);
    PyObject *dict = Py_XNewRef(f->func_dict);
    if (r == 0 && dict != NULL)
        r = add_items(children, dict, ".%U", "");
    Py_XDECREF(dict);
    return r;
}

/* What an object is made of, as [(path suffix, child)]. */
static PyObject *
children_of(search *s, PyObject *obj)
{
    PyObject *children = PyList_New(0);
    if (children == NULL)
        return NULL;
    int r = 0;
    if (PyFunction_Check(obj))
        r = function_children(s, children, (PyFunctionObject *)obj);
    else if (PyDict_Check(obj))
        r = add_items(children, obj, NULL, "");
    else if (PyList_Check(obj) || PyTuple_Check(obj))
        r = add_seq(children, obj, "");
    else if (PyAnySet_Check(obj)) {
        PyObject *list = PySequence_List(obj);
        r = list ? add_seq(children, list, ".<item>") : -1;
        Py_XDECREF(list);
    }
    else if (PyType_Check(obj)) {
        PyObject *d = cpk_type_dict((PyTypeObject *)obj);
        r = d ? add_items(children, d, ".%U", "") : -1;
        Py_XDECREF(d);
    }
    else if (PyModule_Check(obj))
        r = add_items(children, PyModule_GetDict(obj), ".%U", "");
    else if (PyCell_Check(obj)) {
        if (PyCell_GET(obj) != NULL)
            r = add(children, PyUnicode_FromString(".cell_contents"),
                    PyCell_GET(obj));
    }
    else if (PyMethod_Check(obj)) {
        r = add(children, PyUnicode_FromString(".__func__"),
                PyMethod_GET_FUNCTION(obj));
        if (r == 0)
            r = add(children, PyUnicode_FromString(".__self__"),
                    PyMethod_GET_SELF(obj));
    }
    else {
        /* Anything else: what its own reduction is made of. */
        PyObject *rv = PyObject_CallMethod(obj, "__reduce_ex__", "(O)",
                                           s->protocol);
        if (rv == NULL) {
            if (cpk_error_clearable())
                PyErr_Clear();
            else
                r = -1;
        }
        else if (PyTuple_Check(rv)) {
            if (PyTuple_GET_SIZE(rv) > 1 && PyTuple_Check(PyTuple_GET_ITEM(rv, 1)))
                r = add_seq(children, PyTuple_GET_ITEM(rv, 1),
                            ".__reduce_ex__()[1]");
            PyObject *state = PyTuple_GET_SIZE(rv) > 2 ? PyTuple_GET_ITEM(rv, 2)
                                                       : NULL;
            if (r == 0 && state != NULL && PyDict_Check(state))
                r = add_items(children, state, ".%U", "");
            else if (r == 0 && state != NULL && PyTuple_Check(state)) {
                for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(state) && r == 0;
                     i++)
                    if (PyDict_Check(PyTuple_GET_ITEM(state, i)))
                        r = add_items(children, PyTuple_GET_ITEM(state, i),
                                      ".%U", "");
            }
        }
        Py_XDECREF(rv);
    }
    if (r < 0)
        Py_CLEAR(children);
    return children;
}

/* (path, culprit) below obj, Py_None if obj pickles, NULL on error. */
static PyObject *
find(search *s, PyObject *obj, int depth)
{
    PyObject *key = PyLong_FromVoidPtr(obj);
    if (key == NULL)
        return NULL;
    int seen = PyDict_Contains(s->seen, key);
    if (seen == 0)
        seen = PyDict_SetItem(s->seen, key, obj) < 0 ? -1 : 0;
    Py_DECREF(key);
    if (seen < 0)
        return NULL;
    if (seen || s->tries >= MAX_TRIES)
        Py_RETURN_NONE;
    int ok = picklable(s, obj);
    if (ok < 0)
        return NULL;
    if (ok)
        Py_RETURN_NONE;
    if (depth < MAX_DEPTH) {
        PyObject *children = children_of(s, obj);
        if (children == NULL)
            return NULL;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(children); i++) {
            PyObject *pair = PyList_GET_ITEM(children, i);
            PyObject *below = find(s, PyTuple_GET_ITEM(pair, 1), depth + 1);
            if (below == NULL || below != Py_None) {
                PyObject *r = NULL;
                if (below != NULL)
                    r = Py_BuildValue("(NO)",
                                      PyUnicode_Concat(PyTuple_GET_ITEM(pair, 0),
                                                       PyTuple_GET_ITEM(below, 0)),
                                      PyTuple_GET_ITEM(below, 1));
                Py_XDECREF(below);
                Py_DECREF(children);
                return r;
            }
            Py_DECREF(below);
        }
        Py_DECREF(children);
    }
    return Py_BuildValue("(sO)", "", obj);
}

/* _find_unpicklable(obj, protocol=5, compat=None) -> (path, culprit) or
 * None */
static PyObject *
find_unpicklable(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 1 || nargs > 3) {
        PyErr_SetString(PyExc_TypeError,
                        "_find_unpicklable(obj, protocol=5, compat=None)");
        return NULL;
    }
    PyObject *compat = nargs > 2 ? args[2] : Py_None;
    if (cpk_compat_format(compat) < 0)
        return NULL; /* else every try would fail for it */
    search s = {m, cpk_get_state(m), NULL, compat, PyDict_New(), 0};
    if (s.seen == NULL)
        return NULL;
    s.protocol = nargs > 1 ? Py_NewRef(args[1]) : PyLong_FromLong(5);
    PyObject *r = s.protocol ? find(&s, args[0], 0) : NULL;
    Py_XDECREF(s.protocol);
    Py_DECREF(s.seen);
    return r;
}

PyMethodDef cpk_diagnose_methods[] = {
    {"_find_unpicklable", (PyCFunction)(void (*)(void))find_unpicklable,
     METH_FASTCALL,
     PyDoc_STR("_find_unpicklable(obj, protocol=5, compat=None)\n--\n\n"
               "After a failed dump: (path, culprit) for the innermost "
               "object that cannot be pickled, e.g. (\".__globals__['x']\", "
               "x); None if obj pickles.")},
    {NULL, NULL, 0, NULL},
};
