/* report.c - the inspection report of cloudpickle-load (report.h). */
#include "report.h"

#include <string.h>
#include <unistd.h>

#define VALUE_MAX 200 /* characters of a repr shown */

static void
row(FILE *out, const char *key, const char *value)
{
    fprintf(out, "%-10s %s\n", key, value);
}

/* str(o) or repr(o), cut to `max` characters, as UTF-8 in a new bytes
 * object (so the caller owns the memory); never fails: a failing repr
 * shows as <unprintable>. */
static PyObject *
text(PyObject *o, int use_repr, Py_ssize_t max)
{
    PyObject *s = use_repr ? PyObject_Repr(o) : PyObject_Str(o);
    if (s == NULL) {
        PyErr_Clear();
        return PyBytes_FromString("<unprintable>");
    }
    if (max > 0 && PyUnicode_GET_LENGTH(s) > max) {
        PyObject *cut = PyUnicode_Substring(s, 0, max - 3);
        Py_DECREF(s);
        if (cut == NULL)
            return NULL;
        s = PyUnicode_FromFormat("%U...", cut);
        Py_DECREF(cut);
        if (s == NULL)
            return NULL;
    }
    PyObject *b = PyUnicode_AsEncodedString(s, "utf-8", "backslashreplace");
    Py_DECREF(s);
    return b;
}

static int
row_obj(FILE *out, const char *key, PyObject *o, int use_repr)
{
    PyObject *b = text(o, use_repr, VALUE_MAX);
    if (b == NULL)
        return -1;
    row(out, key, PyBytes_AS_STRING(b));
    Py_DECREF(b);
    return 0;
}

/* Optional attribute: new reference, or NULL without error. */
static PyObject *
attr(PyObject *o, const char *name)
{
    PyObject *v = PyObject_GetAttrString(o, name);
    if (v == NULL)
        PyErr_Clear();
    return v;
}

static int
kind_row(FILE *out, const char *kind, PyObject *name)
{
    PyObject *line = name ? PyUnicode_FromFormat("%s %S", kind, name)
                          : PyUnicode_FromString(kind);
    if (line == NULL)
        return -1;
    int r = row_obj(out, "object", line, 0);
    Py_DECREF(line);
    return r;
}

static int
doc_row(FILE *out, PyObject *obj)
{
    PyObject *doc = attr(obj, "__doc__");
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
                r = row_obj(out, "doc", l, 0);
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

static int
signature_row(FILE *out, PyObject *obj, PyObject *name)
{
    PyObject *inspect = PyImport_ImportModule("inspect");
    if (inspect == NULL)
        return -1;
    PyObject *sig = PyObject_CallMethod(inspect, "signature", "(O)", obj);
    Py_DECREF(inspect);
    if (sig == NULL) {
        /* Builtins without text signatures: nothing to show. */
        PyErr_Clear();
        return 0;
    }
    PyObject *line = name != NULL && name != Py_None
                         ? PyUnicode_FromFormat("%S%S", name, sig)
                         : PyObject_Str(sig);
    Py_DECREF(sig);
    if (line == NULL)
        return -1;
    int r = row_obj(out, "signature", line, 0);
    Py_DECREF(line);
    return r;
}

/* "name = repr, ..." for a list of (name, value) pairs, or "none". */
static int
pairs_row(FILE *out, const char *key, PyObject *pairs)
{
    if (PyList_GET_SIZE(pairs) == 0) {
        row(out, key, "none");
        return 0;
    }
    PyObject *parts = PyList_New(0);
    if (parts == NULL)
        return -1;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(pairs); i++) {
        PyObject *pair = PyList_GET_ITEM(pairs, i);
        PyObject *name = PyTuple_GET_ITEM(pair, 0);
        PyObject *v = PyTuple_GET_ITEM(pair, 1);
        PyObject *part;
        if (PyModule_Check(v)) {
            PyObject *mname = PyModule_GetNameObject(v);
            if (mname == NULL)
                PyErr_Clear();
            part = PyUnicode_FromFormat("%U (module %S)", name,
                                        mname ? mname : Py_None);
            Py_XDECREF(mname);
        }
        else {
            PyObject *b = text(v, 1, 60);
            part = b ? PyUnicode_FromFormat("%U = %s", name,
                                            PyBytes_AS_STRING(b))
                     : NULL;
            Py_XDECREF(b);
        }
        if (part == NULL || PyList_Append(parts, part) < 0) {
            Py_XDECREF(part);
            Py_DECREF(parts);
            return -1;
        }
        Py_DECREF(part);
    }
    PyObject *sep = PyUnicode_FromString(", ");
    PyObject *joined = sep ? PyUnicode_Join(sep, parts) : NULL;
    Py_XDECREF(sep);
    Py_DECREF(parts);
    if (joined == NULL)
        return -1;
    PyObject *b = PyUnicode_AsEncodedString(joined, "utf-8",
                                            "backslashreplace");
    Py_DECREF(joined);
    if (b == NULL)
        return -1;
    row(out, key, PyBytes_AS_STRING(b));
    Py_DECREF(b);
    return 0;
}

/* Every name the code (and code nested in it) mentions. */
static int
code_names(PyObject *code, PyObject *names)
{
    PyObject *co_names = attr(code, "co_names");
    PyObject *consts = attr(code, "co_consts");
    int r = 0;
    if (co_names != NULL && PyTuple_Check(co_names))
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(co_names) && r == 0; i++)
            r = PySet_Add(names, PyTuple_GET_ITEM(co_names, i));
    if (consts != NULL && PyTuple_Check(consts))
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(consts) && r == 0; i++)
            if (PyCode_Check(PyTuple_GET_ITEM(consts, i)))
                r = code_names(PyTuple_GET_ITEM(consts, i), names);
    Py_XDECREF(co_names);
    Py_XDECREF(consts);
    return r;
}

static int
function_rows(FILE *out, PyObject *func)
{
    PyObject *code = PyFunction_GET_CODE(func);
    PyCodeObject *co = (PyCodeObject *)code;
    int r = 0;

    /* Source: where the function was defined (maybe not on this host). */
    PyObject *file = co->co_filename;
    PyObject *loc = PyUnicode_FromFormat("%U, line %d", file,
                                         co->co_firstlineno);
    if (loc == NULL)
        return -1;
    const char *path = PyUnicode_AsUTF8(file);
    if (path != NULL && path[0] != '<' && access(path, R_OK) != 0) {
        Py_SETREF(loc, PyUnicode_FromFormat("%U (not on this machine)", loc));
        if (loc == NULL)
            return -1;
    }
    PyErr_Clear();
    r = row_obj(out, "source", loc, 0);
    Py_DECREF(loc);
    if (r < 0)
        return -1;

    PyObject *pairs = PyList_New(0);
    PyObject *closure = PyFunction_GET_CLOSURE(func);
    PyObject *freevars = attr(code, "co_freevars");
    if (pairs == NULL)
        return -1;
    if (closure != NULL && freevars != NULL && PyTuple_Check(closure)) {
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(closure) &&
                               i < PyTuple_GET_SIZE(freevars);
             i++) {
            PyObject *v = PyCell_GET(PyTuple_GET_ITEM(closure, i));
            PyObject *pair = Py_BuildValue(
                "(OO)", PyTuple_GET_ITEM(freevars, i), v ? v : Py_None);
            if (pair == NULL || PyList_Append(pairs, pair) < 0) {
                Py_XDECREF(pair);
                r = -1;
                break;
            }
            Py_DECREF(pair);
        }
    }
    Py_XDECREF(freevars);
    if (r == 0)
        r = pairs_row(out, "closure", pairs);
    Py_DECREF(pairs);
    if (r < 0)
        return -1;

    /* Globals the code refers to that came with it (not builtins). */
    PyObject *names = PySet_New(NULL);
    pairs = PyList_New(0);
    if (names == NULL || pairs == NULL || code_names(code, names) < 0) {
        Py_XDECREF(names);
        Py_XDECREF(pairs);
        return -1;
    }
    PyObject *globals = PyFunction_GET_GLOBALS(func);
    PyObject *sorted = PySequence_List(names);
    if (sorted == NULL || PyList_Sort(sorted) < 0)
        r = -1;
    for (Py_ssize_t i = 0; r == 0 && i < PyList_GET_SIZE(sorted); i++) {
        PyObject *k = PyList_GET_ITEM(sorted, i);
        PyObject *v = PyDict_GetItemWithError(globals, k);
        if (v == NULL) {
            r = PyErr_Occurred() ? -1 : 0;
            continue;
        }
        PyObject *pair = PyTuple_Pack(2, k, v);
        if (pair == NULL || PyList_Append(pairs, pair) < 0)
            r = -1;
        Py_XDECREF(pair);
    }
    if (r == 0)
        r = pairs_row(out, "globals", pairs);
    Py_XDECREF(sorted);
    Py_DECREF(names);
    Py_DECREF(pairs);
    return r;
}

int
cpk_report(FILE *out, PyObject *obj, const char *data, size_t len)
{
    PyObject *qualname = attr(obj, "__qualname__");
    PyObject *module = attr(obj, "__module__");
    PyObject *name = attr(obj, "__name__");
    PyObject *target = obj;
    int r = 0;

    if (PyMethod_Check(obj))
        target = PyMethod_GET_FUNCTION(obj);
    int is_function = PyFunction_Check(target);
    if (is_function || PyCFunction_Check(obj) || PyMethod_Check(obj)) {
        const char *kind = PyMethod_Check(obj)      ? "method"
                           : PyCFunction_Check(obj) ? "builtin function"
                                                    : "function";
        r = kind_row(out, kind, qualname);
        if (r == 0 && module != NULL)
            r = row_obj(out, "module", module, 0);
        if (r == 0)
            r = signature_row(out, obj, name);
        if (r == 0)
            r = doc_row(out, obj);
        if (r == 0 && is_function)
            r = function_rows(out, target);
    }
    else if (PyType_Check(obj)) {
        r = kind_row(out, "class", qualname);
        if (r == 0 && module != NULL)
            r = row_obj(out, "module", module, 0);
        PyObject *bases = attr(obj, "__bases__");
        if (r == 0 && bases != NULL) {
            PyObject *names = PyList_New(0);
            for (Py_ssize_t i = 0; names && i < PyTuple_GET_SIZE(bases); i++) {
                PyObject *q = attr(PyTuple_GET_ITEM(bases, i), "__qualname__");
                if (q == NULL || PyList_Append(names, q) < 0)
                    Py_CLEAR(names);
                Py_XDECREF(q);
            }
            PyObject *sep = PyUnicode_FromString(", ");
            PyObject *joined = names && sep ? PyUnicode_Join(sep, names) : NULL;
            r = joined ? row_obj(out, "bases", joined, 0) : -1;
            Py_XDECREF(sep);
            Py_XDECREF(joined);
            Py_XDECREF(names);
        }
        Py_XDECREF(bases);
        if (r == 0)
            r = signature_row(out, obj, name);
        if (r == 0)
            r = doc_row(out, obj);
    }
    else if (PyModule_Check(obj)) {
        r = kind_row(out, "module", name);
        if (r == 0)
            r = doc_row(out, obj);
    }
    else {
        PyObject *tq = attr((PyObject *)Py_TYPE(obj), "__qualname__");
        PyObject *tm = attr((PyObject *)Py_TYPE(obj), "__module__");
        PyObject *tname = NULL;
        if (tq != NULL && tm != NULL && PyUnicode_Check(tm) &&
            PyUnicode_CompareWithASCIIString(tm, "builtins") != 0)
            tname = PyUnicode_FromFormat("%U.%U", tm, tq);
        else if (tq != NULL)
            tname = Py_NewRef(tq);
        r = kind_row(out, "instance of", tname);
        Py_XDECREF(tq);
        Py_XDECREF(tm);
        Py_XDECREF(tname);
        if (r == 0)
            r = row_obj(out, "value", obj, 1);
        if (r == 0 && PyCallable_Check(obj))
            r = signature_row(out, obj, Py_None);
    }
    Py_XDECREF(qualname);
    Py_XDECREF(module);
    Py_XDECREF(name);
    if (r < 0)
        return -1;

    char line[128];
    if (len >= 2 && (unsigned char)data[0] == 0x80)
        snprintf(line, sizeof(line), "%zu bytes, protocol %d", len,
                 (unsigned char)data[1]);
    else
        snprintf(line, sizeof(line), "%zu bytes, protocol 0 or 1", len);
    row(out, "pickle", line);
    return 0;
}
