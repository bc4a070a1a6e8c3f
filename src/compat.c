/* compat.c - stock cloudpickle's names, both ways.
 *
 * Loading: find_class (unpickler.c) asks cpk_compat_find for names under
 * cloudpickle, cloudpickle.cloudpickle and cloudpickle.cloudpickle_fast;
 * we answer with our own implementations (so pickles written by cloudpickle
 * 2.2 and 3.x load where cloudpickle is not installed, and share our class
 * tracker). The two whose signature differs from ours are here:
 * _make_function and _function_setstate.
 *
 * Writing (compat="cloudpickle"): reduce tuples name cloudpickle's
 * reconstructors through cpk_ref objects, callables that pickle as
 * getattr(__import__("cloudpickle.cloudpickle", ...), name), so plain
 * pickle.loads with stock cloudpickle installed rebuilds the object, and
 * calling one (e.g. copy.copy) runs our implementation.
 */
#include "internal.h"

#include <stddef.h>
#include <structmember.h>

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
    /* Our compat pickles name cloudpickle's module through __import__. */
    if (PyUnicode_CompareWithASCIIString(module, "builtins") == 0 &&
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

/* A module standing for cloudpickle.cloudpickle: our objects under its
 * names. Not in sys.modules. New reference. */
static PyObject *
shim_module(cpk_state *st)
{
    PyObject *mod = PyModule_New("cloudpickle.cloudpickle");
    if (mod == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof(compat_names) / sizeof(compat_names[0]);
         i++) {
        if (PyModule_AddObjectRef(mod, compat_names[i].name,
                                  compat_object(st, i)) < 0) {
            Py_DECREF(mod);
            return NULL;
        }
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
        if (st->shim == NULL && (st->shim = shim_module(st)) == NULL)
            return NULL;
        return Py_NewRef(st->shim);
    }
    return PyObject_Call(st->import_, args, kwargs);
}

/* _make_function(code, globals, name, argdefs, closure): cloudpickle's
 * types.FunctionType call, with builtins put in the globals. */
static PyObject *
cp_make_function(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (nargs != 5) {
        PyErr_Format(PyExc_TypeError,
                     "_make_function() takes 5 arguments (%zd given)", nargs);
        return NULL;
    }
    PyObject *code = args[0], *globals = args[1], *name = args[2];
    PyObject *argdefs = args[3], *closure = args[4];
    if (!PyCode_Check(code) || !PyDict_Check(globals)) {
        PyErr_SetString(st->UnpicklingError,
                        "invalid pickle: _make_function() needs code and a "
                        "dict");
        return NULL;
    }
    if (PyDict_SetItem(globals, st->str___builtins__, st->builtins_module) < 0)
        return NULL;
    PyObject *func = PyFunction_New(code, globals);
    if (func == NULL)
        return NULL;
    if ((name != Py_None &&
         PyObject_SetAttr(func, st->str___name__, name) < 0) ||
        (argdefs != Py_None && PyFunction_SetDefaults(func, argdefs) < 0))
        goto error;
    if (closure != Py_None) {
        Py_ssize_t nfree = cpk_code_nfreevars(code);
        if (!PyTuple_Check(closure) || PyTuple_GET_SIZE(closure) != nfree) {
            PyErr_SetString(st->UnpicklingError,
                            "invalid pickle: closure does not match the code");
            goto error;
        }
        for (Py_ssize_t i = 0; i < nfree; i++) {
            if (!PyCell_Check(PyTuple_GET_ITEM(closure, i))) {
                PyErr_SetString(st->UnpicklingError,
                                "invalid pickle: closure holds a non-cell");
                goto error;
            }
        }
        if (PyFunction_SetClosure(func, closure) < 0)
            goto error;
    }
    return func;
error:
    Py_DECREF(func);
    return NULL;
}

/* _function_setstate(func, (state, slotstate)): cloudpickle's layout, where
 * __globals__, __closure__ (cells) and _cloudpickle_submodules are not
 * attributes to set. */
static PyObject *
cp_function_setstate(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError,
                     "_function_setstate() takes 2 arguments (%zd given)",
                     nargs);
        return NULL;
    }
    PyObject *func = args[0], *state = args[1];
    if (!PyFunction_Check(func) || !PyTuple_Check(state) ||
        PyTuple_GET_SIZE(state) != 2 ||
        !PyDict_Check(PyTuple_GET_ITEM(state, 1))) {
        PyErr_SetString(st->UnpicklingError,
                        "invalid pickle: bad function state");
        return NULL;
    }
    PyObject *dict_state = PyTuple_GET_ITEM(state, 0);
    PyObject *slotstate = PyTuple_GET_ITEM(state, 1);
    if (dict_state != Py_None && PyObject_IsTrue(dict_state)) {
        PyObject *d = PyObject_GenericGetDict(func, NULL);
        int r = d == NULL ? -1 : PyDict_Update(d, dict_state);
        Py_XDECREF(d);
        if (r < 0)
            return NULL;
    }
    PyObject *globals = PyFunction_GET_GLOBALS(func);
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (PyDict_Next(slotstate, &pos, &k, &v)) {
        int r = 0;
        if (!PyUnicode_Check(k)) {
            PyErr_SetString(st->UnpicklingError,
                            "invalid pickle: function state key is not a str");
            return NULL;
        }
        if (PyUnicode_Compare(k, st->str___globals__) == 0) {
            if (!PyDict_Check(v)) {
                PyErr_SetString(st->UnpicklingError,
                                "invalid pickle: __globals__ is not a dict");
                return NULL;
            }
            r = PyDict_Update(globals, v);
            if (r == 0)
                r = PyDict_SetItem(globals, st->str___builtins__,
                                   st->builtins_module);
        }
        else if (PyUnicode_Compare(k, st->str___closure__) == 0) {
            PyObject *mine = PyFunction_GetClosure(func);
            if (v == Py_None)
                continue;
            if (!PyTuple_Check(v) || mine == NULL ||
                PyTuple_GET_SIZE(v) != PyTuple_GET_SIZE(mine)) {
                PyErr_SetString(st->UnpicklingError,
                                "invalid pickle: closure does not match");
                return NULL;
            }
            for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(v) && r == 0; i++) {
                PyObject *cell = PyTuple_GET_ITEM(v, i);
                if (!PyCell_Check(cell)) {
                    PyErr_SetString(st->UnpicklingError,
                                    "invalid pickle: closure holds a "
                                    "non-cell");
                    return NULL;
                }
                PyObject *value = PyCell_GET(cell);
                if (value != NULL)
                    r = PyCell_Set(PyTuple_GET_ITEM(mine, i), value);
            }
        }
        else if (PyUnicode_Compare(k, st->str__cloudpickle_submodules) == 0)
            continue;
        else
            r = PyObject_SetAttr(func, k, v);
        if (r < 0)
            return NULL;
    }
    Py_RETURN_NONE;
}

PyMethodDef cpk_compat_methods[] = {
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
