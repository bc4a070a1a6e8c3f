/* reconstruct.c - the callables our pickles reference by name: the load
 * side of function.c, class.c and reducers.c. Their names and signatures
 * are the file format (doc/FORMAT.md): never rename one, add a new name.
 * Arguments come from a pickle, which may be damaged: each callable checks
 * what it is given and fails with an exception, never a crash. cloudpickle
 * names that differ from ours are in compat.c; code objects in code.c.
 */
#include "internal.h"

static int
nargs_is(const char *name, Py_ssize_t nargs, Py_ssize_t min, Py_ssize_t max)
{
    if (nargs >= min && nargs <= max)
        return 1;
    if (min == max)
        PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%zd given)",
                     name, min, nargs);
    else
        PyErr_Format(PyExc_TypeError,
                     "%s() takes %zd to %zd arguments (%zd given)", name, min,
                     max, nargs);
    return 0;
}

static int
bad(cpk_state *st, const char *what)
{
    PyErr_Format(st->UnpicklingError, "invalid pickle: %s", what);
    return -1;
}

/* Functions ---------------------------------------------------------------- */

/* Make sure the globals of a rebuilt function have builtins. */
static int
ensure_builtins(cpk_state *st, PyObject *globals)
{
    int has = PyDict_Contains(globals, st->str___builtins__);
    if (has != 0)
        return has < 0 ? -1 : 0;
    return PyDict_SetItem(globals, st->str___builtins__, st->builtins_module);
}

/* _function_new(code, globals, ncells) -> function with ncells empty cells
 * (None: no closure); _function_fill sets the rest. */
static PyObject *
function_new(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!nargs_is("_function_new", nargs, 3, 3))
        return NULL;
    PyObject *code = args[0], *globals = args[1], *ncells = args[2];
    if (!PyCode_Check(code) || !PyDict_Check(globals)) {
        bad(st, "_function_new() needs code and a dict");
        return NULL;
    }
    if (ensure_builtins(st, globals) < 0)
        return NULL;
    PyObject *func = PyFunction_New(code, globals);
    if (func == NULL || ncells == Py_None)
        return func;
    Py_ssize_t n = PyLong_AsSsize_t(ncells);
    if (n == -1 && PyErr_Occurred())
        goto error;
    if (n != cpk_code_nfreevars(code)) {
        bad(st, "closure size does not match the code");
        goto error;
    }
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

static int
fill_closure(cpk_state *st, PyObject *func, PyObject *values)
{
    PyObject *closure = PyFunction_GetClosure(func);
    if (!PyTuple_Check(values) || closure == NULL ||
        PyTuple_GET_SIZE(values) != PyTuple_GET_SIZE(closure))
        return bad(st, "closure values do not match the function");
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(values); i++) {
        PyObject *v = PyTuple_GET_ITEM(values, i);
        if (v != st->empty_cell_value &&
            PyCell_Set(PyTuple_GET_ITEM(closure, i), v) < 0)
            return -1;
    }
    return 0;
}

/* _function_fill(func, state): state is a dict; __globals__ merges into
 * the function's globals, __closure__ fills the cells, __dict__ merges
 * into its __dict__, __submodules__ only made the loader import them;
 * every other key is set as an attribute. */
static PyObject *
function_fill(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!nargs_is("_function_fill", nargs, 2, 2))
        return NULL;
    PyObject *func = args[0], *state = args[1];
    if (!PyFunction_Check(func) || !PyDict_Check(state)) {
        bad(st, "_function_fill() needs a function and a dict");
        return NULL;
    }
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (PyDict_Next(state, &pos, &k, &v)) {
        int r;
        if (!PyUnicode_Check(k))
            r = bad(st, "function state key is not a str");
        else if (k == st->str___globals__ ||
                 PyUnicode_Compare(k, st->str___globals__) == 0) {
            r = PyDict_Check(v)
                    ? PyDict_Update(PyFunction_GET_GLOBALS(func), v)
                    : bad(st, "__globals__ is not a dict");
        }
        else if (PyUnicode_Compare(k, st->str___closure__) == 0)
            r = fill_closure(st, func, v);
        else if (PyUnicode_Compare(k, st->str___dict__) == 0) {
            PyObject *d = PyObject_GenericGetDict(func, NULL);
            r = d == NULL ? -1 : PyDict_Update(d, v);
            Py_XDECREF(d);
        }
        else if (PyUnicode_Compare(k, st->str___submodules__) == 0)
            r = 0;
        else
            r = PyObject_SetAttr(func, k, v);
        if (r < 0)
            return NULL;
    }
    Py_RETURN_NONE;
}

/* Cells -------------------------------------------------------------------- */

static PyObject *
make_cell(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!nargs_is("_make_cell", nargs, 0, 1))
        return NULL;
    PyObject *v = nargs ? args[0] : NULL;
    return PyCell_New(v == st->empty_cell_value ? NULL : v);
}

static PyObject *
make_empty_cell(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    return PyCell_New(NULL);
}

/* Modules ------------------------------------------------------------------- */

/* subimport(name): import name and return that module (not its package). */
static PyObject *
subimport(PyObject *m, PyObject *name)
{
    cpk_state *st = cpk_get_state(m);
    if (!PyUnicode_Check(name)) {
        bad(st, "module name is not a str");
        return NULL;
    }
    PyObject *top = PyImport_Import(name);
    if (top == NULL)
        return NULL;
    Py_DECREF(top);
    return PyImport_GetModule(name);
}

/* dynamic_subimport(name, vars): a new module with that namespace. */
static PyObject *
dynamic_subimport(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!nargs_is("dynamic_subimport", nargs, 2, 2))
        return NULL;
    if (!PyUnicode_Check(args[0]) || !PyDict_Check(args[1])) {
        bad(st, "dynamic_subimport() needs a str and a dict");
        return NULL;
    }
    PyObject *mod = PyModule_NewObject(args[0]);
    if (mod == NULL)
        return NULL;
    PyObject *dict = PyModule_GetDict(mod);
    if (PyDict_Update(dict, args[1]) < 0 ||
        PyDict_SetItem(dict, st->str___builtins__,
                       PyModule_GetDict(st->builtins_module)) < 0) {
        Py_DECREF(mod);
        return NULL;
    }
    return mod;
}

/* _builtin_type(name): getattr(types, name); "ClassType" is `type` in
 * pickles of cloudpickle < 1.3. */
static PyObject *
builtin_type(PyObject *m, PyObject *name)
{
    cpk_state *st = cpk_get_state(m);
    if (!PyUnicode_Check(name)) {
        bad(st, "type name is not a str");
        return NULL;
    }
    if (PyUnicode_CompareWithASCIIString(name, "ClassType") == 0)
        return Py_NewRef((PyObject *)&PyType_Type);
    PyObject *types = PyImport_ImportModule("types");
    if (types == NULL)
        return NULL;
    PyObject *t = PyObject_GetAttr(types, name);
    Py_DECREF(types);
    return t;
}

/* Classes -------------------------------------------------------------------- */

/* _make_skeleton_class(metaclass, name, bases, type_kwargs, tracker_id,
 * extra): what types.new_class does with type_kwargs as the namespace,
 * then the class already known under tracker_id, if any. */
static PyObject *
make_skeleton_class(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!nargs_is("_make_skeleton_class", nargs, 6, 6))
        return NULL;
    PyObject *meta = args[0], *name = args[1], *bases = args[2];
    PyObject *kwargs = args[3], *tid = args[4];
    if (!PyTuple_Check(bases) || !PyDict_Check(kwargs)) {
        bad(st, "_make_skeleton_class() needs a tuple and a dict");
        return NULL;
    }
    PyObject *types = NULL, *resolved = NULL, *prep = NULL, *kwds = NULL;
    PyObject *cls = NULL, *result = NULL;
    types = PyImport_ImportModule("types");
    if (types == NULL)
        goto done;
    resolved = PyObject_CallMethod(types, "resolve_bases", "(O)", bases);
    kwds = Py_BuildValue("{sO}", "metaclass", meta);
    if (resolved == NULL || kwds == NULL)
        goto done;
    prep = PyObject_CallMethod(types, "prepare_class", "OOO", name, resolved,
                               kwds);
    if (prep == NULL)
        goto done;
    if (!PyTuple_Check(prep) || PyTuple_GET_SIZE(prep) != 3) {
        PyErr_SetString(PyExc_TypeError, "types.prepare_class() changed");
        goto done;
    }
    PyObject *real_meta = PyTuple_GET_ITEM(prep, 0);
    PyObject *ns = PyTuple_GET_ITEM(prep, 1);
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (PyDict_Next(kwargs, &pos, &k, &v)) {
        /* Interned, like names set by a class body. */
        Py_INCREF(k);
        if (PyUnicode_CheckExact(k))
            PyUnicode_InternInPlace(&k);
        int r = PyObject_SetItem(ns, k, v);
        Py_DECREF(k);
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
done:
    Py_XDECREF(types);
    Py_XDECREF(resolved);
    Py_XDECREF(kwds);
    Py_XDECREF(prep);
    Py_XDECREF(cls);
    return result;
}

/* _make_skeleton_enum(bases, name, qualname, members, module, tracker_id,
 * extra): the enum built by its metaclass from its members. */
static PyObject *
make_skeleton_enum(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!nargs_is("_make_skeleton_enum", nargs, 7, 7))
        return NULL;
    PyObject *bases = args[0], *name = args[1], *qualname = args[2];
    PyObject *members = args[3], *module = args[4], *tid = args[5];
    if (!PyTuple_Check(bases) || PyTuple_GET_SIZE(bases) == 0 ||
        !PyDict_Check(members)) {
        bad(st, "_make_skeleton_enum() needs bases and a dict");
        return NULL;
    }
    /* Enums put their Enum base last. */
    PyObject *meta = (PyObject *)Py_TYPE(
        PyTuple_GET_ITEM(bases, PyTuple_GET_SIZE(bases) - 1));
    PyObject *ns = NULL, *cls = NULL, *result = NULL;
    ns = PyObject_CallMethodObjArgs(meta, st->str___prepare__, name, bases,
                                    NULL);
    if (ns == NULL)
        goto done;
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (PyDict_Next(members, &pos, &k, &v))
        if (PyObject_SetItem(ns, k, v) < 0)
            goto done;
    PyObject *new = PyObject_GetAttr(meta, st->str___new__);
    if (new == NULL)
        goto done;
    cls = PyObject_CallFunctionObjArgs(new, meta, name, bases, ns, NULL);
    Py_DECREF(new);
    if (cls == NULL ||
        PyObject_SetAttr(cls, st->str___module__, module) < 0 ||
        PyObject_SetAttr(cls, st->str___qualname__, qualname) < 0)
        goto done;
    int found;
    result = cpk_tracker_lookup_or_track(st, tid, cls, &found);
done:
    Py_XDECREF(ns);
    Py_XDECREF(cls);
    return result;
}

/* Give enum members back the attributes their __init__ set. */
static int
set_member_attrs(cpk_state *st, PyObject *cls, PyObject *attrs)
{
    if (!PyDict_Check(attrs))
        return bad(st, "_cpk_member_attrs is not a dict");
    Py_ssize_t pos = 0;
    PyObject *name, *values;
    while (PyDict_Next(attrs, &pos, &name, &values)) {
        PyObject *member = PyObject_GetAttr(cls, name);
        if (member == NULL)
            return -1;
        int r = 0;
        Py_ssize_t p2 = 0;
        PyObject *k, *v;
        while (r == 0 && PyDict_Check(values) &&
               PyDict_Next(values, &p2, &k, &v))
            r = PyObject_SetAttr(member, k, v);
        Py_DECREF(member);
        if (r < 0)
            return -1;
    }
    return 0;
}

/* _class_setstate(cls, (state, slotstate)): set the class attributes and
 * register the ABC's virtual subclasses. A class that was defined in this
 * process (not rebuilt from a pickle) is left as it is: its own methods
 * are better than copies whose globals are detached from its module. */
static PyObject *
class_setstate(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!nargs_is("_class_setstate", nargs, 2, 2))
        return NULL;
    PyObject *cls = args[0], *state = args[1];
    if (!PyTuple_Check(state) || PyTuple_GET_SIZE(state) != 2 ||
        !PyDict_Check(PyTuple_GET_ITEM(state, 0)) ||
        !PyDict_Check(PyTuple_GET_ITEM(state, 1))) {
        bad(st, "class state is not (dict, dict)");
        return NULL;
    }
    int original = cpk_tracker_is_original(st, cls);
    if (original < 0)
        return NULL;
    if (original)
        return Py_NewRef(cls);
    /* Stock cloudpickle ships an enum's aliases and composite flags in the
     * class state; the metaclass made them already and refuses to have
     * them reassigned. */
    PyObject *members = NULL;
    if (PyObject_GetOptionalAttr(cls, st->str__member_map_, &members) < 0)
        return NULL;
    if (members != NULL && !PyDict_Check(members))
        Py_CLEAR(members);
    PyObject *registry = NULL, *member_attrs = NULL;
    for (int part = 0; part < 2; part++) {
        Py_ssize_t pos = 0;
        PyObject *k, *v;
        while (PyDict_Next(PyTuple_GET_ITEM(state, part), &pos, &k, &v)) {
            if (part == 0 && PyUnicode_Check(k) &&
                PyUnicode_Compare(k, st->str__abc_impl) == 0) {
                registry = v;
                continue;
            }
            if (part == 0 && PyUnicode_Check(k) &&
                PyUnicode_Compare(k, st->str__cpk_member_attrs) == 0) {
                member_attrs = v;
                continue;
            }
            if (members != NULL) {
                int is_member = PyDict_Contains(members, k);
                if (is_member < 0) {
                    Py_DECREF(members);
                    return NULL;
                }
                if (is_member)
                    continue;
            }
            if (PyObject_SetAttr(cls, k, v) < 0) {
                Py_XDECREF(members);
                return NULL;
            }
        }
    }
    Py_XDECREF(members);
    if (member_attrs != NULL && set_member_attrs(st, cls, member_attrs) < 0)
        return NULL;
    if (registry != NULL) {
        PyObject *it = PyObject_GetIter(registry);
        if (it == NULL)
            return NULL;
        PyObject *sub;
        while ((sub = PyIter_Next(it)) != NULL) {
            PyObject *r = PyObject_CallMethodOneArg(cls, st->str_register, sub);
            Py_DECREF(sub);
            if (r == NULL) {
                Py_DECREF(it);
                return NULL;
            }
            Py_DECREF(r);
        }
        Py_DECREF(it);
        if (PyErr_Occurred())
            return NULL;
    }
    return Py_NewRef(cls);
}

/* _make_typevar(name, bound, constraints, covariant, contravariant,
 * tracker_id) */
static PyObject *
make_typevar(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!nargs_is("_make_typevar", nargs, 6, 6))
        return NULL;
    if (!PyTuple_Check(args[2])) {
        bad(st, "TypeVar constraints are not a tuple");
        return NULL;
    }
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

static int
ordered_arg(PyObject *const *args, Py_ssize_t nargs)
{
    return nargs > 1 ? PyObject_IsTrue(args[1]) : 0;
}

/* A dict (or OrderedDict) holding `items` as its keys (values None), or
 * as its values (keys 0, 1, ...): what a keys or values view shows. */
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

static PyObject *
make_view(const char *fname, const char *method, int as_keys,
          PyObject *const *args, Py_ssize_t nargs)
{
    if (!nargs_is(fname, nargs, 1, 2))
        return NULL;
    int ordered = ordered_arg(args, nargs);
    if (ordered < 0)
        return NULL;
    PyObject *d = mapping_of(args[0], ordered, as_keys);
    if (d == NULL)
        return NULL;
    PyObject *r = PyObject_CallMethod(d, method, NULL);
    Py_DECREF(d);
    return r;
}

/* _make_dict_keys(keys, is_ordered=False) */
static PyObject *
make_dict_keys(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    (void)m;
    return make_view("_make_dict_keys", "keys", 1, args, nargs);
}

/* _make_dict_values(values, is_ordered=False) */
static PyObject *
make_dict_values(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    (void)m;
    return make_view("_make_dict_values", "values", 0, args, nargs);
}

/* _make_dict_items(mapping, is_ordered=False) */
static PyObject *
make_dict_items(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    (void)m;
    if (!nargs_is("_make_dict_items", nargs, 1, 2))
        return NULL;
    int ordered = ordered_arg(args, nargs);
    if (ordered < 0)
        return NULL;
    PyObject *d = ordered ? PyObject_CallOneArg((PyObject *)&PyODict_Type,
                                                args[0])
                          : PyDict_Copy(args[0]);
    if (d == NULL)
        return NULL;
    PyObject *r = PyObject_CallMethod(d, "items", NULL);
    Py_DECREF(d);
    return r;
}

static PyObject *
file_reconstructor(PyObject *m, PyObject *retval)
{
    (void)m;
    return Py_NewRef(retval);
}

static PyObject *
dataclass_sentinel(PyObject *m, PyObject *name)
{
    cpk_state *st = cpk_get_state(m);
    PyObject *dc = PyImport_ImportModule("dataclasses");
    if (dc == NULL)
        return NULL;
    PyObject *r = NULL;
    PyObject *names[] = {st->str__FIELD, st->str__FIELD_CLASSVAR,
                         st->str__FIELD_INITVAR};
    for (size_t i = 0; i < 3 && r == NULL && !PyErr_Occurred(); i++) {
        PyObject *s = PyObject_GetAttr(dc, names[i]);
        if (s == NULL)
            break;
        PyObject *sname = PyObject_GetAttr(s, st->str_name);
        int eq = sname ? PyObject_RichCompareBool(sname, name, Py_EQ) : -1;
        Py_XDECREF(sname);
        if (eq == 1)
            r = s;
        else
            Py_DECREF(s);
    }
    Py_DECREF(dc);
    if (r == NULL && !PyErr_Occurred())
        PyErr_Format(PyExc_KeyError, "%R", name);
    return r;
}

#define FAST(name, func, doc)                                                \
    {name, (PyCFunction)(void (*)(void))func, METH_FASTCALL, PyDoc_STR(doc)}

PyMethodDef cpk_reconstruct_methods[] = {
    FAST("_function_new", function_new,
         "_function_new(code, globals, ncells)\n--\n\nRebuild a function."),
    FAST("_function_fill", function_fill,
         "_function_fill(func, state)\n--\n\nSet a rebuilt function's state."),
    FAST("_code_unmarshal", cpk_code_unmarshal,
         "_code_unmarshal(python_version, magic, data)\n--\n\n"
         "Code object from marshal data of the same bytecode version."),
    FAST("_code_new", cpk_code_new,
         "_code_new(python_version, magic, fields)\n--\n\n"
         "Code object from types.CodeType arguments."),
    FAST("_make_cell", make_cell, "_make_cell(value)\n--\n\nA cell."),
    {"_make_empty_cell", make_empty_cell, METH_NOARGS,
     PyDoc_STR("_make_empty_cell()\n--\n\nAn empty cell.")},
    {"subimport", subimport, METH_O,
     PyDoc_STR("subimport(name)\n--\n\nImport and return module name.")},
    FAST("dynamic_subimport", dynamic_subimport,
         "dynamic_subimport(name, vars)\n--\n\nA module made on the fly."),
    {"_builtin_type", builtin_type, METH_O,
     PyDoc_STR("_builtin_type(name)\n--\n\ngetattr(types, name).")},
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
    {"_file_reconstructor", file_reconstructor, METH_O,
     PyDoc_STR("_file_reconstructor(stringio)\n--\n\nThe file, as read.")},
    {"_get_dataclass_field_type_sentinel", dataclass_sentinel, METH_O,
     PyDoc_STR("_get_dataclass_field_type_sentinel(name)\n--\n\n"
               "dataclasses._FIELD, _FIELD_CLASSVAR or _FIELD_INITVAR.")},
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
    return st->sentinel_type == NULL ? -1 : 0;
}
