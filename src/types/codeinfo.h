/* codeinfo.h - codeinfo.c: the global names a code object uses, and the
 * co_extra slots that cache per-code answers. */
#ifndef CPK_TYPES_CODEINFO_H
#define CPK_TYPES_CODEINFO_H

#include "core/state.h"

/* codeinfo.c: global names a code object (and its nested code) uses. */
int cpk_codeinfo_init(cpk_state *st);
/* New reference to (global_names tuple, all_names tuple, both in the
 * order the bytecode walk meets them), cached on
 * the code object; NULL with PicklingError for corrupt code (as
 * cpk_code_check_pickle), or another error. */
PyObject *cpk_codeinfo_get(cpk_state *st, PyObject *code);
/* The object cached on `code` in co_extra slot `index` (new reference), or
 * NULL (with an exception only on error). */
PyObject *cpk_code_cache_get(PyObject *code, Py_ssize_t index);
int cpk_code_cache_set(PyObject *code, Py_ssize_t index, PyObject *value);

#endif
