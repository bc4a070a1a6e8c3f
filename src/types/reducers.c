/* reducers.c - the small types plain pickle cannot handle, dispatched by
 * exact type from reducer_override (pickler.c): code (code.c), cells,
 * modules, properties, classmethod/staticmethod, bound methods,
 * mappingproxy, memoryview, getset descriptors, dict views, text files,
 * loggers, WeakSet, TypeVar (class.c), dataclass sentinels, and locks and
 * the other per-process objects (primitives.c). Each returns a reduce
 * tuple, new reference. Also `_reduce`, the same reducers as one callable
 * for dispatch tables.
 */
#include "types/reducers.h"
#include "core/state.h"
#include "common/pycompat.h"
#include "common/pyerr.h" /* cpk_error_clearable */
#include "core/lazytypes.h"
#include "core/lookup.h"
#include "core/names.h"
#include "core/subtype.h"
#include "types/code.h"
#include "types/compat.h"
#include "types/exceptions.h"
#include "types/function.h"
#include "types/functools.h"
#include "types/portable.h"
#include "types/primitives.h"
#include "types/typeforms.h"

PyObject *
cpk_reduce_cell(cpk_state *st, PyObject *cell, int format)
{
    /* Held: looking the reconstructor up may allocate, run the GC and
     * with it code that changes the cell. */
    PyObject *v = Py_XNewRef(PyCell_GET(cell));
    if (v == NULL) {
        PyObject *f = cpk_callable(st, format, st->make_empty_cell,
                                   "cloudpickle.cloudpickle",
                                   "_make_empty_cell");
        return f ? Py_BuildValue("(O())", f) : NULL;
    }
    PyObject *f = cpk_callable(st, format, st->make_cell,
                               "cloudpickle.cloudpickle", "_make_cell");
    PyObject *r = f ? Py_BuildValue("(O(O))", f, v) : NULL;
    Py_DECREF(v);
    return r;
}

/* An importable module by name; a dynamic one (not in sys.modules, or
 * registered by value) with a copy of its namespace, __builtins__ left out
 * (the loader supplies its own). In our format (with a pickler) the
 * rebuilt module's namespace is the very dict its functions get as their
 * globals, whichever of them the dump meets first: plugin.RATE = 0.5
 * after loading changes what plugin.tax() computes, as for any module.
 * Stock cloudpickle's dynamic_subimport copies the namespace instead. */
PyObject *
cpk_reduce_module(cpk_state *st, PyObject *pickler, int format, PyObject *mod)
{
    /* Its name, read once: a module without one (missing, or not a str)
     * cannot be imported or rebuilt by name, and says so. */
    PyObject *modname = cpk_module_name(st, mod);
    if (modname == NULL)
        return NULL;
    /* Our copy (cpk_name): the module's own name is interned, and the
     * name a function uses for it is interned only where it was
     * compiled. */
    PyObject *name = cpk_name(st, modname);
    Py_DECREF(modname);
    if (name == NULL)
        return NULL;
    PyObject *r = NULL;
    int by_ref = cpk_module_name_by_reference(st, name);
    if (by_ref < 0)
        goto done;
    if (by_ref) {
        PyObject *f = cpk_callable(st, format, st->subimport,
                                   "cloudpickle.cloudpickle", "subimport");
        PyObject *args = f ? PyTuple_Pack(1, name) : NULL;
        if (args != NULL)
            r = PyTuple_Pack(2, f, args);
        Py_XDECREF(args);
        goto done;
    }
    PyObject *vars = PyDict_Copy(PyModule_GetDict(mod));
    if (vars == NULL)
        goto done;
    if (PyDict_DelItem(vars, st->str___builtins__) < 0) {
        if (!PyErr_ExceptionMatches(PyExc_KeyError)) {
            Py_DECREF(vars);
            goto done;
        }
        PyErr_Clear();
    }
    if (pickler != NULL && format == CPK_FORMAT_NATIVE) {
        PyObject *base = cpk_function_base_globals(
            st, CPK_PICKLER_EXT(pickler), PyModule_GetDict(mod));
        PyObject *args = base ? PyTuple_Pack(2, name, base) : NULL;
        if (args != NULL)
            r = cpk_reduce6(st->module_new, args, vars, st->module_fill);
        Py_XDECREF(args);
        Py_XDECREF(base);
        Py_DECREF(vars);
        goto done;
    }
    PyObject *f = cpk_callable(st, format, st->dynamic_subimport,
                               "cloudpickle.cloudpickle", "dynamic_subimport");
    if (f != NULL)
        r = Py_BuildValue("(O(OO))", f, name, vars);
    Py_DECREF(vars);
done:
    Py_DECREF(name);
    return r;
}

/* fget, fset, fdel, doc: type(obj) keeps abc.abstractproperty abstract. */
static PyObject *
reduce_property(cpk_state *st, PyObject *obj)
{
    PyObject *fget = PyObject_GetAttr(obj, st->str_fget);
    PyObject *fset = PyObject_GetAttr(obj, st->str_fset);
    PyObject *fdel = PyObject_GetAttr(obj, st->str_fdel);
    PyObject *doc = PyObject_GetAttr(obj, st->str___doc__);
    PyObject *r = NULL;
    if (fget && fset && fdel && doc)
        r = Py_BuildValue("(O(OOOO))", (PyObject *)Py_TYPE(obj), fget, fset,
                          fdel, doc);
    Py_XDECREF(fget);
    Py_XDECREF(fset);
    Py_XDECREF(fdel);
    Py_XDECREF(doc);
    return r;
}

static PyObject *
reduce_attr1(PyObject *callable, PyObject *obj, PyObject *attr)
{
    PyObject *v = PyObject_GetAttr(obj, attr);
    if (v == NULL)
        return NULL;
    PyObject *r = Py_BuildValue("(O(O))", callable, v);
    Py_DECREF(v);
    return r;
}

static PyObject *
reduce_method(cpk_state *st, PyObject *obj)
{
    (void)st;
    /* Borrowed from a method object nothing can change: Py_BuildValue
     * takes its references before anything else runs. */
    return Py_BuildValue("(O(OO))", (PyObject *)&PyMethod_Type,
                         PyMethod_GET_FUNCTION(obj), PyMethod_GET_SELF(obj));
}

static PyObject *
reduce_mappingproxy(PyObject *obj)
{
    PyObject *d = PyDict_New();
    if (d == NULL)
        return NULL;
    if (PyDict_Merge(d, obj, 1) < 0) {
        Py_DECREF(d);
        return NULL;
    }
    PyObject *r = Py_BuildValue("(O(O))", (PyObject *)&PyDictProxy_Type, d);
    Py_DECREF(d);
    return r;
}

static PyObject *
reduce_memoryview(PyObject *obj)
{
    PyObject *b = PyBytes_FromObject(obj);
    if (b == NULL)
        return NULL;
    PyObject *r = Py_BuildValue("(O(O))", (PyObject *)&PyBytes_Type, b);
    Py_DECREF(b);
    return r;
}

static PyObject *
reduce_getset(cpk_state *st, PyObject *obj)
{
    PyObject *owner = PyObject_GetAttr(obj, st->str___objclass__);
    PyObject *name = PyObject_GetAttr(obj, st->str___name__);
    PyObject *r = NULL;
    if (owner && name)
        r = Py_BuildValue("(O(OO))", st->getattr, owner, name);
    Py_XDECREF(owner);
    Py_XDECREF(name);
    return r;
}

/* Views ship only what they show: keys ship no values, values no keys. */
static PyObject *
reduce_view(cpk_state *st, int format, int kind, PyObject *obj)
{
    int ordered = kind >= CPK_KIND_ODICT_KEYS;
    PyObject *f, *data;
    const char *cp_name;
    if (kind == CPK_KIND_DICT_ITEMS || kind == CPK_KIND_ODICT_ITEMS) {
        f = st->make_dict_items;
        cp_name = "_make_dict_items";
        data = PyDict_New();
        if (data != NULL && PyDict_MergeFromSeq2(data, obj, 1) < 0)
            Py_CLEAR(data);
    }
    else {
        int keys = kind == CPK_KIND_DICT_KEYS || kind == CPK_KIND_ODICT_KEYS;
        f = keys ? st->make_dict_keys : st->make_dict_values;
        cp_name = keys ? "_make_dict_keys" : "_make_dict_values";
        data = PySequence_List(obj);
    }
    if (data == NULL)
        return NULL;
    f = cpk_callable(st, format, f, "cloudpickle.cloudpickle", cp_name);
    PyObject *r = NULL;
    if (f != NULL)
        r = ordered ? Py_BuildValue("(O(OO))", f, data, Py_True)
                    : Py_BuildValue("(O(O))", f, data);
    Py_DECREF(data);
    return r;
}

static PyObject *
file_error(cpk_state *st, const char *fmt, PyObject *arg)
{
    PyErr_Format(st->PicklingError, fmt, arg);
    return NULL;
}

/* A text file travels as a StringIO with its contents and position;
 * sys.stdout and sys.stderr by reference; the rest is refused. */
static PyObject *
reduce_textfile(cpk_state *st, int format, PyObject *obj)
{
    PyObject *name = NULL, *mode = NULL, *sys = NULL, *r = NULL;
    PyObject *pos = NULL, *contents = NULL, *sio = NULL, *tmp;
    if (PyObject_GetOptionalAttr(obj, st->str_name, &name) < 0 ||
        PyObject_GetOptionalAttr(obj, st->str_mode, &mode) < 0)
        goto done;
    if (name == NULL || mode == NULL) {
        PyErr_SetString(st->PicklingError,
                        "Cannot pickle files that do not map to an actual "
                        "file");
        goto done;
    }
    sys = PyImport_ImportModule("sys");
    if (sys == NULL)
        goto done;
    PyObject *std[] = {st->str_stdout, st->str_stderr};
    for (int i = 0; i < 2; i++) {
        tmp = PyObject_GetAttr(sys, std[i]);
        if (tmp == NULL)
            goto done;
        Py_DECREF(tmp);
        if (tmp == obj) {
            r = Py_BuildValue("(O(OO))", st->getattr, sys, std[i]);
            goto done;
        }
    }
    tmp = PyObject_GetAttr(sys, st->str_stdin);
    if (tmp == NULL)
        goto done;
    Py_DECREF(tmp);
    if (tmp == obj) {
        PyErr_SetString(st->PicklingError, "Cannot pickle standard input");
        goto done;
    }
    tmp = PyObject_GetAttr(obj, st->str_closed);
    if (tmp == NULL)
        goto done;
    int closed = PyObject_IsTrue(tmp);
    Py_DECREF(tmp);
    if (closed != 0) {
        if (closed > 0)
            PyErr_SetString(st->PicklingError, "Cannot pickle closed files");
        goto done;
    }
    tmp = PyObject_CallMethodNoArgs(obj, st->str_isatty);
    if (tmp == NULL)
        goto done;
    int tty = PyObject_IsTrue(tmp);
    Py_DECREF(tmp);
    if (tty != 0) {
        if (tty > 0)
            PyErr_SetString(st->PicklingError,
                            "Cannot pickle files that map to tty objects");
        goto done;
    }
    if (!PyUnicode_Check(mode) ||
        (PyUnicode_FindChar(mode, 'r', 0, PY_SSIZE_T_MAX, 1) < 0 &&
         PyUnicode_FindChar(mode, '+', 0, PY_SSIZE_T_MAX, 1) < 0)) {
        file_error(st,
                   "Cannot pickle files that are not opened for reading: %S",
                   mode);
        goto done;
    }
    /* Read it all, then put the position back where it was. */
    pos = PyObject_CallMethodNoArgs(obj, st->str_tell);
    if (pos == NULL)
        goto read_error;
    tmp = PyObject_CallMethod(obj, "seek", "i", 0);
    if (tmp == NULL)
        goto read_error;
    Py_DECREF(tmp);
    contents = PyObject_CallMethodNoArgs(obj, st->str_read);
    if (contents == NULL)
        goto read_error;
    tmp = PyObject_CallMethodOneArg(obj, st->str_seek, pos);
    if (tmp == NULL)
        goto read_error;
    Py_DECREF(tmp);
    sio = PyObject_CallNoArgs(st->stringio_type);
    if (sio == NULL)
        goto done;
    tmp = PyObject_CallMethodOneArg(sio, st->str_write, contents);
    if (tmp == NULL)
        goto done;
    Py_DECREF(tmp);
    tmp = PyObject_CallMethodOneArg(sio, st->str_seek, pos);
    if (tmp == NULL)
        goto done;
    Py_DECREF(tmp);
    if (PyObject_SetAttr(sio, st->str_name, name) < 0)
        goto done;
    PyObject *f = cpk_callable(st, format, st->file_reconstructor,
                               "cloudpickle.cloudpickle_fast",
                               "_file_reconstructor");
    if (f != NULL)
        r = Py_BuildValue("(O(O))", f, sio);
    goto done;
read_error:
    if (PyErr_ExceptionMatches(PyExc_OSError)) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        file_error(st, "Cannot pickle file %S as it cannot be read", name);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
    }
done:
    Py_XDECREF(name);
    Py_XDECREF(mode);
    Py_XDECREF(sys);
    Py_XDECREF(pos);
    Py_XDECREF(contents);
    Py_XDECREF(sio);
    return r;
}

static PyObject *
reduce_logger(cpk_state *st, PyObject *obj, int root)
{
    PyObject *logging = PyImport_ImportModule("logging");
    if (logging == NULL)
        return NULL;
    PyObject *get = PyObject_GetAttr(logging, st->str_getLogger);
    Py_DECREF(logging);
    if (get == NULL)
        return NULL;
    PyObject *r;
    if (root)
        r = Py_BuildValue("(O())", get);
    else
        r = reduce_attr1(get, obj, st->str_name);
    Py_DECREF(get);
    return r;
}

static PyObject *
reduce_weakset(PyObject *obj)
{
    PyObject *items = PySequence_List(obj);
    if (items == NULL)
        return NULL;
    PyObject *r = Py_BuildValue("(O(O))", (PyObject *)Py_TYPE(obj), items);
    Py_DECREF(items);
    return r;
}

/* Which of dataclasses' _FIELD, _FIELD_CLASSVAR, _FIELD_INITVAR `obj`
 * is: that name (borrowed, exact str), or NULL, with an error only if
 * looking failed. */
static PyObject *
field_sentinel_name(cpk_state *st, PyObject *obj)
{
    PyObject *names[] = {st->str__FIELD, st->str__FIELD_CLASSVAR,
                         st->str__FIELD_INITVAR};
    PyObject *dc = PyImport_ImportModule("dataclasses");
    if (dc == NULL)
        return NULL;
    PyObject *found = NULL;
    for (size_t i = 0; i < 3 && found == NULL; i++) {
        PyObject *v;
        if (PyObject_GetOptionalAttr(dc, names[i], &v) < 0)
            break;
        if (v == obj)
            found = names[i];
        Py_XDECREF(v);
    }
    Py_DECREF(dc);
    return found;
}

/* PicklingError for a _FIELD_BASE that is not one of dataclasses' own,
 * shown as it was made: dataclasses._FIELD_BASE('name'). */
static void
refuse_field_sentinel(cpk_state *st, int format, PyObject *obj)
{
    PyObject *name;
    if (PyObject_GetOptionalAttr(obj, st->str_name, &name) < 0) {
        if (!cpk_error_clearable())
            return;
        PyErr_Clear();
        name = NULL;
    }
    PyErr_Format(st->PicklingError,
                 "Can't pickle dataclasses._FIELD_BASE(%R) for %s: it is "
                 "not one of dataclasses' field sentinels (_FIELD, "
                 "_FIELD_CLASSVAR, _FIELD_INITVAR), the only ones that "
                 "loader rebuilds",
                 name != NULL ? name : Py_None, cpk_compat_target(format));
    Py_XDECREF(name);
}

/* dataclasses' _FIELD, _FIELD_CLASSVAR, _FIELD_INITVAR keep identity:
 * our reconstructor or cloudpickle 3.x's looks each up by its name.
 * cloudpickle 2.x has no such reconstructor (its own pickles make a copy,
 * which dataclasses.fields() then ignores): for it the pickle names the
 * global dataclasses.<name>, which plain pickle finds. The stock formats
 * refuse any other _FIELD_BASE, which their loaders cannot rebuild. */
static PyObject *
reduce_field_sentinel(cpk_state *st, int format, PyObject *obj)
{
    if (format != CPK_FORMAT_NATIVE) {
        PyObject *name = field_sentinel_name(st, obj);
        if (name == NULL) {
            if (!PyErr_Occurred())
                refuse_field_sentinel(st, format, obj);
            return NULL;
        }
        if (format != CPK_FORMAT_CLOUDPICKLE)
            return Py_NewRef(name); /* a global of obj's module */
        PyObject *f = cpk_callable(st, format, st->dataclass_sentinel,
                                   "cloudpickle.cloudpickle",
                                   "_get_dataclass_field_type_sentinel");
        return f ? Py_BuildValue("(O(O))", f, name) : NULL;
    }
    return reduce_attr1(st->dataclass_sentinel, obj, st->str_name);
}

/* A module-level singleton (dataclasses.MISSING): its global name. */
static PyObject *
reduce_singleton(cpk_state *st, PyObject *obj)
{
    PyObject *name = PyDict_GetItemWithError(st->singletons,
                                             (PyObject *)Py_TYPE(obj));
    if (name == NULL) {
        if (!PyErr_Occurred())
            Py_RETURN_NOTIMPLEMENTED;
        return NULL;
    }
    return Py_NewRef(name);
}

static PyObject *
reduce_dispatch(cpk_state *st, PyObject *pickler, int format, int kind,
                PyObject *obj)
{
    switch (kind) {
    case CPK_KIND_CODE:
        if (pickler != NULL && CPK_PICKLER_EXT(pickler)->portable &&
            format == CPK_FORMAT_NATIVE)
            return cpk_reduce_code_portable(st, obj);
        return cpk_reduce_code(st, obj, format);
    case CPK_KIND_CELL:
        return cpk_reduce_cell(st, obj, format);
    case CPK_KIND_MODULE:
        return cpk_reduce_module(st, pickler, format, obj);
    case CPK_KIND_PROPERTY:
        return reduce_property(st, obj);
    case CPK_KIND_CLASSMETHOD:
        return reduce_attr1((PyObject *)Py_TYPE(obj), obj, st->str___func__);
    case CPK_KIND_METHOD:
        return reduce_method(st, obj);
    case CPK_KIND_MAPPINGPROXY:
        return reduce_mappingproxy(obj);
    case CPK_KIND_MEMORYVIEW:
        return reduce_memoryview(obj);
    case CPK_KIND_GETSET:
        return reduce_getset(st, obj);
    case CPK_KIND_DICT_KEYS:
    case CPK_KIND_DICT_VALUES:
    case CPK_KIND_DICT_ITEMS:
    case CPK_KIND_ODICT_KEYS:
    case CPK_KIND_ODICT_VALUES:
    case CPK_KIND_ODICT_ITEMS:
        return reduce_view(st, format, kind, obj);
    case CPK_KIND_TEXTFILE:
        return reduce_textfile(st, format, obj);
    case CPK_KIND_LOGGER:
        return reduce_logger(st, obj, 0);
    case CPK_KIND_ROOT_LOGGER:
        return reduce_logger(st, obj, 1);
    case CPK_KIND_WEAKSET:
        return reduce_weakset(obj);
    case CPK_KIND_TYPEVAR:
        return cpk_reduce_typevar(st, format, obj);
    case CPK_KIND_PARAMSPEC:
    case CPK_KIND_TYPEVARTUPLE:
        return cpk_reduce_typeparam(st, format, obj,
                                    kind == CPK_KIND_PARAMSPEC);
    case CPK_KIND_NEWTYPE:
        return cpk_reduce_newtype(st, format, obj);
    case CPK_KIND_FIELD_SENTINEL:
        return reduce_field_sentinel(st, format, obj);
    case CPK_KIND_SINGLETON:
        return reduce_singleton(st, obj);
    case CPK_KIND_EXTREF:
        return cpk_reduce_extref(st, obj);
    case CPK_KIND_LRU_CACHE:
        return cpk_reduce_lru_cache(st, format, obj);
    case CPK_KIND_SDMETHOD:
        return cpk_reduce_sdmethod(st, format, obj);
    case CPK_KIND_EXCEPTION:
        return cpk_reduce_exception(st, format, obj);
    case CPK_KIND_LOCK:
    case CPK_KIND_RLOCK:
    case CPK_KIND_PYRLOCK:
    case CPK_KIND_EVENT:
    case CPK_KIND_CONDITION:
    case CPK_KIND_SEMAPHORE:
    case CPK_KIND_BOUNDED_SEMAPHORE:
    case CPK_KIND_CONTEXTVAR:
    case CPK_KIND_STRUCT:
    case CPK_KIND_WEAKVALUEDICT:
    case CPK_KIND_WEAKKEYDICT:
        return cpk_reduce_primitive(st, format, kind, obj);
    default:
        Py_RETURN_NOTIMPLEMENTED;
    }
}

PyObject *
cpk_reduce_kind(cpk_state *st, PyObject *pickler, int kind, PyObject *obj)
{
    return reduce_dispatch(st, pickler, CPK_PICKLER_EXT(pickler)->format,
                           kind, obj);
}

/* _reduce(obj): our reducer for type(obj), for use in dispatch tables
 * (Pickler.dispatch_table maps our types to it). */
static PyObject *
module_reduce(PyObject *m, PyObject *obj)
{
    cpk_state *st = cpk_get_state(m);
    if (cpk_refresh_lazy_types(st) < 0)
        return NULL;
    int kind = cpk_table_lookup(st, Py_TYPE(obj));
    if (kind == CPK_KIND_NONE || kind == CPK_KIND_EXTREF) {
        PyErr_Format(PyExc_TypeError, "ccloudpickle has no reducer for %s",
                     Py_TYPE(obj)->tp_name);
        return NULL;
    }
    return reduce_dispatch(st, NULL, CPK_FORMAT_NATIVE, kind, obj);
}

PyMethodDef cpk_reducer_methods[] = {
    {"_reduce", module_reduce, METH_O,
     PyDoc_STR("_reduce(obj)\n--\n\nccloudpickle's reducer for type(obj); "
               "the value of Pickler.dispatch_table for our types.")},
    {NULL, NULL, 0, NULL},
};
