/* pycompat.h - the newer C API conveniences cli/ uses, for the older
 * Pythons we support (3.9+). src/internal.h carries the library's own
 * copies; cli/ sees only the public ccloudpickle.h, hence this twin. */
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
