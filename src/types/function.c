/* function.c - functions by value: the reduce tuple for a function that
 * cannot be found again by module and name (lambdas, nested functions,
 * anything in __main__ or in a module pickled by value). It carries the
 * code, only the globals the code uses, the closure, defaults and
 * attributes, and the submodules the code reaches as attributes.
 *
 * Code objects are reduced in code.c, the by-reference test is lookup.c,
 * the global names come from codeinfo.c, and the load side is
 * _function_new/_function_fill in reconstruct.c (cloudpickle's format:
 * compat.c).
 */
#include "types/function.h"
#include "core/state.h"
#include "common/pycompat.h"
#include "common/pyerr.h" /* cpk_error_clearable */
#include "core/lookup.h"
#include "core/names.h"
#include "core/subtype.h"
#include "types/code.h"
#include "types/codeinfo.h"
#include "types/compat.h"
#include "types/functools.h"

/* Make ext->globals_ref and ext->globals_alive if not yet made, with the
 * entry of a dump's first globals, which only the one-entry cache held
 * until now (cpk_function_base_globals). */
int
cpk_pickler_globals_ref(cpk_pickler_ext *ext)
{
    /* Allocating a container may run a collection, hence finalizers and
     * other threads: assign only if still empty afterwards. */
    if (ext->globals_ref == NULL) {
        PyObject *d = PyDict_New();
        if (d == NULL)
            return -1;
        if (ext->globals_ref == NULL)
            ext->globals_ref = d;
        else
            Py_DECREF(d);
    }
    if (ext->globals_alive == NULL) {
        PyObject *l = PyList_New(0);
        if (l == NULL)
            return -1;
        if (ext->globals_alive == NULL)
            ext->globals_alive = l;
        else
            Py_DECREF(l);
    }
    if (ext->globals_pending && ext->last_globals != NULL) {
        PyObject *g = Py_NewRef(ext->last_globals);
        PyObject *base = Py_NewRef(ext->last_base);
        PyObject *ref = Py_NewRef(ext->globals_ref);
        PyObject *alive = Py_NewRef(ext->globals_alive);
        PyObject *key = PyLong_FromVoidPtr(g);
        int r = key == NULL || PyDict_SetDefault(ref, key, base) == NULL ||
                        PyList_Append(alive, g) < 0
                    ? -1
                    : 0;
        Py_XDECREF(key);
        Py_DECREF(g);
        Py_DECREF(base);
        Py_DECREF(ref);
        Py_DECREF(alive);
        if (r < 0)
            return -1;
    }
    ext->globals_pending = 0;
    return 0;
}

/* The seed of the dict that will be a function's globals after loading:
 * what relative imports need. New reference. */
static PyObject *
make_base(cpk_state *st, PyObject *globals)
{
    PyObject *base = PyDict_New();
    if (base == NULL)
        return NULL;
    PyObject *seed[] = {st->str___package__, st->str___name__,
                        st->str___path__, st->str___file__};
    for (size_t i = 0; i < sizeof(seed) / sizeof(seed[0]); i++) {
        PyObject *v;
        int r = cpk_dict_get_ref(globals, seed[i], &v);
        if (r > 0) {
            r = PyDict_SetItem(base, seed[i], v);
            Py_DECREF(v);
        }
        if (r < 0) {
            Py_DECREF(base);
            return NULL;
        }
    }
    return base;
}

/* The dict that will be the function's globals after loading: one per
 * distinct __globals__ in a Pickler's lifetime, so functions that shared
 * globals share them again, and a module pickled by value gets the same
 * dict as its namespace (reducers.c). The first globals of a dump are
 * kept by the one-entry cache alone (globals_pending), the map of all
 * made when a second comes or the map is asked for: a task's dump has
 * one. New reference: the caller runs Python code (attribute lookups,
 * comparisons) that may clear or replace p.globals_ref. */
PyObject *
cpk_function_base_globals(cpk_state *st, cpk_pickler_ext *ext,
                          PyObject *globals)
{
    /* The one-entry cache is only good while globals_ref is ours alone:
     * once handed out, whoever holds it may have changed it. */
    if (ext->last_globals == globals && !ext->globals_ref_shared)
        return Py_NewRef(ext->last_base);
    if (ext->globals_ref == NULL && ext->last_globals == NULL &&
        !ext->globals_ref_shared) {
        PyObject *base = make_base(st, globals);
        if (base == NULL)
            return NULL;
        /* Unless the lookups ran code that made an entry meanwhile. */
        if (ext->globals_ref == NULL && ext->last_globals == NULL &&
            !ext->globals_ref_shared) {
            ext->last_globals = Py_NewRef(globals);
            ext->last_base = Py_NewRef(base);
            ext->globals_pending = 1;
            return base;
        }
        Py_DECREF(base);
    }
    if (cpk_pickler_globals_ref(ext) < 0)
        return NULL;
    PyObject *ref = Py_NewRef(ext->globals_ref), *base = NULL;
    PyObject *key = PyLong_FromVoidPtr(globals);
    if (key == NULL)
        goto error;
    int found = cpk_dict_get_ref(ref, key, &base);
    if (found < 0)
        goto error;
    if (!found) {
        base = make_base(st, globals);
        if (base == NULL)
            goto error;
        /* cloudpickle's setdefault: an entry made meanwhile wins. */
        PyObject *entry = PyDict_SetDefault(ref, key, base);
        if (entry == NULL)
            goto error;
        Py_SETREF(base, Py_NewRef(entry));
        /* Holding the globals keeps their id from being reused. (Made
         * again if a re-entrant __init__ dropped the list.) */
        if (cpk_pickler_globals_ref(ext) < 0 ||
            PyList_Append(ext->globals_alive, globals) < 0)
            goto error;
    }
    Py_DECREF(key);
    Py_DECREF(ref);
    if (!ext->globals_ref_shared) {
        Py_XSETREF(ext->last_globals, Py_NewRef(globals));
        Py_XSETREF(ext->last_base, Py_NewRef(base));
    }
    return base;
error:
    Py_XDECREF(key);
    Py_XDECREF(base);
    Py_DECREF(ref);
    return NULL;
}

/* {name: value} for the names in `names` that `globals` holds. */
static PyObject *
used_globals(cpk_state *st, PyObject *globals, PyObject *names)
{
    PyObject *out = PyDict_New();
    if (out == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names); i++) {
        PyObject *k = PyTuple_GET_ITEM(names, i), *v;
        /* Strong: the lookup (a colliding key's __eq__) and the copy
         * below (a collection) may run code that changes `globals`. */
        int r = cpk_dict_get_ref(globals, k, &v);
        if (r == 0)
            continue;
        if (r > 0) {
            /* Our copy of the name: deterministic bytes (cpk_name). */
            PyObject *name = cpk_name(st, k);
            r = name == NULL ? -1 : PyDict_SetItem(out, name, v);
            Py_XDECREF(name);
            Py_DECREF(v);
        }
        if (r < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out;
}

/* Add to `found` ({name: module}) the loaded submodules of `prefix` that
 * code can reach as prefix.a.b with every part among the code's names. */
static int
add_submodules(cpk_state *st, PyObject *prefix, PyObject *all_names,
               PyObject *found)
{
    PyObject *it = PyObject_GetIter(all_names);
    if (it == NULL)
        return -1;
    PyObject *name;
    while ((name = PyIter_Next(it)) != NULL) {
        PyObject *full = PyUnicode_FromFormat("%U.%U", prefix, name);
        Py_DECREF(name);
        if (full == NULL) {
            Py_DECREF(it);
            return -1;
        }
        PyObject *mod;
        int r = cpk_dict_get_ref(st->sys_modules, full, &mod);
        if (r > 0 && PyModule_Check(mod)) {
            int seen = PyDict_Contains(found, full);
            if (seen < 0)
                r = -1;
            else if (!seen)
                r = (PyDict_SetItem(found, full, mod) < 0 ||
                     add_submodules(st, full, all_names, found) < 0)
                        ? -1
                        : 0;
        }
        Py_XDECREF(mod);
        Py_DECREF(full);
        if (r < 0) {
            Py_DECREF(it);
            return -1;
        }
    }
    Py_DECREF(it);
    return PyErr_Occurred() ? -1 : 0;
}

/* add_submodules for `v` if it is a package module; *found made on
 * the first one. 0 or -1. */
static int
package_submodules(cpk_state *st, PyObject *v, PyObject *all_names,
                   PyObject **found)
{
    if (!PyModule_Check(v))
        return 0;
    /* cloudpickle: `hasattr(x, "__package__") and x.__package__`, whose
     * errors propagate. A plain module's attribute is its dict's entry
     * (ModuleType has no __package__ descriptor); read it there when
     * present, as getattr would, without the generic lookup. */
    PyObject *package = NULL, *dict = PyModule_GetDict(v);
    if (dict == NULL)
        return 0; /* 3.9, 3.10: ModuleType.__new__ alone, no namespace */
    if (Py_IS_TYPE(v, &PyModule_Type) &&
        cpk_dict_get_ref(dict, st->str___package__, &package) < 0)
        return -1;
    if (package == NULL &&
        PyObject_GetOptionalAttr(v, st->str___package__, &package) < 0)
        return -1;
    int is_package = package != NULL ? PyObject_IsTrue(package) : 0;
    Py_XDECREF(package);
    if (is_package <= 0)
        return is_package;
    PyObject *name = cpk_module_name(st, v);
    if (name == NULL) {
        /* A nameless module has no submodules to find (its reducer
         * says why it cannot be pickled). */
        if (!cpk_error_clearable())
            return -1;
        PyErr_Clear();
        return 0;
    }
    int r = -1;
    if (*found != NULL || (*found = PyDict_New()) != NULL)
        r = add_submodules(st, name, all_names, *found);
    Py_DECREF(name);
    return r;
}

/* cloudpickle's _find_imported_submodules: among the values of `fglobals`
 * (the globals subset, ours alone) and of the cells of `closure` (or
 * NULL), modules inside a package may have loaded submodules the code
 * uses as attributes (concurrent.futures with only `concurrent` global).
 * Shipping them makes the loader import them. Read in place: no list of
 * values is made per function. New list. */
PyObject *
cpk_find_submodules(cpk_state *st, PyObject *all_names, PyObject *fglobals,
                    PyObject *closure)
{
    PyObject *found = NULL, *k, *v;
    Py_ssize_t pos = 0;
    int r = 0;
    while (r == 0 && PyDict_Next(fglobals, &pos, &k, &v)) {
        if (!PyModule_Check(v))
            continue;
        /* Held: the attribute reads may run code. */
        Py_INCREF(v);
        r = package_submodules(st, v, all_names, &found);
        Py_DECREF(v);
    }
    for (Py_ssize_t i = 0;
         r == 0 && closure != NULL && i < PyTuple_GET_SIZE(closure); i++) {
        PyObject *c = PyCell_GET(PyTuple_GET_ITEM(closure, i));
        if (c == NULL || !PyModule_Check(c))
            continue;
        Py_INCREF(c);
        r = package_submodules(st, c, all_names, &found);
        Py_DECREF(c);
    }
    if (r < 0) {
        Py_XDECREF(found);
        return NULL;
    }
    if (found == NULL)
        return PyList_New(0);
    PyObject *list = PyDict_Values(found);
    Py_DECREF(found);
    return list;
}

/* Strong references to the fields of a function the reducer reads. The
 * reducer runs Python code (comparisons of __doc__, __name__, __module__,
 * which may be any object or a str subclass; attribute lookups on global
 * values), and that code may reassign those attributes, freeing what a
 * borrowed pointer would still point at. */
typedef struct {
    PyObject *code, *globals, *closure, *defaults, *kwdefaults, *doc;
    PyObject *name, *qualname, *module, *dict;
    PyObject *typeparams; /* 3.12: PEP 695 type parameters, else NULL */
} fn_fields;

static void
fields_get(fn_fields *x, PyFunctionObject *f)
{
    x->code = Py_NewRef(f->func_code);
    x->globals = Py_NewRef(f->func_globals);
    x->closure = Py_XNewRef(f->func_closure);
    x->defaults = Py_XNewRef(f->func_defaults);
    x->kwdefaults = Py_XNewRef(f->func_kwdefaults);
    x->doc = Py_NewRef(f->func_doc ? f->func_doc : Py_None);
    x->name = Py_NewRef(f->func_name);
    x->qualname = Py_NewRef(f->func_qualname);
    x->module = Py_NewRef(f->func_module ? f->func_module : Py_None);
    x->dict = Py_XNewRef(f->func_dict);
    x->typeparams = Py_XNewRef(cpk_py_func_typeparams(f));
}

static void
fields_release(fn_fields *x)
{
    Py_XDECREF(x->code);
    Py_XDECREF(x->globals);
    Py_XDECREF(x->closure);
    Py_XDECREF(x->defaults);
    Py_XDECREF(x->kwdefaults);
    Py_XDECREF(x->doc);
    Py_XDECREF(x->name);
    Py_XDECREF(x->qualname);
    Py_XDECREF(x->module);
    Py_XDECREF(x->dict);
    Py_XDECREF(x->typeparams);
}

/* The __doc__ PyFunction_New derives from the code (CPython 3.8-3.13: the
 * first constant when it is a str). Borrowed from the code object. */
static PyObject *
default_doc(PyCodeObject *co)
{
    PyObject *consts = co->co_consts;
    if (PyTuple_GET_SIZE(consts) >= 1 &&
        PyUnicode_Check(PyTuple_GET_ITEM(consts, 0)))
        return PyTuple_GET_ITEM(consts, 0);
    return Py_None;
}

/* 1 if a and b differ, 0 if equal, -1 on error (of __eq__). The caller
 * holds both. */
static int
differs(PyObject *a, PyObject *b)
{
    if (a == b)
        return 0;
    if (a == NULL || b == NULL)
        return 1;
    int eq = PyObject_RichCompareBool(a, b, Py_EQ);
    return eq < 0 ? -1 : !eq;
}

static int
set_if(PyObject *state, PyObject *key, PyObject *value, int cond)
{
    if (cond < 0)
        return -1;
    return cond ? PyDict_SetItem(state, key, value) : 0;
}

/* Values of the closure cells, the empty-cell sentinel for empty ones,
 * as a tuple. With `shared`
 * (native format), a cell that something besides this closure holds
 * (another closure: a nonlocal shared by several functions, or the frame
 * still running) travels as the cell itself in *shared, a tuple as long as
 * the closure (None elsewhere; *shared stays NULL when no cell is shared),
 * and as the empty-cell sentinel among the values: the pickle's memo then
 * gives every function of the dump the same cell. */
static PyObject *
closure_values(cpk_state *st, PyObject *closure, PyObject **shared)
{
    Py_ssize_t n = PyTuple_GET_SIZE(closure);
    PyObject *t = PyTuple_New(n);
    if (t == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *cell = PyTuple_GET_ITEM(closure, i);
        PyObject *v = PyCell_GET(cell);
        /* The closure tuple holds one reference: any other is a sharer. */
        if (shared != NULL && Py_REFCNT(cell) > 1) {
            if (*shared == NULL) {
                if ((*shared = PyTuple_New(n)) == NULL)
                    goto error;
                for (Py_ssize_t j = 0; j < n; j++)
                    PyTuple_SET_ITEM(*shared, j, Py_NewRef(Py_None));
            }
            Py_SETREF(((PyTupleObject *)*shared)->ob_item[i],
                      Py_NewRef(cell));
            v = NULL;
        }
        PyTuple_SET_ITEM(t, i, Py_NewRef(v != NULL ? v : st->empty_cell_value));
    }
    return t;
error:
    Py_DECREF(t);
    if (shared != NULL)
        Py_CLEAR(*shared);
    return NULL;
}

/* Native format: state holds only what differs from what
 * _function_new(code, globals, ncells) already gives (doc/FORMAT.md).
 * `portable`: the code may be compiled again by a Python before 3.11,
 * whose functions take their qualname from co_name (no co_qualname). */
static PyObject *
native_state(cpk_state *st, PyFunctionObject *f, const fn_fields *x,
             PyObject *base, PyObject *fglobals, PyObject *closure_vals,
             PyObject *shared_cells, PyObject *submodules, int portable)
{
    PyCodeObject *co = (PyCodeObject *)x->code;
    PyObject *annotations = NULL, *default_module = NULL;
    PyObject *state = PyDict_New();
    if (state == NULL)
        return NULL;
    if (f->func_annotations != NULL) {
        /* The getter turns CPython's compact tuple form into a dict. */
        annotations = PyObject_GetAttr((PyObject *)f, st->str___annotations__);
        if (annotations == NULL)
            goto error;
    }
    /* Portable: always carried, as the Python that compiles the code
     * again may derive another default (before 3.11: co_name). */
    PyObject *default_qualname = portable ? NULL : cpk_py_code_qualname(co);
    if (cpk_dict_get_ref(base, st->str___name__, &default_module) < 0)
        goto error;
    if (default_module == NULL)
        default_module = Py_NewRef(Py_None);

    if (set_if(state, st->str___globals__, fglobals,
               PyDict_GET_SIZE(fglobals) > 0) < 0 ||
        (closure_vals != NULL &&
         PyDict_SetItem(state, st->str___closure__, closure_vals) < 0) ||
        (shared_cells != NULL &&
         PyDict_SetItem(state, st->str___closure_cells__, shared_cells) <
             0) ||
        (x->defaults != NULL &&
         PyDict_SetItem(state, st->str___defaults__, x->defaults) < 0) ||
        (x->kwdefaults != NULL &&
         PyDict_SetItem(state, st->str___kwdefaults__, x->kwdefaults) < 0) ||
        (annotations != NULL &&
         set_if(state, st->str___annotations__, annotations,
                PyObject_IsTrue(annotations)) < 0) ||
        set_if(state, st->str___doc__, x->doc,
               differs(x->doc, default_doc(co))) < 0 ||
        set_if(state, st->str___name__, x->name,
               differs(x->name, co->co_name)) < 0 ||
        set_if(state, st->str___qualname__, x->qualname,
               differs(x->qualname, default_qualname)) < 0 ||
        set_if(state, st->str___module__, x->module,
               differs(x->module, default_module)) < 0 ||
        (x->dict != NULL &&
         set_if(state, st->str___dict__, x->dict,
                PyDict_GET_SIZE(x->dict) > 0) < 0) ||
        set_if(state, st->str___submodules__, submodules,
               PyList_GET_SIZE(submodules) > 0) < 0)
        goto error;
    if (x->typeparams != NULL &&
        set_if(state, st->str___type_params__, x->typeparams,
               PyTuple_Check(x->typeparams) &&
                   PyTuple_GET_SIZE(x->typeparams) > 0) < 0)
        goto error;
    Py_XDECREF(annotations);
    Py_DECREF(default_module);
    return state;
error:
    Py_XDECREF(annotations);
    Py_XDECREF(default_module);
    Py_DECREF(state);
    return NULL;
}

/* cloudpickle 3.x's layout: (func.__dict__, slotstate) with every slot. */
static PyObject *
cloudpickle_state(cpk_state *st, PyFunctionObject *f, const fn_fields *x,
                  PyObject *fglobals, PyObject *submodules)
{
    PyObject *slot = PyDict_New(), *dict = NULL, *name = NULL, *ann = NULL;
    PyObject *state = NULL, *qualname = NULL;
    if (slot == NULL)
        return NULL;
    /* Our copies of the names (cpk_name): deterministic bytes. */
    name = cpk_name(st, x->name);
    qualname = cpk_name(st, x->qualname);
    ann = PyObject_GetAttr((PyObject *)f, st->str___annotations__);
    dict = x->dict ? Py_NewRef(x->dict) : PyDict_New();
    if (name == NULL || qualname == NULL || ann == NULL || dict == NULL)
        goto done;
#define OR_NONE(x) ((x) ? (x) : Py_None)
    if (PyDict_SetItem(slot, st->str___name__, name) < 0 ||
        PyDict_SetItem(slot, st->str___qualname__, qualname) < 0 ||
        PyDict_SetItem(slot, st->str___annotations__, ann) < 0 ||
        PyDict_SetItem(slot, st->str___kwdefaults__,
                       OR_NONE(x->kwdefaults)) < 0 ||
        PyDict_SetItem(slot, st->str___defaults__, OR_NONE(x->defaults)) <
            0 ||
        PyDict_SetItem(slot, st->str___module__, x->module) < 0 ||
        PyDict_SetItem(slot, st->str___doc__, x->doc) < 0 ||
        PyDict_SetItem(slot, st->str___closure__, OR_NONE(x->closure)) < 0 ||
        PyDict_SetItem(slot, st->str__cloudpickle_submodules, submodules) <
            0 ||
        PyDict_SetItem(slot, st->str___globals__, fglobals) < 0)
        goto done;
#undef OR_NONE
    state = PyTuple_Pack(2, dict, slot);
done:
    Py_XDECREF(dict);
    Py_XDECREF(name);
    Py_XDECREF(qualname);
    Py_XDECREF(ann);
    Py_DECREF(slot);
    return state;
}

/* Can pickling `o` lead back to a function being pickled? Not for what
 * the pickler writes by itself or by name: scalars, modules, functions and
 * classes found by name, builtin types and functions, and tuples, lists
 * and dicts of those, visited up to a budget. Only for a Pickler without
 * hooks of the user's (cpk_pickler_user_hooks): those may write any of
 * these otherwise. The answer holds when asked: a __reduce__ running
 * later may register a module by value. 1, 0 (or unsure), -1 with an
 * error. */
static int
is_leaf(cpk_state *st, PyObject *o, int *budget)
{
    if (--*budget < 0)
        return 0;
    PyTypeObject *t = Py_TYPE(o);
    /* Not complex: copyreg's table writes it, and a user may replace
     * that entry. */
    if (o == Py_None || o == st->empty_cell_value || t == &PyBool_Type ||
        t == &PyLong_Type || t == &PyFloat_Type || t == &PyUnicode_Type ||
        t == &PyBytes_Type)
        return 1;
    if (t == &PyModule_Type)
        return cpk_module_by_reference(st, o);
    /* Written by name (save_global), never by a reducer that could
     * reach the function: what is found again by module and name. */
    if (t == &PyFunction_Type ||
        (t == &PyType_Type &&
         (((PyTypeObject *)o)->tp_flags & Py_TPFLAGS_HEAPTYPE)))
        return cpk_should_pickle_by_reference(st, o);
    if (t == &PyType_Type)
        return 1;
    if (t == &PyCFunction_Type) {
        /* By name, unless copyreg's table was given an entry for them. */
        PyObject *self = PyCFunction_GET_SELF(o);
        if (self != NULL && !PyModule_CheckExact(self))
            return 0;
        int reg = PyDict_Contains(st->copyreg_dispatch, (PyObject *)t);
        return reg < 0 ? -1 : !reg;
    }
    int r = 1;
    if (t == &PyTuple_Type || t == &PyList_Type) {
        /* The module test may run code (a str subclass's __hash__):
         * hold each item, and read the length again. */
        for (Py_ssize_t i = 0; r == 1 && i < Py_SIZE(o); i++) {
            PyObject *v = Py_NewRef(t == &PyTuple_Type
                                        ? PyTuple_GET_ITEM(o, i)
                                        : PyList_GET_ITEM(o, i));
            r = is_leaf(st, v, budget);
            Py_DECREF(v);
        }
        return r;
    }
    if (t == &PyDict_Type) {
        Py_ssize_t pos = 0;
        PyObject *k, *v;
        while (r == 1 && PyDict_Next(o, &pos, &k, &v)) {
            Py_INCREF(k);
            Py_INCREF(v);
            r = is_leaf(st, k, budget);
            if (r == 1)
                r = is_leaf(st, v, budget);
            Py_DECREF(k);
            Py_DECREF(v);
        }
        return r;
    }
    return 0;
}

/* is_leaf of a function's state; `known` (its globals subset, or NULL)
 * was found a leaf already. */
static int
state_is_leaf(cpk_state *st, PyObject *state, PyObject *known)
{
    int budget = 64, r = 1;
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    /* Keys are our own interned names: no code runs comparing them. */
    while (r == 1 && PyDict_Next(state, &pos, &k, &v)) {
        if (v == known)
            continue;
        Py_INCREF(v);
        r = is_leaf(st, v, &budget);
        Py_DECREF(v);
    }
    return r;
}

/* _function_make's modules (doc/FORMAT.md): the split of a globals
 * subset that is a leaf (is_leaf, which found each module among its
 * values by reference, just before), as (subset, the subset without
 * those modules, (name, module name, ...) or None when it holds none,
 * names, globals): the last two are what the subset was read from, the
 * code's global names and the function's __globals__ (same_as_last). The
 * loader imports the modules as subimport does: the pickle spares
 * subimport's name and a call per module. New reference. */
static PyObject *
split_modules(cpk_state *st, PyObject *fglobals, PyObject *names,
              PyObject *globals)
{
    PyObject *k, *v, *pairs = NULL, *rest = NULL, *split = NULL;
    Py_ssize_t pos = 0, nmod = 0, i = 0;
    while (PyDict_Next(fglobals, &pos, &k, &v))
        nmod += Py_IS_TYPE(v, &PyModule_Type);
    if (nmod == 0)
        return PyTuple_Pack(5, fglobals, fglobals, Py_None, names, globals);
    if ((pairs = PyTuple_New(2 * nmod)) == NULL ||
        (rest = PyDict_New()) == NULL)
        goto done;
    /* The subset is ours alone (used_globals): nothing changes it while
     * the names are read. */
    pos = 0;
    while (PyDict_Next(fglobals, &pos, &k, &v)) {
        if (!Py_IS_TYPE(v, &PyModule_Type)) {
            if (PyDict_SetItem(rest, k, v) < 0)
                goto done;
            continue;
        }
        /* Our copy of its name, as the module's reducer writes it. */
        PyObject *modname = cpk_module_name(st, v);
        PyObject *name = modname ? cpk_name(st, modname) : NULL;
        Py_XDECREF(modname);
        if (name == NULL || i + 2 > 2 * nmod) {
            Py_XDECREF(name);
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_RuntimeError,
                                "function globals changed while pickled");
            goto done;
        }
        PyTuple_SET_ITEM(pairs, i++, Py_NewRef(k));
        PyTuple_SET_ITEM(pairs, i++, name);
    }
    if (i == 2 * nmod)
        split = PyTuple_Pack(5, fglobals, rest, pairs, names, globals);
    else
        PyErr_SetString(PyExc_RuntimeError,
                        "function globals changed while pickled");
done:
    Py_XDECREF(pairs);
    Py_XDECREF(rest);
    return split;
}

/* 1 if the last leaf subset (ext->last_split) was read from these very
 * `globals` and `names` (a closure of the same def) and every name still
 * maps to the same value there: used_globals would make an equal dict.
 * Then *held gets that split (new reference): the lookups may run code
 * (a colliding key's __eq__) that clears or replaces ext->last_split, so
 * the caller must not read the field again. 0 if not, -1 with an
 * error. */
static int
same_as_last(cpk_pickler_ext *ext, PyObject *globals, PyObject *names,
             PyObject **held)
{
    *held = NULL;
    PyObject *split = ext->last_split;
    if (split == NULL || PyTuple_GET_ITEM(split, 3) != names ||
        PyTuple_GET_ITEM(split, 4) != globals)
        return 0;
    /* Held: a lookup in `globals` may run a colliding key's __eq__. */
    Py_INCREF(split);
    PyObject *subset = PyTuple_GET_ITEM(split, 0);
    Py_ssize_t found = 0;
    int same = 1;
    for (Py_ssize_t i = 0; same == 1 && i < PyTuple_GET_SIZE(names); i++) {
        PyObject *k = PyTuple_GET_ITEM(names, i), *v;
        int r = cpk_dict_get_ref(globals, k, &v);
        if (r <= 0) {
            same = r;
            if (r == 0)
                same = PyDict_GetItemWithError(subset, k) == NULL
                           ? (PyErr_Occurred() ? -1 : 1)
                           : 0;
            continue;
        }
        found++;
        /* The subset's keys are exact str: no code runs here. */
        PyObject *w = PyDict_GetItemWithError(subset, k);
        same = w == v ? 1 : (w == NULL && PyErr_Occurred() ? -1 : 0);
        Py_DECREF(v);
    }
    if (same == 1 && found != PyDict_GET_SIZE(subset))
        same = 0;
    if (same == 1)
        *held = split;
    else
        Py_DECREF(split);
    return same;
}

/* Closures of one def see the same globals: the previous function's
 * subset when this one holds the very same values, so the memo writes it
 * once and the load makes one dict (a dump of 5,000 closures kept 5,000
 * equal dicts alive until its end). Only a subset of leaves is kept for
 * that: one that may lead to other functions could still be half written
 * when the next function comes (its values being pickled), and would load
 * empty into that one. A leaf subset's split (split_modules) is made
 * here, while is_leaf's answer holds, and shared with it: `*split` gets
 * it (new reference), NULL when not a leaf. *fglobals gets the subset of
 * `globals` that the code's `names` read (new reference). 0 or -1. */
static int
share_fglobals(cpk_state *st, cpk_pickler_ext *ext, int hooks,
               PyObject *globals, PyObject *names, PyObject **fglobals,
               int *leaf_out, PyObject **split)
{
    PyObject *last, *k, *v;
    Py_ssize_t pos = 0;
    int budget = 64, leaf;
    *leaf_out = 0;
    *split = NULL;
    *fglobals = NULL;
    /* The same def again: its subset is reused without being made. */
    PyObject *held = NULL;
    int same = hooks ? 0 : same_as_last(ext, globals, names, &held);
    if (same < 0)
        return -1;
    if (same) {
        /* Checked each time (a module among the values may have been
         * registered by value since). */
        leaf = is_leaf(st, PyTuple_GET_ITEM(held, 0), &budget);
        if (leaf > 0) {
            /* The test may have run code that dropped the last split. */
            if (ext->last_split != held) {
                Py_XSETREF(ext->last_fglobals,
                           Py_NewRef(PyTuple_GET_ITEM(held, 0)));
                Py_XSETREF(ext->last_split, Py_NewRef(held));
            }
            *fglobals = Py_NewRef(PyTuple_GET_ITEM(held, 0));
            *split = held;
            *leaf_out = 1;
            return 0;
        }
        Py_DECREF(held);
        if (leaf < 0)
            return -1;
        budget = 64;
    }
    if ((*fglobals = used_globals(st, globals, names)) == NULL)
        return -1;
    /* Checked each time, the shared one too (it holds the same values):
     * a module among them may have been registered by value since. */
    leaf = hooks ? 0 : is_leaf(st, *fglobals, &budget);
    *leaf_out = leaf > 0;
    if (leaf <= 0) {
        Py_CLEAR(ext->last_fglobals);
        Py_CLEAR(ext->last_split);
        return leaf;
    }
    /* Read only now: the test above may run code (a module's lookups). */
    last = ext->last_fglobals;
    if (last != NULL && ext->last_split != NULL &&
        PyDict_GET_SIZE(last) == PyDict_GET_SIZE(*fglobals)) {
        /* Keys are the code's names (exact str): no code runs here. */
        int eq = 1;
        while (eq && PyDict_Next(*fglobals, &pos, &k, &v)) {
            PyObject *w = PyDict_GetItemWithError(last, k);
            if (w == NULL && PyErr_Occurred())
                return -1;
            eq = w == v;
        }
        if (eq) {
            Py_SETREF(*fglobals, Py_NewRef(last));
            *split = Py_NewRef(ext->last_split);
            return 0;
        }
    }
    if ((*split = split_modules(st, *fglobals, names, globals)) == NULL)
        return -1;
    Py_XSETREF(ext->last_fglobals, Py_NewRef(*fglobals));
    Py_XSETREF(ext->last_split, Py_NewRef(*split));
    return 0;
}

/* A tuple of n fresh empty cells (cloudpickle's closure placeholder). */
static PyObject *
empty_cells(Py_ssize_t n)
{
    PyObject *t = PyTuple_New(n);
    if (t == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *c = PyCell_New(NULL);
        if (c == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, c);
    }
    return t;
}

/* What _function_make gets for the code: _code_unmarshal's arguments, the
 * tuple kept on the code (code.c), so that the pickle needs neither that
 * name nor its call, and closures of one def share it through the memo;
 * the code itself where it is written otherwise (constants marshal cannot
 * write, portable=True), and where its marshal data is larger than the
 * loader's code cache keeps: each _function_make would read the tuple
 * again, a new code object per closure, where one REDUCE gives them one.
 * Only without user hooks, which may write code their own way. New
 * reference. */
static PyObject *
inline_code(cpk_state *st, cpk_pickler_ext *ext, PyObject *code)
{
    /* Format 2's _function_make takes a code object only. */
    if (ext->portable || ext->fmt < 3)
        return Py_NewRef(code);
    PyObject *r = cpk_reduce_code(st, code, CPK_FORMAT_NATIVE);
    if (r == NULL)
        return NULL;
    PyObject *args = PyTuple_GET_ITEM(r, 1);
    PyObject *out = PyTuple_GET_ITEM(r, 0) == st->code_unmarshal &&
                            PyBytes_GET_SIZE(PyTuple_GET_ITEM(args, 2)) <=
                                CPK_CODE_CACHE_ENTRY
                        ? args
                        : code;
    Py_INCREF(out);
    Py_DECREF(r);
    return out;
}

PyObject *
cpk_reduce_function(cpk_state *st, PyObject *pickler, PyObject *func)
{
    int by_ref = cpk_should_pickle_by_reference(st, func);
    if (by_ref < 0)
        return NULL;
    if (by_ref)
        Py_RETURN_NOTIMPLEMENTED;
    /* functools.singledispatch's wrapper: its registry is rebuilt. */
    PyObject *sd = cpk_reduce_singledispatch(st, pickler, func);
    if (sd != Py_NotImplemented)
        return sd;
    Py_DECREF(sd);

    cpk_pickler_ext *ext = CPK_PICKLER_EXT(pickler);
    PyFunctionObject *f = (PyFunctionObject *)func;
    PyObject *info = NULL, *fglobals = NULL, *base = NULL;
    PyObject *closure_vals = NULL, *shared_cells = NULL, *submodules = NULL;
    PyObject *state = NULL, *args = NULL, *result = NULL, *split = NULL;
    PyObject *ncells = NULL;
    fn_fields x;
    fields_get(&x, f);

    base = cpk_function_base_globals(st, ext, x.globals);
    if (base == NULL)
        goto done;
    /* The globals scan refuses corrupt code itself (codeinfo.c). */
    info = cpk_codeinfo_get(st, x.code);
    if (info == NULL)
        goto done;
    int hooks = cpk_pickler_user_hooks(pickler), fglobals_leaf = 0;
    if (hooks < 0)
        goto done;
    if (ext->format == CPK_FORMAT_NATIVE
            ? share_fglobals(st, ext, hooks, x.globals,
                             PyTuple_GET_ITEM(info, 0), &fglobals,
                             &fglobals_leaf, &split) < 0
            : (fglobals = used_globals(st, x.globals,
                                       PyTuple_GET_ITEM(info, 0))) == NULL)
        goto done;

    if (x.closure != NULL) {
        /* Format 1's loaders (0.1.0) know no "__closure_cells__": they
         * would set it as an attribute and leave the cell empty. They
         * get the values, as 0.1.0 wrote them (the cells not shared). */
        closure_vals = closure_values(
            st, x.closure,
            ext->format == CPK_FORMAT_NATIVE && ext->fmt >= 2 ? &shared_cells
                                                              : NULL);
        if (closure_vals == NULL)
            goto done;
    }
    /* Submodules are looked for among the globals and closure values. */
    submodules = cpk_find_submodules(st, PyTuple_GET_ITEM(info, 1), fglobals,
                                     x.closure);
    if (submodules == NULL)
        goto done;

    if (ext->format != CPK_FORMAT_NATIVE) {
        PyObject *cells = x.closure
                              ? empty_cells(PyTuple_GET_SIZE(x.closure))
                              : Py_NewRef(Py_None);
        if (cells == NULL)
            goto done;
        args = PyTuple_Pack(5, x.code, base, Py_None, Py_None, cells);
        Py_DECREF(cells);
        state = cloudpickle_state(st, f, &x, fglobals, submodules);
        if (args == NULL || state == NULL)
            goto done;
        /* cloudpickle 2.0 has no _make_function: it calls
         * types.FunctionType (reached as _builtin_type), same arguments. */
        PyObject *make =
            ext->format == CPK_FORMAT_CLOUDPICKLE20
                ? (PyObject *)&PyFunction_Type
                : cpk_callable(st, ext->format, st->cp_make_function,
                               "cloudpickle.cloudpickle", "_make_function");
        PyObject *setstate = cpk_callable(st, ext->format,
                                          st->cp_function_setstate,
                                          "cloudpickle.cloudpickle_fast",
                                          "_function_setstate");
        if (make != NULL && setstate != NULL)
            result = cpk_reduce6(make, args, state, setstate);
        goto done;
    }

    ncells = x.closure ? PyLong_FromSsize_t(PyTuple_GET_SIZE(x.closure))
                       : Py_NewRef(Py_None);
    if (ncells == NULL)
        goto done;
    /* A leaf subset's modules go by name (split_modules): the state gets
     * the rest, and the whole subset only if the split form is written. */
    PyObject *plain = fglobals, *pairs = NULL;
    /* Formats before 4 take no modules argument: modules go by
     * subimport. */
    if (split != NULL && PyTuple_GET_ITEM(split, 2) != Py_None &&
        ext->fmt >= 4) {
        plain = PyTuple_GET_ITEM(split, 1);
        pairs = PyTuple_GET_ITEM(split, 2);
    }
    state = native_state(st, f, &x, base, plain, closure_vals, shared_cells,
                         submodules, ext->portable);
    if (state == NULL)
        goto done;
    if (PyDict_GET_SIZE(state) == 0 && pairs == NULL) {
        args = PyTuple_Pack(3, x.code, base, ncells);
        if (args != NULL)
            result = PyTuple_Pack(2, st->function_new, args);
        goto done;
    }
    /* A state that cannot lead back to the function: one call,
     * _function_make, with the state among its arguments (a task's
     * closure over numbers and modules). Otherwise the function is
     * memoized by _function_new before its state is pickled, for
     * recursion through globals, closures, defaults or attributes. */
    /* Format 1 has no _function_make: the split form. */
    int leaf = hooks || ext->fmt < 2 ? 0 : state_is_leaf(st, state, fglobals_leaf ? plain
                                                                  : NULL);
    if (leaf < 0)
        goto done;
    if (leaf) {
        PyObject *make_args = NULL, *code = inline_code(st, ext, x.code);
        if (code != NULL)
            make_args =
                pairs == NULL
                    ? PyTuple_Pack(4, code, base, ncells, state)
                    : PyTuple_Pack(5, code, base, ncells, state, pairs);
        if (make_args != NULL)
            result = PyTuple_Pack(2, st->function_make, make_args);
        Py_XDECREF(code);
        Py_XDECREF(make_args);
    } else if ((pairs == NULL ||
                PyDict_SetItem(state, st->str___globals__, fglobals) == 0) &&
               (args = PyTuple_Pack(3, x.code, base, ncells)) != NULL) {
        result = cpk_reduce6(st->function_new, args, state, st->function_fill);
    }
done:
    fields_release(&x);
    Py_XDECREF(base);
    Py_XDECREF(info);
    Py_XDECREF(fglobals);
    Py_XDECREF(closure_vals);
    Py_XDECREF(shared_cells);
    Py_XDECREF(submodules);
    Py_XDECREF(state);
    Py_XDECREF(args);
    Py_XDECREF(ncells);
    Py_XDECREF(split);
    return result;
}
