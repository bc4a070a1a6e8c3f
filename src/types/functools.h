/* functools.h - functools.c: functools' wrappers (singledispatch,
 * singledispatchmethod, lru_cache) by value, both sides. */
#ifndef CPK_TYPES_FUNCTOOLS_H
#define CPK_TYPES_FUNCTOOLS_H

#include "core/state.h"

/* functools.c: singledispatch functions and lru_cache wrappers by value.
 * The singledispatch reducer returns NotImplemented (new reference) for
 * any other function. */
PyObject *cpk_reduce_singledispatch(cpk_state *st, PyObject *pickler,
                                    PyObject *func);
PyObject *cpk_reduce_lru_cache(cpk_state *st, int format, PyObject *obj);
PyObject *cpk_reduce_sdmethod(cpk_state *st, int format, PyObject *obj);
extern PyMethodDef cpk_functools_methods[];

#endif
