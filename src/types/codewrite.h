/* codewrite.h - codewrite.c: a code object written straight in compact
 * marshal form, and the growable byte buffer it writes to. */
#ifndef CPK_TYPES_CODEWRITE_H
#define CPK_TYPES_CODEWRITE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

/* codewrite.c: a growable byte buffer (`fixed`: data is the caller's own first
 * buffer, copied when it grows, never freed). */
typedef struct {
    char *data;
    size_t len, cap;
    int fixed;
} cpk_membuf;
int cpk_membuf_grow_put(cpk_membuf *b, const char *p, size_t n);
/* Append n bytes: 0, or -1 with MemoryError. */
static inline int
cpk_membuf_put(cpk_membuf *b, const char *p, size_t n)
{
    if (n <= b->cap - b->len) {
        memcpy(b->data + b->len, p, n);
        b->len += n;
        return 0;
    }
    return cpk_membuf_grow_put(b, p, n);
}
int cpk_membuf_put_long(cpk_membuf *b, long v);
void cpk_membuf_release(cpk_membuf *b);
/* codewrite.c: the marshal version code objects travel in (2: no
 * references, so the bytes depend on the code only). */
#define CPK_MARSHAL_VERSION 2
/* codewrite.c: marshal's version 2 bytes of obj, made compact, appended:
 * 1, 0 (refused or unexpected, no error), -1 (error). */
int cpk_marshal_compact_into(PyObject *obj, cpk_membuf *out);
/* codewrite.c: marshal version 2 bytes made compact (new reference; the
 * payload itself if its bytes are not what is expected). Steals it. */
PyObject *cpk_marshal_normalize(PyObject *payload);
/* codewrite.c: the compact marshal bytes of a code object (new reference),
 * or NULL: with an error, or without one where the caller is to marshal
 * it and make it compact itself. */
PyObject *cpk_code_compact(PyObject *code);

#endif
