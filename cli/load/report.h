/* report.h - what cloudpickle-load prints about a loaded object when it is
 * not asked to call it: kind and name, module, signature, first docstring
 * line, source location, closure variables, referenced globals, value (for
 * data), pickle size and protocol. One "key  value" line each. */
#ifndef CPK_CLI_LOAD_REPORT_H
#define CPK_CLI_LOAD_REPORT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "common/pycompat.h" /* Py_NewRef before 3.10, cpk_py_unicode_ready */
#include <stdio.h>

/* Print the report of `obj`, loaded from the `len` bytes at `data`, to
 * `out`. Returns 0, or -1 with a Python exception set. */
int cpk_report(FILE *out, PyObject *obj, const char *data, size_t len);

#endif
