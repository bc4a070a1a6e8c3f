/* unpickler.c - the Unpickler type: a subclass of _pickle.Unpickler whose
 * find_class answers ccloudpickle's own names without the import machinery
 * and maps stock cloudpickle's reconstructor names to ours (compat.c), and
 * whose load() pauses the cyclic garbage collector. loads()/load() are in
 * module.c, the in-memory reader in memio.c.
 */
#include "internal.h"

#include "policy.h" /* cpk_policy_names_free */

#include <stddef.h>
#include <structmember.h>

/* CPython's Unpickler slots, the same for every module instance. */
static cpk_base_slots base_slots;

/* Pausing the cyclic GC during a load ---------------------------------------
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
 * below CPK_PAUSE_MIN_SIZE bytes run as they are, without any pause. */
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

static int
gc_pause(cpk_state *st)
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
static int
gc_resume(cpk_state *st)
{
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
    if (gc_pause(st) < 0)
        return NULL;
    PyObject *r = PyObject_Vectorcall(callable, args, nargs, kwnames);
    if (gc_resume(st) < 0)
        Py_CLEAR(r);
    return r;
}

/* The base load() with the collector paused: see cpk_call_paused. */
PyObject *
cpk_load_with(cpk_state *st, PyObject *unpickler, Py_ssize_t size)
{
    PyObject *args[1] = {unpickler};
    return cpk_call_paused(st, size, st->base_load, args, 1, NULL);
}

static PyObject *
Unpickler_load(PyObject *self, PyObject *unused)
{
    (void)unused;
    return cpk_load_with(cpk_get_state(CPK_UNPICKLER_EXT(self)->module), self,
                         -1);
}

/* A name of our module that this version does not have: most likely a
 * pickle written by a newer ccloudpickle. */
static PyObject *
own_name(cpk_unpickler_ext *ext, PyObject *name)
{
    PyObject *obj = PyObject_GetAttr(ext->module, name);
    if (obj == NULL && PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        PyErr_Format(PyExc_AttributeError,
                     "this pickle needs ccloudpickle.%S, which ccloudpickle "
                     "%s does not have (written by a newer version?)",
                     name, CPK_VERSION);
    }
    return obj;
}

/* find_class's answer: our names, cloudpickle's mapped to ours, else
 * CPython's find_class. New reference. */
static PyObject *
find_class_impl(PyObject *self, cpk_unpickler_ext *ext, cpk_state *st,
                PyObject *module, PyObject *name)
{
    if (PyUnicode_Check(module) && PyUnicode_Check(name)) {
        if (PyUnicode_CompareWithASCIIString(module, CPK_MODULE_NAME) == 0)
            return own_name(ext, name);
        PyObject *ours = cpk_compat_find(st, module, name);
        if (ours != NULL)
            return Py_NewRef(ours);
        if (PyErr_Occurred())
            return NULL;
    }
    PyObject *bargs[3] = {self, module, name};
    return PyObject_Vectorcall(st->base_find_class, bargs, 3, NULL);
}

static PyObject *
Unpickler_find_class(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError,
                     "find_class() takes 2 arguments (%zd given)", nargs);
        return NULL;
    }
    cpk_unpickler_ext *ext = CPK_UNPICKLER_EXT(self);
    cpk_state *st = cpk_get_state(ext->module);
    PyObject *module = args[0], *name = args[1];
    if (ext->policy_names == NULL)
        return find_class_impl(self, ext, st, module, name);
    /* The import policy (loadpolicy.c) first: not even our own names
     * escape it. Then no module object: pickles name modules through
     * reconstructors (subimport), and a module in hand starts attribute
     * paths the static check cannot follow. */
    if (cpk_policy_find_class(st, ext->policy_names, module, name) < 0)
        return NULL;
    PyObject *obj = find_class_impl(self, ext, st, module, name);
    if (obj != NULL && PyModule_Check(obj)) {
        Py_DECREF(obj);
        PyErr_Format(st->PolicyError,
                     "import policy refuses find_class(%R, %R): it gives a "
                     "module object",
                     module, name);
        return NULL;
    }
    return obj;
}

static PyObject *
Unpickler_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *module = PyType_GetModuleByDef(type, &cpk_module_def);
    if (module == NULL)
        return NULL;
    PyObject *self = base_slots.tp_new(type, args, kwds);
    if (self == NULL)
        return NULL;
    CPK_UNPICKLER_EXT(self)->module = Py_NewRef(module);
    return self;
}

static int
Unpickler_traverse(PyObject *self, visitproc visit, void *arg)
{
    cpk_unpickler_ext *ext = CPK_UNPICKLER_EXT(self);
    Py_VISIT(ext->dict);
    Py_VISIT(ext->module);
    if (!base_slots.is_heap)
        Py_VISIT(Py_TYPE(self));
    return base_slots.tp_traverse(self, visit, arg);
}

static int
Unpickler_clear(PyObject *self)
{
    Py_CLEAR(CPK_UNPICKLER_EXT(self)->dict);
    return base_slots.tp_clear(self);
}

static void
Unpickler_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    cpk_unpickler_ext *ext = CPK_UNPICKLER_EXT(self);
    PyObject_GC_UnTrack(self);
    Py_CLEAR(ext->dict);
    Py_CLEAR(ext->module);
    cpk_policy_names_free(ext->policy_names);
    ext->policy_names = NULL;
    base_slots.tp_dealloc(self);
    if (!base_slots.is_heap)
        Py_DECREF(tp);
}

static PyMethodDef Unpickler_methods[] = {
    {"find_class", (PyCFunction)(void (*)(void))Unpickler_find_class,
     METH_FASTCALL,
     PyDoc_STR("find_class(module_name, global_name)\n--\n\n"
               "Return the object a pickle names; cloudpickle's "
               "reconstructors map to ccloudpickle's.")},
    {"load", Unpickler_load, METH_NOARGS,
     PyDoc_STR("load()\n--\n\nRead one pickle from the file.")},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Unpickler_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef Unpickler_members[2];

PyDoc_STRVAR(Unpickler_doc,
"Unpickler(file, *, fix_imports=True, encoding='ASCII', errors='strict',\n"
"          buffers=())\n--\n\n"
"A pickle.Unpickler that also reads stock cloudpickle's pickles where\n"
"cloudpickle is not installed.");

int
cpk_unpickler_init_type(PyObject *module, cpk_state *st)
{
    if (cpk_base_slots_get((PyTypeObject *)st->base_unpickler, &base_slots) < 0)
        return -1;
    Py_ssize_t off = cpk_ext_offset((PyTypeObject *)st->base_unpickler);
    cpk_unpickler_ext_offset = off;
    Unpickler_members[0] = (PyMemberDef){
        "__dictoffset__", T_PYSSIZET, off + offsetof(cpk_unpickler_ext, dict),
        READONLY, NULL};
    Unpickler_members[1] = (PyMemberDef){NULL, 0, 0, 0, NULL};

    PyType_Slot slots[] = {
        {Py_tp_new, Unpickler_new},
        {Py_tp_dealloc, Unpickler_dealloc},
        {Py_tp_traverse, Unpickler_traverse},
        {Py_tp_clear, Unpickler_clear},
        {Py_tp_methods, Unpickler_methods},
        {Py_tp_members, Unpickler_members},
        {Py_tp_getset, Unpickler_getset},
        {Py_tp_doc, (void *)Unpickler_doc},
        {0, NULL},
    };
    st->unpickler_type = cpk_make_subtype(module, st->base_unpickler,
                                          "ccloudpickle.Unpickler",
                                          off + sizeof(cpk_unpickler_ext),
                                          slots);
    if (st->unpickler_type == NULL)
        return -1;
    if ((st->base_find_class = PyObject_GetAttrString(st->base_unpickler,
                                                      "find_class")) == NULL ||
        (st->base_load = PyObject_GetAttrString(st->base_unpickler,
                                                "load")) == NULL)
        return -1;
    PyObject *pickle = PyImport_ImportModule("_pickle");
    if (pickle == NULL)
        return -1;
    st->base_loads = PyObject_GetAttrString(pickle, "loads");
    Py_DECREF(pickle);
    if (st->base_loads == NULL)
        return -1;
    return 0;
}
