/* args.c - argument parsing shared by the module's public functions
 * (module.c) and its reconstructors (reconstruct.c, compat.c, code.c), as
 * Argument Clinic would generate it: a reconstructor states its signature
 * (count and kind of each argument) and checks it before reading anything,
 * and its errors name it. Nothing here runs Python code, except a repr a
 * caller of cpk_arg_error asks for with %R.
 */
#include "core/args.h"
#include "core/state.h"
#include "ccloudpickle.h"
#include "common/pycompat.h"

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

/* Parse positional-or-keyword arguments of a METH_FASTCALL|METH_KEYWORDS
 * function: `npos_required` leading parameters are required, the first
 * `npos_max` may be positional, the rest are keyword-only. The outputs are
 * borrowed references. Returns 1 on success, 0 with an exception set. */
int
cpk_parse_args(const char *fname, PyObject *const *args, Py_ssize_t nargs,
               PyObject *kwnames, const char *const *kwlist,
               int npos_required, int npos_max, ...)
{
    int nparams = 0;
    while (kwlist[nparams] != NULL)
        nparams++;
    PyObject **out[16];
    va_list ap;
    va_start(ap, npos_max);
    for (int i = 0; i < nparams && i < 16; i++)
        out[i] = va_arg(ap, PyObject **);
    va_end(ap);

    if (nargs > npos_max) {
        PyErr_Format(PyExc_TypeError,
                     "%s() takes at most %d positional argument%s (%zd given)",
                     fname, npos_max, npos_max == 1 ? "" : "s", nargs);
        return 0;
    }
    int seen[16] = {0};
    for (Py_ssize_t i = 0; i < nargs; i++) {
        *out[i] = args[i];
        seen[i] = 1;
    }
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        int found = -1;
        for (int i = 0; i < nparams; i++) {
            if (PyUnicode_CompareWithASCIIString(key, kwlist[i]) == 0) {
                found = i;
                break;
            }
        }
        if (found < 0) {
            PyErr_Format(PyExc_TypeError,
                         "%s() got an unexpected keyword argument '%U'",
                         fname, key);
            return 0;
        }
        if (seen[found]) {
            PyErr_Format(PyExc_TypeError,
                         "%s() got multiple values for argument '%s'", fname,
                         kwlist[found]);
            return 0;
        }
        *out[found] = args[nargs + k];
        seen[found] = 1;
    }
    for (int i = 0; i < npos_required; i++) {
        if (!seen[i]) {
            PyErr_Format(PyExc_TypeError,
                         "%s() missing required argument '%s' (pos %d)", fname,
                         kwlist[i], i + 1);
            return 0;
        }
    }
    return 1;
}

/* Reconstructors ---------------------------------------------------------- */

/* The exceptions a reconstructor raises for arguments no pickle we write
 * holds. Each is both what types.FunctionType raises for such an argument
 * (TypeError or ValueError) and pickle.UnpicklingError: the pickle is
 * invalid, and callers that tell bad input from other failures by
 * UnpicklingError (cloudpickle-load's exit status 3) keep doing so. */
int
cpk_args_init(PyObject *module, cpk_state *st)
{
    static const struct {
        const char *name;
        const char *doc;
        size_t field;
    } errors[] = {
        {CPK_MODULE_NAME ".ReconstructorTypeError",
         "A reconstructor named by a pickle was given an argument of the "
         "wrong type or the wrong number of arguments: the pickle is "
         "invalid.",
         offsetof(cpk_state, ReconstructorTypeError)},
        {CPK_MODULE_NAME ".ReconstructorValueError",
         "A reconstructor named by a pickle was given an argument of the "
         "right type but a wrong value or length: the pickle is invalid.",
         offsetof(cpk_state, ReconstructorValueError)},
    };
    PyObject *std[2] = {PyExc_TypeError, PyExc_ValueError};
    for (size_t i = 0; i < 2; i++) {
        PyObject **field = (PyObject **)((char *)st + errors[i].field);
        PyObject *bases = PyTuple_Pack(2, st->UnpicklingError, std[i]);
        if (bases == NULL)
            return -1;
        *field = PyErr_NewExceptionWithDoc(errors[i].name, errors[i].doc,
                                           bases, NULL);
        Py_DECREF(bases);
        if (*field == NULL ||
            PyModule_AddObjectRef(module, strchr(errors[i].name, '.') + 1,
                                  *field) < 0)
            return -1;
    }
    return 0;
}

/* Raise ReconstructorTypeError (value 0) or ReconstructorValueError
 * (value 1) with the message "<fname>() <formatted>". Returns 0. */
int
cpk_arg_error(cpk_state *st, int value, const char *fname, const char *fmt,
              ...)
{
    va_list ap;
    va_start(ap, fmt);
    PyObject *detail = PyUnicode_FromFormatV(fmt, ap);
    va_end(ap);
    if (detail == NULL)
        return 0;
    PyErr_Format(value ? st->ReconstructorValueError
                       : st->ReconstructorTypeError,
                 "%s() %U", fname, detail);
    Py_DECREF(detail);
    return 0;
}

/* What a parameter of kind `kind` must be, for messages. */
static const char *
kind_name(int kind)
{
    switch (kind & CPK_ARG_KIND_MASK) {
    case CPK_ARG_CODE: return "code";
    case CPK_ARG_DICT: return "dict";
    case CPK_ARG_STR: return "str";
    case CPK_ARG_INT: return "int";
    case CPK_ARG_BOOL: return "bool";
    case CPK_ARG_BYTES: return "bytes";
    case CPK_ARG_TUPLE: return "tuple";
    case CPK_ARG_LIST: return "list";
    case CPK_ARG_SEQ: return "list or tuple";
    case CPK_ARG_CLASS: return "a class";
    case CPK_ARG_METACLASS: return "a metaclass (subclass of type)";
    case CPK_ARG_FUNCTION: return "function";
    case CPK_ARG_CELL: return "cell";
    default: return "anything";
    }
}

static int
kind_matches(int kind, PyObject *obj)
{
    if (obj == Py_None && (kind & CPK_ARG_OR_NONE))
        return 1;
    switch (kind & CPK_ARG_KIND_MASK) {
    case CPK_ARG_ANY: return 1;
    case CPK_ARG_CODE: return PyCode_Check(obj);
    case CPK_ARG_DICT: return PyDict_Check(obj);
    case CPK_ARG_STR: return PyUnicode_CheckExact(obj);
    case CPK_ARG_INT: return PyLong_Check(obj);
    case CPK_ARG_BOOL: return PyBool_Check(obj);
    case CPK_ARG_BYTES: return PyBytes_Check(obj);
    case CPK_ARG_TUPLE: return PyTuple_Check(obj);
    case CPK_ARG_LIST: return PyList_Check(obj);
    case CPK_ARG_SEQ: return PyTuple_Check(obj) || PyList_Check(obj);
    case CPK_ARG_CLASS: return PyType_Check(obj);
    /* PyType_IsSubtype reads the MRO tuple: no Python code runs. */
    case CPK_ARG_METACLASS:
        return PyType_Check(obj) &&
               PyType_IsSubtype((PyTypeObject *)obj, &PyType_Type);
    case CPK_ARG_FUNCTION: return PyFunction_Check(obj);
    case CPK_ARG_CELL: return PyCell_Check(obj);
    default: return 0;
    }
}

/* What obj is, for messages: "None", "int", or "class int" for a class
 * (whose type, "type", would say little). */
static PyObject *
describe(PyObject *obj)
{
    if (obj == Py_None)
        return PyUnicode_FromString("None");
    if (PyType_Check(obj))
        return PyUnicode_FromFormat("class %s", ((PyTypeObject *)obj)->tp_name);
    return PyUnicode_FromString(Py_TYPE(obj)->tp_name);
}

/* "<what> must be <kind>, not <obj>". Returns 0. */
static int
kind_error(cpk_state *st, const char *fname, PyObject *what, PyObject *obj,
           int kind)
{
    PyObject *desc = describe(obj);
    if (desc == NULL)
        return 0;
    cpk_arg_error(st, 0, fname, "%U must be %s%s, not %U", what,
                  kind_name(kind),
                  (kind & CPK_ARG_OR_NONE) ? " or None" : "", desc);
    Py_DECREF(desc);
    return 0;
}

int
cpk_check_value(cpk_state *st, const char *fname, const char *what,
                PyObject *obj, int kind)
{
    if (kind_matches(kind, obj))
        return 1;
    PyObject *w = PyUnicode_FromString(what);
    if (w == NULL)
        return 0;
    kind_error(st, fname, w, obj, kind);
    Py_DECREF(w);
    return 0;
}

int
cpk_check_items(cpk_state *st, const char *fname, const char *what,
                PyObject *seq, int kind)
{
    /* Tuples are immutable; a list cannot change while nothing runs. */
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (kind_matches(kind, items[i]))
            continue;
        PyObject *w = PyUnicode_FromFormat("%s item %zd", what, i);
        if (w == NULL)
            return 0;
        kind_error(st, fname, w, items[i], kind);
        Py_DECREF(w);
        return 0;
    }
    return 1;
}

int
cpk_check_args(cpk_state *st, const cpk_signature *sig, PyObject *const *args,
               Py_ssize_t nargs)
{
    int nparams = 0;
    while (nparams < CPK_MAX_PARAMS && sig->params[nparams].name != NULL)
        nparams++;
    int nmin = sig->nrequired < 0 ? nparams : sig->nrequired;
    if (nargs < nmin || nargs > nparams) {
        if (nparams == 0)
            return cpk_arg_error(st, 0, sig->fname,
                                 "takes no arguments (%zd given)", nargs);
        const char *how = nmin == nparams ? "exactly"
                          : nargs < nmin  ? "at least"
                                          : "at most";
        int n = nargs < nmin ? nmin : nparams;
        return cpk_arg_error(st, 0, sig->fname,
                             "takes %s %d argument%s (%zd given)", how, n,
                             n == 1 ? "" : "s", nargs);
    }
    for (Py_ssize_t i = 0; i < nargs; i++) {
        const cpk_param *p = &sig->params[i];
        if (kind_matches(p->kind, args[i])) {
            /* A code object a function will be made of: its counts too. */
            if ((p->kind & CPK_ARG_KIND_MASK) == CPK_ARG_CODE &&
                PyCode_Check(args[i]) &&
                !cpk_code_check(st, sig->fname, args[i]))
                return 0;
            continue;
        }
        PyObject *w = PyUnicode_FromFormat("argument %zd (%s)", i + 1,
                                           p->name);
        if (w == NULL)
            return 0;
        kind_error(st, sig->fname, w, args[i], p->kind);
        Py_DECREF(w);
        return 0;
    }
    return 1;
}

/* Code objects given as arguments ----------------------------------- */

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
