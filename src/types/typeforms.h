/* typeforms.h - typeforms.c: TypeVar, ParamSpec, TypeVarTuple and NewType
 * by value (the dump side). */
#ifndef CPK_TYPES_TYPEFORMS_H
#define CPK_TYPES_TYPEFORMS_H

#include "core/state.h"

/* typeforms.c: TypeVar, ParamSpec, TypeVarTuple, NewType by value; the
 * load side (typeforms_load.c) adds cpk_typeform_methods. */
PyObject *cpk_reduce_typevar(cpk_state *st, int format, PyObject *tv);
PyObject *cpk_reduce_typeparam(cpk_state *st, int format, PyObject *obj,
                               int paramspec);
PyObject *cpk_reduce_newtype(cpk_state *st, int format, PyObject *nt);

#endif
