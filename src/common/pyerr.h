/* pyerr.h - the clearable-error rule, shared by src/ and cli/: a pending
 * exception may be cleared where Python's `except Exception` would catch
 * it, never when it is MemoryError (STYLE.md) or a BaseException-only one
 * (KeyboardInterrupt, SystemExit), which must propagate.
 */
#ifndef CPK_COMMON_PYERR_H
#define CPK_COMMON_PYERR_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* 1 if the pending exception may be cleared by the rule above; 0 if it
 * must propagate, or if none is set. */
static inline int
cpk_error_clearable(void)
{
    return PyErr_ExceptionMatches(PyExc_Exception) &&
           !PyErr_ExceptionMatches(PyExc_MemoryError);
}

/* Clears the pending exception if it is clearable (0); otherwise leaves it
 * set (-1). -1 too when none is set. */
static inline int
cpk_error_clear_if_clearable(void)
{
    if (cpk_error_clearable()) {
        PyErr_Clear();
        return 0;
    }
    return -1;
}

#endif /* CPK_COMMON_PYERR_H */
