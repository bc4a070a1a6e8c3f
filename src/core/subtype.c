/* subtype.c - what the Pickler and Unpickler types share as subclasses of
 * CPython's _pickle types: where their own record starts (after the base's
 * instance, whose size differs between CPython versions: never mirrored),
 * the base slots they chain to, and type creation; and the questions the
 * reducers ask of a Pickler's record (a user's hooks, overrides). The
 * types themselves are in pickler.c and unpickler.c.
 */
#include "core/subtype.h"
#include "core/state.h"
#include "common/pycompat.h"

/* Offsets in instances, set when pickler.c and unpickler.c make the types
 * (the same for every module instance: the base is _pickle's). */
Py_ssize_t cpk_pickler_ext_offset;
Py_ssize_t cpk_unpickler_ext_offset;
Py_ssize_t cpk_dispatch_table_offset;

int
cpk_base_slots_get(PyTypeObject *base, cpk_base_slots *slots)
{
    slots->tp_new = base->tp_new;
    slots->tp_init = base->tp_init;
    slots->tp_dealloc = base->tp_dealloc;
    slots->tp_traverse = base->tp_traverse;
    slots->tp_clear = base->tp_clear;
    /* A static base (CPython < 3.12) neither visits nor releases our heap
     * type: we do, for it. */
    slots->is_heap = (base->tp_flags & Py_TPFLAGS_HEAPTYPE) != 0;
    if (slots->tp_new == NULL || slots->tp_init == NULL ||
        slots->tp_dealloc == NULL || slots->tp_traverse == NULL ||
        slots->tp_clear == NULL) {
        PyErr_Format(PyExc_ImportError, "%s lacks the slots we chain to",
                     base->tp_name);
        return -1;
    }
    return 0;
}

Py_ssize_t
cpk_ext_offset(PyTypeObject *base)
{
    Py_ssize_t align = (Py_ssize_t)sizeof(void *);
    return (base->tp_basicsize + align - 1) / align * align;
}

PyTypeObject *
cpk_make_subtype(PyObject *module, PyObject *base, const char *name,
                 Py_ssize_t basicsize, PyType_Slot *slots)
{
    PyType_Spec spec = {
        .name = name,
        .basicsize = (int)basicsize,
        .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE |
                 Py_TPFLAGS_HAVE_GC,
        .slots = slots,
    };
    PyObject *bases = PyTuple_Pack(1, base); /* 3.9 wants a tuple */
    if (bases == NULL)
        return NULL;
    PyObject *type = PyType_FromModuleAndSpec(module, &spec, bases);
    Py_DECREF(bases);
    return (PyTypeObject *)type;
}

/* A Pickler's hooks ------------------------------------------------------ */

/* Is ccloudpickle.Pickler as module exec left it? CPython reads a
 * Pickler's persistent_id and dispatch_table once, in __init__: after an
 * assignment to the class, a kept spare would not see it, nor would the
 * plain-data path, which skips our Pickler. Any assignment changes the
 * type's version tag. */
int
cpk_pickler_type_pristine(cpk_state *st)
{
    PyTypeObject *tp = st->pickler_type;
    return cpk_py_type_tag_valid(tp) && st->pickler_tag != 0 &&
           tp->tp_version_tag == st->pickler_tag;
}

/* 1 if a Python-level override of `name` (a method of the class or an
 * instance attribute) decides what this Pickler does, which a search with
 * a plain Pickler cannot reproduce; 0 if not; -1 on error. */
int
cpk_pickler_overridden(cpk_state *st, PyObject *pickler, const char *name)
{
    PyObject *n = PyUnicode_InternFromString(name);
    if (n == NULL)
        return -1;
    int r = _PyType_Lookup(Py_TYPE(pickler), n) !=
            _PyType_Lookup(st->pickler_type, n);
    PyObject *dict = CPK_PICKLER_EXT(pickler)->dict;
    if (!r && dict != NULL && PyDict_Check(dict)) {
        /* An exact str key: no Python code runs. */
        r = PyDict_GetItemWithError(dict, n) != NULL ? 1
            : PyErr_Occurred()                      ? -1
                                                    : 0;
    }
    Py_DECREF(n);
    return r;
}

/* CPython's Pickler.persistent_id getter where it is a getset
 * (cpk_py_pickler_persid_getset), found once (find_persid_getter). */
static getter persid_get;
static void *persid_closure;

void
cpk_pickler_set_persid_getter(getter get, void *closure)
{
    persid_get = get;
    persid_closure = closure;
}

/* Whether the user may write objects our reducers would write by name
 * (function.c's leaves): a reducer_override or persistent_id of theirs, or
 * a dispatch_table. Asked once per dump. 1, 0, -1 with an error. */
int
cpk_pickler_user_hooks(PyObject *pickler)
{
    cpk_pickler_ext *ext = CPK_PICKLER_EXT(pickler);
    cpk_state *st = ext->st;
    if (ext->user_hooks >= 0)
        return ext->user_hooks;
    /* A dispatch table; our class changed (Pickler.reducer_override = f
     * changes what every instance sees, and what we compare with). */
    int r = *cpk_pickler_dispatch_slot(pickler) != NULL ||
            (ext->table_overlay != NULL &&
             PyDict_GET_SIZE(ext->table_overlay) > 0) ||
            !cpk_pickler_type_pristine(st);
    /* A subclass's methods, or an instance attribute (none to look for
     * on our own type without an instance dict). */
    if (r == 0 && (Py_TYPE(pickler) != st->pickler_type ||
                   (ext->dict != NULL && (!PyDict_Check(ext->dict) ||
                                          PyDict_GET_SIZE(ext->dict) > 0)))) {
        r = cpk_pickler_overridden(st, pickler, "reducer_override");
        if (r == 0)
            r = cpk_pickler_overridden(st, pickler, "persistent_id");
    }
    /* Before 3.13 p.persistent_id = f goes to CPython's slot (so does
     * what __init__ finds: a subclass's __getattr__): its own getter, a
     * C call that runs no Python code, says whether it is set. */
    if (r == 0 && cpk_py_pickler_persid_getset() && persid_get != NULL) {
        PyObject *pid = persid_get(pickler, persid_closure);
        if (pid != NULL) {
            Py_DECREF(pid);
            r = 1;
        } else if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();
        } else {
            r = -1;
        }
    }
    if (r < 0)
        return -1;
    return ext->user_hooks = r;
}
