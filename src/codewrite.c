/* codewrite.c - a code object written straight in the compact marshal
 * form code.c ships (marshal version 2, no references, ASCII strings in
 * the short forms, small tuples as TYPE_SMALL_TUPLE, sets sorted), without
 * first writing marshal's own bytes and then rewriting them: the first
 * pickle of a function paid marshal, a UTF-8 encoding of every name, and
 * a second pass over the bytes. The result is byte for byte what
 * payload_normalize(marshal.dumps(code, 2)) gives (tests/test_codewrite.c
 * checks it on every code object of the standard library). Floats,
 * complex numbers and large ints are handed to that path for that one
 * object; code holding anything else (frozensets, constants put there by
 * hand), or nested deeper than 100, is left to the whole old path, which
 * also keeps marshal's depth limit counted from the code. Either way the
 * bytes are the same.
 */
#include "internal.h"
#include "marshal_codes.h" /* CPK_MC_* */

/* Nesting deeper than this goes the old way (marshal itself stops at
 * 2000, with an error code.c handles). */
#define CW_MAX_DEPTH 100

typedef struct {
    cpk_membuf b;
    int depth;
} cw;

/* 1 written, 0 not handled here (the caller takes the old path), -1
 * error. */
static int cw_object(cw *w, PyObject *v);

static int
cw_byte(cw *w, char c)
{
    return cpk_membuf_put(&w->b, &c, 1) < 0 ? -1 : 1;
}

static int
cw_long(cw *w, long v)
{
    return cpk_membuf_put_long(&w->b, v) < 0 ? -1 : 1;
}

/* marshal's w_pstring: a 4-byte length, then the bytes. */
static int
cw_sized(cw *w, char type, const char *p, Py_ssize_t n)
{
    if (n > INT32_MAX)
        return 0;
    if (cw_byte(w, type) < 0 || cw_long(w, (long)n) < 0 ||
        cpk_membuf_put(&w->b, p, (size_t)n) < 0)
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
            return cpk_membuf_put(&w->b, h, 2) < 0 ||
                           cpk_membuf_put(&w->b, p, (size_t)n) < 0
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
        r = cpk_membuf_put(&w->b, h, 2) < 0 ? -1 : 1;
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
    cw w = {{first, 0, sizeof(first), 1}, 0};
    int r = cw_object(&w, code);
    PyObject *out =
        r == 1 ? PyBytes_FromStringAndSize(w.b.data, (Py_ssize_t)w.b.len)
               : NULL;
    cpk_membuf_release(&w.b);
    return out;
}
