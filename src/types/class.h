/* class.h - class.c: classes (and enums) by value, under a tracker id. */
#ifndef CPK_TYPES_CLASS_H
#define CPK_TYPES_CLASS_H

#include "core/state.h"

PyObject *cpk_reduce_class(cpk_state *st, PyObject *pickler, PyObject *cls);

#endif
