/* pickler.c - the Pickler type: a subclass of _pickle.Pickler whose C
 * reducer_override sends each object that is ours (functions, classes and
 * the types in the exact-type table) to its reducer, and everything else
 * straight back to CPython with NotImplemented. Also the dispatch_table
 * descriptor that keeps a user's table in charge. The reducers themselves
 * are in function.c, class.c and reducers.c.
 */
#include "engine/pickler.h"
#include "core/state.h"
#include "ccloudpickle.h"
#include "common/pycompat.h"
#include "common/pyerr.h" /* cpk_error_clearable */
#include "core/lazytypes.h"
#include "core/memio.h"
#include "core/subtype.h"
#include "engine/deepstack.h"
#include "engine/diagnose.h"
#include "engine/gcpause.h"
#include "scan/format.h"
#include "types/class.h"
#include "types/compat.h"
#include "types/function.h"
#include "types/reducers.h"

#include <stddef.h>
#include <structmember.h>

/* CPython's Pickler slots, the same for every module instance. */
static cpk_base_slots base_slots;

/* The reducer for `type` in `table` (a user's mapping), called on obj.
 * Returns a new reference to its result; NULL with an exception on error;
 * NULL without one when the table has no entry for the type. The table and
 * the reducer are held for the call: the reducer may replace the table
 * (p.dispatch_table = ...) and so free both. */
static PyObject *
call_user_reducer(PyObject *table, PyTypeObject *type, PyObject *obj)
{
    PyObject *reducer, *r = NULL;
    Py_INCREF(table);
    if (PyDict_CheckExact(table)) {
        if (cpk_dict_get_ref(table, (PyObject *)type, &reducer) < 0)
            goto done;
    }
    else {
        reducer = PyObject_GetItem(table, (PyObject *)type);
        if (reducer == NULL) {
            if (PyErr_ExceptionMatches(PyExc_KeyError))
                PyErr_Clear();
            goto done;
        }
    }
    if (reducer != NULL) {
        r = PyObject_CallOneArg(reducer, obj);
        Py_DECREF(reducer);
    }
done:
    Py_DECREF(table);
    return r;
}

/* Reductions after which a dump pauses automatic collection: the pause
 * costs about a microsecond, what some 10 reductions cost. */
#define CPK_DUMP_PAUSE_AFTER 256

/* reducer_override: the pickler calls it for every object outside its own
 * fast paths (None, bool, int, float, str, bytes, containers), so the
 * common "not ours" answer must cost a few compares. */
static PyObject *
Pickler_reducer_override(PyObject *self, PyObject *obj)
{
    PyTypeObject *type = Py_TYPE(obj);
    cpk_pickler_ext *ext = CPK_PICKLER_EXT(self);
    int kind;
    enum { FUNCTION = -1, CLASS = -2 };

    cpk_state *st = ext->st;
    /* A dump that reduces many objects makes garbage the collector would
     * scan for nothing (gcpause.c): paused from here to its end. */
    if (++ext->reduced == CPK_DUMP_PAUSE_AFTER && ext->in_dump &&
        !ext->gc_paused) {
        if (cpk_gc_pause(st) < 0)
            return NULL;
        ext->gc_paused = 1;
    }
    if (type == &PyFunction_Type)
        kind = FUNCTION;
    else if (PyType_FastSubclass(type, Py_TPFLAGS_TYPE_SUBCLASS))
        kind = CLASS;
    else if ((kind = cpk_table_lookup(st, type)) == CPK_KIND_NONE &&
             PyType_FastSubclass(type, Py_TPFLAGS_BASE_EXC_SUBCLASS))
        kind = CPK_KIND_EXCEPTION; /* a flag test (exceptions.c) */

    /* A ccloudpickle.wrap() wrapper (python/_ccloudpickle_engines.py)
     * pickles as a ccloudpickle pickle inside: in a stock format it would
     * silently need ccloudpickle to load. Its type carries a marker;
     * _PyType_Lookup is the type's cached MRO lookup, runs no Python code
     * and returns a borrowed reference. */
    if (kind == CPK_KIND_NONE && ext->format != CPK_FORMAT_NATIVE &&
        _PyType_Lookup(type, st->str___ccloudpickle_wrapper__) == Py_True) {
        PyErr_Format(st->PicklingError,
                     "Can't pickle a ccloudpickle.wrap() wrapper (%s) for "
                     "%s: it pickles as a ccloudpickle pickle, which that "
                     "loader cannot rebuild; pickle the wrapped object "
                     "(its __wrapped__) instead",
                     type->tp_name, cpk_compat_target(ext->format));
        return NULL;
    }

    /* A dispatch_table the user set wins over our reducers; CPython
     * consults it itself for the types we leave alone. Entries added to
     * this instance's view of the default table (p.dispatch_table[T] = r)
     * live in table_overlay, which CPython does not know: they are looked
     * up here, for every type. */
    /* A reconstructor of ours the chosen format's release lacks is
     * refused however it would be written: through the fast path below,
     * or through a dispatch_table (the user's, or copyreg's entry for
     * builtin functions), which skip it. */
    if (kind == CPK_KIND_NONE && type == &PyCFunction_Type &&
        ext->fmt < CPK_FORMAT_CURRENT &&
        PyCFunction_GET_SELF(obj) == ext->module) {
        const char *name = ((PyCFunctionObject *)obj)->m_ml->ml_name;
        if (!cpk_format_has_name(ext->fmt, name)) {
            PyErr_Format(st->PicklingError,
                         "Can't pickle for format %d (ccloudpickle %s): its "
                         "loaders have no %s; write a newer format",
                         ext->fmt, cpk_format_release(ext->fmt), name);
            return NULL;
        }
    }
    PyObject *table = *cpk_pickler_dispatch_slot(self);
    if (table == NULL && ext->table_overlay != NULL &&
        PyDict_GET_SIZE(ext->table_overlay) > 0)
        table = ext->table_overlay;
    else if (kind == CPK_KIND_NONE) {
        /* One of our reconstructors: its name, which CPython would get
         * through dispatch_table, __reduce_ex__ and __reduce__ (a bound
         * method made and called each time) before the same save_global.
         * A third of the cost of each name a task's pickle holds. */
        if (type == &PyCFunction_Type && table == NULL &&
            PyCFunction_GET_SELF(obj) == ext->module) {
            /* A new str, as __reduce__ makes: the same bytes. */
            int reg = PyDict_Contains(st->copyreg_dispatch,
                                      (PyObject *)type);
            if (reg < 0)
                return NULL;
            if (!reg) {
                const char *name = ((PyCFunctionObject *)obj)->m_ml->ml_name;
                if (ext->sink != NULL)
                    cpk_sink_need_prefix(ext->sink);
                return PyUnicode_FromString(name);
            }
        }
        Py_RETURN_NOTIMPLEMENTED;
    }
    if (table != NULL && kind != CPK_KIND_EXTREF) {
        PyObject *r = call_user_reducer(table, type, obj);
        if (r != NULL || PyErr_Occurred())
            return r;
    }

    if (kind == FUNCTION)
        return cpk_reduce_function(st, self, obj);
    if (kind == CLASS)
        return cpk_reduce_class(st, self, obj);
    if (kind == CPK_KIND_NONE)
        Py_RETURN_NOTIMPLEMENTED;
    return cpk_reduce_kind(st, self, kind, obj);
}

/* Raise PicklingError(msg) from the current exception. */
static void
raise_from(PyObject *exc_type, const char *msg)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb != NULL)
        PyException_SetTraceback(value, tb);
    PyErr_SetString(exc_type, msg);
    PyObject *type2, *value2, *tb2;
    PyErr_Fetch(&type2, &value2, &tb2);
    PyErr_NormalizeException(&type2, &value2, &tb2);
    PyException_SetCause(value2, Py_NewRef(value));
    PyException_SetContext(value2, value); /* steals value */
    PyErr_Restore(type2, value2, tb2);
    Py_XDECREF(type);
    Py_XDECREF(tb);
}

/* _pickle.Pickler.clear_memo(self). */
static int
base_clear_memo(PyObject *self)
{
    PyObject *args[1] = {self};
    PyObject *r = PyObject_Vectorcall(
        CPK_PICKLER_EXT(self)->st->base_clear_memo, args, 1, NULL);
    Py_XDECREF(r);
    return r == NULL ? -1 : 0;
}

/* A dump that fails leaves in the memo what it memoized before failing,
 * though none of it was written: the next dump would refer to objects the
 * stream lacks ("Memo value not found") and number its own entries out of
 * step with the loader. When the memo was empty before the dump (a new
 * Pickler, or after clear_memo()), emptying it again undoes that exactly.
 * Otherwise the memo is left as stock pickle leaves it: finding what the
 * failed dump added would cost a copy of the memo on every dump.
 *
 * This failure path of Pickler_dump is out of its way (cold, not
 * inlined): measured, inlining it made dumps(1) some 5% slower. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static PyObject *
dump_failed(PyObject *self, PyObject *obj, int was_empty)
{
    cpk_pickler_ext *ext = CPK_PICKLER_EXT(self);
    /* What the memo keeps of a failed dump was never written. */
    Py_CLEAR(ext->last_fglobals);
    Py_CLEAR(ext->last_split);
    /* Too deep: no one object is to blame, so no culprit search. */
    int deep = PyErr_ExceptionMatches(PyExc_RecursionError);
    if (deep)
        raise_from(ext->st->PicklingError,
                   "Could not pickle object as excessively deep recursion "
                   "required.");
    if (was_empty) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        if (base_clear_memo(self) == 0)
            ext->memo_used = 0;
        else
            PyErr_Clear();
        PyErr_Restore(type, value, tb);
    }
    /* Only now, on the failure path: a successful dump pays nothing. */
    if (!deep)
        cpk_diagnose_failure(self, obj);
    return NULL;
}

/* One run of CPython's dump(), with the collector paused past
 * CPK_DUMP_PAUSE_AFTER reductions (gcpause.c) and resumed after. */
static PyObject *
dump_once(PyObject *self, PyObject *obj)
{
    cpk_pickler_ext *ext = CPK_PICKLER_EXT(self);
    ext->in_dump = 1;
    ext->reduced = 0;
    PyObject *args[2] = {self, obj};
    PyObject *r = PyObject_Vectorcall(ext->st->base_dump, args, 2, NULL);
    ext->in_dump = 0;
    if (ext->gc_paused) {
        ext->gc_paused = 0;
        if (cpk_gc_resume(ext->st) < 0)
            Py_CLEAR(r);
    }
    return r;
}

/* Deep structures ------------------------------------------------------------
 * CPython's pickler recurses once per level (a linked list of instances
 * costs two levels a node) and gives up at the recursion limit: 1000 by
 * default, whatever the stack could hold. A dump that failed that way, and
 * only that way, runs again on a large C stack of this same thread with
 * the budget raised (deepstack.c), so the common case pays nothing and a
 * deep one costs one wasted partial attempt. The retry writes the same
 * bytes a dump with a higher limit would: a plain pickle. It happens only
 * when the failed attempt can be undone exactly: the memo was empty
 * before it, and nothing reached the user's file (for a file, the retry
 * then holds its output back and writes it once it succeeded, so a
 * failure leaves the file as it was). */

typedef struct {
    PyObject *self, *obj;
    int was_empty;
} deep_args;

static PyObject *
deep_dump(void *arg)
{
    deep_args *a = arg;
    PyObject *r = dump_once(a->self, a->obj);
    /* The culprit search pickles parts of the graph again: here too. */
    return r != NULL ? r : dump_failed(a->self, a->obj, a->was_empty);
}

/* Is the error the recursion limit reached by the pickler's descent: in
 * its save() ("maximum recursion depth exceeded while pickling an
 * object") or in a C call it makes there, such as writing a frame to the
 * file ("... while calling a Python object")? A __reduce__ whose Python
 * code recurses without end says neither and is not retried. */
static int
pickler_too_deep(void)
{
    if (!PyErr_ExceptionMatches(PyExc_RecursionError))
        return 0;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    PyObject *msg = value ? PyObject_Str(value) : NULL;
    int r = 0;
    if (msg != NULL && PyUnicode_Check(msg)) {
        const char *u = PyUnicode_AsUTF8(msg);
        r = u != NULL && (strstr(u, " while pickling an object") != NULL ||
                          strstr(u, " while calling a Python object") != NULL);
    }
    Py_XDECREF(msg);
    PyErr_Clear(); /* from str() alone: the first error is restored */
    PyErr_Restore(type, value, tb);
    return r;
}

/* The retry, or NULL with *tried = 0 (the first error still set) when it
 * cannot be made. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static PyObject *
dump_deep(PyObject *self, PyObject *obj, Py_ssize_t written, int *tried)
{
    cpk_pickler_ext *ext = CPK_PICKLER_EXT(self);
    PyObject *sink = ext->sink;
    *tried = 0;
    /* A buffer_callback already saw the first attempt's buffers: a retry
     * would hand them over again, and the loader's buffers= would no
     * longer match the pickle's. */
    if (sink == NULL || ext->buffer_callback || cpk_deep_headroom() == 0 ||
        !pickler_too_deep())
        return NULL;
    int passes = cpk_sink_passes(sink);
    /* In memory (dumps): the sink must have been empty; to a file:
     * nothing may have reached it. */
    if (passes ? cpk_sink_written(sink) != written : written != 0)
        return NULL;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (base_clear_memo(self) < 0) {
        /* Only a MemoryError: report the first failure. */
        PyErr_Clear();
        PyErr_Restore(type, value, tb);
        return NULL;
    }
    /* The memo emptied: what it wrote of a shared globals subset, and
     * its split, goes with it (the retry writes the same bytes). */
    Py_CLEAR(ext->last_fglobals);
    Py_CLEAR(ext->last_split);
    Py_INCREF(sink); /* a __reduce__ may re-init the Pickler */
    if (passes)
        cpk_sink_hold(sink);
    else
        cpk_sink_reset(sink);
    deep_args a = {self, obj, 1};
    int ran;
    PyObject *r = cpk_deep_call(deep_dump, &a, &ran);
    if (!ran) {
        if (passes)
            (void)cpk_sink_release(sink, 0);
        Py_DECREF(sink);
        PyErr_Restore(type, value, tb);
        return NULL;
    }
    *tried = 1;
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    if (passes && cpk_sink_release(sink, r != NULL) < 0)
        Py_CLEAR(r);
    Py_DECREF(sink);
    return r;
}

/* A successful dump's result r, once a user's file has what the sink
 * kept (cpk_sink_end_dump). Steals r. */
static PyObject *
end_dump(cpk_pickler_ext *ext, PyObject *r)
{
    if (ext->sink != NULL && cpk_sink_end_dump(ext->sink) < 0)
        Py_CLEAR(r);
    return r;
}

static PyObject *
Pickler_dump(PyObject *self, PyObject *obj)
{
    cpk_pickler_ext *ext = CPK_PICKLER_EXT(self);
    cpk_state *st = ext->st;
    if (cpk_refresh_lazy_types(st) < 0)
        return NULL;
    /* CPython's dump() of a Pickler inside its own dump (a __reduce__
     * calling it) frees the output buffer the outer one writes to: a
     * crash, refused here. */
    if (ext->in_dump) {
        PyErr_SetString(st->PicklingError,
                        "Pickler.dump() called while this Pickler is "
                        "dumping (from a __reduce__?): use another Pickler "
                        "or dumps()");
        return NULL;
    }
    int was_empty = !ext->memo_used;
    ext->memo_used = 1;
    ext->user_hooks = -1;
    /* The marker opens the pickle if it names a reconstructor of ours
     * (reducer_override says so); older formats go without. */
    if (ext->format == CPK_FORMAT_NATIVE && ext->fmt >= CPK_FORMAT_MARKED &&
        ext->sink != NULL)
        cpk_sink_set_prefix(
            ext->sink, ext->proto >= 4 ? st->format_op4 : st->format_op,
            ext->proto >= 4 ? st->format_op4_len : st->format_op_len);
    Py_ssize_t written = ext->sink != NULL ? cpk_sink_written(ext->sink) : 0;
    PyObject *r = dump_once(self, obj);
    if (r != NULL)
        return end_dump(ext, r);
    if (was_empty) {
        int tried;
        r = dump_deep(self, obj, written, &tried);
        if (tried)
            return r != NULL ? end_dump(ext, r) : NULL;
    }
    return dump_failed(self, obj, was_empty);
}

static PyObject *
Pickler_clear_memo(PyObject *self, PyObject *unused)
{
    (void)unused;
    if (base_clear_memo(self) < 0)
        return NULL;
    CPK_PICKLER_EXT(self)->memo_used = 0;
    /* function.c's shared subset is written again, and checked again. */
    Py_CLEAR(CPK_PICKLER_EXT(self)->last_fglobals);
    Py_CLEAR(CPK_PICKLER_EXT(self)->last_split);
    Py_RETURN_NONE;
}

/* Pickler.memo is CPython's, with one addition: after an assignment the
 * memo is no longer known to be empty. This is CPython's descriptor (new
 * reference). */
static PyObject *
base_memo_descr(PyObject *self)
{
    PyObject *dict = cpk_type_dict(
        (PyTypeObject *)CPK_PICKLER_EXT(self)->st->base_pickler);
    if (dict == NULL)
        return NULL;
    PyObject *descr = NULL, *name = PyUnicode_InternFromString("memo");
    int r = name ? cpk_dict_get_ref(dict, name, &descr) : -1;
    Py_XDECREF(name);
    Py_DECREF(dict);
    if (r == 0)
        PyErr_SetString(PyExc_AttributeError, "memo");
    return r > 0 ? descr : NULL;
}

static PyObject *
Pickler_get_memo(PyObject *self, void *closure)
{
    (void)closure;
    PyObject *descr = base_memo_descr(self);
    if (descr == NULL)
        return NULL;
    PyObject *r = Py_TYPE(descr)->tp_descr_get(descr, self,
                                               (PyObject *)Py_TYPE(self));
    Py_DECREF(descr);
    return r;
}

static int
Pickler_set_memo(PyObject *self, PyObject *value, void *closure)
{
    (void)closure;
    PyObject *descr = base_memo_descr(self);
    if (descr == NULL)
        return -1;
    int r = Py_TYPE(descr)->tp_descr_set(descr, self, value);
    Py_DECREF(descr);
    CPK_PICKLER_EXT(self)->memo_used = 1;
    Py_CLEAR(CPK_PICKLER_EXT(self)->last_fglobals);
    Py_CLEAR(CPK_PICKLER_EXT(self)->last_split);
    return r;
}

/* Type slots ------------------------------------------------------------ */

static PyObject *
Pickler_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *module = PyType_GetModuleByDef(type, &cpk_module_def);
    if (module == NULL)
        return NULL;
    PyObject *self = base_slots.tp_new(type, args, kwds);
    if (self == NULL)
        return NULL;
    cpk_pickler_ext *ext = CPK_PICKLER_EXT(self);
    ext->module = Py_NewRef(module);
    ext->st = cpk_get_state(module);
    ext->user_hooks = -1;
    ext->proto = 5;
    ext->fmt = CPK_FORMAT_CURRENT;
    return self;
}

int
cpk_format_arg(PyObject *value, int *out)
{
    *out = CPK_FORMAT_CURRENT;
    if (value == Py_None)
        return 0;
    if (!PyLong_Check(value) || PyBool_Check(value)) {
        PyErr_Format(PyExc_TypeError,
                     "format must be an int or None, not %.100s",
                     Py_TYPE(value)->tp_name);
        return -1;
    }
    int overflow;
    long n = PyLong_AsLongAndOverflow(value, &overflow);
    if (n == -1 && PyErr_Occurred())
        return -1;
    if (overflow || n < CPK_FORMAT_OLDEST || n > CPK_FORMAT_CURRENT) {
        PyErr_Format(PyExc_ValueError,
                     "format must be %d to %d (the formats of ccloudpickle "
                     "%s to %s), not %S",
                     CPK_FORMAT_OLDEST, CPK_FORMAT_CURRENT,
                     cpk_format_release(CPK_FORMAT_OLDEST), CPK_VERSION,
                     value);
        return -1;
    }
    *out = (int)n;
    return 0;
}

/* Parse (file, protocol=None, buffer_callback=None, *, compat=None,
 * portable=False, format=None).
 * Positional calls (how dumps() makes its Pickler) skip the generic
 * parser. Borrowed references. */
static int
parse_init_args(PyObject *args, PyObject *kwds, PyObject **file,
                PyObject **protocol, PyObject **buffer_callback,
                PyObject **compat, PyObject **portable, PyObject **format)
{
    static char *kwlist[] = {"file", "protocol", "buffer_callback", "compat",
                             "portable", "format", NULL};
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    *protocol = *buffer_callback = *compat = Py_None;
    *portable = Py_False;
    *format = Py_None;
    if ((kwds == NULL || PyDict_GET_SIZE(kwds) == 0) && n >= 1 && n <= 3) {
        *file = PyTuple_GET_ITEM(args, 0);
        if (n > 1)
            *protocol = PyTuple_GET_ITEM(args, 1);
        if (n > 2)
            *buffer_callback = PyTuple_GET_ITEM(args, 2);
        return 0;
    }
    return PyArg_ParseTupleAndKeywords(args, kwds, "O|OO$OOO:Pickler", kwlist,
                                       file, protocol, buffer_callback,
                                       compat, portable, format)
               ? 0
               : -1;
}

/* Forget the globals shared so far (the one-entry cache too). */
static void
clear_globals_ref(cpk_pickler_ext *ext)
{
    Py_CLEAR(ext->globals_ref);
    Py_CLEAR(ext->globals_alive);
    Py_CLEAR(ext->last_globals);
    Py_CLEAR(ext->last_base);
    Py_CLEAR(ext->last_fglobals);
    Py_CLEAR(ext->last_split);
    ext->globals_ref_shared = 0;
    ext->globals_pending = 0;
}

/* The spare Pickler of dumps() ---------------------------------------------
 * A Pickler costs more to make than a small pickle costs to write (CPython's
 * __init__ looks up three attributes, binds two methods, allocates a memo
 * and a buffer). dumps() with default options therefore keeps one, with its
 * sink, in the module state and resets it after each successful dump: the
 * memo emptied, the globals sharing dropped, as a new one would be, so the
 * bytes are the same. Taking it leaves NULL behind, so a nested or
 * concurrent dumps() (a __reduce__ calling dumps, another thread while this
 * one runs Python code) makes its own. One that wrote more than
 * CPK_SPARE_MAX_BYTES is dropped rather than kept: clear_memo keeps the
 * memo's table as large as it grew (one entry at most per byte written),
 * and every later reset would sweep all of it. */
#define CPK_SPARE_MAX_BYTES 8192

PyObject *
cpk_dumps_pickler_take(cpk_state *st, PyObject **sink)
{
    if (st->spare_pickler != NULL) {
        PyObject *p = st->spare_pickler;
        *sink = st->spare_sink;
        st->spare_pickler = st->spare_sink = NULL;
        return p;
    }
    *sink = cpk_sink_new(st);
    if (*sink == NULL)
        return NULL;
    PyObject *args[1] = {*sink};
    PyObject *p = PyObject_Vectorcall((PyObject *)st->pickler_type, args, 1,
                                      NULL);
    if (p == NULL)
        Py_CLEAR(*sink);
    return p;
}

int
cpk_dumps_pickler_give(cpk_state *st, PyObject *pickler, PyObject *sink,
                       Py_ssize_t written)
{
    cpk_pickler_ext *ext = CPK_PICKLER_EXT(pickler);
    int keep = written <= CPK_SPARE_MAX_BYTES && ext->dict == NULL &&
               ext->table_overlay == NULL;
    /* Reset first: emptying the memo frees what only it held, whose
     * __del__ may run dumps() (or let another thread finish one) and
     * store a spare meanwhile. The slot is read only after that. */
    if (keep && base_clear_memo(pickler) < 0) {
        keep = 0;
        if (!cpk_error_clearable()) {
            Py_DECREF(pickler);
            Py_DECREF(sink);
            return -1;
        }
        PyErr_Clear(); /* the pickle is made: only no spare */
    }
    if (keep) {
        clear_globals_ref(ext);
        ext->memo_used = 0;
        ext->diagnose_off = 0;
        cpk_sink_reset(sink);
    }
    if (!keep || st->spare_pickler != NULL) {
        Py_DECREF(pickler);
        Py_DECREF(sink);
        return 0;
    }
    st->spare_pickler = pickler;
    st->spare_sink = sink;
    return 0;
}

static int
Pickler_init(PyObject *self, PyObject *args, PyObject *kwds)
{
    PyObject *file, *protocol, *buffer_callback, *compat, *portable_obj;
    PyObject *fmt_obj;
    cpk_pickler_ext *ext = CPK_PICKLER_EXT(self);

    if (parse_init_args(args, kwds, &file, &protocol, &buffer_callback,
                        &compat, &portable_obj, &fmt_obj) < 0)
        return -1;
    int format = cpk_compat_format(compat);
    if (format < 0)
        return -1;
    int fmt;
    if (cpk_format_arg(fmt_obj, &fmt) < 0)
        return -1;
    if (fmt_obj != Py_None && format != CPK_FORMAT_NATIVE) {
        PyErr_SetString(PyExc_ValueError,
                        "format= cannot be combined with compat=: format= "
                        "numbers ccloudpickle's formats, compat= names a "
                        "stock cloudpickle");
        return -1;
    }
    int portable = PyObject_IsTrue(portable_obj);
    if (portable < 0)
        return -1;
    if (portable && format != CPK_FORMAT_NATIVE) {
        PyErr_SetString(PyExc_ValueError,
                        "portable=True cannot be combined with compat=: "
                        "stock cloudpickle cannot load the source it adds");
        return -1;
    }
    int proto = 5;
    if (protocol != Py_None) {
        long p = PyLong_AsLong(protocol);
        if (p == -1 && PyErr_Occurred())
            return -1;
        /* Out-of-range values are for CPython's __init__ to refuse. */
        proto = p < 0 ? 5 : p > 1000 ? 1000 : (int)p;
    }

    /* CPython's (file, protocol, fix_imports, buffer_callback); it
     * validates the protocol it is given, not our copy. */
    PyObject *proto_obj = protocol != Py_None ? Py_NewRef(protocol)
                                              : PyLong_FromLong(proto);
    if (proto_obj == NULL)
        return -1;
    /* CPython's Pickler writes to one of our sinks, a user's file behind
     * it: a failed dump then knows whether anything reached the file. */
    PyObject *sink = cpk_sink_is(ext->st, file) ? Py_NewRef(file)
                                                : cpk_sink_wrap(ext->st, file);
    if (sink == NULL) {
        Py_DECREF(proto_obj);
        return -1;
    }
    PyObject *bargs = PyTuple_Pack(4, sink, proto_obj, Py_True,
                                   buffer_callback);
    Py_DECREF(proto_obj);
    if (bargs == NULL) {
        Py_DECREF(sink);
        return -1;
    }
    Py_XSETREF(ext->sink, sink);
    ext->in_init = 1;
    int r = base_slots.tp_init(self, bargs, NULL);
    ext->in_init = 0;
    Py_DECREF(bargs);
    if (r < 0)
        return -1;

    /* Fresh globals sharing for each __init__, as cloudpickle does; made
     * when the first function by value needs it. */
    clear_globals_ref(ext);
    ext->memo_used = 0; /* CPython's __init__ made a new, empty memo */
    ext->proto = proto;
    ext->format = format;
    ext->fmt = fmt;
    ext->portable = portable;
    ext->buffer_callback = buffer_callback != Py_None;
    return 0;
}

/* globals_ref is now the user's too: they may clear or change it, so from
 * now on function.c looks every entry up instead of trusting its one-entry
 * cache, which goes. */
static void
share_globals_ref(cpk_pickler_ext *ext)
{
    ext->globals_ref_shared = 1;
    Py_CLEAR(ext->last_globals);
    Py_CLEAR(ext->last_base);
}

/* The map itself, as cloudpickle exposes it. */
static PyObject *
Pickler_get_globals_ref(PyObject *self, void *closure)
{
    cpk_pickler_ext *ext = CPK_PICKLER_EXT(self);
    (void)closure;
    if (cpk_pickler_globals_ref(ext) < 0)
        return NULL;
    share_globals_ref(ext);
    return Py_NewRef(ext->globals_ref);
}

/* cloudpickle's globals_ref is a plain attribute: a dict may replace it. */
static int
Pickler_set_globals_ref(PyObject *self, PyObject *value, void *closure)
{
    cpk_pickler_ext *ext = CPK_PICKLER_EXT(self);
    (void)closure;
    if (value == NULL) {
        PyErr_SetString(PyExc_TypeError,
                        "globals_ref cannot be deleted; assign a dict");
        return -1;
    }
    if (!PyDict_Check(value)) {
        PyErr_Format(PyExc_TypeError, "globals_ref must be a dict, not %.100s",
                     Py_TYPE(value)->tp_name);
        return -1;
    }
    if (cpk_pickler_globals_ref(ext) < 0)
        return -1;
    Py_SETREF(ext->globals_ref, Py_NewRef(value));
    share_globals_ref(ext);
    return 0;
}

static int
ext_clear(PyObject *self)
{
    cpk_pickler_ext *ext = CPK_PICKLER_EXT(self);
    Py_CLEAR(ext->dict);
    clear_globals_ref(ext);
    Py_CLEAR(ext->table_view);
    Py_CLEAR(ext->table_overlay);
    Py_CLEAR(ext->sink);
    /* ext->module stays: the state must outlive every instance. */
    return 0;
}

static int
Pickler_traverse(PyObject *self, visitproc visit, void *arg)
{
    cpk_pickler_ext *ext = CPK_PICKLER_EXT(self);
    Py_VISIT(ext->dict);
    Py_VISIT(ext->module);
    Py_VISIT(ext->globals_ref);
    Py_VISIT(ext->globals_alive);
    Py_VISIT(ext->last_globals);
    Py_VISIT(ext->last_base);
    Py_VISIT(ext->last_fglobals);
    Py_VISIT(ext->last_split);
    Py_VISIT(ext->table_view);
    Py_VISIT(ext->table_overlay);
    Py_VISIT(ext->sink);
    /* A static base (CPython < 3.12) does not visit our heap type. */
    if (!base_slots.is_heap)
        Py_VISIT(Py_TYPE(self));
    return base_slots.tp_traverse(self, visit, arg);
}

static int
Pickler_clear(PyObject *self)
{
    ext_clear(self);
    return base_slots.tp_clear(self);
}

static void
Pickler_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    ext_clear(self);
    Py_CLEAR(CPK_PICKLER_EXT(self)->module);
    base_slots.tp_dealloc(self);
    if (!base_slots.is_heap)
        Py_DECREF(tp);
}

/* dispatch_table ------------------------------------------------------------
 * CPython's Pickler reads self.dispatch_table once, in __init__, into a C
 * slot. Our descriptor answers that lookup with "none" so the pickler uses
 * its fast copyreg path, yet reads as cloudpickle's ChainMap everywhere
 * else, and writes go to the C slot, where the pickler sees them. A class
 * attribute of a subclass shadows the descriptor and lands in the slot.
 *
 * On the class, the table is the shared default ChainMap(our reducers,
 * copyreg.dispatch_table). On an instance without a table of its own it is
 * that instance's view of the default, default.new_child(overlay), made
 * when first read: `p.dispatch_table[T] = r` lands in the overlay, which
 * reducer_override consults (CPython does not), so the entry is honoured by
 * that Pickler and by no other. */

enum { TABLE_DISPATCH_TABLE, TABLE_DISPATCH, TABLE_OWN };

typedef struct {
    PyObject_HEAD
    PyObject *module;
    int which;
} cpk_table_descr;

/* {type: ccloudpickle._reduce} for the types we reduce. New reference. */
static PyObject *
own_table(cpk_state *st)
{
    if (cpk_refresh_lazy_types(st) < 0)
        return NULL;
    PyObject *d = PyDict_New();
    if (d == NULL)
        return NULL;
    for (int i = 0; i < CPK_TYPE_TABLE_SIZE; i++) {
        const cpk_type_slot *s = &st->table[i];
        if (s->type == NULL || s->kind == CPK_KIND_EXTREF)
            continue;
        if (PyDict_SetItem(d, (PyObject *)s->type, st->reduce_builtin) < 0) {
            Py_DECREF(d);
            return NULL;
        }
    }
    return d;
}

/* The class-level table, made on first use. New reference. */
static PyObject *
default_table(cpk_state *st)
{
    if (st->default_table != NULL)
        return Py_NewRef(st->default_table);
    PyObject *chainmap = NULL, *table = NULL, *own = own_table(st);
    PyObject *collections = PyImport_ImportModule("collections");
    if (own != NULL && collections != NULL)
        chainmap = PyObject_GetAttr(collections, st->str_ChainMap);
    if (chainmap != NULL)
        table = PyObject_CallFunctionObjArgs(chainmap, own,
                                             st->copyreg_dispatch, NULL);
    Py_XDECREF(chainmap);
    Py_XDECREF(collections);
    Py_XDECREF(own);
    if (table == NULL)
        return NULL;
    /* The import and ChainMap.__init__ run Python code, which may switch
     * threads: another thread may have made the table meanwhile. One
     * table for everyone: keep the first. */
    if (st->default_table == NULL)
        st->default_table = Py_NewRef(table);
    Py_SETREF(table, Py_NewRef(st->default_table));
    return table;
}

/* This instance's view of the default table, made on first read. New
 * reference. */
static PyObject *
instance_table(cpk_state *st, PyObject *pickler)
{
    cpk_pickler_ext *ext = CPK_PICKLER_EXT(pickler);
    if (ext->table_view != NULL)
        return Py_NewRef(ext->table_view);
    PyObject *view = NULL, *dflt = default_table(st);
    PyObject *overlay = PyDict_New();
    if (dflt != NULL && overlay != NULL)
        view = PyObject_CallMethod(dflt, "new_child", "O", overlay);
    Py_XDECREF(dflt);
    if (view == NULL) {
        Py_XDECREF(overlay);
        return NULL;
    }
    /* new_child() is Python code: another thread may have read
     * p.dispatch_table meanwhile; the first view made is the one. */
    if (ext->table_view == NULL) {
        ext->table_view = Py_NewRef(view);
        Py_XSETREF(ext->table_overlay, Py_NewRef(overlay));
    }
    Py_DECREF(overlay);
    Py_SETREF(view, Py_NewRef(ext->table_view));
    return view;
}

static PyObject *
TableDescr_get(PyObject *self, PyObject *obj, PyObject *type)
{
    cpk_table_descr *d = (cpk_table_descr *)self;
    cpk_state *st = cpk_get_state(d->module);
    (void)type;
    if (d->which == TABLE_OWN)
        return own_table(st);
    if (d->which == TABLE_DISPATCH_TABLE && obj != NULL && obj != Py_None) {
        if (!PyObject_TypeCheck(obj, st->pickler_type)) {
            PyErr_SetString(PyExc_TypeError, "not a ccloudpickle.Pickler");
            return NULL;
        }
        PyObject *slot = *cpk_pickler_dispatch_slot(obj);
        if (slot != NULL)
            return Py_NewRef(slot);
        if (CPK_PICKLER_EXT(obj)->in_init) {
            PyErr_SetString(PyExc_AttributeError, "dispatch_table");
            return NULL;
        }
        return instance_table(st, obj);
    }
    return default_table(st);
}

static int
TableDescr_set(PyObject *self, PyObject *obj, PyObject *value)
{
    cpk_table_descr *d = (cpk_table_descr *)self;
    cpk_state *st = cpk_get_state(d->module);
    if (d->which != TABLE_DISPATCH_TABLE) {
        PyErr_SetString(PyExc_AttributeError, "attribute is read-only");
        return -1;
    }
    if (!PyObject_TypeCheck(obj, st->pickler_type)) {
        PyErr_SetString(PyExc_TypeError, "not a ccloudpickle.Pickler");
        return -1;
    }
    PyObject **slot = cpk_pickler_dispatch_slot(obj);
    cpk_pickler_ext *ext = CPK_PICKLER_EXT(obj);
    if (value != NULL && value == ext->table_view) {
        /* p.dispatch_table = p.dispatch_table: its own view again. */
        Py_CLEAR(*slot);
        return 0;
    }
    if (value == NULL || value == st->default_table) {
        /* Back to the default, without the entries added to the view. */
        Py_CLEAR(*slot);
        Py_CLEAR(ext->table_view);
        Py_CLEAR(ext->table_overlay);
    }
    else
        Py_XSETREF(*slot, Py_NewRef(value));
    return 0;
}

static int
TableDescr_traverse(PyObject *self, visitproc visit, void *arg)
{
    Py_VISIT(((cpk_table_descr *)self)->module);
    Py_VISIT(Py_TYPE(self));
    return 0;
}

static void
TableDescr_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    Py_CLEAR(((cpk_table_descr *)self)->module);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyType_Slot table_descr_slots[] = {
    {Py_tp_descr_get, TableDescr_get},
    {Py_tp_descr_set, TableDescr_set},
    {Py_tp_traverse, TableDescr_traverse},
    {Py_tp_dealloc, TableDescr_dealloc},
    {0, NULL},
};

static PyType_Spec table_descr_spec = {
    .name = "ccloudpickle._DispatchTableDescriptor",
    .basicsize = sizeof(cpk_table_descr),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .slots = table_descr_slots,
};

static int
add_table_descr(cpk_state *st, PyObject *module, const char *name, int which)
{
    cpk_table_descr *d = PyObject_GC_New(cpk_table_descr,
                                         st->table_descr_type);
    if (d == NULL)
        return -1;
    d->module = Py_NewRef(module);
    d->which = which;
    PyObject_GC_Track(d);
    int r = PyDict_SetItemString(st->pickler_type->tp_dict, name,
                                 (PyObject *)d);
    Py_DECREF(d);
    return r;
}

/* Type creation ------------------------------------------------------------ */

static PyMethodDef Pickler_methods[] = {
    {"reducer_override", Pickler_reducer_override, METH_O,
     PyDoc_STR("reducer_override(obj)\n--\n\nReduce functions and classes "
               "by value where they cannot be found by name, and the types "
               "plain pickle cannot handle; NotImplemented otherwise.")},
    {"dump", Pickler_dump, METH_O,
     PyDoc_STR("dump(obj)\n--\n\nWrite the pickle of obj to the file. "
               "When that fails, the exception names the path to the part "
               "that cannot be pickled (see the class's diagnose).")},
    {"clear_memo", Pickler_clear_memo, METH_NOARGS,
     PyDoc_STR("clear_memo()\n--\n\nForget the objects pickled so far: "
               "later dumps repeat them instead of referring back.")},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Pickler_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {"memo", Pickler_get_memo, Pickler_set_memo,
     "The pickler's memo (CPython's PicklerMemoProxy).", NULL},
    {"globals_ref", Pickler_get_globals_ref, Pickler_set_globals_ref,
     "Map of id(func.__globals__) to the globals shipped for it.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* Filled at run time: the offsets depend on the size of CPython's type. */
static PyMemberDef Pickler_members[3];

PyDoc_STRVAR(Pickler_doc,
"Pickler(file, protocol=None, buffer_callback=None, *, compat=None,\n"
"        portable=False, format=None)\n--\n\n"
"A pickle.Pickler that pickles functions, classes and modules by value\n"
"where they cannot be imported by name on the loading side (cloudpickle's\n"
"CloudPickler, in C). compat= writes stock cloudpickle's format for the\n"
"release that will load it: 'cloudpickle3' (or 'cloudpickle') for 3.x,\n"
"'cloudpickle2' for any 2.x, or a release such as '2.2' or '3.1.2'.\n"
"portable=True also ships the source of each function carried by value,\n"
"when it is found and proven to be the running code, so that another\n"
"CPython version can load and run it (not with compat=).\n\n"
"When dump() fails, the exception (its type, traceback and cause\n"
"unchanged) gets the path to the culprit: a note such as \"when pickling\n"
"handler.__globals__['client'].conn['lock'] (_thread.lock)\" on 3.11+,\n"
"the same words after its message before (if its args are one str). To\n"
"find it, parts of the object are pickled again, so their __reduce__\n"
"code runs again; set diagnose = False (on the instance or a subclass)\n"
"to skip that. Subclasses that override reducer_override or\n"
"persistent_id get no path.");

/* CPython's Pickler descriptor `name`, if of type `kind` (borrowed: the
 * type keeps it alive); else NULL with ImportError. */
static PyObject *
base_descriptor(PyObject *base, const char *name, PyTypeObject *kind)
{
    PyObject *dict = cpk_type_dict((PyTypeObject *)base);
    if (dict == NULL)
        return NULL;
    PyObject *descr = PyDict_GetItemString(dict, name);
    Py_DECREF(dict);
    if (descr == NULL || !Py_IS_TYPE(descr, kind)) {
        PyErr_Format(PyExc_ImportError,
                     "_pickle.Pickler.%s is not a %s", name, kind->tp_name);
        return NULL;
    }
    return descr;
}

/* CPython's getter of Pickler.persistent_id, from its descriptor. */
static int
find_persid_getter(PyObject *base)
{
    PyObject *descr = base_descriptor(base, "persistent_id",
                                      &PyGetSetDescr_Type);
    if (descr == NULL)
        return -1;
    PyGetSetDef *gs = ((PyGetSetDescrObject *)descr)->d_getset;
    if (gs->get == NULL) {
        PyErr_SetString(PyExc_ImportError,
                        "_pickle.Pickler.persistent_id has no getter");
        return -1;
    }
    cpk_pickler_set_persid_getter(gs->get, gs->closure);
    return 0;
}

/* Find the offset of PicklerObject.dispatch_table from its member
 * descriptor, so we never mirror CPython's private struct. */
static int
find_dispatch_table_offset(PyObject *base)
{
    PyObject *descr = base_descriptor(base, "dispatch_table",
                                      &PyMemberDescr_Type);
    if (descr == NULL)
        return -1;
    PyMemberDef *m = ((PyMemberDescrObject *)descr)->d_member;
    if (m->type != T_OBJECT_EX) {
        PyErr_SetString(PyExc_ImportError,
                        "_pickle.Pickler.dispatch_table has an unknown type");
        return -1;
    }
    cpk_dispatch_table_offset = m->offset;
    return 0;
}

int
cpk_pickler_init_type(PyObject *module, cpk_state *st)
{
    if (find_dispatch_table_offset(st->base_pickler) < 0 ||
        (cpk_py_pickler_persid_getset() &&
         find_persid_getter(st->base_pickler) < 0) ||
        cpk_base_slots_get((PyTypeObject *)st->base_pickler,
                           &base_slots) < 0)
        return -1;
    Py_ssize_t off = cpk_ext_offset((PyTypeObject *)st->base_pickler);
    cpk_pickler_ext_offset = off;
    Pickler_members[0] = (PyMemberDef){
        "__dictoffset__", T_PYSSIZET, off + offsetof(cpk_pickler_ext, dict),
        READONLY, NULL};
    Pickler_members[1] = (PyMemberDef){
        "proto", T_INT, off + offsetof(cpk_pickler_ext, proto), READONLY,
        "The pickle protocol in use."};
    Pickler_members[2] = (PyMemberDef){NULL, 0, 0, 0, NULL};

    PyType_Slot slots[] = {
        {Py_tp_new, Pickler_new},
        {Py_tp_init, Pickler_init},
        {Py_tp_dealloc, Pickler_dealloc},
        {Py_tp_traverse, Pickler_traverse},
        {Py_tp_clear, Pickler_clear},
        {Py_tp_methods, Pickler_methods},
        {Py_tp_members, Pickler_members},
        {Py_tp_getset, Pickler_getset},
        {Py_tp_doc, (void *)Pickler_doc},
        {0, NULL},
    };
    st->pickler_type = cpk_make_subtype(module, st->base_pickler,
                                        "ccloudpickle.Pickler",
                                        off + sizeof(cpk_pickler_ext), slots);
    if (st->pickler_type == NULL)
        return -1;
    st->table_descr_type = (PyTypeObject *)PyType_FromModuleAndSpec(
        module, &table_descr_spec, NULL);
    if (st->table_descr_type == NULL)
        return -1;
    if ((st->base_dump = PyObject_GetAttrString(st->base_pickler, "dump")) ==
            NULL ||
        (st->base_clear_memo = PyObject_GetAttrString(st->base_pickler,
                                                      "clear_memo")) == NULL)
        return -1;
    if (add_table_descr(st, module, "dispatch_table",
                        TABLE_DISPATCH_TABLE) < 0 ||
        add_table_descr(st, module, "dispatch", TABLE_DISPATCH) < 0 ||
        add_table_descr(st, module, "_dispatch_table", TABLE_OWN) < 0)
        return -1;
    /* Read only when a dump failed (diagnose.c): a plain class attribute
     * that instances and subclasses may shadow. */
    if (PyDict_SetItemString(st->pickler_type->tp_dict, "diagnose",
                             Py_True) < 0)
        return -1;
    PyType_Modified(st->pickler_type);
    /* A lookup gives the type a version tag: the one it keeps until the
     * class is changed (cpk_pickler_type_pristine). */
    (void)_PyType_Lookup(st->pickler_type, st->str_dump);
    st->pickler_tag = st->pickler_type->tp_version_tag;
    return 0;
}
