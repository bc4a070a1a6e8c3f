/* internal.h - what the files of src/ share: the module state, the records
 * our Pickler and Unpickler add to CPython's, and the functions one file
 * offers the others. The public interface is ccloudpickle.h.
 */
#ifndef CPK_INTERNAL_H
#define CPK_INTERNAL_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "ccloudpickle.h"
#include "format.h" /* the format numbers, the marker */

#include "pycompat.h" /* every difference between Python versions */
#include "pyerr.h"    /* cpk_error_clearable: the clearable-error rule */

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
extern Py_ssize_t cpk_pickler_ext_offset;
extern Py_ssize_t cpk_unpickler_ext_offset;
extern Py_ssize_t cpk_dispatch_table_offset;
/* A Pickler's dispatch_table slot in CPython's record. */
static inline PyObject **
cpk_pickler_dispatch_slot(PyObject *pickler)
{
    return (PyObject **)((char *)pickler + cpk_dispatch_table_offset);
}
/* CPython's Pickler.persistent_id getter (pickler.c finds it). */
void cpk_pickler_set_persid_getter(getter get, void *closure);

#define CPK_PICKLER_EXT(self) \
    ((cpk_pickler_ext *)((char *)(self) + cpk_pickler_ext_offset))
#define CPK_UNPICKLER_EXT(self) \
    ((cpk_unpickler_ext *)((char *)(self) + cpk_unpickler_ext_offset))

static inline cpk_state *
cpk_get_state(PyObject *module)
{
    return (cpk_state *)PyModule_GetState(module);
}

/* Exact-type table (pickler.c). */
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

/* lazytypes.c: resolve the classes of lazy_specs whose module has been
 * imported (or imported anew) since the last call; cheap when nothing was. */
int cpk_refresh_lazy_types(cpk_state *st);

/* args.c */
int cpk_parse_args(const char *fname, PyObject *const *args, Py_ssize_t nargs,
                   PyObject *kwnames, const char *const *kwlist,
                   int npos_required, int npos_max, ...);
/* Reconstructors check their positional arguments against a signature
 * before reading them: what a parameter must be (OR_NONE: or None). */
enum {
    CPK_ARG_ANY = 0, CPK_ARG_CODE, CPK_ARG_DICT, CPK_ARG_STR, CPK_ARG_INT,
    CPK_ARG_BOOL, CPK_ARG_BYTES, CPK_ARG_TUPLE, CPK_ARG_LIST,
    CPK_ARG_SEQ,       /* list or tuple */
    CPK_ARG_CLASS,     /* an instance of type */
    CPK_ARG_METACLASS, /* a subclass of type */
    CPK_ARG_FUNCTION, CPK_ARG_CELL,
    CPK_ARG_KIND_MASK = 0xff,
    CPK_ARG_OR_NONE = 0x100,
};
#define CPK_MAX_PARAMS 8
typedef struct {
    const char *name;
    int kind;
} cpk_param;
typedef struct {
    const char *fname;
    int nrequired;      /* leading parameters without a default; -1: all */
    cpk_param params[CPK_MAX_PARAMS]; /* up to a {NULL} entry */
} cpk_signature;
/* A reconstructor's signature, <fname>_sig, checked before anything reads
 * an argument; and its method table row (METH_FASTCALL). */
#define SIG(fname, nrequired, ...)                                            \
    static const cpk_signature fname##_sig = {#fname, nrequired, {__VA_ARGS__}}
#define FAST(name, func, doc)                                                \
    {name, (PyCFunction)(void (*)(void))func, METH_FASTCALL, PyDoc_STR(doc)}

/* Create ReconstructorTypeError/ValueError (UnpicklingError and
 * TypeError/ValueError) and add them to the module. 0 or -1. */
int cpk_args_init(PyObject *module, cpk_state *st);
/* Count and kinds of args; 1 if they fit, else 0 with
 * ReconstructorTypeError set ("<fname>() argument 2 (globals) must be dict,
 * not int"). Runs no Python code. */
int cpk_check_args(cpk_state *st, const cpk_signature *sig,
                   PyObject *const *args, Py_ssize_t nargs);
/* One value (`what`: "state['__globals__']"), or every item of a list or
 * tuple; 1 or 0 with ReconstructorTypeError set. Run no Python code. */
int cpk_check_value(cpk_state *st, const char *fname, const char *what,
                    PyObject *obj, int kind);
int cpk_check_items(cpk_state *st, const char *fname, const char *what,
                    PyObject *seq, int kind);
/* Raise ReconstructorTypeError (value 0) or ReconstructorValueError
 * (value 1): "<fname>() <fmt...>". Returns 0. */
int cpk_arg_error(cpk_state *st, int value, const char *fname,
                  const char *fmt, ...);
/* args.c: 1 if a code object's argument counts agree with its locals
 * (what CPython's own check means to ensure but, its sum overflowing int,
 * does not: a function of such code reads past its frame when called)
 * and, on 3.11, its bytecode does not end inside an instruction's inline
 * caches (3.11's co_code writes past its copy for such code); else 0
 * with ReconstructorValueError "<fname>() ...". */
int cpk_code_check(cpk_state *st, const char *fname, PyObject *code);
/* reconstruct.c: refuse to fill what an imported module owns. */
int cpk_namespace_is_imported(cpk_state *st, PyObject *globals);
int cpk_check_fill_target(cpk_state *st, const char *fname, PyObject *func);
/* codewrite.c: a growable byte buffer (`fixed`: data is the caller's own first
 * buffer, copied when it grows, never freed). */
typedef struct {
    char *data;
    size_t len, cap;
    int fixed;
} cpk_membuf;
int cpk_membuf_grow_put(cpk_membuf *b, const char *p, size_t n);
/* Append n bytes: 0, or -1 with MemoryError. */
static inline int
cpk_membuf_put(cpk_membuf *b, const char *p, size_t n)
{
    if (n <= b->cap - b->len) {
        memcpy(b->data + b->len, p, n);
        b->len += n;
        return 0;
    }
    return cpk_membuf_grow_put(b, p, n);
}
int cpk_membuf_put_long(cpk_membuf *b, long v);
void cpk_membuf_release(cpk_membuf *b);
/* codewrite.c: the marshal version code objects travel in (2: no
 * references, so the bytes depend on the code only). */
#define CPK_MARSHAL_VERSION 2
/* codewrite.c: marshal's version 2 bytes of obj, made compact, appended:
 * 1, 0 (refused or unexpected, no error), -1 (error). */
int cpk_marshal_compact_into(PyObject *obj, cpk_membuf *out);
/* codewrite.c: marshal version 2 bytes made compact (new reference; the
 * payload itself if its bytes are not what is expected). Steals it. */
PyObject *cpk_marshal_normalize(PyObject *payload);
/* codewrite.c: the compact marshal bytes of a code object (new reference),
 * or NULL: with an error, or without one where the caller is to marshal
 * it and make it compact itself. */
PyObject *cpk_code_compact(PyObject *code);

/* The largest marshal data whose code _code_unmarshal keeps (code.c), so
 * that every load of it gives the same code object. */
#define CPK_CODE_CACHE_ENTRY (64 * 1024)
/* args.c: the same bytecode check before pickling code (and a
 * function's code): 1, or 0 with PicklingError (or another error) set. */
int cpk_code_check_pickle(cpk_state *st, PyObject *code);

/* subtype.c: subclasses of _pickle's types. */
typedef struct {
    newfunc tp_new;
    initproc tp_init;
    destructor tp_dealloc;
    traverseproc tp_traverse;
    inquiry tp_clear;
    int is_heap;
} cpk_base_slots;
int cpk_base_slots_get(PyTypeObject *base, cpk_base_slots *slots);
/* Where our record starts in an instance of a subclass of `base`. */
Py_ssize_t cpk_ext_offset(PyTypeObject *base);
/* A GC'd, subclassable heap type of `module` deriving from `base`. New
 * reference. */
PyTypeObject *cpk_make_subtype(PyObject *module, PyObject *base,
                               const char *name, Py_ssize_t basicsize,
                               PyType_Slot *slots);

/* pickler.c: the Pickler type. */
int cpk_pickler_init_type(PyObject *module, cpk_state *st);
/* dumps()'s Pickler for default options (protocol 5, no buffer_callback,
 * native format), writing to *sink: the spare one if it is free, else a new
 * one. New references to both, or NULL with an exception set. */
PyObject *cpk_dumps_pickler_take(cpk_state *st, PyObject **sink);
/* Hand both back after a successful dump of `written` bytes (no exception
 * set): kept, reset, as the spare if none is kept yet and it is small;
 * else released. Steals both references. 0, or -1 with an exception that
 * must propagate (MemoryError, KeyboardInterrupt from the reset). */
int cpk_dumps_pickler_give(cpk_state *st, PyObject *pickler, PyObject *sink,
                           Py_ssize_t written);
/* 1 if ccloudpickle.Pickler is unchanged since module exec (no attribute
 * assigned on the class): the spare and the plain-data path are valid. */
int cpk_pickler_type_pristine(cpk_state *st);

/* memio.c: in-memory files. */
int cpk_memio_init_types(PyObject *module, cpk_state *st);
PyObject *cpk_sink_new(cpk_state *st);                 /* new reference */
PyObject *cpk_sink_getvalue(PyObject *sink);           /* new reference */
void cpk_sink_reset(PyObject *sink);                   /* empty again */
/* A sink in front of a user's file (whose write it calls on), so a
 * Pickler knows whether anything reached the file, and can hold a whole
 * dump back until it succeeded (pickler.c's deep retry). */
PyObject *cpk_sink_wrap(cpk_state *st, PyObject *file); /* new reference */
int cpk_sink_is(cpk_state *st, PyObject *op);
int cpk_sink_passes(PyObject *sink);
Py_ssize_t cpk_sink_written(PyObject *sink);
void cpk_sink_hold(PyObject *sink);
int cpk_sink_release(PyObject *sink, int commit);
/* The next pickle opens with prefix[0, len) (static or the module
 * state's bytes) if cpk_sink_need_prefix is called before it is out. */
void cpk_sink_set_prefix(PyObject *sink, const char *prefix, Py_ssize_t len);
void cpk_sink_need_prefix(PyObject *sink);
/* The end of a successful dump to a user's file: what a sink kept while
 * the marker's need was unknown goes on to the file. 0, or -1 with an
 * exception. */
int cpk_sink_end_dump(PyObject *sink);

/* format= of dumps, dump and Pickler: None (the current format) or a
 * format number this version writes, in *out; -1 with ValueError or
 * TypeError otherwise. */
int cpk_format_arg(PyObject *value, int *out);

/* deepstack.c: fn(arg) on a large C stack of this thread, with the
 * recursion budget raised by cpk_deep_headroom() levels for the call.
 * Returns fn's result and sets *ran; *ran == 0 (no exception set) when
 * this platform or the address space allows no such stack. */
typedef PyObject *(*cpk_deep_fn)(void *arg);
PyObject *cpk_deep_call(cpk_deep_fn fn, void *arg, int *ran);
int cpk_deep_headroom(void);
PyObject *cpk_reader_new(cpk_state *st, PyObject *data); /* new reference */
Py_ssize_t cpk_reader_remaining(PyObject *reader);

/* gcpause.c: automatic collection paused during large loads and dumps. */
/* Vectorcall of a load of `size` bytes (-1: unknown) with automatic
 * collection paused if the load is large (restored even on error). */
PyObject *cpk_call_paused(cpk_state *st, Py_ssize_t size, PyObject *callable,
                          PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames);
/* Begin a pause (nested pauses count): 0, or -1 with an exception. */
int cpk_gc_pause(cpk_state *st);
/* End one, keeping a pending exception; -1 (an exception set, when none
 * was pending) if the threshold could not be restored. */
int cpk_gc_resume(cpk_state *st);
/* Module exec: end a pause inherited by a forked child, in the child. */
int cpk_gc_register_at_fork(PyObject *module);

/* unpickler.c */
int cpk_unpickler_init_type(PyObject *module, cpk_state *st);
/* unpickler.load(), the same way. New reference. */
PyObject *cpk_load_with(cpk_state *st, PyObject *unpickler, Py_ssize_t size);

/* loadpolicy.c: loads/load with allow= or deny= (either not NULL): scan
 * the pickle, refuse it if the policy refuses an import, else load it
 * with an Unpickler whose find_class enforces the same rules. Same
 * arguments as loads/load otherwise; `exact` as _loads_exact. New
 * reference. */
PyObject *cpk_loads_policed(cpk_state *st, PyObject *data, PyObject *allow,
                            PyObject *deny, PyObject *fix_imports,
                            PyObject *encoding, PyObject *errors,
                            PyObject *buffers, int exact);
PyObject *cpk_load_policed(cpk_state *st, PyObject *file, PyObject *allow,
                           PyObject *deny, PyObject *fix_imports,
                           PyObject *encoding, PyObject *errors,
                           PyObject *buffers);
/* Create and export PolicyError and SignatureError (subclasses of
 * pickle.UnpicklingError): the module's own refusals. 0 or -1. */
int cpk_loadpolicy_init(PyObject *module, cpk_state *st);

/* lookup.c: by reference or by value. */
int cpk_is_registered_by_value(cpk_state *st, PyObject *module_name);
/* For a function or class: 1 picklable by reference, 0 by value, -1
 * error. */
int cpk_should_pickle_by_reference(cpk_state *st, PyObject *obj);
int cpk_pickler_overridden(cpk_state *st, PyObject *pickler,
                           const char *name);
int cpk_pickler_user_hooks(PyObject *pickler);
/* Modules: 1 written by reference (importable by name), 0 by value (or
 * nameless), -1 error; by the name read once with cpk_module_name (new
 * reference, an exact str even for a str subclass, or NULL with a
 * PicklingError when missing or not a str). */
int cpk_module_by_reference(cpk_state *st, PyObject *module);
int cpk_module_name_by_reference(cpk_state *st, PyObject *name);
PyObject *cpk_module_name(cpk_state *st, PyObject *module);
/* The same, falling back to getattr where the namespace has no name (the
 * module objects are found in, as stock cloudpickle names it). */
PyObject *cpk_module_found_name(cpk_state *st, PyObject *module);
/* Module name and qualname where obj can be found; 0 if not found. */
int cpk_lookup_module_and_qualname(cpk_state *st, PyObject *obj,
                                   PyObject *name, PyObject **module,
                                   PyObject **qualname);
PyObject *cpk_register_by_value(PyObject *m, PyObject *module);
PyObject *cpk_unregister_by_value(PyObject *m, PyObject *module);
PyObject *cpk_list_registry(PyObject *m, PyObject *unused);

/* codeinfo.c: global names a code object (and its nested code) uses. */
int cpk_codeinfo_init(cpk_state *st);
/* New reference to (global_names tuple, all_names tuple, both in the
 * order the bytecode walk meets them), cached on
 * the code object; NULL with PicklingError for corrupt code (as
 * cpk_code_check_pickle), or another error. */
PyObject *cpk_codeinfo_get(cpk_state *st, PyObject *code);
/* The object cached on `code` in co_extra slot `index` (new reference), or
 * NULL (with an exception only on error). */
PyObject *cpk_code_cache_get(PyObject *code, Py_ssize_t index);
int cpk_code_cache_set(PyObject *code, Py_ssize_t index, PyObject *value);

/* code.c */
PyObject *cpk_reduce_code(cpk_state *st, PyObject *code, int format);
PyObject *cpk_code_unmarshal(PyObject *m, PyObject *const *args,
                             Py_ssize_t nargs);
PyObject *cpk_code_new(PyObject *m, PyObject *const *args, Py_ssize_t nargs);

/* function.c */
/* Make ext->globals_ref and globals_alive if not yet made. */
int cpk_pickler_globals_ref(cpk_pickler_ext *ext);
PyObject *cpk_reduce_function(cpk_state *st, PyObject *pickler,
                              PyObject *func);
PyObject *cpk_find_submodules(cpk_state *st, PyObject *all_names,
                              PyObject *fglobals, PyObject *closure);

/* functools.c: singledispatch functions and lru_cache wrappers by value.
 * The singledispatch reducer returns NotImplemented (new reference) for
 * any other function. */
PyObject *cpk_reduce_singledispatch(cpk_state *st, PyObject *pickler,
                                    PyObject *func);
PyObject *cpk_reduce_lru_cache(cpk_state *st, int format, PyObject *obj);
PyObject *cpk_reduce_sdmethod(cpk_state *st, int format, PyObject *obj);
extern PyMethodDef cpk_functools_methods[];

/* exceptions.c: exceptions with __cause__, __context__, notes. */
PyObject *cpk_reduce_exception(cpk_state *st, int format, PyObject *exc);

/* class.c */
PyObject *cpk_reduce_class(cpk_state *st, PyObject *pickler, PyObject *cls);

/* typeforms.c: TypeVar, ParamSpec, TypeVarTuple, NewType by value; the
 * load side (typeforms_load.c) adds cpk_typeform_methods. */
PyObject *cpk_reduce_typevar(cpk_state *st, int format, PyObject *tv);
PyObject *cpk_reduce_typeparam(cpk_state *st, int format, PyObject *obj,
                               int paramspec);
PyObject *cpk_reduce_newtype(cpk_state *st, int format, PyObject *nt);
extern PyMethodDef cpk_typeform_methods[];

/* classkw.c: class keywords, recorded and replayed. */
/* `extra` for _make_skeleton_class: {"class_kwargs": {...}} when `cls`
 * was made with keywords that can be found, else None. New reference. */
PyObject *cpk_class_extra(cpk_state *st, PyTypeObject *cls);
/* Check _make_skeleton_class's `extra`; *class_kwargs (borrowed from it)
 * the keywords, NULL when none. 1, or 0 with the error set. */
int cpk_class_kwargs_arg(cpk_state *st, PyObject *extra,
                         PyObject **class_kwargs);
/* Is a class of the metaclass's or these bases' MROs a skeleton waiting
 * for its namespace? 1, 0 or -1. */
int cpk_class_bases_pending(cpk_state *st, PyObject *meta, PyObject *bases);
/* A skeleton was made (waiting for its namespace); `deferred`: keywords
 * whose __init_subclass__ call waits for its MRO to be complete, or NULL.
 * 0 or -1. */
int cpk_class_skeleton_made(cpk_state *st, PyObject *cls, PyObject *deferred);
/* _class_setstate gave `cls` its namespace: run the deferred
 * __init_subclass__ calls now possible. 0 or -1. */
int cpk_class_namespace_set(cpk_state *st, PyObject *cls);

/* tracker.c: class identity across pickles. */
int cpk_tracker_init(PyObject *module, cpk_state *st);
/* The class tracked under `id` (new reference), or NULL (an error set
 * only on failure). */
PyObject *cpk_tracker_lookup(cpk_state *st, PyObject *id);
PyObject *cpk_tracker_get_or_create_id(cpk_state *st, PyObject *cls);
/* The class already tracked under `id`, else `cls`, now tracked as
 * reconstructed. New reference. */
PyObject *cpk_tracker_lookup_or_track(cpk_state *st, PyObject *id,
                                      PyObject *cls, int *found);
/* 1 if cls was tracked while pickling (defined here), not rebuilt. */
int cpk_tracker_is_original(cpk_state *st, PyObject *cls);

/* reducers.c: the small types. */
PyObject *cpk_reduce_kind(cpk_state *st, PyObject *pickler, int kind,
                          PyObject *obj);
PyObject *cpk_reduce_module(cpk_state *st, PyObject *pickler, int format,
                            PyObject *mod);
/* Every error of a code object this CPython cannot run (code.c's
 * check_version, portable.c's _code_portable) starts with these words:
 * versionerror.c looks for them. */
#define CPK_VERSION_ERROR_PREFIX "this pickle holds code "
/* versionerror.c: when the pending exception is such an error (exactly
 * UnpicklingError), or another Exception (not MemoryError, not another
 * UnpicklingError) that a load of another Python's objects raised before
 * reaching their code, and the pickle `data` (bytes-like, the whole input
 * of the failed load) holds functions this Python cannot run, replace it
 * with an UnpicklingError naming both versions and every such function
 * (at most 20, "and N more"), caused by the original. When every
 * function can run here (portable) but some were compiled by a newer
 * Python, and the exception is what this Python's classes lacking that
 * Python's state raise (no Python frame; not an ImportError nor
 * find_class's AttributeError), replace it with the version error
 * naming both versions and the original, its cause. Otherwise, or if
 * that fails, the pending exception is left as it is. Scans `data`
 * (static, never runs anything): call it on the error path only. */
void cpk_version_error_explain(cpk_state *st, PyObject *data);
/* 1 if the pending exception is such an error. */
int cpk_version_error_pending(cpk_state *st);
/* module.c's fast loads finds our names as pickle.loads does (import,
 * getattr): when the pending exception is an AttributeError and `data`
 * names one of ours that `module` lacks, replace it with the one our
 * find_class gives (cpk_missing_own_name), caused by the original. Scans
 * `data`: error path only. */
void cpk_missing_name_explain(PyObject *module, PyObject *data);
/* unpickler.c: AttributeError "this pickle needs ccloudpickle.<name>,
 * which ccloudpickle <version> does not have (written by a newer
 * version?)", whose first words versionerror.c looks for. */
#define CPK_MISSING_OWN_NAME_PREFIX "this pickle needs " CPK_MODULE_NAME "."
void cpk_missing_own_name(PyObject *name);
/* The same for load(file), on the error path only: the pickle is found
 * by reading the file again from its start (seek, read), and the file
 * put back where the failed load left it. */
void cpk_version_error_explain_file(cpk_state *st, PyObject *file);
/* module.c: getattr(import module, name), new reference. */
PyObject *cpk_import_attr(const char *module, const char *name);
/* portable.c: a code object's reduce with its source (portable=True). */
PyObject *cpk_reduce_code_portable(cpk_state *st, PyObject *code);
extern PyMethodDef cpk_portable_methods[];
/* function.c: the dict a by-value function whose __globals__ is `globals`
 * gets as its globals after loading, one per distinct globals in the
 * Pickler's lifetime (new reference). */
PyObject *cpk_function_base_globals(cpk_state *st, cpk_pickler_ext *ext,
                                    PyObject *globals);
extern PyMethodDef cpk_reducer_methods[];
PyObject *cpk_reduce_cell(cpk_state *st, PyObject *cell, int format);

/* primitives.c: locks, events, conditions, semaphores, ContextVar,
 * struct.Struct and weak dicts, rebuilt new on load. */
PyObject *cpk_reduce_primitive(cpk_state *st, int format, int kind,
                               PyObject *obj);
/* Add its reconstructors to the module and fetch them into st. */
int cpk_primitives_init(PyObject *module, cpk_state *st);

/* reconstruct.c: functions referenced by pickles. */
extern PyMethodDef cpk_reconstruct_methods[];
int cpk_reconstruct_init_types(PyObject *module, cpk_state *st);

/* compat.c: stock cloudpickle's names. */
extern PyMethodDef cpk_compat_methods[];
int cpk_compat_init(PyObject *module, cpk_state *st);
/* The format compat= asks for (None: native), or -1 with ValueError
 * naming the accepted values. */
int cpk_compat_format(PyObject *compat);
/* "cloudpickle 3.0-3.1" etc.: the loaders a stock format is for. */
const char *cpk_compat_target(int format);
/* Object to use for the reconstructor `name` of the given format (borrowed);
 * `cp_module` is where cloudpickle 2.x defines it (3.x finds all of them
 * there too). */
PyObject *cpk_callable(cpk_state *st, int format, PyObject *native,
                       const char *cp_module, const char *cp_name);
/* Our object for cloudpickle's `module`.`name`, or NULL without an error if
 * we do not map that name. Borrowed reference. */
PyObject *cpk_compat_find(cpk_state *st, PyObject *module, PyObject *name);
PyObject *cpk_reduce_extref(cpk_state *st, PyObject *ref);

/* stock.c: stock cloudpickle's module `cloudpickle.cloudpickle`, where
 * imported, shares our by-value registry and class tracker. */
/* Put the meta path watcher in place; share with stock if imported. */
int cpk_stock_init(PyObject *module, cpk_state *st);
/* Share with the stock module now in sys.modules if not done. 0 or -1. */
int cpk_stock_refresh(cpk_state *st);
/* The tracker id for `cls`, decided under stock's tracker lock: the one
 * stock holds, else `tid`, given to stock too. New reference (`tid` where
 * stock is absent), NULL on error. */
PyObject *cpk_stock_claim_id(cpk_state *st, PyObject *cls, PyObject *tid);
/* The class for tracker id `tid`, decided under stock's tracker lock: the
 * one stock holds, else `cls`, given to stock too. New reference. */
PyObject *cpk_stock_claim_class(cpk_state *st, PyObject *tid, PyObject *cls);
extern PyMethodDef cpk_stock_methods[];

/* signing.c: signed pickles (envelope.h) for dumps/dump/loads/load. */
/* 0 if `key` is a bytes-like object of at least 32 bytes; else -1 with
 * TypeError or ValueError naming `argname`. */
int cpk_signing_check_key(PyObject *key, const char *argname);
/* The envelope (bytes, new reference) of the bytes `pickle` written with
 * protocol `proto`, signed with `key`, stamped with this interpreter's
 * version and bytecode magic. */
PyObject *cpk_signing_seal(cpk_state *st, PyObject *pickle, int proto,
                           PyObject *key);
/* 1 if the bytes-like `data` starts with the envelope magic, 0 if not (or
 * not a buffer), -1 on a non-clearable error. */
int cpk_signing_is_signed(PyObject *data);
/* Verify the envelope `data` with `key` (None: UnpicklingError "signed
 * pickle: pass verify_key"); `buffers` must be None. The pickle inside as
 * bytes (new reference), or NULL with UnpicklingError (unsigned, altered,
 * truncated, other key, other CPython), TypeError/ValueError (bad key). No
 * opcode has run. */
PyObject *cpk_signing_open(cpk_state *st, PyObject *data, PyObject *key,
                           PyObject *buffers);
/* The same for exactly one envelope read from `file` (its read(n), sized
 * by the header's lengths; nothing after the MAC is read). */
PyObject *cpk_signing_read(cpk_state *st, PyObject *file, PyObject *key,
                           PyObject *buffers);
/* After a failed load without verify_key: turn _pickle's "invalid load
 * key, '\xcf'." (the magic's first byte) into a hint at verify_key. */
void cpk_signing_hint_unsigned_load(cpk_state *st);

/* diagnose.c: _find_unpicklable, and the culprit of a failed dump. */
extern PyMethodDef cpk_diagnose_methods[];
/* After pickler's dump of obj failed (its exception set): unless the
 * Pickler says no (diagnose_off, its `diagnose` attribute, an override of
 * reducer_override or persistent_id) or the exception is not one `except
 * Exception` catches, search for the culprit (re-pickling parts of obj, so
 * user reducers run again) and add "when pickling <root><path> (<type>)"
 * to the same exception: a note on 3.11+, else its message when its args
 * are one str. A search that fails leaves the exception as it was; a
 * KeyboardInterrupt, SystemExit or MemoryError raised by the search
 * replaces it, with the original as its __context__. */
void cpk_diagnose_failure(PyObject *pickler, PyObject *obj);

/* glue.c: install_alias, install_multiprocessing, wrap (forwarded to the
 * companion Python modules of python/, imported on first call). */
extern PyMethodDef cpk_glue_methods[];

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

/* names.c: the private copy of the str `name` that every pickle uses for
 * it (new reference; other objects are returned as they are). */
PyObject *cpk_name(cpk_state *st, PyObject *name);

#endif
