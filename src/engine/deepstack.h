/* deepstack.h - deepstack.c: a call on a large C stack of this thread,
 * how a dump too deep for the recursion limit is retried. */
#ifndef CPK_ENGINE_DEEPSTACK_H
#define CPK_ENGINE_DEEPSTACK_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* deepstack.c: fn(arg) on a large C stack of this thread, with the
 * recursion budget raised by cpk_deep_headroom() levels for the call.
 * Returns fn's result and sets *ran; *ran == 0 (no exception set) when
 * this platform or the address space allows no such stack. */
typedef PyObject *(*cpk_deep_fn)(void *arg);
PyObject *cpk_deep_call(cpk_deep_fn fn, void *arg, int *ran);
int cpk_deep_headroom(void);

#endif
