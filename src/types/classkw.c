/* classkw.c - class keywords (class CsvReader(Reader, fmt="csv")): found
 * at dump time by the companion python/_ccloudpickle_classkw.py (CPython
 * keeps them nowhere on the class), carried in _make_skeleton_class's
 * `extra` argument ({"class_kwargs": {...}}), and passed again to the
 * class creation at load, so __init_subclass__ and the metaclass receive
 * them. A skeleton whose base is itself a skeleton still waiting for its
 * namespace (a registry in the base's state holds the subclass: the
 * subclass is made first) is made without them, and the base's
 * __init_subclass__ runs with them once every class of its MRO has its
 * namespace. The class reducer is class.c's, the reconstructors are
 * reconstruct.c's.
 */
#include "types/classkw.h"
#include "core/state.h"
#include "common/pycompat.h"
#include "core/args.h"

/* Does any class of `mro` (from index `start`) other than `skip1`/`skip2`
 * define one of `names` in its own namespace? 1, 0 or -1. */
static int
mro_defines(PyObject *mro, Py_ssize_t start, PyObject *skip1,
            PyObject *skip2, PyObject *const *names, int nnames)
{
    if (mro == NULL || !PyTuple_Check(mro))
        return 0;
    Py_INCREF(mro);
    int r = 0;
    for (Py_ssize_t i = start; r == 0 && i < PyTuple_GET_SIZE(mro); i++) {
        PyObject *t = PyTuple_GET_ITEM(mro, i);
        if (t == skip1 || t == skip2 || !PyType_Check(t))
            continue;
        PyObject *dict = cpk_type_dict((PyTypeObject *)t);
        if (dict == NULL) {
            r = -1;
            break;
        }
        for (int j = 0; r == 0 && j < nnames; j++)
            r = PyDict_Contains(dict, names[j]);
        Py_DECREF(dict);
    }
    Py_DECREF(mro);
    return r;
}

/* Could `cls` have been made with keywords that matter? A base defines
 * its own __init_subclass__, or the metaclass (other than type and
 * ABCMeta, which take none) defines __new__, __init__ or __prepare__.
 * Everything else pays this check only. 1, 0 or -1. */
static int
may_have_keywords(cpk_state *st, PyTypeObject *cls)
{
    int r = mro_defines(cls->tp_mro, 1, (PyObject *)&PyBaseObject_Type, NULL,
                        &st->str___init_subclass__, 1);
    if (r == 0 && Py_TYPE(cls) != &PyType_Type) {
        PyObject *names[] = {st->str___new__, st->str___init__,
                             st->str___prepare__};
        r = mro_defines(Py_TYPE(cls)->tp_mro, 0, (PyObject *)&PyType_Type,
                        st->abcmeta, names, 3);
    }
    return r;
}

PyObject *
cpk_class_extra(cpk_state *st, PyTypeObject *cls)
{
    int may = may_have_keywords(st, cls);
    if (may <= 0)
        return may < 0 ? NULL : Py_NewRef(Py_None);
    PyObject *mod = PyImport_ImportModule("_ccloudpickle_classkw");
    if (mod == NULL)
        return NULL;
    PyObject *kw = PyObject_CallMethod(mod, "class_keywords", "(O)", cls);
    Py_DECREF(mod);
    if (kw == NULL)
        return NULL;
    if (kw == Py_None || (PyDict_Check(kw) && PyDict_GET_SIZE(kw) == 0)) {
        Py_DECREF(kw);
        return Py_NewRef(Py_None);
    }
    if (!PyDict_CheckExact(kw)) {
        PyErr_Format(PyExc_TypeError,
                     "_ccloudpickle_classkw.class_keywords() returned %s",
                     Py_TYPE(kw)->tp_name);
        Py_DECREF(kw);
        return NULL;
    }
    PyObject *extra = Py_BuildValue("{sN}", "class_kwargs", kw);
    return extra;
}

int
cpk_class_kwargs_arg(cpk_state *st, PyObject *extra, PyObject **class_kwargs)
{
    static const char *const fname = "_make_skeleton_class";
    *class_kwargs = NULL;
    if (extra == Py_None)
        return 1;
    if (!cpk_check_value(st, fname, "argument 6 (extra)", extra,
                         CPK_ARG_DICT))
        return 0;
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (PyDict_Next(extra, &pos, &k, &v)) {
        /* A newer format's field we do not know would be dropped
         * silently: refuse it. */
        if (!PyUnicode_CheckExact(k) ||
            PyUnicode_CompareWithASCIIString(k, "class_kwargs") != 0)
            return cpk_arg_error(st, 1, fname,
                                 "argument 6 (extra) has key %R; only "
                                 "'class_kwargs' is known",
                                 k);
        if (!cpk_check_value(st, fname, "extra['class_kwargs']", v,
                             CPK_ARG_DICT))
            return 0;
        Py_ssize_t p2 = 0;
        PyObject *name, *unused;
        while (PyDict_Next(v, &p2, &name, &unused)) {
            if (!PyUnicode_CheckExact(name))
                return cpk_arg_error(st, 0, fname,
                                     "extra['class_kwargs'] keys must be "
                                     "str, not %s",
                                     Py_TYPE(name)->tp_name);
            if (PyUnicode_CompareWithASCIIString(name, "metaclass") == 0)
                return cpk_arg_error(st, 1, fname,
                                     "extra['class_kwargs'] must not hold "
                                     "'metaclass' (argument 1 is the "
                                     "metaclass)");
        }
        *class_kwargs = v;
    }
    return 1;
}

/* Skeletons made and not yet given their namespace:
 * {id(class): weakref(class)}. */

/* Is `cls` such a skeleton? 1, 0 or -1. */
static int
is_pending(cpk_state *st, PyObject *cls)
{
    if (st->skeletons_pending == NULL ||
        PyDict_GET_SIZE(st->skeletons_pending) == 0)
        return 0;
    PyObject *key = PyLong_FromVoidPtr(cls);
    if (key == NULL)
        return -1;
    PyObject *wr = PyDict_GetItemWithError(st->skeletons_pending, key);
    Py_DECREF(key);
    if (wr == NULL)
        return PyErr_Occurred() ? -1 : 0;
    PyObject *alive = cpk_weakref_get(wr);
    Py_XDECREF(alive);
    return alive == cls;
}

/* Is any class of `cls`'s MRO from `start` on a skeleton without its
 * namespace? 1, 0 or -1. */
static int
mro_pending(cpk_state *st, PyObject *cls, Py_ssize_t start)
{
    PyObject *mro = ((PyTypeObject *)cls)->tp_mro;
    if (mro == NULL || !PyTuple_Check(mro))
        return 0;
    /* Held: the allocations below may collect, and a finalizer may
     * assign __bases__. */
    Py_INCREF(mro);
    int r = 0;
    for (Py_ssize_t i = start; r == 0 && i < PyTuple_GET_SIZE(mro); i++)
        r = is_pending(st, PyTuple_GET_ITEM(mro, i));
    Py_DECREF(mro);
    return r;
}

int
cpk_class_bases_pending(cpk_state *st, PyObject *meta, PyObject *bases)
{
    int r = mro_pending(st, meta, 0);
    if (r != 0)
        return r;
    for (Py_ssize_t i = 0; r == 0 && i < PyTuple_GET_SIZE(bases); i++)
        r = mro_pending(st, PyTuple_GET_ITEM(bases, i), 0);
    return r;
}

int
cpk_class_skeleton_made(cpk_state *st, PyObject *cls, PyObject *deferred)
{
    if (st->skeletons_pending == NULL &&
        (st->skeletons_pending = PyDict_New()) == NULL)
        return -1;
    PyObject *key = PyLong_FromVoidPtr(cls);
    PyObject *wr = PyWeakref_NewRef(cls, NULL);
    int r = key == NULL || wr == NULL
                ? -1
                : PyDict_SetItem(st->skeletons_pending, key, wr);
    Py_XDECREF(key);
    Py_XDECREF(wr);
    if (r < 0 || deferred == NULL)
        return r;
    if (st->init_subclass_deferred == NULL &&
        (st->init_subclass_deferred = PyList_New(0)) == NULL)
        return -1;
    wr = PyWeakref_NewRef(cls, NULL);
    PyObject *item = wr ? PyTuple_Pack(2, wr, deferred) : NULL;
    r = item == NULL ? -1 : PyList_Append(st->init_subclass_deferred, item);
    Py_XDECREF(wr);
    Py_XDECREF(item);
    return r;
}

/* super(cls, cls).__init_subclass__(**kwargs), when a base defines one:
 * otherwise the keywords were the metaclass's, dropped (its __new__ ran
 * before they could be given). 0 or -1. */
static int
replay(cpk_state *st, PyObject *cls, PyObject *kwargs)
{
    int defines = mro_defines(((PyTypeObject *)cls)->tp_mro, 1,
                              (PyObject *)&PyBaseObject_Type, NULL,
                              &st->str___init_subclass__, 1);
    if (defines <= 0)
        return defines;
    PyObject *sup = PyObject_CallFunctionObjArgs((PyObject *)&PySuper_Type,
                                                 cls, cls, NULL);
    if (sup == NULL)
        return -1;
    PyObject *f = PyObject_GetAttr(sup, st->str___init_subclass__);
    Py_DECREF(sup);
    if (f == NULL)
        return -1;
    PyObject *empty = PyTuple_New(0);
    PyObject *r = empty ? PyObject_Call(f, empty, kwargs) : NULL;
    Py_XDECREF(empty);
    Py_DECREF(f);
    Py_XDECREF(r);
    return r == NULL ? -1 : 0;
}

int
cpk_class_namespace_set(cpk_state *st, PyObject *cls)
{
    if (st->skeletons_pending != NULL &&
        PyDict_GET_SIZE(st->skeletons_pending) > 0) {
        PyObject *key = PyLong_FromVoidPtr(cls);
        if (key == NULL)
            return -1;
        int r = PyDict_DelItem(st->skeletons_pending, key);
        Py_DECREF(key);
        if (r < 0) {
            if (!PyErr_ExceptionMatches(PyExc_KeyError))
                return -1;
            PyErr_Clear();
        }
    }
    /* Replay the deferred keywords of classes now complete, in the order
     * they were made. The list is ours; an item is taken out before its
     * call, which may load more classes. */
    PyObject *list = st->init_subclass_deferred;
    for (Py_ssize_t i = 0; list != NULL && i < PyList_GET_SIZE(list);) {
        PyObject *item = Py_NewRef(PyList_GET_ITEM(list, i));
        PyObject *sub = cpk_weakref_get(PyTuple_GET_ITEM(item, 0));
        int pending = sub == NULL ? 0 : mro_pending(st, sub, 0);
        if (pending != 0) {
            Py_XDECREF(sub);
            Py_DECREF(item);
            if (pending < 0)
                return -1;
            i++;
            continue;
        }
        int r = PyList_SetSlice(list, i, i + 1, NULL);
        if (r == 0 && sub != NULL)
            r = replay(st, sub, PyTuple_GET_ITEM(item, 1));
        Py_XDECREF(sub);
        Py_DECREF(item);
        if (r < 0)
            return -1;
        list = st->init_subclass_deferred;
        i = 0;
    }
    return 0;
}
