/* primitives.c - objects whose state belongs to one process, rebuilt new
 * where a pickle is loaded: threading's locks, events, conditions and
 * semaphores, contextvars.ContextVar, struct.Struct, and weakref's
 * WeakValueDictionary and WeakKeyDictionary. Both sides live here: the
 * reducers (dispatched by exact type from reducers.c; the classes are
 * lazytypes.c's) and the reconstructors our pickles name (doc/FORMAT.md).
 * Stock formats (compat=) name the standard library's own callables
 * instead, which plain pickle loads.
 */
#include "types/primitives.h"
#include "core/state.h"
#include "common/pycompat.h"
#include "core/args.h"
#include "core/lazytypes.h"

#include <stddef.h>

/* (callable, args) with `callable` a stdlib name (format != native) or
 * our reconstructor `native`; args a tuple, stolen. New reference. */
static PyObject *
reduce_to(int format, PyObject *native, const char *module, const char *name,
          PyObject *args)
{
    if (args == NULL)
        return NULL;
    PyObject *f = format == CPK_FORMAT_NATIVE ? Py_NewRef(native)
                                              : cpk_import_attr(module, name);
    PyObject *r = f ? PyTuple_Pack(2, f, args) : NULL;
    Py_XDECREF(f);
    Py_DECREF(args);
    return r;
}

/* Locks ---------------------------------------------------------------- */

/* A new lock of the same kind, unlocked: who holds a lock is a fact about
 * threads of this process, meaningless elsewhere. */
static PyObject *
reduce_lock(cpk_state *st, int format, int kind)
{
    static const struct {
        const char *tag, *module, *name;
    } kinds[] = {
        {"lock", "_thread", "allocate_lock"},
        {"rlock", "_thread", "RLock"},
        {"_rlock", "threading", "_RLock"},
    };
    size_t i = kind == CPK_KIND_LOCK ? 0 : kind == CPK_KIND_RLOCK ? 1 : 2;
    PyObject *args = format == CPK_FORMAT_NATIVE
                         ? Py_BuildValue("(s)", kinds[i].tag)
                         : PyTuple_New(0);
    return reduce_to(format, st->make_lock, kinds[i].module, kinds[i].name,
                     args);
}

/* 1 if `obj` is of a lock type _make_lock rebuilds, else 0. */
static int
is_lock(cpk_state *st, PyObject *obj)
{
    PyObject *t = (PyObject *)Py_TYPE(obj);
    return t == st->lazy_types[CPK_LAZY_LOCK] ||
           t == st->lazy_types[CPK_LAZY_RLOCK] ||
           t == st->lazy_types[CPK_LAZY_PYRLOCK];
}

/* A condition over its lock, which the pickle rebuilds as any other lock
 * (a lock the functions also use directly stays that condition's lock). */
static PyObject *
reduce_condition(cpk_state *st, int format, PyObject *obj)
{
    PyObject *lock = PyObject_GetAttrString(obj, "_lock");
    if (lock == NULL)
        return NULL;
    if (!is_lock(st, lock)) {
        PyErr_Format(st->PicklingError,
                     "Can't pickle a threading.Condition over a %s: only "
                     "conditions over a threading.Lock or RLock are rebuilt",
                     Py_TYPE(lock)->tp_name);
        Py_DECREF(lock);
        return NULL;
    }
    PyObject *args = PyTuple_Pack(1, lock);
    Py_DECREF(lock);
    return reduce_to(format, st->make_condition, "threading", "Condition",
                     args);
}

/* A Semaphore with the count it has now (it records no initial value); a
 * BoundedSemaphore with its bound, all of it available. */
static PyObject *
reduce_semaphore(cpk_state *st, int format, int bounded, PyObject *obj)
{
    const char *attr = bounded ? "_initial_value" : "_value";
    PyObject *value = PyObject_GetAttrString(obj, attr);
    if (value == NULL)
        return NULL;
    if (!PyLong_CheckExact(value) || _PyLong_Sign(value) < 0) {
        PyErr_Format(st->PicklingError,
                     "Can't pickle %s: its %s is %R, not an int >= 0",
                     Py_TYPE(obj)->tp_name, attr, value);
        Py_DECREF(value);
        return NULL;
    }
    PyObject *args =
        format == CPK_FORMAT_NATIVE
            ? PyTuple_Pack(2, value, bounded ? Py_True : Py_False)
            : PyTuple_Pack(1, value);
    Py_DECREF(value);
    return reduce_to(format, st->make_semaphore, "threading",
                     bounded ? "BoundedSemaphore" : "Semaphore", args);
}

/* ContextVar ------------------------------------------------------------- */

/* The default of `var` (new reference in *dflt, NULL if it has none):
 * its value in a new, empty context, so the value set in this one is not
 * taken for it. 0, or -1 with an exception. */
static int
contextvar_default(PyObject *var, PyObject **dflt)
{
    *dflt = NULL;
    PyObject *ctx = PyContext_New();
    if (ctx == NULL)
        return -1;
    if (PyContext_Enter(ctx) < 0) {
        Py_DECREF(ctx);
        return -1;
    }
    int r = PyContextVar_Get(var, NULL, dflt);
    if (PyContext_Exit(ctx) < 0) {
        Py_CLEAR(*dflt);
        r = -1;
    }
    Py_DECREF(ctx);
    return r;
}

/* Name and default; the value set in the dumping context stays there. The
 * memo makes one variable one object in the loaded graph. */
static PyObject *
reduce_contextvar(cpk_state *st, int format, PyObject *obj)
{
    /* 3.9's ContextVar type names no module (its __module__ is
     * "builtins"; 3.10's is "_contextvars"): plain pickle cannot name it
     * for a stock loader, so those formats refuse it. */
    if (!cpk_py_contextvar_named() && format != CPK_FORMAT_NATIVE)
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *name = PyObject_GetAttrString(obj, "name");
    if (name == NULL)
        return NULL;
    PyObject *dflt, *r = NULL;
    if (contextvar_default(obj, &dflt) < 0) {
        Py_DECREF(name);
        return NULL;
    }
    if (format == CPK_FORMAT_NATIVE)
        r = Py_BuildValue(dflt ? "(O(OO))" : "(O(O))", st->make_contextvar,
                          name, dflt);
    else if (dflt == NULL)
        r = Py_BuildValue("(O(O))", (PyObject *)Py_TYPE(obj), name);
    else {
        /* default is keyword-only: partial(ContextVar, name, default=d)() */
        PyObject *partial = cpk_import_attr("functools", "partial");
        PyObject *args = partial ? PyTuple_Pack(2, Py_TYPE(obj), name) : NULL;
        PyObject *kw = args ? Py_BuildValue("{sO}", "default", dflt) : NULL;
        PyObject *p = kw ? PyObject_Call(partial, args, kw) : NULL;
        if (p != NULL)
            r = Py_BuildValue("(O())", p);
        Py_XDECREF(partial);
        Py_XDECREF(args);
        Py_XDECREF(kw);
        Py_XDECREF(p);
    }
    Py_DECREF(name);
    Py_XDECREF(dflt);
    return r;
}

/* struct.Struct, weak dicts ---------------------------------------------- */

static PyObject *
reduce_struct(cpk_state *st, int format, PyObject *obj)
{
    PyObject *fmt = PyObject_GetAttrString(obj, "format");
    if (fmt == NULL)
        return NULL;
    PyObject *f = format == CPK_FORMAT_NATIVE ? st->make_struct
                                              : (PyObject *)Py_TYPE(obj);
    PyObject *r = Py_BuildValue("(O(O))", f, fmt);
    Py_DECREF(fmt);
    return r;
}

/* An empty weak dict, then its entries as dict items (set after the dict
 * is in the memo, so an entry may refer back to it). The entries travel;
 * after loading one stays while something else holds its referent. */
static PyObject *
reduce_weakdict(cpk_state *st, int format, int weak_keys, PyObject *obj)
{
    PyObject *view = PyObject_CallMethod(obj, "items", NULL);
    if (view == NULL)
        return NULL;
    PyObject *items = PySequence_List(view);
    Py_DECREF(view);
    if (items == NULL)
        return NULL;
    PyObject *it = PyObject_GetIter(items);
    Py_DECREF(items);
    if (it == NULL)
        return NULL;
    PyObject *r;
    if (format == CPK_FORMAT_NATIVE)
        r = Py_BuildValue("(O(O)OOO)", st->make_weakdict,
                          weak_keys ? Py_True : Py_False, Py_None, Py_None,
                          it);
    else
        r = Py_BuildValue("(O()OOO)", (PyObject *)Py_TYPE(obj), Py_None,
                          Py_None, it);
    Py_DECREF(it);
    return r;
}

PyObject *
cpk_reduce_primitive(cpk_state *st, int format, int kind, PyObject *obj)
{
    switch (kind) {
    case CPK_KIND_LOCK:
    case CPK_KIND_RLOCK:
    case CPK_KIND_PYRLOCK:
        return reduce_lock(st, format, kind);
    case CPK_KIND_EVENT:
        /* A new, clear event: whether it was set is this process's news. */
        return reduce_to(format, st->make_event, "threading", "Event",
                         PyTuple_New(0));
    case CPK_KIND_CONDITION:
        return reduce_condition(st, format, obj);
    case CPK_KIND_SEMAPHORE:
    case CPK_KIND_BOUNDED_SEMAPHORE:
        return reduce_semaphore(st, format,
                                kind == CPK_KIND_BOUNDED_SEMAPHORE, obj);
    case CPK_KIND_CONTEXTVAR:
        return reduce_contextvar(st, format, obj);
    case CPK_KIND_STRUCT:
        return reduce_struct(st, format, obj);
    case CPK_KIND_WEAKVALUEDICT:
    case CPK_KIND_WEAKKEYDICT:
        return reduce_weakdict(st, format, kind == CPK_KIND_WEAKKEYDICT, obj);
    default:
        Py_RETURN_NOTIMPLEMENTED;
    }
}

/* Reconstructors --------------------------------------------------------- */

/* stdlib `module`.`name`() or (arg). New reference. */
static PyObject *
call_stdlib(const char *module, const char *name, PyObject *arg)
{
    PyObject *f = cpk_import_attr(module, name);
    if (f == NULL)
        return NULL;
    PyObject *r = arg ? PyObject_CallOneArg(f, arg) : PyObject_CallNoArgs(f);
    Py_DECREF(f);
    return r;
}

SIG(_make_lock, -1, {"kind", CPK_ARG_STR});

/* _make_lock(kind): a new unlocked _thread.lock ("lock"), _thread.RLock
 * ("rlock") or threading._RLock ("_rlock"). */
static PyObject *
make_lock(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &_make_lock_sig, args, nargs))
        return NULL;
    /* Compared as text: no encoding, so no error for a lone surrogate. */
    PyObject *kind = args[0];
    if (PyUnicode_CompareWithASCIIString(kind, "lock") == 0)
        return call_stdlib("_thread", "allocate_lock", NULL);
    if (PyUnicode_CompareWithASCIIString(kind, "rlock") == 0)
        return call_stdlib("_thread", "RLock", NULL);
    if (PyUnicode_CompareWithASCIIString(kind, "_rlock") == 0)
        return call_stdlib("threading", "_RLock", NULL);
    cpk_arg_error(st, 1, "_make_lock",
                  "argument 1 (kind) must be 'lock', 'rlock' or '_rlock', "
                  "not %R",
                  args[0]);
    return NULL;
}

SIG(_make_event, -1, {NULL, 0});

/* _make_event(): a new threading.Event, clear. */
static PyObject *
make_event(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    if (!cpk_check_args(cpk_get_state(m), &_make_event_sig, args, nargs))
        return NULL;
    return call_stdlib("threading", "Event", NULL);
}

SIG(_make_condition, -1, {"lock", CPK_ARG_ANY});

/* _make_condition(lock): threading.Condition(lock) for a lock _make_lock
 * makes (anything else would have its methods called as the lock's). */
static PyObject *
make_condition(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &_make_condition_sig, args, nargs) ||
        cpk_refresh_lazy_types(st) < 0)
        return NULL;
    if (!is_lock(st, args[0])) {
        cpk_arg_error(st, 0, "_make_condition",
                      "argument 1 (lock) must be _thread.lock, "
                      "_thread.RLock or threading._RLock, not %s",
                      Py_TYPE(args[0])->tp_name);
        return NULL;
    }
    return call_stdlib("threading", "Condition", args[0]);
}

SIG(_make_semaphore, -1, {"value", CPK_ARG_INT}, {"bounded", CPK_ARG_BOOL});

/* _make_semaphore(value, bounded): threading.Semaphore(value), or
 * BoundedSemaphore(value) if bounded. */
static PyObject *
make_semaphore(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &_make_semaphore_sig, args, nargs))
        return NULL;
    if (_PyLong_Sign(args[0]) < 0) {
        cpk_arg_error(st, 1, "_make_semaphore",
                      "argument 1 (value) must be >= 0, not %R", args[0]);
        return NULL;
    }
    return call_stdlib("threading",
                       args[1] == Py_True ? "BoundedSemaphore" : "Semaphore",
                       args[0]);
}

SIG(_make_contextvar, 1, {"name", CPK_ARG_STR}, {"default", CPK_ARG_ANY});

/* _make_contextvar(name[, default]): a new contextvars.ContextVar, with
 * no default when none is given. */
static PyObject *
make_contextvar(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_state *st = cpk_get_state(m);
    if (!cpk_check_args(st, &_make_contextvar_sig, args, nargs))
        return NULL;
    PyObject *pos = PyTuple_Pack(1, args[0]);
    if (pos == NULL)
        return NULL;
    PyObject *kw = nargs > 1 ? Py_BuildValue("{sO}", "default", args[1])
                             : NULL;
    PyObject *r = NULL;
    if (nargs == 1 || kw != NULL)
        r = PyObject_Call((PyObject *)&PyContextVar_Type, pos, kw);
    Py_DECREF(pos);
    Py_XDECREF(kw);
    return r;
}

SIG(_make_struct, -1, {"format", CPK_ARG_STR});

/* _make_struct(format): struct.Struct(format). */
static PyObject *
make_struct(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    if (!cpk_check_args(cpk_get_state(m), &_make_struct_sig, args, nargs))
        return NULL;
    return call_stdlib("_struct", "Struct", args[0]);
}

SIG(_make_weakdict, -1, {"weak_keys", CPK_ARG_BOOL});

/* _make_weakdict(weak_keys): an empty weakref.WeakKeyDictionary (True) or
 * WeakValueDictionary (False); the pickle then sets its items. */
static PyObject *
make_weakdict(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    if (!cpk_check_args(cpk_get_state(m), &_make_weakdict_sig, args, nargs))
        return NULL;
    return call_stdlib("weakref",
                       args[0] == Py_True ? "WeakKeyDictionary"
                                          : "WeakValueDictionary",
                       NULL);
}

static PyMethodDef primitive_methods[] = {
    FAST("_make_lock", make_lock,
         "_make_lock(kind)\n--\n\nA new unlocked lock: 'lock', 'rlock' or "
         "'_rlock'."),
    FAST("_make_event", make_event, "_make_event()\n--\n\nA new clear Event."),
    FAST("_make_condition", make_condition,
         "_make_condition(lock)\n--\n\nA new Condition over lock."),
    FAST("_make_semaphore", make_semaphore,
         "_make_semaphore(value, bounded)\n--\n\nA new (Bounded)Semaphore."),
    FAST("_make_contextvar", make_contextvar,
         "_make_contextvar(name[, default])\n--\n\nA new ContextVar."),
    FAST("_make_struct", make_struct,
         "_make_struct(format)\n--\n\nstruct.Struct(format)."),
    FAST("_make_weakdict", make_weakdict,
         "_make_weakdict(weak_keys)\n--\n\nAn empty WeakKeyDictionary or "
         "WeakValueDictionary."),
    {NULL, NULL, 0, NULL},
};

int
cpk_primitives_init(PyObject *module, cpk_state *st)
{
    if (PyModule_AddFunctions(module, primitive_methods) < 0)
        return -1;
    static const struct {
        const char *name;
        size_t offset;
    } fields[] = {
        {"_make_lock", offsetof(cpk_state, make_lock)},
        {"_make_event", offsetof(cpk_state, make_event)},
        {"_make_condition", offsetof(cpk_state, make_condition)},
        {"_make_semaphore", offsetof(cpk_state, make_semaphore)},
        {"_make_contextvar", offsetof(cpk_state, make_contextvar)},
        {"_make_struct", offsetof(cpk_state, make_struct)},
        {"_make_weakdict", offsetof(cpk_state, make_weakdict)},
    };
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        PyObject **slot = (PyObject **)((char *)st + fields[i].offset);
        if ((*slot = PyObject_GetAttrString(module, fields[i].name)) == NULL)
            return -1;
    }
    return 0;
}
