/* lookup.h - lookup.c: by reference or by value (can an object be found
 * again by module and name), and the by-value registry. */
#ifndef CPK_CORE_LOOKUP_H
#define CPK_CORE_LOOKUP_H

#include "core/state.h"

/* lookup.c: by reference or by value. */
int cpk_is_registered_by_value(cpk_state *st, PyObject *module_name);
/* For a function or class: 1 picklable by reference, 0 by value, -1
 * error. */
int cpk_should_pickle_by_reference(cpk_state *st, PyObject *obj);

/* Modules: 1 written by reference (importable by name), 0 by value (or
 * nameless), -1 error; by the name read once with cpk_module_name (new
 * reference, an exact str even for a str subclass, or NULL with a
 * PicklingError when missing or not a str). */
int cpk_module_by_reference(cpk_state *st, PyObject *module);
int cpk_module_name_by_reference(cpk_state *st, PyObject *name);
PyObject *cpk_module_name(cpk_state *st, PyObject *module);
/* The same, falling back to getattr where the namespace has no name (the
 * module objects are found in, as stock cloudpickle names it). */
PyObject *cpk_module_found_name(cpk_state *st, PyObject *module);
/* Module name and qualname where obj can be found; 0 if not found. */
int cpk_lookup_module_and_qualname(cpk_state *st, PyObject *obj,
                                   PyObject *name, PyObject **module,
                                   PyObject **qualname);
PyObject *cpk_register_by_value(PyObject *m, PyObject *module);
PyObject *cpk_unregister_by_value(PyObject *m, PyObject *module);
PyObject *cpk_list_registry(PyObject *m, PyObject *unused);

#endif
