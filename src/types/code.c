/* code.c - code objects. They travel as marshal bytes tagged with the
 * interpreter's bytecode magic number, so loading one made by another
 * CPython version fails with a message naming both versions, never with a
 * cryptic constructor error. Code whose constants marshal refuses (built by
 * hand with CodeType.replace) falls back to the constructor's arguments,
 * tagged the same way. The cloudpickle format uses cloudpickle's layout:
 * types.CodeType(*fields).
 */
#include "types/code.h"
#include "core/state.h"
#include "common/pycompat.h"
#include "common/pyerr.h" /* cpk_error_clearable */
#include "core/args.h"
#include "core/names.h"
#include "types/codeinfo.h"
#include "types/codewrite.h"

#include <marshal.h>


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
     * cpk_marshal_normalize for what that does not take. */
    PyObject *payload = cpk_code_compact(code);
    if (payload == NULL) {
        if (PyErr_Occurred())
            return NULL;
        payload = PyMarshal_WriteObjectToString(code, CPK_MARSHAL_VERSION);
        if (payload != NULL)
            payload = cpk_marshal_normalize(payload);
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
