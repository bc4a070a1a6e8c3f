/* lazytypes.c - classes that live in Python modules (logging.Logger,
 * typing.TypeVar, enum.Enum, ...): an object of such a class cannot exist
 * before its module is imported, so each is resolved from sys.modules once
 * the module is there, and again when the module is replaced (popped from
 * sys.modules and imported anew). The exact-type table they join is the
 * module state's (state.c); pickler.c's reducer_override reads it.
 */
#include "core/lazytypes.h"
#include "core/state.h"
#include "common/pycompat.h"
#include "common/pyerr.h" /* cpk_error_clearable */
#include "core/stock.h"

#include <stdint.h>

static const struct {
    const char *module, *name;
    int kind;
} lazy_specs[CPK_LAZY_COUNT] = {
    [CPK_LAZY_LOGGER] = {"logging", "Logger", CPK_KIND_LOGGER},
    [CPK_LAZY_ROOT_LOGGER] = {"logging", "RootLogger", CPK_KIND_ROOT_LOGGER},
    [CPK_LAZY_WEAKSET] = {"_weakrefset", "WeakSet", CPK_KIND_WEAKSET},
    [CPK_LAZY_TYPEVAR] = {"typing", "TypeVar", CPK_KIND_TYPEVAR},
    [CPK_LAZY_PARAMSPEC] = {"typing", "ParamSpec", CPK_KIND_PARAMSPEC},
    [CPK_LAZY_TYPEVARTUPLE] = {"typing", "TypeVarTuple", CPK_KIND_TYPEVARTUPLE},
    /* On 3.9 a function, not a class: not adopted (functions go by value
     * as any function). */
    [CPK_LAZY_NEWTYPE] = {"typing", "NewType", CPK_KIND_NEWTYPE},
    [CPK_LAZY_FIELD_BASE] = {"dataclasses", "_FIELD_BASE",
                             CPK_KIND_FIELD_SENTINEL},
    [CPK_LAZY_DC_MISSING] = {"dataclasses", "_MISSING_TYPE",
                             CPK_KIND_SINGLETON},
    [CPK_LAZY_DC_KW_ONLY] = {"dataclasses", "_KW_ONLY_TYPE",
                             CPK_KIND_SINGLETON},
    [CPK_LAZY_ENUM] = {"enum", "Enum", CPK_KIND_NONE},
    [CPK_LAZY_LRU_CACHE] = {"functools", "_lru_cache_wrapper",
                            CPK_KIND_LRU_CACHE},
    [CPK_LAZY_SDMETHOD] = {"functools", "singledispatchmethod",
                           CPK_KIND_SDMETHOD},
    [CPK_LAZY_LOCK] = {"_thread", "LockType", CPK_KIND_LOCK},
    [CPK_LAZY_RLOCK] = {"_thread", "RLock", CPK_KIND_RLOCK},
    [CPK_LAZY_PYRLOCK] = {"threading", "_RLock", CPK_KIND_PYRLOCK},
    [CPK_LAZY_EVENT] = {"threading", "Event", CPK_KIND_EVENT},
    [CPK_LAZY_CONDITION] = {"threading", "Condition", CPK_KIND_CONDITION},
    [CPK_LAZY_SEMAPHORE] = {"threading", "Semaphore", CPK_KIND_SEMAPHORE},
    [CPK_LAZY_BOUNDED_SEMAPHORE] = {"threading", "BoundedSemaphore",
                                    CPK_KIND_BOUNDED_SEMAPHORE},
    [CPK_LAZY_STRUCT] = {"_struct", "Struct", CPK_KIND_STRUCT},
    [CPK_LAZY_WEAKVALUEDICT] = {"weakref", "WeakValueDictionary",
                                CPK_KIND_WEAKVALUEDICT},
    [CPK_LAZY_WEAKKEYDICT] = {"weakref", "WeakKeyDictionary",
                              CPK_KIND_WEAKKEYDICT},
};

/* Names of the module-level singletons whose class is CPK_KIND_SINGLETON. */
static const char *const singleton_names[CPK_LAZY_COUNT] = {
    [CPK_LAZY_DC_MISSING] = "MISSING",
    [CPK_LAZY_DC_KW_ONLY] = "KW_ONLY",
};

/* A stamp that changes whenever sys.modules changes, so the common call
 * (nothing imported since the last dump) costs one compare. Where the
 * Python has no such stamp it is 0, which makes every call look the
 * modules up (correct, only slower): cpk_py_dict_stamp. */
static uint64_t
modules_stamp(PyObject *modules)
{
    return cpk_py_dict_stamp(modules);
}

/* Count of used slots in the exact-type table. */
static int
table_used(const cpk_state *st)
{
    int n = 0;
    for (int i = 0; i < CPK_TYPE_TABLE_SIZE; i++)
        n += st->table[i].type != NULL;
    return n;
}

/* Make `cls` (a new reference, stolen) the current class of lazy slot `i`,
 * resolved from module object `mod`. The class it replaces (its module was
 * imported anew) keeps its table entry, and is kept alive for it: objects
 * of the old class still exist and still need our reducer. */
static int
adopt(cpk_state *st, int i, PyObject *mod, PyObject *cls)
{
    if (singleton_names[i] != NULL) {
        PyObject *name = PyUnicode_InternFromString(singleton_names[i]);
        if (name == NULL || PyDict_SetItem(st->singletons, cls, name) < 0) {
            Py_XDECREF(name);
            Py_DECREF(cls);
            return -1;
        }
        Py_DECREF(name);
    }
    if (st->lazy_types[i] != NULL) {
        if (st->lazy_retired == NULL &&
            (st->lazy_retired = PyList_New(0)) == NULL) {
            Py_DECREF(cls);
            return -1;
        }
        if (PyList_Append(st->lazy_retired, st->lazy_types[i]) < 0) {
            Py_DECREF(cls);
            return -1;
        }
    }
    Py_XSETREF(st->lazy_types[i], cls);
    Py_XSETREF(st->lazy_sources[i], Py_NewRef(mod));
    /* Keep a quarter of the table free so probes stay short: a process
     * that re-imports typing dozens of times loses only the old classes'
     * fast path. */
    if (lazy_specs[i].kind != CPK_KIND_NONE &&
        table_used(st) < CPK_TYPE_TABLE_SIZE * 3 / 4)
        cpk_table_add(st, (PyTypeObject *)cls, lazy_specs[i].kind);
    return 0;
}

int
cpk_refresh_lazy_types(cpk_state *st)
{
    uint64_t stamp = modules_stamp(st->sys_modules);
    if (stamp != 0 && stamp == st->lazy_stamp)
        return 0;
    /* Recorded first: an import made by the attribute lookups below
     * changes the stamp again, and the next call looks again. */
    st->lazy_stamp = stamp;
    /* Stock cloudpickle imported since: share with it (stock.c). */
    if (cpk_stock_refresh(st) < 0)
        goto error;
    for (int i = 0; i < CPK_LAZY_COUNT; i++) {
        if (st->lazy_modules[i] == NULL &&
            (st->lazy_modules[i] =
                 PyUnicode_InternFromString(lazy_specs[i].module)) == NULL)
            goto error;
        PyObject *mod = PyDict_GetItemWithError(st->sys_modules,
                                                st->lazy_modules[i]);
        if (mod == NULL) {
            if (PyErr_Occurred())
                goto error;
            continue;
        }
        if (mod == st->lazy_sources[i])
            continue; /* same module object, same class */
        Py_INCREF(mod); /* the lookup below may run Python code */
        PyObject *cls = PyObject_GetAttrString(mod, lazy_specs[i].name);
        if (cls == NULL) {
            /* A module of that name without the class is not the
             * stdlib's: nothing of ours to pickle. Only what `except
             * Exception` would catch is ignored. */
            Py_DECREF(mod);
            if (!cpk_error_clearable())
                goto error;
            PyErr_Clear();
            continue;
        }
        /* Another thread may have adopted it while the lookup ran. */
        if (!PyType_Check(cls) || cls == st->lazy_types[i]) {
            Py_DECREF(cls);
            Py_XSETREF(st->lazy_sources[i], mod);
            continue;
        }
        int r = adopt(st, i, mod, cls);
        Py_DECREF(mod);
        if (r < 0)
            goto error;
    }
    return 0;
error:
    /* Interrupted half-way: look again next time. */
    st->lazy_stamp = 0;
    return -1;
}
