/* typeforms_load.h - typeforms_load.c: the load side of typeforms.c
 * (_make_typeparam, _make_newtype). */
#ifndef CPK_TYPES_TYPEFORMS_LOAD_H
#define CPK_TYPES_TYPEFORMS_LOAD_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

extern PyMethodDef cpk_typeform_methods[];

#endif
