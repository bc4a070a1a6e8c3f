/* typeforms.c - typing's named forms by value: a TypeVar, ParamSpec,
 * TypeVarTuple or NewType made in a script (not importable by name) is
 * rebuilt under a tracker id (tracker.c), so it is one object per id per
 * process, as a class by value is (class.c). Importable ones go by name.
 * The load side is typeforms_load.c (and _make_typevar in reconstruct.c).
 */
#include "types/typeforms.h"
#include "core/state.h"
#include "common/pycompat.h"
#include "core/lookup.h"
#include "core/tracker.h"
#include "types/compat.h"

/* 1 with *out set to (getattr, (module, qualname)) when `obj` is found
 * under `name` (NULL: its __qualname__) in a module not registered by
 * value; 0 when it goes by value; -1 on error. */
static int
by_reference(cpk_state *st, PyObject *obj, PyObject *name, PyObject **out)
{
    PyObject *module, *qualname;
    *out = NULL;
    int found = cpk_lookup_module_and_qualname(st, obj, name, &module,
                                               &qualname);
    if (found <= 0)
        return found;
    PyObject *mname = PyModule_Check(module)
                          ? cpk_module_found_name(st, module)
                          : PyObject_GetAttr(module, st->str___name__);
    int reg = mname ? cpk_is_registered_by_value(st, mname) : -1;
    Py_XDECREF(mname);
    if (reg == 0)
        *out = Py_BuildValue("(O(OO))", st->getattr, module, qualname);
    Py_DECREF(module);
    Py_DECREF(qualname);
    if (reg < 0 || (reg == 0 && *out == NULL))
        return -1;
    return reg == 0;
}

/* Set options[key] = obj.<attr> unless the attribute is missing (an older
 * Python) or holds the constructor's default: `dflt`, or for a bool
 * option False. 0 or -1. */
static int
option(PyObject *options, PyObject *obj, const char *attr, const char *key,
       PyObject *dflt)
{
    PyObject *v;
    if (PyObject_GetOptionalAttrString(obj, attr, &v) < 0)
        return -1;
    if (v == NULL)
        return 0;
    int r = 0;
    if (v != dflt && !(dflt == NULL && v == Py_False))
        r = PyDict_SetItemString(options, key, v);
    Py_DECREF(v);
    return r;
}

/* typing.NoDefault (3.13, PEP 696) where it exists, else None: the
 * __default__ of a parameter made without one. New reference. */
static PyObject *
no_default(void)
{
    PyObject *typing = PyImport_ImportModule("typing");
    if (typing == NULL)
        return NULL;
    PyObject *v;
    int r = PyObject_GetOptionalAttrString(typing, "NoDefault", &v);
    Py_DECREF(typing);
    if (r < 0)
        return NULL;
    return v != NULL ? v : Py_NewRef(Py_None);
}

/* The keyword arguments that rebuild `obj` (those of typing.TypeVar,
 * ParamSpec or TypeVarTuple that differ from their defaults), in a fixed
 * order. `variance`: whether the kind has bound and variance. New
 * reference. */
static PyObject *
param_options(PyObject *obj, int variance)
{
    PyObject *options = PyDict_New(), *nodef = no_default();
    if (options == NULL || nodef == NULL)
        goto error;
    if (variance &&
        (option(options, obj, "__bound__", "bound", Py_None) < 0 ||
         option(options, obj, "__covariant__", "covariant", NULL) < 0 ||
         option(options, obj, "__contravariant__", "contravariant", NULL) <
             0 ||
         option(options, obj, "__infer_variance__", "infer_variance", NULL) <
             0))
        goto error;
    if (option(options, obj, "__default__", "default", nodef) < 0)
        goto error;
    Py_DECREF(nodef);
    return options;
error:
    Py_XDECREF(options);
    Py_XDECREF(nodef);
    return NULL;
}

/* (_make_typeparam, (kind, name, constraints, options, tracker_id)). */
static PyObject *
reduce_param(cpk_state *st, const char *kind, PyObject *obj, PyObject *name,
             PyObject *constraints, PyObject *options)
{
    PyObject *tid = cpk_tracker_get_or_create_id(st, obj);
    if (tid == NULL)
        return NULL;
    PyObject *r = Py_BuildValue("(O(sOOOO))", st->make_typeparam, kind, name,
                                constraints, options, tid);
    Py_DECREF(tid);
    return r;
}

PyObject *
cpk_reduce_typevar(cpk_state *st, int format, PyObject *tv)
{
    PyObject *name = PyObject_GetAttr(tv, st->str___name__);
    if (name == NULL)
        return NULL;
    PyObject *r = NULL, *options = NULL, *tid = NULL;
    if (by_reference(st, tv, name, &r) != 0)
        goto done;
    PyObject *bound = PyObject_GetAttr(tv, st->str___bound__);
    PyObject *cons = PyObject_GetAttr(tv, st->str___constraints__);
    PyObject *co = PyObject_GetAttr(tv, st->str___covariant__);
    PyObject *contra = PyObject_GetAttr(tv, st->str___contravariant__);
    options = param_options(tv, 1);
    if (bound == NULL || cons == NULL || co == NULL || contra == NULL ||
        options == NULL)
        goto out;
    /* infer_variance (3.12) and default (3.13) only our format carries;
     * stock's _make_typevar has no place for them: dropped there, as
     * before. */
    if (format == CPK_FORMAT_NATIVE &&
        (PyDict_GetItemString(options, "infer_variance") != NULL ||
         PyDict_GetItemString(options, "default") != NULL)) {
        if (PyTuple_Check(cons))
            r = reduce_param(st, "TypeVar", tv, name, cons, options);
        else
            PyErr_SetString(PyExc_TypeError, "TypeVar.__constraints__ is "
                                             "not a tuple");
        goto out;
    }
    tid = cpk_tracker_get_or_create_id(st, tv);
    PyObject *make = cpk_callable(st, format, st->make_typevar,
                                  "cloudpickle.cloudpickle", "_make_typevar");
    if (tid && make)
        r = Py_BuildValue("(O(OOOOOO))", make, name, bound, cons, co, contra,
                          tid);
out:
    Py_XDECREF(tid);
    Py_XDECREF(bound);
    Py_XDECREF(cons);
    Py_XDECREF(co);
    Py_XDECREF(contra);
done:
    Py_XDECREF(options);
    Py_DECREF(name);
    return r;
}

/* ParamSpec (3.10) and TypeVarTuple (3.11): by value in our format only;
 * stock loaders have no reconstructor for them, so compat formats go by
 * name (loading needs the defining module). */
PyObject *
cpk_reduce_typeparam(cpk_state *st, int format, PyObject *obj,
                     int spec)
{
    if (format != CPK_FORMAT_NATIVE)
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *name = PyObject_GetAttr(obj, st->str___name__);
    if (name == NULL)
        return NULL;
    PyObject *r = NULL, *options = NULL, *empty = NULL;
    if (by_reference(st, obj, name, &r) != 0)
        goto done;
    options = param_options(obj, spec);
    empty = PyTuple_New(0);
    if (options != NULL && empty != NULL)
        r = reduce_param(st, spec ? "ParamSpec" : "TypeVarTuple", obj, name,
                         empty, options);
done:
    Py_XDECREF(options);
    Py_XDECREF(empty);
    Py_DECREF(name);
    return r;
}

/* NewType (a class from 3.10; on 3.9 a function, which goes by value as
 * any function does): (_make_newtype, (qualname, supertype, module,
 * tracker_id)). Compat formats: by name. */
PyObject *
cpk_reduce_newtype(cpk_state *st, int format, PyObject *nt)
{
    if (format != CPK_FORMAT_NATIVE)
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *r = NULL, *qualname = NULL, *super = NULL, *module = NULL;
    PyObject *tid = NULL;
    if (by_reference(st, nt, NULL, &r) != 0)
        return r;
    qualname = PyObject_GetAttr(nt, st->str___qualname__);
    super = PyObject_GetAttr(nt, st->str___supertype__);
    module = PyObject_GetAttr(nt, st->str___module__);
    if (qualname == NULL || super == NULL || module == NULL)
        goto done;
    if (!PyUnicode_Check(module))
        Py_SETREF(module, Py_NewRef(Py_None));
    tid = cpk_tracker_get_or_create_id(st, nt);
    if (tid != NULL)
        r = Py_BuildValue("(O(OOOO))", st->make_newtype, qualname, super,
                          module, tid);
done:
    Py_XDECREF(qualname);
    Py_XDECREF(super);
    Py_XDECREF(module);
    Py_XDECREF(tid);
    return r;
}
