/* primitives.h - primitives.c: per-process objects (locks, events, ...)
 * rebuilt new on load, both sides. */
#ifndef CPK_TYPES_PRIMITIVES_H
#define CPK_TYPES_PRIMITIVES_H

#include "core/state.h"

/* primitives.c: locks, events, conditions, semaphores, ContextVar,
 * struct.Struct and weak dicts, rebuilt new on load. */
PyObject *cpk_reduce_primitive(cpk_state *st, int format, int kind,
                               PyObject *obj);
/* Add its reconstructors to the module and fetch them into st. */
int cpk_primitives_init(PyObject *module, cpk_state *st);

#endif
