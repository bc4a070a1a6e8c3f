/* class.c - classes by value: a class (or enum) that cannot be imported by
 * name is rebuilt from its metaclass, name, bases and namespace, under a
 * tracker id (tracker.c) that gives it one identity per process. Also the
 * builtin types that plain pickle cannot name (types.FunctionType,
 * type(None), ...). The load side is _make_skeleton_class,
 * _make_skeleton_enum and _class_setstate in reconstruct.c; TypeVar and
 * the other typing forms are typeforms.c's.
 */
#include "types/class.h"
#include "core/state.h"
#include "common/pycompat.h"
#include "core/lookup.h"
#include "core/names.h"
#include "core/subtype.h"
#include "core/tracker.h"
#include "types/classkw.h"
#include "types/compat.h"

/* {type: name} for the classes of the `types` module, built on first use.
 * Borrowed (the state holds it). */
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
    if (map == NULL)
        return NULL;
    /* The import may have let another thread build it first: keep theirs,
     * which its callers may be using. */
    if (st->types_names == NULL)
        st->types_names = map;
    else
        Py_DECREF(map);
    return st->types_names;
}

/* The name of `cls` in the `types` module if plain pickle cannot name it
 * (new reference), NULL without error otherwise. */
static PyObject *
builtin_type_name(cpk_state *st, PyTypeObject *cls)
{
    if (cls->tp_flags & Py_TPFLAGS_HEAPTYPE)
        return NULL;
    /* int, dict, ...: builtins has them, no need for the map. */
    if (strchr(cls->tp_name, '.') == NULL) {
        PyObject *name = PyUnicode_FromString(cls->tp_name);
        if (name == NULL)
            return NULL;
        PyObject *b = PyDict_GetItemWithError(
            PyModule_GetDict(st->builtins_module), name);
        Py_DECREF(name);
        if (b == (PyObject *)cls)
            return NULL;
        if (b == NULL && PyErr_Occurred())
            return NULL;
    }
    PyObject *map = types_names(st);
    if (map == NULL)
        return NULL;
    return Py_XNewRef(PyDict_GetItemWithError(map, (PyObject *)cls));
}

/* cls.__dict__ minus what is the very same object in the bases'
 * namespaces, split in two new dicts: *named, the attributes whose names
 * are str, sorted by name (deterministic pickles), each name our private
 * copy (cpk_name: the loader interns the names it sets); *other, those
 * with other keys (type("C", (), {1: "one"})), in the class's own order,
 * which only a namespace can restore (setattr takes str); NULL when there
 * are none, the common case. 0 or -1. */
static int
class_dict(cpk_state *st, PyTypeObject *cls, PyObject **named,
           PyObject **other)
{
    PyObject *keys = NULL, *names = NULL, *bases = NULL, *inherited = NULL;
    *named = *other = NULL;
    PyObject *dict = cpk_type_dict(cls);
    if (dict == NULL)
        return -1;
    keys = PyDict_Keys(dict);
    *named = PyDict_New();
    if (keys == NULL || *named == NULL)
        goto error;
    Py_ssize_t nkeys = PyList_GET_SIZE(keys), nstr = 0;
    for (Py_ssize_t i = 0; i < nkeys; i++)
        nstr += PyUnicode_CheckExact(PyList_GET_ITEM(keys, i));
    if (nstr == nkeys)
        names = Py_NewRef(keys);
    else {
        names = PyList_New(0);
        *other = PyDict_New();
        if (names == NULL || *other == NULL)
            goto error;
        for (Py_ssize_t i = 0; i < nkeys; i++) {
            PyObject *k = PyList_GET_ITEM(keys, i);
            if (PyUnicode_CheckExact(k) && PyList_Append(names, k) < 0)
                goto error;
        }
    }
    /* Exact str only: comparing them runs no Python code. */
    if (PyList_Sort(names) < 0)
        goto error;
    bases = Py_NewRef(cls->tp_bases);
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
        goto error;
    /* Names first. Each value is held: looking a str up in a dict that
     * also holds other keys may call their __eq__ (a colliding hash), and
     * cpk_name may collect, either of which can change the class. */
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(names); i++) {
        PyObject *k = PyList_GET_ITEM(names, i), *v, *base_v;
        int r = cpk_dict_get_ref(dict, k, &v);
        if (r <= 0) {
            if (r < 0)
                goto error;
            continue;
        }
        r = cpk_dict_get_ref(inherited, k, &base_v);
        int same = base_v == v; /* only its identity matters */
        Py_XDECREF(base_v);
        if (r >= 0 && !same) {
            PyObject *name = cpk_name(st, k);
            r = name == NULL ? -1 : PyDict_SetItem(*named, name, v);
            Py_XDECREF(name);
        }
        Py_DECREF(v);
        if (r < 0)
            goto error;
    }
    /* Then the other keys, in class order; their __eq__ may run Python
     * code that changes the class dict, so each value is held. */
    for (Py_ssize_t i = 0; *other != NULL && i < nkeys; i++) {
        PyObject *k = PyList_GET_ITEM(keys, i);
        if (PyUnicode_CheckExact(k))
            continue;
        PyObject *v = Py_XNewRef(PyDict_GetItemWithError(dict, k));
        if (v == NULL) {
            if (PyErr_Occurred())
                goto error;
            continue;
        }
        PyObject *base_v = PyDict_GetItemWithError(inherited, k);
        int r = (base_v == NULL && PyErr_Occurred())
                    ? -1
                    : base_v == v ? 0 : PyDict_SetItem(*other, k, v);
        Py_DECREF(v);
        if (r < 0)
            goto error;
    }
    Py_DECREF(keys);
    Py_DECREF(names);
    Py_DECREF(bases);
    Py_DECREF(inherited);
    Py_DECREF(dict);
    return 0;
error:
    Py_XDECREF(keys);
    Py_XDECREF(names);
    Py_XDECREF(bases);
    Py_XDECREF(inherited);
    Py_DECREF(dict);
    Py_CLEAR(*named);
    Py_CLEAR(*other);
    return -1;
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
 * classes: __slots__ and its descriptors, __orig_bases__). The attributes
 * whose keys are not str go to *other instead (new reference, NULL when
 * there are none). */
static PyObject *
class_state(cpk_state *st, PyTypeObject *cls, int in_namespace,
            PyObject *slots, PyObject **other)
{
    PyObject *clsdict;
    if (class_dict(st, cls, &clsdict, other) < 0)
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
    /* 3.13: setting __module__ deletes __firstlineno__ (type_set_module),
     * and loaders set the state in order: it goes last. */
    PyObject *first = PyDict_GetItemWithError(clsdict,
                                              st->str___firstlineno__);
    if (first == NULL && PyErr_Occurred())
        goto error;
    if (first != NULL) {
        Py_INCREF(first);
        PyObject *key = cpk_name(st, st->str___firstlineno__);
        int r = key == NULL || pop(clsdict, key) < 0 ||
                PyDict_SetItem(clsdict, key, first) < 0;
        Py_XDECREF(key);
        Py_DECREF(first);
        if (r)
            goto error;
    }
    PyObject *empty = PyDict_New();
    if (empty == NULL)
        goto error;
    PyObject *state = PyTuple_Pack(2, clsdict, empty);
    Py_DECREF(empty);
    Py_DECREF(clsdict);
    if (state == NULL)
        Py_CLEAR(*other);
    return state;
error:
    Py_DECREF(clsdict);
    Py_CLEAR(*other);
    return NULL;
}

/* The namespace the skeleton is created with: what must exist before the
 * class does. cloudpickle 3.x ships __module__ and a __dict__ property; we
 * add __qualname__, __orig_bases__ and __slots__ (real slots, not a plain
 * attribute). *slots and *orig_bases get the class's own __slots__ and
 * __orig_bases__ (new references, NULL when it has none). */
static PyObject *
type_kwargs(cpk_state *st, PyTypeObject *cls, PyObject **slots,
            PyObject **orig_bases)
{
    *slots = *orig_bases = NULL;
    PyObject *dict = cpk_type_dict(cls);
    if (dict == NULL)
        return NULL;
    PyObject *kw = PyDict_New();
    if (kw == NULL)
        goto error;
    /* Looked up with exact str keys: no Python code runs, the borrowed
     * values stay valid until they are stored. */
    PyObject *own[] = {st->str___module__, st->str___orig_bases__,
                       st->str___slots__, st->str___dict__};
    for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
        PyObject *v = PyDict_GetItemWithError(dict, own[i]);
        if (v == NULL) {
            if (PyErr_Occurred())
                goto error;
            continue;
        }
        if (own[i] == st->str___dict__ && !Py_IS_TYPE(v, &PyProperty_Type))
            continue;
        if (own[i] == st->str___slots__)
            *slots = Py_NewRef(v);
        if (own[i] == st->str___orig_bases__)
            *orig_bases = Py_NewRef(v);
        if (PyDict_SetItem(kw, own[i], v) < 0)
            goto error;
    }
    if (cls->tp_flags & Py_TPFLAGS_HEAPTYPE) {
        PyObject *q = ((PyHeapTypeObject *)cls)->ht_qualname;
        PyObject *n = ((PyHeapTypeObject *)cls)->ht_name;
        if (q != NULL && n != NULL && PyUnicode_Compare(q, n) != 0 &&
            PyDict_SetItem(kw, st->str___qualname__, q) < 0)
            goto error;
    }
    Py_DECREF(dict);
    return kw;
error:
    Py_XDECREF(kw);
    Py_CLEAR(*slots);
    Py_CLEAR(*orig_bases);
    Py_DECREF(dict);
    return NULL;
}

/* The metaclass type() would pick for `meta` and `bases` (new reference),
 * or NULL without an error on a conflict. */
static PyObject *
winner_meta(PyTypeObject *meta, PyObject *bases)
{
    PyTypeObject *winner = meta;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(bases); i++) {
        PyTypeObject *t = Py_TYPE(PyTuple_GET_ITEM(bases, i));
        if (PyType_IsSubtype(winner, t))
            continue;
        if (!PyType_IsSubtype(t, winner))
            return NULL;
        winner = t;
    }
    return Py_NewRef((PyObject *)winner);
}

/* (typing.TypedDict,) if `cls` is a TypedDict class (new reference), else
 * NULL, with an exception only on error. */
static PyObject *
typeddict_bases(PyTypeObject *cls)
{
    /* The common case costs a pointer compare and a strcmp. */
    PyTypeObject *cls_meta = Py_TYPE(cls);
    if (cls_meta == &PyType_Type ||
        strcmp(cls_meta->tp_name, "_TypedDictMeta") != 0)
        return NULL;
    PyObject *modules = PyImport_GetModuleDict();
    PyObject *typing = PyDict_GetItemString(modules, "typing");
    if (typing == NULL)
        return NULL; /* no TypedDict without typing */
    Py_INCREF(typing);
    PyObject *meta = NULL, *td = NULL, *r = NULL;
    if (PyObject_GetOptionalAttrString(typing, "_TypedDictMeta", &meta) < 0 ||
        PyObject_GetOptionalAttrString(typing, "TypedDict", &td) < 0)
        goto done;
    if (meta != NULL && td != NULL && (PyObject *)cls_meta == meta)
        r = PyTuple_Pack(1, td);
done:
    Py_DECREF(typing);
    Py_XDECREF(meta);
    Py_XDECREF(td);
    return r;
}

/* The bases _make_skeleton_class rebuilds `cls` from (new reference). A
 * class statement calls the metaclass with the resolved __orig_bases__,
 * and some metaclasses then make other bases (TypedDict's: (dict,),
 * NamedTuple's: (tuple,)); TypedDict's refuses to be called with those
 * again ("cannot inherit from both a TypedDict type and a non-TypedDict
 * base class"). So __orig_bases__ travel as the bases when resolving them
 * picks the class's own metaclass, as for a class statement (TypedDict,
 * Generic[T]); otherwise (NamedTuple: the class is a plain `type`, its
 * metaclass would make another namedtuple) the real bases go, and
 * __orig_bases__ stays in the namespace for __init_subclass__ hooks. */
static PyObject *
class_bases(cpk_state *st, PyTypeObject *cls, PyObject *orig_bases)
{
    PyObject *held = NULL;
    if (orig_bases == NULL) {
        /* Before 3.12 a TypedDict subclassing another keeps no
         * __orig_bases__ (gh-103699): its class statement named
         * TypedDicts, which a TypedDict's own namespace (in the state:
         * annotations, required and optional keys) stands for. */
        held = typeddict_bases(cls);
        if (held == NULL)
            return PyErr_Occurred() ? NULL : Py_NewRef(cls->tp_bases);
        orig_bases = held;
    }
    if (!PyTuple_Check(orig_bases))
        return Py_NewRef(cls->tp_bases);
    PyObject *types = PyImport_ImportModule("types");
    if (types == NULL)
        goto error;
    PyObject *resolved = PyObject_CallMethod(types, "resolve_bases", "(O)",
                                             orig_bases);
    Py_DECREF(types);
    if (resolved == NULL)
        goto error;
    PyObject *winner = PyTuple_Check(resolved)
                           ? winner_meta(Py_TYPE(cls), resolved)
                           : NULL;
    Py_DECREF(resolved);
    PyObject *r = winner == (PyObject *)Py_TYPE(cls) ? orig_bases
                                                       : cls->tp_bases;
    Py_XDECREF(winner);
    Py_INCREF(r);
    Py_XDECREF(held);
    return r;
error:
    Py_XDECREF(held);
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

/* Refuse attributes with keys other than str where they cannot travel. */
static int
refuse_other_keys(cpk_state *st, PyTypeObject *cls, PyObject *other,
                  const char *why)
{
    if (other == NULL || PyDict_GET_SIZE(other) == 0)
        return 0;
    PyErr_Format(st->PicklingError,
                 "Can't pickle %R: its namespace has keys that are not "
                 "strings, which %s cannot carry", (PyObject *)cls, why);
    return -1;
}

static PyObject *
reduce_plain_class(cpk_state *st, int format, PyTypeObject *cls)
{
    PyObject *slots, *orig_bases, *bases = NULL, *tid = NULL, *name = NULL;
    PyObject *other = NULL, *args = NULL, *state = NULL, *r = NULL;
    PyObject *extra = NULL;
    PyObject *kw = type_kwargs(st, cls, &slots, &orig_bases);
    if (kw == NULL)
        return NULL;
    bases = class_bases(st, cls, orig_bases);
    if (bases == NULL)
        goto done;
    tid = cpk_tracker_get_or_create_id(st, (PyObject *)cls);
    name = PyObject_GetAttr((PyObject *)cls, st->str___name__);
    if (tid == NULL || name == NULL)
        goto done;
    state = class_state(st, cls, 1, slots, &other);
    if (state == NULL)
        goto done;
    /* Keys setattr cannot take are part of the namespace the class is
     * made with (cloudpickle's loader interns every key: not there). */
    if (format != CPK_FORMAT_NATIVE) {
        if (refuse_other_keys(st, cls, other, "cloudpickle's format") < 0)
            goto done;
    }
    else if (other != NULL && PyDict_Update(kw, other) < 0)
        goto done;
    /* Class keywords: stock loaders would drop them, so only our format
     * looks for them. */
    extra = format == CPK_FORMAT_NATIVE ? cpk_class_extra(st, cls)
                                        : Py_NewRef(Py_None);
    if (extra == NULL)
        goto done;
    args = PyTuple_Pack(6, (PyObject *)Py_TYPE(cls), name, bases, kw, tid,
                        extra);
    if (args != NULL)
        r = class_reduce_value(st, format, st->make_skeleton_class,
                               "_make_skeleton_class", args, state);
done:
    Py_DECREF(kw);
    Py_XDECREF(slots);
    Py_XDECREF(orig_bases);
    Py_XDECREF(bases);
    Py_XDECREF(tid);
    Py_XDECREF(name);
    Py_XDECREF(other);
    Py_XDECREF(extra);
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
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "bad enum _member_map_");
            Py_CLEAR(out);
            break;
        }
        /* Member names are names the loader interns (cpk_name). */
        PyObject *value = PyObject_GetAttr(PyTuple_GET_ITEM(pair, 1),
                                           st->str__value_);
        PyObject *key =
            value == NULL ? NULL : cpk_name(st, PyTuple_GET_ITEM(pair, 0));
        if (value == NULL || key == NULL ||
            PyDict_SetItem(out, key, value) < 0)
            Py_CLEAR(out);
        Py_XDECREF(key);
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
    /* A copy: the attribute lookups below may run Python code. */
    PyObject *seq = PySequence_Tuple(names);
    if (seq == NULL)
        goto error;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(seq); i++) {
        PyObject *name = PyTuple_GET_ITEM(seq, i);
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
            /* Exact str keys only: a subclass's __hash__ (run by
             * SetItem before it takes its references on 3.9/3.10) could
             * change the dict and free k and v. */
            if (PyUnicode_CheckExact(k) && !enum_internal_name(k) &&
                PyDict_SetItem(attrs, k, v) < 0)
                Py_CLEAR(attrs);
        }
        Py_DECREF(dict);
        if (attrs == NULL) {
            Py_DECREF(seq);
            goto error;
        }
        PyObject *key = cpk_name(st, name);
        int e = key == NULL || (PyDict_GET_SIZE(attrs) > 0 &&
                                PyDict_SetItem(out, key, attrs) < 0);
        Py_XDECREF(key);
        Py_DECREF(attrs);
        if (e) {
            Py_DECREF(seq);
            goto error;
        }
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
    PyObject *bases = NULL, *other = NULL;
    /* Each step runs Python code: none may run with an error set. */
    if ((members = enum_members(st, o)) == NULL ||
        (name = PyObject_GetAttr(o, st->str___name__)) == NULL ||
        (qualname = PyObject_GetAttr(o, st->str___qualname__)) == NULL ||
        (module = PyObject_GetAttr(o, st->str___module__)) == NULL)
        goto done;
    tid = cpk_tracker_get_or_create_id(st, o);
    if (tid == NULL)
        goto done;
    bases = Py_NewRef(cls->tp_bases);
    args = PyTuple_Pack(7, bases, name, qualname, members, module, tid,
                        Py_None);
    if (args == NULL)
        goto done;
    state = class_state(st, cls, 0, NULL, &other);
    if (state == NULL ||
        refuse_other_keys(st, cls, other, "an enum's pickle") < 0 ||
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
    Py_XDECREF(bases);
    Py_XDECREF(other);
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
        PyObject *r = f ? Py_BuildValue("(O(O))", f, name) : NULL;
        Py_DECREF(name);
        return r;
    }
    if (PyErr_Occurred())
        return NULL;
    int by_ref = cpk_should_pickle_by_reference(st, obj);
    if (by_ref < 0)
        return NULL;
    /* A static type (type(sys.flags)) that cannot be found by name cannot
     * be rebuilt by value either: a copy would be another class, and its
     * namespace is not a dict we may read (per interpreter since 3.12).
     * pickle's own save_global refuses it with a PicklingError naming it
     * ("it's not the same object as sys.flags"). */
    if (by_ref || !(cls->tp_flags & Py_TPFLAGS_HEAPTYPE))
        Py_RETURN_NOTIMPLEMENTED;
    /* The same for a heap type of a C module (3.10+ marks them immutable;
     * no class statement makes one): _operator.itemgetter, named
     * operator.itemgetter, pickled while operator itself is not imported.
     * Its copy would lack the C layout; by name, the load imports it. */
    if (cls->tp_flags & CPK_PY_TPFLAGS_IMMUTABLETYPE)
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *enum_type = st->lazy_types[CPK_LAZY_ENUM];
    if (enum_type != NULL && PyType_IsSubtype(cls, (PyTypeObject *)enum_type))
        return reduce_enum(st, format, cls);
    return reduce_plain_class(st, format, cls);
}
