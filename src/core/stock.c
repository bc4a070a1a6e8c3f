/* stock.c - living with stock cloudpickle in one process: one by-value
 * registry and one class identity, whichever of the two pickles. The
 * registry (lookup.c) and the tracker (tracker.c) are ours; here is how
 * stock cloudpickle's module `cloudpickle.cloudpickle` (2.2 and 3.x keep
 * the same private names) is made to share them:
 *
 * - registry: its set _PICKLE_BY_VALUE_MODULES becomes ours (what we held
 *   is added to it the first time we meet that module), so both read and
 *   write one set; stock's functions look the global up on each call. A
 *   second ccloudpickle module object joins the same set. If stock's
 *   module rebinds the global (a test fixture's reset, a reload), the set
 *   now there is the registry, as for stock alone: noticed when
 *   sys.modules changed since our last dump or load, and at our registry
 *   calls. Our by-value check is unchanged (no lock, no Python code).
 * - tracker: a tracker miss of ours decides under stock's
 *   _DYNAMIC_CLASS_TRACKER_LOCK, as stock does: a class's id is the one
 *   stock holds in _DYNAMIC_CLASS_TRACKER_BY_CLASS, else our new id, put
 *   in both its dicts; an id's class is by_id.setdefault(id, ours). The
 *   lock is only tried, never waited for (its holder may be this thread:
 *   a finalizer that pickles, run inside stock's tracker code): busy, we
 *   read stock's dict without it and the class waits in st->stock_pending
 *   for the next miss or refresh that finds the lock free. Tracker hits
 *   never get here.
 *
 * Stock imported before us is shared with at module exec; imported later,
 * by the _StockWatcher that module exec puts first on sys.meta_path (in
 * place of an earlier ccloudpickle module object's): for
 * "cloudpickle.cloudpickle" only, it asks the companion module
 * _ccloudpickle_stock (python/) for a copy of the spec whose loader, a
 * copy of stock's, calls _share_with_stock after the module ran. Where
 * the companion is missing (the programs), our next dump shares
 * (cpk_stock_refresh, called when sys.modules changed) - late only for
 * what stock pickles before that.
 */
#include "core/stock.h"
#include "core/state.h"
#include "common/pycompat.h"
#include "common/pyerr.h" /* cpk_error_clearable */

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

/* Stock's tracker lock, taken without waiting: 1 taken (*lock a new
 * reference, NULL where stock has no lock), 0 busy, -1 on error. Never a
 * wait: the holder may be this very thread (a finalizer that pickles, run
 * by a collection inside stock's tracker code); what could not be done
 * under the lock waits in st->stock_pending instead. */
static int
lock_try(PyObject *mod, PyObject **lock)
{
    *lock = NULL;
    if (PyObject_GetOptionalAttrString(mod, "_DYNAMIC_CLASS_TRACKER_LOCK",
                                       lock) < 0)
        return -1;
    if (*lock == NULL)
        return 1;
    PyObject *r = PyObject_CallMethod(*lock, "acquire", "(O)", Py_False);
    int held = r == NULL ? -1 : PyObject_IsTrue(r);
    Py_XDECREF(r);
    if (held <= 0)
        Py_CLEAR(*lock);
    return held;
}

/* Release `lock` (stolen; NULL: nothing to release) after work that ended
 * with `status` (0, or -1 with an exception set, which survives the call).
 * An ordinary error from release() gives way to the first error; a
 * KeyboardInterrupt, SystemExit or MemoryError from it replaces it. */
static int
lock_release(PyObject *lock, int status)
{
    if (lock == NULL)
        return status;
    PyObject *exc_type, *exc, *tb;
    PyErr_Fetch(&exc_type, &exc, &tb);
    PyObject *rel = PyObject_CallMethod(lock, "release", NULL);
    Py_DECREF(lock);
    if (rel != NULL) {
        Py_DECREF(rel);
        PyErr_Restore(exc_type, exc, tb);
        return status;
    }
    if (exc_type != NULL) {
        if (cpk_error_clearable()) {
            PyErr_Clear(); /* the first error wins */
            PyErr_Restore(exc_type, exc, tb);
        }
        else {
            Py_DECREF(exc_type);
            Py_XDECREF(exc);
            Py_XDECREF(tb);
        }
    }
    return -1;
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

/* Remember that `cls` is to go into stock's tracker once its lock is
 * free (flush_pending). 0 or -1. */
static int
pend(cpk_state *st, PyObject *cls)
{
    if (st->stock_pending == NULL &&
        (st->stock_pending = PyList_New(0)) == NULL)
        return -1;
    PyObject *wr = PyWeakref_NewRef(cls, NULL);
    if (wr == NULL)
        return -1;
    int r = PyList_Append(st->stock_pending, wr);
    Py_DECREF(wr);
    return r;
}

/* The tracker id we hold for the live class `cls` (new reference), or
 * NULL without an error. Reads tracker.c's by_class layout. */
static PyObject *
our_tid(cpk_state *st, PyObject *cls)
{
    PyObject *key = PyLong_FromVoidPtr(cls);
    if (key == NULL)
        return NULL;
    PyObject *entry;
    int r = cpk_dict_get_ref(st->tracker_by_class, key, &entry);
    Py_DECREF(key);
    if (r <= 0)
        return NULL;
    PyObject *live = cpk_weakref_get(PyTuple_GET_ITEM(entry, 0));
    PyObject *tid = live == cls ? Py_NewRef(PyTuple_GET_ITEM(entry, 1))
                                : NULL;
    Py_XDECREF(live);
    Py_DECREF(entry);
    return tid;
}

/* Put every live class of `classes` (a list of weak references, ours)
 * that we track into stock's tracker `mod`, not replacing what it has:
 * by_class.setdefault(cls, tid); by_id.setdefault(tid, cls), under its
 * lock taken once. With the lock busy, they all wait in the pending
 * list; so do classes not (yet) in our tracker. 0 or -1. */
static int
push_classes(cpk_state *st, PyObject *mod, PyObject *classes)
{
    PyObject *by_class, *by_id, *lock = NULL;
    int r = tracker_parts(mod, &by_class, &by_id);
    if (r <= 0)
        return r;
    r = lock_try(mod, &lock);
    Py_ssize_t n = PyList_GET_SIZE(classes);
    if (r == 0) {
        for (Py_ssize_t i = 0; i < n && r == 0; i++) {
            PyObject *cls = cpk_weakref_get(PyList_GET_ITEM(classes, i));
            if (cls != NULL) {
                r = pend(st, cls);
                Py_DECREF(cls);
            }
        }
        goto done;
    }
    if (r < 0)
        goto done;
    r = 0;
    for (Py_ssize_t i = 0; i < n && r == 0; i++) {
        /* `classes` is ours alone: the calls below cannot change it. */
        PyObject *cls = cpk_weakref_get(PyList_GET_ITEM(classes, i));
        if (cls == NULL)
            continue;
        PyObject *tid = our_tid(st, cls);
        if (tid == NULL) {
            r = PyErr_Occurred() ? -1 : pend(st, cls);
            Py_DECREF(cls);
            continue;
        }
        PyObject *x = PyObject_CallMethod(by_class, "setdefault", "(OO)",
                                          cls, tid);
        if (x != NULL) {
            Py_DECREF(x);
            x = PyObject_CallMethod(by_id, "setdefault", "(OO)", tid, cls);
        }
        r = x == NULL ? -1 : 0;
        Py_XDECREF(x);
        Py_DECREF(tid);
        Py_DECREF(cls);
    }
    r = lock_release(lock, r);
done:
    Py_DECREF(by_class);
    Py_DECREF(by_id);
    return r;
}

/* Every class of our tracker, into stock's (at first sharing, or when
 * its tracker dicts are new ones: a reload). 0 or -1. */
static int
push_tracker(cpk_state *st, PyObject *mod)
{
    PyObject *entries = PyDict_Values(st->tracker_by_class);
    if (entries == NULL)
        return -1;
    PyObject *classes = PyList_New(0);
    int r = classes == NULL ? -1 : 0;
    for (Py_ssize_t i = 0; r == 0 && i < PyList_GET_SIZE(entries); i++)
        r = PyList_Append(classes,
                          PyTuple_GET_ITEM(PyList_GET_ITEM(entries, i), 0));
    Py_DECREF(entries);
    if (r == 0)
        r = push_classes(st, mod, classes);
    Py_XDECREF(classes);
    return r;
}

/* The classes that waited for stock's lock, into its tracker when the
 * lock is free now (else they wait on). 0 or -1. */
static int
flush_pending(cpk_state *st)
{
    if (st->stock_pending == NULL || PyList_GET_SIZE(st->stock_pending) == 0 ||
        st->stock_module == NULL)
        return 0;
    PyObject *todo = st->stock_pending; /* ours now; pend() starts anew */
    st->stock_pending = NULL;
    PyObject *mod = Py_NewRef(st->stock_module);
    int r = courtesy(push_classes(st, mod, todo));
    Py_DECREF(mod);
    Py_DECREF(todo);
    return r;
}

/* Make our by-value registry stock's set `registry`: where `merge`, what
 * we hold joins it first (a stock module met for the first time); not
 * after stock's module rebound its global (a reset, or a reload: the set
 * now there is the registry, as for stock alone). Another ccloudpickle
 * module object sharing with the same stock ends up with the same set.
 * A registry that is not a plain set (a stand-in) is merged into ours
 * and replaced by ours instead. 0 or -1. */
static int
share_registry(cpk_state *st, PyObject *mod, PyObject *registry, int merge)
{
    if (registry == st->by_value)
        return 0;
    /* Held: the elements' hashing and comparing may run Python code,
     * which may share again and replace st->by_value. */
    PyObject *ours = Py_NewRef(st->by_value);
    int r = 0;
    if (Py_IS_TYPE(registry, &PySet_Type)) { /* PySet_CheckExact: 3.10 */
        if (merge) {
            PyObject *merged = PyNumber_InPlaceOr(registry, ours);
            r = merged == NULL ? -1 : 0;
            Py_XDECREF(merged);
        }
        if (r == 0)
            Py_XSETREF(st->by_value, Py_NewRef(registry));
    }
    else {
        PyObject *merged = PyNumber_InPlaceOr(ours, registry);
        r = merged == NULL ? -1 : 0;
        Py_XDECREF(merged);
        if (r == 0)
            r = PyObject_SetAttrString(mod, "_PICKLE_BY_VALUE_MODULES", ours);
    }
    Py_DECREF(ours);
    return r;
}

/* Share our registry and tracker with `mod` where it has stock
 * cloudpickle's (the set _PICKLE_BY_VALUE_MODULES, the two tracker
 * dicts): 1 if it had either, 0 if neither, -1 on error. `again`: `mod`
 * is the module shared with before (its globals were rebound).
 * Idempotent. */
static int
share(cpk_state *st, PyObject *mod, int again)
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
        if (courtesy(share_registry(st, mod, registry, !again)) < 0) {
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
        Py_XSETREF(st->stock_by_class, by_class); /* only compared */
        Py_DECREF(by_id);
        r = push_tracker(st, mod);
    }
    if (courtesy(r) < 0)
        return -1;
    return found;
}

/* 1 if `mod`, shared with before, still holds the registry and tracker
 * we share (a plain module's dict looked at: no Python code runs), 0 if
 * it rebound them (a reset, a reload). */
static int
still_shared(cpk_state *st, PyObject *mod)
{
    if (!PyModule_Check(mod))
        return 1; /* a stand-in: looked at once */
    PyObject *d = PyModule_GetDict(mod); /* borrowed; mod is held */
    if (d == NULL)
        return 1; /* 3.9, 3.10: ModuleType.__new__ alone, no namespace */
    PyObject *reg = PyDict_GetItemString(d, "_PICKLE_BY_VALUE_MODULES");
    if (reg != NULL && PyAnySet_Check(reg) && reg != st->by_value)
        return 0;
    PyObject *by_class =
        PyDict_GetItemString(d, "_DYNAMIC_CLASS_TRACKER_BY_CLASS");
    if (by_class != NULL && st->stock_module == mod &&
        by_class != st->stock_by_class)
        return 0;
    return 1;
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
    int again = mod == st->stock_seen;
    if (again && still_shared(st, mod)) {
        Py_DECREF(mod);
        return flush_pending(st);
    }
    /* Recorded first: what share() runs may import, and an alias module
     * (not stock) is looked at once. */
    Py_XSETREF(st->stock_seen, Py_NewRef(mod));
    r = share(st, mod, again);
    Py_DECREF(mod);
    if (r < 0) {
        Py_CLEAR(st->stock_seen); /* interrupted: look again next time */
        return -1;
    }
    return flush_pending(st);
}

/* What claim() decides, for the dump side (a class's id) or the load
 * side (an id's class). */
enum { CLAIM_ID, CLAIM_CLASS };

/* Decide, as stock cloudpickle does, under its lock: for CLAIM_ID (key
 * a class, ours its fresh id) the id stock holds for the class, else
 * ours, now stock's too; for CLAIM_CLASS (key an id, ours the class just
 * built) the class stock holds under that id, else ours, now stock's
 * too. New reference; `ours` where stock is absent. With stock's lock
 * busy, what stock holds is read without it, and ours waits in the
 * pending list. NULL with an exception on error (what cloudpickle's
 * `except Exception` would ignore is ignored). */
static PyObject *
claim(cpk_state *st, int what, PyObject *key, PyObject *ours)
{
    if (cpk_stock_refresh(st) < 0)
        return NULL;
    if (st->stock_module == NULL)
        return Py_NewRef(ours);
    PyObject *mod = Py_NewRef(st->stock_module);
    PyObject *by_class, *by_id, *lock = NULL, *got = NULL;
    int r = tracker_parts(mod, &by_class, &by_id);
    if (r <= 0)
        goto done;
    PyObject *primary = what == CLAIM_ID ? by_class : by_id;
    r = lock_try(mod, &lock);
    if (r >= 0) {
        int held = r;
        got = PyObject_CallMethod(primary, "get", "(O)", key);
        r = got == NULL ? -1 : 0;
        if (got == Py_None)
            Py_CLEAR(got);
        if (r == 0 && held) {
            /* stock's _get_or_create_tracker_id / _lookup_class_or_track */
            if (got == NULL)
                got = PyObject_CallMethod(primary, "setdefault", "(OO)", key,
                                          ours);
            PyObject *x = NULL;
            if (got != NULL && what == CLAIM_ID)
                x = PyObject_CallMethod(by_id, "setdefault", "(OO)", got,
                                        key);
            else if (got != NULL)
                x = PyObject_SetItem(by_class, got, key) < 0
                        ? NULL
                        : Py_NewRef(Py_None);
            r = x == NULL ? -1 : 0;
            Py_XDECREF(x);
        }
        else if (r == 0 && got == NULL)
            r = pend(st, what == CLAIM_ID ? key : ours);
        if (held)
            r = lock_release(lock, r);
    }
    Py_DECREF(by_class);
    Py_DECREF(by_id);
done:
    Py_DECREF(mod);
    /* What stock holds is used only where it is what ours would be. */
    if (got != NULL &&
        !(what == CLAIM_ID ? PyUnicode_Check(got) : PyType_Check(got)))
        Py_CLEAR(got);
    if (courtesy(r) < 0) {
        Py_XDECREF(got);
        return NULL;
    }
    return got != NULL ? got : Py_NewRef(ours);
}

PyObject *
cpk_stock_claim_id(cpk_state *st, PyObject *cls, PyObject *tid)
{
    return claim(st, CLAIM_ID, cls, tid);
}

PyObject *
cpk_stock_claim_class(cpk_state *st, PyObject *tid, PyObject *cls)
{
    return claim(st, CLAIM_CLASS, tid, cls);
}

/* _share_with_stock(module) -> bool ------------------------------------- */

static PyObject *
stock_share_with(PyObject *m, PyObject *mod)
{
    cpk_state *st = cpk_get_state(m);
    int r = share(st, mod, mod == st->stock_seen);
    if (r < 0 || flush_pending(st) < 0)
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
    if (PyUnicode_CompareWithASCIIString(fullname, STOCK_NAME) != 0 ||
        self->module == NULL)
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

/* Made only by cpk_stock_init. */
static PyType_Slot watcher_slots[] = {
    CPK_PY_DISALLOW_NEW_SLOT
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
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC |
             CPK_PY_TPFLAGS_DISALLOW_INSTANTIATION,
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
     * finder would serve it, in place of the watcher of an earlier
     * ccloudpickle module object (removed from sys.modules and imported
     * again), which would keep that module alive for good; that module
     * still shares through its lazy refresh. No meta_path (a stripped
     * embedding): only the lazy refresh then. */
    PyObject *meta_path = PySys_GetObject("meta_path"); /* borrowed */
    int r = 0;
    if (meta_path != NULL && PyList_Check(meta_path)) {
        Py_INCREF(meta_path); /* dropping a watcher may run Python code */
        for (Py_ssize_t i = PyList_GET_SIZE(meta_path) - 1; r == 0 && i >= 0;
             i--) {
            if (i >= PyList_GET_SIZE(meta_path))
                continue;
            if (strcmp(Py_TYPE(PyList_GET_ITEM(meta_path, i))->tp_name,
                       watcher_spec.name) == 0)
                r = PySequence_DelItem(meta_path, i);
        }
        if (r == 0)
            r = PyList_Insert(meta_path, 0, (PyObject *)w);
        Py_DECREF(meta_path);
    }
    Py_DECREF(w);
    return r;
}
