/* stock.c - living with stock cloudpickle in one process: one by-value
 * registry and one class identity, whichever of the two pickles. The
 * registry (lookup.c) and the tracker (tracker.c) are ours; here is how
 * stock cloudpickle's module `cloudpickle.cloudpickle` (2.2 and 3.x keep
 * the same private names) is made to share them:
 *
 * - registry: its set _PICKLE_BY_VALUE_MODULES is merged into ours and
 *   replaced by ours, so both read and write one set (stock's functions
 *   look the global up on each call). Our by-value check is unchanged.
 * - tracker: every class we track is also put in its
 *   _DYNAMIC_CLASS_TRACKER_BY_CLASS / _BY_ID (under its lock), and on a
 *   miss we consult those (tracker.c), so each side finds the other's ids.
 *
 * Stock imported before us is shared with at module exec; imported later,
 * by the _StockWatcher that module exec puts first on sys.meta_path: for
 * "cloudpickle.cloudpickle" only, it asks the companion module
 * _ccloudpickle_stock (python/) for a spec whose loader calls
 * _share_with_stock after the module ran. Where the companion is missing
 * (the programs), our next dump shares (cpk_stock_refresh, called when
 * sys.modules changed) - late only for what stock pickles before that.
 */
#include "internal.h"

static const char STOCK_NAME[] = "cloudpickle.cloudpickle";

/* 1 if `mod` looks like stock cloudpickle's module: the registry set and
 * both tracker dicts are there. 0 if not (no error), -1 on error. The
 * three are returned as new references when 1. */
static int
stock_parts(PyObject *mod, PyObject **registry, PyObject **by_class,
            PyObject **by_id)
{
    *registry = *by_class = *by_id = NULL;
    if (PyObject_GetOptionalAttrString(mod, "_PICKLE_BY_VALUE_MODULES",
                                       registry) < 0 ||
        (*registry != NULL &&
         PyObject_GetOptionalAttrString(
             mod, "_DYNAMIC_CLASS_TRACKER_BY_CLASS", by_class) < 0) ||
        (*by_class != NULL &&
         PyObject_GetOptionalAttrString(mod, "_DYNAMIC_CLASS_TRACKER_BY_ID",
                                        by_id) < 0))
        goto none;
    if (*by_id == NULL)
        goto none;
    return 1;
none:
    Py_CLEAR(*registry);
    Py_CLEAR(*by_class);
    Py_CLEAR(*by_id);
    return PyErr_Occurred() ? -1 : 0;
}

/* Put (cls, tid) in stock's tracker `mod`, not replacing what it has:
 * under its lock, by_id.setdefault(tid, cls); by_class.setdefault(cls,
 * tid). 0 or -1. */
static int
mirror_one(PyObject *mod, PyObject *by_class, PyObject *by_id,
           PyObject *cls, PyObject *tid)
{
    PyObject *lock = NULL, *r = NULL;
    if (PyObject_GetOptionalAttrString(mod, "_DYNAMIC_CLASS_TRACKER_LOCK",
                                       &lock) < 0)
        return -1;
    if (lock != NULL) {
        r = PyObject_CallMethod(lock, "acquire", NULL);
        if (r == NULL) {
            Py_DECREF(lock);
            return -1;
        }
        Py_DECREF(r);
    }
    r = PyObject_CallMethod(by_id, "setdefault", "(OO)", tid, cls);
    if (r != NULL) {
        Py_DECREF(r);
        r = PyObject_CallMethod(by_class, "setdefault", "(OO)", cls, tid);
    }
    int status = r == NULL ? -1 : 0;
    Py_XDECREF(r);
    if (lock != NULL) {
        /* Released even after an error, which is kept across the call. */
        PyObject *exc_type, *exc, *tb;
        PyErr_Fetch(&exc_type, &exc, &tb);
        PyObject *rel = PyObject_CallMethod(lock, "release", NULL);
        if (rel == NULL)
            status = -1;
        Py_XDECREF(rel);
        if (exc_type != NULL) {
            if (rel == NULL)
                PyErr_Clear(); /* the first error wins */
            PyErr_Restore(exc_type, exc, tb);
        }
        Py_DECREF(lock);
    }
    return status;
}

/* Every live class of our tracker, into stock's. 0 or -1. */
static int
push_tracker(cpk_state *st, PyObject *mod, PyObject *by_class,
             PyObject *by_id)
{
    /* A copy: the calls below run Python code that may change ours. */
    PyObject *entries = PyDict_Values(st->tracker_by_class);
    if (entries == NULL)
        return -1;
    int status = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(entries) && status == 0; i++) {
        PyObject *entry = PyList_GET_ITEM(entries, i); /* held by the list */
        PyObject *cls = cpk_weakref_get(PyTuple_GET_ITEM(entry, 0));
        if (cls == NULL)
            continue;
        status = mirror_one(mod, by_class, by_id, cls,
                            PyTuple_GET_ITEM(entry, 1));
        Py_DECREF(cls);
    }
    Py_DECREF(entries);
    return status;
}

/* Share our registry and tracker with `mod` if it is stock cloudpickle's
 * module: 1 shared (st->stock_module is now `mod`), 0 not stock, -1
 * error. Idempotent. */
static int
share(cpk_state *st, PyObject *mod)
{
    if (st->by_value == NULL || st->tracker_by_class == NULL)
        return 0; /* the module is being torn down */
    PyObject *registry, *by_class, *by_id;
    int r = stock_parts(mod, &registry, &by_class, &by_id);
    if (r <= 0)
        return r;
    if (registry != st->by_value) {
        if (!PyAnySet_Check(registry)) {
            r = 0; /* not the set it used to be: leave it alone */
            goto done;
        }
        /* Theirs into ours, then ours in their module's namespace. */
        PyObject *merged = PyNumber_InPlaceOr(st->by_value, registry);
        if (merged == NULL)
            goto error;
        Py_DECREF(merged);
        if (PyObject_SetAttrString(mod, "_PICKLE_BY_VALUE_MODULES",
                                   st->by_value) < 0)
            goto error;
    }
    Py_XSETREF(st->stock_module, Py_NewRef(mod));
    if (push_tracker(st, mod, by_class, by_id) < 0)
        goto error;
    r = 1;
done:
    Py_DECREF(registry);
    Py_DECREF(by_class);
    Py_DECREF(by_id);
    return r;
error:
    r = -1;
    goto done;
}

int
cpk_stock_refresh(cpk_state *st)
{
    if (st->stock_name == NULL || st->sys_modules == NULL)
        return 0; /* before cpk_stock_init, or being torn down */
    PyObject *mod;
    int r = cpk_dict_get_ref(st->sys_modules, st->stock_name, &mod);
    if (r <= 0)
        return r;
    if (mod == st->stock_seen) {
        Py_DECREF(mod);
        return 0;
    }
    /* Recorded first: what share() runs may import, and an alias module
     * (not stock) is looked at once. */
    Py_XSETREF(st->stock_seen, Py_NewRef(mod));
    r = share(st, mod);
    Py_DECREF(mod);
    return r < 0 ? -1 : 0;
}

PyObject *
cpk_stock_tracker_get(cpk_state *st, const char *attr, PyObject *key)
{
    if (cpk_stock_refresh(st) < 0)
        return NULL;
    if (st->stock_module == NULL)
        return NULL;
    PyObject *mod = Py_NewRef(st->stock_module);
    PyObject *tracker = PyObject_GetAttrString(mod, attr);
    Py_DECREF(mod);
    PyObject *r = tracker ? PyObject_CallMethod(tracker, "get", "(O)", key)
                          : NULL;
    Py_XDECREF(tracker);
    if (r == NULL || r == Py_None) {
        /* A cloudpickle without that private dict, or an unhashable key:
         * nothing to share (what cloudpickle's `except Exception` would
         * ignore; KeyboardInterrupt, MemoryError and SystemExit go on). */
        Py_XDECREF(r);
        if (r == NULL && cpk_error_clearable())
            PyErr_Clear();
        return NULL;
    }
    return r;
}

int
cpk_stock_track(cpk_state *st, PyObject *cls, PyObject *tid)
{
    if (st->stock_module == NULL)
        return 0;
    PyObject *mod = Py_NewRef(st->stock_module);
    PyObject *registry, *by_class, *by_id;
    int r = stock_parts(mod, &registry, &by_class, &by_id);
    if (r == 1) {
        r = mirror_one(mod, by_class, by_id, cls, tid);
        Py_DECREF(registry);
        Py_DECREF(by_class);
        Py_DECREF(by_id);
    }
    Py_DECREF(mod);
    if (r < 0 && cpk_error_clearable()) {
        /* Sharing is a courtesy to stock cloudpickle: its failure (a
         * changed private API) must not fail our dump or load. */
        PyErr_Clear();
        r = 0;
    }
    return r < 0 ? -1 : 0;
}

/* _share_with_stock(module) -> bool ------------------------------------- */

static PyObject *
stock_share_with(PyObject *m, PyObject *mod)
{
    cpk_state *st = cpk_get_state(m);
    int r = share(st, mod);
    if (r < 0)
        return NULL;
    if (r == 1)
        Py_XSETREF(st->stock_seen, Py_NewRef(mod));
    return PyBool_FromLong(r);
}

PyMethodDef cpk_stock_methods[] = {
    {"_share_with_stock", stock_share_with, METH_O,
     PyDoc_STR("_share_with_stock(module)\n--\n\n"
               "If module is stock cloudpickle's cloudpickle.cloudpickle,\n"
               "make it share ccloudpickle's by-value registry and class\n"
               "tracker; True if it was.")},
    {NULL, NULL, 0, NULL},
};

/* The meta path watcher ---------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    PyObject *module; /* ccloudpickle */
} cpk_watcher;

/* find_spec(fullname, path=None, target=None): None, except for stock's
 * module, whose spec the companion finds and wraps. Runs on every import
 * that misses sys.modules: one string compare for those. */
static PyObject *
Watcher_find_spec(PyObject *op, PyObject *const *args, Py_ssize_t nargs,
                  PyObject *kwnames)
{
    cpk_watcher *self = (cpk_watcher *)op;
    if (nargs < 1 || !PyUnicode_Check(args[0]) ||
        PyUnicode_CompareWithASCIIString(args[0], STOCK_NAME) != 0)
        Py_RETURN_NONE;
    PyObject *companion = PyImport_ImportModule("_ccloudpickle_stock");
    if (companion == NULL) {
        /* Not installed next to us (the programs embed the module alone):
         * our next dump shares instead (cpk_stock_refresh). */
        if (!PyErr_ExceptionMatches(PyExc_ImportError))
            return NULL;
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    PyObject *func = PyObject_GetAttrString(companion, "find_spec");
    Py_DECREF(companion);
    if (func == NULL)
        return NULL;
    /* find_spec(watcher, ccloudpickle, fullname, path, target) */
    PyObject *call[5] = {op, self->module, args[0],
                         nargs > 1 ? args[1] : Py_None,
                         nargs > 2 ? args[2] : Py_None};
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    PyObject *res;
    if (nkw == 0)
        res = PyObject_Vectorcall(func, call, 5, NULL);
    else {
        /* path= / target= by keyword: passed on as given. */
        PyObject *pos = PyTuple_New(3 + (nargs > 1 ? nargs - 1 : 0));
        PyObject *kw = PyDict_New();
        res = NULL;
        if (pos != NULL && kw != NULL) {
            PyTuple_SET_ITEM(pos, 0, Py_NewRef(op));
            PyTuple_SET_ITEM(pos, 1, Py_NewRef(self->module));
            for (Py_ssize_t i = 0; i < nargs; i++)
                PyTuple_SET_ITEM(pos, 2 + i, Py_NewRef(args[i]));
            int ok = 1;
            for (Py_ssize_t i = 0; i < nkw && ok; i++)
                ok = PyDict_SetItem(kw, PyTuple_GET_ITEM(kwnames, i),
                                    args[nargs + i]) == 0;
            if (ok)
                res = PyObject_Call(func, pos, kw);
        }
        Py_XDECREF(pos);
        Py_XDECREF(kw);
    }
    Py_DECREF(func);
    return res;
}

static PyObject *
Watcher_repr(PyObject *op)
{
    (void)op;
    return PyUnicode_FromString("<ccloudpickle stock cloudpickle watcher>");
}

static int
Watcher_traverse(PyObject *op, visitproc visit, void *arg)
{
    Py_VISIT(((cpk_watcher *)op)->module);
    Py_VISIT(Py_TYPE(op));
    return 0;
}

static int
Watcher_clear(PyObject *op)
{
    Py_CLEAR(((cpk_watcher *)op)->module);
    return 0;
}

static void
Watcher_dealloc(PyObject *op)
{
    PyTypeObject *tp = Py_TYPE(op);
    PyObject_GC_UnTrack(op);
    Watcher_clear(op);
    tp->tp_free(op);
    Py_DECREF(tp);
}

static PyMethodDef watcher_methods[] = {
    {"find_spec", (PyCFunction)(void (*)(void))Watcher_find_spec,
     METH_FASTCALL | METH_KEYWORDS,
     PyDoc_STR("find_spec(fullname, path=None, target=None)\n--\n\n"
               "None, but for stock cloudpickle's module: its spec, with\n"
               "a loader that shares ccloudpickle's registry and tracker\n"
               "with it once it has run.")},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot watcher_slots[] = {
    {Py_tp_methods, watcher_methods},
    {Py_tp_repr, Watcher_repr},
    {Py_tp_traverse, Watcher_traverse},
    {Py_tp_clear, Watcher_clear},
    {Py_tp_dealloc, Watcher_dealloc},
    {0, NULL},
};

static PyType_Spec watcher_spec = {
    .name = "ccloudpickle._StockWatcher",
    .basicsize = sizeof(cpk_watcher),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .slots = watcher_slots,
};

int
cpk_stock_init(PyObject *module, cpk_state *st)
{
    PyTypeObject *type = (PyTypeObject *)PyType_FromModuleAndSpec(
        module, &watcher_spec, NULL);
    if (type == NULL)
        return -1;
    st->stock_name = PyUnicode_InternFromString(STOCK_NAME);
    if (st->stock_name == NULL) {
        Py_DECREF(type);
        return -1;
    }
    cpk_watcher *w = PyObject_GC_New(cpk_watcher, type);
    Py_DECREF(type); /* the instance holds it */
    if (w == NULL)
        return -1;
    w->module = Py_NewRef(module);
    PyObject_GC_Track(w);
    /* Stock imported before us: share now. */
    if (cpk_stock_refresh(st) < 0) {
        Py_DECREF(w);
        return -1;
    }
    /* First on sys.meta_path, so it sees stock's import before the path
     * finder would serve it. No meta_path (a stripped embedding): only
     * the lazy refresh then. */
    PyObject *meta_path = PySys_GetObject("meta_path"); /* borrowed */
    int r = 0;
    if (meta_path != NULL && PyList_Check(meta_path))
        r = PyList_Insert(meta_path, 0, (PyObject *)w);
    Py_DECREF(w);
    return r;
}
