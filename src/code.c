/* code.c - code objects. They travel as marshal bytes tagged with the
 * interpreter's bytecode magic number, so loading one made by another
 * CPython version fails with a message naming both versions, never with a
 * cryptic constructor error. Code whose constants marshal refuses (built by
 * hand with CodeType.replace) falls back to the constructor's arguments,
 * tagged the same way. The cloudpickle format uses cloudpickle's layout:
 * types.CodeType(*fields).
 */
#include "internal.h"

#include <marshal.h>

#include "marshal_codes.h" /* CPK_MC_*: norm_object */

/* marshal version 2: the newest one that writes no object references.
 * From version 3 on, marshal flags every object whose reference count is
 * above 1 as shareable (FLAG_REF) and marks interned strings: the bytes
 * would then depend on who else holds the code's constants and on what
 * the process interned, not on the code (cloudpickle 3.x promises the same
 * bytes for the same function). Version 2 writes each object by value;
 * any version loads it.
 *
 * Then one pass over those bytes (payload_normalize) makes them as compact
 * as version 4's forms without its references: ASCII strings in the short
 * forms (TYPE_SHORT_ASCII, TYPE_ASCII, not interned: the code constructor
 * interns what it needs), small tuples as TYPE_SMALL_TUPLE; and sorts the
 * elements of sets by their bytes, as 3.11's marshal does (bpo-37596;
 * before 3.11 their order is the hash order, which PYTHONHASHSEED changes
 * for str and bytes). Without references each object is a self-contained
 * run of bytes, which is what makes the moves possible. */
#define CPK_MARSHAL_VERSION 2

int
cpk_membuf_grow_put(cpk_membuf *b, const char *p, size_t n)
{
    if (n > PY_SSIZE_T_MAX - b->len) {
        PyErr_NoMemory();
        return -1;
    }
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        /* A caller's own first buffer is copied, never reallocated. */
        char *d = b->fixed ? PyMem_Malloc(cap) : PyMem_Realloc(b->data, cap);
        if (d == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        if (b->fixed && b->len > 0)
            memcpy(d, b->data, b->len);
        b->data = d;
        b->cap = cap;
        b->fixed = 0;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
    return 0;
}

void
cpk_membuf_release(cpk_membuf *b)
{
    if (!b->fixed)
        PyMem_Free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
    b->fixed = 0;
}

typedef struct {
    const unsigned char *p, *end;
} cpk_reader;

static int
rd_long(cpk_reader *r, long *v)
{
    if (r->end - r->p < 4)
        return -1;
    uint32_t x = (uint32_t)r->p[0] | (uint32_t)r->p[1] << 8 |
                 (uint32_t)r->p[2] << 16 | (uint32_t)r->p[3] << 24;
    *v = (long)(int32_t)x;
    return 0;
}

static int norm_object(cpk_reader *r, cpk_membuf *out);

/* Copy n raw bytes. */
static int
norm_raw(cpk_reader *r, cpk_membuf *out, size_t n)
{
    if ((size_t)(r->end - r->p) < n)
        return -1;
    if (cpk_membuf_put(out, (const char *)r->p, n) < 0)
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
norm_set(cpk_reader *r, cpk_membuf *out, long n)
{
    if (n < 0 || n > r->end - r->p)
        return -1;
    cpk_item *items = PyMem_Calloc((size_t)n + 1, sizeof(*items));
    if (items == NULL)
        return -1;
    int rc = 0;
    for (long i = 0; i < n && rc == 0; i++) {
        cpk_membuf b = {0};
        rc = norm_object(r, &b);
        items[i].data = b.data;
        items[i].len = b.len;
    }
    if (rc == 0) {
        qsort(items, (size_t)n, sizeof(*items), item_cmp);
        for (long i = 0; i < n && rc == 0; i++)
            rc = cpk_membuf_put(out, items[i].data, items[i].len);
    }
    for (long i = 0; i < n; i++)
        PyMem_Free(items[i].data);
    PyMem_Free(items);
    return rc;
}

int
cpk_membuf_put_long(cpk_membuf *out, long v)
{
    unsigned char b[4] = {(unsigned char)(v & 0xff),
                          (unsigned char)((v >> 8) & 0xff),
                          (unsigned char)((v >> 16) & 0xff),
                          (unsigned char)((v >> 24) & 0xff)};
    return cpk_membuf_put(out, (const char *)b, 4);
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
norm_object(cpk_reader *r, cpk_membuf *out)
{
    if (r->p >= r->end)
        return -1;
    int type = *r->p++;
    long n;
    char t = (char)type;
    switch (type) {
    case CPK_MC_NULL: case CPK_MC_NONE: case CPK_MC_FALSE: case CPK_MC_TRUE:
    case CPK_MC_STOPITER: case CPK_MC_ELLIPSIS:
        return cpk_membuf_put(out, &t, 1);
    case CPK_MC_INT:
        return cpk_membuf_put(out, &t, 1) < 0 ? -1 : norm_raw(r, out, 4);
    case CPK_MC_BINARY_FLOAT:
        return cpk_membuf_put(out, &t, 1) < 0 ? -1 : norm_raw(r, out, 8);
    case CPK_MC_BINARY_COMPLEX:
        return cpk_membuf_put(out, &t, 1) < 0 ? -1 : norm_raw(r, out, 16);
    case CPK_MC_LONG:
        if (cpk_membuf_put(out, &t, 1) < 0 || rd_long(r, &n) < 0 ||
            norm_raw(r, out, 4) < 0)
            return -1;
        n = n < 0 ? -n : n;
        return n > (r->end - r->p) / 2 ? -1 : norm_raw(r, out, 2 * (size_t)n);
    case CPK_MC_STRING:
        if (cpk_membuf_put(out, &t, 1) < 0 || rd_long(r, &n) < 0 || n < 0 ||
            norm_raw(r, out, 4) < 0)
            return -1;
        return norm_raw(r, out, (size_t)n);
    case CPK_MC_UNICODE:
        if (rd_long(r, &n) < 0 || n < 0 || n > r->end - r->p - 4)
            return -1;
        r->p += 4;
        if (!is_ascii(r->p, n)) {
            if (cpk_membuf_put(out, &t, 1) < 0 || cpk_membuf_put_long(out, n) < 0)
                return -1;
        }
        else if (n < 256) {
            char h[2] = {CPK_MC_SHORT_ASCII, (char)(unsigned char)n};
            if (cpk_membuf_put(out, h, 2) < 0)
                return -1;
        }
        else {
            char a = CPK_MC_ASCII;
            if (cpk_membuf_put(out, &a, 1) < 0 || cpk_membuf_put_long(out, n) < 0)
                return -1;
        }
        return norm_raw(r, out, (size_t)n);
    case CPK_MC_TUPLE: case CPK_MC_LIST:
        if (rd_long(r, &n) < 0 || n < 0 || n > r->end - r->p)
            return -1;
        r->p += 4;
        if (type == CPK_MC_TUPLE && n < 256) {
            char h[2] = {CPK_MC_SMALL_TUPLE, (char)(unsigned char)n};
            if (cpk_membuf_put(out, h, 2) < 0)
                return -1;
        }
        else if (cpk_membuf_put(out, &t, 1) < 0 || cpk_membuf_put_long(out, n) < 0)
            return -1;
        for (long i = 0; i < n; i++)
            if (norm_object(r, out) < 0)
                return -1;
        return 0;
    case CPK_MC_SET: case CPK_MC_FROZENSET:
        if (cpk_membuf_put(out, &t, 1) < 0 || rd_long(r, &n) < 0 ||
            norm_raw(r, out, 4) < 0)
            return -1;
        return norm_set(r, out, n);
    case CPK_MC_DICT:
        if (cpk_membuf_put(out, &t, 1) < 0)
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
        if (cpk_membuf_put(out, &t, 1) < 0)
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
static PyObject *
payload_normalize(PyObject *payload)
{
    cpk_reader r = {(const unsigned char *)PyBytes_AS_STRING(payload),
                    (const unsigned char *)PyBytes_AS_STRING(payload) +
                        PyBytes_GET_SIZE(payload)};
    cpk_membuf out = {0};
    if (norm_object(&r, &out) < 0 || r.p != r.end) {
        PyMem_Free(out.data);
        if (PyErr_Occurred()) {
            Py_DECREF(payload);
            return NULL;
        }
        return payload; /* unexpected: leave it as marshal wrote it */
    }
    PyObject *compact = PyBytes_FromStringAndSize(out.data,
                                                  (Py_ssize_t)out.len);
    PyMem_Free(out.data);
    Py_DECREF(payload);
    return compact;
}

/* marshal's version 2 bytes of one object, made compact by norm_object,
 * appended to `out`: codewrite.c's way for the constants it does not
 * write itself. 1; 0 without an error if marshal refuses the object or
 * writes what norm_object does not expect (the caller then takes the
 * old path, which decides); -1 with an error. */
int
cpk_marshal_compact_into(PyObject *obj, cpk_membuf *out)
{
    PyObject *raw = PyMarshal_WriteObjectToString(obj, CPK_MARSHAL_VERSION);
    if (raw == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_ValueError))
            return -1;
        PyErr_Clear();
        return 0;
    }
    cpk_reader r = {(const unsigned char *)PyBytes_AS_STRING(raw),
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

/* A tuple of names as our private copies (cpk_name), new reference. */
static PyObject *
names_tuple(cpk_state *st, PyObject *names)
{
    if (!PyTuple_CheckExact(names))
        return Py_NewRef(names);
    Py_ssize_t n = PyTuple_GET_SIZE(names);
    PyObject *t = PyTuple_New(n);
    for (Py_ssize_t i = 0; t != NULL && i < n; i++) {
        PyObject *name = cpk_name(st, PyTuple_GET_ITEM(names, i));
        if (name == NULL)
            Py_CLEAR(t);
        else
            PyTuple_SET_ITEM(t, i, name);
    }
    return t;
}

/* (co_argcount, ..., co_cellvars), the arguments of types.CodeType. The
 * names (co_name, co_qualname, co_filename and the tuples of names) are our
 * private copies (cpk_name): the code constructor interns some of them
 * where the pickle is loaded, so sharing them with equal strings elsewhere
 * in the pickle would make the next pickle of the loaded code differ.
 * New reference. */
static PyObject *
code_args(cpk_state *st, PyObject *code)
{
    Py_ssize_t n = 0;
    while (cpk_py_code_fields[n] != NULL)
        n++;
    PyObject *args = PyTuple_New(n);
    if (args == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PyObject_GetAttrString(code, cpk_py_code_fields[i]);
        if (v == NULL) {
            Py_DECREF(args);
            return NULL;
        }
        const char *f = cpk_py_code_fields[i];
        if (strcmp(f, "co_name") == 0 || strcmp(f, "co_qualname") == 0 ||
            strcmp(f, "co_filename") == 0)
            Py_SETREF(v, cpk_name(st, v));
        else if (strcmp(f, "co_names") == 0 ||
                 strcmp(f, "co_varnames") == 0 ||
                 strcmp(f, "co_freevars") == 0 ||
                 strcmp(f, "co_cellvars") == 0)
            Py_SETREF(v, names_tuple(st, v));
        if (v == NULL) {
            Py_DECREF(args);
            return NULL;
        }
        PyTuple_SET_ITEM(args, i, v);
    }
    return args;
}

PyObject *
cpk_reduce_code(cpk_state *st, PyObject *code, int format)
{
    /* Both formats read co_code (marshal, or the constructor's fields). */
    if (!cpk_code_check_pickle(st, code))
        return NULL;
    if (format != CPK_FORMAT_NATIVE) {
        PyObject *args = code_args(st, code);
        if (args == NULL)
            return NULL;
        PyObject *r = PyTuple_Pack(2, (PyObject *)&PyCode_Type, args);
        Py_DECREF(args);
        return r;
    }

    /* Code is immutable: its reduce tuple is computed once and kept on it
     * (co_extra), so a function pickled again costs no marshal. */
    PyObject *r = cpk_code_cache_get(code, st->code_reduce_index);
    if (r != NULL || PyErr_Occurred())
        return r;
    PyObject *args = NULL, *func = st->code_unmarshal;
    /* Straight to the compact bytes (codewrite.c); marshal and then
     * payload_normalize for what that does not take. */
    PyObject *payload = cpk_code_compact(code);
    if (payload == NULL) {
        if (PyErr_Occurred())
            return NULL;
        payload = PyMarshal_WriteObjectToString(code, CPK_MARSHAL_VERSION);
        if (payload != NULL)
            payload = payload_normalize(payload);
        else if (PyErr_ExceptionMatches(PyExc_ValueError)) {
            /* Constants marshal cannot write: ship the fields instead. */
            PyErr_Clear();
            payload = code_args(st, code);
            func = st->code_new;
        }
        if (payload == NULL)
            return NULL;
    }
    args = PyTuple_Pack(3, st->version_str, st->magic_int, payload);
    Py_DECREF(payload);
    if (args == NULL)
        return NULL;
    r = PyTuple_Pack(2, func, args);
    Py_DECREF(args);
    if (r == NULL)
        return NULL;
    /* Allocating may have run the GC, finalizers and so other threads:
     * one of them may have cached the code first. Every pickle of this
     * code gets the same tuple. */
    PyObject *cached = cpk_code_cache_get(code, st->code_reduce_index);
    if (cached != NULL || PyErr_Occurred()) {
        Py_DECREF(r);
        return cached;
    }
    if (cpk_code_cache_set(code, st->code_reduce_index, r) < 0)
        Py_CLEAR(r);
    return r;
}

/* Refuse a code object made by another bytecode version, naming both. */
static int
check_version(cpk_state *st, PyObject *version, PyObject *magic)
{
    /* st->magic_int, not PyImport_GetMagicNumber(), which reads
     * importlib's MAGIC_NUMBER anew on every call. */
    long ours = PyLong_AsLong(st->magic_int);
    int overflow;
    long theirs = PyLong_AsLongAndOverflow(magic, &overflow);
    if (theirs == -1 && PyErr_Occurred())
        return -1;
    if (overflow)
        theirs = -1; /* no bytecode has it: "another version" below */
    if (theirs == ours)
        return 0;
    PyObject *mine = cpk_python_version();
    if (mine == NULL)
        return -1;
    /* The magic's low 16 bits are the bytecode version number. */
    if (PyUnicode_Check(version) && PyUnicode_Compare(version, mine) != 0)
        PyErr_Format(st->UnpicklingError,
                     CPK_VERSION_ERROR_PREFIX "compiled by Python %U, which "
                     "Python %U cannot run: load it with Python %U",
                     version, mine, version);
    else
        PyErr_Format(st->UnpicklingError,
                     CPK_VERSION_ERROR_PREFIX "of bytecode version %ld (Python "
                     "%S), this is Python %U with bytecode version %ld",
                     theirs & 0xFFFF, version, mine, ours & 0xFFFF);
    Py_DECREF(mine);
    return -1;
}

/* CPython 3.9-3.13's _PyCode_Validate (3.9-3.10: the constructor)
 * checks that co_varnames covers the arguments as
 * `nlocals - argcount - kwonlyargcount - ... < 0` in int: counts near
 * INT_MAX wrap around and pass, and a call of such code then copies and
 * checks arguments far past its frame. Summed in long long here, with
 * the other counts' ranges. */
/* 1 if `ok` holds for co and every code object nested in its constants,
 * 0 if it fails for one (*bad is then it, borrowed), -1 with an error.
 * `ok` returns 1, 0 or -1 likewise. */
static int
each_code(PyCodeObject *co, int (*ok)(PyCodeObject *), PyCodeObject **bad,
          int depth)
{
    if (depth > 200) {
        PyErr_SetString(PyExc_RecursionError,
                        "code objects nested too deeply");
        return -1;
    }
    int r = ok(co);
    if (r <= 0) {
        if (r == 0)
            *bad = co;
        return r;
    }
    PyObject *consts = co->co_consts;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(consts); k++) {
        PyObject *c = PyTuple_GET_ITEM(consts, k);
        if (PyCode_Check(c)) {
            r = each_code((PyCodeObject *)c, ok, bad, depth + 1);
            if (r <= 0)
                return r;
        }
    }
    return 1;
}

int
cpk_code_check_pickle(cpk_state *st, PyObject *code)
{
    if (!cpk_py_code_may_end_in_caches())
        return 1;
    PyCodeObject *bad = NULL;
    int r = each_code((PyCodeObject *)code, cpk_py_code_ends_on_boundary,
                      &bad, 0);
    if (r == 0)
        PyErr_Format(st->PicklingError,
                     "cannot pickle code %R: its bytecode ends inside the "
                     "inline caches of its last instruction (corrupt "
                     "code)", bad->co_name);
    return r > 0 ? 1 : 0;
}

/* 1 if co's argument counts are covered by its local variables, else 0.
 * CPython's own check sums the counts in an int, so counts near INT_MAX
 * pass it and a call reads past the frame; nested code is called too (a
 * function made at run time from it), hence each_code. */
static int
counts_cover_args(PyCodeObject *co)
{
    long long args = (long long)co->co_argcount + co->co_kwonlyargcount +
                     ((co->co_flags & CO_VARARGS) != 0) +
                     ((co->co_flags & CO_VARKEYWORDS) != 0);
    return co->co_argcount >= 0 && co->co_posonlyargcount >= 0 &&
           co->co_kwonlyargcount >= 0 &&
           co->co_posonlyargcount <= co->co_argcount &&
           co->co_nlocals >= 0 && args <= co->co_nlocals;
}

int
cpk_code_check(cpk_state *st, const char *fname, PyObject *code)
{
    PyCodeObject *co = (PyCodeObject *)code;
    if (cpk_py_code_may_end_in_caches()) {
        PyCodeObject *bad = NULL;
        int complete = each_code(co, cpk_py_code_ends_on_boundary, &bad, 0);
        if (complete < 0)
            return 0;
        if (complete == 0)
            return cpk_arg_error(st, 1, fname,
                                 "code %R ends inside the inline caches of "
                                 "its last instruction: corrupt code",
                                 bad->co_name);
    }
    PyCodeObject *bad_counts = NULL;
    int r = each_code(co, counts_cover_args, &bad_counts, 0);
    if (r < 0)
        return 0;
    if (r > 0)
        return 1;
    return cpk_arg_error(st, 1, fname,
                         "code %R has argument counts its variables do not "
                         "cover (argcount %d, posonlyargcount %d, "
                         "kwonlyargcount %d, nlocals %d): corrupt code",
                         bad_counts->co_name, bad_counts->co_argcount,
                         bad_counts->co_posonlyargcount,
                         bad_counts->co_kwonlyargcount,
                         bad_counts->co_nlocals);
}

static const cpk_signature unmarshal_sig = {
    "_code_unmarshal", -1,
    {{"python_version", CPK_ARG_STR}, {"magic", CPK_ARG_INT},
     {"data", CPK_ARG_BYTES}}};

/* Code read from the same marshal bytes is the same code, and code is
 * immutable: one object serves every load of it, as one def statement's
 * code serves every closure it makes. Engines load the same task function
 * once per task, so _code_unmarshal keeps what it read, keyed by the exact
 * bytes (a bytes subclass could redefine equality): entries of at most
 * CPK_CODE_CACHE_ENTRY bytes, CPK_CODE_CACHE_TOTAL in all, emptied when
 * full. Only code that passed every check is kept. */
#define CPK_CODE_CACHE_TOTAL (4 * 1024 * 1024)

/* The cached code for `data` (new reference), NULL if none (no error
 * set), or NULL with an error (-1 in *err). */
static PyObject *
code_cache_get(cpk_state *st, PyObject *data, int *err)
{
    *err = 0;
    if (st->code_cache == NULL || !PyBytes_CheckExact(data) ||
        PyBytes_GET_SIZE(data) > CPK_CODE_CACHE_ENTRY)
        return NULL;
    PyObject *code = NULL;
    if (cpk_dict_get_ref(st->code_cache, data, &code) < 0)
        *err = -1;
    return code;
}

/* Keep `code` for `data`: 0, also when it could not be kept for an
 * ordinary error, or -1 with an error that must propagate (MemoryError). */
static int
code_cache_put(cpk_state *st, PyObject *data, PyObject *code)
{
    Py_ssize_t n = PyBytes_GET_SIZE(data);
    if (!PyBytes_CheckExact(data) || n > CPK_CODE_CACHE_ENTRY)
        return 0;
    if (st->code_cache == NULL || st->code_cache_bytes + n >
                                      CPK_CODE_CACHE_TOTAL) {
        /* Emptied when full: the code objects go with their keys (their
         * own size is about their marshal size, a few times over). */
        Py_XSETREF(st->code_cache, PyDict_New());
        st->code_cache_bytes = 0;
    }
    if (st->code_cache != NULL &&
        PyDict_SetItem(st->code_cache, data, code) == 0) {
        st->code_cache_bytes += n;
        return 0;
    }
    if (!cpk_error_clearable())
        return -1;
    PyErr_Clear();
    return 0;
}

/* _code_unmarshal(python_version, magic, data) -> code */
PyObject *
cpk_code_unmarshal(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &unmarshal_sig, args, nargs) ||
        check_version(st, args[0], args[1]) < 0)
        return NULL;
    int err;
    PyObject *code = code_cache_get(st, args[2], &err);
    if (code != NULL || err)
        return code;
    code = PyMarshal_ReadObjectFromString(
        PyBytes_AS_STRING(args[2]), PyBytes_GET_SIZE(args[2]));
    if (code == NULL) {
        if (PyErr_ExceptionMatches(PyExc_EOFError) ||
            PyErr_ExceptionMatches(PyExc_ValueError) ||
            PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_SetString(st->UnpicklingError,
                            "corrupt code object in pickle");
        }
        return NULL;
    }
    if (!PyCode_Check(code)) {
        Py_DECREF(code);
        PyErr_SetString(st->UnpicklingError,
                        "corrupt code object in pickle: not code");
        return NULL;
    }
    if (!cpk_code_check(st, "_code_unmarshal", code) ||
        code_cache_put(st, args[2], code) < 0)
        Py_CLEAR(code);
    return code;
}

static const cpk_signature code_new_sig = {
    "_code_new", -1,
    {{"python_version", CPK_ARG_STR}, {"magic", CPK_ARG_INT},
     {"fields", CPK_ARG_TUPLE}}};

/* _code_new(python_version, magic, fields) -> types.CodeType(*fields) */
PyObject *
cpk_code_new(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &code_new_sig, args, nargs) ||
        check_version(st, args[0], args[1]) < 0)
        return NULL;
    PyObject *code = PyObject_Call((PyObject *)&PyCode_Type, args[2], NULL);
    if (code != NULL && PyCode_Check(code) &&
        !cpk_code_check(st, "_code_new", code))
        Py_CLEAR(code);
    return code;
}
