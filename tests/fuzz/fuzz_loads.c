/* fuzz-link: src/[a-z]*[a-z]/[a-z]*.c src/module.c */
/* fuzz-cflags: $PY_CFLAGS -fvisibility=hidden */
/* fuzz-ldflags: $PY_LDFLAGS $(pkg-config --libs libcrypto 2>/dev/null) */
/* fuzz-options: -max_len=65536 -timeout=20 */
/* fuzz_loads.c - libFuzzer target for ccloudpickle's load side: the
 * reconstructors (reconstruct.c, code.c, class.c, function.c, compat.c,
 * args.c), the Unpickler and the in-memory reader, inside an embedded
 * CPython. Built and run by scripts/fuzz (make fuzz); seeds in
 * tests/fuzz/corpus_loads (tests/fuzz/make_corpus_loads.py), dictionary
 * tests/fuzz/loads.dict.
 *
 * Each input is loaded as ccloudpickle.loads loads it (the in-memory
 * reader, load() with the collector pause), by a subclass of
 * ccloudpickle.Unpickler; the result is dropped. With FUZZ_LOADS_DUMPS=1
 * it is first pickled again with ccloudpickle.dumps, which walks what the
 * mutated pickle built (bytecode, closures, class namespaces): that step
 * found 3.11's co_code overflow (tests/fuzz/cpython_crashes/README); it
 * is off by default, so make fuzz-smoke fuzzes what the issue asks. Any Python exception is
 * fine; a finding is a crash, an ASan/UBSan report or a hang.
 *
 * A mutated pickle must never run a command or touch a file, so three
 * fences, each enough for the common case and together for the rest:
 *  1. find_class answers only an allow-set: ccloudpickle's names (and
 *     cloudpickle's, which it maps to them), builtins' data types and
 *     harmless functions, copyreg's reconstructors, types, enum, array,
 *     collections, functools.partial, typing, a few dataclasses names and
 *     the fuzz-only module cpk_fuzz_mod. No dotted name reaches a module;
 *     getattr, __import__ and subimport are wrapped to the same rule.
 *  2. No function whose code did not exist when the harness started is
 *     called (types.FunctionType's call slot is replaced, before CPython
 *     sets up the frame: it trusts a code object's counts), and a frame
 *     evaluation hook (PEP 523) refuses to run such code anyway: code a pickle builds (by value
 *     functions, methods of classes by value, mutated bytecode) is never
 *     executed, only built, filled and dropped.
 *  3. An audit hook refuses every event outside a short list (imports,
 *     exec/eval, open, os.*, subprocess.*, socket.*, ctypes.*, ...).
 *
 * CPython's objects live on plain malloc (PYMEM_ALLOCATOR_MALLOC) so ASan
 * sees each one; leak detection is off (CPython keeps what it allocates);
 * an allocation above 512 MiB fails with MemoryError instead of exhausting
 * the machine (a pickle may ask CPython for any memo size).
 *
 * Run one input by hand: build/fuzz/loads/fuzz_loads FILE. Environment:
 * FUZZ_LOADS_DEBUG=1 prints each refusal and exception, FUZZ_LOADS_TRACE=1
 * each call of what find_class gave, FUZZ_LOADS_GC=N sets gc threshold 0
 * to N, FUZZ_LOADS_COLLECT=N collects after every N inputs (64),
 * FUZZ_LOADS_DUMPS=1 pickles each result again (see above),
 * FUZZ_LOADS_MALLOC_DEBUG=1 adds CPython's debug allocator hooks. */
#include "internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if PY_VERSION_HEX >= 0x030B0000
/* struct _PyInterpreterFrame, which the frame evaluation hook receives. */
#define Py_BUILD_CORE 1
#include <internal/pycore_frame.h>
#undef Py_BUILD_CORE
typedef struct _PyInterpreterFrame FrameT;
#else
#include <frameobject.h>
typedef PyFrameObject FrameT;
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__asan_default_options(void);

const char *
__asan_default_options(void)
{
    return "detect_leaks=0:allocator_may_return_null=1:"
           "max_allocation_size_mb=512:handle_abort=1";
}

/* The harness's Python side, compiled as "<fuzz_loads>". */
static const char harness_py[] =
"import sys, io, gc, types, builtins, copyreg, enum, array, collections\n"
"import collections.abc, functools, typing, dataclasses, operator\n"
"import _codecs, _operator, _collections, _compat_pickle, warnings\n"
"import abc, io, logging, weakref, opcode\n"
"import encodings.latin_1, encodings.ascii, encodings.utf_8\n"
"import ccloudpickle\n"
"warnings.simplefilter('ignore')\n"
"sys.unraisablehook = lambda unraisable: None\n"
"\n"
"# The fuzz-only module: by-reference names a pickle may use.\n"
"fm = types.ModuleType('cpk_fuzz_mod')\n"
"exec('''\n"
"import enum\n"
"class Plain:\n"
"    attr = 1\n"
"    def method(self):\n"
"        return self.attr\n"
"class Color(enum.Enum):\n"
"    RED = 1\n"
"    BLUE = 2\n"
"def add(a, b):\n"
"    return a + b\n"
"CONST = {'k': (1, 2.5, 'v')}\n"
"''', fm.__dict__)\n"
"sys.modules['cpk_fuzz_mod'] = fm\n"
"\n"
"ANY = None  # every public name, and those listed in EXTRA\n"
"ALLOW = {\n"
"    'ccloudpickle': ANY, 'cpk_fuzz_mod': ANY, 'typing': ANY,\n"
"    'collections.abc': ANY, 'types': ANY, 'enum': ANY,\n"
"    'cloudpickle': ANY, 'cloudpickle.cloudpickle': ANY,\n"
"    'cloudpickle.cloudpickle_fast': ANY,\n"
"    'builtins': {'int', 'float', 'complex', 'str', 'bytes', 'bytearray',\n"
"        'list', 'tuple', 'dict', 'set', 'frozenset', 'bool', 'slice',\n"
"        'range', 'object', 'type', 'property', 'classmethod',\n"
"        'staticmethod', 'super', 'memoryview', 'enumerate', 'zip', 'map',\n"
"        'filter', 'reversed', 'len', 'getattr', '__import__', 'abs',\n"
"        'min', 'max', 'sum', 'sorted', 'repr', 'hash', 'isinstance',\n"
"        'issubclass', 'callable', 'iter', 'next', 'divmod', 'round',\n"
"        'chr', 'ord', 'format', 'ascii', 'bin', 'hex', 'oct', 'any',\n"
"        'all', 'NotImplemented', 'Ellipsis', 'None', 'True', 'False',\n"
"        'Exception', 'ValueError', 'TypeError', 'KeyError',\n"
"        'IndexError', 'AttributeError', 'RuntimeError', 'OSError',\n"
"        'StopIteration', 'ArithmeticError', 'ZeroDivisionError',\n"
"        'LookupError', 'NameError', 'UnicodeDecodeError', 'Warning'},\n"
"    'copyreg': {'_reconstructor', '__newobj__', '__newobj_ex__'},\n"
"    'array': {'array', 'ArrayType', '_array_reconstructor'},\n"
"    'collections': {'OrderedDict', 'Counter', 'deque', 'defaultdict',\n"
"        'ChainMap', 'UserDict', 'UserList', 'UserString'},\n"
"    '_collections': {'OrderedDict', 'deque', 'defaultdict',\n"
"        '_tuplegetter'},\n"
"    'functools': {'partial', 'partialmethod', 'reduce',\n"
"        'cached_property'},\n"
"    '_functools': {'partial', 'reduce'},\n"
"    'dataclasses': {'Field', 'FrozenInstanceError', 'MISSING', 'KW_ONLY',\n"
"        'InitVar', 'field', 'fields', 'is_dataclass', '_DataclassParams',\n"
"        '_HAS_DEFAULT_FACTORY_CLASS', '_HAS_DEFAULT_FACTORY', '_FIELD',\n"
"        '_FIELD_CLASSVAR', '_FIELD_INITVAR', '_FIELD_BASE',\n"
"        '_MISSING_TYPE', '_KW_ONLY_TYPE'},\n"
"    '_codecs': {'encode'},\n"
"    'abc': {'ABCMeta', 'ABC', 'abstractmethod', 'abstractproperty',\n"
"        'abstractclassmethod', 'abstractstaticmethod'},\n"
"    'logging': {'getLogger', 'root'},\n"
"    'io': {'StringIO', 'BytesIO'}, '_io': {'StringIO', 'BytesIO'},\n"
"    'weakref': {'WeakSet'}, '_weakrefset': {'WeakSet'},\n"
"    '_thread': set(),  # a global of dataclasses' __repr__: no names\n"
"    'operator': {'getitem', 'or_', 'and_', 'xor', 'add', 'mul', 'neg',\n"
"        'not_', 'itemgetter'},\n"
"    '_operator': {'getitem', 'or_', 'and_', 'xor', 'add', 'mul', 'neg',\n"
"        'not_', 'itemgetter'},\n"
"}\n"
"# Public names of ANY modules that run or evaluate code, or change\n"
"# state the next input would see.\n"
"DENY = {('typing', 'get_type_hints'), ('typing', 'get_overloads'),\n"
"        ('typing', 'clear_overloads'), ('typing', 'overload'),\n"
"        ('enum', 'global_enum'), ('enum', 'global_enum_repr'),\n"
"        ('enum', 'global_str'), ('enum', 'global_flag_repr'),\n"
"        ('types', 'FrameType'), ('types', 'TracebackType')}\n"
"# Names starting with '_' that ANY modules may still give.\n"
"EXTRA = {'__new__', '_make_function', '_function_setstate',\n"
"         '_class_setstate', '_make_skeleton_class',\n"
"         '_make_skeleton_enum', '_make_typevar', '_builtin_type',\n"
"         '_builtin_type_reconstructor', '_make_cell', '_make_empty_cell',\n"
"         '_empty_cell_value', '_module_reconstructor',\n"
"         '_dynamic_module_reconstructor', '_make_dict_keys',\n"
"         '_make_dict_values', '_make_dict_items', '_file_reconstructor',\n"
"         '_get_dataclass_field_type_sentinel', '_function_new',\n"
"         '_function_fill', '_code_new', '_code_unmarshal', '_import',\n"
"         '_reduce', '_loads_exact', '_find_unpicklable'}\n"
"\n"
"class Refused(Exception):\n"
"    pass\n"
"\n"
"def name_ok(module, name):\n"
"    allowed = ALLOW.get(module, False)\n"
"    if allowed is False or (module, name) in DENY:\n"
"        return False\n"
"    parts = name.split('.')\n"
"    if allowed is ANY:\n"
"        return all(not p.startswith('_') or p in EXTRA for p in parts)\n"
"    return parts[0] in allowed and all(\n"
"        not p.startswith('_') or p == '__new__' for p in parts[1:])\n"
"\n"
"def mapped(module, name):\n"
"    if (module, name) in _compat_pickle.NAME_MAPPING:\n"
"        return _compat_pickle.NAME_MAPPING[(module, name)]\n"
"    return _compat_pickle.IMPORT_MAPPING.get(module, module), name\n"
"\n"
"def check_result(obj, what):\n"
"    if isinstance(obj, types.ModuleType) and obj.__name__ not in ALLOW:\n"
"        raise Refused(f'{what} is the module {obj.__name__}')\n"
"    self = getattr(obj, '__self__', None)\n"
"    if isinstance(self, types.ModuleType) and self.__name__ not in ALLOW:\n"
"        raise Refused(f'{what} is a function of {self.__name__}')\n"
"    return obj\n"
"\n"
"def walk_check(module, name):\n"
"    # A dotted name must not pass through a module.\n"
"    obj = sys.modules.get(module)\n"
"    for part in name.split('.')[:-1]:\n"
"        obj = getattr(obj, part, None)\n"
"        if obj is None:\n"
"            return\n"
"        if isinstance(obj, types.ModuleType):\n"
"            raise Refused(f'{module}.{name} passes through a module')\n"
"\n"
"def resolves(module, name):\n"
"    obj = sys.modules.get(module)\n"
"    for part in name.split('.'):\n"
"        if obj is None:\n"
"            return False\n"
"        obj = getattr(obj, part, None)\n"
"    return obj is not None\n"
"\n"
"def module_ok(name):\n"
"    return isinstance(name, str) and name in ALLOW\n"
"\n"
"def safe_getattr(obj, name, *default):\n"
"    if not isinstance(name, str):\n"
"        raise Refused('getattr with a non-str name')\n"
"    if isinstance(obj, types.ModuleType):\n"
"        if not name_ok(obj.__name__, name):\n"
"            raise Refused(f'getattr({obj.__name__}, {name!r})')\n"
"    result = getattr(obj, name, *default)\n"
"    # Other names with '_' only for the descriptors of slots and\n"
"    # getsets (how a getset descriptor is pickled), never a method.\n"
"    if name.startswith('_') and name not in EXTRA and not isinstance(\n"
"            result, (types.GetSetDescriptorType,\n"
"                     types.MemberDescriptorType)):\n"
"        raise Refused(f'getattr(..., {name!r})')\n"
"    return check_result(result, f'getattr {name}')\n"
"\n"
"def guard_import(real):\n"
"    def guarded(name, *args, **kwargs):\n"
"        if not module_ok(name):\n"
"            raise Refused(f'import of {name!r}')\n"
"        return check_result(real(name, *args, **kwargs), 'import')\n"
"    return guarded\n"
"\n"
"WRAP = {}\n"
"def wrapped(obj):\n"
"    if obj is getattr:\n"
"        return safe_getattr\n"
"    if isinstance(obj, types.BuiltinFunctionType) and (\n"
"            obj is builtins.__import__ or (\n"
"            getattr(obj, '__module__', None) == 'ccloudpickle' and\n"
"            obj.__name__ in ('subimport', '_import'))):\n"
"        w = WRAP.get(id(obj))\n"
"        if w is None:\n"
"            w = WRAP[id(obj)] = (obj, guard_import(obj))\n"
"        return w[1]\n"
"    return obj\n"
"\n"
"# FUZZ_LOADS_TRACE=1: each call of what find_class gave, on stderr.\n"
"TRACE = False\n"
"def traced(obj):\n"
"    if not TRACE or not isinstance(obj, types.BuiltinFunctionType):\n"
"        return obj\n"
"    def call(*args, **kwargs):\n"
"        print('fuzz_loads: call', getattr(obj, '__qualname__', obj),\n"
"              repr(args)[:2000], kwargs, file=sys.stderr, flush=True)\n"
"        result = obj(*args, **kwargs)\n"
"        return traced(result)\n"
"    return call\n"
"\n"
"class FuzzUnpickler(ccloudpickle.Unpickler):\n"
"    def find_class(self, module, name):\n"
"        if not (isinstance(module, str) and isinstance(name, str)):\n"
"            raise Refused('find_class with non-str names')\n"
"        mm, mn = mapped(module, name)\n"
"        if not name_ok(mm, mn):\n"
"            raise Refused(f'find_class({mm!r}, {mn!r})')\n"
"        # The name as written resolves when protocol 3+ skips the\n"
"        # mapping: it must pass too, unless it names nothing here.\n"
"        if (mm, mn) != (module, name) and not name_ok(module, name) and \\\n"
"                resolves(module, name):\n"
"            raise Refused(f'find_class({module!r}, {name!r})')\n"
"        for m, n in {(mm, mn), (module, name)}:\n"
"            walk_check(m, n)\n"
"        obj = super().find_class(module, name)\n"
"        return traced(wrapped(check_result(obj, f'{module}.{name}')))\n"
"\n"
"# Warm up: everything a load may need is imported now (fence 3 refuses\n"
"# imports later), and typing's caches exist.\n"
"ccloudpickle.loads(ccloudpickle.dumps([lambda: 0, fm.Color.RED,\n"
"                                       typing.List[int]]))\n"
"\n"
"def trusted_code():\n"
"    '''Every code object alive now: the only ones fence 2 runs.'''\n"
"    seen = {}\n"
"    todo = [o.__code__ for o in gc.get_objects()\n"
"            if isinstance(o, types.FunctionType)]\n"
"    while todo:\n"
"        c = todo.pop()\n"
"        if id(c) in seen:\n"
"            continue\n"
"        seen[id(c)] = c\n"
"        todo.extend(k for k in c.co_consts if isinstance(k, types.CodeType))\n"
"    return list(seen.values())\n";

/* Fence 2: the code objects that may run, an open-addressing set of
 * pointers (a strong reference to each is kept in trusted_list). */
static PyObject *trusted_list;
static const void **trusted;
static size_t trusted_mask;

static size_t
ptr_hash(const void *p)
{
    uintptr_t v = (uintptr_t)p;
    v ^= v >> 33;
    v *= 0xff51afd7ed558ccdULL;
    v ^= v >> 33;
    return (size_t)v;
}

static int
is_trusted(const void *code)
{
    for (size_t i = ptr_hash(code) & trusted_mask;; i = (i + 1) & trusted_mask) {
        if (trusted[i] == code)
            return 1;
        if (trusted[i] == NULL)
            return 0;
    }
}

static int armed;
static int debug;
static int dumps_too;    /* FUZZ_LOADS_DUMPS: pickle the result again */
static unsigned collect_every = 64; /* FUZZ_LOADS_COLLECT=N */

/* The code object a frame runs (borrowed). */
#if PY_VERSION_HEX >= 0x030D0000
#define FRAME_CODE(f) ((PyCodeObject *)(f)->f_executable)
#elif PY_VERSION_HEX >= 0x030B0000
#define FRAME_CODE(f) ((f)->f_code)
#else
#define FRAME_CODE(f) ((f)->f_code)
#endif

/* The frame evaluation function (PEP 523): every Python frame starts
 * here, Python-to-Python calls too (CPython does not inline them while a
 * hook is set). A profile function would not do: 3.11 reports a call from
 * the RESUME instruction, which a built code object need not have. */
static PyObject *
gate(PyThreadState *tstate, FrameT *frame, int throwflag)
{
    PyCodeObject *code = FRAME_CODE(frame);
    if (armed && !is_trusted(code)) {
        if (debug)
            fprintf(stderr, "fuzz_loads: refused to run %s\n",
                    PyUnicode_AsUTF8(code->co_name));
        PyErr_SetString(PyExc_RuntimeError,
                        "fuzz_loads: code built by the pickle does not run");
        return NULL;
    }
    return _PyEval_EvalFrameDefault(tstate, frame, throwflag);
}

static PyObject *
gate_call(PyObject *func, PyObject *args, PyObject *kwargs)
{
    PyObject *code = PyFunction_GET_CODE(func);
    if (armed && !is_trusted(code)) {
        if (debug)
            fprintf(stderr, "fuzz_loads: refused to call %s\n",
                    PyUnicode_AsUTF8(((PyCodeObject *)code)->co_name));
        PyErr_SetString(PyExc_RuntimeError,
                        "fuzz_loads: functions built by the pickle are not "
                        "called");
        return NULL;
    }
    return PyVectorcall_Call(func, args, kwargs);
}

/* Fence 3: the audit events a load may raise. */
static const char *const allowed_events[] = {
    "pickle.find_class", "marshal.loads", "marshal.dumps",
    "object.__setattr__",
    "object.__delattr__", "object.__getattr__", "code.__new__",
    "function.__new__", "sys._getframe", "array.__new__", "compile",
    "builtins.id", NULL,
};

static int
audit(const char *event, PyObject *args, void *data)
{
    (void)args;
    (void)data;
    if (!armed)
        return 0;
    for (const char *const *e = allowed_events; *e != NULL; e++)
        if (strcmp(event, *e) == 0)
            return 0;
    if (debug)
        fprintf(stderr, "fuzz_loads: refused audit event %s\n", event);
    PyErr_Format(PyExc_RuntimeError, "fuzz_loads: audit event %s refused",
                 event);
    return -1;
}

static PyObject *unpickler_type;
static PyObject *dumps;
static cpk_state *state;

static void
fail(const char *what)
{
    fprintf(stderr, "fuzz_loads: %s\n", what);
    if (PyErr_Occurred())
        PyErr_Print();
    exit(1);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    debug = getenv("FUZZ_LOADS_DEBUG") != NULL;
    dumps_too = getenv("FUZZ_LOADS_DUMPS") != NULL;
    const char *every = getenv("FUZZ_LOADS_COLLECT");
    if (every != NULL && atoi(every) > 0)
        collect_every = (unsigned)atoi(every);
    PyPreConfig pre;
    PyPreConfig_InitIsolatedConfig(&pre);
    /* FUZZ_LOADS_MALLOC_DEBUG=1: CPython's debug hooks on top (freed
     * objects filled with 0xDD, pads checked on free), so a stale object
     * pointer fails where it is used, not where ASan recycles memory. */
    pre.allocator = getenv("FUZZ_LOADS_MALLOC_DEBUG") != NULL
                        ? PYMEM_ALLOCATOR_MALLOC_DEBUG
                        : PYMEM_ALLOCATOR_MALLOC;
    PyStatus status = Py_PreInitialize(&pre);
    if (PyStatus_Exception(status))
        Py_ExitStatusException(status);
    if (PyImport_AppendInittab(CPK_MODULE_NAME, PyInit_ccloudpickle) < 0)
        fail("PyImport_AppendInittab failed");
    PyConfig config;
    PyConfig_InitIsolatedConfig(&config);
    config.install_signal_handlers = 0;
    config.site_import = 0;
    config.write_bytecode = 0;
    /* A fixed hash seed: an input does the same thing every run (set and
     * dict orders of str follow the seed). */
    config.use_hash_seed = 1;
    config.hash_seed = 0;
    status = PyConfig_SetBytesString(&config, &config.home, CPK_HOME);
    if (!PyStatus_Exception(status))
        status = Py_InitializeFromConfig(&config);
    PyConfig_Clear(&config);
    if (PyStatus_Exception(status))
        Py_ExitStatusException(status);

    PyObject *code = Py_CompileString(harness_py, "<fuzz_loads>",
                                      Py_file_input);
    PyObject *mod = code ? PyImport_ExecCodeModule("cpk_fuzz_harness", code)
                         : NULL;
    Py_XDECREF(code);
    if (mod == NULL)
        fail("the harness's Python side failed");
    /* FUZZ_LOADS_GC=N: a collection every N allocations (gc threshold
     * 0 of N), which finds references held across a collection sooner. */
    const char *gcn = getenv("FUZZ_LOADS_GC");
    if (gcn != NULL && *gcn != '\0') {
        PyObject *r = PyRun_String("__import__('gc').set_threshold(int(__import__('os').environ['FUZZ_LOADS_GC']))",
                                   Py_eval_input, PyModule_GetDict(mod),
                                   PyModule_GetDict(mod));
        if (r == NULL)
            fail("FUZZ_LOADS_GC");
        Py_DECREF(r);
    }
    if (getenv("FUZZ_LOADS_TRACE") != NULL &&
        PyObject_SetAttrString(mod, "TRACE", Py_True) < 0)
        fail("cannot set TRACE");
    unpickler_type = PyObject_GetAttrString(mod, "FuzzUnpickler");
    PyObject *cpk = PyImport_ImportModule(CPK_MODULE_NAME);
    trusted_list = PyObject_CallMethod(mod, "trusted_code", NULL);
    Py_DECREF(mod);
    if (unpickler_type == NULL || cpk == NULL || trusted_list == NULL)
        fail("the harness's Python side failed");
    dumps = PyObject_GetAttrString(cpk, "dumps");
    if (dumps == NULL)
        fail("no ccloudpickle.dumps");
    state = cpk_get_state(cpk); /* the module stays in sys.modules */
    Py_DECREF(cpk);

    Py_ssize_t n = PyList_GET_SIZE(trusted_list);
    size_t cap = 1024;
    while (cap < (size_t)n * 2)
        cap <<= 1;
    trusted = calloc(cap, sizeof(*trusted));
    if (trusted == NULL)
        fail("out of memory");
    trusted_mask = cap - 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        const void *c = PyList_GET_ITEM(trusted_list, i);
        size_t j = ptr_hash(c) & trusted_mask;
        while (trusted[j] != NULL)
            j = (j + 1) & trusted_mask;
        trusted[j] = c;
    }
    _PyInterpreterState_SetEvalFrameFunc(PyInterpreterState_Get(), gate);
    /* Every call of a function then takes tp_call (CPython inlines no
     * Python-to-Python call while a frame hook is set), which still finds
     * the function's vectorcall through PyVectorcall_Call. */
    PyFunction_Type.tp_flags &= ~Py_TPFLAGS_HAVE_VECTORCALL;
    PyFunction_Type.tp_call = gate_call;
    if (PySys_AddAuditHook(audit, NULL) < 0)
        fail("PySys_AddAuditHook failed");
    armed = 1;
    return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static unsigned runs;
    PyObject *bytes = PyBytes_FromStringAndSize((const char *)data,
                                                (Py_ssize_t)size);
    if (bytes == NULL) {
        PyErr_Clear();
        return 0;
    }
    /* As ccloudpickle.loads does it: the in-memory reader, then load()
     * with the collector paused for a large input. */
    PyObject *reader = cpk_reader_new(state, bytes);
    Py_DECREF(bytes);
    if (reader == NULL) {
        PyErr_Clear();
        return 0;
    }
    PyObject *u = PyObject_CallOneArg(unpickler_type, reader);
    if (u != NULL) {
        PyObject *result = cpk_load_with(state, u,
                                         cpk_reader_remaining(reader));
        if (debug && result == NULL) {
            armed = 0; /* sys.excepthook's audit event */
            fprintf(stderr, "fuzz_loads: ");
            PyErr_Print();
            armed = 1;
        }
        /* The way back: what a mutated pickle built (a function whose
         * code and closure disagree, a class with odd attributes) is
         * pickled again, which walks its bytecode and namespace. */
        if (result != NULL && dumps_too) {
            PyObject *again = PyObject_CallOneArg(dumps, result);
            Py_XDECREF(again);
            PyErr_Clear();
        }
        Py_XDECREF(result);
        Py_DECREF(u);
    }
    Py_DECREF(reader);
    PyErr_Clear();
    /* Classes and functions by value live in reference cycles: free them
     * now and then, so memory stays flat (and their teardown is fuzzed). */
    if (++runs % collect_every == 0) {
        PyGC_Collect();
        PyErr_Clear();
    }
    return 0;
}
