/* gcpause.h - gcpause.c: automatic garbage collection paused during
 * large loads and dumps. */
#ifndef CPK_ENGINE_GCPAUSE_H
#define CPK_ENGINE_GCPAUSE_H

#include "core/state.h"

/* Vectorcall of a load of `size` bytes (-1: unknown) with automatic
 * collection paused if the load is large (restored even on error). */
PyObject *cpk_call_paused(cpk_state *st, Py_ssize_t size, PyObject *callable,
                          PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames);
/* Begin a pause (nested pauses count): 0, or -1 with an exception. */
int cpk_gc_pause(cpk_state *st);
/* End one, keeping a pending exception; -1 (an exception set, when none
 * was pending) if the threshold could not be restored. */
int cpk_gc_resume(cpk_state *st);
/* Module exec: end a pause inherited by a forked child, in the child. */
int cpk_gc_register_at_fork(PyObject *module);

#endif
