/* reconstruct.h - reconstruct.c: the callables our pickles reference by
 * name, and the checks that refuse to fill an imported module's objects. */
#ifndef CPK_TYPES_RECONSTRUCT_H
#define CPK_TYPES_RECONSTRUCT_H

#include "core/state.h"

/* reconstruct.c: refuse to fill what an imported module owns. */
int cpk_namespace_is_imported(cpk_state *st, PyObject *globals);
int cpk_check_fill_target(cpk_state *st, const char *fname, PyObject *func);

/* reconstruct.c: functions referenced by pickles. */
extern PyMethodDef cpk_reconstruct_methods[];
int cpk_reconstruct_init_types(PyObject *module, cpk_state *st);

#endif
