/* reducers.h - reducers.c: the small types, dispatched by exact type, and
 * `_reduce` for dispatch tables. */
#ifndef CPK_TYPES_REDUCERS_H
#define CPK_TYPES_REDUCERS_H

#include "core/state.h"

/* reducers.c: the small types. */
PyObject *cpk_reduce_kind(cpk_state *st, PyObject *pickler, int kind,
                          PyObject *obj);
PyObject *cpk_reduce_module(cpk_state *st, PyObject *pickler, int format,
                            PyObject *mod);

extern PyMethodDef cpk_reducer_methods[];
PyObject *cpk_reduce_cell(cpk_state *st, PyObject *cell, int format);

#endif
