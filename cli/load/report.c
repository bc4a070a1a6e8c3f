/* report.c - the inspection report of cloudpickle-load (report.h).
 *
 * The object came out of a pickle: every attribute read from it is
 * untrusted. A lookup can run code, raise anything, or return any type, and
 * repr() can raise or return megabytes. So: names and bases come from the
 * C-level type fields where they exist; every attribute is type-checked;
 * an exception that `except Exception` would catch means "not shown"; text
 * is cut to length and its control characters escaped, so a pickle cannot
 * add rows or send escape sequences to the terminal. Only what must not be
 * swallowed (KeyboardInterrupt, SystemExit, MemoryError) fails the report.
 */
#include "load/report.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/pyerr.h" /* cpk_error_clear_if_clearable */
#include "common/pickle_ops.h" /* CPK_OP_PROTO */
#include "common/pycompat.h" /* cpk_py_unicode_ready */

#define VALUE_MAX 200  /* characters of a repr shown */
#define PAIR_MAX 60    /* ... in a closure or globals entry */
#define NAME_MAX_ 200  /* ... of a name */
#define CODE_DEPTH 32  /* nested code objects searched for global names */

/* Attribute `name` of o into *v (new reference), or *v = NULL when it is
 * missing or its lookup raised an Exception. Returns 0, or -1 with an
 * exception that must propagate. */
static int
attr(PyObject *o, const char *name, PyObject **v)
{
    *v = PyObject_GetAttrString(o, name);
    if (*v == NULL)
        return cpk_error_clear_if_clearable();
    return 0;
}

/* Like attr, keeping only a str. */
static int
str_attr(PyObject *o, const char *name, PyObject **v)
{
    if (attr(o, name, v) < 0)
        return -1;
    if (*v != NULL && !PyUnicode_Check(*v))
        Py_CLEAR(*v);
    return 0;
}

/* s (a str) cut to max characters, "..." marking the cut. New
 * reference. */
static PyObject *
cut(PyObject *s, Py_ssize_t max)
{
    if (cpk_py_unicode_ready(s) < 0) /* as in row() */
        return NULL;
    if (PyUnicode_GET_LENGTH(s) <= max) {
        Py_INCREF(s);
        return s;
    }
    PyObject *head = PyUnicode_Substring(s, 0, max - 3);
    if (head == NULL)
        return NULL;
    PyObject *r = PyUnicode_FromFormat("%U...", head);
    Py_DECREF(head);
    return r;
}

/* How many items of a big builtin container, and characters or bytes
 * of a big str, bytes or bytearray, go into its repr: the report shows
 * VALUE_MAX characters, and repr() of the whole of a large data pickle
 * (a dict of millions of ints) would take seconds and a string of tens
 * of megabytes. */
#define REPR_ITEMS 32
#define REPR_CHARS (4 * VALUE_MAX)

/* A copy of the first REPR_ITEMS items of o, an exact builtin list,
 * tuple, dict, set or frozenset of more items, or of the first
 * REPR_CHARS of an exact str, bytes or bytearray longer than that (new
 * reference); NULL with *same = 1 for anything else; NULL with an
 * exception set on failure. */
static PyObject *
repr_head(PyObject *o, int *same)
{
    *same = 0;
    if (PyList_CheckExact(o) && PyList_GET_SIZE(o) > REPR_ITEMS)
        return PyList_GetSlice(o, 0, REPR_ITEMS);
    if (PyTuple_CheckExact(o) && PyTuple_GET_SIZE(o) > REPR_ITEMS)
        return PyTuple_GetSlice(o, 0, REPR_ITEMS);
    if (PyUnicode_CheckExact(o) && PyUnicode_GET_LENGTH(o) > REPR_CHARS)
        return PyUnicode_Substring(o, 0, REPR_CHARS);
    if (PyBytes_CheckExact(o) && PyBytes_GET_SIZE(o) > REPR_CHARS)
        return PyBytes_FromStringAndSize(PyBytes_AS_STRING(o), REPR_CHARS);
    if (PyByteArray_CheckExact(o) && PyByteArray_GET_SIZE(o) > REPR_CHARS)
        return PyByteArray_FromStringAndSize(PyByteArray_AS_STRING(o),
                                             REPR_CHARS);
    if (PyDict_CheckExact(o) && PyDict_GET_SIZE(o) > REPR_ITEMS) {
        PyObject *head = PyDict_New();
        PyObject *k, *v;
        Py_ssize_t pos = 0;
        /* references of our own: hashing a key may run code that
         * changes o (PyDict_Next stays in bounds) */
        while (head != NULL && PyDict_GET_SIZE(head) < REPR_ITEMS &&
               PyDict_Next(o, &pos, &k, &v)) {
            Py_INCREF(k);
            Py_INCREF(v);
            int rc = PyDict_SetItem(head, k, v);
            Py_DECREF(k);
            Py_DECREF(v);
            if (rc < 0)
                Py_CLEAR(head);
        }
        return head;
    }
    if (PyAnySet_CheckExact(o) && PySet_GET_SIZE(o) > REPR_ITEMS) {
        PyObject *items = PyList_New(0);
        PyObject *it = items ? PyObject_GetIter(o) : NULL;
        PyObject *x = NULL;
        while (it != NULL && PyList_GET_SIZE(items) < REPR_ITEMS &&
               (x = PyIter_Next(it)) != NULL) {
            int rc = PyList_Append(items, x);
            Py_DECREF(x);
            if (rc < 0)
                break;
        }
        PyObject *head = it != NULL && !PyErr_Occurred()
                             ? (PyFrozenSet_CheckExact(o)
                                    ? PyFrozenSet_New(items)
                                    : PySet_New(items))
                             : NULL;
        Py_XDECREF(it);
        Py_XDECREF(items);
        return head;
    }
    *same = 1;
    return NULL;
}

/* repr(o), of its head only when it is big (repr_head): "..." before
 * the closing bracket or quote marks what was left out. New reference,
 * or NULL with an exception set. */
static PyObject *
repr_bounded(PyObject *o)
{
    int same;
    PyObject *head = repr_head(o, &same);
    if (same)
        return PyObject_Repr(o);
    if (head == NULL)
        return NULL;
    PyObject *s = PyObject_Repr(head);
    Py_DECREF(head);
    if (s == NULL)
        return NULL;
    int text = PyUnicode_CheckExact(o) || PyBytes_CheckExact(o) ||
               PyByteArray_CheckExact(o);
    Py_ssize_t tail = PyFrozenSet_CheckExact(o) || PyByteArray_CheckExact(o)
                          ? 2 : 1;
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    PyObject *a = n >= tail ? PyUnicode_Substring(s, 0, n - tail) : NULL;
    PyObject *b = a ? PyUnicode_Substring(s, n - tail, n) : NULL;
    PyObject *r = b ? PyUnicode_FromFormat("%U%s%U", a, text ? "..." : ", ...",
                                           b)
                    : NULL;
    Py_XDECREF(a);
    Py_XDECREF(b);
    Py_DECREF(s);
    return r;
}

/* str(o) or repr(o) cut to max characters (new reference); a call that
 * raises an Exception shows as <unprintable TYPE>. NULL only with an
 * exception that must propagate. */
static PyObject *
text(PyObject *o, int use_repr, Py_ssize_t max)
{
    PyObject *s = use_repr ? repr_bounded(o) : PyObject_Str(o);
    if (s == NULL) {
        if (cpk_error_clear_if_clearable() < 0)
            return NULL;
        return PyUnicode_FromFormat("<unprintable %s>", Py_TYPE(o)->tp_name);
    }
    PyObject *r = cut(s, max);
    Py_DECREF(s);
    return r;
}

/* The qualified name of a type, from its C fields: no code runs. New
 * reference. */
static PyObject *
type_qualname(PyTypeObject *t)
{
    if ((t->tp_flags & Py_TPFLAGS_HEAPTYPE) &&
        ((PyHeapTypeObject *)t)->ht_qualname != NULL &&
        PyUnicode_Check(((PyHeapTypeObject *)t)->ht_qualname))
        return cut(((PyHeapTypeObject *)t)->ht_qualname, NAME_MAX_);
    /* Static types: tp_name is "module.Name" or "Name" (what
     * type.__qualname__ shows). */
    const char *dot = strrchr(t->tp_name, '.');
    return PyUnicode_FromString(dot ? dot + 1 : t->tp_name);
}

/* Append c to buf as UTF-8. */
static size_t
put_utf8(char *buf, Py_UCS4 c)
{
    if (c < 0x80) {
        buf[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        buf[0] = (char)(0xc0 | (c >> 6));
        buf[1] = (char)(0x80 | (c & 0x3f));
        return 2;
    }
    if (c < 0x10000) {
        buf[0] = (char)(0xe0 | (c >> 12));
        buf[1] = (char)(0x80 | ((c >> 6) & 0x3f));
        buf[2] = (char)(0x80 | (c & 0x3f));
        return 3;
    }
    buf[0] = (char)(0xf0 | (c >> 18));
    buf[1] = (char)(0x80 | ((c >> 12) & 0x3f));
    buf[2] = (char)(0x80 | ((c >> 6) & 0x3f));
    buf[3] = (char)(0x80 | (c & 0x3f));
    return 4;
}

/* Characters a terminal acts on rather than shows: C0 and C1 controls,
 * DEL, the bidirectional overrides (CVE-2021-42574); lone surrogates
 * cannot be written as UTF-8. */
static int
must_escape(Py_UCS4 c)
{
    return c < 0x20 || (c >= 0x7f && c < 0xa0) ||
           (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) ||
           (c >= 0xd800 && c <= 0xdfff);
}

/* `key value` and a newline; value a str, printed as UTF-8 with the
 * characters of must_escape as \xNN / \uNNNN. */
static int
row(FILE *out, const char *key, PyObject *value)
{
    if (cpk_py_unicode_ready(value) < 0)
        return -1;
    Py_ssize_t n = PyUnicode_GET_LENGTH(value);
    char *buf = PyMem_Malloc((size_t)n * 6 + 1);
    if (buf == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    size_t len = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ_CHAR(value, i);
        if (!must_escape(c))
            len += put_utf8(buf + len, c);
        else
            len += (size_t)snprintf(buf + len, 7, c < 0x100 ? "\\x%02x"
                                                            : "\\u%04x",
                                    (unsigned int)c);
    }
    buf[len] = '\0';
    fprintf(out, "%-10s %s\n", key, buf);
    PyMem_Free(buf);
    return 0;
}

/* row() of a C string. */
static int
row_c(FILE *out, const char *key, const char *value)
{
    PyObject *s = PyUnicode_DecodeUTF8(value, (Py_ssize_t)strlen(value),
                                       "replace");
    if (s == NULL)
        return -1;
    int r = row(out, key, s);
    Py_DECREF(s);
    return r;
}

/* row() of text(o). */
static int
row_text(FILE *out, const char *key, PyObject *o, int use_repr)
{
    PyObject *s = text(o, use_repr, VALUE_MAX);
    if (s == NULL)
        return -1;
    int r = row(out, key, s);
    Py_DECREF(s);
    return r;
}

/* "object  KIND NAME"; name may be NULL (a name that is no str). */
static int
kind_row(FILE *out, const char *kind, PyObject *name)
{
    PyObject *shown = name ? cut(name, NAME_MAX_) : NULL;
    if (name != NULL && shown == NULL)
        return -1;
    PyObject *line = shown ? PyUnicode_FromFormat("%s %U", kind, shown)
                           : PyUnicode_FromFormat("%s <unnamed>", kind);
    Py_XDECREF(shown);
    if (line == NULL)
        return -1;
    int r = row(out, "object", line);
    Py_DECREF(line);
    return r;
}

/* "module  NAME" from o.__module__: a str as is, None not shown,
 * anything else as <not a str: repr>. */
static int
module_row(FILE *out, PyObject *o)
{
    PyObject *m;
    if (attr(o, "__module__", &m) < 0)
        return -1;
    int r = 0;
    if (m != NULL && PyUnicode_Check(m)) {
        PyObject *s = cut(m, NAME_MAX_);
        r = s ? row(out, "module", s) : -1;
        Py_XDECREF(s);
    }
    else if (m != NULL && m != Py_None) {
        PyObject *s = text(m, 1, PAIR_MAX);
        PyObject *line = s ? PyUnicode_FromFormat("<not a str: %U>", s) : NULL;
        r = line ? row(out, "module", line) : -1;
        Py_XDECREF(s);
        Py_XDECREF(line);
    }
    Py_XDECREF(m);
    return r;
}

static int
doc_row(FILE *out, PyObject *obj)
{
    PyObject *doc;
    if (attr(obj, "__doc__", &doc) < 0)
        return -1;
    int r = 0;
    if (doc != NULL && PyUnicode_Check(doc)) {
        /* The first non-blank line. */
        PyObject *lines = PyUnicode_Splitlines(doc, 0);
        if (lines == NULL) {
            Py_DECREF(doc);
            return -1;
        }
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(lines); i++) {
            PyObject *l = PyObject_CallMethod(PyList_GET_ITEM(lines, i),
                                              "strip", NULL);
            if (l == NULL) {
                r = -1;
                break;
            }
            if (PyUnicode_GET_LENGTH(l) > 0) {
                r = row_text(out, "doc", l, 0);
                Py_DECREF(l);
                break;
            }
            Py_DECREF(l);
        }
        Py_DECREF(lines);
    }
    Py_XDECREF(doc);
    return r;
}

/* "signature  NAME(PARAMS)"; nothing when inspect.signature fails (a
 * builtin without a text signature, or an object that raises). */
static int
signature_row(FILE *out, PyObject *obj, PyObject *name)
{
    PyObject *inspect = PyImport_ImportModule("inspect");
    if (inspect == NULL)
        return -1;
    PyObject *sig = PyObject_CallMethod(inspect, "signature", "(O)", obj);
    Py_DECREF(inspect);
    if (sig == NULL)
        return cpk_error_clear_if_clearable();
    PyObject *s = text(sig, 0, VALUE_MAX);
    Py_DECREF(sig);
    if (s == NULL)
        return -1;
    PyObject *shown = name ? cut(name, NAME_MAX_) : NULL;
    PyObject *line = shown ? PyUnicode_FromFormat("%U%U", shown, s) : NULL;
    int r = name == NULL ? row(out, "signature", s)
            : line != NULL ? row(out, "signature", line)
                           : -1;
    Py_XDECREF(shown);
    Py_XDECREF(line);
    Py_DECREF(s);
    return r;
}

/* "name = repr, ..." for a list of (str, value) pairs, or "none". */
static int
pairs_row(FILE *out, const char *key, PyObject *pairs)
{
    if (PyList_GET_SIZE(pairs) == 0)
        return row_c(out, key, "none");
    PyObject *parts = PyList_New(0);
    if (parts == NULL)
        return -1;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(pairs); i++) {
        PyObject *pair = PyList_GET_ITEM(pairs, i); /* ours: a tuple */
        PyObject *name = PyTuple_GET_ITEM(pair, 0);
        PyObject *v = PyTuple_GET_ITEM(pair, 1);
        PyObject *part = NULL;
        if (PyModule_Check(v)) {
            PyObject *mname = PyModule_GetNameObject(v);
            if (mname == NULL && cpk_error_clear_if_clearable() < 0)
                goto error;
            PyObject *shown = mname ? cut(mname, PAIR_MAX) : NULL;
            Py_XDECREF(mname);
            if (mname != NULL && shown == NULL)
                goto error;
            part = shown ? PyUnicode_FromFormat("%U (module %U)", name, shown)
                         : PyUnicode_FromFormat("%U (module)", name);
            Py_XDECREF(shown);
        }
        else {
            PyObject *s = text(v, 1, PAIR_MAX);
            part = s ? PyUnicode_FromFormat("%U = %U", name, s) : NULL;
            Py_XDECREF(s);
        }
        if (part == NULL || PyList_Append(parts, part) < 0) {
            Py_XDECREF(part);
            goto error;
        }
        Py_DECREF(part);
    }
    PyObject *sep = PyUnicode_FromString(", ");
    PyObject *joined = sep ? PyUnicode_Join(sep, parts) : NULL;
    Py_XDECREF(sep);
    Py_DECREF(parts);
    if (joined == NULL)
        return -1;
    int r = row(out, key, joined);
    Py_DECREF(joined);
    return r;
error:
    Py_DECREF(parts);
    return -1;
}

/* Every name the code (and code nested in it, to a bounded depth)
 * mentions. */
static int
code_names(PyObject *code, PyObject *names, int depth)
{
    if (depth > CODE_DEPTH)
        return 0;
    PyObject *co_names, *consts;
    if (attr(code, "co_names", &co_names) < 0)
        return -1;
    if (attr(code, "co_consts", &consts) < 0) {
        Py_XDECREF(co_names);
        return -1;
    }
    int r = 0;
    if (co_names != NULL && PyTuple_Check(co_names))
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(co_names) && r == 0; i++)
            if (PyUnicode_CheckExact(PyTuple_GET_ITEM(co_names, i)))
                r = PySet_Add(names, PyTuple_GET_ITEM(co_names, i));
    if (consts != NULL && PyTuple_Check(consts))
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(consts) && r == 0; i++)
            if (PyCode_Check(PyTuple_GET_ITEM(consts, i)))
                r = code_names(PyTuple_GET_ITEM(consts, i), names, depth + 1);
    Py_XDECREF(co_names);
    Py_XDECREF(consts);
    return r;
}

/* "source  FILE, line N", and whether FILE is on this machine. */
static int
source_row(FILE *out, PyCodeObject *co)
{
    PyObject *file = co->co_filename;
    if (file == NULL || !PyUnicode_Check(file))
        return 0;
    PyObject *loc = PyUnicode_FromFormat("%U, line %d", file,
                                         co->co_firstlineno);
    if (loc == NULL)
        return -1;
    PyObject *path = PyUnicode_EncodeFSDefault(file);
    if (path == NULL && cpk_error_clear_if_clearable() < 0) {
        Py_DECREF(loc);
        return -1;
    }
    if (path != NULL && PyBytes_AS_STRING(path)[0] != '<' &&
        strlen(PyBytes_AS_STRING(path)) == (size_t)PyBytes_GET_SIZE(path) &&
        access(PyBytes_AS_STRING(path), R_OK) != 0)
        Py_SETREF(loc, PyUnicode_FromFormat("%U (not on this machine)", loc));
    Py_XDECREF(path);
    if (loc == NULL)
        return -1;
    PyObject *s = cut(loc, VALUE_MAX);
    Py_DECREF(loc);
    int r = s ? row(out, "source", s) : -1;
    Py_XDECREF(s);
    return r;
}

static int
closure_row(FILE *out, PyObject *func, PyObject *code)
{
    PyObject *pairs = PyList_New(0);
    if (pairs == NULL)
        return -1;
    PyObject *closure = PyFunction_GET_CLOSURE(func); /* borrowed */
    PyObject *freevars;
    if (attr(code, "co_freevars", &freevars) < 0) {
        Py_DECREF(pairs);
        return -1;
    }
    int r = 0;
    if (closure != NULL && PyTuple_Check(closure) && freevars != NULL &&
        PyTuple_Check(freevars)) {
        Py_INCREF(closure);
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(closure) &&
                               i < PyTuple_GET_SIZE(freevars);
             i++) {
            PyObject *cell = PyTuple_GET_ITEM(closure, i);
            PyObject *name = PyTuple_GET_ITEM(freevars, i);
            if (!PyCell_Check(cell) || !PyUnicode_Check(name))
                continue;
            PyObject *v = PyCell_GET(cell);
            PyObject *pair = PyTuple_Pack(2, name, v ? v : Py_None);
            if (pair == NULL || PyList_Append(pairs, pair) < 0) {
                Py_XDECREF(pair);
                r = -1;
                break;
            }
            Py_DECREF(pair);
        }
        Py_DECREF(closure);
    }
    Py_XDECREF(freevars);
    if (r == 0)
        r = pairs_row(out, "closure", pairs);
    Py_DECREF(pairs);
    return r;
}

/* Globals the code refers to that came with it (not builtins). */
static int
globals_row(FILE *out, PyObject *func, PyObject *code)
{
    PyObject *globals = PyFunction_GET_GLOBALS(func); /* borrowed */
    if (globals == NULL || !PyDict_Check(globals))
        return 0;
    PyObject *names = PySet_New(NULL);
    PyObject *pairs = PyList_New(0);
    PyObject *sorted = NULL;
    int r = -1;
    Py_INCREF(globals);
    if (names == NULL || pairs == NULL ||
        code_names(code, names, 0) < 0)
        goto done;
    sorted = PySequence_List(names);
    if (sorted == NULL || PyList_Sort(sorted) < 0) /* exact strs */
        goto done;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(sorted); i++) {
        PyObject *k = PyList_GET_ITEM(sorted, i);
        /* A key of the globals with a hostile __eq__ can run here. */
        PyObject *v = PyDict_GetItemWithError(globals, k);
        if (v == NULL) {
            if (PyErr_Occurred() && cpk_error_clear_if_clearable() < 0)
                goto done;
            continue;
        }
        PyObject *pair = PyTuple_Pack(2, k, v);
        if (pair == NULL || PyList_Append(pairs, pair) < 0) {
            Py_XDECREF(pair);
            goto done;
        }
        Py_DECREF(pair);
    }
    r = pairs_row(out, "globals", pairs);
done:
    Py_XDECREF(sorted);
    Py_XDECREF(names);
    Py_XDECREF(pairs);
    Py_DECREF(globals);
    return r;
}

static int
function_rows(FILE *out, PyObject *func)
{
    PyObject *code = PyFunction_GET_CODE(func); /* always a code object */
    Py_INCREF(code);
    int r = source_row(out, (PyCodeObject *)code);
    if (r == 0)
        r = closure_row(out, func, code);
    if (r == 0)
        r = globals_row(out, func, code);
    Py_DECREF(code);
    return r;
}

/* "bases  A, B" from the type's C field (its __bases__ attribute may be
 * anything: a metaclass can override it). */
static int
bases_row(FILE *out, PyTypeObject *type)
{
    PyObject *bases = type->tp_bases;
    if (bases == NULL || !PyTuple_Check(bases))
        return 0;
    Py_INCREF(bases);
    PyObject *names = PyList_New(0);
    int r = -1;
    for (Py_ssize_t i = 0; names != NULL && i < PyTuple_GET_SIZE(bases); i++) {
        PyObject *b = PyTuple_GET_ITEM(bases, i);
        PyObject *q = PyType_Check(b) ? type_qualname((PyTypeObject *)b)
                                      : PyUnicode_FromString("?");
        if (q == NULL || PyList_Append(names, q) < 0)
            Py_CLEAR(names);
        Py_XDECREF(q);
    }
    if (names != NULL) {
        PyObject *sep = PyUnicode_FromString(", ");
        PyObject *joined = sep ? PyUnicode_Join(sep, names) : NULL;
        PyObject *shown = joined ? cut(joined, VALUE_MAX) : NULL;
        r = shown ? row(out, "bases", shown) : -1;
        Py_XDECREF(sep);
        Py_XDECREF(joined);
        Py_XDECREF(shown);
        Py_DECREF(names);
    }
    Py_DECREF(bases);
    return r;
}

/* "instance of MODULE.TYPE" (no module for builtins). */
static int
instance_row(FILE *out, PyTypeObject *type)
{
    PyObject *tq = type_qualname(type);
    if (tq == NULL)
        return -1;
    PyObject *tm;
    if (str_attr((PyObject *)type, "__module__", &tm) < 0) {
        Py_DECREF(tq);
        return -1;
    }
    PyObject *tname = tq;
    Py_INCREF(tname);
    if (tm != NULL && PyUnicode_CompareWithASCIIString(tm, "builtins") != 0) {
        PyObject *m = cut(tm, NAME_MAX_);
        Py_SETREF(tname, m ? PyUnicode_FromFormat("%U.%U", m, tq) : NULL);
        Py_XDECREF(m);
    }
    int r = tname ? kind_row(out, "instance of", tname) : -1;
    Py_XDECREF(tname);
    Py_DECREF(tq);
    Py_XDECREF(tm);
    return r;
}

int
cpk_report(FILE *out, PyObject *obj, const char *data, size_t len)
{
    PyObject *qualname = NULL, *name = NULL;
    int r = -1;
    Py_INCREF(obj);

    if (PyType_Check(obj)) {
        PyTypeObject *type = (PyTypeObject *)obj;
        PyObject *q = type_qualname(type);
        PyObject *n = (type->tp_flags & Py_TPFLAGS_HEAPTYPE)
                          ? ((PyHeapTypeObject *)type)->ht_name
                          : NULL;
        if (q == NULL)
            goto done;
        if (n != NULL && PyUnicode_Check(n))
            Py_INCREF(n);
        else
            n = type_qualname(type);
        if (n == NULL) {
            Py_DECREF(q);
            goto done;
        }
        r = kind_row(out, "class", q);
        Py_DECREF(q);
        if (r == 0)
            r = module_row(out, obj);
        if (r == 0)
            r = bases_row(out, type);
        if (r == 0)
            r = signature_row(out, obj, n);
        if (r == 0)
            r = doc_row(out, obj);
        Py_DECREF(n);
        goto done;
    }
    if (str_attr(obj, "__qualname__", &qualname) < 0 ||
        str_attr(obj, "__name__", &name) < 0)
        goto done;

    PyObject *target = PyMethod_Check(obj) ? PyMethod_GET_FUNCTION(obj) : obj;
    int is_function = PyFunction_Check(target);
    if (is_function || PyCFunction_Check(obj) || PyMethod_Check(obj)) {
        const char *kind = PyMethod_Check(obj)      ? "method"
                           : PyCFunction_Check(obj) ? "builtin function"
                                                    : "function";
        r = kind_row(out, kind, qualname ? qualname : name);
        if (r == 0)
            r = module_row(out, obj);
        if (r == 0)
            r = signature_row(out, obj, name ? name : qualname);
        if (r == 0)
            r = doc_row(out, obj);
        if (r == 0 && is_function)
            r = function_rows(out, target);
    }
    else if (PyModule_Check(obj)) {
        r = kind_row(out, "module", name);
        if (r == 0)
            r = doc_row(out, obj);
    }
    else {
        r = instance_row(out, Py_TYPE(obj));
        if (r == 0)
            r = row_text(out, "value", obj, 1);
        if (r == 0 && PyCallable_Check(obj))
            r = signature_row(out, obj, NULL);
    }
done:
    Py_XDECREF(qualname);
    Py_XDECREF(name);
    Py_DECREF(obj);
    if (r < 0)
        return -1;

    char line[128];
    if (len >= 2 && (unsigned char)data[0] == CPK_OP_PROTO)
        snprintf(line, sizeof(line), "%zu bytes, protocol %d", len,
                 (unsigned char)data[1]);
    else
        snprintf(line, sizeof(line), "%zu bytes, protocol 0 or 1", len);
    return row_c(out, "pickle", line);
}
