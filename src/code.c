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

/* The constructor arguments of this version's types.CodeType, in order
 * (the layout stock cloudpickle 3.x uses for 3.11 and later). */
static const char *const code_fields[] = {
    "co_argcount",     "co_posonlyargcount", "co_kwonlyargcount",
    "co_nlocals",      "co_stacksize",       "co_flags",
    "co_code",         "co_consts",          "co_names",
    "co_varnames",     "co_filename",        "co_name",
#if PY_VERSION_HEX >= 0x030B0000
    "co_qualname",
#endif
    "co_firstlineno",
#if PY_VERSION_HEX >= 0x030A0000
    "co_linetable",
#else
    "co_lnotab",
#endif
#if PY_VERSION_HEX >= 0x030B0000
    "co_exceptiontable",
#endif
    "co_freevars",     "co_cellvars",        NULL,
};

/* (co_argcount, ..., co_cellvars) with co_name interned, as cloudpickle
 * does so names compare by identity after loading. New reference. */
static PyObject *
code_args(PyObject *code)
{
    Py_ssize_t n = 0;
    while (code_fields[n] != NULL)
        n++;
    PyObject *args = PyTuple_New(n);
    if (args == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PyObject_GetAttrString(code, code_fields[i]);
        if (v == NULL) {
            Py_DECREF(args);
            return NULL;
        }
        if (strcmp(code_fields[i], "co_name") == 0 && PyUnicode_CheckExact(v))
            PyUnicode_InternInPlace(&v);
        PyTuple_SET_ITEM(args, i, v);
    }
    return args;
}

PyObject *
cpk_reduce_code(cpk_state *st, PyObject *code, int format)
{
    if (format == CPK_FORMAT_CLOUDPICKLE) {
        PyObject *args = code_args(code);
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
    PyObject *payload = PyMarshal_WriteObjectToString(code,
                                                      Py_MARSHAL_VERSION);
    if (payload == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_ValueError))
            return NULL;
        /* Constants marshal cannot write: ship the fields instead. */
        PyErr_Clear();
        payload = code_args(code);
        func = st->code_new;
        if (payload == NULL)
            return NULL;
    }
    args = PyTuple_Pack(3, st->version_str, st->magic_int, payload);
    Py_DECREF(payload);
    if (args == NULL)
        return NULL;
    r = PyTuple_Pack(2, func, args);
    Py_DECREF(args);
    if (r != NULL && cpk_code_cache_set(code, st->code_reduce_index, r) < 0)
        Py_CLEAR(r);
    return r;
}

/* Refuse a code object made by another bytecode version, naming both. */
static int
check_version(cpk_state *st, PyObject *version, PyObject *magic)
{
    long ours = PyImport_GetMagicNumber();
    long theirs = PyLong_AsLong(magic);
    if (theirs == -1 && PyErr_Occurred())
        return -1;
    if (theirs == ours)
        return 0;
    PyObject *mine = cpk_python_version();
    if (mine == NULL)
        return -1;
    /* The magic's low 16 bits are the bytecode version number. */
    if (PyUnicode_Check(version) && PyUnicode_Compare(version, mine) != 0)
        PyErr_Format(st->UnpicklingError,
                     "this pickle holds code compiled by Python %U, which "
                     "Python %U cannot run: load it with Python %U",
                     version, mine, version);
    else
        PyErr_Format(st->UnpicklingError,
                     "this pickle holds code of bytecode version %ld (Python "
                     "%S), this is Python %U with bytecode version %ld",
                     theirs & 0xFFFF, version, mine, ours & 0xFFFF);
    Py_DECREF(mine);
    return -1;
}

static const cpk_signature unmarshal_sig = {
    "_code_unmarshal", -1,
    {{"python_version", CPK_ARG_STR}, {"magic", CPK_ARG_INT},
     {"data", CPK_ARG_BYTES}}};

/* _code_unmarshal(python_version, magic, data) -> code */
PyObject *
cpk_code_unmarshal(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &unmarshal_sig, args, nargs) ||
        check_version(st, args[0], args[1]) < 0)
        return NULL;
    PyObject *code = PyMarshal_ReadObjectFromString(
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
    return PyObject_Call((PyObject *)&PyCode_Type, args[2], NULL);
}
