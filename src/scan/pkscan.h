/* pkscan.h - static inspection of a pickle: what it imports, which
 * functions and classes it carries by value, and whether it is well formed,
 * found WITHOUT executing or importing anything.
 *
 * Pure C11, no Python.h, no global mutable state (thread-safe: scans may
 * run in parallel). The unpickler model lives in src/scan/pkscan.c, the bounded
 * marshal reader it uses for code objects in src/scan/marshal_scan.c
 * (src/scan/marshal_scan.h). The CLI (`cloudpickle-load FILE`) prints the report,
 * `cloudpickle-dump --report` the parts carried by value and their bytes
 * (PKSCAN_SPANS); tests/unit/test_scan.c, tests/unit/test_coverage_spans.c and
 * tests/fuzz/fuzz_pkscan.c exercise it.
 *
 * The walker models CPython's C unpickler (Modules/_pickle.c, load()):
 * its object stack, its mark stack (with the "fence" that makes items
 * below the innermost MARK unreachable), its memo and FRAME handling, for
 * every opcode of protocols 0 to 5. It fails where `pickle.loads(data)`
 * would fail before running any callable: truncated input, unknown opcode,
 * stack underflow, missing MARK, GET of a memo index never PUT, a negative
 * or over-long length, invalid UTF-8 in a BINUNICODE, an odd number of
 * SETITEMS items, STACK_GLOBAL on a non-str, NEWOBJ on a non-type, APPENDS
 * to a known non-list, BUILD with a non-dict state on plain data, ... and
 * does NOT fail on what CPython only finds out by calling something (a
 * REDUCE whose callable is not callable, an import that does not exist, an
 * EXT code not in the registry). PERSID/BINPERSID are refused as
 * unsupported (plain loads have no persistent_load). Data after STOP, which
 * pickle.loads silently ignores, is its own error kind. The loader modelled
 * is pickle.loads with its defaults in a process with the default
 * int_max_str_digits: an INT or LONG (protocol 0 text) of more than 4300
 * decimal digits is refused (PKSCAN_ERR_VALUE) as int() refuses it. A
 * process that raised or disabled the limit (sys.set_int_max_str_digits,
 * PYTHONINTMAXSTRDIGITS, -X int_max_str_digits) loads such a pickle that
 * the scan refuses: the scan fails closed (and under the default limit,
 * pickling such an int at protocol 0 fails too). The encoding is "ASCII" (a protocol 0-2 byte
 * string that is not ASCII is refused, as CPython refuses it), fix_imports
 * (see PKSCAN_NO_FIX_IMPORTS). NEXT_BUFFER is accepted and counted in
 * `n_buffers`: a load needs that many out-of-band buffers (buffers=), and
 * plain loads without them fails.
 *
 * Two deliberate differences. Frames are enforced as pickle's Python
 * implementation does (an opcode or argument that starts inside a FRAME
 * must end inside it; no FRAME before the current one is used up:
 * PKSCAN_ERR_LENGTH): CPython's C unpickler ignores frames when it loads
 * bytes but reads such a pickle differently from a file, so it has no
 * single meaning. And a memo index larger than the input size is
 * refused (PKSCAN_ERR_MEMO). A pickler numbers memo entries from 0, one
 * opcode each, so no real pickle needs one; CPython would size its memo
 * array by it (a 9-byte pickle naming index 2^28 costs gigabytes).
 *
 * Costs: time linear in the input (the analysis is charged against a work
 * budget proportional to the input, so sharing one big dict among many
 * functions, or a chain of getattr building ever longer names, cannot make
 * it quadratic; import names have a budget of their own); memory O(input)
 * at worst: a 40-byte node per value kept, 8 bytes per container item
 * kept, 4 per stack slot, MARK and memo index (the memo array is at most
 * the input size), 16 per node while the nesting depth is computed after
 * the walk and 12 per node during the analysis; arrays grow by half.
 * Plain scalars (None, bool, ints and floats of the binary opcodes,
 * bytes and bytearrays of the binary opcodes, strs of the binary UTF-8
 * opcodes) get no node while they sit on the stack or in the memo (but
 * bytearrays: those get their node when memoised), and none at all when
 * they become items of a plain list, set or frozenset (not a str), or
 * pairs of a plain dict keyed by one that is not a str (whose value is a
 * scalar or a str): those containers count such items instead of keeping
 * them, which no analysis reads (dict lookups and listed keys are str
 * keys). A pickle that imports nothing skips the analysis and its
 * per-node arrays. So a pickle of data costs its memo (4 bytes an
 * index), its stack, and what a decision reads, not one node per value:
 * a dict of 20 million ints and 2 million memoised strings, 120 MB,
 * takes under 10 MB. Tuples and instances are kept (call arguments and
 * what they make): a list of 2 million (int, str) tuples costs about
 * what pickle.load's objects do, a million datetime.dates 1.4 times. What
 * stays unbounded is what the model keeps: 40 to 100 bytes per one-byte
 * opcode at worst (a pickle of EMPTY_LISTs, of tuples, of memoised
 * values), so a hostile gigabyte would need tens of gigabytes:
 * scan untrusted input with pkscan_scan_limited. No recursion on input-controlled depth
 * (a tuple nested a million deep is fine). The report's lists are capped
 * (PKSCAN_MAX_ITEMS per list, and the budget; see `truncated`).
 *
 * Usage:
 *
 *     pkscan_report *r = pkscan_scan(buf, len, 0);
 *     if (r == NULL) -> out of memory
 *     if (r->status != PKSCAN_OK)
 *         fprintf(stderr, "%s at byte %zu\n", r->error, r->error_offset);
 *     for (size_t i = 0; i < r->n_imports; i++) ... r->imports[i] ...
 *     pkscan_free(r);
 *
 * The report never points into `buf`: every string is a NUL-terminated
 * copy owned by the report (it may still hold embedded NUL bytes: use
 * `len`, and escape non-printable bytes when printing). */
#ifndef CPK_SCAN_PKSCAN_H
#define CPK_SCAN_PKSCAN_H

#include <stddef.h>
#include <stdint.h>

/* Outcome of a scan. Everything but PKSCAN_OK means `cloudpickle-load`
 * must refuse the file (exit 3). */
typedef enum {
    PKSCAN_OK = 0,
    PKSCAN_ERR_TRUNCATED,   /* input ends inside an opcode, or before STOP;
                               also an empty input (CPython: EOFError) */
    PKSCAN_ERR_OPCODE,      /* a byte that is not an opcode */
    PKSCAN_ERR_UNDERFLOW,   /* pop from an empty stack (or across a MARK) */
    PKSCAN_ERR_MARK,        /* a MARK-consuming opcode without a MARK */
    PKSCAN_ERR_MEMO,        /* GET of an index never PUT; bad PUT index */
    PKSCAN_ERR_TYPE,        /* an operand of a type CPython refuses without
                               calling anything (STACK_GLOBAL on non-str,
                               NEWOBJ class not a type, odd SETITEMS, ...) */
    PKSCAN_ERR_VALUE,       /* a malformed argument: unquoted STRING, bad
                               escape, invalid UTF-8, bad INT text, EXT 0 */
    PKSCAN_ERR_LENGTH,      /* a negative or over-long length or FRAME;
                               an opcode crossing the end of its FRAME */
    PKSCAN_ERR_PROTOCOL,    /* PROTO above 5 */
    PKSCAN_ERR_UNSUPPORTED, /* PERSID / BINPERSID: persistent ids */
    PKSCAN_ERR_TRAILING,    /* bytes after STOP (error_offset: the first) */
    PKSCAN_ERR_NOMEM,       /* allocation failed mid-scan */
    PKSCAN_ERR_LIMIT        /* the scan needs more memory than the cap
                               given to pkscan_scan_limited ("needs more
                               than N MiB of memory to inspect"; the
                               offset: the opcode or 0 in the analysis) */
} pkscan_status;

/* A string owned by the report: `s` is NUL-terminated, `len` excludes
 * the terminator; s may contain NUL bytes. An unknown string has s == NULL
 * and len == 0. */
typedef struct {
    const char *s;
    size_t len;
} pkscan_str;

/* How a name came to be imported. */
typedef enum {
    PKSCAN_VIA_GLOBAL = 0,   /* GLOBAL (protocol 0-3 text opcode) */
    PKSCAN_VIA_STACK_GLOBAL, /* STACK_GLOBAL with two str operands */
    PKSCAN_VIA_INST,         /* INST (protocol 0 instance creation) */
    PKSCAN_VIA_EXT,          /* EXT1/2/4: copyreg extension registry code
                                `ext_code`; module/name unknown statically */
    PKSCAN_VIA_DYNAMIC,      /* STACK_GLOBAL whose operands are computed at
                                load time: name unknown, always dangerous */
    PKSCAN_VIA_GETATTR,      /* getattr(<import>, "name") or
                                getattr(__import__("mod", ...), "name") with
                                constant operands, resolved to mod.name */
    PKSCAN_VIA_BUILTIN_TYPE, /* a reconstructor `_builtin_type("X")`:
                                types.X (never flagged dangerous: what the
                                pickle imports is the reconstructor) */
    PKSCAN_VIA_SUBIMPORT     /* a reconstructor `subimport("mod")`: the
                                module itself (name ""), e.g. a module a
                                function's globals refer to; classified
                                as any import of that module */
} pkscan_via;

/* Who the imported name belongs to. */
typedef enum {
    PKSCAN_CAT_OTHER = 0,    /* anything else: user code referenced by name,
                                third-party or unlisted stdlib objects */
    PKSCAN_CAT_CCLOUDPICKLE, /* a reconstructor of module `ccloudpickle`
                                listed in doc/FORMAT.md */
    PKSCAN_CAT_CLOUDPICKLE,  /* a reconstructor of stock cloudpickle
                                (modules cloudpickle, cloudpickle.cloudpickle,
                                cloudpickle.cloudpickle_fast) */
    PKSCAN_CAT_PLAIN         /* plain data and harmless stdlib types: see
                                "Plain data" below; also getattr/__import__
                                used only for constant lookups */
} pkscan_category;

/* One imported name, listed once (first occurrence) in input order.
 *
 * `module`/`name` are the names find_class receives after protocol < 3's
 * fix_imports mapping (_compat_pickle: __builtin__ -> builtins, ...);
 * `written_module`/`written_name` what the pickle spells, when different
 * (else s == NULL). `name` may be dotted (protocol 4 nested attribute).
 *
 * Dangerous names (`dangerous` = 1, `reason` a short phrase), matched on
 * the module and the first component of the name, and again on every
 * suffix of a dotted name from one of its components on, read as
 * "module.name": a protocol 4 name (or getattr chain) walks attributes,
 * and an attribute may hold another module, so `dataclasses` +
 * `inspect.os.system` is os.system ("runs commands") and `typing` +
 * `sys.modules` is sys.modules. A suffix that is a whole module's name
 * alone (`typing` + `sys`, `dataclasses` + `builtins`: a module object,
 * which BUILD could rewrite) counts where the name would otherwise be
 * plain; elsewhere (`mymod` + `profile`) it is "other" anyway. The
 * table:
 *   whole modules and their submodules: os, posix, nt, subprocess,
 *     _posixsubprocess, pty, multiprocessing, asyncio.subprocess ("runs
 *     commands"); shutil ("opens files"); socket, _socket, webbrowser
 *     ("network access"); ctypes, _ctypes, sys, gc ("interpreter
 *     internals"); importlib, imp, zipimport, pkgutil ("imports modules");
 *     runpy, code, codeop, timeit, pdb, bdb, trace, cProfile, profile
 *     ("evaluates code"); marshal ("builds code objects or functions");
 *     _pickle ("nested unpickling");
 *   builtins (also spelled __builtin__ before protocol 3): eval, exec,
 *     compile, __import__, open, getattr, setattr, delattr, globals,
 *     locals, vars, breakpoint, input, help, exit, quit;
 *   types.FunctionType, types.CodeType, types.LambdaType; io/_io open,
 *     open_code, FileIO; operator/_operator attrgetter, methodcaller;
 *     asyncio create_subprocess_shell/_exec; pickle loads, load, Unpickler,
 *     _loads, _load, _Unpickler; ccloudpickle._import, loads, load,
 *     Unpickler;
 *   any name whose dotted path passes through __globals__, __builtins__,
 *     __subclasses__, __code__, __dict__, __class__, __base__, __bases__,
 *     __mro__, __getattribute__, __import__, __loader__, __spec__,
 *     __self__, __func__, __closure__, __reduce__, __reduce_ex__,
 *     __init_subclass__, f_globals, f_locals, f_builtins, gi_frame,
 *     tb_frame, cr_frame, ag_frame ("attribute path through interpreter
 *     internals");
 *   helpers of otherwise plain modules: typing get_type_hints,
 *     _eval_type, evaluate_forward_ref; dataclasses dataclass,
 *     make_dataclass, _create_fn, _process_class ("evaluates code": they
 *     eval or exec text); uuid getnode, uuid1, _get_command_stdout and
 *     the private *_getnode / _find_mac_* helpers ("runs commands");
 *   every PKSCAN_VIA_DYNAMIC and PKSCAN_VIA_EXT import;
 *   any import whose object the pickle changes in place ("modifies an
 *     imported object"): BUILD, APPEND(S), SETITEM(S) or ADDITEMS applied
 *     to a GLOBAL / STACK_GLOBAL / INST object, to getattr(<import>, ...),
 *     to a module from subimport or __import__, or to what
 *     logging.getLogger returns (math.pi = 3, a shared logger's
 *     `disabled`, for the whole process). No pickler writes that: a
 *     reconstructor (_class_setstate, _function_setstate) does the
 *     setting for what the pickle carries by value.
 * builtins.getattr and builtins.__import__ are NOT dangerous (and count as
 * PKSCAN_CAT_PLAIN) when every use in the pickle is a lookup with constant
 * operands: getattr(<import>, "name") and
 * getattr(__import__("mod", ...), "name"), each resolved into a
 * PKSCAN_VIA_GETATTR import classified on its own (ccloudpickle's
 * compat="cloudpickle" naming, getattr(object, "__new__") in enums), and
 * getattr(<plain data or a class carried by value>, "name") with a name
 * outside the internals listed above (enum members of enums by value,
 * bound methods such as [].append): nothing is imported by those.
 * PKSCAN_VIA_BUILTIN_TYPE entries are never dangerous: they are what a
 * reconstructor does, reported for the reader (their category is the
 * reconstructor's). PKSCAN_VIA_SUBIMPORT entries import the module they
 * name (name ""), and are classified by it with the tables here:
 * subimport("math") is plain, subimport("os") dangerous ("runs
 * commands"), subimport("sys") dangerous ("interpreter internals"),
 * subimport("numpy") other.
 *
 * A dangerous name is never PKSCAN_CAT_PLAIN (operator.attrgetter is
 * "other").
 *
 * Plain data and reconstructors: a dotted name is plain data or a
 * reconstructor only if every component after the first is one of the
 * harmless dunders __new__, __init__, __call__, __getitem__,
 * __class_getitem__ (`builtins` + `object.__new__`, `enum` +
 * `Enum.__new__`), or it is one of the classmethods picklers write for
 * plain classes: collections OrderedDict.fromkeys, zoneinfo
 * ZoneInfo._unpickle, builtins dict.fromkeys, bytes.fromhex,
 * bytearray.fromhex, int.from_bytes, float.fromhex. Any other attribute
 * path is PKSCAN_CAT_OTHER (`collections` + `_sys.modules`: collections
 * imports sys as _sys), whether or not the table above knows where it
 * leads.
 *
 * Plain data (PKSCAN_CAT_PLAIN): builtins' data types, harmless functions
 *   and exceptions (set, frozenset, bytearray, bytes, complex, slice,
 *   range, int, float, str, list, dict, tuple, bool, object, type, property,
 *   classmethod, staticmethod, memoryview, super, len, min, max, ..., and
 *   every name ending in Error, Exception or Warning); the public names
 *   (not starting with "_") of the modules collections, datetime,
 *   decimal, fractions, enum, ipaddress, numbers, math, cmath, operator,
 *   _operator (and submodules), except decimal's setcontext, getcontext,
 *   localcontext (process-wide state) and operator's call, setitem,
 *   delitem and in-place functions (iadd, iconcat, ...: they change what
 *   they are given), enum's global_enum (it writes into the module its
 *   enum names), reduce, MappingProxyType and bin, and collections.abc's
 *   FunctionType and mappingproxy (names imported from elsewhere); in
 *   typing, dataclasses, uuid and zoneinfo (which
 *   have helpers that eval/exec text, run commands or change process-
 *   wide state) only listed names: typing's generic aliases, special
 *   forms, ABCs and TypeVar, Generic, Protocol, NamedTuple, TypedDict,
 *   NewType, ForwardRef (it compiles its text; only get_type_hints and
 *   _eval_type evaluate it), cast, get_args, get_origin, ...;
 *   dataclasses Field, field, fields, InitVar, KW_ONLY, MISSING, asdict,
 *   astuple, is_dataclass, replace, FrozenInstanceError and the private
 *   classes pickles of dataclasses name (_DataclassParams, _FIELD_BASE,
 *   _HAS_DEFAULT_FACTORY_CLASS, _MISSING_TYPE, _KW_ONLY_TYPE, _FIELD,
 *   _FIELD_CLASSVAR, _FIELD_INITVAR); uuid UUID, SafeUUID, NAMESPACE_*,
 *   RESERVED_*, RFC_4122, NIL, MAX, uuid3, uuid4, uuid5; zoneinfo
 *   ZoneInfo, ZoneInfoNotFoundError, InvalidTZPathWarning, TZPATH. The
 *   modules themselves (name "", e.g. subimport("typing")) are plain:
 *   their helpers run only when code calls them. Any other name of
 *   these modules is "other". Also: io/_io StringIO and BytesIO; copyreg
 *   _reconstructor / __newobj__ / __newobj_ex__ (copy_reg, its Python 2
 *   name, only where fix_imports maps it: below protocol 3; elsewhere
 *   CPython imports a module literally named copy_reg from sys.path, and
 *   the name is "other"), _codecs.encode,
 *   array.array, array._array_reconstructor, re._compile,
 *   functools.partial, operator.itemgetter, types SimpleNamespace /
 *   MappingProxyType / MethodType / CellType / NoneType / ModuleType,
 *   weakref.WeakSet, logging.getLogger, pathlib's path classes. */
typedef struct {
    pkscan_str module;
    pkscan_str name;
    pkscan_str written_module;
    pkscan_str written_name;
    size_t offset;          /* byte offset of the first importing opcode */
    size_t count;           /* how many opcodes import it */
    pkscan_via via;
    pkscan_category category;
    int dangerous;
    const char *reason;     /* static string; NULL unless dangerous */
    long ext_code;          /* PKSCAN_VIA_EXT: the registry code */
    /* Further spellings the pickle writes for the same (module, name),
     * beyond `written_module`/`written_name` (the first occurrence's) and
     * the mapped name itself: `alt_written[2 * i]` the module,
     * `alt_written[2 * i + 1]` the name, each as written (never NULL
     * strings). Protocol 2 `exceptions Exception` then `__builtin__
     * Exception`: one entry builtins.Exception, written_* exceptions,
     * one alternative __builtin__ Exception. find_class receives every
     * one of them. */
    pkscan_str *alt_written;
    size_t n_alt_written;
} pkscan_import;

/* Layout of a function carried by value. */
typedef enum {
    PKSCAN_FN_CCLOUDPICKLE = 1, /* ccloudpickle._function_new(code, globals,
                                   ncells) [+ _function_fill(func, state)] */
    PKSCAN_FN_CLOUDPICKLE       /* cloudpickle _make_function(code, globals,
                                   name, argdefs, closure)
                                   [+ _function_setstate(func, (state, slots))],
                                   stock 2.2/3.x or ccloudpickle's compat;
                                   also types.FunctionType (LambdaType)
                                   with those arguments, as 2.0 and
                                   compat="cloudpickle2" write it (through
                                   _builtin_type("LambdaType")), and any
                                   other call of that class CPython takes
                                   (2 to 6 arguments; REDUCE, NEWOBJ,
                                   NEWOBJ_EX, OBJ, INST; a GLOBAL of it
                                   stays a dangerous import) */
} pkscan_fn_layout;

typedef enum {
    PKSCAN_PARAM_POSONLY = 0, /* before / */
    PKSCAN_PARAM_REGULAR,
    PKSCAN_PARAM_VARARGS,     /* *args */
    PKSCAN_PARAM_KWONLY,
    PKSCAN_PARAM_VARKW        /* **kwargs */
} pkscan_param_kind;

typedef struct {
    pkscan_str name;
    pkscan_param_kind kind;
} pkscan_param;

/* A function carried by value. Fields the pickle does not reveal are
 * unknown: strings with s == NULL, numbers -1. */
typedef struct {
    pkscan_fn_layout layout;
    size_t offset;           /* the REDUCE (NEWOBJ, OBJ...) that creates
                                the function */
    pkscan_str name;
    pkscan_str qualname;
    pkscan_str module;       /* __module__ in the state, else the globals'
                                __name__ */
    pkscan_str filename;     /* co_filename */
    long firstlineno;        /* co_firstlineno */
    /* The CPython version the code object was made for: "3.11" (from
     * _code_unmarshal/_code_portable/_code_new's python_version, or the
     * marshal magic),
     * "3.8-3.10", "3.11+" or "3.7 or older" (from the number of CodeType
     * fields: 16, 18, 15), or unknown (s == NULL). */
    pkscan_str python_version;
    long magic;              /* bytecode magic (low 16 bits), -1 unknown */
    int code_known;          /* 1 if the code object's fields were read */
    /* Whether another CPython version can run it (a portable pickle,
     * dumps(portable=True): the code is _code_portable's): 1 the code
     * carries a source tuple to compile again; 0 it carries a str
     * instead, the reason (portable_why: "qualname (file, line N):
     * why"); -1 the code is not _code_portable's (not a portable pickle:
     * only the Python of `magic` runs it) or its source argument is
     * malformed (the load refuses it). */
    int portable;
    pkscan_str portable_why;
    pkscan_param *params;
    size_t n_params;
    pkscan_str *globals;     /* keys of the state's __globals__ */
    size_t n_globals;
    pkscan_str *freevars;    /* co_freevars: closure variable names */
    size_t n_freevars;
    long n_defaults;         /* len(__defaults__), 0 if None, -1 unknown */
    long n_kwdefaults;       /* len(__kwdefaults__), likewise */
} pkscan_function;

/* A class (or enum) carried by value: _make_skeleton_class /
 * _make_skeleton_enum [+ _class_setstate], ccloudpickle's or cloudpickle's. */
typedef struct {
    size_t offset;           /* the REDUCE that creates the skeleton */
    int is_enum;
    int from_cloudpickle;    /* 1: cloudpickle's reconstructor names */
    pkscan_str name;
    pkscan_str qualname;
    pkscan_str module;
    pkscan_str *bases;       /* "module.name" of an imported base, the name
                                of a base carried by value, "?" otherwise */
    size_t n_bases;
    pkscan_str *methods;     /* state keys whose value is a function
                                carried by value or a REDUCE of builtins
                                classmethod/staticmethod/property, in
                                input order */
    size_t n_methods;
    pkscan_str *members;     /* enum member names */
    size_t n_members;
} pkscan_class;

/* Code carried by value that the load itself runs (not merely rebuilds):
 * one entry per opcode, in input order.
 *   "calls a function carried by value": a REDUCE whose callable is a
 *     function the pickle carries by value (_function_new /
 *     _make_function / types.FunctionType, directly, through the memo,
 *     or wrapped in functools.partial / types.MethodType);
 *   "calls a method of a class carried by value": the callable is
 *     getattr(C, "name") of a class carried by value that has methods;
 *   "creates an instance of a class carried by value (its methods may
 *     run: __new__, __init__, __setstate__, __setattr__, __hash__...)":
 *     REDUCE, NEWOBJ, NEWOBJ_EX or OBJ of such a class, or its first
 *     argument to copyreg._reconstructor / __newobj__ / __newobj_ex__. A
 *     class "has methods" if any of its states (every _class_setstate
 *     applied to it counts) holds a value that is not plain data
 *     (pkscan_class.methods: plain data is literals, imported names,
 *     getattr of those, and tuples, lists, dicts, sets, frozensets of
 *     those; a function by value, functools.partial, classmethod, a
 *     nested class... is a method), or its state is not known statically
 *     (BUILD on the class, a state that is not a dict), or a base carried
 *     by value has methods, or its metaclass is carried by value.
 *     Calling an enum carried by value, Color(1) (how 3.12+ pickles a
 *     member), looks a member up: listed only if the enum defines
 *     _missing_ or the argument holds code carried by value. An instance
 *     used as a dict key or set item (__hash__,
 *     __eq__), or given to BUILD, was created by one of these: the
 *     creation is the entry;
 *   "hashes an object of a class carried by value that defines __hash__
 *     or __eq__ (a dict key or set item)": an enum member (getattr(Color,
 *     "RED"), or Color(1)) or instance of a class by value whose state,
 *     or a base by value, defines __hash__ or __eq__, used as a key of a
 *     dict or an item of a set or frozenset built by the pickle's own
 *     opcodes, or of an object filled by SETITEMS / ADDITEMS, directly or
 *     inside a tuple or frozenset key; the entry's offset is the
 *     container's (a set built by calling set(list) is a "passes" entry);
 *   "creates a class whose metaclass is carried by value",
 *   "creates a class whose base carried by value defines
 *     __init_subclass__", "creates an enum whose base carried by value
 *     has methods (they run for each member)": _make_skeleton_class /
 *     _make_skeleton_enum;
 *   "passes code carried by value to a callable that may call it": the
 *     arguments of a REDUCE / NEWOBJ / OBJ / INST hold code carried by
 *     value at any depth (a function by value, a class by value with
 *     methods, an instance or enum member of one, or a container, object
 *     or BUILD state holding one, also through items added after the
 *     container was made) and the callable is not known to only store
 *     them (reconstructors, functools.partial, types.MethodType,
 *     classmethod, staticmethod, property, collections.defaultdict,
 *     getattr, a typing subscription): list(map(f, xs)) calls f,
 *     sorted([Color.RED]) calls Color.__lt__, type("X", (Base,), {})
 *     calls Base.__init_subclass__. A callable that holds code (a partial
 *     whose BUILD state holds a function by value) is a "calls" entry.
 *     Code by value here includes a code object the pickle builds
 *     (types.CodeType, _code_unmarshal, _code_portable, _code_new)
 *     outside the arguments
 *     of a function it is seen to make: map(types.FunctionType, [code],
 *     [{}]);
 *   "calls what holds a code object carried by value (it may make a
 *     function of it and run it)": the callable holds such a code
 *     object: partial(_function_new, code)({}, 0), and the call of what
 *     that returns, partial(types.FunctionType, code)({})(). The name:
 *     the code's co_qualname (else co_name). Code objects stored,
 *     hashed, or in another code object's co_consts are not listed.
 * A function pickled alone, or stored in a container, a class's state or
 * a default, is not listed: it runs only when called after the load. */
typedef struct {
    size_t offset;          /* the opcode that runs it */
    const char *reason;     /* static phrase, above */
    pkscan_str name;        /* qualified name of the function or class
                               (s == NULL if unknown) */
} pkscan_load_call;

/* What the load would change that the pickle did not provably make
 * (the closed world; pkscan_state.c, doc/SECURITY.md). A pickle may give
 * state to (BUILD) or store into (APPEND(S), SETITEM(S), ADDITEMS) only
 * objects it made fresh: with its own opcodes, or by a call the closed
 * table (pkscan_table.c) says returns a new object, or a function or
 * class carried by value. It may call only callables of that table
 * whose cost it can bound, classes carried by value, and names outside
 * the table (a policy's allow rules decide those). */
typedef enum {
    PKSCAN_STATE_VALUE = 0, /* target: what a table call returns that
                               may be an existing or shared object */
    PKSCAN_STATE_OPAQUE,    /* target: a result the scan cannot know */
    PKSCAN_STATE_IMPORT,    /* a fill reconstructor or __init__ writes
                               into an imported object */
    PKSCAN_STATE_TAINT,     /* target: an object the pickle made, after
                               it was passed to a call outside the table
                               (which may keep it or share it) */
    PKSCAN_STATE_NAMED,     /* target: what a named callable outside the
                               table returned: only an allow rule naming
                               that callable can vouch for it */
    PKSCAN_STATE_CALL,      /* a call of a name the table leaves out (or
                               whose form it leaves out): vouchable by an
                               allow rule naming it */
    PKSCAN_STATE_COMPUTED,  /* a call of a value computed at load time */
    PKSCAN_STATE_UNBOUNDED, /* a call whose cost follows a value the
                               scan cannot bound */
    PKSCAN_STATE_TEXT,      /* a call that would compile text of the
                               pickle (typing's forward references) */
    PKSCAN_STATE_TRAP,      /* a call that would import a module from
                               sys.path the import list cannot name
                               (zoneinfo's tzdata for a key not in the
                               system time-zone database) */
} pkscan_state_kind;

typedef struct {
    size_t offset;          /* the opcode that writes or calls */
    int opcode;             /* its byte */
    pkscan_state_kind kind;
    size_t target_offset;   /* the opcode that made the target (TAINT:
                               of the call it was passed to; a call: the
                               callable's or argument's) */
    /* the callable that decides it (NAMED, CALL: the one an allow rule
     * must name; VALUE, TAINT: the call); s NULL when not a name */
    pkscan_str module;
    pkscan_str name;
    const char *text;       /* one line saying what and why, names
                               escaped (\xNN), owned by the report */
} pkscan_state_write;

/* What a part carried by value is (pkscan_part). */
typedef enum {
    PKSCAN_PART_FUNCTION = 0, /* a function of `functions` */
    PKSCAN_PART_CLASS,        /* a class of `classes` (is_enum 0) */
    PKSCAN_PART_ENUM,         /* an enum of `classes` (is_enum 1) */
    PKSCAN_PART_MODULE        /* a module made on the fly:
                                 dynamic_subimport(name, vars) or
                                 _module_new(name, namespace) */
} pkscan_part_kind;

/* The bytes of the pickle one part carried by value takes (with
 * PKSCAN_SPANS; cloudpickle-dump --report prints them). The part's
 * bytes are the spans of the opcodes that build it:
 *   - the creating call: from the first opcode of the callable's
 *     expression to the REDUCE (NEWOBJ, OBJ, INST) that makes it, with
 *     its arguments (code, globals dict skeleton, class namespace,
 *     module dict...) and the memo PUTs right after it;
 *   - each state-setting REDUCE applied to it later (_function_fill,
 *     _function_setstate, _class_setstate, _module_fill with the part as
 *     first argument: the setter, the part fetched from the memo, the
 *     state, the tuple, the REDUCE, the memo PUTs and the POP after
 *     it), and each BUILD on it (its state's expression and the BUILD,
 *     and the memo PUTs after it).
 * An expression starts where the opcodes that build its value start: an
 * item pushed by one opcode at that opcode (a memo GET, a DUP: there,
 * not where the value was first made), the result of an opcode that
 * takes items off the stack (REDUCE, TUPLE2, STACK_GLOBAL...) where its
 * lowest operand starts, one that takes them to a MARK (TUPLE, DICT,
 * OBJ, INST...) at the MARK.
 * Spans nest as the expressions of the pickle do: a method made inside
 * its class's state, or a function first met in another function's
 * globals, lies inside the enclosing part's spans. `bytes` counts a part
 * with the parts built inside it; `own` without them, so the `own`
 * figures of all parts add up to `by_value`, every byte counted once. A
 * part met again later is a memo GET (a few bytes) of whichever part
 * holds it then. */
typedef struct {
    pkscan_part_kind kind;
    size_t create;          /* offset of the opcode that creates it (the
                               `offset` of its pkscan_function or
                               pkscan_class) */
    size_t bytes;           /* its spans, nested parts included */
    size_t own;             /* its spans less the nested parts' */
    long parent;            /* index in `parts` of the part whose spans
                               hold its creating call, -1 at the top */
    size_t index;           /* FUNCTION: into `functions`; CLASS, ENUM:
                               into `classes`; MODULE: (size_t)-1 */
    pkscan_str name;        /* MODULE: its name when the pickle gives it
                               as a str; otherwise unknown */
} pkscan_part;

/* Per-list cap: a report never lists more than this many items in one
 * list (imports, functions, classes, or one function's globals...);
 * `truncated` says some were left out. */
#define PKSCAN_MAX_ITEMS 100000

typedef struct {
    pkscan_status status;
    const char *error;       /* one line, no trailing newline, owned by the
                                report; NULL when status == PKSCAN_OK */
    size_t error_offset;     /* byte offset of the offending opcode (for
                                PKSCAN_ERR_TRAILING: of the first byte after
                                STOP; for truncation: of the opcode whose
                                argument is cut short, or the input size
                                when STOP is missing) */
    int error_opcode;        /* the opcode byte at error_offset, -1 none */

    size_t size;             /* input size in bytes */
    size_t stop_offset;      /* offset of STOP, or (size_t)-1 if none */
    int protocol;            /* the PROTO opcode's argument, -1 without one */
    int min_protocol;        /* the lowest protocol whose opcodes it uses
                                (pickletools' "highest protocol among
                                opcodes") */
    size_t n_opcodes;
    size_t n_frames;
    size_t n_buffers;        /* NEXT_BUFFER count: out-of-band buffers the
                                load needs (plain loads refuses any) */
    size_t max_depth;        /* the deepest nesting of an item built (1: only
                                leaves; a tuple in a tuple: 2), saturating
                                at 65535; 0 when nothing was pushed.
                                Computed once the walk is done as the
                                longest chain of values each holding the
                                next: container items (however added: a
                                chain linked top-down through the memo
                                counts in full), REDUCE / NEWOBJ / OBJ
                                callable and arguments, the state BUILD
                                gives an opaque object. An edge back into
                                a cycle adds nothing. Pickles written with
                                the default recursion limit stay under
                                about 1000 */
    size_t max_depth_offset; /* the opcode that first reached max_depth
                                building items opcode by opcode; when the
                                depth comes from links made later through
                                the memo, the opcode that created the
                                outermost value of the deepest chain */
    size_t stop_stack;       /* items on the stack at STOP, the result
                                included: 1 in what any pickler writes
                                (pickle.loads ignores the rest) */
    size_t stop_marks;       /* MARKs still open at STOP: 0 in what any
                                pickler writes */
    const char *result_kind; /* kind of the unpickled object as far as known:
                                "function", "class", "tuple", "dict", "int",
                                "instance" (REDUCE/NEWOBJ/OBJ), "call
                                result" (the return value of code carried
                                by value: result_call), ...; NULL when the
                                scan failed */

    pkscan_import *imports;
    size_t n_imports;
    size_t n_dangerous;      /* imports with dangerous = 1 */
    size_t n_other;          /* imports with category PKSCAN_CAT_OTHER */
    pkscan_function *functions;
    size_t n_functions;
    pkscan_class *classes;
    size_t n_classes;
    pkscan_load_call *load_calls; /* code by value the load runs */
    size_t n_load_calls;
    size_t result_call;      /* 1 + the index in load_calls of the call
                                whose return value is the unpickled object
                                (result_kind "call result"), 0 if none */
    int truncated;           /* some list hit PKSCAN_MAX_ITEMS, or the
                                analysis' work budget ran out: items or
                                names (s == NULL) are missing. The danger
                                flags listed, n_dangerous and n_other are
                                exact all the same; load_calls may then
                                miss some (functions or classes past the
                                cap are not followed): treat a truncated
                                report as unverified. */
    /* With PKSCAN_SPANS and status PKSCAN_OK: the parts carried by value
     * in the order they are created (functions and classes past the
     * PKSCAN_MAX_ITEMS cap are not among them), and the bytes in some
     * part's spans, each counted once. Otherwise NULL, 0 and 0. */
    pkscan_part *parts;
    size_t n_parts;
    size_t by_value;
    /* The closed world: each write or call the scan cannot vouch for,
     * in input order (at most PKSCAN_MAX_ITEMS listed; the counts are
     * exact). n_state_vouchable of them are NAMED or CALL (an allow
     * rule naming the callable may admit them); the rest are refused
     * under every policy. */
    pkscan_state_write *state_writes;
    size_t n_state_writes;
    size_t n_state_total;
    size_t n_state_vouchable;
} pkscan_report;

/* Flags for pkscan_scan. */
#define PKSCAN_NO_FIX_IMPORTS 0x1 /* model Unpickler(fix_imports=False) */
/* Model the fix_imports table of CPython 3.13 and later, which dropped
 * `Tix` -> `tkinter.tix` (without it: 3.9 to 3.12's, which map it). The
 * tables are otherwise the same on every supported version. A caller
 * passes the flags of the CPython it is built for, CPK_PY_SCAN_FLAGS
 * (pycompat_scan.h). */
#define PKSCAN_PY313 0x2
/* Measure the parts carried by value (pkscan_report.parts). Without it
 * the scan keeps nothing for them: it costs 4 bytes per stack slot and
 * MARK, 16 per REDUCE, NEWOBJ, OBJ, INST and BUILD on one, and a pass
 * over the nodes once the walk is done. */
#define PKSCAN_SPANS 0x4
/* Bits 8-15: the minor version of the CPython that would load (3.X): a
 * portable function's code of another version is compiled from its
 * shipped source, which the analysis lists among what the load runs
 * (0: unknown, every such code counts). */
#define PKSCAN_PY_MINOR(flags) (((flags) >> 8) & 0xff)
#define PKSCAN_PY_FLAGS(hex)                                                 \
    (((hex) >= 0x030D0000 ? PKSCAN_PY313 : 0) | ((((hex) >> 16) & 0xff) << 8))

/* Scan `len` bytes at `data` (NULL allowed when len is 0). Never reads
 * outside [data, data+len), never executes anything. Returns a report
 * (check `status`) to free with pkscan_free, or NULL when even the report
 * could not be allocated. On a malformed pickle the report still lists
 * what was found before the error. */
pkscan_report *pkscan_scan(const void *data, size_t len, unsigned flags);

/* pkscan_scan with a cap on the memory the scan may hold (its arrays,
 * arenas and the report; not `data`): an allocation that would go over
 * `max_bytes` stops the scan with PKSCAN_ERR_LIMIT instead (the report
 * then lists what was found before it, as far as the cap allowed).
 * max_bytes 0: no cap (pkscan_scan). What a scan needs is up to 40 to 70
 * bytes per value it keeps (see "Costs"); the cap is the way
 * to scan hostile input of any size without risking the OOM killer. */
pkscan_report *pkscan_scan_limited(const void *data, size_t len,
                                   unsigned flags, size_t max_bytes);

/* The default cap of pkscan_scan_limited: the memory this machine has
 * available now (Linux's MemAvailable), at least PKSCAN_LIMIT_FLOOR
 * (also where MemAvailable cannot be read). A scan fails only where it
 * would need more memory than the machine can give (see "Costs" for
 * what that takes), before the OOM killer would step in. */
#define PKSCAN_LIMIT_FLOOR ((size_t)2 << 30)
size_t pkscan_default_limit(void);

/* How many scans this process has started (pkscan_scan and
 * pkscan_scan_limited, in any thread): what tests and benchmarks read to
 * see that an input was scanned once. */
size_t pkscan_scans_started(void);

/* Free a report and everything it owns; NULL is fine. */
void pkscan_free(pkscan_report *r);

/* Short stable names for the enums, for --json: "ok", "truncated",
 * "bad-opcode", "stack-underflow", "mark-missing", "memo", "type",
 * "value", "length", "protocol", "unsupported", "trailing-data",
 * "no-memory", "memory-limit"; "global", "stack_global", "inst", "ext", "dynamic",
 * "getattr", "builtin_type", "subimport"; "other", "ccloudpickle",
 * "cloudpickle",
 * "plain"; "positional-only", "regular", "varargs", "keyword-only",
 * "varkw". */
const char *pkscan_status_name(pkscan_status s);
const char *pkscan_via_name(pkscan_via v);
const char *pkscan_category_name(pkscan_category c);
const char *pkscan_param_kind_name(pkscan_param_kind k);
/* "value", "opaque", "import", "taint", "named", "call", "computed",
 * "unbounded", "text", "trap" */
const char *pkscan_state_kind_name(pkscan_state_kind k);

/* The verdict of `cloudpickle-load --strict`: 1 if the report has a
 * dangerous import, an import of category PKSCAN_CAT_OTHER, code
 * carried by value that the load runs (n_load_calls), or a write or call
 * outside the closed world (n_state_total), else 0. */
int pkscan_strict_violation(const pkscan_report *r);

#endif
