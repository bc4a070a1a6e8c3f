/* diagnose.c - after a dump failed, find the innermost part of the object
 * graph that cannot be pickled and the path to it from the root, such as
 * ".__globals__['lock']": cloudpickle-dump names it in its error line
 * (_find_unpicklable), and a failed Pickler.dump() (so dumps() and dump()
 * too) adds it to the exception (cpk_diagnose_failure): a note on 3.11+,
 * the message before. The search pickles sub-objects one by one, so it
 * costs nothing unless a dump has already failed; it is bounded in depth
 * and in the objects it tries, and it bisects long containers, so its cost
 * is a few times that of the failed dump. The dump itself is pickler.c's.
 */
#include "engine/diagnose.h"
#include "core/state.h"
#include "common/pycompat.h"
#include "common/pyerr.h" /* cpk_error_clearable */
#include "core/lazytypes.h"
#include "core/subtype.h"
#include "types/codeinfo.h"
#include "types/compat.h"

#define MAX_DEPTH 40
#define MAX_TRIES 2000
/* Containers with more items than this are bisected first: pickling one
 * half tells whether the culprit is there. */
#define MAX_LINEAR 8

typedef struct {
    cpk_state *st;
    PyObject *protocol;
    int format;        /* cpk_format of the failed dump */
    PyObject *table;   /* its Pickler's dispatch_table slot, or NULL */
    PyObject *overlay; /* its Pickler's table_overlay, or NULL */
    PyObject *file;    /* what the tries write to: write=len keeps nothing */
    /* {id(obj): obj} of the objects already tried. The values keep them
     * alive for the whole search: an id alone could be reused by an object
     * made later (a __reduce_ex__ result), which would then be skipped. */
    PyObject *seen;
    int tries;
    /* A try hit RecursionError: too deep to tell one culprit; no answer. */
    int aborted;
} search;

/* A file object whose write() keeps nothing: the tries need to know
 * whether an object pickles, not its bytes, so memory stays at a frame
 * (protocol 4 and later) whatever the size. New reference. */
static PyObject *
null_file(cpk_state *st)
{
    PyObject *types = PyImport_ImportModule("types");
    if (types == NULL)
        return NULL;
    PyObject *ns = PyObject_GetAttrString(types, "SimpleNamespace");
    Py_DECREF(types);
    PyObject *len = ns ? PyObject_GetAttrString(st->builtins_module, "len")
                       : NULL;
    PyObject *kw = len ? PyDict_New() : NULL;
    PyObject *file = NULL;
    if (kw != NULL && PyDict_SetItem(kw, st->str_write, len) == 0) {
        PyObject *noargs = PyTuple_New(0);
        if (noargs != NULL)
            file = PyObject_Call(ns, noargs, kw);
        Py_XDECREF(noargs);
    }
    Py_XDECREF(kw);
    Py_XDECREF(len);
    Py_XDECREF(ns);
    return file;
}

/* 1 picklable, 0 not, -1 on an error that must propagate. A fresh Pickler
 * with the failed dump's protocol, format and dispatch table, through
 * _pickle's dump (no diagnosis of its own). RecursionError aborts the
 * search (1, s->aborted set). */
static int
picklable(search *s, PyObject *obj)
{
    s->tries++;
    PyObject *pargs[2] = {s->file, s->protocol};
    PyObject *p = PyObject_Vectorcall((PyObject *)s->st->pickler_type, pargs,
                                      2, NULL);
    PyObject *r = NULL;
    if (p != NULL) {
        cpk_pickler_ext *ext = CPK_PICKLER_EXT(p);
        ext->format = s->format;
        if (s->table != NULL) {
            PyObject **slot = cpk_pickler_dispatch_slot(p);
            Py_XSETREF(*slot, Py_NewRef(s->table));
        }
        if (s->overlay != NULL)
            Py_XSETREF(ext->table_overlay, Py_NewRef(s->overlay));
        PyObject *dargs[2] = {p, obj};
        r = PyObject_Vectorcall(s->st->base_dump, dargs, 2, NULL);
        Py_DECREF(p);
    }
    if (r != NULL) {
        Py_DECREF(r);
        return 1;
    }
    if (!cpk_error_clearable())
        return -1;
    if (PyErr_ExceptionMatches(PyExc_RecursionError))
        s->aborted = 1;
    PyErr_Clear();
    return s->aborted;
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

/* Narrow items[*lo:*hi] (a list) down to at most MAX_LINEAR items by
 * bisection: a half that pickles holds no culprit, so the first half that
 * fails (or else the second) is kept. Costs about one dump of the items
 * and log2(n) tries, where walking them would cost a try each. 0, or -1 on
 * an error that must propagate. */
static int
narrow(search *s, PyObject *items, Py_ssize_t *lo, Py_ssize_t *hi)
{
    while (*hi - *lo > MAX_LINEAR && s->tries < MAX_TRIES && !s->aborted) {
        Py_ssize_t mid = *lo + (*hi - *lo) / 2;
        PyObject *half = PyList_GetSlice(items, *lo, mid);
        if (half == NULL)
            return -1;
        int ok = picklable(s, half);
        Py_DECREF(half);
        if (ok < 0)
            return -1;
        if (ok)
            *lo = mid;
        else
            *hi = mid;
    }
    return 0;
}

/* Children of a mapping: ".key" for str keys when fmt_attr (".%U") is
 * given, else prefix[repr(key)]. Walks a copy of the items: a key's
 * __repr__ may change the dict, and would free what PyDict_Next lent. */
static int
add_items(search *s, PyObject *children, PyObject *dict,
          const char *fmt_attr, const char *prefix)
{
    PyObject *items = PyDict_Items(dict);
    if (items == NULL)
        return -1;
    Py_ssize_t lo = 0, hi = PyList_GET_SIZE(items);
    int r = narrow(s, items, &lo, &hi);
    for (Py_ssize_t i = lo; i < hi && r == 0; i++) {
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

/* Children of a sequence, prefix[i]. Walks a copy (a reducer run by a try
 * may change a list). */
static int
add_seq(search *s, PyObject *children, PyObject *seq, const char *prefix)
{
    PyObject *items = PySequence_List(seq);
    if (items == NULL)
        return -1;
    Py_ssize_t lo = 0, hi = PyList_GET_SIZE(items);
    int r = narrow(s, items, &lo, &hi);
    for (Py_ssize_t i = lo; i < hi && r == 0; i++)
        r = add(children, PyUnicode_FromFormat("%s[%zd]", prefix, i),
                PyList_GET_ITEM(items, i));
    Py_DECREF(items);
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
        r = add_seq(s, children, defaults, ".__defaults__");
    Py_XDECREF(defaults);
    PyObject *kwdefaults = Py_XNewRef(f->func_kwdefaults);
    if (r == 0 && kwdefaults != NULL)
        r = add_items(s, children, kwdefaults, NULL, ".__kwdefaults__");
    Py_XDECREF(kwdefaults);
    PyObject *dict = Py_XNewRef(f->func_dict);
    if (r == 0 && dict != NULL)
        r = add_items(s, children, dict, ".%U", "");
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
        r = add_items(s, children, obj, NULL, "");
    else if (PyList_Check(obj) || PyTuple_Check(obj))
        r = add_seq(s, children, obj, "");
    else if (PyAnySet_Check(obj)) {
        PyObject *list = PySequence_List(obj);
        r = list ? add_seq(s, children, list, ".<item>") : -1;
        Py_XDECREF(list);
    }
    else if (PyType_Check(obj)) {
        PyObject *d = cpk_type_dict((PyTypeObject *)obj);
        r = d ? add_items(s, children, d, ".%U", "") : -1;
        Py_XDECREF(d);
    }
    else if (PyModule_Check(obj)) {
        /* (3.9, 3.10: no namespace for ModuleType.__new__ alone) */
        PyObject *d = PyModule_GetDict(obj);
        r = d ? add_items(s, children, d, ".%U", "") : 0;
    }
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
                r = add_seq(s, children, PyTuple_GET_ITEM(rv, 1),
                            ".__reduce_ex__()[1]");
            PyObject *state = PyTuple_GET_SIZE(rv) > 2 ? PyTuple_GET_ITEM(rv, 2)
                                                       : NULL;
            if (r == 0 && state != NULL && PyDict_Check(state))
                r = add_items(s, children, state, ".%U", "");
            else if (r == 0 && state != NULL && PyTuple_Check(state)) {
                for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(state) && r == 0;
                     i++)
                    if (PyDict_Check(PyTuple_GET_ITEM(state, i)))
                        r = add_items(s, children, PyTuple_GET_ITEM(state, i),
                                      ".%U", "");
            }
        }
        Py_XDECREF(rv);
    }
    if (r < 0)
        Py_CLEAR(children);
    return children;
}

/* (path, culprit) below obj, Py_None if obj pickles (or the search was
 * aborted), NULL on error. */
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
    if (seen || s->tries >= MAX_TRIES || s->aborted)
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
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(children) && !s->aborted;
             i++) {
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
    if (s->aborted)
        Py_RETURN_NONE;
    return Py_BuildValue("(sO)", "", obj);
}

/* Run a search from obj: (path, culprit), None, or NULL on an error that
 * must propagate. `table` and `overlay` may be NULL. */
static PyObject *
search_from(cpk_state *st, PyObject *obj, PyObject *protocol, int format,
            PyObject *table, PyObject *overlay)
{
    if (cpk_refresh_lazy_types(st) < 0)
        return NULL;
    search s = {st, protocol, format, table, overlay, NULL, NULL, 0, 0};
    PyObject *r = NULL;
    if ((s.file = null_file(st)) != NULL && (s.seen = PyDict_New()) != NULL)
        r = find(&s, obj, 0);
    Py_XDECREF(s.file);
    Py_XDECREF(s.seen);
    if (r != NULL && s.aborted)
        Py_SETREF(r, Py_NewRef(Py_None));
    return r;
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
    int format = cpk_compat_format(nargs > 2 ? args[2] : Py_None);
    if (format < 0)
        return NULL; /* else every try would fail for it */
    PyObject *protocol = nargs > 1 ? Py_NewRef(args[1]) : PyLong_FromLong(5);
    if (protocol == NULL)
        return NULL;
    PyObject *r = search_from(cpk_get_state(m), args[0], protocol, format,
                              NULL, NULL);
    Py_DECREF(protocol);
    return r;
}

/* Diagnosing a failed dump ------------------------------------------------ */

/* Set in the thread's dict while a diagnosis runs there: a dump that fails
 * inside it (a user reducer's own dumps() call) gets none of its own. */
#define BUSY_KEY "ccloudpickle.diagnosing"

/* Whether to diagnose a failed dump of this Pickler: 1, 0, -1 on error.
 * Its `diagnose` attribute (True on the class) says so, and subclasses
 * that pickle by their own reducer_override or persistent_id are left
 * alone. */
static int
wants_diagnosis(cpk_state *st, PyObject *pickler)
{
    if (CPK_PICKLER_EXT(pickler)->diagnose_off)
        return 0;
    int r = cpk_pickler_overridden(st, pickler, "reducer_override");
    if (r == 0)
        r = cpk_pickler_overridden(st, pickler, "persistent_id");
    if (r != 0)
        return r < 0 ? -1 : 0;
    PyObject *flag;
    r = PyObject_GetOptionalAttrString(pickler, "diagnose", &flag);
    if (r <= 0)
        return r;
    r = PyObject_IsTrue(flag);
    Py_DECREF(flag);
    return r;
}

/* How the root is named in a note: its __qualname__ (a function, class,
 * method), else "<type object>". NULL without an error when the path is
 * empty: the root itself is the culprit, and the caller knows what it
 * passed. New reference. */
static PyObject *
root_name(cpk_state *st, PyObject *obj, PyObject *path)
{
    if (PyUnicode_GET_LENGTH(path) == 0)
        return NULL;
    PyObject *qn = NULL;
    if (PyObject_GetOptionalAttr(obj, st->str___qualname__, &qn) < 0) {
        if (!cpk_error_clearable())
            return NULL;
        PyErr_Clear();
    }
    if (qn != NULL && PyUnicode_Check(qn))
        return qn;
    Py_XDECREF(qn);
    return PyUnicode_FromFormat("<%s object>", Py_TYPE(obj)->tp_name);
}

/* The diagnosis proper: 0 (note added or none to add) or -1. */
static int
diagnose(PyObject *pickler, PyObject *obj, PyObject *exc)
{
    cpk_pickler_ext *ext = CPK_PICKLER_EXT(pickler);
    cpk_state *st = ext->st;
    int want = wants_diagnosis(st, pickler);
    if (want <= 0)
        return want;
    PyObject *tdict = PyThreadState_GetDict(); /* borrowed */
    if (tdict == NULL)
        return 0;
    PyObject *busy = PyDict_GetItemString(tdict, BUSY_KEY);
    if (busy != NULL)
        return 0;
    PyObject *protocol = PyLong_FromLong(ext->proto);
    if (protocol == NULL || PyDict_SetItemString(tdict, BUSY_KEY, Py_True) < 0) {
        Py_XDECREF(protocol);
        return -1;
    }
    /* Held for the search: a reducer may replace the Pickler's table. */
    PyObject *table = Py_XNewRef(*cpk_pickler_dispatch_slot(pickler));
    PyObject *overlay = ext->table_overlay != NULL &&
                                PyDict_GET_SIZE(ext->table_overlay) > 0
                            ? Py_NewRef(ext->table_overlay)
                            : NULL;
    PyObject *found = search_from(st, obj, protocol, ext->format, table,
                                  overlay);
    Py_XDECREF(table);
    Py_XDECREF(overlay);
    Py_DECREF(protocol);
    /* The thread's dict is the thread state's: still there. An error of
     * the search waits while the mark goes. */
    PyObject *et, *ev, *etb;
    PyErr_Fetch(&et, &ev, &etb);
    if (PyDict_DelItemString(tdict, BUSY_KEY) < 0) {
        if (et != NULL) /* the search's error is the one to report */
            PyErr_Clear();
        else
            Py_CLEAR(found);
    }
    if (et != NULL)
        PyErr_Restore(et, ev, etb);
    if (found == NULL || found == Py_None) {
        Py_XDECREF(found);
        return found == NULL ? -1 : 0;
    }
    int rc = 0;
    PyObject *path = PyTuple_GET_ITEM(found, 0);
    PyObject *culprit = PyTuple_GET_ITEM(found, 1);
    PyObject *root = root_name(st, obj, path);
    if (root != NULL) {
        PyObject *note = PyUnicode_FromFormat("when pickling %U%U (%s)", root,
                                              path, Py_TYPE(culprit)->tp_name);
        rc = note != NULL ? cpk_py_exception_note(exc, note) : -1;
        Py_XDECREF(note);
        Py_DECREF(root);
    }
    else if (PyErr_Occurred())
        rc = -1;
    Py_DECREF(found);
    return rc;
}

void
cpk_diagnose_failure(PyObject *pickler, PyObject *obj)
{
    if (!cpk_error_clearable())
        return;
    PyObject *type, *exc, *tb;
    PyErr_Fetch(&type, &exc, &tb);
    PyErr_NormalizeException(&type, &exc, &tb);
    if (exc == NULL || !PyExceptionInstance_Check(exc)) {
        PyErr_Restore(type, exc, tb);
        return;
    }
    if (diagnose(pickler, obj, exc) == 0) {
        PyErr_Restore(type, exc, tb);
        return;
    }
    if (cpk_error_clearable()) {
        /* The search failed: the original goes out as it came. */
        PyErr_Clear();
        PyErr_Restore(type, exc, tb);
        return;
    }
    /* KeyboardInterrupt, SystemExit, MemoryError during the search: it
     * propagates, raised "during handling of" the original (its
     * __context__), as an except block's would be. */
    PyObject *t2, *e2, *tb2;
    PyErr_Fetch(&t2, &e2, &tb2);
    PyErr_NormalizeException(&t2, &e2, &tb2);
    if (tb != NULL)
        PyException_SetTraceback(exc, tb);
    if (e2 != NULL && PyExceptionInstance_Check(e2) && e2 != exc) {
        PyObject *ctx = PyException_GetContext(e2);
        if (ctx == NULL)
            PyException_SetContext(e2, Py_NewRef(exc)); /* steals */
        Py_XDECREF(ctx);
    }
    PyErr_Restore(t2, e2, tb2);
    Py_XDECREF(type);
    Py_XDECREF(exc);
    Py_XDECREF(tb);
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
