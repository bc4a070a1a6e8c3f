/* tracker.c - class identity across pickles. A class pickled by value gets
 * a random tracker id; loading that id again in the same process (from the
 * same dump or another, by ccloudpickle or by stock cloudpickle's format)
 * returns the class already there, and loading it back into the process
 * that pickled it returns the original class. The registry holds classes
 * weakly: an entry disappears with its class.
 *
 *   by_id:    {tracker_id: weakref(class)}
 *   by_class: {id(class): (weakref(class), tracker_id, reconstructed)}
 *
 * `reconstructed` is True for classes built by our _make_skeleton_* and
 * False for classes found while pickling; _class_setstate leaves the
 * latter untouched (see reconstruct.c).
 *
 * Where stock cloudpickle is imported, its tracker is consulted on a miss
 * and told of every class tracked here (stock.c), so a class has one id
 * and one identity whichever of the two pickles or loads it.
 */
#include "core/tracker.h"
#include "core/state.h"
#include "common/pycompat.h"
#include "core/stock.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

/* The weakref callback: removes the entries of one dead class. */
typedef struct {
    PyObject_HEAD
    PyObject *module;
    PyObject *key; /* id(class) */
    PyObject *tid;
} cpk_tracker_cb;

static PyObject *
TrackerCb_call(PyObject *op, PyObject *args, PyObject *kwds)
{
    cpk_tracker_cb *self = (cpk_tracker_cb *)op;
    PyObject *wr;
    (void)kwds;
    if (!PyArg_UnpackTuple(args, "callback", 1, 1, &wr))
        return NULL;
    cpk_state *st = cpk_get_state(self->module);
    if (st->tracker_by_class == NULL) /* module being torn down */
        Py_RETURN_NONE;
    PyObject *entry = PyDict_GetItemWithError(st->tracker_by_class, self->key);
    if (entry != NULL && PyTuple_GET_ITEM(entry, 0) == wr) {
        if (PyDict_DelItem(st->tracker_by_class, self->key) < 0)
            return NULL;
    }
    else if (PyErr_Occurred())
        return NULL;
    PyObject *cur = PyDict_GetItemWithError(st->tracker_by_id, self->tid);
    if (cur == wr) {
        if (PyDict_DelItem(st->tracker_by_id, self->tid) < 0)
            return NULL;
    }
    else if (PyErr_Occurred())
        return NULL;
    Py_RETURN_NONE;
}

static int
TrackerCb_traverse(PyObject *op, visitproc visit, void *arg)
{
    cpk_tracker_cb *self = (cpk_tracker_cb *)op;
    Py_VISIT(self->module);
    Py_VISIT(self->key);
    Py_VISIT(self->tid);
    Py_VISIT(Py_TYPE(op));
    return 0;
}

static int
TrackerCb_clear(PyObject *op)
{
    cpk_tracker_cb *self = (cpk_tracker_cb *)op;
    Py_CLEAR(self->module);
    Py_CLEAR(self->key);
    Py_CLEAR(self->tid);
    return 0;
}

static void
TrackerCb_dealloc(PyObject *op)
{
    PyTypeObject *tp = Py_TYPE(op);
    PyObject_GC_UnTrack(op);
    TrackerCb_clear(op);
    tp->tp_free(op);
    Py_DECREF(tp);
}

static PyType_Slot tracker_cb_slots[] = {
    {Py_tp_call, TrackerCb_call},
    {Py_tp_traverse, TrackerCb_traverse},
    {Py_tp_clear, TrackerCb_clear},
    {Py_tp_dealloc, TrackerCb_dealloc},
    {0, NULL},
};

static PyType_Spec tracker_cb_spec = {
    .name = "ccloudpickle._TrackerCallback",
    .basicsize = sizeof(cpk_tracker_cb),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .slots = tracker_cb_slots,
};

int
cpk_tracker_init(PyObject *module, cpk_state *st)
{
    st->tracker_cb_type = (PyTypeObject *)PyType_FromModuleAndSpec(
        module, &tracker_cb_spec, NULL);
    if (st->tracker_cb_type == NULL)
        return -1;
    st->tracker_by_id = PyDict_New();
    st->tracker_by_class = PyDict_New();
    return st->tracker_by_id && st->tracker_by_class ? 0 : -1;
}

/* 32 random hex digits, like uuid4().hex. New reference. */
static PyObject *
new_tracker_id(void)
{
    unsigned char raw[16];
    size_t got = 0;
    while (got < sizeof(raw)) {
        ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            PyErr_SetFromErrno(PyExc_OSError);
            return NULL;
        }
        got += (size_t)n;
    }
    static const char digits[] = "0123456789abcdef";
    char hex[32];
    for (size_t i = 0; i < sizeof(raw); i++) {
        hex[2 * i] = digits[raw[i] >> 4];
        hex[2 * i + 1] = digits[raw[i] & 15];
    }
    return PyUnicode_FromStringAndSize(hex, 32);
}

/* What the registry stores for a class: the by_class key id(cls) and the
 * entry, whose weak reference removes both when the class dies. Made
 * before the registry is looked at for the last time: allocating can run
 * the cyclic GC, hence finalizers, hence other threads. */
typedef struct {
    PyObject *key;   /* id(cls) */
    PyObject *entry; /* (weakref(cls), tid, reconstructed) */
} cpk_track_rec;

static int
track_prepare(cpk_state *st, PyObject *module, PyObject *cls, PyObject *tid,
              int reconstructed, cpk_track_rec *rec)
{
    rec->key = rec->entry = NULL;
    PyObject *key = PyLong_FromVoidPtr(cls);
    if (key == NULL)
        return -1;
    cpk_tracker_cb *cb = PyObject_GC_New(cpk_tracker_cb, st->tracker_cb_type);
    if (cb == NULL) {
        Py_DECREF(key);
        return -1;
    }
    cb->module = Py_NewRef(module);
    cb->key = Py_NewRef(key);
    cb->tid = Py_NewRef(tid);
    PyObject_GC_Track(cb);
    PyObject *wr = PyWeakref_NewRef(cls, (PyObject *)cb);
    Py_DECREF(cb);
    PyObject *entry = NULL;
    if (wr != NULL)
        entry = PyTuple_Pack(3, wr, tid, reconstructed ? Py_True : Py_False);
    Py_XDECREF(wr);
    if (entry == NULL) {
        Py_DECREF(key);
        return -1;
    }
    rec->key = key;
    rec->entry = entry;
    return 0;
}

static void
track_discard(cpk_track_rec *rec)
{
    Py_CLEAR(rec->key);
    Py_CLEAR(rec->entry);
}

/* Store a prepared record. Between the caller's last look at the registry
 * and here nothing may run Python code: int and str keys compare in C,
 * and what the stores replace is a dead class's entry, whose release runs
 * no Python code (a weak reference freed before its referent calls no
 * callback). */
static int
track_commit(cpk_state *st, cpk_track_rec *rec)
{
    PyObject *tid = PyTuple_GET_ITEM(rec->entry, 1);
    PyObject *wr = PyTuple_GET_ITEM(rec->entry, 0);
    int r = PyDict_SetItem(st->tracker_by_class, rec->key, rec->entry) == 0 &&
                    PyDict_SetItem(st->tracker_by_id, tid, wr) == 0
                ? 0
                : -1;
    track_discard(rec);
    return r;
}

/* The by_class entry of a live class, borrowed, or NULL. */
static PyObject *
entry_of(cpk_state *st, PyObject *cls)
{
    PyObject *key = PyLong_FromVoidPtr(cls);
    if (key == NULL)
        return NULL;
    PyObject *entry = PyDict_GetItemWithError(st->tracker_by_class, key);
    Py_DECREF(key);
    if (entry != NULL) {
        PyObject *live = cpk_weakref_get(PyTuple_GET_ITEM(entry, 0));
        Py_XDECREF(live); /* only compared */
        if (live != cls)
            return NULL; /* a dead class's entry whose callback has not run */
    }
    return entry;
}

static PyObject *
module_of(cpk_state *st)
{
    /* Any of our types knows the module. */
    return PyType_GetModule(st->tracker_cb_type);
}

PyObject *
cpk_tracker_get_or_create_id(cpk_state *st, PyObject *cls)
{
    PyObject *entry = entry_of(st, cls);
    if (entry != NULL)
        return Py_NewRef(PyTuple_GET_ITEM(entry, 1));
    if (PyErr_Occurred())
        return NULL;
    /* Decided under stock cloudpickle's lock where it is imported: a
     * class stock pickled or loaded here keeps the id stock gave it, and
     * stock gets ours otherwise. */
    PyObject *fresh = new_tracker_id();
    if (fresh == NULL)
        return NULL;
    PyObject *tid = cpk_stock_claim_id(st, cls, fresh);
    Py_DECREF(fresh);
    if (tid == NULL)
        return NULL;
    cpk_track_rec rec;
    if (track_prepare(st, module_of(st), cls, tid, 0, &rec) < 0) {
        Py_DECREF(tid);
        return NULL;
    }
    /* Another thread may have given the class its id while cloudpickle's
     * tracker ran or the record was made (also through stock's lock, so
     * the same id where stock is imported): that id wins. From this look
     * to the stores nothing runs Python code, so no thread can slip in. */
    entry = entry_of(st, cls);
    if (entry != NULL || PyErr_Occurred()) {
        PyObject *theirs = entry ? Py_NewRef(PyTuple_GET_ITEM(entry, 1))
                                 : NULL;
        track_discard(&rec);
        Py_DECREF(tid);
        return theirs;
    }
    if (track_commit(st, &rec) < 0) {
        Py_DECREF(tid);
        return NULL;
    }
    return tid;
}

/* The live class tracked under `tid` (new reference), or NULL (with an
 * exception only on error). */
static PyObject *
tracked_class(cpk_state *st, PyObject *tid)
{
    PyObject *wr = PyDict_GetItemWithError(st->tracker_by_id, tid);
    return wr != NULL ? cpk_weakref_get(wr) : NULL;
}

PyObject *
cpk_tracker_lookup(cpk_state *st, PyObject *tid)
{
    if (!PyUnicode_Check(tid))
        return NULL;
    return tracked_class(st, tid);
}

PyObject *
cpk_tracker_lookup_or_track(cpk_state *st, PyObject *tid, PyObject *cls,
                            int *found)
{
    *found = 0;
    if (tid == Py_None)
        return Py_NewRef(cls);
    if (!PyUnicode_Check(tid)) {
        PyErr_SetString(st->UnpicklingError,
                        "class tracker id must be a str or None");
        return NULL;
    }
    PyObject *existing = tracked_class(st, tid);
    if (existing != NULL || PyErr_Occurred()) {
        *found = existing != NULL;
        return existing;
    }
    /* Decided under stock cloudpickle's lock where it is imported: a class
     * stock holds under that id (it pickled it here, or loaded it) is the
     * class, and stock gets ours otherwise. */
    PyObject *mine = cpk_stock_claim_class(st, tid, cls);
    if (mine == NULL)
        return NULL;
    cpk_track_rec rec;
    if (track_prepare(st, module_of(st), mine, tid, mine == cls, &rec) < 0) {
        Py_DECREF(mine);
        return NULL;
    }
    /* Another thread loading the same id may have tracked its class
     * meanwhile: one class per id, theirs. Nothing runs Python code from
     * this look to the stores. */
    existing = tracked_class(st, tid);
    if (existing != NULL || PyErr_Occurred()) {
        track_discard(&rec);
        Py_DECREF(mine);
        *found = existing != NULL;
        return existing;
    }
    if (track_commit(st, &rec) < 0) {
        Py_DECREF(mine);
        return NULL;
    }
    *found = mine != cls;
    return mine;
}

int
cpk_tracker_is_original(cpk_state *st, PyObject *cls)
{
    PyObject *entry = entry_of(st, cls);
    if (entry == NULL)
        return PyErr_Occurred() ? -1 : 0;
    return PyTuple_GET_ITEM(entry, 2) == Py_False;
}
