/* reconstruct.c - the callables our pickles reference by name: the load
 * side of function.c, class.c and reducers.c. Their names and signatures
 * are the file format (doc/FORMAT.md): never rename one, add a new name.
 * Arguments come from a pickle, which may be damaged or hostile: each
 * callable checks the count, types and lengths of what it is given against
 * its signature (args.c) before reading it, and fails with
 * ReconstructorTypeError or ReconstructorValueError, never a crash.
 * cloudpickle names that differ from ours are in compat.c; code objects in
 * code.c.
 */
#include "types/reconstruct.h"
#include "core/state.h"
#include "common/pycompat.h"
#include "core/args.h"
#include "core/tracker.h"
#include "types/classkw.h"
#include "types/code.h"

/* Functions ---------------------------------------------------------------- */

/* Whether `globals` is the namespace of a module in sys.modules: what
 * the fill reconstructors must never write (a pickle filling
 * functools.total_ordering's globals, or a module's, would patch the
 * process). 1, 0, or -1 with an error. The reconstructors fill only what
 * the pickle made: a function's globals are a new dict, a module by
 * value is not in sys.modules. */
int
cpk_namespace_is_imported(cpk_state *st, PyObject *globals)
{
    PyObject *name = NULL, *mod = NULL;
    if (!PyDict_Check(globals))
        return 0;
    int r = cpk_dict_get_ref(globals, st->str___name__, &name);
    if (r <= 0 || !PyUnicode_CheckExact(name)) {
        Py_XDECREF(name);
        return r < 0 ? -1 : 0;
    }
    PyObject *modules = PyImport_GetModuleDict();
    r = PyDict_Check(modules) ? cpk_dict_get_ref(modules, name, &mod) : 0;
    Py_DECREF(name);
    if (r > 0)
        r = PyModule_Check(mod) && PyModule_GetDict(mod) == globals;
    Py_XDECREF(mod);
    return r;
}

/* The same for a function's globals, with the error named: 0 or -1. */
int
cpk_check_fill_target(cpk_state *st, const char *fname, PyObject *func)
{
    PyObject *g = PyFunction_Check(func) ? PyFunction_GET_GLOBALS(func)
                                         : NULL;
    int r = g ? cpk_namespace_is_imported(st, g) : 0;
    if (r > 0)
        cpk_arg_error(st, 1, fname,
                      "argument 1 (func) must be a function the pickle "
                      "made, not %R of an imported module",
                      func);
    return r != 0 ? -1 : 0;
}

/* Make sure the globals of a rebuilt function have builtins. */
static int
ensure_builtins(cpk_state *st, PyObject *globals)
{
    int has = PyDict_Contains(globals, st->str___builtins__);
    if (has != 0)
        return has < 0 ? -1 : 0;
    return PyDict_SetItem(globals, st->str___builtins__, st->builtins_module);
}

SIG(_function_new, -1, {"code", CPK_ARG_CODE}, {"globals", CPK_ARG_DICT},
    {"ncells", CPK_ARG_INT | CPK_ARG_OR_NONE});

/* _function_new(code, globals, ncells) -> function with ncells empty cells
 * (None: no closure); _function_fill sets the rest. ncells must be the
 * code's number of free variables, as types.FunctionType requires of a
 * closure: a function whose closure is short of its code's free variables
 * reads past the closure tuple when called. New reference. */
static PyObject *
function_new_impl(cpk_state *st, const char *fname, PyObject *const *args)
{
    PyObject *code = args[0], *globals = args[1], *ncells = args[2];
    Py_ssize_t nfree = cpk_code_nfreevars(code);
    Py_ssize_t n = 0;
    if (ncells != Py_None) {
        n = PyLong_AsSsize_t(ncells);
        if (n == -1 && PyErr_Occurred()) {
            if (!PyErr_ExceptionMatches(PyExc_OverflowError))
                return NULL;
            PyErr_Clear();
            n = -1;
        }
    }
    if (n != nfree || (ncells == Py_None && nfree != 0)) {
        cpk_arg_error(st, 1, fname,
                      "argument 3 (ncells) must be %s%zd, the number of free "
                      "variables of code %R, not %R",
                      nfree == 0 ? "None or " : "", nfree,
                      ((PyCodeObject *)code)->co_name, ncells);
        return NULL;
    }
    if (ensure_builtins(st, globals) < 0)
        return NULL;
    PyObject *func = PyFunction_New(code, globals);
    if (func == NULL || ncells == Py_None)
        return func;
    PyObject *closure = PyTuple_New(n);
    if (closure == NULL)
        goto error;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *cell = PyCell_New(NULL);
        if (cell == NULL) {
            Py_DECREF(closure);
            goto error;
        }
        PyTuple_SET_ITEM(closure, i, cell);
    }
    int r = PyFunction_SetClosure(func, closure);
    Py_DECREF(closure);
    if (r < 0)
        goto error;
    return func;
error:
    Py_DECREF(func);
    return NULL;
}

static PyObject *
function_new(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &_function_new_sig, args, nargs))
        return NULL;
    return function_new_impl(st, "_function_new", args);
}

/* Set the function's cells from `values` (a tuple as long as its closure,
 * _empty_cell_value for a cell left empty). 0 or -1. */
static int
fill_closure(cpk_state *st, const char *fname, PyObject *func,
             PyObject *values)
{
    if (!cpk_check_value(st, fname, "state['__closure__']", values,
                         CPK_ARG_TUPLE))
        return -1;
    /* The function holds its closure and nothing can replace it, but a
     * cell's old value may run code when it goes: hold it anyway. */
    PyObject *closure = Py_XNewRef(PyFunction_GetClosure(func));
    Py_ssize_t ncells = closure ? PyTuple_GET_SIZE(closure) : 0;
    int r = 0;
    if (PyTuple_GET_SIZE(values) != ncells) {
        cpk_arg_error(st, 1, fname,
                      "state['__closure__'] must hold %zd value%s, one per "
                      "cell of the function, not %zd",
                      ncells, ncells == 1 ? "" : "s",
                      PyTuple_GET_SIZE(values));
        r = -1;
    }
    for (Py_ssize_t i = 0; r == 0 && i < ncells; i++) {
        PyObject *v = PyTuple_GET_ITEM(values, i);
        if (v != st->empty_cell_value)
            r = PyCell_Set(PyTuple_GET_ITEM(closure, i), v);
    }
    Py_XDECREF(closure);
    return r;
}

/* Give the function the cells of `cells` (a tuple as long as its closure:
 * a cell, or None to keep the function's own): cells its dump shared with
 * other functions (function.c). A new closure tuple, so nothing that
 * already holds the old one sees it change. 0 or -1. */
static int
share_cells(cpk_state *st, const char *fname, PyObject *func,
            PyObject *cells)
{
    if (!cpk_check_value(st, fname, "state['__closure_cells__']",
                         cells, CPK_ARG_TUPLE))
        return -1;
    PyObject *closure = PyFunction_GetClosure(func);
    Py_ssize_t n = closure != NULL ? PyTuple_GET_SIZE(closure) : 0;
    if (PyTuple_GET_SIZE(cells) != n) {
        cpk_arg_error(st, 1, fname,
                      "state['__closure_cells__'] must hold %zd item%s, one "
                      "per cell of the function, not %zd",
                      n, n == 1 ? "" : "s", PyTuple_GET_SIZE(cells));
        return -1;
    }
    PyObject *fresh = PyTuple_New(n);
    if (fresh == NULL)
        return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *c = PyTuple_GET_ITEM(cells, i);
        if (c == Py_None)
            c = PyTuple_GET_ITEM(closure, i);
        else if (!PyCell_Check(c)) {
            cpk_arg_error(st, 1, fname,
                          "state['__closure_cells__'] items must be cells "
                          "or None, not %s",
                          Py_TYPE(c)->tp_name);
            Py_DECREF(fresh);
            return -1;
        }
        PyTuple_SET_ITEM(fresh, i, Py_NewRef(c));
    }
    int r = PyFunction_SetClosure(func, fresh);
    Py_DECREF(fresh);
    return r;
}

/* One item of _function_fill's state. 0 or -1. */
static int
fill_one(cpk_state *st, const char *fname, int argno, PyObject *func,
         PyObject *k, PyObject *v)
{
    if (!PyUnicode_Check(k)) {
        cpk_arg_error(st, 0, fname, "argument %d (state) keys must be str, "
                      "not %s", argno, Py_TYPE(k)->tp_name);
        return -1;
    }
    if (PyUnicode_Compare(k, st->str___globals__) == 0) {
        if (!cpk_check_value(st, fname, "state['__globals__']", v,
                             CPK_ARG_DICT))
            return -1;
        PyObject *globals = Py_NewRef(PyFunction_GET_GLOBALS(func));
        int r = PyDict_Update(globals, v);
        Py_DECREF(globals);
        return r;
    }
    if (PyUnicode_Compare(k, st->str___closure__) == 0)
        return fill_closure(st, fname, func, v);
    if (PyUnicode_Compare(k, st->str___closure_cells__) == 0)
        return share_cells(st, fname, func, v);
    if (PyUnicode_Compare(k, st->str___dict__) == 0) {
        if (!cpk_check_value(st, fname, "state['__dict__']", v,
                             CPK_ARG_DICT))
            return -1;
        PyObject *d = PyObject_GenericGetDict(func, NULL);
        int r = d == NULL ? -1 : PyDict_Update(d, v);
        Py_XDECREF(d);
        return r;
    }
    if (PyUnicode_Compare(k, st->str___submodules__) == 0)
        return cpk_check_value(st, fname, "state['__submodules__']",
                               v, CPK_ARG_SEQ) ? 0 : -1;
    /* A replacement code object: its counts, as for _function_new. */
    if (PyCode_Check(v) &&
        PyUnicode_CompareWithASCIIString(k, "__code__") == 0 &&
        !cpk_code_check(st, fname, v))
        return -1;
    /* __defaults__, __doc__, ...: the function's setters check the value. */
    return PyObject_SetAttr(func, k, v);
}

SIG(_function_fill, -1, {"func", CPK_ARG_FUNCTION}, {"state", CPK_ARG_DICT});

/* _function_fill(func, state): state is a dict; __globals__ merges into
 * the function's globals, __closure__ fills the cells, __closure_cells__
 * puts in the cells shared with other functions, __dict__ merges
 * into its __dict__, __submodules__ only made the loader import them;
 * every other key is set as an attribute. Returns None. */
static int
function_fill_impl(cpk_state *st, const char *fname, int argno,
                   PyObject *func, PyObject *state)
{
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    if (cpk_check_fill_target(st, fname, func) < 0)
        return -1;
    while (PyDict_Next(state, &pos, &k, &v)) {
        /* Updating globals compares keys, setattr may run code: either can
         * change `state` under us. */
        Py_INCREF(k);
        Py_INCREF(v);
        int r = fill_one(st, fname, argno, func, k, v);
        Py_DECREF(k);
        Py_DECREF(v);
        if (r < 0)
            return -1;
    }
    return 0;
}

static PyObject *
function_fill(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &_function_fill_sig, args, nargs) ||
        function_fill_impl(st, "_function_fill", 2, args[0], args[1]) < 0)
        return NULL;
    Py_RETURN_NONE;
}

SIG(_function_make, 4, {"code", CPK_ARG_ANY}, {"globals", CPK_ARG_DICT},
    {"ncells", CPK_ARG_INT | CPK_ARG_OR_NONE}, {"state", CPK_ARG_DICT},
    {"modules", CPK_ARG_TUPLE});

static PyObject *import_module(cpk_state *st, const char *fname,
                               PyObject *name);

/* _function_make's modules: (name, module name, ...) pairs, each module
 * imported as subimport imports it and bound to its name in the
 * function's globals (after its fill: see function_make). Checked
 * whole before the first import. 0 or -1. */
static int
set_modules(cpk_state *st, PyObject *func, PyObject *pairs)
{
    Py_ssize_t n = PyTuple_GET_SIZE(pairs);
    if (n % 2 != 0) {
        cpk_arg_error(st, 1, "_function_make",
                      "argument 5 (modules) must hold (name, module name) "
                      "pairs: %zd items",
                      n);
        return -1;
    }
    /* Exact str: a subclass's __hash__ would run in the dict insert. */
    for (Py_ssize_t i = 0; i < n; i++)
        if (!PyUnicode_CheckExact(PyTuple_GET_ITEM(pairs, i))) {
            cpk_arg_error(st, 0, "_function_make",
                          "argument 5 (modules) item %zd must be str, not %s",
                          i, Py_TYPE(PyTuple_GET_ITEM(pairs, i))->tp_name);
            return -1;
        }
    PyObject *globals = PyFunction_GET_GLOBALS(func);
    for (Py_ssize_t i = 0; i < n; i += 2) {
        PyObject *mod = import_module(st, "_function_make",
                                      PyTuple_GET_ITEM(pairs, i + 1));
        if (mod == NULL)
            return -1;
        /* The import ran code: the globals are held by the function,
         * which the caller holds. */
        int r = PyDict_SetItem(globals, PyTuple_GET_ITEM(pairs, i), mod);
        Py_DECREF(mod);
        if (r < 0)
            return -1;
    }
    return 0;
}

/* _function_make(code, globals, ncells, state[, modules]): _function_new
 * then _function_fill in one call, what a dump writes for a function
 * whose state cannot lead back to it (function.c): one name to import and
 * one call, where a task's function is the whole pickle. `code` is a code
 * object or _code_unmarshal's three arguments as a tuple, which spares
 * the pickle that name and its call; `modules` names the modules among
 * its globals, which spares it subimport's. New reference. */
static PyObject *
function_make(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &_function_make_sig, args, nargs))
        return NULL;
    PyObject *code;
    if (PyTuple_CheckExact(args[0])) {
        code = cpk_code_unmarshal(m, &PyTuple_GET_ITEM(args[0], 0),
                                  PyTuple_GET_SIZE(args[0]));
        if (code == NULL)
            return NULL;
    } else if (PyCode_Check(args[0])) {
        /* checked as a CPK_ARG_CODE argument is (args.c) */
        if (!cpk_code_check(st, "_function_make", args[0]))
            return NULL;
        code = Py_NewRef(args[0]);
    } else {
        cpk_arg_error(st, 0, "_function_make",
                      "argument 1 (code) must be code or a tuple "
                      "(python_version, magic, data), not %s",
                      Py_TYPE(args[0])->tp_name);
        return NULL;
    }
    PyObject *made[3] = {code, args[1], args[2]};
    PyObject *func = function_new_impl(st, "_function_make", made);
    Py_DECREF(code);
    /* The modules after the fill, which refuses globals that are an
     * imported module's namespace first. */
    if (func != NULL &&
        function_fill_impl(st, "_function_make", 4, func, args[3]) < 0)
        Py_CLEAR(func);
    if (func != NULL && nargs > 4 && set_modules(st, func, args[4]) < 0)
        Py_CLEAR(func);
    return func;
}

/* Cells -------------------------------------------------------------------- */

SIG(_make_cell, 0, {"value", CPK_ARG_ANY});

/* _make_cell(value=_empty_cell_value): a cell, empty for the marker. */
static PyObject *
make_cell(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &_make_cell_sig, args, nargs))
        return NULL;
    PyObject *v = nargs ? args[0] : NULL;
    return PyCell_New(v == st->empty_cell_value ? NULL : v);
}

SIG(_make_empty_cell, -1, {NULL, 0});

static PyObject *
make_empty_cell(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    if (!cpk_check_args(cpk_get_state(m), &_make_empty_cell_sig, args, nargs))
        return NULL;
    return PyCell_New(NULL);
}

/* Modules ------------------------------------------------------------------- */

/* The module `name`, as subimport gives it: its sys.modules entry, read
 * without waiting as importlib's own fast path reads it, unless its spec
 * says another thread is still running it: then the import below waits,
 * and sys.modules is read after (what was there before may have failed,
 * or been replaced). Half the cost of a task's module global at load; a
 * replaced builtins.__import__ is only asked for modules not yet imported
 * (doc/FORMAT.md). New reference. */
static PyObject *
import_module(cpk_state *st, const char *fname, PyObject *name)
{
    /* "os\0" would import os (CPython's frozen-module lookup reads the
     * name as a C string) under a name no import policy rule names. */
    if (PyUnicode_FindChar(name, 0, 0, PyUnicode_GET_LENGTH(name), 1) != -1) {
        if (!PyErr_Occurred())
            cpk_arg_error(st, 1, fname,
                          "module name %R holds a NUL character", name);
        return NULL;
    }
    PyObject *mod = NULL, *modules = PyImport_GetModuleDict();
    if (PyDict_Check(modules) && cpk_dict_get_ref(modules, name, &mod) < 0)
        return NULL;
    if (mod != NULL && PyModule_Check(mod)) {
        PyObject *spec = NULL, *init = NULL;
        int busy = PyObject_GetOptionalAttr(mod, st->str___spec__, &spec);
        if (busy == 1 && spec != Py_None)
            busy = PyObject_GetOptionalAttr(spec, st->str__initializing,
                                            &init);
        if (busy == 1 && init != NULL)
            busy = PyObject_IsTrue(init);
        else if (busy == 1)
            busy = 0;
        Py_XDECREF(spec);
        Py_XDECREF(init);
        if (busy == 0)
            return mod;
        if (busy < 0) {
            Py_DECREF(mod);
            return NULL;
        }
    }
    Py_XDECREF(mod);
    if (PyErr_Occurred())
        return NULL;
    PyObject *top = PyImport_Import(name);
    if (top == NULL)
        return NULL;
    Py_DECREF(top);
    mod = PyImport_GetModule(name);
    if (mod == NULL && !PyErr_Occurred())
        PyErr_Format(PyExc_ImportError,
                     "%s(): module %R is not in sys.modules after its import",
                     fname, name);
    return mod;
}

SIG(subimport, -1, {"name", CPK_ARG_STR});

/* subimport(name): import name and return that module (not its package). */
static PyObject *
subimport(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &subimport_sig, args, nargs))
        return NULL;
    return import_module(st, "subimport", args[0]);
}

SIG(dynamic_subimport, -1, {"name", CPK_ARG_STR}, {"vars", CPK_ARG_DICT});

/* dynamic_subimport(name, vars): a new module with that namespace. */
static PyObject *
dynamic_subimport(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &dynamic_subimport_sig, args, nargs))
        return NULL;
    PyObject *mod = PyModule_NewObject(args[0]);
    if (mod == NULL)
        return NULL;
    /* A module's __dict__ cannot be replaced: borrowing it from mod is
     * safe across the update. */
    PyObject *dict = PyModule_GetDict(mod);
    if (PyDict_Update(dict, args[1]) < 0 ||
        PyDict_SetItem(dict, st->str___builtins__,
                       PyModule_GetDict(st->builtins_module)) < 0) {
        Py_DECREF(mod);
        return NULL;
    }
    return mod;
}

SIG(_module_new, -1, {"name", CPK_ARG_STR}, {"namespace", CPK_ARG_DICT});

/* _module_new(name, namespace): a new module whose namespace IS that dict
 * (the globals the pickle gave the module's functions, function.c), so
 * what is set on the module is what its functions see. */
static PyObject *
module_new(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &_module_new_sig, args, nargs))
        return NULL;
    PyObject *ns = args[1];
    if (!PyDict_CheckExact(ns)) {
        cpk_arg_error(st, 0, "_module_new",
                      "argument 2 (namespace) must be dict, not %s",
                      Py_TYPE(ns)->tp_name);
        return NULL;
    }
    PyObject *mod = PyModule_NewObject(args[0]);
    if (mod == NULL)
        return NULL;
    /* No API makes a module around a given dict: the module type's dict
     * slot (tp_dictoffset, md_dict in every CPython) takes it, while the
     * module is ours alone. Its own dict lends the attributes a module
     * starts with (__name__, __doc__, __spec__, ...), where the namespace
     * lacks them, and __builtins__. */
    Py_ssize_t off = Py_TYPE(mod)->tp_dictoffset;
    PyObject **slot = off > 0 ? (PyObject **)((char *)mod + off) : NULL;
    if (slot == NULL || *slot != PyModule_GetDict(mod)) {
        PyErr_SetString(PyExc_SystemError,
                        "_module_new(): unexpected module layout");
        goto error;
    }
    PyObject *own = *slot;
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (PyDict_Next(own, &pos, &k, &v)) {
        /* Held: a key of `ns` may compare by running code. */
        Py_INCREF(k);
        Py_INCREF(v);
        PyObject *r = PyDict_SetDefault(ns, k, v);
        Py_DECREF(k);
        Py_DECREF(v);
        if (r == NULL)
            goto error;
    }
    if (PyDict_SetItem(ns, st->str___builtins__,
                       PyModule_GetDict(st->builtins_module)) < 0)
        goto error;
    *slot = Py_NewRef(ns);
    Py_DECREF(own);
    return mod;
error:
    Py_DECREF(mod);
    return NULL;
}

SIG(_module_fill, -1, {"module", CPK_ARG_ANY}, {"vars", CPK_ARG_DICT});

/* _module_fill(module, vars): the module's variables, set once the
 * functions that use its namespace exist. Only a module _module_new
 * made would be sensible, but any module is only updated. */
static PyObject *
module_fill(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &_module_fill_sig, args, nargs))
        return NULL;
    if (!PyModule_Check(args[0])) {
        cpk_arg_error(st, 0, "_module_fill",
                      "argument 1 (module) must be a module, not %s",
                      Py_TYPE(args[0])->tp_name);
        return NULL;
    }
    /* Held: updating compares keys, which may run code. (3.9, 3.10: a
     * module made by ModuleType.__new__ alone has no namespace.) */
    PyObject *dict = Py_XNewRef(PyModule_GetDict(args[0]));
    if (dict == NULL) {
        cpk_arg_error(st, 1, "_module_fill",
                      "argument 1 (module) must be a module the pickle "
                      "made, not one without a namespace");
        return NULL;
    }
    int r = cpk_namespace_is_imported(st, dict);
    if (r > 0)
        cpk_arg_error(st, 1, "_module_fill",
                      "argument 1 (module) must be a module the pickle "
                      "made, not the imported %R",
                      args[0]);
    if (r != 0) {
        Py_DECREF(dict);
        return NULL;
    }
    r = PyDict_Update(dict, args[1]);
    Py_DECREF(dict);
    if (r < 0)
        return NULL;
    Py_RETURN_NONE;
}

SIG(_builtin_type, -1, {"name", CPK_ARG_STR});

/* _builtin_type(name): getattr(types, name), which must be a class;
 * "ClassType" is `type` in pickles of cloudpickle < 1.3. */
static PyObject *
builtin_type(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &_builtin_type_sig, args, nargs))
        return NULL;
    PyObject *name = args[0];
    if (PyUnicode_CompareWithASCIIString(name, "ClassType") == 0)
        return Py_NewRef((PyObject *)&PyType_Type);
    PyObject *types = PyImport_ImportModule("types");
    if (types == NULL)
        return NULL;
    PyObject *t = NULL;
    int found = PyObject_GetOptionalAttr(types, name, &t);
    Py_DECREF(types);
    if (found < 0)
        return NULL;
    if (t == NULL || !PyType_Check(t)) {
        Py_XDECREF(t);
        cpk_arg_error(st, 1, "_builtin_type",
                      "argument 1 (name) must name a class of the types "
                      "module, not %R",
                      name);
        return NULL;
    }
    return t;
}

/* Classes -------------------------------------------------------------------- */

SIG(_make_skeleton_class, -1, {"metaclass", CPK_ARG_METACLASS},
    {"name", CPK_ARG_STR}, {"bases", CPK_ARG_TUPLE},
    {"type_kwargs", CPK_ARG_DICT},
    {"tracker_id", CPK_ARG_STR | CPK_ARG_OR_NONE}, {"extra", CPK_ARG_ANY});

/* _make_skeleton_class(metaclass, name, bases, type_kwargs, tracker_id,
 * extra): the class already known under tracker_id, if any (made again,
 * its __init_subclass__ would run for a class thrown away), else what
 * types.new_class does with type_kwargs as the namespace. extra: None or
 * {"class_kwargs": {str: value}}, the class statement's keywords, passed
 * to the metaclass (classkw.c). New reference. */
static PyObject *
make_skeleton_class(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    static const char *const fname = "_make_skeleton_class";
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &_make_skeleton_class_sig, args, nargs))
        return NULL;
    PyObject *meta = args[0], *name = args[1], *bases = args[2];
    PyObject *kwargs = args[3], *tid = args[4], *class_kwargs;
    PyObject *types = NULL, *resolved = NULL, *prep = NULL, *kwds = NULL;
    PyObject *cls = NULL, *result = NULL, *k = NULL, *v = NULL;
    if (!cpk_class_kwargs_arg(st, args[5], &class_kwargs))
        return NULL;
    /* Our own copy: resolving the bases and preparing the class run code
     * (__mro_entries__, __prepare__) that may change or free `extra`.
     * Copying a dict of str keys runs none. */
    if (class_kwargs != NULL && (class_kwargs = PyDict_Copy(class_kwargs)) ==
                                    NULL)
        return NULL;
    if (tid != Py_None) {
        result = cpk_tracker_lookup(st, tid);
        if (result != NULL || PyErr_Occurred()) {
            Py_XDECREF(class_kwargs);
            return result;
        }
    }
    /* Bases may be typing.Generic[T] and the like, whose type defines
     * __mro_entries__; types.resolve_bases also calls one an instance
     * holds, which BUILD may have set to a function the pickle carries:
     * a base is a class, or an object whose type has the method. */
    PyObject *mro_entries = PyUnicode_InternFromString("__mro_entries__");
    if (mro_entries == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(bases); i++) {
        PyObject *b = PyTuple_GET_ITEM(bases, i);
        /* functions too: typing.NamedTuple and TypedDict are functions
         * given the method as an attribute (pkscan lists a function
         * carried by value among the bases) */
        int ok = PyType_Check(b) || PyFunction_Check(b) ||
                 PyCFunction_Check(b) ||
                 _PyType_Lookup(Py_TYPE(b), mro_entries) != NULL;
        if (!ok) {
            Py_DECREF(mro_entries);
            cpk_arg_error(st, 0, fname,
                          "argument 3 (bases) item %zd must be a class, not "
                          "%s",
                          i, Py_TYPE(b)->tp_name);
            goto done;
        }
    }
    Py_DECREF(mro_entries);
    types = PyImport_ImportModule("types");
    if (types == NULL)
        goto done;
    resolved = PyObject_CallMethod(types, "resolve_bases", "(O)", bases);
    if (resolved == NULL)
        goto done;
    if (!PyTuple_Check(resolved)) {
        PyErr_SetString(PyExc_TypeError, "types.resolve_bases() changed");
        goto done;
    }
    if (!cpk_check_items(st, fname, "argument 3 (bases)", resolved,
                         CPK_ARG_CLASS))
        goto done;
    kwds = Py_BuildValue("{sO}", "metaclass", meta);
    if (kwds == NULL)
        goto done;
    /* A base still waiting for its namespace lacks its __init_subclass__:
     * the keywords wait for it (classkw.c). */
    int defer = 0;
    if (class_kwargs != NULL) {
        defer = cpk_class_bases_pending(st, meta, resolved);
        if (defer < 0 || (!defer && PyDict_Update(kwds, class_kwargs) < 0))
            goto done;
    }
    prep = PyObject_CallMethod(types, "prepare_class", "OOO", name, resolved,
                               kwds);
    if (prep == NULL)
        goto done;
    if (!PyTuple_Check(prep) || PyTuple_GET_SIZE(prep) != 3 ||
        !PyDict_Check(PyTuple_GET_ITEM(prep, 2))) {
        PyErr_SetString(PyExc_TypeError, "types.prepare_class() changed");
        goto done;
    }
    /* prep (ours, immutable) holds these. */
    PyObject *real_meta = PyTuple_GET_ITEM(prep, 0);
    PyObject *ns = PyTuple_GET_ITEM(prep, 1);
    Py_ssize_t pos = 0;
    while (PyDict_Next(kwargs, &pos, &k, &v)) {
        /* The namespace may be any mapping: setting an item runs code,
         * which may change type_kwargs. Interned, like names set by a
         * class body. */
        Py_INCREF(k);
        Py_INCREF(v);
        if (PyUnicode_CheckExact(k))
            PyUnicode_InternInPlace(&k);
        int r = PyObject_SetItem(ns, k, v);
        Py_CLEAR(k);
        Py_CLEAR(v);
        if (r < 0)
            goto done;
    }
    if (resolved != bases &&
        PyObject_SetItem(ns, st->str___orig_bases__, bases) < 0)
        goto done;
    PyObject *call_args = PyTuple_Pack(3, name, resolved, ns);
    if (call_args == NULL)
        goto done;
    cls = PyObject_Call(real_meta, call_args, PyTuple_GET_ITEM(prep, 2));
    Py_DECREF(call_args);
    if (cls == NULL)
        goto done;
    int found;
    result = cpk_tracker_lookup_or_track(st, tid, cls, &found);
    if (result != NULL && !found &&
        cpk_class_skeleton_made(st, result, defer ? class_kwargs : NULL) < 0)
        Py_CLEAR(result);
done:
    Py_XDECREF(class_kwargs);
    Py_XDECREF(types);
    Py_XDECREF(resolved);
    Py_XDECREF(kwds);
    Py_XDECREF(prep);
    Py_XDECREF(cls);
    return result;
}

SIG(_make_skeleton_enum, -1, {"bases", CPK_ARG_TUPLE}, {"name", CPK_ARG_STR},
    {"qualname", CPK_ARG_STR}, {"members", CPK_ARG_DICT},
    {"module", CPK_ARG_STR | CPK_ARG_OR_NONE},
    {"tracker_id", CPK_ARG_STR | CPK_ARG_OR_NONE}, {"extra", CPK_ARG_ANY});

/* _make_skeleton_enum(bases, name, qualname, members, module, tracker_id,
 * extra): the enum built by its metaclass from its members. New
 * reference. */
static PyObject *
make_skeleton_enum(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    static const char *const fname = "_make_skeleton_enum";
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &_make_skeleton_enum_sig, args, nargs))
        return NULL;
    PyObject *bases = args[0], *name = args[1], *qualname = args[2];
    PyObject *members = args[3], *module = args[4], *tid = args[5];
    if (PyTuple_GET_SIZE(bases) == 0) {
        cpk_arg_error(st, 1, fname, "argument 1 (bases) must not be empty");
        return NULL;
    }
    if (!cpk_check_items(st, fname, "argument 1 (bases)", bases,
                         CPK_ARG_CLASS))
        return NULL;
    /* Enums put their Enum base last. A class's type can be reassigned
     * (__class__) by the code __prepare__ runs: hold the metaclass. */
    PyObject *meta = Py_NewRef((PyObject *)Py_TYPE(
        PyTuple_GET_ITEM(bases, PyTuple_GET_SIZE(bases) - 1)));
    PyObject *ns = NULL, *cls = NULL, *result = NULL, *new = NULL;
    ns = PyObject_CallMethodObjArgs(meta, st->str___prepare__, name, bases,
                                    NULL);
    if (ns == NULL)
        goto done;
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (PyDict_Next(members, &pos, &k, &v)) {
        /* The enum namespace runs code on every item. */
        Py_INCREF(k);
        Py_INCREF(v);
        int r = PyObject_SetItem(ns, k, v);
        Py_DECREF(k);
        Py_DECREF(v);
        if (r < 0)
            goto done;
    }
    new = PyObject_GetAttr(meta, st->str___new__);
    if (new == NULL)
        goto done;
    cls = PyObject_CallFunctionObjArgs(new, meta, name, bases, ns, NULL);
    if (cls == NULL ||
        PyObject_SetAttr(cls, st->str___module__, module) < 0 ||
        PyObject_SetAttr(cls, st->str___qualname__, qualname) < 0)
        goto done;
    int found;
    result = cpk_tracker_lookup_or_track(st, tid, cls, &found);
done:
    Py_DECREF(meta);
    Py_XDECREF(new);
    Py_XDECREF(ns);
    Py_XDECREF(cls);
    return result;
}

/* Give enum members back the attributes their __init__ set: `attrs` maps
 * member names to dicts of attributes. 0 or -1. */
static int
set_member_attrs(cpk_state *st, PyObject *cls, PyObject *attrs)
{
    static const char *const fname = "_class_setstate";
    if (!cpk_check_value(st, fname, "state['_cpk_member_attrs']", attrs,
                         CPK_ARG_DICT))
        return -1;
    Py_ssize_t pos = 0;
    PyObject *name, *values;
    while (PyDict_Next(attrs, &pos, &name, &values)) {
        if (!cpk_check_value(st, fname, "state['_cpk_member_attrs'] key",
                             name, CPK_ARG_STR) ||
            !cpk_check_value(st, fname, "state['_cpk_member_attrs'] value",
                             values, CPK_ARG_DICT))
            return -1;
        /* getattr and setattr run code, which may change attrs. */
        Py_INCREF(name);
        Py_INCREF(values);
        PyObject *member = PyObject_GetAttr(cls, name);
        int r = member == NULL ? -1 : 0;
        /* only a member: an instance of the class itself. Anything else
         * getattr reaches (a base, an inherited function, an object an
         * attribute holds) may be imported and shared. */
        if (r == 0 && !PyObject_TypeCheck(member, (PyTypeObject *)cls)) {
            PyErr_Format(st->UnpicklingError,
                         "%s: state['_cpk_member_attrs'] names %R, which is "
                         "not a member of the class", fname, name);
            r = -1;
        }
        Py_DECREF(name);
        Py_ssize_t p2 = 0;
        PyObject *k, *v;
        while (r == 0 && PyDict_Next(values, &p2, &k, &v)) {
            if (!cpk_check_value(st, fname,
                                 "state['_cpk_member_attrs'] attribute name",
                                 k, CPK_ARG_STR)) {
                r = -1;
                break;
            }
            Py_INCREF(k);
            Py_INCREF(v);
            r = PyObject_SetAttr(member, k, v);
            Py_DECREF(k);
            Py_DECREF(v);
        }
        Py_XDECREF(member);
        Py_DECREF(values);
        if (r < 0)
            return -1;
    }
    return 0;
}

/* Register the virtual subclasses of an ABC (a list). 0 or -1. With
 * abc.ABCMeta.register itself, never a `register` looked up on the class:
 * the state just set may have put one there (a function the pickle
 * carries, which the load would run unseen by an import policy). */
static int
register_subclasses(cpk_state *st, PyObject *cls, PyObject *registry)
{
    if (!cpk_check_value(st, "_class_setstate", "state['_abc_impl']",
                         registry, CPK_ARG_SEQ))
        return -1;
    PyObject *meta = Py_NewRef(st->abcmeta); /* held: register runs code */
    PyObject *reg = NULL, *it = NULL, *sub;
    /* An iterator, not indices: register() may change a list. */
    if ((it = PyObject_GetIter(registry)) == NULL)
        goto error;
    while ((sub = PyIter_Next(it)) != NULL) {
        int ok = 1;
        if (reg == NULL) { /* an empty registry suits any class */
            ok = PyObject_IsInstance(cls, meta);
            if (ok == 0)
                cpk_arg_error(st, 1, "_class_setstate",
                              "state['_abc_impl'] registers subclasses of "
                              "classes of metaclass abc.ABCMeta only, not "
                              "of %s",
                              Py_TYPE(cls)->tp_name);
            if (ok > 0 &&
                (reg = PyObject_GetAttr(meta, st->str_register)) == NULL)
                ok = -1;
        }
        if (ok <= 0) {
            Py_DECREF(sub);
            goto error;
        }
        PyObject *r = PyObject_CallFunctionObjArgs(reg, cls, sub, NULL);
        Py_DECREF(sub);
        if (r == NULL)
            goto error;
        Py_DECREF(r);
    }
    if (PyErr_Occurred())
        goto error;
    Py_DECREF(it);
    Py_XDECREF(reg);
    Py_DECREF(meta);
    return 0;
error:
    Py_XDECREF(it);
    Py_XDECREF(reg);
    Py_DECREF(meta);
    return -1;
}

/* The shape of _class_setstate's (state, slotstate), checked whole before
 * anything is set (and before a class defined here is left untouched):
 * str keys; state['_abc_impl'] a list; state['_cpk_member_attrs']
 * {member name: {attribute name: value}}. Runs no Python code. 1, or 0
 * with an exception set. */
static int
check_class_state(cpk_state *st, PyObject *state)
{
    static const char *const fname = "_class_setstate";
    if (PyTuple_GET_SIZE(state) != 2)
        return cpk_arg_error(st, 1, fname,
                             "argument 2 (state) must be a (state, "
                             "slotstate) pair, not a tuple of %zd",
                             PyTuple_GET_SIZE(state));
    if (!cpk_check_items(st, fname, "argument 2 (state)", state,
                         CPK_ARG_DICT))
        return 0;
    for (int part = 0; part < 2; part++) {
        Py_ssize_t pos = 0;
        PyObject *k, *v;
        while (PyDict_Next(PyTuple_GET_ITEM(state, part), &pos, &k, &v)) {
            if (!cpk_check_value(st, fname, "argument 2 (state) key", k,
                                 CPK_ARG_STR))
                return 0;
            if (part == 1)
                continue;
            if (PyUnicode_Compare(k, st->str__abc_impl) == 0 &&
                !cpk_check_value(st, fname, "state['_abc_impl']", v,
                                 CPK_ARG_SEQ))
                return 0;
            if (PyUnicode_Compare(k, st->str__cpk_member_attrs) != 0)
                continue;
            if (!cpk_check_value(st, fname, "state['_cpk_member_attrs']", v,
                                 CPK_ARG_DICT))
                return 0;
            Py_ssize_t p2 = 0;
            PyObject *name, *attrs;
            while (PyDict_Next(v, &p2, &name, &attrs)) {
                if (!cpk_check_value(st, fname,
                                     "state['_cpk_member_attrs'] key", name,
                                     CPK_ARG_STR) ||
                    !cpk_check_value(st, fname,
                                     "state['_cpk_member_attrs'] value",
                                     attrs, CPK_ARG_DICT))
                    return 0;
                Py_ssize_t p3 = 0;
                PyObject *attr, *unused;
                while (PyDict_Next(attrs, &p3, &attr, &unused))
                    if (!cpk_check_value(st, fname,
                                         "state['_cpk_member_attrs'] "
                                         "attribute name",
                                         attr, CPK_ARG_STR))
                        return 0;
            }
        }
    }
    return 1;
}

SIG(_class_setstate, -1, {"cls", CPK_ARG_CLASS}, {"state", CPK_ARG_TUPLE});

/* _class_setstate(cls, (state, slotstate)): set the class attributes and
 * register the ABC's virtual subclasses. A class that was defined in this
 * process (not rebuilt from a pickle) is left as it is: its own methods
 * are better than copies whose globals are detached from its module.
 * Returns cls (new reference). */
static PyObject *
class_setstate(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    static const char *const fname = "_class_setstate";
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &_class_setstate_sig, args, nargs))
        return NULL;
    PyObject *cls = args[0], *state = args[1];
    if (!check_class_state(st, state))
        return NULL;
    int original = cpk_tracker_is_original(st, cls);
    if (original < 0)
        return NULL;
    if (original)
        return cpk_class_namespace_set(st, cls) < 0 ? NULL : Py_NewRef(cls);
    /* Stock cloudpickle ships an enum's aliases and composite flags in the
     * class state; the metaclass made them already and refuses to have
     * them reassigned. */
    PyObject *members = NULL, *registry = NULL, *member_attrs = NULL;
    PyObject *k = NULL, *v = NULL, *result = NULL;
    if (PyObject_GetOptionalAttr(cls, st->str__member_map_, &members) < 0)
        return NULL;
    if (members != NULL && !PyDict_Check(members))
        Py_CLEAR(members);
    for (int part = 0; part < 2; part++) {
        /* `state` is a tuple (immutable) that holds both dicts. */
        PyObject *d = PyTuple_GET_ITEM(state, part);
        Py_ssize_t pos = 0;
        while (PyDict_Next(d, &pos, &k, &v)) {
            if (!cpk_check_value(st, fname, "argument 2 (state) key", k,
                                 CPK_ARG_STR)) {
                k = v = NULL;
                goto done;
            }
            /* setattr and the member lookup run code, which may change
             * the dict: hold the item. */
            Py_INCREF(k);
            Py_INCREF(v);
            if (part == 0 && PyUnicode_Compare(k, st->str__abc_impl) == 0) {
                Py_XSETREF(registry, Py_NewRef(v));
                goto next;
            }
            if (part == 0 &&
                PyUnicode_Compare(k, st->str__cpk_member_attrs) == 0) {
                Py_XSETREF(member_attrs, Py_NewRef(v));
                goto next;
            }
            if (members != NULL) {
                int is_member = PyDict_Contains(members, k);
                if (is_member < 0)
                    goto done;
                if (is_member)
                    goto next;
            }
            if (PyObject_SetAttr(cls, k, v) < 0)
                goto done;
next:
            Py_CLEAR(k);
            Py_CLEAR(v);
        }
    }
    if (member_attrs != NULL && set_member_attrs(st, cls, member_attrs) < 0)
        goto done;
    if (registry != NULL && register_subclasses(st, cls, registry) < 0)
        goto done;
    if (cpk_class_namespace_set(st, cls) < 0)
        goto done;
    result = Py_NewRef(cls);
done:
    Py_XDECREF(k);
    Py_XDECREF(v);
    Py_XDECREF(members);
    Py_XDECREF(registry);
    Py_XDECREF(member_attrs);
    return result;
}

SIG(_make_typevar, -1, {"name", CPK_ARG_STR}, {"bound", CPK_ARG_ANY},
    {"constraints", CPK_ARG_TUPLE}, {"covariant", CPK_ARG_BOOL},
    {"contravariant", CPK_ARG_BOOL},
    {"tracker_id", CPK_ARG_STR | CPK_ARG_OR_NONE});

/* _make_typevar(name, bound, constraints, covariant, contravariant,
 * tracker_id): typing.TypeVar, once per tracker id. New reference. */
static PyObject *
make_typevar(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &_make_typevar_sig, args, nargs))
        return NULL;
    PyObject *typing = PyImport_ImportModule("typing");
    if (typing == NULL)
        return NULL;
    PyObject *TypeVar = PyObject_GetAttr(typing, st->str_TypeVar);
    Py_DECREF(typing);
    if (TypeVar == NULL)
        return NULL;
    PyObject *pos = NULL, *kw = NULL, *tv = NULL, *result = NULL;
    PyObject *name = PyTuple_Pack(1, args[0]);
    if (name != NULL)
        pos = PySequence_Concat(name, args[2]);
    kw = Py_BuildValue("{sOsOsO}", "bound", args[1], "covariant", args[3],
                       "contravariant", args[4]);
    if (pos != NULL && kw != NULL)
        tv = PyObject_Call(TypeVar, pos, kw);
    if (tv != NULL) {
        int found;
        result = cpk_tracker_lookup_or_track(st, args[5], tv, &found);
    }
    Py_XDECREF(name);
    Py_XDECREF(pos);
    Py_XDECREF(kw);
    Py_XDECREF(tv);
    Py_DECREF(TypeVar);
    return result;
}

/* Dict views, files, dataclass sentinels -------------------------------- */

static PyObject *
new_mapping(int ordered)
{
    return ordered ? PyObject_CallNoArgs((PyObject *)&PyODict_Type)
                   : PyDict_New();
}

/* A dict (or OrderedDict) holding `items` as its keys (values None), or
 * as its values (keys 0, 1, ...): what a keys or values view shows. New
 * reference. */
static PyObject *
mapping_of(PyObject *items, int ordered, int as_keys)
{
    PyObject *d = new_mapping(ordered);
    if (d == NULL)
        return NULL;
    PyObject *it = PyObject_GetIter(items), *item;
    Py_ssize_t i = 0;
    while (it != NULL && (item = PyIter_Next(it)) != NULL) {
        PyObject *k = as_keys ? Py_NewRef(item) : PyLong_FromSsize_t(i++);
        int e = k ? PyObject_SetItem(d, k, as_keys ? Py_None : item) : -1;
        Py_XDECREF(k);
        Py_DECREF(item);
        if (e < 0)
            break;
    }
    Py_XDECREF(it);
    if (PyErr_Occurred())
        Py_CLEAR(d);
    return d;
}

/* The view `method` of a mapping made of args[0]. New reference. */
static PyObject *
make_view(cpk_state *st, const cpk_signature *sig, const char *method,
          int as_keys, PyObject *const *args, Py_ssize_t nargs)
{
    if (!cpk_check_args(st, sig, args, nargs))
        return NULL;
    int ordered = nargs > 1 && args[1] == Py_True;
    PyObject *d;
    if (as_keys < 0)
        d = ordered ? PyObject_CallOneArg((PyObject *)&PyODict_Type, args[0])
                    : PyDict_Copy(args[0]);
    else
        d = mapping_of(args[0], ordered, as_keys);
    if (d == NULL)
        return NULL;
    PyObject *r = PyObject_CallMethod(d, method, NULL);
    Py_DECREF(d);
    return r;
}

SIG(_make_dict_keys, 1, {"keys", CPK_ARG_SEQ}, {"is_ordered", CPK_ARG_BOOL});
SIG(_make_dict_values, 1, {"values", CPK_ARG_SEQ},
    {"is_ordered", CPK_ARG_BOOL});
SIG(_make_dict_items, 1, {"mapping", CPK_ARG_DICT},
    {"is_ordered", CPK_ARG_BOOL});

/* _make_dict_keys(keys, is_ordered=False) */
static PyObject *
make_dict_keys(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    return make_view(cpk_get_state(m), &_make_dict_keys_sig, "keys", 1, args,
                     nargs);
}

/* _make_dict_values(values, is_ordered=False) */
static PyObject *
make_dict_values(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    return make_view(cpk_get_state(m), &_make_dict_values_sig, "values", 0,
                     args, nargs);
}

/* _make_dict_items(mapping, is_ordered=False) */
static PyObject *
make_dict_items(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    return make_view(cpk_get_state(m), &_make_dict_items_sig, "items", -1,
                     args, nargs);
}

SIG(_file_reconstructor, -1, {"file", CPK_ARG_ANY});

/* _file_reconstructor(stringio): a text file travels as an io.StringIO;
 * the argument is the result. New reference. */
static PyObject *
file_reconstructor(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &_file_reconstructor_sig, args, nargs))
        return NULL;
    if (!PyObject_TypeCheck(args[0], (PyTypeObject *)st->stringio_type)) {
        cpk_arg_error(st, 0, "_file_reconstructor",
                      "argument 1 (file) must be io.StringIO, not %s",
                      Py_TYPE(args[0])->tp_name);
        return NULL;
    }
    return Py_NewRef(args[0]);
}

SIG(_get_dataclass_field_type_sentinel, -1, {"name", CPK_ARG_STR});

/* _get_dataclass_field_type_sentinel(name): dataclasses._FIELD,
 * _FIELD_CLASSVAR or _FIELD_INITVAR (each is named as it is called).
 * New reference. */
static PyObject *
dataclass_sentinel(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &_get_dataclass_field_type_sentinel_sig, args,
                        nargs))
        return NULL;
    PyObject *name = args[0];
    PyObject *names[] = {st->str__FIELD, st->str__FIELD_CLASSVAR,
                         st->str__FIELD_INITVAR};
    PyObject *attr = NULL;
    for (size_t i = 0; i < 3 && attr == NULL; i++)
        if (PyUnicode_Compare(name, names[i]) == 0)
            attr = names[i];
    if (attr == NULL) {
        cpk_arg_error(st, 1, "_get_dataclass_field_type_sentinel",
                      "argument 1 (name) must be '_FIELD', '_FIELD_CLASSVAR' "
                      "or '_FIELD_INITVAR', not %R",
                      name);
        return NULL;
    }
    PyObject *dc = PyImport_ImportModule("dataclasses");
    if (dc == NULL)
        return NULL;
    PyObject *r = PyObject_GetAttr(dc, attr);
    Py_DECREF(dc);
    return r;
}

PyMethodDef cpk_reconstruct_methods[] = {
    FAST("_function_new", function_new,
         "_function_new(code, globals, ncells)\n--\n\nRebuild a function."),
    FAST("_function_fill", function_fill,
         "_function_fill(func, state)\n--\n\nSet a rebuilt function's state."),
    FAST("_function_make", function_make,
         "_function_make(code, globals, ncells, state, modules=())\n--\n\n"
         "Rebuild a function and set its state."),
    FAST("_code_unmarshal", cpk_code_unmarshal,
         "_code_unmarshal(python_version, magic, data)\n--\n\n"
         "Code object from marshal data of the same bytecode version."),
    FAST("_code_new", cpk_code_new,
         "_code_new(python_version, magic, fields)\n--\n\n"
         "Code object from types.CodeType arguments."),
    FAST("_make_cell", make_cell, "_make_cell(value)\n--\n\nA cell."),
    FAST("_make_empty_cell", make_empty_cell,
         "_make_empty_cell()\n--\n\nAn empty cell."),
    FAST("subimport", subimport,
         "subimport(name)\n--\n\nImport and return module name."),
    FAST("dynamic_subimport", dynamic_subimport,
         "dynamic_subimport(name, vars)\n--\n\nA module made on the fly."),
    FAST("_module_new", module_new,
         "_module_new(name, namespace)\n--\n\nA module made on the fly, "
         "whose namespace is that dict."),
    FAST("_module_fill", module_fill,
         "_module_fill(module, vars)\n--\n\nSet a rebuilt module's "
         "variables."),
    FAST("_builtin_type", builtin_type,
         "_builtin_type(name)\n--\n\ngetattr(types, name)."),
    FAST("_make_skeleton_class", make_skeleton_class,
         "_make_skeleton_class(metaclass, name, bases, type_kwargs, "
         "tracker_id, extra)\n--\n\nRebuild a class, once per tracker id."),
    FAST("_make_skeleton_enum", make_skeleton_enum,
         "_make_skeleton_enum(bases, name, qualname, members, module, "
         "tracker_id, extra)\n--\n\nRebuild an enum, once per tracker id."),
    FAST("_class_setstate", class_setstate,
         "_class_setstate(cls, state)\n--\n\nSet a rebuilt class's "
         "namespace."),
    FAST("_make_typevar", make_typevar,
         "_make_typevar(name, bound, constraints, covariant, contravariant, "
         "tracker_id)\n--\n\nRebuild a TypeVar, once per tracker id."),
    FAST("_make_dict_keys", make_dict_keys,
         "_make_dict_keys(keys, is_ordered=False)\n--\n\nA keys view."),
    FAST("_make_dict_values", make_dict_values,
         "_make_dict_values(values, is_ordered=False)\n--\n\nA values view."),
    FAST("_make_dict_items", make_dict_items,
         "_make_dict_items(mapping, is_ordered=False)\n--\n\nAn items view."),
    FAST("_file_reconstructor", file_reconstructor,
         "_file_reconstructor(stringio)\n--\n\nThe file, as read."),
    FAST("_get_dataclass_field_type_sentinel", dataclass_sentinel,
         "_get_dataclass_field_type_sentinel(name)\n--\n\n"
         "dataclasses._FIELD, _FIELD_CLASSVAR or _FIELD_INITVAR."),
    {NULL, NULL, 0, NULL},
};

/* _empty_cell_value: the value closure tuples hold for an empty cell.
 * One instance, pickled by name. */

static PyObject *
Sentinel_reduce(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyUnicode_FromString("_empty_cell_value");
}

static PyObject *
Sentinel_repr(PyObject *self)
{
    (void)self;
    return PyUnicode_FromString("<empty cell>");
}

static PyMethodDef sentinel_methods[] = {
    {"__reduce__", Sentinel_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot sentinel_slots[] = {
    {Py_tp_methods, sentinel_methods},
    {Py_tp_repr, Sentinel_repr},
    {0, NULL},
};

static PyType_Spec sentinel_spec = {
    .name = "ccloudpickle._EmptyCellValue",
    .basicsize = sizeof(PyObject),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = sentinel_slots,
};

int
cpk_reconstruct_init_types(PyObject *module, cpk_state *st)
{
    st->sentinel_type = (PyTypeObject *)PyType_FromModuleAndSpec(
        module, &sentinel_spec, NULL);
    if (st->sentinel_type == NULL)
        return -1;
    return cpk_args_init(module, st);
}
