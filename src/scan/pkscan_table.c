/* pkscan_table.c - the closed table: for each plain name and reconstructor
 * the scanner trusts, what calling it returns and what its new form
 * (NEWOBJ, `cls.__new__(cls)`, copyreg.__newobj__) returns, which
 * arguments the result shares or the call writes, and whether its cost
 * follows its arguments' sizes. Data only; the names' categories are
 * pkscan_classify.c's (every row is a name it calls plain or a
 * reconstructor), and tests/unit/py/closed_table/check.py checks every
 * claim under each CPython the project supports.
 *
 * Kinds (per form):
 *   PKT_NEW    a new object that neither is nor writes through to its
 *              arguments: it may receive state (BUILD, SETITEMS, ...);
 *   PKT_VALUE  an existing, cached, immutable or shared object, an item
 *              of an argument or a view: never a target of state;
 *   PKT_OPAQUE (the form, or the name, is absent) the result may be any
 *              object and the arguments may be kept or written through.
 * Flags: PKT_WRITES0 the call writes into argument 0 (a fill
 * reconstructor, an `__init__`); PKT_BOUNDED its cost grows with its
 * arguments' sizes: trusted only when they are pickle-made literals or
 * containers (their size is in the input); PKT_DISPATCH the result is
 * what a method of argument 0 returns (`__iter__`, `__reversed__`): as
 * the kind says only when argument 0 is a pickle-made container.
 * `shares`: bit k set when the result keeps argument k and writes into it
 * (a function's globals): the result is fresh only while that argument
 * is.
 *
 * Not rows: copyreg's __newobj__, __newobj_ex__ and _reconstructor and
 * array._array_reconstructor are forms, the new form of the class they
 * are given; the dunders categorize accepts after a plain name are
 * decided from the row of the name before them (`X.__new__(cls)` is the
 * new form of cls, no newer than X's; `X.__init__` writes argument 0);
 * ccloudpickle's format markers resolve to None, which no call takes.
 * A name absent from the table is opaque: its result is no target and
 * its arguments may be kept (tests/unit/py/closed_table/check.py's
 * ABSENT says why each plain name is left out).
 *
 * The rows are sorted by module, then name (strcmp order: upper case
 * before "_" before lower case); pkscan_table_find searches them. The
 * cloudpickle rows stand for the three module spellings
 * (pkscan_is_cp_module). */
#include "scan/pkscan_internal.h"

#define N PKT_NEW
#define V PKT_VALUE
#define O PKT_OPAQUE
#define W PKT_WRITES0
#define B PKT_BOUNDED
#define D PKT_DISPATCH
#define S(k) (1u << (k))
/* Exceptions: calling the class makes a new instance that keeps its
 * arguments in `args` (a new tuple); BUILD then fills its __dict__,
 * which is how every exception pickles (REDUCE(cls, args) + BUILD).
 * The builtins listed are those the scanner calls plain (named *Error,
 * *Exception, *Warning). */
#define EXC(m, n) {m, n, N, N, 0, 0}

static const pkscan_closed rows[] = {
    /* latin-1 or UTF-8 text to new bytes (protocol 2's bytes) */
    {"_codecs", "encode", V, O, 0, B},

    /* new in-memory files with a copy of their initial value; stock
     * pickles make them by NEWOBJ + BUILD(state) (io's are _io's) */
    {"_io", "BytesIO", N, N, 0, B},
    {"_io", "StringIO", N, N, 0, B},

    /* operator: values computed from the operands (comparisons, bit and
     * arithmetic operations that are bounded by their operands' sizes;
     * comparisons walk tuples, so their operands are bounded too);
     * itemgetter is a new object that keeps its items. Absent: getitem
     * (an item of an object that may compute it: defaultdict's factory
     * writes into it), mul, pow, lshift and mod ('%9999999d' % 1), whose
     * result's size is a value of the input */
    {"_operator", "abs", V, O, 0, 0},
    {"_operator", "add", V, O, 0, B},
    {"_operator", "and_", V, O, 0, 0},
    {"_operator", "concat", V, O, 0, B},
    {"_operator", "contains", V, O, 0, B},
    {"_operator", "countOf", V, O, 0, B},
    {"_operator", "eq", V, O, 0, B},
    {"_operator", "floordiv", V, O, 0, 0},
    {"_operator", "ge", V, O, 0, B},
    {"_operator", "gt", V, O, 0, B},
    {"_operator", "index", V, O, 0, 0},
    {"_operator", "indexOf", V, O, 0, B},
    {"_operator", "inv", V, O, 0, 0},
    {"_operator", "invert", V, O, 0, 0},
    {"_operator", "is_", V, O, 0, 0},
    {"_operator", "is_not", V, O, 0, 0},
    {"_operator", "itemgetter", N, O, 0, 0},
    {"_operator", "le", V, O, 0, B},
    {"_operator", "length_hint", V, O, 0, 0},
    {"_operator", "lt", V, O, 0, B},
    {"_operator", "matmul", V, O, 0, 0},
    {"_operator", "ne", V, O, 0, B},
    {"_operator", "neg", V, O, 0, 0},
    {"_operator", "not_", V, O, 0, 0},
    {"_operator", "or_", V, O, 0, 0},
    {"_operator", "pos", V, O, 0, 0},
    {"_operator", "rshift", V, O, 0, 0},
    {"_operator", "sub", V, O, 0, 0},
    {"_operator", "truediv", V, O, 0, 0},
    {"_operator", "truth", V, O, 0, 0},
    {"_operator", "xor", V, O, 0, 0},

    /* a new set of weak references to the items */
    {"_weakrefset", "WeakSet", N, N, 0, B},

    /* a new array with a copy of its initial items */
    {"array", "array", N, N, 0, B},

    EXC("builtins", "ArithmeticError"),
    EXC("builtins", "AssertionError"),
    EXC("builtins", "AttributeError"),
    EXC("builtins", "BaseException"),
    EXC("builtins", "BlockingIOError"),
    EXC("builtins", "BrokenPipeError"),
    EXC("builtins", "BufferError"),
    EXC("builtins", "BytesWarning"),
    EXC("builtins", "ChildProcessError"),
    EXC("builtins", "ConnectionAbortedError"),
    EXC("builtins", "ConnectionError"),
    EXC("builtins", "ConnectionRefusedError"),
    EXC("builtins", "ConnectionResetError"),
    EXC("builtins", "DeprecationWarning"),
    EXC("builtins", "EOFError"),
    EXC("builtins", "EncodingWarning"),
    EXC("builtins", "EnvironmentError"),
    EXC("builtins", "Exception"),
    EXC("builtins", "FileExistsError"),
    EXC("builtins", "FileNotFoundError"),
    EXC("builtins", "FloatingPointError"),
    EXC("builtins", "FutureWarning"),
    EXC("builtins", "GeneratorExit"),
    EXC("builtins", "IOError"),
    EXC("builtins", "ImportError"),
    EXC("builtins", "ImportWarning"),
    EXC("builtins", "IndentationError"),
    EXC("builtins", "IndexError"),
    EXC("builtins", "InterruptedError"),
    EXC("builtins", "IsADirectoryError"),
    EXC("builtins", "KeyError"),
    EXC("builtins", "KeyboardInterrupt"),
    EXC("builtins", "LookupError"),
    /* MemoryError's free list reuses only instances already freed */
    EXC("builtins", "MemoryError"),
    EXC("builtins", "ModuleNotFoundError"),
    EXC("builtins", "NameError"),
    EXC("builtins", "NotADirectoryError"),
    EXC("builtins", "NotImplementedError"),
    /* OSError(errno, ...) may make a subclass (FileNotFoundError): new */
    EXC("builtins", "OSError"),
    EXC("builtins", "OverflowError"),
    EXC("builtins", "PendingDeprecationWarning"),
    EXC("builtins", "PermissionError"),
    EXC("builtins", "ProcessLookupError"),
    EXC("builtins", "PythonFinalizationError"),
    EXC("builtins", "RecursionError"),
    EXC("builtins", "ReferenceError"),
    EXC("builtins", "ResourceWarning"),
    EXC("builtins", "RuntimeError"),
    EXC("builtins", "RuntimeWarning"),
    EXC("builtins", "StopAsyncIteration"),
    EXC("builtins", "StopIteration"),
    EXC("builtins", "SyntaxError"),
    EXC("builtins", "SyntaxWarning"),
    EXC("builtins", "SystemError"),
    EXC("builtins", "SystemExit"),
    EXC("builtins", "TabError"),
    EXC("builtins", "TimeoutError"),
    EXC("builtins", "TypeError"),
    EXC("builtins", "UnboundLocalError"),
    EXC("builtins", "UnicodeDecodeError"),
    EXC("builtins", "UnicodeEncodeError"),
    EXC("builtins", "UnicodeError"),
    EXC("builtins", "UnicodeTranslateError"),
    EXC("builtins", "UnicodeWarning"),
    EXC("builtins", "UserWarning"),
    EXC("builtins", "ValueError"),
    EXC("builtins", "Warning"),
    EXC("builtins", "ZeroDivisionError"),
    EXC("builtins", "_IncompleteInputError"),
    /* numbers and text computed from the operands: new immutables or
     * small cached ints and one-character strings */
    {"builtins", "abs", V, O, 0, 0},
    /* they iterate their argument, returning a bool */
    {"builtins", "all", V, O, 0, B},
    {"builtins", "any", V, O, 0, B},
    {"builtins", "ascii", V, O, 0, B},
    {"builtins", "bin", V, O, 0, B},
    /* bool() returns one of the two singletons */
    {"builtins", "bool", V, V, 0, 0},
    /* a new array with a copy of its argument; bytearray(n) allocates n
     * bytes */
    {"builtins", "bytearray", N, N, 0, B},
    {"builtins", "bytearray.fromhex", N, O, 0, B},
    /* immutable; bytes() and one-byte values are cached; bytes(n)
     * allocates n bytes */
    {"builtins", "bytes", V, V, 0, B},
    {"builtins", "bytes.fromhex", V, O, 0, B},
    {"builtins", "callable", V, O, 0, 0},
    {"builtins", "chr", V, O, 0, 0},
    /* a new wrapper that keeps its function and writes nothing into it */
    {"builtins", "classmethod", N, N, 0, 0},
    {"builtins", "complex", V, V, 0, 0},
    /* a new dict with a copy of the argument's pairs */
    {"builtins", "dict", N, N, 0, B},
    {"builtins", "dict.fromkeys", N, O, 0, B},
    {"builtins", "divmod", V, O, 0, B},
    /* a new iterator over iter(argument): keeps it, writes nothing */
    {"builtins", "enumerate", N, N, 0, 0},
    /* new iterator; the function runs only when it is iterated */
    {"builtins", "filter", N, N, 0, 0},
    {"builtins", "float", V, V, 0, B},
    {"builtins", "float.fromhex", V, O, 0, B},
    /* frozenset(fs) is fs: immutable, possibly the argument */
    {"builtins", "frozenset", V, V, 0, B},
    {"builtins", "hash", V, O, 0, B},
    {"builtins", "hex", V, O, 0, B},
    {"builtins", "id", V, O, 0, 0},
    /* int(text) is quadratic in the digits on 3.9 and 3.10 */
    {"builtins", "int", V, V, 0, B},
    {"builtins", "int.from_bytes", V, O, 0, B},
    {"builtins", "isinstance", V, O, 0, 0},
    {"builtins", "issubclass", V, O, 0, 0},
    /* iter(iterator) is the iterator itself: new only for a pickle-made
     * container (iterators pickle as REDUCE(iter, (list,)) + BUILD) */
    {"builtins", "iter", N, O, 0, D},
    {"builtins", "len", V, O, 0, 0},
    /* a new list with a copy of the items */
    {"builtins", "list", N, N, 0, B},
    /* new iterator; the function runs only when it is iterated */
    {"builtins", "map", N, N, 0, 0},
    /* an item of the argument (or `default`/`start`): an alias */
    {"builtins", "max", V, O, 0, B},
    {"builtins", "min", V, O, 0, B},
    {"builtins", "next", V, O, 0, 0},
    /* a new bare object */
    {"builtins", "object", N, N, 0, 0},
    {"builtins", "oct", V, O, 0, B},
    {"builtins", "ord", V, O, 0, 0},
    /* a new descriptor that keeps its functions */
    {"builtins", "property", N, N, 0, 0},
    /* immutable; holds three ints, never materialised */
    {"builtins", "range", V, V, 0, 0},
    {"builtins", "repr", V, O, 0, B},
    /* reversed(x) is x.__reversed__() when x has one */
    {"builtins", "reversed", N, O, 0, D},
    {"builtins", "round", V, O, 0, B},
    {"builtins", "set", N, N, 0, B},
    {"builtins", "slice", V, V, 0, 0},
    /* a new list of the items */
    {"builtins", "sorted", N, O, 0, B},
    {"builtins", "staticmethod", N, N, 0, 0},
    /* str(s) is s; text is immutable */
    {"builtins", "str", V, V, 0, B},
    /* the sum, or `start` itself when the iterable is empty: an alias */
    {"builtins", "sum", V, O, 0, B},
    /* tuple(t) is t; tuple() is cached */
    {"builtins", "tuple", V, V, 0, B},
    /* type(x) is x's class, an existing object; type.__new__ with three
     * arguments makes a class from a namespace: absent */
    {"builtins", "type", V, O, 0, 0},
    {"builtins", "zip", N, N, 0, 0},

    /* ccloudpickle's reconstructors (doc/FORMAT.md). Fill reconstructors
     * write into argument 0 and return None or it (the state pass checks
     * their target as it checks a BUILD) */
    {"ccloudpickle", "_builtin_type", V, O, 0, 0},
    {"ccloudpickle", "_class_setstate", V, O, 0, W},
    /* code objects are immutable */
    {"ccloudpickle", "_code_new", V, O, 0, 0},
    {"ccloudpickle", "_code_portable", V, O, 0, 0},
    {"ccloudpickle", "_code_unmarshal", V, O, 0, 0},
    {"ccloudpickle", "_file_reconstructor", V, O, 0, 0},
    {"ccloudpickle", "_function_fill", V, O, 0, W},
    /* a new function over the globals dict it is given (argument 1),
     * which it keeps and into which it writes __builtins__ */
    {"ccloudpickle", "_function_make", N, O, S(1), 0},
    {"ccloudpickle", "_function_new", N, O, S(1), 0},
    {"ccloudpickle", "_function_setstate", V, O, 0, W},
    /* one of dataclasses' module-level sentinels */
    {"ccloudpickle", "_get_dataclass_field_type_sentinel", V, O, 0, 0},
    /* a new cache wrapper around the function; no entries */
    {"ccloudpickle", "_lru_cache_new", N, O, 0, 0},
    {"ccloudpickle", "_make_cell", N, O, 0, 0},
    {"ccloudpickle", "_make_condition", N, O, 0, 0},
    {"ccloudpickle", "_make_contextvar", N, O, 0, 0},
    /* views of a new dict made from the argument */
    {"ccloudpickle", "_make_dict_items", V, O, 0, B},
    {"ccloudpickle", "_make_dict_keys", V, O, 0, B},
    {"ccloudpickle", "_make_dict_values", V, O, 0, B},
    {"ccloudpickle", "_make_empty_cell", N, O, 0, 0},
    {"ccloudpickle", "_make_event", N, O, 0, 0},
    /* cloudpickle's function reconstructor: as _function_new */
    {"ccloudpickle", "_make_function", N, O, S(1), 0},
    {"ccloudpickle", "_make_lock", N, O, 0, 0},
    /* once per tracker id: the same object for the same id in one
     * process */
    {"ccloudpickle", "_make_newtype", V, O, 0, 0},
    {"ccloudpickle", "_make_semaphore", N, O, 0, 0},
    /* a class by value (the analysis' AUX_CLS), made once per tracker
     * id: a second call with the same id returns the first class */
    {"ccloudpickle", "_make_skeleton_class", V, O, 0, 0},
    {"ccloudpickle", "_make_skeleton_enum", V, O, 0, 0},
    {"ccloudpickle", "_make_struct", N, O, 0, 0},
    {"ccloudpickle", "_make_typeparam", V, O, 0, 0},
    {"ccloudpickle", "_make_typevar", V, O, 0, 0},
    /* empty: SETITEMS fills it */
    {"ccloudpickle", "_make_weakdict", N, O, 0, 0},
    {"ccloudpickle", "_module_fill", V, O, 0, W},
    /* a module not in sys.modules whose namespace is argument 1 */
    {"ccloudpickle", "_module_new", N, O, S(1), 0},
    {"ccloudpickle", "_singledispatch_fill", V, O, 0, W},
    {"ccloudpickle", "_singledispatch_new", N, O, 0, 0},
    /* a module made on the fly, not in sys.modules */
    {"ccloudpickle", "dynamic_subimport", N, O, 0, 0},
    /* an imported module */
    {"ccloudpickle", "subimport", V, O, 0, 0},

    /* stock cloudpickle's names, which find_class maps to ours
     * (src/types/compat.c) */
    {"cloudpickle", "_builtin_type", V, O, 0, 0},
    {"cloudpickle", "_builtin_type_reconstructor", V, O, 0, 0},
    {"cloudpickle", "_class_setstate", V, O, 0, W},
    {"cloudpickle", "_dynamic_module_reconstructor", N, O, 0, 0},
    {"cloudpickle", "_file_reconstructor", V, O, 0, 0},
    {"cloudpickle", "_function_setstate", V, O, 0, W},
    {"cloudpickle", "_get_dataclass_field_type_sentinel", V, O, 0, 0},
    {"cloudpickle", "_make_cell", N, O, 0, 0},
    {"cloudpickle", "_make_dict_items", V, O, 0, B},
    {"cloudpickle", "_make_dict_keys", V, O, 0, B},
    {"cloudpickle", "_make_dict_values", V, O, 0, B},
    {"cloudpickle", "_make_empty_cell", N, O, 0, 0},
    {"cloudpickle", "_make_function", N, O, S(1), 0},
    {"cloudpickle", "_make_skeleton_class", V, O, 0, 0},
    {"cloudpickle", "_make_skeleton_enum", V, O, 0, 0},
    {"cloudpickle", "_make_typevar", V, O, 0, 0},
    {"cloudpickle", "_module_reconstructor", V, O, 0, 0},
    {"cloudpickle", "dynamic_subimport", N, O, 0, 0},
    {"cloudpickle", "subimport", V, O, 0, 0},

    /* cmath: complex numbers from complex numbers */
    {"cmath", "acos", V, O, 0, 0},
    {"cmath", "acosh", V, O, 0, 0},
    {"cmath", "asin", V, O, 0, 0},
    {"cmath", "asinh", V, O, 0, 0},
    {"cmath", "atan", V, O, 0, 0},
    {"cmath", "atanh", V, O, 0, 0},
    {"cmath", "cos", V, O, 0, 0},
    {"cmath", "cosh", V, O, 0, 0},
    {"cmath", "exp", V, O, 0, 0},
    {"cmath", "isclose", V, O, 0, 0},
    {"cmath", "isfinite", V, O, 0, 0},
    {"cmath", "isinf", V, O, 0, 0},
    {"cmath", "isnan", V, O, 0, 0},
    {"cmath", "log", V, O, 0, 0},
    {"cmath", "log10", V, O, 0, 0},
    {"cmath", "phase", V, O, 0, 0},
    {"cmath", "polar", V, O, 0, 0},
    {"cmath", "rect", V, O, 0, 0},
    {"cmath", "sin", V, O, 0, 0},
    {"cmath", "sinh", V, O, 0, 0},
    {"cmath", "sqrt", V, O, 0, 0},
    {"cmath", "tan", V, O, 0, 0},
    {"cmath", "tanh", V, O, 0, 0},

    /* a new ChainMap's maps[0] is its argument (it writes through):
     * calling it is absent; stock pickles make one by NEWOBJ and give
     * it its maps by BUILD */
    {"collections", "ChainMap", O, N, 0, 0},
    /* new containers with a copy of their argument's items */
    {"collections", "Counter", N, N, 0, B},
    {"collections", "OrderedDict", N, N, 0, B},
    {"collections", "OrderedDict.fromkeys", N, O, 0, B},
    {"collections", "UserDict", N, N, 0, B},
    {"collections", "UserList", N, N, 0, B},
    /* holds str(argument), immutable */
    {"collections", "UserString", N, N, 0, B},
    /* keeps its factory, writes nothing into it */
    {"collections", "defaultdict", N, N, 0, B},
    {"collections", "deque", N, N, 0, B},
    /* a new class from validated field names */
    {"collections", "namedtuple", V, O, 0, B},

    /* new dataclass bookkeeping objects: stock pickles make them by
     * NEWOBJ + BUILD(slot state); calling Field or _DataclassParams
     * takes arguments that differ by version, so only their new form is
     * listed */
    {"dataclasses", "Field", O, N, 0, 0},
    EXC("dataclasses", "FrozenInstanceError"),
    /* a new marker that keeps its type */
    {"dataclasses", "InitVar", N, N, 0, 0},
    {"dataclasses", "_DataclassParams", O, N, 0, 0},
    {"dataclasses", "_FIELD_BASE", N, N, 0, 0},
    {"dataclasses", "_HAS_DEFAULT_FACTORY_CLASS", N, N, 0, 0},
    {"dataclasses", "_KW_ONLY_TYPE", N, N, 0, 0},
    {"dataclasses", "_MISSING_TYPE", N, N, 0, 0},
    /* new containers built from a dataclass instance's fields */
    {"dataclasses", "asdict", V, O, 0, B},
    {"dataclasses", "astuple", V, O, 0, B},
    /* a new Field; its metadata is a read-only view of the dict given */
    {"dataclasses", "field", N, O, 0, 0},
    /* the class's own tuple of fields */
    {"dataclasses", "fields", V, O, 0, 0},
    {"dataclasses", "is_dataclass", V, O, 0, 0},

    /* immutable values; timezone(timedelta(0)) is timezone.utc */
    {"datetime", "date", V, V, 0, 0},
    {"datetime", "datetime", V, V, 0, 0},
    {"datetime", "time", V, V, 0, 0},
    {"datetime", "timedelta", V, V, 0, 0},
    {"datetime", "timezone", V, V, 0, 0},
    /* a new bare tzinfo */
    {"datetime", "tzinfo", N, N, 0, 0},

    EXC("decimal", "Clamped"),
    /* copies its flags and traps into new dicts */
    {"decimal", "Context", N, N, 0, 0},
    EXC("decimal", "ConversionSyntax"),
    /* Decimal(d) is d: immutable */
    {"decimal", "Decimal", V, V, 0, B},
    EXC("decimal", "DecimalException"),
    {"decimal", "DecimalTuple", V, V, 0, 0},
    EXC("decimal", "DivisionByZero"),
    EXC("decimal", "DivisionImpossible"),
    EXC("decimal", "DivisionUndefined"),
    EXC("decimal", "FloatOperation"),
    EXC("decimal", "Inexact"),
    EXC("decimal", "InvalidContext"),
    EXC("decimal", "InvalidOperation"),
    EXC("decimal", "Overflow"),
    EXC("decimal", "Rounded"),
    EXC("decimal", "Subnormal"),
    EXC("decimal", "Underflow"),

    /* a new descriptor that keeps its functions */
    {"enum", "DynamicClassAttribute", N, N, 0, 0},
    /* enum classes: calling one looks a member up (an alias) or, with a
     * name and members, makes a class; a member's __new__ looks up too,
     * the bases' new form always raises (no member to find) */
    {"enum", "Enum", V, O, 0, 0},
    {"enum", "EnumCheck", V, V, 0, 0},
    {"enum", "Flag", V, O, 0, 0},
    {"enum", "FlagBoundary", V, V, 0, 0},
    {"enum", "IntEnum", V, O, 0, 0},
    {"enum", "IntFlag", V, O, 0, 0},
    {"enum", "ReprEnum", V, O, 0, 0},
    {"enum", "StrEnum", V, O, 0, 0},
    {"enum", "auto", N, N, 0, 0},
    /* text of an enum member */
    {"enum", "global_enum_repr", V, O, 0, 0},
    {"enum", "global_flag_repr", V, O, 0, 0},
    {"enum", "global_str", V, O, 0, 0},
    /* new wrappers that keep their value */
    {"enum", "member", N, N, 0, 0},
    {"enum", "nonmember", N, N, 0, 0},
    /* a new tuple naming the member */
    {"enum", "pickle_by_enum_name", V, O, 0, 0},
    {"enum", "pickle_by_global_name", V, O, 0, 0},
    {"enum", "property", N, N, 0, 0},
    {"enum", "show_flag_values", V, O, 0, 0},
    /* unique(cls) returns cls: an alias */
    {"enum", "unique", V, O, 0, 0},
    /* a new decorator holding the checks */
    {"enum", "verify", V, O, 0, 0},

    /* fractions.Decimal is decimal.Decimal */
    {"fractions", "Decimal", V, V, 0, B},
    /* a new instance each call (it has no __dict__: state only through
     * __setstate__, which a BUILD would have to give it first) */
    {"fractions", "Fraction", N, N, 0, B},

    /* a new partial: its BUILD replaces only its own func, args,
     * keywords and __dict__ */
    {"functools", "partial", N, N, 0, 0},

    {"io", "BytesIO", N, N, 0, B},
    {"io", "StringIO", N, N, 0, B},

    EXC("ipaddress", "AddressValueError"),
    /* immutable values (hashable, compared by value) */
    {"ipaddress", "IPv4Address", V, V, 0, 0},
    {"ipaddress", "IPv4Interface", V, V, 0, 0},
    {"ipaddress", "IPv4Network", V, V, 0, 0},
    {"ipaddress", "IPv6Address", V, V, 0, 0},
    {"ipaddress", "IPv6Interface", V, V, 0, 0},
    {"ipaddress", "IPv6Network", V, V, 0, 0},
    EXC("ipaddress", "NetmaskValueError"),
    {"ipaddress", "collapse_addresses", V, O, 0, B},
    {"ipaddress", "get_mixed_type_key", V, O, 0, 0},
    {"ipaddress", "ip_address", V, O, 0, 0},
    {"ipaddress", "ip_interface", V, O, 0, 0},
    {"ipaddress", "ip_network", V, O, 0, 0},
    {"ipaddress", "summarize_address_range", V, O, 0, 0},
    {"ipaddress", "v4_int_to_packed", V, O, 0, 0},
    {"ipaddress", "v6_int_to_packed", V, O, 0, 0},



    /* the logger of that name, shared: never a target (a new name
     * registers a logger process-wide, which the docs list among the
     * closed world's limits) */
    {"logging", "getLogger", V, O, 0, 0},

    /* math: numbers from numbers; gcd, lcm, isqrt and the sums iterate
     * or grow with their operands; factorial, comb, perm (value-sized)
     * and prod (quadratic in its items) are absent */
    {"math", "acos", V, O, 0, 0},
    {"math", "acosh", V, O, 0, 0},
    {"math", "asin", V, O, 0, 0},
    {"math", "asinh", V, O, 0, 0},
    {"math", "atan", V, O, 0, 0},
    {"math", "atan2", V, O, 0, 0},
    {"math", "atanh", V, O, 0, 0},
    {"math", "cbrt", V, O, 0, 0},
    {"math", "ceil", V, O, 0, 0},
    {"math", "copysign", V, O, 0, 0},
    {"math", "cos", V, O, 0, 0},
    {"math", "cosh", V, O, 0, 0},
    {"math", "degrees", V, O, 0, 0},
    {"math", "dist", V, O, 0, B},
    {"math", "erf", V, O, 0, 0},
    {"math", "erfc", V, O, 0, 0},
    {"math", "exp", V, O, 0, 0},
    {"math", "exp2", V, O, 0, 0},
    {"math", "expm1", V, O, 0, 0},
    {"math", "fabs", V, O, 0, 0},
    {"math", "floor", V, O, 0, 0},
    {"math", "fma", V, O, 0, 0},
    {"math", "fmod", V, O, 0, 0},
    {"math", "frexp", V, O, 0, 0},
    {"math", "fsum", V, O, 0, B},
    {"math", "gamma", V, O, 0, 0},
    {"math", "gcd", V, O, 0, B},
    {"math", "hypot", V, O, 0, B},
    {"math", "isclose", V, O, 0, 0},
    {"math", "isfinite", V, O, 0, 0},
    {"math", "isinf", V, O, 0, 0},
    {"math", "isnan", V, O, 0, 0},
    {"math", "isqrt", V, O, 0, B},
    {"math", "lcm", V, O, 0, B},
    {"math", "ldexp", V, O, 0, 0},
    {"math", "lgamma", V, O, 0, 0},
    {"math", "log", V, O, 0, 0},
    {"math", "log10", V, O, 0, 0},
    {"math", "log1p", V, O, 0, 0},
    {"math", "log2", V, O, 0, 0},
    {"math", "modf", V, O, 0, 0},
    {"math", "nextafter", V, O, 0, 0},
    {"math", "pow", V, O, 0, 0},
    {"math", "radians", V, O, 0, 0},
    {"math", "remainder", V, O, 0, 0},
    {"math", "sin", V, O, 0, 0},
    {"math", "sinh", V, O, 0, 0},
    {"math", "sqrt", V, O, 0, 0},
    {"math", "sumprod", V, O, 0, B},
    {"math", "tan", V, O, 0, 0},
    {"math", "tanh", V, O, 0, 0},
    {"math", "trunc", V, O, 0, 0},
    {"math", "ulp", V, O, 0, 0},

    /* abstractmethod(f) sets f.__isabstractmethod__ and returns f */
    {"numbers", "abstractmethod", V, O, 0, W},

    /* operator: values computed from the operands (comparisons, bit and
     * arithmetic operations that are bounded by their operands' sizes);
     * itemgetter is a new object that keeps its items. Absent: getitem
     * (an item of an object that may compute it: defaultdict's factory
     * writes into it), mul, pow, lshift and mod ('%9999999d' % 1), whose
     * result's size is a value of the input */
    {"operator", "abs", V, O, 0, 0},
    {"operator", "add", V, O, 0, B},
    {"operator", "and_", V, O, 0, 0},
    {"operator", "concat", V, O, 0, B},
    {"operator", "contains", V, O, 0, B},
    {"operator", "countOf", V, O, 0, B},
    {"operator", "eq", V, O, 0, B},
    {"operator", "floordiv", V, O, 0, 0},
    {"operator", "ge", V, O, 0, B},
    {"operator", "gt", V, O, 0, B},
    {"operator", "index", V, O, 0, 0},
    {"operator", "indexOf", V, O, 0, B},
    {"operator", "inv", V, O, 0, 0},
    {"operator", "invert", V, O, 0, 0},
    {"operator", "is_", V, O, 0, 0},
    {"operator", "is_not", V, O, 0, 0},
    {"operator", "itemgetter", N, O, 0, 0},
    {"operator", "le", V, O, 0, B},
    {"operator", "length_hint", V, O, 0, 0},
    {"operator", "lt", V, O, 0, B},
    {"operator", "matmul", V, O, 0, 0},
    {"operator", "ne", V, O, 0, B},
    {"operator", "neg", V, O, 0, 0},
    {"operator", "not_", V, O, 0, 0},
    {"operator", "or_", V, O, 0, 0},
    {"operator", "pos", V, O, 0, 0},
    {"operator", "rshift", V, O, 0, 0},
    {"operator", "sub", V, O, 0, 0},
    {"operator", "truediv", V, O, 0, 0},
    {"operator", "truth", V, O, 0, 0},
    {"operator", "xor", V, O, 0, 0},

    /* paths are immutable values */
    {"pathlib", "Path", V, V, 0, 0},
    {"pathlib", "PosixPath", V, V, 0, 0},
    {"pathlib", "PurePath", V, V, 0, 0},
    {"pathlib", "PurePosixPath", V, V, 0, 0},
    {"pathlib", "PureWindowsPath", V, V, 0, 0},
    {"pathlib", "WindowsPath", V, V, 0, 0},
    /* 3.13's module for them, which its pickles name */
    {"pathlib._local", "Path", V, V, 0, 0},
    {"pathlib._local", "PosixPath", V, V, 0, 0},
    {"pathlib._local", "PurePath", V, V, 0, 0},
    {"pathlib._local", "PurePosixPath", V, V, 0, 0},
    {"pathlib._local", "PureWindowsPath", V, V, 0, 0},
    {"pathlib._local", "WindowsPath", V, V, 0, 0},

    /* a compiled pattern from re's cache, shared */
    {"re", "_compile", V, O, 0, B},

    /* a new cell holding its argument */
    {"types", "CellType", N, N, 0, 0},
    /* a read-only live view of the mapping it is given (a class's
     * __dict__ pickles so): never a target, writes nothing */
    {"types", "MappingProxyType", V, O, 0, 0},
    /* a bound method (cloudpickle's classmethods): it forwards attribute
     * lookups to its function, so it is never a target; it writes
     * nothing into its arguments */
    {"types", "MethodType", V, O, 0, 0},
    /* a new module, not in sys.modules */
    {"types", "ModuleType", N, N, 0, 0},
    /* NoneType() is None */
    {"types", "NoneType", V, V, 0, 0},
    /* copies its keyword arguments into a new namespace */
    {"types", "SimpleNamespace", N, N, 0, B},

    /* typing.Counter() etc. call their origin class (a new container)
     * and set __orig_class__ on it; typing.ChainMap is absent (as
     * collections.ChainMap) */
    {"typing", "Counter", N, O, 0, B},
    {"typing", "DefaultDict", N, O, 0, B},
    {"typing", "Deque", N, O, 0, B},
    {"typing", "OrderedDict", N, O, 0, B},
    /* typing.Text is str */
    {"typing", "Text", V, V, 0, B},
    /* assert_type and cast return their argument: an alias */
    {"typing", "assert_type", V, O, 0, 0},
    {"typing", "cast", V, O, 0, 0},
    {"typing", "get_args", V, O, 0, 0},
    {"typing", "get_origin", V, O, 0, 0},
    {"typing", "is_typeddict", V, O, 0, 0},

    /* UUIDs are immutable values; stock pickles make one by NEWOBJ +
     * BUILD({'int': ...}) */
    {"uuid", "SafeUUID", V, V, 0, 0},
    {"uuid", "UUID", V, N, 0, 0},
    {"uuid", "uuid3", V, O, 0, B},
    {"uuid", "uuid4", V, O, 0, 0},
    {"uuid", "uuid5", V, O, 0, B},

    /* as _weakrefset's, which it is */
    {"weakref", "WeakSet", N, N, 0, B},

    EXC("zoneinfo", "InvalidTZPathWarning"),
    /* ZoneInfo(key) is the process-wide cached zone for that key */
    {"zoneinfo", "ZoneInfo", V, V, 0, 0},
    {"zoneinfo", "ZoneInfo._unpickle", V, O, 0, 0},
    EXC("zoneinfo", "ZoneInfoNotFoundError"),
};

#undef EXC
#undef N
#undef V
#undef O
#undef W
#undef B
#undef D
#undef S

const pkscan_closed *pkscan_table_rows(size_t *n)
{
    *n = NELEM(rows);
    return rows;
}

/* strcmp of the counted p[0, len) against the string s. */
static int cmp_counted(const char *p, size_t len, const char *s)
{
    size_t sl = strlen(s);
    int c = memcmp(p, s, len < sl ? len : sl);
    if (c != 0)
        return c;
    return len < sl ? -1 : len > sl;
}

const pkscan_closed *pkscan_table_find(const char *m, size_t ml,
                                       const char *n, size_t nl)
{
    size_t lo = 0, hi = NELEM(rows);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_counted(m, ml, rows[mid].module);
        if (c == 0)
            c = cmp_counted(n, nl, rows[mid].name);
        if (c == 0)
            return &rows[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}
