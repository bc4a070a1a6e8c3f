/* code.h - code.c: code objects by value (marshal bytes tagged with the
 * bytecode magic), their reconstructors and cache. */
#ifndef CPK_TYPES_CODE_H
#define CPK_TYPES_CODE_H

#include "core/state.h"

PyObject *cpk_reduce_code(cpk_state *st, PyObject *code, int format);
PyObject *cpk_code_unmarshal(PyObject *m, PyObject *const *args,
                             Py_ssize_t nargs);
PyObject *cpk_code_new(PyObject *m, PyObject *const *args, Py_ssize_t nargs);

/* The largest marshal data whose code _code_unmarshal keeps (code.c), so
 * that every load of it gives the same code object. */
#define CPK_CODE_CACHE_ENTRY (64 * 1024)

/* Every error of a code object this CPython cannot run (code.c's
 * check_version, portable.c's _code_portable) starts with these words:
 * versionerror.c looks for them. */
#define CPK_VERSION_ERROR_PREFIX "this pickle holds code "

#endif
