/* codewrite.h - codewrite.c: a code object written straight in compact
 * marshal form, into a byte buffer (common/bytebuf.h). */
#ifndef CPK_TYPES_CODEWRITE_H
#define CPK_TYPES_CODEWRITE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "common/bytebuf.h" /* cpk_bytebuf */

/* codewrite.c: the marshal version code objects travel in (2: no
 * references, so the bytes depend on the code only). */
#define CPK_MARSHAL_VERSION 2
/* codewrite.c: marshal's version 2 bytes of obj, made compact, appended:
 * 1, 0 (refused or unexpected, no error), -1 (error). */
int cpk_marshal_compact_into(PyObject *obj, cpk_bytebuf *out);
/* codewrite.c: marshal version 2 bytes made compact (new reference; the
 * payload itself if its bytes are not what is expected). Steals it. */
PyObject *cpk_marshal_normalize(PyObject *payload);
/* codewrite.c: the compact marshal bytes of a code object (new reference),
 * or NULL: with an error, or without one where the caller is to marshal
 * it and make it compact itself. */
PyObject *cpk_code_compact(PyObject *code);

#endif
