/* exceptions.h - exceptions.c: exceptions with their chain and notes. */
#ifndef CPK_TYPES_EXCEPTIONS_H
#define CPK_TYPES_EXCEPTIONS_H

#include "core/state.h"

/* exceptions.c: exceptions with __cause__, __context__, notes. */
PyObject *cpk_reduce_exception(cpk_state *st, int format, PyObject *exc);

#endif
