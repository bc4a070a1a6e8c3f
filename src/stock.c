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

/* Stock cloudpickle's tracker dicts in `mod`: 1 with new references in
 * *by_class and *by_id, 0 if either is missing (no error), -1 on error. */
static int
tracker_parts(PyObject *mod, PyObject **by_class, PyObject **by_id)
{
    *by_class = *by_id = NULL;
    if (PyObject_GetOptionalAttrString(
            mod, "_DYNAMIC_CLASS_TRACKER_BY_CLASS", by_class) < 0 ||
        (*by_class != NULL &&
         PyObject_GetOptionalAttrString(mod, "_DYNAMIC_CLASS_TRACKER_BY_ID",
                                        by_id) < 0))
        goto none;
    if (*by_id == NULL)
        goto none;
    return 1;
none:
    Py_CLEAR(*by_class);
    Py_CLEAR(*by_id);
    return PyErr_Occurred() ? -1 : 0;
}

/* Put (cls, tid) in stock's tracker `mod`, not replacing what it has:
 * under its lock, by_id.setdefault(tid, cls); by_class.setdefault(cls,
 * tid). 0 (also when the lock stayed taken for a second) or -1. */
static int
mirror_one(PyObject *mod, PyObject *by_class, PyObject *by_id,
           PyObject *cls, PyObject *tid)
{
    PyObject *lock = NULL, *r = NULL;
    if (PyObject_GetOptionalAttrString(mod, "_DYNAMIC_CLASS_TRACKER_LOCK",
                                       &lock) < 0)
        return -1;
    if (lock != NULL) {
        /* Bounded: this thread may hold it already (a finalizer that
         * pickles, run by a collection inside stock's tracker code); then
         * stock keeps its own id for the class rather than deadlock. */
        r = PyObject_CallMethod(lock, "acquire", "(Od)", Py_True, 1.0);
        int held = r == NULL ? -1 : PyObject_IsTrue(r);
        Py_XDECREF(r);
        if (held <= 0) {
            Py_DECREF(lock);
            return held;
        }
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

/* Sharing is a courtesy to stock cloudpickle: where its private names
 * turn out not to be what 2.2 and 3.x have (a stand-in module, a future
 * version), it must not fail our dump or load. 0 after clearing such an
 * error; -1 for KeyboardInterrupt, MemoryError and the like. */
static int
courtesy(int r)
{
    if (r < 0 && cpk_error_clearable()) {
        PyErr_Clear();
        return 0;
    }
    return r;
}

/* Share our registry and tracker with `mod` where it has stock
 * cloudpickle's (the set _PICKLE_BY_VALUE_MODULES, the two tracker
 * dicts): 1 if it had either, 0 if neither, -1 on error. Idempotent. */
static int
share(cpk_state *st, PyObject *mod)
{
    if (st->by_value == NULL || st->tracker_by_class == NULL)
        return 0; /* the module is being torn down */
    int found = 0;
    PyObject *registry;
    if (PyObject_GetOptionalAttrString(mod, "_PICKLE_BY_VALUE_MODULES",
                                       &registry) < 0)
        return courtesy(-1);
    if (registry != NULL && PyAnySet_Check(registry)) {
        found = 1;
        int r = 0;
        if (registry != st->by_value) {
            /* Theirs into ours, then ours in their module's namespace. */
            PyObject *merged = PyNumber_InPlaceOr(st->by_value, registry);
            r = merged == NULL ? -1 : 0;
            Py_XDECREF(merged);
            if (r == 0)
                r = PyObject_SetAttrString(mod, "_PICKLE_BY_VALUE_MODULES",
                                           st->by_value);
        }
        if (courtesy(r) < 0) {
            Py_DECREF(registry);
            return -1;
        }
    }
    Py_XDECREF(registry);
    PyObject *by_class, *by_id;
    int r = tracker_parts(mod, &by_class, &by_id);
    if (r == 1) {
        found = 1;
        Py_XSETREF(st->stock_module, Py_NewRef(mod));
        r = push_tracker(st, mod, by_class, by_id);
        Py_DECREF(by_class);
        Py_DECREF(by_id);
    }
    if (courtesy(r) < 0)
        return -1;
    return found;
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
    if (r < 0) {
        Py_CLEAR(st->stock_seen); /* interrupted: look again next time */
        return -1;
    }
    return 0;
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
    PyObject *by_class, *by_id;
    int r = tracker_parts(mod, &by_class, &by_id);
    if (r == 1) {
        r = mirror_one(mod, by_class, by_id, cls, tid);
        Py_DECREF(by_class);
        Py_DECREF(by_id);
    }
    Py_DECREF(mod);
    return courtesy(r) < 0 ? -1 : 0;
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
 * that misses sys.modules: an argument parse and a string compare. */
static PyObject *
Watcher_find_spec(PyObject *op, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"fullname", "path", "target", NULL};
    cpk_watcher *self = (cpk_watcher *)op;
    PyObject *fullname, *path = Py_None, *target = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "U|OO:find_spec", kwlist,
                                     &fullname, &path, &target))
        return NULL;
    if (PyUnicode_CompareWithASCIIString(fullname, STOCK_NAME) != 0)
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
    /* find_spec(watcher, ccloudpickle, fullname, path, target) */
    PyObject *res = PyObject_CallMethod(companion, "find_spec", "(OOOOO)", op,
                                        self->module, fullname, path, target);
    Py_DECREF(companion);
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
     METH_VARARGS | METH_KEYWORDS,
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
