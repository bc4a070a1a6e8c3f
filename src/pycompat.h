/* pycompat.h - the newer C API conveniences that both the library
 * (through internal.h) and the programs (cli/) use, for the older Pythons
 * we support (3.9+). The library's other shims are in internal.h. */
#ifndef CPK_PYCOMPAT_H
#define CPK_PYCOMPAT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#if PY_VERSION_HEX < 0x030A0000
/* 3.10 added Py_NewRef and Py_XNewRef (bpo-42522). */
static inline PyObject *
Py_NewRef(PyObject *o)
{
    Py_INCREF(o);
    return o;
}

static inline PyObject *
Py_XNewRef(PyObject *o)
{
    Py_XINCREF(o);
    return o;
}
#endif

#endif
