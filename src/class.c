/* class.c - classes by value: a class (or enum, or TypeVar) that cannot be
 * imported by name is rebuilt from its metaclass, name, bases and
 * namespace, under a tracker id (tracker.c) that gives it one identity per
 * process. Also the builtin types that plain pickle cannot name
 * (types.FunctionType, type(None), ...). The load side is
 * _make_skeleton_class, _make_skeleton_enum, _class_setstate and
 * _make_typevar in reconstruct.c.
 */
#include "internal.h"

/* {type: name} for the classes of the `types` module, built on first use. */
static PyObject *
types_names(cpk_state *st)
{
    if (st->types_names != NULL)
        return st->types_names;
    PyObject *types = PyImport_ImportModule("types");
    if (types == NULL)
        return NULL;
    PyObject *dict = PyModule_GetDict(types);
    PyObject *map = PyDict_New();
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (map != NULL && PyDict_Next(dict, &pos, &k, &v)) {
        if (Py_IS_TYPE(v, &PyType_Type) && PyDict_SetItem(map, v, k) < 0)
            Py_CLEAR(map);
    }
    Py_DECREF(types);
    st->types_names = map;
    return map;
}

/* The name of `cls` in the `types` module if plain pickle cannot name it
 * (borrowed), NULL without error otherwise. */
static PyObject *
builtin_type_name(cpk_state *st, PyTypeObject *cls)
{
    if (cls->tp_flags & Py_TPFLAGS_HEAPTYPE)
        return NULL;
    /* int, dict, ...: builtins has them, no need for the map. */
    if (strchr(cls->tp_name, '.') == NULL) {
        PyObject *b = PyDict_GetItemString(PyModule_GetDict(st->builtins_module),
                                           cls->tp_name);
        if (b == (PyObject *)cls)
            return NULL;
    }
    PyObject *map = types_names(st);
    if (map == NULL)
        return NULL;
    return PyDict_GetItemWithError(map, (PyObject *)cls);
}

/* cls.__dict__ as a dict with sorted keys (deterministic pickles), minus
 * what is the very same object in the bases' namespaces. New reference. */
static PyObject *
class_dict(PyTypeObject *cls)
{
    PyObject *keys = NULL, *inherited = NULL, *out = NULL;
    PyObject *dict = cpk_type_dict(cls);
    if (dict == NULL)
        return NULL;
    keys = PyDict_Keys(dict);
    if (keys == NULL || PyList_Sort(keys) < 0)
        goto done;
    PyObject *bases = cls->tp_bases;
    if (PyTuple_GET_SIZE(bases) == 1)
        inherited = cpk_type_dict((PyTypeObject *)PyTuple_GET_ITEM(bases, 0));
    else {
        inherited = PyDict_New();
        for (Py_ssize_t i = PyTuple_GET_SIZE(bases) - 1;
             inherited != NULL && i >= 0; i--) {
            PyObject *bd = cpk_type_dict(
                (PyTypeObject *)PyTuple_GET_ITEM(bases, i));
            if (bd == NULL || PyDict_Update(inherited, bd) < 0)
                Py_CLEAR(inherited);
            Py_XDECREF(bd);
        }
    }
    if (inherited == NULL)
        goto done;
    out = PyDict_New();
    if (out == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(keys); i++) {
        PyObject *k = PyList_GET_ITEM(keys, i);
        PyObject *v = PyDict_GetItemWithError(dict, k);
        if (v == NULL) {
            if (PyErr_Occurred())
                goto error;
            continue;
        }
        PyObject *base_v = PyDict_GetItemWithError(inherited, k);
        if (base_v == NULL && PyErr_Occurred())
            goto error;
        if (base_v == v)
            continue;
        if (PyDict_SetItem(out, k, v) < 0)
            goto error;
    }
    goto done;
error:
    Py_CLEAR(out);
done:
    Py_XDECREF(keys);
    Py_XDECREF(inherited);
    Py_DECREF(dict);
    return out;
}

static int
pop(PyObject *dict, PyObject *key)
{
    if (PyDict_DelItem(dict, key) == 0)
        return 0;
    if (!PyErr_ExceptionMatches(PyExc_KeyError))
        return -1;
    PyErr_Clear();
    return 0;
}

/* Drop the member descriptors __slots__ creates (the rebuilt class makes
 * its own), private names mangled as the compiler did. */
static int
pop_slots(PyTypeObject *cls, PyObject *clsdict, PyObject *slots)
{
    PyObject *list = PyUnicode_Check(slots) ? PyTuple_Pack(1, slots)
                                            : PySequence_List(slots);
    if (list == NULL)
        return -1;
    PyObject *seq = PySequence_Fast(list, "__slots__");
    Py_DECREF(list);
    if (seq == NULL)
        return -1;
    int r = 0;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq) && r == 0; i++) {
        PyObject *name = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyUnicode_Check(name))
            continue;
        r = pop(clsdict, name);
        if (r == 0 && PyUnicode_GET_LENGTH(name) > 2 &&
            PyUnicode_READ_CHAR(name, 0) == '_' &&
            PyUnicode_READ_CHAR(name, 1) == '_' &&
            !(PyUnicode_READ_CHAR(name, PyUnicode_GET_LENGTH(name) - 1) ==
                  '_' &&
              PyUnicode_READ_CHAR(name, PyUnicode_GET_LENGTH(name) - 2) ==
                  '_')) {
            const char *cname = strrchr(cls->tp_name, '.');
            cname = cname ? cname + 1 : cls->tp_name;
            while (*cname == '_')
                cname++;
            PyObject *mangled = PyUnicode_FromFormat("_%s%U", cname, name);
            if (mangled == NULL)
                r = -1;
            else {
                r = pop(clsdict, mangled);
                Py_DECREF(mangled);
            }
        }
    }
    Py_DECREF(seq);
    return r;
}

/* Registered virtual subclasses of an ABC (live ones), as a list. */
static PyObject *
abc_registry(cpk_state *st, PyObject *cls)
{
    PyObject *dump = PyObject_CallOneArg(st->abc_get_dump, cls);
    if (dump == NULL)
        return NULL;
    PyObject *out = PyList_New(0);
    PyObject *it = NULL;
    if (out == NULL || !PyTuple_Check(dump) || PyTuple_GET_SIZE(dump) < 1)
        goto error;
    it = PyObject_GetIter(PyTuple_GET_ITEM(dump, 0));
    if (it == NULL)
        goto error;
    PyObject *ref;
    while ((ref = PyIter_Next(it)) != NULL) {
        PyObject *sub = PyWeakref_Check(ref) ? cpk_weakref_get(ref)
                                             : Py_NewRef(ref);
        int r = sub == NULL ? 0 : PyList_Append(out, sub);
        Py_XDECREF(sub);
        Py_DECREF(ref);
        if (r < 0)
            goto error;
    }
    if (PyErr_Occurred())
        goto error;
    Py_DECREF(it);
    Py_DECREF(dump);
    return out;
error:
    if (!PyErr_Occurred())
        PyErr_SetString(PyExc_TypeError, "unexpected abc._get_dump() result");
    Py_XDECREF(it);
    Py_XDECREF(out);
    Py_DECREF(dump);
    return NULL;
}

/* (clsdict, {}) as cloudpickle's _class_getstate returns it, minus what
 * the skeleton's namespace already holds when `in_namespace` (plain
 * classes: __slots__ and its descriptors, __orig_bases__). */
static PyObject *
class_state(cpk_state *st, PyTypeObject *cls, int in_namespace,
            PyObject *slots)
{
    PyObject *clsdict = class_dict(cls);
    if (clsdict == NULL)
        return NULL;
    if (pop(clsdict, st->str___weakref__) < 0)
        goto error;
    if (PyObject_TypeCheck((PyObject *)cls, (PyTypeObject *)st->abcmeta)) {
        /* Caches are rebuilt on demand; registered subclasses travel. */
        if (pop(clsdict, st->str__abc_cache) < 0 ||
            pop(clsdict, st->str__abc_negative_cache) < 0 ||
            pop(clsdict, st->str__abc_negative_cache_version) < 0 ||
            pop(clsdict, st->str__abc_registry) < 0 ||
            pop(clsdict, st->str__abc_impl) < 0)
            goto error;
        PyObject *registry = abc_registry(st, (PyObject *)cls);
        if (registry == NULL)
            goto error;
        int r = PyDict_SetItem(clsdict, st->str__abc_impl, registry);
        Py_DECREF(registry);
        if (r < 0)
            goto error;
    }
    if (in_namespace && slots != NULL &&
        (pop(clsdict, st->str___slots__) < 0 ||
         pop_slots(cls, clsdict, slots) < 0))
        goto error;
    if (in_namespace && pop(clsdict, st->str___orig_bases__) < 0)
        goto error;
    if (pop(clsdict, st->str___dict__) < 0)
        goto error;
    PyObject *empty = PyDict_New();
    if (empty == NULL)
        goto error;
    PyObject *state = PyTuple_Pack(2, clsdict, empty);
    Py_DECREF(empty);
    Py_DECREF(clsdict);
    return state;
error:
    Py_DECREF(clsdict);
    return NULL;
}

/* cls.__dict__[key] of a heap class (whose tp_dict is always set):
 * borrowed, NULL without error when absent. */
static PyObject *
own_item(PyTypeObject *cls, PyObject *key)
{
    return PyDict_GetItemWithError(cls->tp_dict, key);
}

/* The namespace the skeleton is created with: what must exist before the
 * class does. cloudpickle 3.x ships __module__ and a __dict__ property; we
 * add __qualname__, __orig_bases__ and __slots__ (real slots, not a plain
 * attribute). */
static PyObject *
type_kwargs(cpk_state *st, PyTypeObject *cls, PyObject **slots)
{
    PyObject *kw = PyDict_New();
    if (kw == NULL)
        return NULL;
    PyObject *v;
    *slots = NULL;
    if ((v = own_item(cls, st->str___module__)) != NULL &&
        PyDict_SetItem(kw, st->str___module__, v) < 0)
        goto error;
    if (PyErr_Occurred())
        goto error;
    if (cls->tp_flags & Py_TPFLAGS_HEAPTYPE) {
        PyObject *q = ((PyHeapTypeObject *)cls)->ht_qualname;
        PyObject *n = ((PyHeapTypeObject *)cls)->ht_name;
        if (q != NULL && n != NULL && PyUnicode_Compare(q, n) != 0 &&
            PyDict_SetItem(kw, st->str___qualname__, q) < 0)
            goto error;
    }
    if ((v = own_item(cls, st->str___orig_bases__)) != NULL &&
        PyDict_SetItem(kw, st->str___orig_bases__, v) < 0)
        goto error;
    if (PyErr_Occurred())
        goto error;
    if ((v = own_item(cls, st->str___slots__)) != NULL) {
        if (PyDict_SetItem(kw, st->str___slots__, v) < 0)
            goto error;
        *slots = v;
    }
    if (PyErr_Occurred())
        goto error;
    if ((v = own_item(cls, st->str___dict__)) != NULL &&
        Py_IS_TYPE(v, &PyProperty_Type) &&
        PyDict_SetItem(kw, st->str___dict__, v) < 0)
        goto error;
    if (PyErr_Occurred())
        goto error;
    return kw;
error:
    Py_DECREF(kw);
    return NULL;
}

/* (make, args, state, None, None, _class_setstate), `make` being the
 * skeleton reconstructor `native` or its cloudpickle name `cp_name`. */
static PyObject *
class_reduce_value(cpk_state *st, int format, PyObject *native,
                   const char *cp_name, PyObject *args, PyObject *state)
{
    PyObject *make = cpk_callable(st, format, native,
                                  "cloudpickle.cloudpickle", cp_name);
    PyObject *setstate = cpk_callable(st, format, st->class_setstate,
                                      "cloudpickle.cloudpickle_fast",
                                      "_class_setstate");
    if (make == NULL || setstate == NULL)
        return NULL;
    return cpk_reduce6(make, args, state, setstate);
}

static PyObject *
reduce_plain_class(cpk_state *st, int format, PyTypeObject *cls)
{
    /* The resolved bases; __orig_bases__ (Generic[T], NamedTuple) goes in
     * the namespace, where __init_subclass__ hooks look for it. Resolving
     * it again could pick another metaclass (NamedTuple's). */
    PyObject *bases = cls->tp_bases;
    PyObject *slots, *args = NULL, *state = NULL, *r = NULL;
    PyObject *kw = type_kwargs(st, cls, &slots);
    if (kw == NULL)
        return NULL;
    PyObject *tid = cpk_tracker_get_or_create_id(st, (PyObject *)cls);
    PyObject *name = PyObject_GetAttr((PyObject *)cls, st->str___name__);
    if (tid == NULL || name == NULL)
        goto done;
    args = PyTuple_Pack(6, (PyObject *)Py_TYPE(cls), name, bases, kw, tid,
                        Py_None);
    state = class_state(st, cls, 1, slots);
    if (args != NULL && state != NULL)
        r = class_reduce_value(st, format, st->make_skeleton_class,
                               "_make_skeleton_class", args, state);
done:
    Py_XDECREF(kw);
    Py_XDECREF(tid);
    Py_XDECREF(name);
    Py_XDECREF(args);
    Py_XDECREF(state);
    return r;
}

/* Enum attributes the metaclass computes again when it builds the class. */
static int
pop_enum_internals(cpk_state *st, PyObject *clsdict, PyObject *members)
{
    PyObject *internal[] = {st->str__generate_next_value_,
                            st->str__member_names_, st->str__member_map_,
                            st->str__member_type_, st->str__value2member_map_};
    for (size_t i = 0; i < sizeof(internal) / sizeof(internal[0]); i++)
        if (pop(clsdict, internal[i]) < 0)
            return -1;
    /* Every member name, aliases included: EnumType refuses to reassign a
     * member, which is how stock cloudpickle fails on Flag aliases. */
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (PyDict_Next(members, &pos, &k, &v))
        if (pop(clsdict, k) < 0)
            return -1;
    return 0;
}

/* {name: value} for every member, aliases and zero-valued flags included,
 * in definition order. */
static PyObject *
enum_members(cpk_state *st, PyObject *cls)
{
    PyObject *map = PyObject_GetAttr(cls, st->str__member_map_);
    if (map == NULL)
        return NULL;
    PyObject *items = PyMapping_Items(map);
    Py_DECREF(map);
    if (items == NULL)
        return NULL;
    PyObject *out = PyDict_New();
    for (Py_ssize_t i = 0; out != NULL && i < PyList_GET_SIZE(items); i++) {
        PyObject *pair = PyList_GET_ITEM(items, i);
        PyObject *value = PyObject_GetAttr(PyTuple_GET_ITEM(pair, 1),
                                           st->str__value_);
        if (value == NULL ||
            PyDict_SetItem(out, PyTuple_GET_ITEM(pair, 0), value) < 0)
            Py_CLEAR(out);
        Py_XDECREF(value);
    }
    Py_DECREF(items);
    return out;
}

/* Is `name` an attribute enum itself puts on members (_value_, _name_,
 * _sort_order_, __objclass__, ...)? */
static int
enum_internal_name(PyObject *name)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(name);
    if (n >= 3 && PyUnicode_READ_CHAR(name, 0) == '_' &&
        PyUnicode_READ_CHAR(name, n - 1) == '_')
        return 1;
    return PyUnicode_CompareWithASCIIString(name, "__objclass__") == 0;
}

/* {member name: its own attributes} for members whose __init__ set some
 * (Planet.EARTH.mass): the skeleton enum builds its members before the
 * class has its __init__ back, so they would lack them. Empty when no
 * member has any. New reference. */
static PyObject *
enum_member_attrs(cpk_state *st, PyObject *cls)
{
    PyObject *names = PyObject_GetAttr(cls, st->str__member_names_);
    PyObject *out = PyDict_New();
    if (names == NULL || out == NULL)
        goto error;
    PyObject *seq = PySequence_Fast(names, "_member_names_");
    if (seq == NULL)
        goto error;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        PyObject *name = PySequence_Fast_GET_ITEM(seq, i);
        PyObject *member = PyObject_GetAttr(cls, name);
        if (member == NULL) {
            Py_DECREF(seq);
            goto error;
        }
        PyObject *dict;
        int r = PyObject_GetOptionalAttr(member, st->str___dict__, &dict);
        Py_DECREF(member);
        if (r < 0) {
            Py_DECREF(seq);
            goto error;
        }
        if (dict == NULL || !PyDict_Check(dict)) {
            Py_XDECREF(dict);
            continue;
        }
        PyObject *attrs = PyDict_New();
        Py_ssize_t pos = 0;
        PyObject *k, *v;
        while (attrs != NULL && PyDict_Next(dict, &pos, &k, &v)) {
            if (PyUnicode_Check(k) && !enum_internal_name(k) &&
                PyDict_SetItem(attrs, k, v) < 0)
                Py_CLEAR(attrs);
        }
        Py_DECREF(dict);
        if (attrs == NULL ||
            (PyDict_GET_SIZE(attrs) > 0 &&
             PyDict_SetItem(out, name, attrs) < 0)) {
            Py_XDECREF(attrs);
            Py_DECREF(seq);
            goto error;
        }
        Py_DECREF(attrs);
    }
    Py_DECREF(seq);
    Py_DECREF(names);
    return out;
error:
    Py_XDECREF(names);
    Py_XDECREF(out);
    return NULL;
}

static PyObject *
reduce_enum(cpk_state *st, int format, PyTypeObject *cls)
{
    PyObject *o = (PyObject *)cls;
    PyObject *members = NULL, *name = NULL, *qualname = NULL, *module = NULL;
    PyObject *tid = NULL, *args = NULL, *state = NULL, *r = NULL;
    members = enum_members(st, o);
    name = PyObject_GetAttr(o, st->str___name__);
    qualname = PyObject_GetAttr(o, st->str___qualname__);
    module = PyObject_GetAttr(o, st->str___module__);
    if (members == NULL || name == NULL || qualname == NULL || module == NULL)
        goto done;
    tid = cpk_tracker_get_or_create_id(st, o);
    if (tid == NULL)
        goto done;
    args = PyTuple_Pack(7, cls->tp_bases, name, qualname, members, module, tid,
                        Py_None);
    state = class_state(st, cls, 0, NULL);
    if (args == NULL || state == NULL ||
        pop_enum_internals(st, PyTuple_GET_ITEM(state, 0), members) < 0)
        goto done;
    if (format == CPK_FORMAT_NATIVE) {
        PyObject *attrs = enum_member_attrs(st, o);
        int e = attrs == NULL ||
                (PyDict_GET_SIZE(attrs) > 0 &&
                 PyDict_SetItem(PyTuple_GET_ITEM(state, 0),
                                st->str__cpk_member_attrs, attrs) < 0);
        Py_XDECREF(attrs);
        if (e)
            goto done;
    }
    r = class_reduce_value(st, format, st->make_skeleton_enum,
                           "_make_skeleton_enum", args, state);
done:
    Py_XDECREF(members);
    Py_XDECREF(name);
    Py_XDECREF(qualname);
    Py_XDECREF(module);
    Py_XDECREF(tid);
    Py_XDECREF(args);
    Py_XDECREF(state);
    return r;
}

/* (type, (x,)) rebuilds type(x) for the singletons' classes. */
static PyObject *
type_of(PyObject *x)
{
    return Py_BuildValue("(O(O))", (PyObject *)&PyType_Type, x);
}

PyObject *
cpk_reduce_class(cpk_state *st, PyObject *pickler, PyObject *obj)
{
    PyTypeObject *cls = (PyTypeObject *)obj;
    int format = CPK_PICKLER_EXT(pickler)->format;
    if (cls == Py_TYPE(Py_None))
        return type_of(Py_None);
    if (cls == Py_TYPE(Py_Ellipsis))
        return type_of(Py_Ellipsis);
    if (cls == Py_TYPE(Py_NotImplemented))
        return type_of(Py_NotImplemented);
    PyObject *name = builtin_type_name(st, cls);
    if (name != NULL) {
        PyObject *f = cpk_callable(st, format, st->builtin_type,
                                   "cloudpickle.cloudpickle", "_builtin_type");
        return f ? Py_BuildValue("(O(O))", f, name) : NULL;
    }
    if (PyErr_Occurred())
        return NULL;
    int by_ref = cpk_should_pickle_by_reference(st, obj);
    if (by_ref < 0)
        return NULL;
    if (by_ref)
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *enum_type = st->lazy_types[CPK_LAZY_ENUM];
    if (enum_type != NULL && PyType_IsSubtype(cls, (PyTypeObject *)enum_type))
        return reduce_enum(st, format, cls);
    return reduce_plain_class(st, format, cls);
}

/* TypeVar: by reference when importable (and not registered by value),
 * else rebuilt under a tracker id like a class. */
PyObject *
cpk_reduce_typevar(cpk_state *st, int format, PyObject *tv)
{
    PyObject *name = PyObject_GetAttr(tv, st->str___name__);
    if (name == NULL)
        return NULL;
    PyObject *module, *qualname, *r = NULL;
    int found = cpk_lookup_module_and_qualname(st, tv, name, &module,
                                               &qualname);
    if (found < 0)
        goto done;
    if (found) {
        PyObject *mname = PyModule_Check(module)
                              ? PyModule_GetNameObject(module)
                              : PyObject_GetAttr(module, st->str___name__);
        int reg = mname ? cpk_is_registered_by_value(st, mname) : -1;
        Py_XDECREF(mname);
        if (reg == 0)
            r = Py_BuildValue("(O(OO))", st->getattr, module, qualname);
        Py_DECREF(module);
        Py_DECREF(qualname);
        if (reg != 1)
            goto done;
    }
    PyObject *bound = PyObject_GetAttr(tv, st->str___bound__);
    PyObject *cons = PyObject_GetAttr(tv, st->str___constraints__);
    PyObject *co = PyObject_GetAttr(tv, st->str___covariant__);
    PyObject *contra = PyObject_GetAttr(tv, st->str___contravariant__);
    PyObject *tid = cpk_tracker_get_or_create_id(st, tv);
    PyObject *make = cpk_callable(st, format, st->make_typevar,
                                  "cloudpickle.cloudpickle", "_make_typevar");
    if (bound && cons && co && contra && tid && make)
        r = Py_BuildValue("(O(OOOOOO))", make, name, bound, cons, co, contra,
                          tid);
    Py_XDECREF(bound);
    Py_XDECREF(cons);
    Py_XDECREF(co);
    Py_XDECREF(contra);
    Py_XDECREF(tid);
done:
    Py_DECREF(name);
    return r;
}
