/* unpickler.h - unpickler.c: the Unpickler type, its load, and the error
 * of a pickle that needs a name of ours this version lacks. */
#ifndef CPK_ENGINE_UNPICKLER_H
#define CPK_ENGINE_UNPICKLER_H

#include "core/state.h"
#include "ccloudpickle.h" /* CPK_MODULE_NAME */

int cpk_unpickler_init_type(PyObject *module, cpk_state *st);
/* unpickler.load(), the same way. New reference. */
PyObject *cpk_load_with(cpk_state *st, PyObject *unpickler, Py_ssize_t size);

/* unpickler.c: AttributeError "this pickle needs ccloudpickle.<name>,
 * which ccloudpickle <version> does not have (written by a newer
 * version?)", whose first words versionerror.c looks for. */
#define CPK_MISSING_OWN_NAME_PREFIX "this pickle needs " CPK_MODULE_NAME "."
void cpk_missing_own_name(PyObject *name);

#endif
