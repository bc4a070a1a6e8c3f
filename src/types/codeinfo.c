/* codeinfo.c - which global names a function's code reads, writes or
 * deletes, found by walking its bytecode and that of the code objects
 * nested in it (inner functions, comprehensions, class bodies), plus every
 * name the code mentions (for submodules used as attributes), both as
 * tuples in the order the walk meets them: the submodules found follow
 * that order, so the pickle's bytes never depend on string hashing. The
 * answer is
 * cached on the code object itself, in a PEP 523 co_extra slot, so it dies
 * with the code; code.c keeps the code's reduce tuple in a second slot.
 * function.c is the user.
 */
#include "types/codeinfo.h"
#include "core/state.h"
#include "common/pycompat.h"
#include "core/args.h"

#include <opcode.h>

static int
add_name(PyObject *names, PyObject *co_names, Py_ssize_t index)
{
    if (index < 0 || index >= PyTuple_GET_SIZE(co_names))
        return 0; /* malformed code: the interpreter would fail too */
    return PyDict_SetItem(names, PyTuple_GET_ITEM(co_names, index), Py_None);
}

/* Add the global names of `co` (and its nested code) to the ordered dict
 * `names`, and every co_names entry to the ordered dict `all`. Class
 * bodies use the *_NAME opcodes for module-level names, so nested code
 * counts them too. */
static int
walk(PyCodeObject *co, PyObject *names, PyObject *all, int nested)
{
    PyObject *code = cpk_py_code_bytes(co);
    if (code == NULL)
        return -1;
    const unsigned char *b = (const unsigned char *)PyBytes_AS_STRING(code);
    Py_ssize_t n = PyBytes_GET_SIZE(code);
    PyObject *co_names = co->co_names;
    unsigned int ext = 0;
    int r = 0;
    for (Py_ssize_t i = 0; i + 1 < n && r == 0; i += 2) {
        int op = b[i];
        unsigned int arg = b[i + 1] | ext;
        if (op == EXTENDED_ARG) {
            ext = arg << 8;
            continue;
        }
        ext = 0;
        switch (op) {
        case LOAD_GLOBAL:
            r = add_name(names, co_names,
                         (Py_ssize_t)cpk_py_load_global_name(arg));
            break;
        case STORE_GLOBAL:
        case DELETE_GLOBAL:
            r = add_name(names, co_names, (Py_ssize_t)arg);
            break;
        case LOAD_NAME:
        case STORE_NAME:
        case DELETE_NAME:
            if (nested)
                r = add_name(names, co_names, (Py_ssize_t)arg);
            break;
        default:
            break;
        }
    }
    Py_DECREF(code);
    if (r < 0)
        return -1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(co_names); i++)
        if (PyDict_SetItem(all, PyTuple_GET_ITEM(co_names, i), Py_None) < 0)
            return -1;
    PyObject *consts = co->co_consts;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(consts); i++) {
        PyObject *c = PyTuple_GET_ITEM(consts, i);
        if (PyCode_Check(c) && walk((PyCodeObject *)c, names, all, 1) < 0)
            return -1;
    }
    return 0;
}

/* The keys of our own dict `d`, in order (no code runs). */
static PyObject *
keys_tuple(PyObject *d)
{
    PyObject *t = PyTuple_New(PyDict_GET_SIZE(d)), *k, *v;
    Py_ssize_t pos = 0, i = 0;
    while (t != NULL && PyDict_Next(d, &pos, &k, &v))
        PyTuple_SET_ITEM(t, i++, Py_NewRef(k));
    return t;
}

static PyObject *
compute(PyCodeObject *co)
{
    PyObject *names = PyDict_New();
    PyObject *all = PyDict_New();
    PyObject *info = NULL;
    if (names == NULL || all == NULL || walk(co, names, all, 0) < 0)
        goto done;
    PyObject *globals = keys_tuple(names), *mentioned = keys_tuple(all);
    if (globals != NULL && mentioned != NULL)
        info = PyTuple_Pack(2, globals, mentioned);
    Py_XDECREF(globals);
    Py_XDECREF(mentioned);
done:
    Py_XDECREF(names);
    Py_XDECREF(all);
    return info;
}

static void
free_info(void *info)
{
    Py_XDECREF((PyObject *)info);
}

int
cpk_codeinfo_init(cpk_state *st)
{
    /* -1: all slots taken by other tools; we then compute every time. */
    st->code_extra_index = cpk_py_code_extra_index(free_info);
    st->code_reduce_index = cpk_py_code_extra_index(free_info);
    st->code_portable_index = cpk_py_code_extra_index(free_info);
    return 0;
}

PyObject *
cpk_code_cache_get(PyObject *code, Py_ssize_t index)
{
    void *cached = NULL;
    if (index < 0)
        return NULL;
    if (cpk_py_code_get_extra(code, index, &cached) < 0)
        return NULL;
    return cached != NULL ? Py_NewRef((PyObject *)cached) : NULL;
}

int
cpk_code_cache_set(PyObject *code, Py_ssize_t index, PyObject *value)
{
    if (index < 0)
        return 0;
    /* The slot takes its own reference. */
    Py_INCREF(value);
    if (cpk_py_code_set_extra(code, index, value) < 0) {
        Py_DECREF(value);
        return -1;
    }
    return 0;
}

PyObject *
cpk_codeinfo_get(cpk_state *st, PyObject *code)
{
    PyObject *info = cpk_code_cache_get(code, st->code_extra_index);
    if (info != NULL || PyErr_Occurred())
        return info;
    /* compute() reads co_code, which 3.11 must not give for corrupt code
     * (code.c): every caller, the pickler's and the culprit search's,
     * gets the check here, once per code object (the answer is cached). */
    if (!cpk_code_check_pickle(st, code))
        return NULL;
    info = compute((PyCodeObject *)code);
    if (info == NULL)
        return NULL;
    /* Another thread may have cached it while we allocated (the GC can
     * run finalizers): keep the first, as code.c does. */
    PyObject *cached = cpk_code_cache_get(code, st->code_extra_index);
    if (cached != NULL || PyErr_Occurred()) {
        Py_DECREF(info);
        return cached;
    }
    if (cpk_code_cache_set(code, st->code_extra_index, info) < 0)
        Py_CLEAR(info);
    return info;
}
