/* portable.h - portable.c: portable pickles (code objects that carry
 * their source). */
#ifndef CPK_TYPES_PORTABLE_H
#define CPK_TYPES_PORTABLE_H

#include "core/state.h"

/* portable.c: a code object's reduce with its source (portable=True). */
PyObject *cpk_reduce_code_portable(cpk_state *st, PyObject *code);
extern PyMethodDef cpk_portable_methods[];

#endif
