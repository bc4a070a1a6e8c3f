/* classkw.h - classkw.c: class keywords, recorded at dump and replayed at
 * load. */
#ifndef CPK_TYPES_CLASSKW_H
#define CPK_TYPES_CLASSKW_H

#include "core/state.h"

/* classkw.c: class keywords, recorded and replayed. */
/* `extra` for _make_skeleton_class: {"class_kwargs": {...}} when `cls`
 * was made with keywords that can be found, else None. New reference. */
PyObject *cpk_class_extra(cpk_state *st, PyTypeObject *cls);
/* Check _make_skeleton_class's `extra`; *class_kwargs (borrowed from it)
 * the keywords, NULL when none. 1, or 0 with the error set. */
int cpk_class_kwargs_arg(cpk_state *st, PyObject *extra,
                         PyObject **class_kwargs);
/* Is a class of the metaclass's or these bases' MROs a skeleton waiting
 * for its namespace? 1, 0 or -1. */
int cpk_class_bases_pending(cpk_state *st, PyObject *meta, PyObject *bases);
/* A skeleton was made (waiting for its namespace); `deferred`: keywords
 * whose __init_subclass__ call waits for its MRO to be complete, or NULL.
 * 0 or -1. */
int cpk_class_skeleton_made(cpk_state *st, PyObject *cls, PyObject *deferred);
/* _class_setstate gave `cls` its namespace: run the deferred
 * __init_subclass__ calls now possible. 0 or -1. */
int cpk_class_namespace_set(cpk_state *st, PyObject *cls);

#endif
