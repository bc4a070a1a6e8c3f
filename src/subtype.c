/* subtype.c - what the Pickler and Unpickler types share as subclasses of
 * CPython's _pickle types: where their own record starts (after the base's
 * instance, whose size differs between CPython versions: never mirrored),
 * the base slots they chain to, and type creation. The types themselves are
 * in pickler.c and unpickler.c.
 */
#include "internal.h"

/* Offsets in instances, set when pickler.c and unpickler.c make the types
 * (the same for every module instance: the base is _pickle's). */
Py_ssize_t cpk_pickler_ext_offset;
Py_ssize_t cpk_unpickler_ext_offset;
Py_ssize_t cpk_dispatch_table_offset;

int
cpk_base_slots_get(PyTypeObject *base, cpk_base_slots *slots)
{
    slots->tp_new = base->tp_new;
    slots->tp_init = base->tp_init;
    slots->tp_dealloc = base->tp_dealloc;
    slots->tp_traverse = base->tp_traverse;
    slots->tp_clear = base->tp_clear;
    /* A static base (CPython < 3.12) neither visits nor releases our heap
     * type: we do, for it. */
    slots->is_heap = (base->tp_flags & Py_TPFLAGS_HEAPTYPE) != 0;
    if (slots->tp_new == NULL || slots->tp_init == NULL ||
        slots->tp_dealloc == NULL || slots->tp_traverse == NULL ||
        slots->tp_clear == NULL) {
        PyErr_Format(PyExc_ImportError, "%s lacks the slots we chain to",
                     base->tp_name);
        return -1;
    }
    return 0;
}

Py_ssize_t
cpk_ext_offset(PyTypeObject *base)
{
    Py_ssize_t align = (Py_ssize_t)sizeof(void *);
    return (base->tp_basicsize + align - 1) / align * align;
}

PyTypeObject *
cpk_make_subtype(PyObject *module, PyObject *base, const char *name,
                 Py_ssize_t basicsize, PyType_Slot *slots)
{
    PyType_Spec spec = {
        .name = name,
        .basicsize = (int)basicsize,
        .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE |
                 Py_TPFLAGS_HAVE_GC,
        .slots = slots,
    };
    PyObject *bases = PyTuple_Pack(1, base); /* 3.9 wants a tuple */
    if (bases == NULL)
        return NULL;
    PyObject *type = PyType_FromModuleAndSpec(module, &spec, bases);
    Py_DECREF(bases);
    return (PyTypeObject *)type;
}
