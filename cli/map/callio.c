/* callio.c - a called function's result encoded as repr, JSON or a
 * pickle, and a raised exception as a JSON object (callio.h). The
 * arguments going in are callargs.c's.
 *
 * JSON is the hot path of --map (one result per record): None, bool,
 * exact int, float and str, and exact lists, tuples and dicts with str
 * keys of those, are written here in C, byte for byte as
 * json.dumps(obj, ensure_ascii=False, separators=(",", ":"),
 * allow_nan=False) writes them. Anything else (a subclass, a non-str key,
 * NaN, a str json cannot give as UTF-8, deep or circular nesting) starts
 * over with json's own C encoder, made once, so that its answer and its
 * error are json's. */
#include "common/pycompat.h" /* Py_NewRef before 3.10 */
#include "map/callio.h"
#include "common/bytebuf.h"  /* cpk_bytebuf_put, cpk_bytebuf_reserve */
#include "common/pyerr.h"    /* cpk_error_clearable */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Containers nested deeper than this are left to json's encoder, which
 * checks for cycles and the recursion limit. */
#define FAST_DEPTH_MAX 200

struct cpk_encoder {
    cpk_result_format f;
    /* JSON: json's C encoder, called (obj, 0), giving a sequence of str
     * chunks, and its markers dict (cleared after a failure: the C encoder
     * leaves the ids it was inside of there); or, without _json, a
     * JSONEncoder's bound encode, called (obj), giving a str. */
    PyObject *json_encode;
    PyObject *json_markers;
    PyObject *empty; /* "" for joining chunks */
    /* pickle: ccloudpickle.dumps, and the protocol keyword */
    PyObject *dumps;
    PyObject *protocol;
    PyObject *kwnames;
};

int
cpk_result_format_parse(const char *s, cpk_result_format *f)
{
    static const struct {
        const char *name;
        cpk_result_format f;
    } names[] = {
        {"repr", CPK_RESULT_REPR},
        {"json", CPK_RESULT_JSON},
        {"pickle", CPK_RESULT_PICKLE},
        {"none", CPK_RESULT_NONE},
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(s, names[i].name) == 0) {
            *f = names[i].f;
            return 0;
        }
    return -1;
}

/* Exceptions -------------------------------------------------------------- */

/* A type's name as json and pickle say it: __name__ (tp_name after its
 * last dot). */
static const char *
short_type_name(PyTypeObject *t)
{
    const char *dot = strrchr(t->tp_name, '.');
    return dot ? dot + 1 : t->tp_name;
}

/* `s` as UTF-8 (surrogates backslash-escaped), new bytes; NULL with an
 * exception. */
static PyObject *
utf8_lenient(PyObject *s)
{
    return PyUnicode_AsEncodedString(s, "utf-8", "backslashreplace");
}

/* Append text to a malloc'd one-line message: runs of white space folded
 * to one space, other control characters shown as '?'. */
static void
append_line(cpk_bytebuf *b, const char *s, size_t n)
{
    int space = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
            space = 1;
            continue;
        }
        if (space && b->len > 0 && b->data[b->len - 1] != ' ')
            cpk_bytebuf_put(b, " ", 1);
        space = 0;
        char ch = c < 0x20 || c == 0x7f ? '?' : (char)c;
        cpk_bytebuf_put(b, &ch, 1);
    }
}

static void
append_str(cpk_bytebuf *b, const char *s)
{
    append_line(b, s, strlen(s));
}

/* Append str(o) to b as one line; 0, 1 when str() itself failed as
 * `except Exception` would catch (cleared), or -1 with what must
 * propagate (KeyboardInterrupt, SystemExit, MemoryError). */
static int
append_object_str(cpk_bytebuf *b, PyObject *o)
{
    PyObject *s = PyObject_Str(o);
    PyObject *bytes = s ? utf8_lenient(s) : NULL;
    Py_XDECREF(s);
    if (bytes == NULL) {
        if (!cpk_error_clearable())
            return -1;
        PyErr_Clear();
        return 1;
    }
    append_line(b, PyBytes_AS_STRING(bytes), (size_t)PyBytes_GET_SIZE(bytes));
    Py_DECREF(bytes);
    return 0;
}

/* The fetched exception `value` (normalized) as one line: "Type: message"
 * (with_type) or "message", then its __notes__ (3.11+) in parentheses,
 * separated by "; ". Appended to b: 0, or -1 with an exception that must
 * propagate (append_object_str). */
static int
append_exception(cpk_bytebuf *b, PyObject *value, int with_type)
{
    size_t start = b->len;
    if (with_type)
        append_str(b, short_type_name(Py_TYPE(value)));
    size_t before_msg = b->len;
    if (with_type)
        cpk_bytebuf_put(b, ": ", 2);
    size_t msg_at = b->len;
    int r = append_object_str(b, value);
    if (r < 0)
        return -1;
    if (r > 0 || b->len == msg_at)
        b->len = with_type ? before_msg : start; /* no message */
    PyObject *notes = PyObject_GetAttrString(value, "__notes__");
    if (notes == NULL) {
        if (!cpk_error_clearable())
            return -1;
        PyErr_Clear();
        return 0;
    }
    if (PyList_Check(notes) && PyList_GET_SIZE(notes) > 0) {
        cpk_bytebuf_put(b, " (", 2);
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(notes); i++) {
            if (i > 0)
                cpk_bytebuf_put(b, "; ", 2);
            PyObject *n = Py_NewRef(PyList_GET_ITEM(notes, i));
            r = append_object_str(b, n);
            Py_DECREF(n);
            if (r < 0) {
                Py_DECREF(notes);
                return -1;
            }
        }
        cpk_bytebuf_put(b, ")", 1);
    }
    Py_DECREF(notes);
    return 0;
}

/* *why for an object of `type` that cannot be encoded: the pending
 * exception (fetched and cleared) as the detail, unless `detail` is 0 or
 * the detail would only repeat the type. Returns 1; -1 (*why untouched)
 * when formatting the detail raised what must propagate. */
static int
unencodable(PyTypeObject *type, const char *as, int with_type, int detail,
            char **why)
{
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    PyErr_NormalizeException(&t, &v, &tb);
    cpk_bytebuf b = {0};
    static const char head[] = "cannot encode a result of type '";
    cpk_bytebuf_put(&b, head, sizeof(head) - 1);
    append_str(&b, short_type_name(type));
    cpk_bytebuf_put(&b, "' ", 2);
    cpk_bytebuf_put(&b, as, strlen(as));
    if (detail && v != NULL) {
        cpk_bytebuf d = {0};
        if (append_exception(&d, v, with_type) < 0) {
            cpk_bytebuf_release(&d);
            cpk_bytebuf_release(&b);
            Py_XDECREF(t);
            Py_XDECREF(v);
            Py_XDECREF(tb);
            return -1;
        }
        /* json's own words for an unsupported top-level type */
        char same[300];
        snprintf(same, sizeof(same), "Object of type %s is not JSON "
                 "serializable", short_type_name(type));
        if (d.len > 0 &&
            !(d.len == strlen(same) && memcmp(d.data, same, d.len) == 0)) {
            cpk_bytebuf_put(&b, ": ", 2);
            cpk_bytebuf_put(&b, d.data, d.len);
        }
        cpk_bytebuf_release(&d);
    }
    if (cpk_bytebuf_put(&b, "", 1) < 0)
        cpk_bytebuf_release(&b); /* never hand out an unterminated text */
    Py_XDECREF(t);
    Py_XDECREF(v);
    Py_XDECREF(tb);
    *why = b.data; /* NULL only when out of memory: the fallback below */
    if (*why == NULL)
        *why = strdup("cannot encode the result (out of memory)");
    return 1;
}

/* JSON, in C ---------------------------------------------------------------- */

enum { FAST_OK = 0, FAST_NO = 1, FAST_ERR = -1 };

static const char hexdigits[] = "0123456789abcdef";

/* The UTF-8 of a str as a JSON string, escaped as json's
 * encode_basestring escapes it. */
static int
json_utf8(cpk_bytebuf *b, const char *s, Py_ssize_t n)
{
    /* worst case: every byte a \u00XX */
    if (cpk_bytebuf_reserve(b, (size_t)n * 6 + 2) < 0)
        return -1;
    char *o = b->data + b->len;
    *o++ = '"';
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\') {
            *o++ = (char)c;
            continue;
        }
        *o++ = '\\';
        switch (c) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '\b': *o++ = 'b'; break;
        case '\f': *o++ = 'f'; break;
        case '\n': *o++ = 'n'; break;
        case '\r': *o++ = 'r'; break;
        case '\t': *o++ = 't'; break;
        default:
            *o++ = 'u';
            *o++ = '0';
            *o++ = '0';
            *o++ = hexdigits[c >> 4];
            *o++ = hexdigits[c & 0xf];
        }
    }
    *o++ = '"';
    b->len = (size_t)(o - b->data);
    return 0;
}

/* A str: FAST_NO when it has no UTF-8 form (lone surrogates; json's
 * encoder and the UTF-8 step then say why). */
static int
json_str(cpk_bytebuf *b, PyObject *s)
{
    Py_ssize_t n;
    const char *u = PyUnicode_AsUTF8AndSize(s, &n);
    if (u == NULL) {
        if (!cpk_error_clearable())
            return FAST_ERR;
        PyErr_Clear();
        return FAST_NO;
    }
    return json_utf8(b, u, n) < 0 ? FAST_ERR : FAST_OK;
}

static int
json_long(cpk_bytebuf *b, PyObject *o)
{
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow == 0) {
        char tmp[24], *p = tmp + sizeof(tmp);
        unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v
                                     : (unsigned long long)v;
        do {
            *--p = (char)('0' + u % 10);
            u /= 10;
        } while (u != 0);
        if (v < 0)
            *--p = '-';
        return cpk_bytebuf_put(b, p, (size_t)(tmp + sizeof(tmp) - p)) < 0
                   ? FAST_ERR : FAST_OK;
    }
    /* int.__repr__, as json: a huge one may exceed the digit limit
     * (ValueError): json's encoder gives that error. */
    PyObject *r = PyLong_Type.tp_repr(o);
    if (r == NULL) {
        if (!cpk_error_clearable())
            return FAST_ERR;
        PyErr_Clear();
        return FAST_NO;
    }
    Py_ssize_t n;
    const char *u = PyUnicode_AsUTF8AndSize(r, &n);
    int rc = u == NULL || cpk_bytebuf_put(b, u, (size_t)n) < 0 ? FAST_ERR
                                                               : FAST_OK;
    Py_DECREF(r);
    return rc;
}

static int
json_float(cpk_bytebuf *b, double d)
{
    if (!isfinite(d))
        return FAST_NO; /* json's ValueError */
    /* float.__repr__ */
    char *s = PyOS_double_to_string(d, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
    if (s == NULL)
        return FAST_ERR;
    int rc = cpk_bytebuf_put(b, s, strlen(s)) < 0 ? FAST_ERR : FAST_OK;
    PyMem_Free(s);
    return rc;
}

/* Encode `o` into b. Runs no Python code (only exact builtin types are
 * looked at; nothing here allocates a GC-tracked object), so the borrowed
 * items of a container stay valid. FAST_NO: leave it to json (b then
 * holds a partial encoding the caller cuts off). */
static int
json_fast(cpk_bytebuf *b, PyObject *o, int depth)
{
    if (o == Py_None)
        return cpk_bytebuf_put(b, "null", 4) < 0 ? FAST_ERR : FAST_OK;
    if (o == Py_True)
        return cpk_bytebuf_put(b, "true", 4) < 0 ? FAST_ERR : FAST_OK;
    if (o == Py_False)
        return cpk_bytebuf_put(b, "false", 5) < 0 ? FAST_ERR : FAST_OK;
    PyTypeObject *t = Py_TYPE(o);
    if (t == &PyLong_Type)
        return json_long(b, o);
    if (t == &PyUnicode_Type)
        return json_str(b, o);
    if (t == &PyFloat_Type)
        return json_float(b, PyFloat_AS_DOUBLE(o));
    if (depth >= FAST_DEPTH_MAX)
        return FAST_NO;
    if (t == &PyList_Type || t == &PyTuple_Type) {
        int list = t == &PyList_Type;
        Py_ssize_t n = list ? PyList_GET_SIZE(o) : PyTuple_GET_SIZE(o);
        if (cpk_bytebuf_put(b, "[", 1) < 0)
            return FAST_ERR;
        for (Py_ssize_t i = 0; i < n; i++) {
            if (i > 0 && cpk_bytebuf_put(b, ",", 1) < 0)
                return FAST_ERR;
            PyObject *item = list ? PyList_GET_ITEM(o, i)
                                  : PyTuple_GET_ITEM(o, i);
            int rc = json_fast(b, item, depth + 1);
            if (rc != FAST_OK)
                return rc;
        }
        return cpk_bytebuf_put(b, "]", 1) < 0 ? FAST_ERR : FAST_OK;
    }
    if (t == &PyDict_Type) {
        Py_ssize_t pos = 0;
        PyObject *k, *v;
        int first = 1;
        if (cpk_bytebuf_put(b, "{", 1) < 0)
            return FAST_ERR;
        while (PyDict_Next(o, &pos, &k, &v)) {
            if (!PyUnicode_CheckExact(k))
                return FAST_NO; /* json turns other keys into strings */
            if (!first && cpk_bytebuf_put(b, ",", 1) < 0)
                return FAST_ERR;
            first = 0;
            int rc = json_str(b, k);
            if (rc == FAST_OK)
                rc = cpk_bytebuf_put(b, ":", 1) < 0 ? FAST_ERR : FAST_OK;
            if (rc == FAST_OK)
                rc = json_fast(b, v, depth + 1);
            if (rc != FAST_OK)
                return rc;
        }
        return cpk_bytebuf_put(b, "}", 1) < 0 ? FAST_ERR : FAST_OK;
    }
    return FAST_NO;
}

/* json's own encoding of `o` as a str (new reference), or NULL with its
 * exception. */
static PyObject *
json_slow(cpk_encoder *e, PyObject *o)
{
    if (e->json_markers == NULL) /* a JSONEncoder's encode */
        return PyObject_CallOneArg(e->json_encode, o);
    PyObject *zero = PyLong_FromLong(0);
    if (zero == NULL)
        return NULL;
    PyObject *args[2] = {o, zero};
    PyObject *chunks = PyObject_Vectorcall(e->json_encode, args, 2, NULL);
    Py_DECREF(zero);
    if (chunks == NULL) {
        /* What the failed walk left behind would be taken for a cycle
         * by a later call on an object at the same address. */
        PyObject *t, *v, *tb;
        PyErr_Fetch(&t, &v, &tb);
        PyDict_Clear(e->json_markers);
        PyErr_Restore(t, v, tb);
        return NULL;
    }
    PyObject *s = PyUnicode_Join(e->empty, chunks);
    Py_DECREF(chunks);
    return s;
}

/* json's text of a str with a lone surrogate failed to become UTF-8: the
 * codec's error counts positions in that text, meaningless to the user.
 * Replaced by one naming the character. */
static void
surrogate_error(PyObject *text)
{
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    PyErr_NormalizeException(&t, &v, &tb);
    Py_ssize_t at = 0;
    if (v == NULL || PyUnicodeEncodeError_GetStart(v, &at) < 0 || at < 0 ||
        at >= PyUnicode_GET_LENGTH(text)) {
        PyErr_Clear();
        PyErr_Restore(t, v, tb);
        return;
    }
    Py_XDECREF(t);
    Py_XDECREF(v);
    Py_XDECREF(tb);
    PyErr_Format(PyExc_ValueError,
                 "a string holds the lone surrogate '\\u%04x', which UTF-8 "
                 "cannot encode",
                 (unsigned)PyUnicode_READ_CHAR(text, at));
}

static int
encode_json(cpk_encoder *e, PyObject *obj, cpk_bytebuf *out, char **why)
{
    size_t start = out->len;
    int rc = json_fast(out, obj, 0);
    if (rc == FAST_OK) {
        if (cpk_bytebuf_put(out, "\n", 1) == 0)
            return 0;
        rc = FAST_ERR;
    }
    out->len = start;
    if (rc == FAST_ERR) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        return -1;
    }
    PyObject *s = json_slow(e, obj);
    Py_ssize_t n = 0;
    const char *u = s ? PyUnicode_AsUTF8AndSize(s, &n) : NULL;
    if (u == NULL) {
        if (s != NULL && PyErr_ExceptionMatches(PyExc_UnicodeEncodeError))
            surrogate_error(s);
        Py_XDECREF(s);
        if (!cpk_error_clearable())
            return -1;
        return unencodable(Py_TYPE(obj), "as JSON", 0, 1, why);
    }
    int bad = cpk_bytebuf_put(out, u, (size_t)n) < 0 ||
              cpk_bytebuf_put(out, "\n", 1) < 0;
    Py_DECREF(s);
    if (bad) {
        out->len = start;
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* repr and pickle --------------------------------------------------------- */

static int
encode_repr(PyObject *obj, cpk_bytebuf *out, char **why)
{
    PyObject *r = PyObject_Repr(obj);
    if (r == NULL) {
        if (!cpk_error_clearable())
            return -1;
        return unencodable(Py_TYPE(obj), "with repr()", 1, 1, why);
    }
    Py_ssize_t n;
    const char *u = PyUnicode_AsUTF8AndSize(r, &n);
    PyObject *bytes = NULL;
    if (u == NULL) {
        if (!cpk_error_clearable()) {
            Py_DECREF(r);
            return -1;
        }
        PyErr_Clear();
        bytes = utf8_lenient(r);
        if (bytes == NULL) {
            Py_DECREF(r);
            return -1;
        }
        u = PyBytes_AS_STRING(bytes);
        n = PyBytes_GET_SIZE(bytes);
    }
    size_t start = out->len;
    int bad = cpk_bytebuf_put(out, u, (size_t)n) < 0 ||
              cpk_bytebuf_put(out, "\n", 1) < 0;
    Py_XDECREF(bytes);
    Py_DECREF(r);
    if (bad) {
        out->len = start;
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static int
encode_pickle(cpk_encoder *e, PyObject *obj, cpk_bytebuf *out, char **why)
{
    PyObject *args[2] = {obj, e->protocol};
    PyObject *data = PyObject_Vectorcall(e->dumps, args, 1, e->kwnames);
    if (data == NULL) {
        if (!cpk_error_clearable())
            return -1;
        return unencodable(Py_TYPE(obj), "as a pickle", 1, 1, why);
    }
    if (!PyBytes_Check(data)) {
        Py_DECREF(data);
        PyErr_SetString(PyExc_TypeError, "ccloudpickle.dumps gave no bytes");
        return -1;
    }
    int bad = cpk_bytebuf_put(out, PyBytes_AS_STRING(data),
                              (size_t)PyBytes_GET_SIZE(data)) < 0;
    Py_DECREF(data);
    if (bad) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* The encoder ---------------------------------------------------------------- */

/* json's C encoder, as json.dumps(ensure_ascii=False, separators=(",",
 * ":"), allow_nan=False) makes it (json.encoder.JSONEncoder.iterencode),
 * or the pure-Python encoder's encode without _json. */
static int
make_json(cpk_encoder *e)
{
    PyObject *json = PyImport_ImportModule("json");
    if (json == NULL)
        return -1;
    PyObject *cls = PyObject_GetAttrString(json, "JSONEncoder");
    Py_DECREF(json);
    if (cls == NULL)
        return -1;
    PyObject *kw = Py_BuildValue("{s:O,s:(ss),s:O}", "ensure_ascii", Py_False,
                                 "separators", ",", ":", "allow_nan",
                                 Py_False);
    PyObject *noargs = PyTuple_New(0);
    PyObject *enc = kw && noargs ? PyObject_Call(cls, noargs, kw) : NULL;
    Py_XDECREF(noargs);
    Py_XDECREF(kw);
    Py_DECREF(cls);
    if (enc == NULL)
        return -1;
    PyObject *cjson = PyImport_ImportModule("_json");
    PyObject *make = cjson ? PyObject_GetAttrString(cjson, "make_encoder")
                           : NULL;
    PyObject *basestring =
        make ? PyObject_GetAttrString(cjson, "encode_basestring") : NULL;
    Py_XDECREF(cjson);
    if (basestring == NULL) {
        if (!cpk_error_clearable()) {
            Py_XDECREF(make);
            Py_DECREF(enc);
            return -1;
        }
        /* No _json: the pure-Python encoder. */
        PyErr_Clear();
        Py_XDECREF(make);
        e->json_encode = PyObject_GetAttrString(enc, "encode");
        Py_DECREF(enc);
        return e->json_encode ? 0 : -1;
    }
    PyObject *deflt = PyObject_GetAttrString(enc, "default");
    Py_DECREF(enc);
    e->json_markers = PyDict_New();
    PyObject *key_sep = PyUnicode_FromString(":");
    PyObject *item_sep = PyUnicode_FromString(",");
    if (deflt != NULL && e->json_markers != NULL && key_sep != NULL &&
        item_sep != NULL) {
        /* markers, default, encoder, indent, key_separator,
         * item_separator, sort_keys, skipkeys, allow_nan */
        PyObject *args = PyTuple_Pack(9, e->json_markers, deflt, basestring,
                                      Py_None, key_sep, item_sep, Py_False,
                                      Py_False, Py_False);
        if (args != NULL)
            e->json_encode = PyObject_Call(make, args, NULL);
        Py_XDECREF(args);
    }
    Py_XDECREF(key_sep);
    Py_XDECREF(item_sep);
    Py_XDECREF(deflt);
    Py_DECREF(basestring);
    Py_DECREF(make);
    return e->json_encode ? 0 : -1;
}

cpk_encoder *
cpk_encoder_new(cpk_result_format f)
{
    cpk_encoder *e = calloc(1, sizeof(*e));
    if (e == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    e->f = f;
    if (f == CPK_RESULT_JSON) {
        e->empty = PyUnicode_FromStringAndSize("", 0);
        if (e->empty == NULL || make_json(e) < 0)
            goto error;
    }
    else if (f == CPK_RESULT_PICKLE) {
        PyObject *cpk = PyImport_ImportModule("ccloudpickle");
        e->dumps = cpk ? PyObject_GetAttrString(cpk, "dumps") : NULL;
        Py_XDECREF(cpk);
        e->protocol = PyLong_FromLong(5);
        e->kwnames = Py_BuildValue("(s)", "protocol");
        if (e->dumps == NULL || e->protocol == NULL || e->kwnames == NULL)
            goto error;
    }
    return e;
error:
    cpk_encoder_free(e);
    return NULL;
}

void
cpk_encoder_free(cpk_encoder *e)
{
    if (e == NULL)
        return;
    Py_XDECREF(e->json_encode);
    Py_XDECREF(e->json_markers);
    Py_XDECREF(e->empty);
    Py_XDECREF(e->dumps);
    Py_XDECREF(e->protocol);
    Py_XDECREF(e->kwnames);
    free(e);
}

int
cpk_encode_result(cpk_encoder *e, PyObject *obj, cpk_bytebuf *out, char **why)
{
    *why = NULL;
    switch (e->f) {
    case CPK_RESULT_REPR:
        return encode_repr(obj, out, why);
    case CPK_RESULT_JSON:
        return encode_json(e, obj, out, why);
    case CPK_RESULT_PICKLE:
        return encode_pickle(e, obj, out, why);
    case CPK_RESULT_NONE:
        break;
    }
    return 0;
}

/* Error records -------------------------------------------------------------- */

/* 1 when the pending exception must propagate (it is then left set). */
static int
must_propagate(void)
{
    return PyErr_Occurred() && !cpk_error_clearable();
}

/* `s` (a str) with UTF-8 guaranteed: lone surrogates backslash-escaped.
 * Steals `s`; new reference or NULL with an exception. */
static PyObject *
clean_str(PyObject *s)
{
    if (s == NULL)
        return NULL;
    if (PyUnicode_AsUTF8AndSize(s, NULL) != NULL)
        return s;
    PyErr_Clear();
    PyObject *b = utf8_lenient(s);
    Py_DECREF(s);
    if (b == NULL)
        return NULL;
    PyObject *r = PyUnicode_DecodeUTF8(PyBytes_AS_STRING(b),
                                       PyBytes_GET_SIZE(b), "strict");
    Py_DECREF(b);
    return r;
}

/* "module.QualName", or the qualname alone for builtins. */
static PyObject *
type_name(PyObject *type)
{
    PyObject *mod = PyObject_GetAttrString(type, "__module__");
    PyObject *qual = mod ? PyObject_GetAttrString(type, "__qualname__")
                         : NULL;
    PyObject *r = NULL;
    if (qual != NULL && PyUnicode_Check(qual) && PyUnicode_Check(mod)) {
        if (PyUnicode_CompareWithASCIIString(mod, "builtins") == 0)
            r = Py_NewRef(qual);
        else
            r = PyUnicode_FromFormat("%U.%U", mod, qual);
    }
    Py_XDECREF(mod);
    Py_XDECREF(qual);
    if (r == NULL && !must_propagate()) {
        PyErr_Clear();
        r = PyUnicode_FromString(((PyTypeObject *)type)->tp_name);
    }
    return clean_str(r);
}

/* "".join(traceback.format_exception(type, value, tb)) (the three-argument
 * form: 3.9 has no other). */
static PyObject *
format_traceback(PyObject *type, PyObject *value, PyObject *tb)
{
    PyObject *mod = PyImport_ImportModule("traceback");
    PyObject *fn = mod ? PyObject_GetAttrString(mod, "format_exception")
                       : NULL;
    Py_XDECREF(mod);
    PyObject *lines = fn ? PyObject_CallFunctionObjArgs(
                               fn, type, value, tb ? tb : Py_None, NULL)
                         : NULL;
    Py_XDECREF(fn);
    PyObject *empty = lines ? PyUnicode_FromStringAndSize("", 0) : NULL;
    PyObject *s = empty ? PyUnicode_Join(empty, lines) : NULL;
    Py_XDECREF(empty);
    Py_XDECREF(lines);
    return clean_str(s);
}

static int
set_item(PyObject *d, const char *key, PyObject *v)
{
    if (v == NULL)
        return -1;
    int rc = PyDict_SetItemString(d, key, v);
    Py_DECREF(v);
    return rc;
}

PyObject *
cpk_error_info(long long record)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (type == NULL) {
        type = Py_NewRef(PyExc_SystemError);
        value = PyUnicode_FromString("no exception set");
    }
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb != NULL && value != NULL)
        PyException_SetTraceback(value, tb);
    PyObject *info = PyDict_New();
    PyObject *name = NULL, *msg = NULL, *text = NULL;
    if (info == NULL)
        goto error;
    name = type_name(type);
    if (name == NULL)
        goto error;
    msg = value ? PyObject_Str(value) : NULL;
    if (msg == NULL) {
        if (must_propagate())
            goto error;
        PyErr_Clear();
        msg = PyUnicode_FromStringAndSize("", 0);
    }
    msg = clean_str(msg);
    if (msg == NULL)
        goto error;
    text = format_traceback(type, value ? value : Py_None, tb);
    if (text == NULL) {
        if (must_propagate())
            goto error;
        PyErr_Clear();
        text = PyUnicode_FromStringAndSize("", 0);
        if (text == NULL)
            goto error;
    }
    /* set_item takes its value, failing or not */
    int bad = set_item(info, "type", name) < 0;
    bad = set_item(info, "message", msg) < 0 || bad;
    bad = set_item(info, "traceback", text) < 0 || bad;
    name = msg = text = NULL;
    if (!bad && record >= 1)
        bad = set_item(info, "record", PyLong_FromLongLong(record)) < 0;
    if (bad)
        goto error;
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return info;
error:
    Py_XDECREF(name);
    Py_XDECREF(msg);
    Py_XDECREF(text);
    Py_XDECREF(info);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    if (!PyErr_Occurred())
        PyErr_NoMemory();
    return NULL;
}

int
cpk_error_info_json(PyObject *info, cpk_bytebuf *out)
{
    size_t start = out->len;
    int rc = json_fast(out, info, 0);
    if (rc == FAST_OK && cpk_bytebuf_put(out, "\n", 1) == 0)
        return 0;
    out->len = start;
    if (rc != FAST_NO) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        return -1;
    }
    /* Not what cpk_error_info makes: json.dumps, ASCII, strict. */
    PyObject *json = PyImport_ImportModule("json");
    PyObject *dumps = json ? PyObject_GetAttrString(json, "dumps") : NULL;
    Py_XDECREF(json);
    PyObject *args = dumps ? PyTuple_Pack(1, info) : NULL;
    PyObject *kw = args ? Py_BuildValue("{s:(ss),s:O}", "separators", ",",
                                        ":", "allow_nan", Py_False)
                        : NULL;
    PyObject *s = kw ? PyObject_Call(dumps, args, kw) : NULL;
    Py_XDECREF(kw);
    Py_XDECREF(args);
    Py_XDECREF(dumps);
    Py_ssize_t n;
    const char *u = s ? PyUnicode_AsUTF8AndSize(s, &n) : NULL;
    int bad = u == NULL || cpk_bytebuf_put(out, u, (size_t)n) < 0 ||
              cpk_bytebuf_put(out, "\n", 1) < 0;
    Py_XDECREF(s);
    if (bad) {
        out->len = start;
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        return -1;
    }
    return 0;
}
