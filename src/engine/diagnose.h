/* diagnose.h - diagnose.c: the culprit of a failed dump
 * (_find_unpicklable, and the note on a failed dump's exception). */
#ifndef CPK_ENGINE_DIAGNOSE_H
#define CPK_ENGINE_DIAGNOSE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* diagnose.c: _find_unpicklable, and the culprit of a failed dump. */
extern PyMethodDef cpk_diagnose_methods[];
/* After pickler's dump of obj failed (its exception set): unless the
 * Pickler says no (diagnose_off, its `diagnose` attribute, an override of
 * reducer_override or persistent_id) or the exception is not one `except
 * Exception` catches, search for the culprit (re-pickling parts of obj, so
 * user reducers run again) and add "when pickling <root><path> (<type>)"
 * to the same exception: a note on 3.11+, else its message when its args
 * are one str. A search that fails leaves the exception as it was; a
 * KeyboardInterrupt, SystemExit or MemoryError raised by the search
 * replaces it, with the original as its __context__. */
void cpk_diagnose_failure(PyObject *pickler, PyObject *obj);

#endif
