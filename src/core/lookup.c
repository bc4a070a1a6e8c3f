/* lookup.c - by reference or by value: can an object be found again as a
 * module attribute (what pickle's save_global relies on), and the registry
 * of modules whose objects the user asked to pickle by value. The reducers
 * that act on the answer are in function.c, class.c and reducers.c.
 */
#include "core/lookup.h"
#include "core/state.h"
#include "common/pycompat.h"
#include "common/pyerr.h" /* cpk_error_clearable */
#include "core/stock.h"

/* Is `name` (a module name) or one of its parent packages registered? */
int
cpk_is_registered_by_value(cpk_state *st, PyObject *name)
{
    if (PySet_GET_SIZE(st->by_value) == 0 || !PyUnicode_Check(name))
        return 0;
    int r = PySet_Contains(st->by_value, name);
    Py_ssize_t end = PyUnicode_GET_LENGTH(name);
    while (r == 0) {
        end = PyUnicode_FindChar(name, '.', 0, end, -1);
        if (end == -2)
            return -1;
        if (end < 0)
            break;
        PyObject *parent = PyUnicode_Substring(name, 0, end);
        if (parent == NULL)
            return -1;
        r = PySet_Contains(st->by_value, parent);
        Py_DECREF(parent);
    }
    return r;
}

/* A str subclass as a module name becomes an exact str (new reference;
 * steals `name`): what is written is then a plain string the loader's
 * reconstructors take, and lookups by it run no user __hash__ or __eq__. */
static PyObject *
exact_name(PyObject *name)
{
    if (PyUnicode_CheckExact(name))
        return name;
    PyObject *exact = PyUnicode_FromObject(name);
    Py_DECREF(name);
    return exact;
}

/* A module's __name__ (new reference, an exact str), read once from its
 * namespace, or NULL with a PicklingError saying why it cannot be named:
 * missing or not a str (on 3.9 and 3.10 a module made by ModuleType.__new__
 * alone has no namespace at all). Errors of the lookup itself propagate,
 * where PyModule_GetNameObject would raise SystemError (3.9: for any
 * error). */
PyObject *
cpk_module_name(cpk_state *st, PyObject *module)
{
    PyObject *dict = PyModule_GetDict(module), *name = NULL;
    if (dict != NULL && cpk_dict_get_ref(dict, st->str___name__, &name) < 0)
        return NULL;
    if (name != NULL && PyUnicode_Check(name))
        return exact_name(name);
    PyErr_Format(st->PicklingError, "cannot pickle module: its __name__ is %s",
                 name == NULL ? "missing" : "not a str");
    Py_XDECREF(name);
    return NULL;
}

/* The name of a module objects are found in (new reference): its
 * namespace's, or, where that has none, what getattr gives, as stock
 * cloudpickle reads it (a ModuleType subclass standing in for a module,
 * forwarding attributes without ModuleType.__init__). NULL with a
 * PicklingError when neither gives a str. */
PyObject *
cpk_module_found_name(cpk_state *st, PyObject *module)
{
    PyObject *name = cpk_module_name(st, module);
    if (name != NULL || !PyErr_ExceptionMatches(st->PicklingError))
        return name;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    name = PyObject_GetAttr(module, st->str___name__);
    if (name != NULL && PyUnicode_Check(name)) {
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        return exact_name(name);
    }
    if (name == NULL && !PyErr_ExceptionMatches(PyExc_AttributeError)) {
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        return NULL;
    }
    /* No name either way: the namespace's error stands. */
    Py_XDECREF(name);
    PyErr_Clear();
    PyErr_Restore(type, value, tb);
    return NULL;
}

/* Is the module an object was found in registered by value? A module
 * whose name cannot be read raises, as for stock cloudpickle: answering
 * "no" would write by reference what the user asked to ship by value. */
static int
module_registered(cpk_state *st, PyObject *module)
{
    PyObject *name;
    if (PyModule_Check(module))
        name = cpk_module_found_name(st, module);
    else
        name = PyObject_GetAttr(module, st->str___name__);
    if (name == NULL) {
        /* An object standing in for a module, without a name: not
         * registered. */
        if (PyModule_Check(module) ||
            !PyErr_ExceptionMatches(PyExc_AttributeError))
            return -1;
        PyErr_Clear();
        return 0;
    }
    int r = cpk_is_registered_by_value(st, name);
    Py_DECREF(name);
    return r;
}

/* getattr(obj, name) that reports "missing" as 0 rather than by raising,
 * for plain modules without a module __getattr__ (the common case, and the
 * one where a miss is common: lambdas, "<locals>"). New reference in
 * *result. */
static int
lookup_attr(cpk_state *st, PyObject *obj, PyObject *name, PyObject **result)
{
    PyObject *dict;
    /* A module's dict is never replaced; the module is the caller's. (3.9
     * and 3.10: a module made by ModuleType.__new__ alone has none.) */
    if (Py_IS_TYPE(obj, &PyModule_Type) &&
        (dict = PyModule_GetDict(obj)) != NULL) {
        int r = cpk_dict_get_ref(dict, name, result);
        if (r != 0)
            return r;
        int has_getattr = PyDict_Contains(dict, st->str___getattr__);
        if (has_getattr < 0)
            return -1;
        if (!has_getattr && _PyType_Lookup(&PyModule_Type, name) == NULL) {
            *result = NULL;
            return 0;
        }
    }
    *result = PyObject_GetAttr(obj, name);
    if (*result != NULL)
        return 1;
    if (!PyErr_ExceptionMatches(PyExc_AttributeError))
        return -1;
    PyErr_Clear();
    return 0;
}

/* pickle's _getattribute: follow a dotted qualified name from `root`;
 * a "<locals>" part means the object cannot be reached. Returns 1 with a
 * new reference in *result, 0 when not found, -1 on error. */
static int
getattribute(cpk_state *st, PyObject *root, PyObject *qualname,
             PyObject **result)
{
    if (PyUnicode_FindChar(qualname, '.', 0, PyUnicode_GET_LENGTH(qualname),
                           1) == -1)
        return lookup_attr(st, root, qualname, result);
    PyObject *parts = PyUnicode_Split(qualname, st->str_dot, -1);
    if (parts == NULL)
        return -1;
    PyObject *obj = Py_NewRef(root);
    int r = 1;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(parts); i++) {
        PyObject *part = PyList_GET_ITEM(parts, i);
        if (PyUnicode_Compare(part, st->str_locals) == 0) {
            r = 0;
            break;
        }
        PyObject *next;
        r = lookup_attr(st, obj, part, &next);
        if (r <= 0)
            break;
        Py_SETREF(obj, next);
    }
    Py_DECREF(parts);
    if (r <= 0) {
        Py_DECREF(obj);
        *result = NULL;
        return r;
    }
    *result = obj;
    return 1;
}

/* cloudpickle's _whichmodule: obj.__module__, else the first module of
 * sys.modules (but __main__) that has obj under `name`. New reference, or
 * Py_None when nowhere; NULL on error. */
static PyObject *
whichmodule(cpk_state *st, PyObject *obj, PyObject *name)
{
    PyObject *module_name;
    if (PyObject_GetOptionalAttr(obj, st->str___module__, &module_name) < 0)
        return NULL;
    if (module_name != NULL && module_name != Py_None)
        return module_name;
    Py_XDECREF(module_name);
    if (name == NULL || !PyUnicode_Check(name))
        Py_RETURN_NONE;

    /* A copy: imports triggered by getattr may change sys.modules. */
    PyObject *items = PyDict_Items(st->sys_modules);
    if (items == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items); i++) {
        /* `items` is ours alone: its pairs stay alive. */
        PyObject *pair = PyList_GET_ITEM(items, i);
        PyObject *mname = PyTuple_GET_ITEM(pair, 0);
        PyObject *module = PyTuple_GET_ITEM(pair, 1);
        if (!PyModule_Check(module) || !PyUnicode_Check(mname) ||
            PyUnicode_CompareWithASCIIString(mname, "__main__") == 0 ||
            PyUnicode_CompareWithASCIIString(mname, "__mp_main__") == 0)
            continue;
        PyObject *found;
        int r = getattribute(st, module, name, &found);
        if (r < 0) {
            /* Errors of module introspection are side effects, ignored as
             * cloudpickle's `except Exception` ignores them; Ctrl-C,
             * SystemExit and MemoryError are not. */
            if (!cpk_error_clearable()) {
                Py_DECREF(items);
                return NULL;
            }
            PyErr_Clear();
            continue;
        }
        if (r == 1) {
            Py_DECREF(found);
            if (found == obj) {
                Py_INCREF(mname);
                Py_DECREF(items);
                return mname;
            }
        }
    }
    Py_DECREF(items);
    Py_RETURN_NONE;
}

int
cpk_lookup_module_and_qualname(cpk_state *st, PyObject *obj, PyObject *name,
                               PyObject **module_out, PyObject **qualname_out)
{
    PyObject *qualname = NULL, *module_name = NULL, *module = NULL;
    int found = 0;
    *module_out = *qualname_out = NULL;

    if (name != NULL)
        qualname = Py_NewRef(name);
    else {
        if (PyObject_GetOptionalAttr(obj, st->str___qualname__, &qualname) < 0)
            return -1;
        if (qualname == NULL &&
            PyObject_GetOptionalAttr(obj, st->str___name__, &qualname) < 0)
            return -1;
    }
    if (qualname == NULL || !PyUnicode_Check(qualname))
        goto done;

    module_name = whichmodule(st, obj, qualname);
    if (module_name == NULL)
        goto error;
    if (!PyUnicode_Check(module_name) ||
        PyUnicode_CompareWithASCIIString(module_name, "__main__") == 0)
        goto done;
    /* In sys.modules means importable on the other side (cloudpickle #357). */
    int in_modules = cpk_dict_get_ref(st->sys_modules, module_name, &module);
    if (in_modules < 0)
        goto error;
    if (!in_modules)
        goto done;
    PyObject *found_obj;
    int r = getattribute(st, module, qualname, &found_obj);
    if (r < 0)
        goto error;
    if (r == 1) {
        Py_DECREF(found_obj);
        if (found_obj == obj) {
            *module_out = Py_NewRef(module);
            *qualname_out = Py_NewRef(qualname);
            found = 1;
        }
    }
done:
    Py_XDECREF(module);
    Py_XDECREF(module_name);
    Py_XDECREF(qualname);
    return found;
error:
    Py_XDECREF(module);
    Py_XDECREF(module_name);
    Py_XDECREF(qualname);
    return -1;
}

int
cpk_should_pickle_by_reference(cpk_state *st, PyObject *obj)
{
    PyObject *module, *found_qualname;
    int r;

    if (PyFunction_Check(obj)) {
        /* The fields PyFunction_New filled: no attribute lookups. Held:
         * the lookups below run Python code that may reassign them. */
        PyFunctionObject *f = (PyFunctionObject *)obj;
        if (f->func_module != NULL && PyUnicode_CheckExact(f->func_module) &&
            PyUnicode_CheckExact(f->func_qualname)) {
            if (PyUnicode_CompareWithASCIIString(f->func_module,
                                                 "__main__") == 0)
                return 0;
            PyObject *mname = Py_NewRef(f->func_module);
            PyObject *qualname = Py_NewRef(f->func_qualname);
            PyObject *m, *found;
            r = cpk_dict_get_ref(st->sys_modules, mname, &m);
            if (r > 0) {
                r = getattribute(st, m, qualname, &found);
                if (r == 1) {
                    Py_DECREF(found);
                    r = found == obj;
                    if (r == 1) {
                        r = module_registered(st, m);
                        r = r < 0 ? -1 : !r;
                    }
                }
                Py_DECREF(m);
            }
            Py_DECREF(mname);
            Py_DECREF(qualname);
            return r;
        }
    }
    r = cpk_lookup_module_and_qualname(st, obj, NULL, &module,
                                       &found_qualname);
    if (r <= 0)
        return r;
    Py_DECREF(found_qualname);
    r = module_registered(st, module);
    Py_DECREF(module);
    return r < 0 ? -1 : !r;
}

/* Is a module of this name written by reference? Not registered by value,
 * and in sys.modules, our stand-in for "importable by name"
 * (cloudpickle). */
int
cpk_module_name_by_reference(cpk_state *st, PyObject *name)
{
    int r = cpk_is_registered_by_value(st, name);
    if (r == 0)
        r = PyDict_Contains(st->sys_modules, name);
    else if (r > 0)
        r = 0;
    return r;
}

int
cpk_module_by_reference(cpk_state *st, PyObject *module)
{
    PyObject *name = cpk_module_name(st, module);
    if (name == NULL) {
        /* Nameless: not by reference (its reducer says why it fails). */
        if (!cpk_error_clearable())
            return -1;
        PyErr_Clear();
        return 0;
    }
    int r = cpk_module_name_by_reference(st, name);
    Py_DECREF(name);
    return r;
}

/* The registry's Python API ------------------------------------------------ */

/* The name of the module argument of the registry functions (new
 * reference), or NULL with cloudpickle's ValueError for a non-module. */
static PyObject *
module_arg_name(cpk_state *st, PyObject *module)
{
    if (!PyModule_Check(module)) {
        PyObject *s = PyObject_Str(module);
        if (s != NULL) {
            PyErr_Format(PyExc_ValueError,
                         "Input should be a module object, got %U instead", s);
            Py_DECREF(s);
        }
        return NULL;
    }
    /* Registered under an exact str, as the pickler looks it up. */
    PyObject *name = PyObject_GetAttr(module, st->str___name__);
    return name != NULL && PyUnicode_Check(name) ? exact_name(name) : name;
}

PyObject *
cpk_register_by_value(PyObject *m, PyObject *module)
{
    cpk_state *st = cpk_get_state(m);
    /* Stock cloudpickle's registry, if rebound since (stock.c). */
    if (cpk_stock_refresh(st) < 0)
        return NULL;
    PyObject *name = module_arg_name(st, module);
    if (name == NULL)
        return NULL;
    int r = PyDict_Contains(st->sys_modules, name);
    if (r == 0)
        PyErr_Format(PyExc_ValueError,
                     "%R was not imported correctly, have you used an "
                     "`import` statement to access it?",
                     module);
    if (r == 1)
        r = PySet_Add(st->by_value, name) < 0 ? -1 : 1;
    Py_DECREF(name);
    if (r <= 0)
        return NULL;
    Py_RETURN_NONE;
}

PyObject *
cpk_unregister_by_value(PyObject *m, PyObject *module)
{
    cpk_state *st = cpk_get_state(m);
    if (cpk_stock_refresh(st) < 0)
        return NULL;
    PyObject *name = module_arg_name(st, module);
    if (name == NULL)
        return NULL;
    int r = PySet_Discard(st->by_value, name);
    Py_DECREF(name);
    if (r < 0)
        return NULL;
    if (r == 0) {
        PyErr_Format(PyExc_ValueError,
                     "%R is not registered for pickle by value", module);
        return NULL;
    }
    Py_RETURN_NONE;
}

PyObject *
cpk_list_registry(PyObject *m, PyObject *unused)
{
    (void)unused;
    cpk_state *st = cpk_get_state(m);
    if (cpk_stock_refresh(st) < 0)
        return NULL;
    return PySet_New(st->by_value);
}
