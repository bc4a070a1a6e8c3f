/* args.c - argument parsing shared by the module's public functions
 * (module.c) and its reconstructors (reconstruct.c, compat.c), as Argument
 * Clinic would generate it. Nothing here runs Python code.
 */
#include "internal.h"

#include <stdarg.h>

/* Parse positional-or-keyword arguments of a METH_FASTCALL|METH_KEYWORDS
 * function: `npos_required` leading parameters are required, the first
 * `npos_max` may be positional, the rest are keyword-only. The outputs are
 * borrowed references. Returns 1 on success, 0 with an exception set. */
int
cpk_parse_args(const char *fname, PyObject *const *args, Py_ssize_t nargs,
               PyObject *kwnames, const char *const *kwlist,
               int npos_required, int npos_max, ...)
{
    int nparams = 0;
    while (kwlist[nparams] != NULL)
        nparams++;
    PyObject **out[16];
    va_list ap;
    va_start(ap, npos_max);
    for (int i = 0; i < nparams && i < 16; i++)
        out[i] = va_arg(ap, PyObject **);
    va_end(ap);

    if (nargs > npos_max) {
        PyErr_Format(PyExc_TypeError,
                     "%s() takes at most %d positional argument%s (%zd given)",
                     fname, npos_max, npos_max == 1 ? "" : "s", nargs);
        return 0;
    }
    int seen[16] = {0};
    for (Py_ssize_t i = 0; i < nargs; i++) {
        *out[i] = args[i];
        seen[i] = 1;
    }
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        int found = -1;
        for (int i = 0; i < nparams; i++) {
            if (PyUnicode_CompareWithASCIIString(key, kwlist[i]) == 0) {
                found = i;
                break;
            }
        }
        if (found < 0) {
            PyErr_Format(PyExc_TypeError,
                         "%s() got an unexpected keyword argument '%U'",
                         fname, key);
            return 0;
        }
        if (seen[found]) {
            PyErr_Format(PyExc_TypeError,
                         "%s() got multiple values for argument '%s'", fname,
                         kwlist[found]);
            return 0;
        }
        *out[found] = args[nargs + k];
        seen[found] = 1;
    }
    for (int i = 0; i < npos_required; i++) {
        if (!seen[i]) {
            PyErr_Format(PyExc_TypeError,
                         "%s() missing required argument '%s' (pos %d)", fname,
                         kwlist[i], i + 1);
            return 0;
        }
    }
    return 1;
}

