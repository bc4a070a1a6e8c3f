/* compat.c - stock cloudpickle's names, both ways.
 *
 * Loading: find_class (unpickler.c) asks cpk_compat_find for names under
 * cloudpickle, cloudpickle.cloudpickle and cloudpickle.cloudpickle_fast;
 * we answer with our own implementations (so pickles written by cloudpickle
 * 2.2 and 3.x load where cloudpickle is not installed, and share our class
 * tracker). The two whose signature differs from ours are here:
 * _make_function and _function_setstate.
 *
 * Writing (compat="cloudpickle", "cloudpickle2", "2.2", ...): reduce tuples
 * name cloudpickle's reconstructors through cpk_ref objects, callables that
 * pickle as getattr(__import__("cloudpickle.cloudpickle", ...), name), so
 * plain pickle.loads with stock cloudpickle installed rebuilds the object,
 * and calling one (e.g. copy.copy) runs our implementation. Which names
 * exist, and in which module, depends on the release that loads: the
 * compat value selects a cpk_format (the table below; the matrix is in
 * doc/FORMAT.md).
 */
#include "types/compat.h"
#include "core/state.h"
#include "ccloudpickle.h" /* cpk_compat_valid */
#include "common/pycompat.h"
#include "core/args.h"
#include "types/reconstruct.h"

#include <stddef.h>
#include <string.h>
#include <structmember.h>

/* Writing: the compat values ---------------------------------------------- */

/* Every accepted value, exactly (CPK_COMPAT_VALUES lists them). Releases
 * of one minor version offer the same loader names; 2.1 added
 * _make_function, 3.0 _get_dataclass_field_type_sentinel and moved
 * cloudpickle_fast's names into cloudpickle.cloudpickle. */
static const struct {
    const char *text;
    int format;
} compat_values[] = {
    {"cloudpickle", CPK_FORMAT_CLOUDPICKLE},
    {"cloudpickle3", CPK_FORMAT_CLOUDPICKLE},
    {"cloudpickle2", CPK_FORMAT_CLOUDPICKLE20}, /* every 2.x loads it */
    {"2.0", CPK_FORMAT_CLOUDPICKLE20},
    {"2.0.0", CPK_FORMAT_CLOUDPICKLE20},
    {"2.1", CPK_FORMAT_CLOUDPICKLE21},
    {"2.1.0", CPK_FORMAT_CLOUDPICKLE21},
    {"2.2", CPK_FORMAT_CLOUDPICKLE21},
    {"2.2.0", CPK_FORMAT_CLOUDPICKLE21},
    {"2.2.1", CPK_FORMAT_CLOUDPICKLE21},
    {"3.0", CPK_FORMAT_CLOUDPICKLE},
    {"3.0.0", CPK_FORMAT_CLOUDPICKLE},
    {"3.1", CPK_FORMAT_CLOUDPICKLE},
    {"3.1.0", CPK_FORMAT_CLOUDPICKLE},
    {"3.1.1", CPK_FORMAT_CLOUDPICKLE},
    {"3.1.2", CPK_FORMAT_CLOUDPICKLE},
};

/* The format for `text` (compared whole), or -1. */
static int
compat_lookup(const char *text, size_t len)
{
    for (size_t i = 0; i < sizeof(compat_values) / sizeof(compat_values[0]);
         i++)
        if (strlen(compat_values[i].text) == len &&
            memcmp(compat_values[i].text, text, len) == 0)
            return compat_values[i].format;
    return -1;
}

int
cpk_compat_valid(const char *text)
{
    return text != NULL && compat_lookup(text, strlen(text)) > 0;
}

int
cpk_compat_format(PyObject *compat)
{
    if (compat == Py_None)
        return CPK_FORMAT_NATIVE;
    if (PyUnicode_Check(compat)) {
        Py_ssize_t len;
        const char *text = PyUnicode_AsUTF8AndSize(compat, &len);
        if (text == NULL) {
            /* Lone surrogates: not one of ours either. */
            if (!PyErr_ExceptionMatches(PyExc_UnicodeError))
                return -1;
            PyErr_Clear();
        }
        else {
            int format = compat_lookup(text, (size_t)len);
            if (format > 0)
                return format;
        }
    }
    PyErr_Format(PyExc_ValueError,
                 "compat must be None or 'cloudpickle', 'cloudpickle2', "
                 "'cloudpickle3' or a cloudpickle release ('2.0', '2.1', "
                 "'2.2', '3.0', '3.1', '2.0.0', '2.1.0', '2.2.0', '2.2.1', "
                 "'3.0.0', '3.1.0', '3.1.1', '3.1.2'), not %R",
                 compat);
    return -1;
}

const char *
cpk_compat_target(int format)
{
    switch (format) {
    case CPK_FORMAT_CLOUDPICKLE20:
        return "cloudpickle 2.0-2.2";
    case CPK_FORMAT_CLOUDPICKLE21:
        return "cloudpickle 2.1-2.2";
    default:
        return "cloudpickle 3.0-3.1";
    }
}

/* Loading: the name map ---------------------------------------------------- */

static int
is_cloudpickle_module(PyObject *module)
{
    return PyUnicode_CompareWithASCIIString(module, "cloudpickle") == 0 ||
           PyUnicode_CompareWithASCIIString(module,
                                            "cloudpickle.cloudpickle") == 0 ||
           PyUnicode_CompareWithASCIIString(
               module, "cloudpickle.cloudpickle_fast") == 0;
}

/* cloudpickle's names and the state fields holding our objects for them
 * (-1: types.CellType). */
#define FIELD(f) offsetof(cpk_state, f)
static const struct {
    const char *name;
    Py_ssize_t field;
} compat_names[] = {
    {"_make_function", FIELD(cp_make_function)},
    {"_function_setstate", FIELD(cp_function_setstate)},
    {"_class_setstate", FIELD(class_setstate)},
    {"_make_skeleton_class", FIELD(make_skeleton_class)},
    {"_make_skeleton_enum", FIELD(make_skeleton_enum)},
    {"_make_typevar", FIELD(make_typevar)},
    {"_builtin_type", FIELD(builtin_type)},
    {"_builtin_type_reconstructor", FIELD(builtin_type)},
    {"_make_cell", FIELD(make_cell)},
    {"_make_empty_cell", FIELD(make_empty_cell)},
    {"_empty_cell_value", FIELD(empty_cell_value)},
    {"subimport", FIELD(subimport)},
    {"_module_reconstructor", FIELD(subimport)},
    {"dynamic_subimport", FIELD(dynamic_subimport)},
    {"_dynamic_module_reconstructor", FIELD(dynamic_subimport)},
    {"_make_dict_keys", FIELD(make_dict_keys)},
    {"_make_dict_values", FIELD(make_dict_values)},
    {"_make_dict_items", FIELD(make_dict_items)},
    {"_file_reconstructor", FIELD(file_reconstructor)},
    {"_get_dataclass_field_type_sentinel", FIELD(dataclass_sentinel)},
    {"CellType", -1},
};
#undef FIELD

static PyObject *
compat_object(cpk_state *st, size_t i)
{
    if (compat_names[i].field < 0)
        return (PyObject *)&PyCell_Type;
    return *(PyObject **)((char *)st + compat_names[i].field);
}

PyObject *
cpk_compat_find(cpk_state *st, PyObject *module, PyObject *name)
{
    /* Our compat pickles name cloudpickle's module through __import__:
     * builtins.__import__, or __builtin__.__import__ at protocols 0-2
     * (the name _pickle's find_class would map to builtins only after
     * us). */
    if ((PyUnicode_CompareWithASCIIString(module, "builtins") == 0 ||
         PyUnicode_CompareWithASCIIString(module, "__builtin__") == 0) &&
        PyUnicode_CompareWithASCIIString(name, "__import__") == 0)
        return st->compat_import;
    if (!is_cloudpickle_module(module))
        return NULL;
    for (size_t i = 0; i < sizeof(compat_names) / sizeof(compat_names[0]);
         i++)
        if (PyUnicode_CompareWithASCIIString(name, compat_names[i].name) == 0)
            return compat_object(st, i);
    return NULL;
}

/* Every name of compat_names with our object for it, into `dict`. 0, or
 * -1 with an exception. */
static int
add_compat_names(cpk_state *st, PyObject *dict)
{
    for (size_t i = 0; i < sizeof(compat_names) / sizeof(compat_names[0]);
         i++)
        if (PyDict_SetItemString(dict, compat_names[i].name,
                                 compat_object(st, i)) < 0)
            return -1;
    return 0;
}

/* A module standing for cloudpickle.cloudpickle: our objects under its
 * names. Not in sys.modules. New reference. */
static PyObject *
shim_module(cpk_state *st)
{
    PyObject *mod = PyModule_New("cloudpickle.cloudpickle");
    if (mod == NULL || add_compat_names(st, PyModule_GetDict(mod)) < 0) {
        Py_XDECREF(mod);
        return NULL;
    }
    return mod;
}

/* What find_class hands out for builtins.__import__: __import__, except
 * that cloudpickle's modules are our shim, so compat pickles load where
 * cloudpickle is not installed, with our class tracker. */
static PyObject *
compat_import(PyObject *m, PyObject *args, PyObject *kwargs)
{
    cpk_state *st = cpk_get_state(m);
    PyObject *name = PyTuple_GET_SIZE(args) > 0 ? PyTuple_GET_ITEM(args, 0)
                                                : NULL;
    if (name != NULL && PyUnicode_Check(name) && is_cloudpickle_module(name)) {
        if (st->shim == NULL) {
            PyObject *shim = shim_module(st);
            if (shim == NULL)
                return NULL;
            /* Making it may switch threads: keep the first one made. */
            if (st->shim == NULL)
                st->shim = shim;
            else
                Py_DECREF(shim);
        }
        return Py_NewRef(st->shim);
    }
    return PyObject_Call(st->import_, args, kwargs);
}

/* cloudpickle's closure for `code`: None when it has no free variable,
 * else a tuple of as many cells (types.FunctionType's rule; a function
 * with fewer cells than free variables reads past its closure when
 * called). 1 if it fits, else 0 with ReconstructorValueError or
 * ReconstructorTypeError set. */
static int
check_closure(cpk_state *st, const char *fname, const char *what,
              PyObject *code, PyObject *closure)
{
    Py_ssize_t nfree = cpk_code_nfreevars(code);
    if (closure == Py_None ? nfree != 0
                           : PyTuple_GET_SIZE(closure) != nfree) {
        PyObject *given = closure == Py_None
                              ? PyUnicode_FromString("None")
                              : PyUnicode_FromFormat(
                                    "%zd", PyTuple_GET_SIZE(closure));
        if (given == NULL)
            return 0;
        cpk_arg_error(st, 1, fname,
                      "%s must hold %zd cell%s, one per free variable of "
                      "code %R, not %U",
                      what, nfree, nfree == 1 ? "" : "s",
                      ((PyCodeObject *)code)->co_name, given);
        Py_DECREF(given);
        return 0;
    }
    return closure == Py_None ||
           cpk_check_items(st, fname, what, closure, CPK_ARG_CELL);
}

static const cpk_signature make_function_sig = {
    "_make_function",
    -1,
    {{"code", CPK_ARG_CODE},
     {"globals", CPK_ARG_DICT},
     {"name", CPK_ARG_STR | CPK_ARG_OR_NONE},
     {"argdefs", CPK_ARG_TUPLE | CPK_ARG_OR_NONE},
     {"closure", CPK_ARG_TUPLE | CPK_ARG_OR_NONE}},
};

/* _make_function(code, globals, name, argdefs, closure): cloudpickle's
 * types.FunctionType call, with builtins put in the globals. New
 * reference. */
static PyObject *
cp_make_function(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &make_function_sig, args, nargs))
        return NULL;
    PyObject *code = args[0], *globals = args[1], *name = args[2];
    PyObject *argdefs = args[3], *closure = args[4];
    if (!check_closure(st, "_make_function", "argument 5 (closure)", code,
                       closure))
        return NULL;
    if (PyDict_SetItem(globals, st->str___builtins__, st->builtins_module) < 0)
        return NULL;
    PyObject *func = PyFunction_New(code, globals);
    if (func == NULL)
        return NULL;
    if ((name != Py_None &&
         PyObject_SetAttr(func, st->str___name__, name) < 0) ||
        (argdefs != Py_None && PyFunction_SetDefaults(func, argdefs) < 0) ||
        (closure != Py_None && PyFunction_SetClosure(func, closure) < 0)) {
        Py_DECREF(func);
        return NULL;
    }
    return func;
}

/* One item of _function_setstate's slotstate. 0 or -1. */
static int
setstate_one(cpk_state *st, PyObject *func, PyObject *k, PyObject *v)
{
    static const char *const fname = "_function_setstate";
    if (!cpk_check_value(st, fname, "argument 2 (state) slotstate key", k,
                         CPK_ARG_STR))
        return -1;
    if (PyUnicode_Compare(k, st->str___globals__) == 0) {
        if (!cpk_check_value(st, fname, "slotstate['__globals__']", v,
                             CPK_ARG_DICT))
            return -1;
        /* __globals__ is read-only: the function keeps this dict alive. */
        PyObject *globals = PyFunction_GET_GLOBALS(func);
        if (PyDict_Update(globals, v) < 0)
            return -1;
        return PyDict_SetItem(globals, st->str___builtins__,
                              st->builtins_module);
    }
    if (PyUnicode_Compare(k, st->str___closure__) == 0) {
        if (!cpk_check_value(st, fname, "slotstate['__closure__']", v,
                             CPK_ARG_TUPLE | CPK_ARG_OR_NONE))
            return -1;
        if (v == Py_None)
            return 0;
        /* Cells of the function made by _make_function; it holds them. */
        PyObject *mine = PyFunction_GetClosure(func);
        Py_ssize_t ncells = mine ? PyTuple_GET_SIZE(mine) : 0;
        if (PyTuple_GET_SIZE(v) != ncells) {
            cpk_arg_error(st, 1, fname,
                          "slotstate['__closure__'] must hold %zd cell%s, "
                          "one per cell of the function, not %zd",
                          ncells, ncells == 1 ? "" : "s",
                          PyTuple_GET_SIZE(v));
            return -1;
        }
        if (!cpk_check_items(st, fname, "slotstate['__closure__']", v,
                             CPK_ARG_CELL))
            return -1;
        if (ncells == 0)
            return 0; /* no closure: `mine` is NULL */
        Py_INCREF(mine);
        int r = 0;
        for (Py_ssize_t i = 0; i < ncells && r == 0; i++) {
            /* Setting a cell drops its old value, which may run code. */
            PyObject *value = Py_XNewRef(PyCell_GET(PyTuple_GET_ITEM(v, i)));
            if (value != NULL)
                r = PyCell_Set(PyTuple_GET_ITEM(mine, i), value);
            Py_XDECREF(value);
        }
        Py_DECREF(mine);
        return r;
    }
    if (PyUnicode_Compare(k, st->str__cloudpickle_submodules) == 0)
        return cpk_check_value(st, fname,
                               "slotstate['_cloudpickle_submodules']", v,
                               CPK_ARG_SEQ)
                   ? 0
                   : -1;
    /* A replacement code object: its counts, as for _function_new. */
    if (PyCode_Check(v) &&
        PyUnicode_CompareWithASCIIString(k, "__code__") == 0 &&
        !cpk_code_check(st, fname, v))
        return -1;
    /* __defaults__, __doc__, ...: the function's setters check the value. */
    return PyObject_SetAttr(func, k, v);
}

static const cpk_signature function_setstate_sig = {
    "_function_setstate",
    -1,
    {{"func", CPK_ARG_FUNCTION}, {"state", CPK_ARG_TUPLE}},
};

/* _function_setstate(func, (state, slotstate)): cloudpickle's layout, where
 * __globals__, __closure__ (cells) and _cloudpickle_submodules are not
 * attributes to set. Returns None. */
static PyObject *
cp_function_setstate(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    static const char *const fname = "_function_setstate";
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &function_setstate_sig, args, nargs))
        return NULL;
    PyObject *func = args[0], *state = args[1];
    if (cpk_check_fill_target(st, fname, func) < 0)
        return NULL;
    if (PyTuple_GET_SIZE(state) != 2) {
        cpk_arg_error(st, 1, fname,
                      "argument 2 (state) must be a (state, slotstate) "
                      "pair, not a tuple of %zd",
                      PyTuple_GET_SIZE(state));
        return NULL;
    }
    /* The tuple (immutable) holds both. */
    PyObject *dict_state = PyTuple_GET_ITEM(state, 0);
    PyObject *slotstate = PyTuple_GET_ITEM(state, 1);
    if (!cpk_check_value(st, fname, "argument 2 (state) item 0", dict_state,
                         CPK_ARG_DICT | CPK_ARG_OR_NONE) ||
        !cpk_check_value(st, fname, "argument 2 (state) item 1", slotstate,
                         CPK_ARG_DICT))
        return NULL;
    if (dict_state != Py_None && PyDict_GET_SIZE(dict_state) > 0) {
        PyObject *d = PyObject_GenericGetDict(func, NULL);
        int r = d == NULL ? -1 : PyDict_Update(d, dict_state);
        Py_XDECREF(d);
        if (r < 0)
            return NULL;
    }
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (PyDict_Next(slotstate, &pos, &k, &v)) {
        /* Updating globals compares keys, setattr may run code: either can
         * change slotstate under us. */
        Py_INCREF(k);
        Py_INCREF(v);
        int r = setstate_one(st, func, k, v);
        Py_DECREF(k);
        Py_DECREF(v);
        if (r < 0)
            return NULL;
    }
    Py_RETURN_NONE;
}

/* _compat_names(): {name: our object} for every name of stock
 * cloudpickle's modules that we answer for (the table above), for the
 * `cloudpickle` alias (python/_ccloudpickle_alias.py), so that plain
 * pickle.loads of stock's pickles finds ours there. A new dict. */
static PyObject *
compat_names_dict(PyObject *m, PyObject *unused)
{
    (void)unused;
    PyObject *d = PyDict_New();
    if (d == NULL || add_compat_names(cpk_get_state(m), d) < 0) {
        Py_XDECREF(d);
        return NULL;
    }
    return d;
}

PyMethodDef cpk_compat_methods[] = {
    {"_compat_names", compat_names_dict, METH_NOARGS,
     PyDoc_STR("_compat_names()\n--\n\n"
               "{name: object}: stock cloudpickle's reconstructor names\n"
               "and the ccloudpickle objects that answer for them.")},
    {"_import", (PyCFunction)(void (*)(void))compat_import,
     METH_VARARGS | METH_KEYWORDS,
     PyDoc_STR("_import(name, *args, **kwargs)\n--\n\n"
               "__import__, with cloudpickle's modules mapped to ours.")},
    {"_make_function", (PyCFunction)(void (*)(void))cp_make_function,
     METH_FASTCALL,
     PyDoc_STR("_make_function(code, globals, name, argdefs, closure)\n--\n\n"
               "cloudpickle's function reconstructor.")},
    {"_function_setstate", (PyCFunction)(void (*)(void))cp_function_setstate,
     METH_FASTCALL,
     PyDoc_STR("_function_setstate(func, state)\n--\n\n"
               "cloudpickle's function state setter.")},
    {NULL, NULL, 0, NULL},
};

/* Writing: cpk_ref ----------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    PyObject *module; /* "cloudpickle.cloudpickle" */
    PyObject *name;   /* attribute, or NULL for the module itself */
    PyObject *impl;   /* our implementation, called when the ref is */
} cpk_ref;

static PyObject *
Ref_call(PyObject *op, PyObject *args, PyObject *kwds)
{
    cpk_ref *self = (cpk_ref *)op;
    if (self->impl == NULL) {
        PyErr_SetString(PyExc_TypeError, "module reference is not callable");
        return NULL;
    }
    return PyObject_Call(self->impl, args, kwds);
}

static PyObject *
Ref_repr(PyObject *op)
{
    cpk_ref *self = (cpk_ref *)op;
    if (self->name == NULL)
        return PyUnicode_FromFormat("<reference to module %U>", self->module);
    return PyUnicode_FromFormat("<reference to %U.%U>", self->module,
                                self->name);
}

static int
Ref_traverse(PyObject *op, visitproc visit, void *arg)
{
    cpk_ref *self = (cpk_ref *)op;
    Py_VISIT(self->module);
    Py_VISIT(self->name);
    Py_VISIT(self->impl);
    Py_VISIT(Py_TYPE(op));
    return 0;
}

static int
Ref_clear(PyObject *op)
{
    cpk_ref *self = (cpk_ref *)op;
    Py_CLEAR(self->module);
    Py_CLEAR(self->name);
    Py_CLEAR(self->impl);
    return 0;
}

static void
Ref_dealloc(PyObject *op)
{
    PyTypeObject *tp = Py_TYPE(op);
    PyObject_GC_UnTrack(op);
    Ref_clear(op);
    tp->tp_free(op);
    Py_DECREF(tp);
}

static PyType_Slot ref_slots[] = {
    {Py_tp_call, Ref_call},
    {Py_tp_repr, Ref_repr},
    {Py_tp_traverse, Ref_traverse},
    {Py_tp_clear, Ref_clear},
    {Py_tp_dealloc, Ref_dealloc},
    {0, NULL},
};

static PyType_Spec ref_spec = {
    .name = "ccloudpickle._Reference",
    .basicsize = sizeof(cpk_ref),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .slots = ref_slots,
};

/* The cached reference to module[.name] (borrowed). */
static PyObject *
get_ref(cpk_state *st, const char *module, const char *name, PyObject *impl)
{
    PyObject *key = name ? PyUnicode_FromFormat("%s.%s", module, name)
                         : PyUnicode_FromString(module);
    if (key == NULL)
        return NULL;
    PyObject *ref = PyDict_GetItemWithError(st->extrefs, key);
    if (ref != NULL || PyErr_Occurred()) {
        Py_DECREF(key);
        return ref;
    }
    cpk_ref *r = PyObject_GC_New(cpk_ref, st->ref_type);
    if (r == NULL) {
        Py_DECREF(key);
        return NULL;
    }
    r->module = PyUnicode_FromString(module);
    r->name = name ? PyUnicode_FromString(name) : NULL;
    r->impl = Py_XNewRef(impl);
    PyObject_GC_Track(r);
    int e = (r->module == NULL || (name && r->name == NULL))
                ? -1
                : PyDict_SetItem(st->extrefs, key, (PyObject *)r);
    Py_DECREF(r);
    Py_DECREF(key);
    return e < 0 ? NULL : (PyObject *)r;
}

PyObject *
cpk_callable(cpk_state *st, int format, PyObject *native,
             const char *cp_module, const char *cp_name)
{
    if (format == CPK_FORMAT_NATIVE)
        return native;
    /* 2.x defines _function_setstate, _class_setstate and
     * _file_reconstructor only in cloudpickle_fast; 3.x (whose own pickles
     * name cloudpickle.cloudpickle) keeps that module as a shim forwarding
     * to cloudpickle.cloudpickle: naming it serves every release. */
    return get_ref(st, cp_module, cp_name, native);
}

/* getattr(__import__(module, None, None, ("__name__",)), name): the
 * non-empty fromlist makes __import__ return the submodule itself. */
PyObject *
cpk_reduce_extref(cpk_state *st, PyObject *op)
{
    cpk_ref *self = (cpk_ref *)op;
    if (self->name == NULL)
        return Py_BuildValue("(O(OOO(O)))", st->import_, self->module,
                             Py_None, Py_None, st->str___name__);
    const char *module = PyUnicode_AsUTF8(self->module);
    if (module == NULL)
        return NULL;
    PyObject *modref = get_ref(st, module, NULL, NULL);
    if (modref == NULL)
        return NULL;
    return Py_BuildValue("(O(OO))", st->getattr, modref, self->name);
}

int
cpk_compat_init(PyObject *module, cpk_state *st)
{
    st->ref_type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &ref_spec,
                                                            NULL);
    return st->ref_type == NULL ? -1 : 0;
}
