/* pkscan_classify.c - what an imported name is: its category (a
 * reconstructor, plain data, the standard library, ...), why importing it
 * is dangerous, and the modules whose names are plain data. The analysis
 * (pkscan_analyze.c) and the import list (pkscan_imports.c) ask it. */
#include "scan/pkscan_internal.h"
#include "scan/format.h"       /* cpk_format_parse: the format markers */

#define R_CMD "runs commands"
#define R_EVAL "evaluates code"
#define R_CODE "builds code objects or functions"
#define R_IMPORT "imports modules"
#define R_FILE "opens files"
#define R_NET "network access"
#define R_INTERP "interpreter internals"
#define R_ATTR "attribute access by name"
#define R_TTY "interactive"
#define R_PICKLE "nested unpickling"

static const name_rule danger_rules[] = {
    {"os", NULL, R_CMD}, {"posix", NULL, R_CMD}, {"nt", NULL, R_CMD},
    {"subprocess", NULL, R_CMD}, {"_posixsubprocess", NULL, R_CMD},
    {"pty", NULL, R_CMD}, {"multiprocessing", NULL, R_CMD},
    {"asyncio", "create_subprocess_shell", R_CMD},
    {"asyncio", "create_subprocess_exec", R_CMD},
    {"asyncio.subprocess", NULL, R_CMD},
    {"shutil", NULL, R_FILE}, {"io", "open", R_FILE}, {"_io", "open", R_FILE},
    {"io", "FileIO", R_FILE}, {"_io", "FileIO", R_FILE},
    {"io", "open_code", R_FILE}, {"_io", "open_code", R_FILE},
    {"socket", NULL, R_NET}, {"_socket", NULL, R_NET},
    {"webbrowser", NULL, R_NET},
    {"ctypes", NULL, R_INTERP}, {"_ctypes", NULL, R_INTERP},
    {"sys", NULL, R_INTERP}, {"gc", NULL, R_INTERP},
    {"importlib", NULL, R_IMPORT}, {"imp", NULL, R_IMPORT},
    {"zipimport", NULL, R_IMPORT}, {"pkgutil", NULL, R_IMPORT},
    {"runpy", NULL, R_EVAL}, {"code", NULL, R_EVAL}, {"codeop", NULL, R_EVAL},
    {"timeit", NULL, R_EVAL}, {"pdb", NULL, R_EVAL}, {"bdb", NULL, R_EVAL},
    {"trace", NULL, R_EVAL}, {"cProfile", NULL, R_EVAL},
    {"profile", NULL, R_EVAL},
    {"marshal", NULL, R_CODE}, {"types", "FunctionType", R_CODE},
    {"types", "CodeType", R_CODE}, {"types", "LambdaType", R_CODE},
    {"builtins", "eval", R_EVAL}, {"builtins", "exec", R_EVAL},
    {"builtins", "compile", R_EVAL}, {"builtins", "__import__", R_IMPORT},
    {"builtins", "open", R_FILE}, {"builtins", "getattr", R_ATTR},
    {"builtins", "setattr", R_ATTR}, {"builtins", "delattr", R_ATTR},
    {"builtins", "globals", R_INTERP}, {"builtins", "locals", R_INTERP},
    {"builtins", "vars", R_INTERP}, {"builtins", "breakpoint", R_TTY},
    {"builtins", "input", R_TTY}, {"builtins", "help", R_TTY},
    {"builtins", "exit", R_INTERP}, {"builtins", "quit", R_INTERP},
    {"operator", "attrgetter", R_ATTR}, {"operator", "methodcaller", R_ATTR},
    {"_operator", "attrgetter", R_ATTR},
    {"_operator", "methodcaller", R_ATTR},
    {"pickle", "loads", R_PICKLE}, {"pickle", "load", R_PICKLE},
    {"pickle", "Unpickler", R_PICKLE}, {"pickle", "_loads", R_PICKLE},
    {"pickle", "_load", R_PICKLE}, {"pickle", "_Unpickler", R_PICKLE},
    {"_pickle", NULL, R_PICKLE},
    {"ccloudpickle", "_import", R_IMPORT},
    {"ccloudpickle", "loads", R_PICKLE}, {"ccloudpickle", "load", R_PICKLE},
    {"ccloudpickle", "Unpickler", R_PICKLE},
    /* wrap()'s load side (python/_ccloudpickle_engines.py): loads the
     * bytes it is given */
    {"_ccloudpickle_engines", "_rebuild", R_PICKLE},
    /* helpers of otherwise plain modules that evaluate text or run
     * commands */
    {"typing", "get_type_hints", R_EVAL}, {"typing", "_eval_type", R_EVAL},
    {"typing", "evaluate_forward_ref", R_EVAL},
    {"dataclasses", "dataclass", R_EVAL},
    {"dataclasses", "make_dataclass", R_EVAL},
    {"dataclasses", "_create_fn", R_EVAL},
    {"dataclasses", "_process_class", R_EVAL},
    {"uuid", "getnode", R_CMD}, {"uuid", "uuid1", R_CMD},
    {"uuid", "_get_command_stdout", R_CMD},
    {"uuid", "_find_mac_near_keyword", R_CMD},
    {"uuid", "_find_mac_under_heading", R_CMD},
    {"uuid", "_ifconfig_getnode", R_CMD}, {"uuid", "_ip_getnode", R_CMD},
    {"uuid", "_arp_getnode", R_CMD}, {"uuid", "_lanscan_getnode", R_CMD},
    {"uuid", "_netstat_getnode", R_CMD}, {"uuid", "_unix_getnode", R_CMD},
    {"uuid", "_ipconfig_getnode", R_CMD},
    {"uuid", "_windll_getnode", R_CMD},
    /* import, evaluate or run what their arguments name, or reach files
     * and the network: a deny list of os and subprocess does not stop
     * pydoc.locate("os.system") */
    {"pydoc", NULL, R_IMPORT}, {"site", NULL, R_IMPORT},
    {"unittest", NULL, R_IMPORT}, {"logging.config", NULL, R_EVAL},
    {"doctest", NULL, R_EVAL}, {"idlelib", NULL, R_EVAL},
    {"_xxsubinterpreters", NULL, R_EVAL}, {"_interpreters", NULL, R_EVAL},
    {"_xxinterpchannels", NULL, R_EVAL},
    {"platform", "architecture", R_CMD}, {"platform", "platform", R_CMD},
    {"platform", "_syscmd_file", R_CMD}, {"platform", "_syscmd_ver", R_CMD},
    {"pipes", NULL, R_CMD}, {"mailcap", NULL, R_CMD},
    {"ensurepip", NULL, R_CMD}, {"venv", NULL, R_CMD},
    {"distutils", NULL, R_CMD},
    {"tempfile", NULL, R_FILE}, {"codecs", "open", R_FILE},
    {"fileinput", NULL, R_FILE}, {"zipfile", NULL, R_FILE},
    {"tarfile", NULL, R_FILE}, {"sqlite3", NULL, R_FILE},
    {"mmap", NULL, R_FILE}, {"fcntl", NULL, R_FILE}, {"dbm", NULL, R_FILE},
    {"shelve", NULL, R_PICKLE},
    {"urllib.request", "urlopen", R_NET},
    {"urllib.request", "urlretrieve", R_NET},
    {"http.client", "HTTPConnection", R_NET},
    {"http.client", "HTTPSConnection", R_NET},
    {"ftplib", "FTP", R_NET}, {"ftplib", "FTP_TLS", R_NET},
    {"smtplib", "SMTP", R_NET}, {"smtplib", "SMTP_SSL", R_NET},
    {"atexit", NULL, R_INTERP}, {"faulthandler", NULL, R_INTERP},
    {"_thread", "start_new_thread", R_INTERP},
    {"_thread", "start_new", R_INTERP},
    {"_thread", "start_joinable_thread", R_INTERP},
    {"_thread", "interrupt_main", R_INTERP},
};

/* Attributes a dotted name must not pass through. */
static const char *const danger_attrs[] = {
    "__globals__", "__builtins__", "__subclasses__", "__code__", "__dict__",
    "__class__", "__base__", "__bases__", "__mro__", "__getattribute__",
    "__import__", "__loader__", "__spec__", "__self__", "__func__",
    "__closure__", "__reduce__", "__reduce_ex__", "__init_subclass__",
    "f_globals", "f_locals", "f_builtins", "gi_frame", "tb_frame",
    "cr_frame", "ag_frame",
};

/* Modules whose public names (those not starting with "_") are plain,
 * but for not_plain and the danger table: nothing in them evaluates text,
 * runs commands or opens files. */
static const char *const plain_modules[] = {
    "collections", "datetime", "decimal", "fractions", "enum", "ipaddress",
    "numbers", "math", "cmath", "operator", "_operator",
    /* operator attrgetter, methodcaller: dangerous, above */
};

/* Public names of plain_modules that are not plain: they change state the
 * whole process shares (a decimal context, an object passed in place) or
 * call what they are given. */
static const name_rule not_plain[] = {
    {"decimal", "setcontext", 0}, {"decimal", "getcontext", 0},
    {"decimal", "localcontext", 0},
    {"operator", "call", 0}, {"operator", "setitem", 0},
    {"operator", "delitem", 0}, {"operator", "iadd", 0},
    {"operator", "iand", 0}, {"operator", "iconcat", 0},
    {"operator", "ifloordiv", 0}, {"operator", "ilshift", 0},
    {"operator", "imod", 0}, {"operator", "imul", 0},
    {"operator", "imatmul", 0}, {"operator", "ior", 0},
    {"operator", "ipow", 0}, {"operator", "irshift", 0},
    {"operator", "isub", 0}, {"operator", "itruediv", 0},
    {"operator", "ixor", 0},
    /* global_enum copies an enum's members into the namespace of the
     * module its __module__ names (any module: os.getcwd replaced);
     * the others are names these modules import from elsewhere: a
     * function maker (FunctionType, 3.13), a call of its argument
     * (reduce, 3.11-3.12), views of a mapping, bin() of any size */
    {"enum", "global_enum", 0}, {"enum", "reduce", 0},
    {"enum", "MappingProxyType", 0}, {"enum", "bin", 0},
    {"collections.abc", "FunctionType", 0},
    {"collections.abc", "mappingproxy", 0},
};

/* Modules plain name by name only (each has helpers that evaluate text or
 * run commands, or change process-wide state): typing, dataclasses,
 * uuid, zoneinfo. Private names listed are the ones picklers write
 * (a dataclass's __dataclass_params__, dataclasses.MISSING). */
static const char *const plain_typing[] = {
    "Any", "Callable", "ClassVar", "Final", "ForwardRef", "Generic",
    "Literal", "Optional", "ParamSpec", "Protocol", "Tuple", "Type",
    "TypeVar", "TypeVarTuple", "Union", "Concatenate", "TypeAlias",
    "TypeGuard", "TypeIs", "Self", "LiteralString", "Never", "NoReturn",
    "Required", "NotRequired", "ReadOnly", "Unpack", "Annotated",
    "AbstractSet", "ByteString", "Container", "ContextManager", "Hashable",
    "ItemsView", "Iterable", "Iterator", "KeysView", "Mapping",
    "MappingView", "MutableMapping", "MutableSequence", "MutableSet",
    "Sequence", "Sized", "ValuesView", "Awaitable", "AsyncIterator",
    "AsyncIterable", "Coroutine", "Collection", "AsyncGenerator",
    "AsyncContextManager", "Reversible", "SupportsAbs", "SupportsBytes",
    "SupportsComplex", "SupportsFloat", "SupportsIndex", "SupportsInt",
    "SupportsRound", "ChainMap", "Counter", "Deque", "Dict", "DefaultDict",
    "List", "OrderedDict", "Set", "FrozenSet", "NamedTuple", "TypedDict",
    "Generator", "BinaryIO", "IO", "Match", "Pattern", "TextIO", "AnyStr",
    "Text", "NewType", "TypeAliasType", "NoDefault", "ParamSpecArgs",
    "ParamSpecKwargs", "TYPE_CHECKING", "cast", "get_args", "get_origin",
    "is_typeddict", "assert_never", "assert_type",
};
static const char *const plain_dataclasses[] = {
    "Field", "field", "fields", "FrozenInstanceError", "InitVar", "KW_ONLY",
    "MISSING", "asdict", "astuple", "is_dataclass", "replace",
    "_DataclassParams", "_FIELD_BASE", "_HAS_DEFAULT_FACTORY_CLASS",
    "_MISSING_TYPE", "_KW_ONLY_TYPE", "_FIELD", "_FIELD_CLASSVAR",
    "_FIELD_INITVAR",
    /* 3.13: a dataclass's __replace__ is this function (replace()) */
    "_replace",
};
static const char *const plain_uuid[] = {
    "UUID", "SafeUUID", "NAMESPACE_DNS", "NAMESPACE_URL", "NAMESPACE_OID",
    "NAMESPACE_X500", "RESERVED_NCS", "RFC_4122", "RESERVED_MICROSOFT",
    "RESERVED_FUTURE", "NIL", "MAX", "uuid3", "uuid4", "uuid5",
};
static const char *const plain_zoneinfo[] = {
    "ZoneInfo", "ZoneInfoNotFoundError", "InvalidTZPathWarning", "TZPATH",
};
typedef struct {
    const char *module;
    const char *const *names;
    size_t n;
} name_list;
#define NAMES(m, a) {m, a, sizeof(a) / sizeof *(a)}
static const name_list plain_lists[] = {
    NAMES("typing", plain_typing), NAMES("dataclasses", plain_dataclasses),
    NAMES("uuid", plain_uuid), NAMES("zoneinfo", plain_zoneinfo),
};

static const name_rule plain_rules[] = {
    {"copyreg", "_reconstructor", 0}, {"copyreg", "__newobj__", 0},
    {"copyreg", "__newobj_ex__", 0},
    {"_codecs", "encode", 0}, {"array", "array", 0},
    {"array", "_array_reconstructor", 0}, {"re", "_compile", 0},
    {"functools", "partial", 0}, {"operator", "itemgetter", 0},
    {"_operator", "itemgetter", 0}, {"types", "SimpleNamespace", 0},
    {"types", "MappingProxyType", 0}, {"types", "MethodType", 0},
    {"types", "CellType", 0}, {"types", "NoneType", 0},
    {"types", "ModuleType", 0}, {"weakref", "WeakSet", 0},
    {"_weakrefset", "WeakSet", 0}, {"logging", "getLogger", 0},
    {"pathlib", "PurePath", 0}, {"pathlib", "PurePosixPath", 0},
    {"pathlib", "PureWindowsPath", 0}, {"pathlib", "Path", 0},
    {"pathlib", "PosixPath", 0}, {"pathlib", "WindowsPath", 0},
    /* where 3.13's path classes live, and what its pickles name */
    {"pathlib._local", "PurePath", 0}, {"pathlib._local", "PurePosixPath", 0},
    {"pathlib._local", "PureWindowsPath", 0}, {"pathlib._local", "Path", 0},
    {"pathlib._local", "PosixPath", 0}, {"pathlib._local", "WindowsPath", 0},
    {"io", "StringIO", 0}, {"_io", "StringIO", 0}, {"io", "BytesIO", 0},
    {"_io", "BytesIO", 0},
};

static const char *const plain_builtins[] = {
    "set", "frozenset", "bytearray", "bytes", "complex", "slice", "range",
    "int", "float", "str", "list", "dict", "tuple", "bool", "object", "type",
    "property", "classmethod", "staticmethod", "memoryview",
    "NotImplemented", "Ellipsis", "reversed", "enumerate", "zip", "map",
    "filter", "super", "BaseException", "len", "min", "max", "abs", "sum",
    "sorted", "repr", "hash", "id", "isinstance", "issubclass", "iter",
    "next", "round", "divmod", "pow", "chr", "ord", "format",
    "ascii", "bin", "hex", "oct", "all", "any", "callable",
    /* exceptions not named *Error, *Exception or *Warning */
    "StopIteration", "StopAsyncIteration", "GeneratorExit",
    "KeyboardInterrupt", "SystemExit",
};

/* Reconstructors: ccloudpickle's (doc/FORMAT.md) and cloudpickle's. */
static const char *const ccp_names[] = {
    "_function_new", "_function_fill", "_function_make", "_empty_cell_value",
    "_code_unmarshal",
    "_code_portable",
    "_code_new", "_make_skeleton_class", "_make_skeleton_enum",
    "_class_setstate", "_make_typevar", "_make_cell", "_make_empty_cell",
    "subimport", "dynamic_subimport", "_module_new", "_module_fill",
    "_builtin_type", "_make_dict_keys",
    "_make_dict_values", "_make_dict_items", "_file_reconstructor",
    "_get_dataclass_field_type_sentinel", "_make_function",
    "_function_setstate", "_import", "_singledispatch_new",
    "_singledispatch_fill", "_lru_cache_new",
    "_make_typeparam", "_make_newtype",
    "_function_setstate", "_import", "_make_lock", "_make_event",
    "_make_condition", "_make_semaphore", "_make_contextvar", "_make_struct",
    "_make_weakdict",
};

static const char *const cp_names[] = {
    "_make_function", "_function_setstate", "_class_setstate",
    "_make_skeleton_class", "_make_skeleton_enum", "_make_typevar",
    "_builtin_type", "_make_cell", "_make_empty_cell", "_empty_cell_value",
    "subimport", "dynamic_subimport", "_make_dict_keys", "_make_dict_values",
    "_make_dict_items", "_file_reconstructor",
    "_get_dataclass_field_type_sentinel", "_builtin_type_reconstructor",
    "_module_reconstructor", "_dynamic_module_reconstructor", "CellType",
};

int pkscan_in_list(const char *p, size_t len, const char *const *list,
                   size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (str_eq(p, len, list[i]))
            return 1;
    return 0;
}

/* An attribute whose lookup by name reaches the interpreter (danger_attrs). */
int pkscan_danger_attr(const char *p, size_t len)
{
    return pkscan_in_list(p, len, danger_attrs, NELEM(danger_attrs));
}

/* module == m, or a submodule of m. */
static int module_in(const char *p, size_t len, const char *m)
{
    size_t l = strlen(m);
    return len >= l && memcmp(p, m, l) == 0 && (len == l || p[l] == '.');
}

/* The first component of a dotted name. */
size_t pkscan_first_len(const char *p, size_t len)
{
    const char *dot = memchr(p, '.', len);
    return dot ? (size_t)(dot - p) : len;
}

int pkscan_is_cp_module(const char *p, size_t len)
{
    return str_eq(p, len, "cloudpickle") ||
           str_eq(p, len, "cloudpickle.cloudpickle") ||
           str_eq(p, len, "cloudpickle.cloudpickle_fast");
}

/* Attributes a dotted name may pass through after its first component
 * and still be plain data or a reconstructor: they lead from a class to
 * its own constructor or call protocol (`object.__new__`, enums'
 * `Enum.__new__`), never to another module. Anything else may leave the
 * module: `dataclasses` + `inspect.os.system` is os.system, reached
 * through the attribute dataclasses.inspect. */
static const char *const harmless_dunders[] = {
    "__new__", "__init__", "__call__", "__getitem__", "__class_getitem__",
};

/* Dotted names that are plain all the same: classmethods of plain
 * classes that picklers write (getattr(cls, "name") from a bound
 * classmethod's __reduce__), whose first component is the class itself,
 * not a module. */
static const name_rule plain_dotted[] = {
    {"zoneinfo", "ZoneInfo._unpickle", 0},
    {"collections", "OrderedDict.fromkeys", 0},
    {"builtins", "dict.fromkeys", 0}, {"builtins", "bytes.fromhex", 0},
    {"builtins", "bytearray.fromhex", 0}, {"builtins", "int.from_bytes", 0},
    {"builtins", "float.fromhex", 0},
};

/* 1 if every component of `n` after the first is a harmless dunder. */
static int dunder_rest(const char *n, size_t nl)
{
    size_t i = pkscan_first_len(n, nl);
    while (i < nl) {
        size_t j = ++i;
        while (j < nl && n[j] != '.')
            j++;
        if (!pkscan_in_list(n + i, j - i, harmless_dunders,
                            NELEM(harmless_dunders)))
            return 0;
        i = j;
    }
    return 1;
}

pkscan_category pkscan_categorize(const char *m, size_t ml, const char *n,
                                  size_t nl)
{
    int fmt;
    if (str_eq(m, ml, "ccloudpickle") &&
        (pkscan_in_list(n, nl, ccp_names, NELEM(ccp_names)) ||
         cpk_format_parse(n, nl, &fmt, NULL, 0)))
        return PKSCAN_CAT_CCLOUDPICKLE;
    if (pkscan_is_cp_module(m, ml) && pkscan_in_list(n, nl, cp_names,
                                                     NELEM(cp_names)))
        return PKSCAN_CAT_CLOUDPICKLE;
    for (size_t i = 0; i < NELEM(plain_dotted); i++)
        if (str_eq(m, ml, plain_dotted[i].module) &&
            str_eq(n, nl, plain_dotted[i].name))
            return PKSCAN_CAT_PLAIN;
    /* an attribute path may leave the module (see harmless_dunders) */
    if (!dunder_rest(n, nl))
        return PKSCAN_CAT_OTHER;
    size_t fl = pkscan_first_len(n, nl);
    if (str_eq(m, ml, "builtins")) {
        if (pkscan_in_list(n, fl, plain_builtins, NELEM(plain_builtins)))
            return PKSCAN_CAT_PLAIN;
        static const char *const sfx[] = {"Error", "Exception", "Warning"};
        for (size_t i = 0; i < NELEM(sfx); i++) {
            size_t sl = strlen(sfx[i]);
            if (fl >= sl && memcmp(n + fl - sl, sfx[i], sl) == 0)
                return PKSCAN_CAT_PLAIN;
        }
    }
    for (size_t i = 0; i < NELEM(plain_rules); i++)
        if (str_eq(m, ml, plain_rules[i].module) &&
            str_eq(n, fl, plain_rules[i].name))
            return PKSCAN_CAT_PLAIN;
    for (size_t i = 0; i < NELEM(plain_lists); i++)
        if (str_eq(m, ml, plain_lists[i].module))
            /* the module itself (subimport("typing"), a function's
             * global) is plain: what its helpers do, only code does */
            return fl == 0 || pkscan_in_list(n, fl, plain_lists[i].names,
                                             plain_lists[i].n)
                       ? PKSCAN_CAT_PLAIN
                       : PKSCAN_CAT_OTHER;
    /* private names of plain modules are plain only where listed
     * (copyreg._reconstructor, re._compile, ... above) */
    if (fl > 0 && n[0] == '_')
        return PKSCAN_CAT_OTHER;
    for (size_t i = 0; i < NELEM(not_plain); i++)
        if ((str_eq(m, ml, not_plain[i].module) ||
             (ml > 1 && m[0] == '_' &&
              str_eq(m + 1, ml - 1, not_plain[i].module))) &&
            str_eq(n, fl, not_plain[i].name))
            return PKSCAN_CAT_OTHER;
    for (size_t i = 0; i < NELEM(plain_modules); i++)
        if (module_in(m, ml, plain_modules[i]))
            return PKSCAN_CAT_PLAIN;
    return PKSCAN_CAT_OTHER;
}

/* A module some of whose names are plain (typing + sys: a module object
 * through an attribute of a module otherwise plain). */
int pkscan_plain_module(const char *m, size_t ml)
{
    if (str_eq(m, ml, "builtins"))
        return 1;
    for (size_t i = 0; i < NELEM(plain_lists); i++)
        if (str_eq(m, ml, plain_lists[i].module))
            return 1;
    for (size_t i = 0; i < NELEM(plain_modules); i++)
        if (module_in(m, ml, plain_modules[i]))
            return 1;
    return 0;
}

/* `s` (a dotted path) is `pre` or starts with `pre` and a dot. */
static int path_starts(const char *s, size_t sl, const char *pre, size_t pl)
{
    return sl >= pl && memcmp(s, pre, pl) == 0 && (sl == pl || s[pl] == '.');
}

/* The danger table applied to the dotted path `s` read as "module.name...":
 * whole-module rules match its start (a module object itself only when
 * `whole`), named rules "module.name" followed by the end or a dot. */
static const char *path_reason(const char *s, size_t sl, int whole)
{
    for (size_t i = 0; i < NELEM(danger_rules); i++) {
        const name_rule *r = &danger_rules[i];
        size_t ml = strlen(r->module);
        if (r->name == NULL) {
            if (path_starts(s, sl, r->module, ml) && (whole || sl > ml))
                return r->reason;
        } else if (sl > ml + 1 && memcmp(s, r->module, ml) == 0 &&
                   s[ml] == '.' &&
                   path_starts(s + ml + 1, sl - ml - 1, r->name,
                               strlen(r->name))) {
            return r->reason;
        }
    }
    /* the builtins module itself, reached through an attribute
     * (dataclasses.builtins): its namespace is every module's */
    if (whole && str_eq(s, sl, "builtins"))
        return R_INTERP;
    return NULL;
}

/* Why importing (m, n) is dangerous, or NULL. `plain`: (m, n) is
 * otherwise a reconstructor or plain data. */
const char *pkscan_danger_reason(const char *m, size_t ml, const char *n,
                                 size_t nl, int plain)
{
    size_t fl = pkscan_first_len(n, nl);
    if (pkscan_py2_module(m, ml))
        return "a Python 2 module name that fix_imports maps only below "
               "protocol 3: it imports a module of that name from sys.path";
    for (size_t i = 0; i < NELEM(danger_rules); i++) {
        const name_rule *r = &danger_rules[i];
        if (r->name == NULL ? module_in(m, ml, r->module)
                            : (str_eq(m, ml, r->module) &&
                               str_eq(n, fl, r->name)))
            return r->reason;
    }
    /* Dotted protocol-4 names (and getattr chains) walk attributes. */
    for (size_t i = 0; i < nl;) {
        size_t j = i;
        while (j < nl && n[j] != '.')
            j++;
        if (pkscan_in_list(n + i, j - i, danger_attrs, NELEM(danger_attrs)))
            return "attribute path through interpreter internals";
        i = j + 1;
    }
    /* ... and may reach another module through an attribute holding it:
     * every suffix of the path from a component on is matched against
     * the table (`inspect.os.system` is os.system). A path that ends
     * at a module's name counts only where it would otherwise be plain
     * (typing.sys, a module object that BUILD could rewrite): elsewhere
     * it is "other" anyway, and mymod.profile or Config.code is more
     * likely a function or attribute named like a module. */
    int whole = plain;
    for (size_t i = 0; i < nl;) {
        const char *why = path_reason(n + i, nl - i, whole);
        if (why != NULL)
            return why;
        i += pkscan_first_len(n + i, nl - i) + 1;
    }
    return NULL;
}
