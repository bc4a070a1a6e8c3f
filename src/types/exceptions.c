/* exceptions.c - exceptions with their chain. BaseException.__reduce__
 * gives (type, args, __dict__) and drops __cause__, __context__,
 * __suppress_context__ and the traceback; here the state gets the chain
 * too, and one extra note: the formatted traceback (traceback objects
 * cannot travel). BaseException.__setstate__ sets each key with setattr,
 * so these pickles need no reconstructor of ours: stock cloudpickle and
 * plain pickle load them. The hook is pickler.c's reducer_override, the
 * dispatch reducers.c's.
 */
#include "types/exceptions.h"
#include "core/state.h"
#include "common/pycompat.h"

/* 1 if `name` resolves on `type` to a method of a builtin class (C code
 * we know: BaseException's, OSError's, object's), 0 if a class of Python
 * code (or anything else) defines it. Runs no Python code. */
static int
builtin_method(PyTypeObject *type, PyObject *name)
{
    PyObject *d = _PyType_Lookup(type, name);
    return d != NULL && Py_IS_TYPE(d, &PyMethodDescr_Type) &&
           !(PyDescr_TYPE(d)->tp_flags & Py_TPFLAGS_HEAPTYPE);
}

/* "Traceback (most recent call last, before pickling):\n  File ..." of
 * `tb`, without the final newline. New reference. */
static PyObject *
traceback_note(cpk_state *st, PyObject *tb)
{
    PyObject *mod = PyImport_Import(st->str_traceback);
    if (mod == NULL)
        return NULL;
    PyObject *lines = PyObject_CallMethodOneArg(mod, st->str_format_tb, tb);
    Py_DECREF(mod);
    if (lines == NULL)
        return NULL;
    PyObject *empty = PyUnicode_New(0, 0), *text = NULL, *note = NULL;
    if (empty != NULL)
        text = PyUnicode_Join(empty, lines);
    Py_XDECREF(empty);
    Py_DECREF(lines);
    if (text == NULL)
        return NULL;
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (n > 0 && PyUnicode_READ_CHAR(text, n - 1) == '\n')
        Py_SETREF(text, PyUnicode_Substring(text, 0, n - 1));
    if (text != NULL)
        note = PyUnicode_FromFormat(
            "Traceback (most recent call last, before pickling):\n%U", text);
    Py_XDECREF(text);
    return note;
}

/* state["__notes__"]: its list (a copy: the original exception is not
 * changed) with `note` appended. A __notes__ that is not a list is left
 * alone, as add_note() would refuse it. 0 or -1. */
static int
add_note(cpk_state *st, PyObject *state, PyObject *note)
{
    PyObject *notes;
    int r = cpk_dict_get_ref(state, st->str___notes__, &notes);
    if (r < 0)
        return -1;
    if (r > 0 && !PyList_Check(notes)) {
        Py_DECREF(notes);
        return 0;
    }
    PyObject *copy = notes ? PySequence_List(notes) : PyList_New(0);
    Py_XDECREF(notes);
    if (copy == NULL)
        return -1;
    r = PyList_Append(copy, note) < 0 ? -1
                                      : PyDict_SetItem(state,
                                                       st->str___notes__, copy);
    Py_DECREF(copy);
    return r;
}

/* The state of `exc` with its chain and traceback note added to `base`
 * (a dict or None, from __reduce__). New reference. */
static PyObject *
chain_state(cpk_state *st, PyObject *exc, PyObject *base)
{
    PyObject *state = base != Py_None ? PyDict_Copy(base) : PyDict_New();
    PyObject *cause = PyException_GetCause(exc);
    PyObject *context = PyException_GetContext(exc);
    PyObject *tb = PyException_GetTraceback(exc), *note = NULL;
    int suppress = ((PyBaseExceptionObject *)exc)->suppress_context;
    if (state == NULL)
        goto error;
    if (tb != NULL && tb != Py_None) {
        note = traceback_note(st, tb);
        if (note == NULL || add_note(st, state, note) < 0)
            goto error;
    }
    /* Set in this order on load: setting __cause__ sets
     * __suppress_context__ too (PEP 415), so the flag comes after it, and
     * only when it differs from what that leaves. */
    if ((cause != NULL &&
         PyDict_SetItem(state, st->str___cause__, cause) < 0) ||
        (context != NULL &&
         PyDict_SetItem(state, st->str___context__, context) < 0) ||
        (suppress != (cause != NULL) &&
         PyDict_SetItem(state, st->str___suppress_context__,
                        suppress ? Py_True : Py_False) < 0))
        goto error;
    Py_XDECREF(cause);
    Py_XDECREF(context);
    Py_XDECREF(tb);
    Py_XDECREF(note);
    return state;
error:
    Py_XDECREF(state);
    Py_XDECREF(cause);
    Py_XDECREF(context);
    Py_XDECREF(tb);
    Py_XDECREF(note);
    return NULL;
}

PyObject *
cpk_reduce_exception(cpk_state *st, int format, PyObject *exc)
{
    (void)format; /* one layout for every format: no reconstructor */
    PyTypeObject *type = Py_TYPE(exc);
    /* A class with its own __reduce__, __reduce_ex__ or __setstate__ is
     * left to it; so is one copyreg knows. */
    if (!builtin_method(type, st->str___reduce__) ||
        !builtin_method(type, st->str___reduce_ex__) ||
        !builtin_method(type, st->str___setstate__))
        Py_RETURN_NOTIMPLEMENTED;
    int r = PyDict_Contains(st->copyreg_dispatch, (PyObject *)type);
    if (r != 0)
        return r < 0 ? NULL : Py_NewRef(Py_NotImplemented);
    PyObject *reduce = Py_NewRef(_PyType_Lookup(type, st->str___reduce__));
    PyObject *rv = PyObject_CallOneArg(reduce, exc), *state = NULL;
    Py_DECREF(reduce);
    if (rv == NULL)
        return NULL;
    /* BaseException's, OSError's, ImportError's (and 3.13's AttributeError)
     * all give (type, args[, dict or None]). */
    if (!PyTuple_Check(rv) || PyTuple_GET_SIZE(rv) < 2 ||
        PyTuple_GET_SIZE(rv) > 3 ||
        (PyTuple_GET_SIZE(rv) == 3 && PyTuple_GET_ITEM(rv, 2) != Py_None &&
         !PyDict_Check(PyTuple_GET_ITEM(rv, 2)))) {
        Py_DECREF(rv);
        Py_RETURN_NOTIMPLEMENTED;
    }
    state = chain_state(st, exc,
                        PyTuple_GET_SIZE(rv) == 3 ? PyTuple_GET_ITEM(rv, 2)
                                                  : Py_None);
    if (state == NULL) {
        Py_DECREF(rv);
        return NULL;
    }
    PyObject *result =
        PyDict_GET_SIZE(state) == 0
            ? Py_NewRef(rv)
            : PyTuple_Pack(3, PyTuple_GET_ITEM(rv, 0),
                           PyTuple_GET_ITEM(rv, 1), state);
    Py_DECREF(rv);
    Py_DECREF(state);
    return result;
}
