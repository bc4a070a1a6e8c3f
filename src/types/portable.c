/* portable.c - portable pickles (dumps(portable=True)): each code object
 * carried by value also carries the source it was compiled from, when
 * that source is found and proven to compile to it, so that another
 * CPython version can compile it again. Finding, proving and compiling
 * are Python (src/types/portable_source.py, embedded in the library as a
 * string, src/types/portable_source.h, made by scripts/embed-py, and made a
 * private module at first use: the programs and the module need no file
 * beside them).
 *
 * Format: _code_portable(python_version, magic, data, source), where
 * (python_version, magic, data) are _code_unmarshal's arguments and
 * `source` is the tuple portable_source.py documents, or a str saying
 * which function has no usable source and why. Under the same bytecode
 * magic the loader reads `data` as _code_unmarshal does (as fast as an
 * ordinary pickle); under another it compiles `source`, or fails naming
 * both versions and the function.
 */
#include "types/portable.h"
#include "core/state.h"
#include "common/pycompat.h"
#include "core/args.h"
#include "types/code.h"
#include "types/codeinfo.h"
#include "types/portable_source.h" /* portable_source_py, from portable_source.py */

/* The private module made from portable_source.py (new reference). */
static PyObject *
helper(cpk_state *st)
{
    if (st->portable_helper != NULL)
        return Py_NewRef(st->portable_helper);
    PyObject *code = Py_CompileString(portable_source_py,
                                      "<ccloudpickle portable_source.py>",
                                      Py_file_input);
    if (code == NULL)
        return NULL;
    PyObject *mod = PyModule_New("ccloudpickle._portable_source");
    if (mod == NULL) {
        Py_DECREF(code);
        return NULL;
    }
    PyObject *ns = PyModule_GetDict(mod); /* the module holds it */
    PyObject *r = NULL;
    if (PyDict_SetItemString(ns, "__builtins__", PyEval_GetBuiltins()) == 0)
        r = PyEval_EvalCode(code, ns, ns);
    Py_DECREF(code);
    if (r == NULL) {
        Py_DECREF(mod);
        return NULL;
    }
    Py_DECREF(r);
    /* Another thread may have made it meanwhile (the code ran Python):
     * keep the first. */
    if (st->portable_helper == NULL)
        st->portable_helper = Py_NewRef(mod);
    Py_DECREF(mod);
    return Py_NewRef(st->portable_helper);
}

static PyObject *
call_helper(cpk_state *st, const char *name, PyObject *arg)
{
    PyObject *h = helper(st);
    if (h == NULL)
        return NULL;
    PyObject *f = PyObject_GetAttrString(h, name);
    Py_DECREF(h);
    if (f == NULL)
        return NULL;
    PyObject *r = PyObject_CallOneArg(f, arg);
    Py_DECREF(f);
    return r;
}

/* What a non-portable code says of itself: "f (mod.py, line 3): why". */
static PyObject *
not_portable(PyObject *code, PyObject *why)
{
    PyCodeObject *co = (PyCodeObject *)code;
    PyObject *name = cpk_py_code_qualname(co);
    return PyUnicode_FromFormat("%U (%U, line %d): %U", name,
                                co->co_filename, co->co_firstlineno, why);
}

PyObject *
cpk_reduce_code_portable(cpk_state *st, PyObject *code)
{
    PyObject *r = cpk_code_cache_get(code, st->code_portable_index);
    if (r != NULL || PyErr_Occurred())
        return r;
    PyObject *plain = cpk_reduce_code(st, code, CPK_FORMAT_NATIVE);
    if (plain == NULL)
        return NULL;
    /* Code marshal cannot write goes as _code_new's fields: no source
     * travels with it (rare: constants of a custom type). */
    if (PyTuple_GET_ITEM(plain, 0) != st->code_unmarshal)
        return plain;
    PyObject *found = call_helper(st, "find", code);
    PyObject *source = NULL, *args = NULL;
    if (found == NULL)
        goto done;
    if (!PyTuple_Check(found) || PyTuple_GET_SIZE(found) != 2) {
        PyErr_SetString(PyExc_SystemError, "portable_source.find(): bad result");
        goto done;
    }
    source = PyTuple_GET_ITEM(found, 0) != Py_None
                 ? Py_NewRef(PyTuple_GET_ITEM(found, 0))
                 : not_portable(code, PyTuple_GET_ITEM(found, 1));
    if (source == NULL)
        goto done;
    PyObject *a = PyTuple_GET_ITEM(plain, 1);
    args = PyTuple_Pack(4, PyTuple_GET_ITEM(a, 0), PyTuple_GET_ITEM(a, 1),
                        PyTuple_GET_ITEM(a, 2), source);
    if (args == NULL)
        goto done;
    r = PyTuple_Pack(2, st->code_portable, args);
    if (r == NULL)
        goto done;
    /* Every pickle of this code gets the same tuple (code.c does the
     * same): the first one cached wins. */
    PyObject *cached = cpk_code_cache_get(code, st->code_portable_index);
    if (cached != NULL || PyErr_Occurred()) {
        Py_SETREF(r, cached);
        goto done;
    }
    if (cpk_code_cache_set(code, st->code_portable_index, r) < 0)
        Py_CLEAR(r);
done:
    Py_DECREF(plain);
    Py_XDECREF(found);
    Py_XDECREF(source);
    Py_XDECREF(args);
    return r;
}

SIG(_code_portable, -1, {"python_version", CPK_ARG_STR},
    {"magic", CPK_ARG_INT}, {"data", CPK_ARG_BYTES}, {"source", CPK_ARG_ANY});

/* A shipped source: (text, filename, name, line, flags, shift), each
 * checked. */
static int
check_source(cpk_state *st, PyObject *s)
{
    static const int kinds[] = {CPK_ARG_STR, CPK_ARG_STR, CPK_ARG_STR,
                                CPK_ARG_INT, CPK_ARG_INT, CPK_ARG_INT};
    if (!PyTuple_CheckExact(s) || PyTuple_GET_SIZE(s) != 6) {
        cpk_arg_error(st, 0, "_code_portable",
                      "argument 4 (source) must be a str or a tuple of 6 "
                      "(text, filename, name, line, flags, shift), not %s",
                      Py_TYPE(s)->tp_name);
        return 0;
    }
    for (int i = 0; i < 6; i++) {
        PyObject *v = PyTuple_GET_ITEM(s, i);
        if (!cpk_check_value(st, "_code_portable", "source item", v,
                             kinds[i]))
            return 0;
        /* Exact types: the compiler and the helper module take them as
         * they are, and a subclass may redefine what they do with them. */
        if (kinds[i] == CPK_ARG_STR ? !PyUnicode_CheckExact(v)
                                    : !PyLong_CheckExact(v)) {
            cpk_arg_error(st, 0, "_code_portable",
                          "argument 4 (source) item %d must be exactly %s, "
                          "not %s",
                          i + 1, kinds[i] == CPK_ARG_STR ? "str" : "int",
                          Py_TYPE(v)->tp_name);
            return 0;
        }
    }
    return 1;
}

/* _code_portable(python_version, magic, data, source) -> code */
static PyObject *
code_portable(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &_code_portable_sig, args, nargs))
        return NULL;
    PyObject *source = args[3];
    if (!PyUnicode_CheckExact(source) && !check_source(st, source))
        return NULL;
    int same = PyObject_RichCompareBool(args[1], st->magic_int, Py_EQ);
    if (same < 0)
        return NULL;
    if (same)
        return cpk_code_unmarshal(m, args, 3);
    PyObject *mine = cpk_python_version();
    if (mine == NULL)
        return NULL;
    if (PyUnicode_Check(source)) {
        PyErr_Format(st->UnpicklingError,
                     CPK_VERSION_ERROR_PREFIX "compiled by Python %S, which "
                     "Python %U cannot run, and function %U carries no "
                     "source to compile again: load it with Python %S",
                     args[0], mine, source, args[0]);
        Py_DECREF(mine);
        return NULL;
    }
    PyObject *code = call_helper(st, "compile_portable", source);
    if (code == NULL && PyErr_ExceptionMatches(PyExc_Exception)) {
        /* A SyntaxError here is newer syntax (match under 3.9): said,
         * and kept as the cause. */
        PyObject *type, *exc, *tb;
        PyErr_Fetch(&type, &exc, &tb);
        PyErr_NormalizeException(&type, &exc, &tb);
        if (tb != NULL && exc != NULL)
            PyException_SetTraceback(exc, tb);
        Py_XDECREF(type);
        Py_XDECREF(tb);
        PyErr_Format(st->UnpicklingError,
                     "function %S (%S, line %S) of this pickle, made by "
                     "Python %S, does not compile under Python %U: %S",
                     PyTuple_GET_ITEM(source, 2), PyTuple_GET_ITEM(source, 1),
                     PyTuple_GET_ITEM(source, 3), args[0], mine,
                     exc != NULL ? exc : Py_None);
        if (exc != NULL) {
            PyObject *t2, *now, *tb2;
            PyErr_Fetch(&t2, &now, &tb2);
            PyErr_NormalizeException(&t2, &now, &tb2);
            if (now != NULL)
                PyException_SetCause(now, exc); /* steals exc */
            else
                Py_DECREF(exc);
            PyErr_Restore(t2, now, tb2);
        }
        Py_DECREF(mine);
        return NULL;
    }
    Py_DECREF(mine);
    if (code == NULL) /* MemoryError, KeyboardInterrupt: as they are */
        return NULL;
    if (!PyCode_Check(code)) {
        Py_DECREF(code);
        PyErr_SetString(PyExc_SystemError,
                        "portable_source.compile_portable(): not code");
        return NULL;
    }
    if (!cpk_code_check(st, "_code_portable", code))
        Py_CLEAR(code);
    return code;
}

PyMethodDef cpk_portable_methods[] = {
    FAST("_code_portable", code_portable,
         "_code_portable(python_version, magic, data, source)\n--\n\n"
         "Code object from marshal data of the same bytecode version, else "
         "compiled from its shipped source."),
    {NULL, NULL, 0, NULL},
};
