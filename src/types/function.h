/* function.h - function.c: functions by value (their reduce, the globals
 * and submodules they carry). */
#ifndef CPK_TYPES_FUNCTION_H
#define CPK_TYPES_FUNCTION_H

#include "core/state.h"

/* Make ext->globals_ref and globals_alive if not yet made. */
int cpk_pickler_globals_ref(cpk_pickler_ext *ext);
PyObject *cpk_reduce_function(cpk_state *st, PyObject *pickler,
                              PyObject *func);
PyObject *cpk_find_submodules(cpk_state *st, PyObject *all_names,
                              PyObject *fglobals, PyObject *closure);

/* function.c: the dict a by-value function whose __globals__ is `globals`
 * gets as its globals after loading, one per distinct globals in the
 * Pickler's lifetime (new reference). */
PyObject *cpk_function_base_globals(cpk_state *st, cpk_pickler_ext *ext,
                                    PyObject *globals);

#endif
