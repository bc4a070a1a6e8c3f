/* loadpolicy.h - loadpolicy.c: loads/load with allow= or deny= (the
 * import policy), PolicyError and SignatureError. */
#ifndef CPK_ENGINE_LOADPOLICY_H
#define CPK_ENGINE_LOADPOLICY_H

#include "core/state.h"
#include "scan/policy.h" /* cpk_policy_names */

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
/* cloudpickle-load's policed load (src/ccloudpickle.h,
 * cpk_loads_input_prechecked): the exact load of the pickle in `view` (a
 * read-only memoryview of the program's private copy, borrowed) under
 * `names` (owned, freed here), made by the program from its own scan of
 * these bytes with the same flags and policy, which refused anything the
 * policy refuses (static_pass's checks): no copy, no second scan.
 * `allow`/`deny` (borrowed, NULL/None: not given) are the patterns of
 * that policy, for loads nested in this one. New reference. */
PyObject *cpk_loads_prechecked(cpk_state *st, PyObject *view,
                               cpk_policy_names *names, PyObject *allow,
                               PyObject *deny);
/* Create and export PolicyError and SignatureError (subclasses of
 * pickle.UnpicklingError): the module's own refusals. 0 or -1. */
int cpk_loadpolicy_init(PyObject *module, cpk_state *st);

#endif
