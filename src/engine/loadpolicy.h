/* loadpolicy.h - loadpolicy.c: loads/load with allow= or deny= (the
 * import policy), PolicyError and SignatureError. */
#ifndef CPK_ENGINE_LOADPOLICY_H
#define CPK_ENGINE_LOADPOLICY_H

#include "core/state.h"

/* loadpolicy.c: loads/load with allow= or deny= (either not NULL): scan
 * the pickle, refuse it if the policy refuses an import, else load it
 * with an Unpickler whose find_class enforces the same rules. Same
 * arguments as loads/load otherwise; `exact` as _loads_exact. New
 * reference. */
PyObject *cpk_loads_policed(cpk_state *st, PyObject *data, PyObject *allow,
                            PyObject *deny, PyObject *fix_imports,
                            PyObject *encoding, PyObject *errors,
                            PyObject *buffers, int exact);
PyObject *cpk_load_policed(cpk_state *st, PyObject *file, PyObject *allow,
                           PyObject *deny, PyObject *fix_imports,
                           PyObject *encoding, PyObject *errors,
                           PyObject *buffers);
/* Create and export PolicyError and SignatureError (subclasses of
 * pickle.UnpicklingError): the module's own refusals. 0 or -1. */
int cpk_loadpolicy_init(PyObject *module, cpk_state *st);

#endif
