/* state.h - the module state (cpk_state), the records our Pickler and
 * Unpickler add to CPython's, and state.c's definition, table and helpers. */
#ifndef CPK_CORE_STATE_H
#define CPK_CORE_STATE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "ccloudpickle.h"
#include "common/pycompat.h" /* every difference between Python versions */
#include "common/pyerr.h"    /* cpk_error_clearable: the reducers' rule */

/* Interned attribute and key names, one `str_<name>` field each. */
#define CPK_NAMES(X)                                                         \
    X(__annotations__) X(__builtins__) X(__closure__) X(__defaults__)        \
    X(__dict__) X(__doc__) X(__file__) X(__func__) X(__globals__)            \
    X(__kwdefaults__) X(__module__) X(__name__) X(__orig_bases__)            \
    X(__package__) X(__path__) X(__qualname__) X(__slots__) X(__weakref__)   \
    X(__submodules__) X(__type_params__) X(__bound__) X(__constraints__)     \
    X(__covariant__) X(__contravariant__) X(_abc_impl) X(_abc_cache)         \
    X(_abc_negative_cache) X(_abc_negative_cache_version) X(_abc_registry)   \
    X(_cloudpickle_submodules) X(_member_map_) X(_member_names_)             \
    X(_member_type_) X(_value2member_map_) X(_generate_next_value_)          \
    X(__prepare__) X(__new__) X(closed) X(dump) X(fdel) X(fget) X(fset)      \
    X(getLogger) X(isatty) X(mode) X(name) X(read) X(register) X(seek)       \
    X(tell) X(write) X(stdout) X(stderr) X(stdin) X(TypeVar) X(_FIELD)       \
    X(_FIELD_CLASSVAR) X(_FIELD_INITVAR) X(ChainMap) X(__getattr__)          \
    X(_value_) X(_cpk_member_attrs) X(__objclass__) X(__firstlineno__)      \
    X(__ccloudpickle_wrapper__)                                               \
    X(functools) X(registry) X(__wrapped__) X(cache_parameters)              \
    X(maxsize) X(typed) X(singledispatch) X(lru_cache) X(_lru_cache_wrapper) \
    X(_CacheInfo) X(__cause__) X(__context__) X(__suppress_context__)        \
    X(__notes__) X(__reduce__) X(__reduce_ex__) X(__setstate__)              \
    X(traceback) X(format_tb) X(singledispatchmethod) X(func)                \
    X(_method_cache) X(__closure_cells__) X(__supertype__)                   \
    X(__init_subclass__) X(__init__) X(__spec__) X(_initializing)        \
    X(ccloudpickle)

/* What reducer_override does with an object of a given exact type. */
typedef enum {
    CPK_KIND_NONE = 0,
    CPK_KIND_CODE,
    CPK_KIND_CELL,
    CPK_KIND_MODULE,
    CPK_KIND_PROPERTY,
    CPK_KIND_CLASSMETHOD, /* classmethod, staticmethod and abc.abstract* */
    CPK_KIND_METHOD,
    CPK_KIND_MAPPINGPROXY,
    CPK_KIND_MEMORYVIEW,
    CPK_KIND_GETSET,
    CPK_KIND_DICT_KEYS,
    CPK_KIND_DICT_VALUES,
    CPK_KIND_DICT_ITEMS,
    CPK_KIND_ODICT_KEYS,
    CPK_KIND_ODICT_VALUES,
    CPK_KIND_ODICT_ITEMS,
    CPK_KIND_TEXTFILE,
    CPK_KIND_LOGGER,
    CPK_KIND_ROOT_LOGGER,
    CPK_KIND_WEAKSET,
    CPK_KIND_TYPEVAR,
    CPK_KIND_PARAMSPEC,   /* typeforms.c */
    CPK_KIND_TYPEVARTUPLE,
    CPK_KIND_NEWTYPE,
    CPK_KIND_FIELD_SENTINEL,
    CPK_KIND_SINGLETON,   /* module-level singleton: by name (singletons) */
    CPK_KIND_EXTREF,      /* cpk_ref: a name in another module (compat) */
    CPK_KIND_LRU_CACHE,   /* functools._lru_cache_wrapper (functools.c) */
    CPK_KIND_SDMETHOD,    /* functools.singledispatchmethod (functools.c) */
    CPK_KIND_EXCEPTION,   /* any exception: not in the table (pickler.c) */
    /* primitives.c: per-process objects rebuilt new */
    CPK_KIND_LOCK,        /* _thread.lock */
    CPK_KIND_RLOCK,       /* _thread.RLock */
    CPK_KIND_PYRLOCK,     /* threading._RLock (pure Python) */
    CPK_KIND_EVENT,
    CPK_KIND_CONDITION,
    CPK_KIND_SEMAPHORE,
    CPK_KIND_BOUNDED_SEMAPHORE,
    CPK_KIND_CONTEXTVAR,
    CPK_KIND_STRUCT,
    CPK_KIND_WEAKVALUEDICT,
    CPK_KIND_WEAKKEYDICT,
    CPK_KIND_COUNT
} cpk_kind;

/* Exact-type dispatch: open addressing keyed by the type pointer. Some 50
 * types fill it (static, abc, and the lazy ones of lazytypes.c, which
 * stops adding at three quarters full): a power of two with room. */
#define CPK_TYPE_TABLE_SIZE 128
typedef struct {
    PyTypeObject *type;
    int kind;
} cpk_type_slot;

/* Classes that live in Python modules (logging.Logger, typing.TypeVar, ...)
 * are resolved from sys.modules when their module has been imported; an
 * object of such a class cannot exist before that. */
typedef enum {
    CPK_LAZY_LOGGER,
    CPK_LAZY_ROOT_LOGGER,
    CPK_LAZY_WEAKSET,
    CPK_LAZY_TYPEVAR,
    CPK_LAZY_PARAMSPEC,   /* 3.10 */
    CPK_LAZY_TYPEVARTUPLE, /* 3.11 */
    CPK_LAZY_NEWTYPE,     /* a class from 3.10 */
    CPK_LAZY_FIELD_BASE,
    CPK_LAZY_DC_MISSING,  /* dataclasses.MISSING keeps its identity */
    CPK_LAZY_DC_KW_ONLY,
    CPK_LAZY_ENUM,        /* enum.Enum, to tell enums from other classes */
    CPK_LAZY_LRU_CACHE,   /* functools._lru_cache_wrapper */
    CPK_LAZY_SDMETHOD,    /* functools.singledispatchmethod */
    CPK_LAZY_LOCK,        /* primitives.c's classes */
    CPK_LAZY_RLOCK,
    CPK_LAZY_PYRLOCK,
    CPK_LAZY_EVENT,
    CPK_LAZY_CONDITION,
    CPK_LAZY_SEMAPHORE,
    CPK_LAZY_BOUNDED_SEMAPHORE,
    CPK_LAZY_STRUCT,
    CPK_LAZY_WEAKVALUEDICT,
    CPK_LAZY_WEAKKEYDICT,
    CPK_LAZY_COUNT
} cpk_lazy;

/* Output format of a Pickler: ours, or the names and layouts a stock
 * cloudpickle release offers its loader (compat=; doc/FORMAT.md has the
 * matrix, compat.c parses the values). */
typedef enum {
    CPK_FORMAT_NATIVE = 0,    /* ccloudpickle's reconstructors (doc/FORMAT.md) */
    CPK_FORMAT_CLOUDPICKLE,   /* 3.0-3.1 (and 2.1-2.2 but for dataclasses) */
    CPK_FORMAT_CLOUDPICKLE21, /* 2.1-2.2: no dataclass sentinel getter */
    CPK_FORMAT_CLOUDPICKLE20, /* 2.0: and no _make_function */
} cpk_format;

typedef struct cpk_state {
    /* Types created at module exec. */
    PyTypeObject *pickler_type;
    PyTypeObject *unpickler_type;
    PyTypeObject *sink_type;       /* in-memory file for dumps() */
    PyTypeObject *reader_type;     /* in-memory file for loads() */
    PyTypeObject *sentinel_type;   /* type of _empty_cell_value */
    PyTypeObject *ref_type;        /* cpk_ref: callable named elsewhere */
    PyTypeObject *tracker_cb_type; /* weakref callback of the class tracker */
    PyTypeObject *table_descr_type;/* Pickler.dispatch_table descriptor */

    /* From _pickle, copyreg, builtins. */
    PyObject *base_pickler;      /* _pickle.Pickler */
    PyObject *base_unpickler;    /* _pickle.Unpickler */
    PyObject *base_dump;         /* _pickle.Pickler.dump */
    PyObject *base_clear_memo;   /* _pickle.Pickler.clear_memo */
    PyObject *base_dumps;        /* _pickle.dumps */
    PyObject *spare_pickler;     /* pickler.c: dumps()'s reused Pickler ... */
    PyObject *spare_sink;        /* ... and the sink it writes to */
    unsigned int pickler_tag;    /* pickler_type's version tag at exec */
    PyObject *code_cache;        /* code.c: {marshal bytes: code}, or NULL */
    Py_ssize_t code_cache_bytes; /* the keys' total size */
    PyObject *base_find_class;   /* _pickle.Unpickler.find_class */
    PyObject *base_load;         /* _pickle.Unpickler.load */
    PyObject *base_loads;        /* _pickle.loads */
    /* Its C function and self (the _pickle module, held by base_loads),
     * or NULL: loads()'s fast path calls it without the vectorcall. */
    _PyCFunctionFastWithKeywords base_loads_fast;
    PyObject *base_loads_self;
    PyObject *PicklingError;
    PyObject *UnpicklingError;
    PyObject *ReconstructorTypeError;  /* args.c: bad reconstructor args */
    PyObject *ReconstructorValueError;
    PyObject *PolicyError;       /* loadpolicy.c: import policy refusals */
    PyObject *SignatureError;    /* loadpolicy.c: signed pickle refusals */
    PyObject *FormatError;       /* module.c: a format newer than ours */
    PyObject *load_policy;       /* loadpolicy.c: ContextVar, _load_policy */
    PyObject *copyreg_dispatch;  /* copyreg.dispatch_table */
    PyObject *builtins_module;
    PyObject *getattr;           /* builtins.getattr */
    PyObject *import_;           /* builtins.__import__ */
    PyObject *sys_modules;       /* sys.modules (borrowed from sys, held) */
    PyObject *abcmeta;           /* abc.ABCMeta */
    PyObject *abc_get_dump;      /* _abc._get_dump */
    PyObject *str_dot;           /* "." */
    PyObject *str_locals;        /* "<locals>" */

    /* Our module-level objects referenced by pickles (doc/FORMAT.md). */
    PyObject *function_new;
    PyObject *function_fill;
    PyObject *function_make;
    PyObject *code_unmarshal;
    PyObject *code_new;
    PyObject *make_cell;
    PyObject *make_empty_cell;
    PyObject *empty_cell_value;
    PyObject *subimport;
    PyObject *code_portable;   /* _code_portable */
    PyObject *portable_helper; /* portable_source.py, made at first use */
    PyObject *module_new;  /* _module_new, _module_fill */
    PyObject *module_fill;
    PyObject *dynamic_subimport;
    PyObject *builtin_type;
    PyObject *make_skeleton_class;
    PyObject *make_skeleton_enum;
    PyObject *class_setstate;
    PyObject *make_typevar;
    PyObject *make_typeparam;
    PyObject *make_newtype;
    PyObject *make_dict_keys;
    PyObject *make_dict_values;
    PyObject *make_dict_items;
    PyObject *file_reconstructor;
    PyObject *dataclass_sentinel;
    PyObject *singledispatch_new; /* functools.c */
    PyObject *singledispatch_fill;
    PyObject *lru_cache_new;
    PyObject *reduce_builtin;    /* _reduce: our reducers for dispatch tables */
    /* primitives.c's reconstructors. */
    PyObject *make_lock;
    PyObject *make_event;
    PyObject *make_condition;
    PyObject *make_semaphore;
    PyObject *make_contextvar;
    PyObject *make_struct;
    PyObject *make_weakdict;
    /* cloudpickle's function reconstructors (compat.c), for loading and for
     * writing the cloudpickle format. */
    PyObject *cp_make_function;
    PyObject *cp_function_setstate;
    PyObject *compat_import;     /* __import__ for compat pickles */
    PyObject *shim;              /* stands for cloudpickle.cloudpickle */

    /* The by-value registry: set of module names. */
    PyObject *by_value;

    /* Class tracker (tracker.c): id -> weakref(class), id(class) -> entry. */
    PyObject *tracker_by_id;
    PyObject *tracker_by_class;

    /* Stock cloudpickle in this process (stock.c). */
    PyObject *stock_name;        /* "cloudpickle.cloudpickle" */
    PyObject *stock_module;      /* its module we share with, or NULL */
    PyObject *stock_seen;        /* sys.modules' entry at the last look */
    PyObject *stock_by_class;    /* its tracker dict we pushed to */
    PyObject *stock_pending;     /* [weakref(class)] for its tracker */

    /* classkw.c: {id(class): weakref(class)} of skeletons waiting for
     * their namespace; [(weakref(class), class keywords)] waiting to be
     * replayed. NULL until needed. */
    PyObject *skeletons_pending;
    PyObject *init_subclass_deferred;

    /* Lazily built helpers. */
    PyObject *types_names;       /* {type: name} of the `types` module */
    PyObject *default_table;     /* Pickler.dispatch_table: ChainMap */
    PyObject *extrefs;           /* {"module.name": cpk_ref} */
    PyObject *singletons;        /* {class: global name of its instance} */
    PyObject *abc_types;         /* abc.abstractproperty & co (table keys) */
    PyObject *lazy_types[CPK_LAZY_COUNT];
    PyObject *lazy_modules[CPK_LAZY_COUNT]; /* their modules' names */
    PyObject *lazy_sources[CPK_LAZY_COUNT]; /* module objects they came from */
    PyObject *lazy_retired;      /* classes of modules imported anew */
    uint64_t lazy_stamp;         /* sys.modules' version at the last look */
    PyObject *name_copies;       /* {copy: copy} of names (names.c) */
    Py_ssize_t name_sweep_at;    /* its size that triggers a sweep */
    PyObject *textio_type;       /* _io.TextIOWrapper */
    PyObject *stringio_type;     /* _io.StringIO */
    PyObject *gc_get_threshold;  /* gc.get_threshold (unpickler.c) */
    PyObject *gc_set_threshold;  /* gc.set_threshold */
    int gc_pause_depth;          /* loads running with the GC paused */
    long gc_saved_threshold;     /* threshold0 before the outermost one */

    /* Per-code-object cache slots (PEP 523 co_extra): global names, and
     * the native reduce tuple. */
    Py_ssize_t code_extra_index;
    Py_ssize_t code_reduce_index;
    Py_ssize_t code_portable_index; /* portable.c's reduce, per code */
    PyObject *version_str;       /* "3.11" */
    PyObject *str_ASCII;         /* loads' default encoding */
    PyObject *str_strict;
    PyObject *kwnames_compat;    /* ("compat",) */
    PyObject *kwnames_unpickler; /* ("fix_imports", ..., "buffers") */
    PyObject *magic_int;         /* bytecode magic number */
    /* This version's format marker, then POP (format.h): what a pickle
     * of the current format opens with, as GLOBAL (protocols 0 to 3) and
     * as STACK_GLOBAL (4 and 5, which loads() takes on its fast path). */
    char format_op[80];
    Py_ssize_t format_op_len;
    char format_op4[80];
    Py_ssize_t format_op4_len;

    /* Exact-type dispatch table. */
    cpk_type_slot table[CPK_TYPE_TABLE_SIZE];

    /* Interned names. */
#define CPK_DECLARE_NAME(n) PyObject *str_##n;
    CPK_NAMES(CPK_DECLARE_NAME)
#undef CPK_DECLARE_NAME
} cpk_state;

/* Every PyObject * field of cpk_state above (not the interned names, not
 * lazy_types): module_traverse and module_clear walk this list, so a new
 * field goes here too. */
#define CPK_STATE_OBJECTS(X)                                                 \
    X(pickler_type) X(unpickler_type) X(sink_type) X(reader_type)            \
    X(sentinel_type) X(ref_type) X(tracker_cb_type) X(table_descr_type)      \
    X(base_pickler) X(base_unpickler) X(base_dump) X(base_find_class)        \
    X(base_clear_memo) X(base_dumps) X(spare_pickler) X(spare_sink)          \
    X(code_cache)                                                            \
    X(base_load) X(base_loads) X(PicklingError) X(UnpicklingError) X(copyreg_dispatch)     \
    X(ReconstructorTypeError) X(ReconstructorValueError)                     \
    X(PolicyError) X(SignatureError) X(FormatError) X(load_policy)                          \
    X(builtins_module) X(getattr) X(import_) X(sys_modules) X(abcmeta)       \
    X(abc_get_dump) X(str_dot) X(str_locals) X(function_new)                 \
    X(function_fill) X(function_make) X(code_unmarshal) X(code_new)         \
    X(make_cell)                                                             \
    X(make_empty_cell) X(empty_cell_value) X(subimport) X(dynamic_subimport) \
    X(module_new) X(module_fill) X(code_portable) X(portable_helper)         \
    X(builtin_type) X(make_skeleton_class) X(make_skeleton_enum)             \
    X(class_setstate) X(make_typevar) X(make_typeparam) X(make_newtype)     \
    X(make_dict_keys) X(make_dict_values)  \
    X(make_lock) X(make_event) X(make_condition) X(make_semaphore)           \
    X(make_contextvar) X(make_struct) X(make_weakdict)                       \
    X(make_dict_items) X(file_reconstructor) X(dataclass_sentinel)           \
    X(singledispatch_new) X(singledispatch_fill) X(lru_cache_new)           \
    X(reduce_builtin) X(cp_make_function) X(cp_function_setstate)            \
    X(compat_import) X(shim) X(by_value) X(tracker_by_id)                    \
    X(tracker_by_class) X(types_names) X(default_table) X(extrefs)           \
    X(singletons) X(abc_types) X(name_copies) X(textio_type)                 \
    X(stringio_type) X(gc_get_threshold) X(gc_set_threshold)                 \
    X(version_str) X(magic_int) X(str_ASCII) X(str_strict)                  \
    X(kwnames_compat) X(kwnames_unpickler) X(lazy_retired)                  \
    X(stock_name) X(stock_module) X(stock_seen) X(stock_by_class)          \
    X(stock_pending) X(skeletons_pending) X(init_subclass_deferred)

/* What our Pickler adds after CPython's PicklerObject. Its offset is known
 * only at run time (the base's size differs between CPython versions). */
typedef struct {
    PyObject *dict;          /* instance __dict__ */
    PyObject *module;        /* owner of the state (strong) */
    struct cpk_state *st;    /* the module's state, cached for the hot path */
    PyObject *globals_ref;   /* {id(func.__globals__): base globals dict} */
    PyObject *globals_alive; /* keeps the keys of globals_ref from reuse */
    PyObject *last_globals;  /* last hit in globals_ref (strong) ... */
    PyObject *last_base;     /* ... and its base dict (strong) */
    PyObject *last_fglobals; /* the last function's globals subset */
    PyObject *last_split;    /* (subset, without its modules, the modules
                              * as name pairs): function.c's split_modules */
    PyObject *table_view;    /* this instance's dispatch_table when none was
                              * set: ChainMap(table_overlay, *default) */
    PyObject *table_overlay; /* its first map: the user's entries */
    int globals_ref_shared;  /* globals_ref was handed out: the one-entry
                              * cache above may be stale, look it up */
    int globals_pending;     /* last_globals has no entry in globals_ref
                              * yet (cpk_pickler_globals_ref makes it) */
    int memo_used;           /* the memo may hold entries (0: known empty,
                              * so a failed dump can be undone exactly) */
    int proto;
    int format;              /* cpk_format */
    int fmt;                 /* the format number written (format.h) */
    int in_init;             /* set while CPython's __init__ runs */
    int diagnose_off;        /* dumps(diagnose=False): no culprit search */
    int portable;            /* portable=True: code carries its source */
    int buffer_callback;     /* has one: a dump cannot be run twice (the
                              * callback would see each buffer again) */
    int user_hooks;          /* this dump: -1 not yet known, 1 if a
                              * reducer_override, persistent_id or
                              * dispatch_table of the user's may write what
                              * function.c takes for leaves */
    int in_dump;             /* our dump() is running (gcpause.c) ... */
    int gc_paused;           /* ... and has paused automatic collection */
    Py_ssize_t reduced;      /* reducer_override calls in this dump */
    PyObject *sink;          /* what CPython's Pickler writes to: always
                              * one of our sinks (memio.c), so a failed
                              * dump knows whether anything was written */
} cpk_pickler_ext;

struct cpk_policy_names;
typedef struct {
    PyObject *dict;
    PyObject *module;
    /* loads(allow=/deny=): the find_class lookups the static check
     * permitted (policy.h), owned; NULL: no policy */
    struct cpk_policy_names *policy_names;
} cpk_unpickler_ext;

extern PyModuleDef cpk_module_def;

static inline cpk_state *
cpk_get_state(PyObject *module)
{
    return (cpk_state *)PyModule_GetState(module);
}

/* Exact-type table: state.c adds, pickler.c and reducers.c look up. */
void cpk_table_add(cpk_state *st, PyTypeObject *type, int kind);
static inline int
cpk_table_lookup(const cpk_state *st, PyTypeObject *type)
{
    size_t i = ((uintptr_t)type >> 4) & (CPK_TYPE_TABLE_SIZE - 1);
    for (;;) {
        const cpk_type_slot *s = &st->table[i];
        if (s->type == type)
            return s->kind;
        if (s->type == NULL)
            return CPK_KIND_NONE;
        i = (i + 1) & (CPK_TYPE_TABLE_SIZE - 1);
    }
}

/* getattr(import module, name), new reference. */
PyObject *cpk_import_attr(const char *module, const char *name);

/* Helpers. */
/* Build a reduce tuple with a state setter (6 items); steals nothing. New
 * reference. */
static inline PyObject *
cpk_reduce6(PyObject *func, PyObject *args, PyObject *state,
            PyObject *state_setter)
{
    return PyTuple_Pack(6, func, args, state, Py_None, Py_None, state_setter);
}

/* Python version "3.11" of this interpreter (new reference). */
static inline PyObject *
cpk_python_version(void)
{
    return PyUnicode_FromFormat("%d.%d", PY_MAJOR_VERSION, PY_MINOR_VERSION);
}

#endif
