/* compat.h - compat.c: stock cloudpickle's names, both ways (loading its
 * pickles, writing its formats). */
#ifndef CPK_TYPES_COMPAT_H
#define CPK_TYPES_COMPAT_H

#include "core/state.h"

/* compat.c: stock cloudpickle's names. */
extern PyMethodDef cpk_compat_methods[];
int cpk_compat_init(PyObject *module, cpk_state *st);
/* The format compat= asks for (None: native), or -1 with ValueError
 * naming the accepted values. */
int cpk_compat_format(PyObject *compat);
/* "cloudpickle 3.0-3.1" etc.: the loaders a stock format is for. */
const char *cpk_compat_target(int format);
/* Object to use for the reconstructor `name` of the given format (borrowed);
 * `cp_module` is where cloudpickle 2.x defines it (3.x finds all of them
 * there too). */
PyObject *cpk_callable(cpk_state *st, int format, PyObject *native,
                       const char *cp_module, const char *cp_name);
/* Our object for cloudpickle's `module`.`name`, or NULL without an error if
 * we do not map that name. Borrowed reference. */
PyObject *cpk_compat_find(cpk_state *st, PyObject *module, PyObject *name);
PyObject *cpk_reduce_extref(cpk_state *st, PyObject *ref);

#endif
