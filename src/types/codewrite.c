/* codewrite.c - a code object written straight in the compact marshal
 * form code.c ships (marshal version 2, no references, ASCII strings in
 * the short forms, small tuples as TYPE_SMALL_TUPLE, sets sorted), without
 * first writing marshal's own bytes and then rewriting them: the first
 * pickle of a function paid marshal, a UTF-8 encoding of every name, and
 * a second pass over the bytes. The result is byte for byte what
 * cpk_marshal_normalize(marshal.dumps(code, 2)) gives (tests/unit/test_codewrite.c
 * checks it on every code object of the standard library). Floats,
 * complex numbers and large ints are handed to that path for that one
 * object; code holding anything else (frozensets, constants put there by
 * hand), or nested deeper than 100, is left to the whole old path, which
 * also keeps marshal's depth limit counted from the code. Either way the
 * bytes are the same.
 */
#include "types/codewrite.h"
#include "common/pycompat.h"

#include <marshal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytebuf.h"       /* cpk_bytebuf */
#include "common/marshal_codes.h" /* CPK_MC_* */

/* Appending to the buffer ------------------------------------------ */

/* Append to b, raising MemoryError when it cannot grow: 0 or -1. */
static inline int
buf_put(cpk_bytebuf *b, const void *p, size_t n)
{
    if (cpk_bytebuf_put(b, p, n) == 0)
        return 0;
    PyErr_NoMemory();
    return -1;
}

/* marshal's w_long (4 bytes, least significant first), as buf_put. */
static inline int
buf_put_long(cpk_bytebuf *b, long v)
{
    if (cpk_bytebuf_put_le32(b, v) == 0)
        return 0;
    PyErr_NoMemory();
    return -1;
}

/* Marshal's own bytes made compact ---------------------------------- */

/* marshal version 2: the newest one that writes no object references.
 * From version 3 on, marshal flags every object whose reference count is
 * above 1 as shareable (FLAG_REF) and marks interned strings: the bytes
 * would then depend on who else holds the code's constants and on what
 * the process interned, not on the code (cloudpickle 3.x promises the same
 * bytes for the same function). Version 2 writes each object by value;
 * any version loads it.
 *
 * Then one pass over those bytes (cpk_marshal_normalize) makes them as
 * compact as version 4's forms without its references: ASCII strings in
 * the short forms (TYPE_SHORT_ASCII, TYPE_ASCII, not interned: the code
 * constructor interns what it needs), small tuples as TYPE_SMALL_TUPLE;
 * and sorts the elements of sets by their bytes, as 3.11's marshal does
 * (bpo-37596; before 3.11 their order is the hash order, which
 * PYTHONHASHSEED changes for str and bytes). Without references each object is a self-contained
 * run of bytes, which is what makes the moves possible. */

/* Marshal bytes being read: the next byte and the end. */
typedef struct {
    const unsigned char *p, *end;
} byte_cursor;

static int
rd_long(byte_cursor *r, long *v)
{
    if (r->end - r->p < 4)
        return -1;
    uint32_t x = (uint32_t)r->p[0] | (uint32_t)r->p[1] << 8 |
                 (uint32_t)r->p[2] << 16 | (uint32_t)r->p[3] << 24;
    *v = (long)(int32_t)x;
    return 0;
}

static int norm_object(byte_cursor *r, cpk_bytebuf *out);

/* Copy n raw bytes. */
static int
norm_raw(byte_cursor *r, cpk_bytebuf *out, size_t n)
{
    if ((size_t)(r->end - r->p) < n)
        return -1;
    if (buf_put(out, (const char *)r->p, n) < 0)
        return -1;
    r->p += n;
    return 0;
}

typedef struct {
    char *data;
    size_t len;
} cpk_item;

static int
item_cmp(const void *a, const void *b)
{
    const cpk_item *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->data, y->data, n);
    return c != 0 ? c : (x->len > y->len) - (x->len < y->len);
}

/* A set's n elements, each normalized apart, written sorted. */
static int
norm_set(byte_cursor *r, cpk_bytebuf *out, long n)
{
    if (n < 0 || n > r->end - r->p)
        return -1;
    cpk_item *items = PyMem_Calloc((size_t)n + 1, sizeof(*items));
    if (items == NULL)
        return -1;
    int rc = 0;
    for (long i = 0; i < n && rc == 0; i++) {
        cpk_bytebuf b = {0};
        rc = norm_object(r, &b);
        items[i].data = b.data;
        items[i].len = b.len;
    }
    if (rc == 0) {
        qsort(items, (size_t)n, sizeof(*items), item_cmp);
        for (long i = 0; i < n && rc == 0; i++)
            rc = buf_put(out, items[i].data, items[i].len);
    }
    for (long i = 0; i < n; i++)
        free(items[i].data);
    PyMem_Free(items);
    return rc;
}

static int
is_ascii(const unsigned char *p, long n)
{
    for (long i = 0; i < n; i++)
        if (p[i] >= 128)
            return 0;
    return 1;
}

/* Copy one object of a version 2 marshal stream of this interpreter's
 * code objects, rewritten as described above. -1 on anything unexpected
 * (the caller then keeps marshal's bytes). */
static int
norm_object(byte_cursor *r, cpk_bytebuf *out)
{
    if (r->p >= r->end)
        return -1;
    int type = *r->p++;
    long n;
    char t = (char)type;
    switch (type) {
    case CPK_MC_NULL: case CPK_MC_NONE: case CPK_MC_FALSE: case CPK_MC_TRUE:
    case CPK_MC_STOPITER: case CPK_MC_ELLIPSIS:
        return buf_put(out, &t, 1);
    case CPK_MC_INT:
        return buf_put(out, &t, 1) < 0 ? -1 : norm_raw(r, out, 4);
    case CPK_MC_BINARY_FLOAT:
        return buf_put(out, &t, 1) < 0 ? -1 : norm_raw(r, out, 8);
    case CPK_MC_BINARY_COMPLEX:
        return buf_put(out, &t, 1) < 0 ? -1 : norm_raw(r, out, 16);
    case CPK_MC_LONG:
        if (buf_put(out, &t, 1) < 0 || rd_long(r, &n) < 0 ||
            norm_raw(r, out, 4) < 0)
            return -1;
        n = n < 0 ? -n : n;
        return n > (r->end - r->p) / 2 ? -1 : norm_raw(r, out, 2 * (size_t)n);
    case CPK_MC_STRING:
        if (buf_put(out, &t, 1) < 0 || rd_long(r, &n) < 0 || n < 0 ||
            norm_raw(r, out, 4) < 0)
            return -1;
        return norm_raw(r, out, (size_t)n);
    case CPK_MC_UNICODE:
        if (rd_long(r, &n) < 0 || n < 0 || n > r->end - r->p - 4)
            return -1;
        r->p += 4;
        if (!is_ascii(r->p, n)) {
            if (buf_put(out, &t, 1) < 0 || buf_put_long(out, n) < 0)
                return -1;
        }
        else if (n < 256) {
            char h[2] = {CPK_MC_SHORT_ASCII, (char)(unsigned char)n};
            if (buf_put(out, h, 2) < 0)
                return -1;
        }
        else {
            char a = CPK_MC_ASCII;
            if (buf_put(out, &a, 1) < 0 || buf_put_long(out, n) < 0)
                return -1;
        }
        return norm_raw(r, out, (size_t)n);
    case CPK_MC_TUPLE: case CPK_MC_LIST:
        if (rd_long(r, &n) < 0 || n < 0 || n > r->end - r->p)
            return -1;
        r->p += 4;
        if (type == CPK_MC_TUPLE && n < 256) {
            char h[2] = {CPK_MC_SMALL_TUPLE, (char)(unsigned char)n};
            if (buf_put(out, h, 2) < 0)
                return -1;
        }
        else if (buf_put(out, &t, 1) < 0 || buf_put_long(out, n) < 0)
            return -1;
        for (long i = 0; i < n; i++)
            if (norm_object(r, out) < 0)
                return -1;
        return 0;
    case CPK_MC_SET: case CPK_MC_FROZENSET:
        if (buf_put(out, &t, 1) < 0 || rd_long(r, &n) < 0 ||
            norm_raw(r, out, 4) < 0)
            return -1;
        return norm_set(r, out, n);
    case CPK_MC_DICT:
        if (buf_put(out, &t, 1) < 0)
            return -1;
        for (;;) {
            if (r->p >= r->end)
                return -1;
            if (*r->p == CPK_MC_NULL)
                return norm_raw(r, out, 1);
            if (norm_object(r, out) < 0 || norm_object(r, out) < 0)
                return -1;
        }
    case CPK_MC_CODE:
        if (buf_put(out, &t, 1) < 0)
            return -1;
        /* Fields as CPK_PY_CODE_MARSHAL_* count them. */
        if (norm_raw(r, out, CPK_PY_CODE_MARSHAL_INTS * 4) < 0)
            return -1;
        for (int i = 0; i < CPK_PY_CODE_MARSHAL_OBJECTS; i++)
            if (norm_object(r, out) < 0)
                return -1;
        if (norm_raw(r, out, 4) < 0) /* co_firstlineno */
            return -1;
        for (int i = 0; i < CPK_PY_CODE_MARSHAL_TAIL - 1; i++)
            if (norm_object(r, out) < 0)
                return -1;
        return norm_object(r, out);
    default:
        return -1;
    }
}

/* The payload rewritten by norm_object (new reference; the payload itself
 * if its bytes are not what we expect). Steals `payload`. */
PyObject *
cpk_marshal_normalize(PyObject *payload)
{
    byte_cursor r = {(const unsigned char *)PyBytes_AS_STRING(payload),
                    (const unsigned char *)PyBytes_AS_STRING(payload) +
                        PyBytes_GET_SIZE(payload)};
    cpk_bytebuf out = {0};
    if (norm_object(&r, &out) < 0 || r.p != r.end) {
        cpk_bytebuf_release(&out);
        if (PyErr_Occurred()) {
            Py_DECREF(payload);
            return NULL;
        }
        return payload; /* unexpected: leave it as marshal wrote it */
    }
    PyObject *compact = PyBytes_FromStringAndSize(out.data,
                                                  (Py_ssize_t)out.len);
    cpk_bytebuf_release(&out);
    Py_DECREF(payload);
    return compact;
}

/* marshal's version 2 bytes of one object, made compact by norm_object,
 * appended to `out`: codewrite.c's way for the constants it does not
 * write itself. 1; 0 without an error if marshal refuses the object or
 * writes what norm_object does not expect (the caller then takes the
 * old path, which decides); -1 with an error. */
int
cpk_marshal_compact_into(PyObject *obj, cpk_bytebuf *out)
{
    PyObject *raw = PyMarshal_WriteObjectToString(obj, CPK_MARSHAL_VERSION);
    if (raw == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_ValueError))
            return -1;
        PyErr_Clear();
        return 0;
    }
    byte_cursor r = {(const unsigned char *)PyBytes_AS_STRING(raw),
                    (const unsigned char *)PyBytes_AS_STRING(raw) +
                        PyBytes_GET_SIZE(raw)};
    size_t mark = out->len;
    int rc = norm_object(&r, out) < 0 || r.p != r.end ? -1 : 1;
    Py_DECREF(raw);
    if (rc < 0) {
        out->len = mark;
        return PyErr_Occurred() ? -1 : 0;
    }
    return 1;
}

/* The direct writer -------------------------------------------------- */

/* Nesting deeper than this goes the old way (marshal itself stops at
 * 2000, with an error code.c handles). */
#define CW_MAX_DEPTH 100

typedef struct {
    cpk_bytebuf b;
    int depth;
} cw;

/* 1 written, 0 not handled here (the caller takes the old path), -1
 * error. */
static int cw_object(cw *w, PyObject *v);

static int
cw_byte(cw *w, char c)
{
    return buf_put(&w->b, &c, 1) < 0 ? -1 : 1;
}

static int
cw_long(cw *w, long v)
{
    return buf_put_long(&w->b, v) < 0 ? -1 : 1;
}

/* marshal's w_pstring: a 4-byte length, then the bytes. */
static int
cw_sized(cw *w, char type, const char *p, Py_ssize_t n)
{
    if (n > INT32_MAX)
        return 0;
    if (cw_byte(w, type) < 0 || cw_long(w, (long)n) < 0 ||
        buf_put(&w->b, p, (size_t)n) < 0)
        return -1;
    return 1;
}

static int
cw_str(cw *w, PyObject *v)
{
    if (PyUnicode_IS_ASCII(v)) {
        Py_ssize_t n = PyUnicode_GET_LENGTH(v);
        const char *p = (const char *)PyUnicode_1BYTE_DATA(v);
        if (n < 256) {
            char h[2] = {CPK_MC_SHORT_ASCII, (char)(unsigned char)n};
            return buf_put(&w->b, h, 2) < 0 ||
                           buf_put(&w->b, p, (size_t)n) < 0
                       ? -1
                       : 1;
        }
        return cw_sized(w, CPK_MC_ASCII, p, n);
    }
    /* As marshal encodes it: lone surrogates pass. */
    PyObject *utf8 = PyUnicode_AsEncodedString(v, "utf8", "surrogatepass");
    if (utf8 == NULL)
        return -1;
    int r = cw_sized(w, CPK_MC_UNICODE, PyBytes_AS_STRING(utf8),
                     PyBytes_GET_SIZE(utf8));
    Py_DECREF(utf8);
    return r;
}

static int
cw_tuple(cw *w, PyObject *v)
{
    Py_ssize_t n = PyTuple_GET_SIZE(v);
    int r;
    if (n < 256) {
        char h[2] = {CPK_MC_SMALL_TUPLE, (char)(unsigned char)n};
        r = buf_put(&w->b, h, 2) < 0 ? -1 : 1;
    }
    else
        r = n > INT32_MAX ? 0
            : cw_byte(w, CPK_MC_TUPLE) < 0 ? -1
                                           : cw_long(w, (long)n);
    for (Py_ssize_t i = 0; r == 1 && i < n; i++)
        r = cw_object(w, PyTuple_GET_ITEM(v, i));
    return r;
}

/* The header's ints, in marshal's order for this version. */
static int
cw_ints(cw *w, const int *v, int n)
{
    for (int i = 0; i < n; i++)
        if (cw_long(w, v[i]) < 0)
            return -1;
    return 1;
}

static int
cw_objects(cw *w, PyObject *const *v, int n)
{
    int r = 1;
    for (int i = 0; r == 1 && i < n; i++)
        r = cw_object(w, v[i]);
    return r;
}

/* marshal.c w_complex_object's TYPE_CODE branch, field for field. */
static int
cw_code(cw *w, PyCodeObject *co)
{
    if (cw_byte(w, CPK_MC_CODE) < 0)
        return -1;
    int head[CPK_PY_CODE_MARSHAL_INTS];
    PyObject *body[CPK_PY_CODE_MARSHAL_OBJECTS];
    PyObject *tail[CPK_PY_CODE_MARSHAL_TAIL];
    if (cpk_py_code_marshal_fields(co, head, body, tail) < 0)
        return -1;
    int r = cw_ints(w, head, CPK_PY_CODE_MARSHAL_INTS);
    if (r == 1)
        r = cw_objects(w, body, CPK_PY_CODE_MARSHAL_OBJECTS);
    if (r == 1)
        r = cw_long(w, co->co_firstlineno);
    if (r == 1)
        r = cw_objects(w, tail, CPK_PY_CODE_MARSHAL_TAIL);
    Py_DECREF(body[0]); /* the bytecode */
    return r;
}

static int
cw_object(cw *w, PyObject *v)
{
    if (v == Py_None)
        return cw_byte(w, CPK_MC_NONE);
    if (v == Py_False)
        return cw_byte(w, CPK_MC_FALSE);
    if (v == Py_True)
        return cw_byte(w, CPK_MC_TRUE);
    if (v == Py_Ellipsis)
        return cw_byte(w, CPK_MC_ELLIPSIS);
    if (w->depth >= CW_MAX_DEPTH)
        return 0;
    int r;
    w->depth++;
    if (PyUnicode_CheckExact(v))
        r = cw_str(w, v);
    else if (PyTuple_CheckExact(v))
        r = cw_tuple(w, v);
    else if (PyBytes_CheckExact(v))
        r = cw_sized(w, CPK_MC_STRING, PyBytes_AS_STRING(v),
                     PyBytes_GET_SIZE(v));
    else if (PyCode_Check(v))
        r = cw_code(w, (PyCodeObject *)v);
    else {
        /* TYPE_INT for what fits in 32 bits, as marshal decides. */
        int overflow = 0;
        long x = PyLong_CheckExact(v) ? PyLong_AsLongAndOverflow(v, &overflow)
                                      : 0;
        if (PyLong_CheckExact(v) && !overflow && x >= INT32_MIN &&
            x <= INT32_MAX)
            r = cw_byte(w, CPK_MC_INT) < 0 ? -1 : cw_long(w, x);
        else if (PyErr_Occurred())
            r = -1;
        else if (PyFloat_CheckExact(v) || PyComplex_CheckExact(v) ||
                 PyLong_CheckExact(v))
            /* Floats, large ints: marshal's own bytes for this object,
             * made compact (code.c). */
            r = cpk_marshal_compact_into(v, &w->b);
        else
            /* Containers (frozensets...) and the rest: the old path, so
             * that marshal's depth limit counts from the code, as it
             * does when marshal writes it whole. */
            r = 0;
    }
    w->depth--;
    return r;
}

PyObject *
cpk_code_compact(PyObject *code)
{
    char first[2048];
    cw w = {.depth = 0};
    cpk_bytebuf_init_on(&w.b, first, sizeof(first));
    int r = cw_object(&w, code);
    PyObject *out =
        r == 1 ? PyBytes_FromStringAndSize(w.b.data, (Py_ssize_t)w.b.len)
               : NULL;
    cpk_bytebuf_release(&w.b);
    return out;
}
