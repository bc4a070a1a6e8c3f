/* callargs.h - cloudpickle-load --call's arguments: each one a Python
 * literal (ast.literal_eval), or else the string itself; NAME=VALUE, with
 * NAME an identifier, passes a keyword argument. */
#ifndef CPK_CALLARGS_H
#define CPK_CALLARGS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "pycompat.h" /* Py_NewRef before 3.10 */

/* Build the positional tuple and keyword dict (new references). Returns
 * 0, or -1 with a Python exception set; a keyword given twice sets
 * TypeError. */
int cpk_callargs_build(int n, char **strs, PyObject **args,
                       PyObject **kwargs);

/* One argument's value (new reference). */
PyObject *cpk_callargs_value(const char *s);

#endif
