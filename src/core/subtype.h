/* subtype.h - subtype.c: our types as subclasses of _pickle's (record
 * offsets, base slots, type creation) and what reducers ask of a Pickler. */
#ifndef CPK_CORE_SUBTYPE_H
#define CPK_CORE_SUBTYPE_H

#include "core/state.h"

extern Py_ssize_t cpk_pickler_ext_offset;
extern Py_ssize_t cpk_unpickler_ext_offset;
extern Py_ssize_t cpk_dispatch_table_offset;
/* A Pickler's dispatch_table slot in CPython's record. */
static inline PyObject **
cpk_pickler_dispatch_slot(PyObject *pickler)
{
    return (PyObject **)((char *)pickler + cpk_dispatch_table_offset);
}
/* CPython's Pickler.persistent_id getter (pickler.c finds it). */
void cpk_pickler_set_persid_getter(getter get, void *closure);

#define CPK_PICKLER_EXT(self) \
    ((cpk_pickler_ext *)((char *)(self) + cpk_pickler_ext_offset))
#define CPK_UNPICKLER_EXT(self) \
    ((cpk_unpickler_ext *)((char *)(self) + cpk_unpickler_ext_offset))

typedef struct {
    newfunc tp_new;
    initproc tp_init;
    destructor tp_dealloc;
    traverseproc tp_traverse;
    inquiry tp_clear;
    int is_heap;
} cpk_base_slots;
int cpk_base_slots_get(PyTypeObject *base, cpk_base_slots *slots);
/* Where our record starts in an instance of a subclass of `base`. */
Py_ssize_t cpk_ext_offset(PyTypeObject *base);
/* A GC'd, subclassable heap type of `module` deriving from `base`. New
 * reference. */
PyTypeObject *cpk_make_subtype(PyObject *module, PyObject *base,
                               const char *name, Py_ssize_t basicsize,
                               PyType_Slot *slots);

/* 1 if ccloudpickle.Pickler is unchanged since module exec (no attribute
 * assigned on the class): the spare and the plain-data path are valid. */
int cpk_pickler_type_pristine(cpk_state *st);

int cpk_pickler_overridden(cpk_state *st, PyObject *pickler,
                           const char *name);
int cpk_pickler_user_hooks(PyObject *pickler);

#endif
