/* gcpause.c - automatic cyclic garbage collection paused while a large
 * load or dump runs (unpickler.c, pickler.c, module.c call it).
 *
 * A load allocates containers by the million, each allocation counting
 * towards a collection that finds nothing to free, so loads run with
 * automatic collection paused. The rule: after a load, the collector is in
 * the state the user last set. Hence the pause must not use the switch the
 * user owns: gc.disable() during the load (in a __setstate__, in another
 * thread) looks exactly like our own pause, and re-enabling afterwards
 * would undo it. So we never touch gc.enable()/gc.disable(). We pause by
 * setting generation 0's threshold to 0, which stops automatic collection
 * in CPython 3.9-3.13 just as disabling does, and restore the threshold the
 * user had when the outermost paused call ends, unless it is no longer 0:
 * then somebody called gc.set_threshold() meanwhile, and that setting
 * stands. (A gc.set_threshold(0, ...) made during the load is the one
 * choice we cannot tell from ours; it is undone.) Nested and concurrent
 * loads pause once: a depth count under the GIL.
 *
 * Reading and setting the threshold costs about a microsecond (gc's
 * functions, called through Python), as much as a whole small load; and a
 * small load makes too few objects for the collector to matter. So loads
 * below CPK_PAUSE_MIN_SIZE bytes run as they are, without any pause.
 *
 * A dump allocates a reduce tuple, state dicts and argument tuples for
 * every object it reduces, which its memo holds until the dump ends, so
 * each collection meanwhile scans them all again and finds nothing (13%
 * of the instructions of dumping 5,000 closures). Its size is not known in advance:
 * pickler.c pauses once a dump has reduced CPK_DUMP_PAUSE_AFTER objects. */

#include "engine/gcpause.h"
#include "core/state.h"
#include "common/pycompat.h"

#define CPK_PAUSE_MIN_SIZE 65536

/* Fill st->gc_get_threshold/gc_set_threshold on first use. */
static int
gc_functions(cpk_state *st)
{
    if (st->gc_set_threshold != NULL)
        return 0;
    PyObject *gc = PyImport_ImportModule("gc");
    if (gc == NULL)
        return -1;
    PyObject *get = PyObject_GetAttrString(gc, "get_threshold");
    PyObject *set = get ? PyObject_GetAttrString(gc, "set_threshold") : NULL;
    Py_DECREF(gc);
    if (set == NULL) {
        Py_XDECREF(get);
        return -1;
    }
    /* The import may switch threads: keep what another thread stored. */
    if (st->gc_set_threshold == NULL) {
        Py_XSETREF(st->gc_get_threshold, get);
        st->gc_set_threshold = set;
    }
    else {
        Py_DECREF(get);
        Py_DECREF(set);
    }
    return 0;
}

/* gc.get_threshold()[0], or -1 with an exception. */
static long
gc_threshold0(cpk_state *st)
{
    PyObject *t = PyObject_CallNoArgs(st->gc_get_threshold);
    if (t == NULL)
        return -1;
    long v = -1;
    if (PyTuple_Check(t) && PyTuple_GET_SIZE(t) >= 1)
        v = PyLong_AsLong(PyTuple_GET_ITEM(t, 0));
    else
        PyErr_SetString(PyExc_TypeError, "gc.get_threshold() is not a tuple");
    Py_DECREF(t);
    return v;
}

static int
gc_set_threshold0(cpk_state *st, long v)
{
    PyObject *n = PyLong_FromLong(v);
    if (n == NULL)
        return -1;
    PyObject *r = PyObject_CallOneArg(st->gc_set_threshold, n);
    Py_DECREF(n);
    Py_XDECREF(r);
    return r == NULL ? -1 : 0;
}

/* Begin a pause (nested: counted). 0, or -1 with an exception and no
 * pause. */
int
cpk_gc_pause(cpk_state *st)
{
    /* Claimed before anything that can run code or switch threads (the
     * first import of gc, the calls): a load that starts meanwhile in
     * another thread joins this pause instead of saving our 0 as the
     * user's threshold. Until the threshold is read, there is nothing to
     * restore (0). */
    if (st->gc_pause_depth++ > 0)
        return 0;
    st->gc_saved_threshold = 0;
    long saved = gc_functions(st) < 0 ? -1 : gc_threshold0(st);
    /* Already 0 (the user's choice): nothing to pause or restore. */
    if (saved < 0 || (saved > 0 && gc_set_threshold0(st, 0) < 0)) {
        st->gc_pause_depth--;
        return -1;
    }
    st->gc_saved_threshold = saved;
    return 0;
}

/* End a pause, keeping the pending exception (if any) as it was. A failure
 * to restore is reported only when the call itself succeeded. */
int
cpk_gc_resume(cpk_state *st)
{
    /* 0: the pause was ended in a forked child (gc_after_fork). */
    if (st->gc_pause_depth == 0)
        return 0;
    if (--st->gc_pause_depth > 0 || st->gc_saved_threshold == 0)
        return 0;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    long now = gc_threshold0(st);
    int r = now < 0 ? -1 : 0;
    if (now == 0)
        r = gc_set_threshold0(st, st->gc_saved_threshold);
    else if (now < 0) {
        /* The threshold cannot be read (a replaced gc.get_threshold):
         * restore ours all the same, or collection would stay off; the
         * read's error is the one reported. */
        PyObject *t2, *v2, *tb2;
        PyErr_Fetch(&t2, &v2, &tb2);
        if (gc_set_threshold0(st, st->gc_saved_threshold) < 0)
            PyErr_Clear();
        PyErr_Restore(t2, v2, tb2);
    }
    if (type != NULL) {
        if (r < 0)
            PyErr_Clear();
        PyErr_Restore(type, value, tb);
    }
    return r;
}

/* Vectorcall with automatic collection paused (see above). New
 * reference. */
PyObject *
cpk_call_paused(cpk_state *st, Py_ssize_t size, PyObject *callable,
                PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (size >= 0 && size < CPK_PAUSE_MIN_SIZE)
        return PyObject_Vectorcall(callable, args, nargs, kwnames);
    if (cpk_gc_pause(st) < 0)
        return NULL;
    PyObject *r = PyObject_Vectorcall(callable, args, nargs, kwnames);
    if (cpk_gc_resume(st) < 0)
        Py_CLEAR(r);
    return r;
}


/* A fork while a pause is on (another thread dumping, a __reduce__
 * calling os.fork) leaves the child paused, with no dump or load of its
 * own to end it: os.register_at_fork's after_in_child ends it there. */
static PyObject *
gc_after_fork(PyObject *module, PyObject *unused)
{
    (void)unused;
    cpk_state *st = cpk_get_state(module);
    if (st == NULL || st->gc_pause_depth == 0)
        Py_RETURN_NONE;
    st->gc_pause_depth = 0;
    long saved = st->gc_saved_threshold;
    st->gc_saved_threshold = 0;
    if (saved > 0) {
        long now = gc_threshold0(st);
        if (now < 0 || (now == 0 && gc_set_threshold0(st, saved) < 0))
            return NULL; /* os reports it as unraisable */
    }
    Py_RETURN_NONE;
}

static PyMethodDef gc_after_fork_def = {
    "_gc_after_fork", gc_after_fork, METH_NOARGS,
    PyDoc_STR("End a GC pause inherited through fork (ccloudpickle).")};

int
cpk_gc_register_at_fork(PyObject *module)
{
    /* posix is built in and already imported; absent elsewhere. */
    PyObject *posix = PyImport_ImportModule("posix");
    if (posix == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_ImportError))
            return -1;
        PyErr_Clear();
        return 0;
    }
    PyObject *reg = NULL;
    int r = PyObject_GetOptionalAttrString(posix, "register_at_fork", &reg);
    Py_DECREF(posix);
    if (r <= 0)
        return r;
    PyObject *fn = PyCFunction_NewEx(&gc_after_fork_def, module, NULL);
    PyObject *names = fn ? Py_BuildValue("(s)", "after_in_child") : NULL;
    PyObject *res = NULL;
    if (names != NULL) {
        PyObject *args[1] = {fn};
        res = PyObject_Vectorcall(reg, args, 0, names);
    }
    Py_XDECREF(res);
    Py_XDECREF(names);
    Py_XDECREF(fn);
    Py_DECREF(reg);
    return res == NULL ? -1 : 0;
}
