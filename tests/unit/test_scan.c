/* test_scan.c - the static pickle inspector (src/scan/pkscan.h) and its marshal
 * reader (src/scan/marshal_scan.h): well-formed pickles of every protocol are
 * accepted with the right facts, malformed ones refused with CPython's
 * reason at the right byte, nothing is executed, functions and classes
 * carried by value are described. Pickles are made in-process by Python
 * (cpk_py_bytes); the scanner itself never touches Python. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scan/marshal_scan.h"
#include "scan/pkscan.h"
#include "support.h"

#include <criterion/parameterized.h>

TestSuite(scan, .init = cpk_py_start, .fini = cpk_py_stop);
/* Tests that need no Python. */
TestSuite(scan_c);

static pkscan_report *scan_bytes(const void *p, size_t n)
{
    pkscan_report *r = pkscan_scan(p, n, 0);
    cr_assert(r != NULL, "pkscan_scan returned NULL");
    return r;
}

/* Scan the bytes Python's `expr` evaluates to (the copy is freed at once:
 * the report must not point into it). */
static pkscan_report *scan_py(const char *expr)
{
    size_t n;
    char *data = cpk_py_bytes(expr, &n);
    pkscan_report *r = scan_bytes(data, n);
    memset(data, 0xAA, n);
    free(data);
    return r;
}

static void assert_ok(const pkscan_report *r, const char *what)
{
    cr_assert(r->status == PKSCAN_OK, "%s: %s (%s) at byte %zu", what,
              pkscan_status_name(r->status), r->error ? r->error : "",
              r->error_offset);
}

static int str_is(pkscan_str s, const char *lit)
{
    return s.s != NULL && s.len == strlen(lit) && memcmp(s.s, lit, s.len) == 0;
}

static const pkscan_import *find_import(const pkscan_report *r,
                                        const char *module, const char *name)
{
    for (size_t i = 0; i < r->n_imports; i++)
        if (str_is(r->imports[i].module, module) &&
            str_is(r->imports[i].name, name))
            return &r->imports[i];
    return NULL;
}

static const pkscan_function *find_fn(const pkscan_report *r,
                                      const char *qualname)
{
    for (size_t i = 0; i < r->n_functions; i++)
        if (str_is(r->functions[i].qualname, qualname))
            return &r->functions[i];
    return NULL;
}

static const pkscan_class *find_cls(const pkscan_report *r, const char *name)
{
    for (size_t i = 0; i < r->n_classes; i++)
        if (str_is(r->classes[i].name, name))
            return &r->classes[i];
    return NULL;
}

/* Debian's cloudpickle 2.2 is installed for the system Python (3.11). */
static void need_debian_cloudpickle(void)
{
    struct stat st;
    if (strcmp(CPK_PYTHON, "/usr/bin/python3") != 0 ||
        stat("/usr/lib/python3/dist-packages/cloudpickle", &st) != 0)
        cr_skip_test("Debian's cloudpickle 2.2 is for /usr/bin/python3");
}

/* "kind:name kind:name ..." of a function's parameters. */
static void params_text(const pkscan_param *p, size_t n, char *buf,
                        size_t cap)
{
    size_t k = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && k < cap; i++)
        k += (size_t)snprintf(buf + k, cap - k, "%s%s:%s", i ? " " : "",
                              pkscan_param_kind_name(p[i].kind),
                              p[i].name.s ? p[i].name.s : "?");
}

static void strs_text(const pkscan_str *s, size_t n, char *buf, size_t cap)
{
    size_t k = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && k < cap; i++)
        k += (size_t)snprintf(buf + k, cap - k, "%s%s", i ? " " : "",
                              s[i].s ? s[i].s : "?");
}

/* Opcode families ---------------------------------------------------------- */

typedef struct {
    char name[40];
    char data[96];
    size_t len;
    char result[16]; /* result_kind */
    int protocol;
} ok_case;

#define OK(n, lit, res, proto) {n, lit, sizeof(lit) - 1, res, proto}

static ok_case ok_cases[] = {
    OK("INT", "I42\n.", "int", -1),
    OK("INT bool", "I01\n.", "bool", -1),
    OK("INT bool +1", "I+1\n.", "bool", -1),
    OK("INT bool -0", "I-0\n.", "bool", -1),
    OK("INT 10", "I10\n.", "int", -1),
    OK("INT hex past a long", "I0x7fffffffffffffffff\n.", "int", -1),
    OK("INT LONG_MIN", "I-9223372036854775808\n.", "int", -1),
    OK("INT spaces", "I 12 \n.", "int", -1),
    OK("INT underscores hex", "I0x_1f\n.", "int", -1),
    OK("LONG octal", "L0o17L\n.", "int", -1),
    OK("FLOAT big", "F1.7976931348623157e308\n.", "float", -1),
    OK("FLOAT tiny", "F1e-999\n.", "float", -1),
    OK("GET -0", "Np0\ng-0\n.", "None", -1),
    OK("INT octal", "I012\n.", "int", -1),
    OK("INT big", "I123456789012345678901234567890\n.", "int", -1),
    OK("LONG", "L12L\n.", "int", -1),
    OK("FLOAT", "F-1.5e3\n.", "float", -1),
    OK("FLOAT inf", "Finf\n.", "float", -1),
    OK("STRING", "S'a\\x41\\n'\n.", "str", -1),
    OK("UNICODE", "Va\\u20acb\n.", "str", -1),
    OK("NONE", "N.", "None", -1),
    OK("list p0", "(lp0\nI1\naI2\na.", "list", -1),
    OK("dict p0", "(dp0\nVa\np1\nI1\ns.", "dict", -1),
    OK("GET p0", "(lp0\ng0\na.", "list", -1),
    OK("TUPLE p0", "(I1\nI2\nt.", "tuple", -1),
    OK("POP POP_MARK", "NN0(N1.", "None", -1),
    OK("POP of a MARK", "N(0.", "None", -1),
    OK("DUP", "(N2t.", "tuple", -1),
    OK("binary ints", "\x80\x02K\x01M\x02\x01J\xff\xff\xff\xff\x87.", "tuple", 2),
    OK("LONG1 LONG4", "\x80\x02\x8a\x01\xff\x8b\x01\x00\x00\x00\x01\x86.",
       "tuple", 2),
    OK("BINFLOAT", "G?\xf8\x00\x00\x00\x00\x00\x00.", "float", -1),
    OK("strings", "\x80\x04U\x01" "aT\x01\x00\x00\x00" "bX\x01\x00\x00\x00" "c\x8c\x01" "d"
       "\x8d\x01\x00\x00\x00\x00\x00\x00\x00" "e(t.", "tuple", 4),
    OK("bytes", "\x80\x05" "C\x01" "aB\x01\x00\x00\x00" "b\x8e\x01\x00\x00\x00\x00\x00"
       "\x00\x00" "c\x96\x01\x00\x00\x00\x00\x00\x00\x00" "d\x87.", "tuple", 5),
    OK("bools", "\x80\x02\x88\x89\x86.", "tuple", 2),
    OK("containers", "\x80\x04]K\x01" "a](K\x01K\x02" "e}K\x01K\x02s}(K\x01K\x02u"
       "\x8f(K\x01\x90(K\x01\x91)\x94\x85\x94(t.", "tuple", 4),
    OK("memo", "\x80\x04N\x94q\x05r\x06\x00\x00\x00h\x00h\x05j\x06\x00\x00\x00"
       "(t.", "tuple", 4),
    OK("FRAME ends after an opcode byte",
       "\x80\x04\x95\x01\x00\x00\x00\x00\x00\x00\x00K\x01.", "int", 4),
    OK("FRAME", "\x80\x04\x95\x02\x00\x00\x00\x00\x00\x00\x00N.", "None", 4),
    OK("GLOBAL REDUCE", "cbuiltins\nset\n)R.", "instance", -1),
    OK("STACK_GLOBAL", "\x80\x04\x8c\x08" "builtins\x8c\x03set\x93)R.", "instance",
       4),
    OK("REDUCE non-callable", "\x80\x02K\x01)R.", "instance", 2),
    OK("INST", "(icollections\nOrderedDict\n.", "instance", -1),
    OK("OBJ", "(cbuiltins\nobject\no.", "instance", -1),
    OK("NEWOBJ", "\x80\x02" "cbuiltins\nobject\n)\x81.", "instance", 2),
    OK("NEWOBJ_EX", "\x80\x04" "cbuiltins\nobject\n)}\x92.", "instance", 4),
    OK("BUILD", "\x80\x02" "cargparse\nNamespace\n)\x81}b.", "instance", 2),
    OK("BUILD None state", "\x80\x02]Nb.", "list", 2),
    OK("BUILD None, {} slots", "\x80\x02]N}\x86" "b.", "list", 2),
    OK("EXT", "\x80\x02\x82\x01\x83\x02\x01\x84\x03\x00\x00\x00\x87.", "tuple",
       2),
    OK("NEXT_BUFFER", "\x80\x05\x97\x98.", "buffer", 5),
    OK("READONLY_BUFFER bytes", "\x80\x05" "C\x01" "a\x98.", "bytes", 5),
    OK("APPENDS empty", "\x80\x02K\x01(e.", "int", 2),
    OK("leftover stack and mark", "\x80\x02(NN.", "None", 2),
};

ParameterizedTestParameters(scan_c, opcode_families)
{
    return cr_make_param_array(ok_case, ok_cases,
                               sizeof ok_cases / sizeof *ok_cases);
}

ParameterizedTest(ok_case *c, scan_c, opcode_families)
{
    pkscan_report *r = scan_bytes(c->data, c->len);
    assert_ok(r, c->name);
    cr_assert_str_eq(r->result_kind, c->result, "%s", c->name);
    cr_assert_eq(r->protocol, c->protocol, "%s: protocol %d", c->name,
                 r->protocol);
    cr_assert_eq(r->stop_offset, c->len - 1, "%s", c->name);
    pkscan_free(r);
}

Test(scan_c, ext_and_buffers_reported)
{
    static const char p[] = "\x80\x05\x82\x07\x97\x97\x87.";
    pkscan_report *r = scan_bytes(p, sizeof p - 1);
    assert_ok(r, "ext");
    cr_assert_eq(r->n_buffers, 2);
    cr_assert_eq(r->n_imports, 1);
    cr_assert_eq(r->imports[0].via, PKSCAN_VIA_EXT);
    cr_assert_eq(r->imports[0].ext_code, 7);
    cr_assert_eq(r->imports[0].offset, 2);
    cr_assert(r->imports[0].dangerous);
    cr_assert(pkscan_strict_violation(r));
    pkscan_free(r);
}

Test(scan_c, protocol_2_names_are_mapped_as_find_class_does)
{
    static const char p[] = "\x80\x02" "c__builtin__\neval\nc__builtin__\nxrange\n"
                            "\x86.";
    pkscan_report *r = scan_bytes(p, sizeof p - 1);
    assert_ok(r, "fix_imports");
    const pkscan_import *ev = find_import(r, "builtins", "eval");
    cr_assert(ev != NULL && ev->dangerous);
    cr_assert(str_is(ev->written_module, "__builtin__"));
    cr_assert(find_import(r, "builtins", "range") != NULL);
    pkscan_free(r);
    /* protocol 3 and later: no mapping */
    static const char q[] = "\x80\x03" "c__builtin__\neval\n.";
    r = scan_bytes(q, sizeof q - 1);
    cr_assert(find_import(r, "__builtin__", "eval") != NULL);
    pkscan_free(r);
    /* Unpickler(fix_imports=False) */
    r = pkscan_scan(p, sizeof p - 1, PKSCAN_NO_FIX_IMPORTS);
    cr_assert(find_import(r, "__builtin__", "eval") != NULL);
    cr_assert(find_import(r, "__builtin__", "xrange") != NULL);
    pkscan_free(r);
}

Test(scan_c, dynamic_stack_global_is_dangerous)
{
    /* STACK_GLOBAL on names computed by a REDUCE: unknown statically */
    static const char p[] = "\x80\x04\x8c\x08" "builtins\x8c\x03str\x93\x8c\x02os"
                            "\x85R\x8c\x06system\x93.";
    pkscan_report *r = scan_bytes(p, sizeof p - 1);
    assert_ok(r, "dynamic");
    int found = 0;
    for (size_t i = 0; i < r->n_imports; i++)
        if (r->imports[i].via == PKSCAN_VIA_DYNAMIC)
            found = r->imports[i].dangerous;
    cr_assert(found, "dynamic import not reported as dangerous");
    pkscan_free(r);
}

/* Errors ------------------------------------------------------------------- */

typedef struct {
    char name[40];
    char data[48];
    size_t len;
    pkscan_status status;
    size_t offset;
    char fragment[48];
} err_case;

#define ERR(n, lit, st, off, frag) {n, lit, sizeof(lit) - 1, st, off, frag}

static err_case err_cases[] = {
    ERR("empty", "", PKSCAN_ERR_TRUNCATED, 0, "Ran out of input"),
    ERR("no STOP", "\x80\x04N", PKSCAN_ERR_TRUNCATED, 3, "truncated"),
    ERR("cut argument", "\x80\x04J\x01\x02", PKSCAN_ERR_TRUNCATED, 2,
        "truncated"),
    ERR("no newline", "cos\nsystem", PKSCAN_ERR_TRUNCATED, 0, "truncated"),
    ERR("empty INT line", "I\n.", PKSCAN_ERR_TRUNCATED, 0, "truncated"),
    ERR("bad opcode", "\x80\x04N\xff.", PKSCAN_ERR_OPCODE, 3,
        "invalid load key, '\\xff'"),
    ERR("bad opcode ascii", "Nz.", PKSCAN_ERR_OPCODE, 1, "'z'"),
    ERR("STOP on empty", ".", PKSCAN_ERR_UNDERFLOW, 0, "stack underflow"),
    ERR("STOP at MARK", "N(.", PKSCAN_ERR_UNDERFLOW, 2, "unexpected MARK"),
    ERR("POP empty", "0.", PKSCAN_ERR_UNDERFLOW, 0, "underflow"),
    ERR("DUP empty", "2.", PKSCAN_ERR_UNDERFLOW, 0, "underflow"),
    ERR("TUPLE2 short", "\x80\x02N\x86.", PKSCAN_ERR_UNDERFLOW, 3,
        "underflow"),
    ERR("TUPLE1 across MARK", "\x80\x02N(\x85.", PKSCAN_ERR_UNDERFLOW, 4,
        "unexpected MARK"),
    ERR("REDUCE short", "\x80\x02)R.", PKSCAN_ERR_UNDERFLOW, 3, "underflow"),
    ERR("APPEND short", "\x80\x02]a.", PKSCAN_ERR_UNDERFLOW, 3, "underflow"),
    ERR("TUPLE no MARK", "Nt.", PKSCAN_ERR_MARK, 1, "could not find MARK"),
    ERR("POP_MARK no MARK", "1.", PKSCAN_ERR_MARK, 0, "MARK"),
    ERR("SETITEMS no MARK", "}u.", PKSCAN_ERR_MARK, 1, "MARK"),
    ERR("BINGET unset", "\x80\x04h\x05.", PKSCAN_ERR_MEMO, 2, "index 5"),
    ERR("GET unset", "g3\n.", PKSCAN_ERR_MEMO, 0, "index 3"),
    ERR("PUT negative", "Np-1\n.", PKSCAN_ERR_MEMO, 1, "negative PUT"),
    ERR("PUT empty", "p0\n.", PKSCAN_ERR_UNDERFLOW, 0, "underflow"),
    ERR("huge memo index", "\x80\x04Nr\x00\x00\x00\x10.", PKSCAN_ERR_MEMO, 3,
        "268435456"),
    ERR("STACK_GLOBAL ints", "\x80\x04K\x01K\x02\x93.", PKSCAN_ERR_TYPE, 6,
        "STACK_GLOBAL requires str"),
    ERR("SETITEMS odd", "\x80\x02}(Nu.", PKSCAN_ERR_TYPE, 5, "odd number"),
    ERR("DICT odd", "(Nd.", PKSCAN_ERR_TYPE, 2, "odd number of items for DICT"),
    ERR("SETITEMS on tuple", "\x80\x02)(NNu.", PKSCAN_ERR_TYPE, 6,
        "__setitem__"),
    ERR("APPENDS on int", "\x80\x02K\x01(Ne.", PKSCAN_ERR_TYPE, 6, "append"),
    ERR("ADDITEMS on list", "\x80\x04](N\x90.", PKSCAN_ERR_TYPE, 5, "'add'"),
    ERR("unhashable key", "\x80\x02}]Ns.", PKSCAN_ERR_TYPE, 5, "unhashable"),
    ERR("NEWOBJ on int", "\x80\x02K\x01)\x81.", PKSCAN_ERR_TYPE, 5,
        "must be a type, not int"),
    ERR("NEWOBJ args", "\x80\x02" "cbuiltins\nobject\nN\x81.", PKSCAN_ERR_TYPE,
        20, "must be a tuple"),
    ERR("BUILD on int", "\x80\x02K\x01K\x02" "b.", PKSCAN_ERR_TYPE, 6,
        "state is not a dictionary"),
    ERR("BUILD dict on list", "\x80\x02]}b.", PKSCAN_ERR_TYPE, 4,
        "__dict__"),
    ERR("BUILD slots on list", "\x80\x02]N}K\x01K\x02s\x86" "b.", PKSCAN_ERR_TYPE, 11,
        "read-only"),
    ERR("READONLY_BUFFER int", "\x80\x05K\x01\x98.", PKSCAN_ERR_TYPE, 4,
        "bytes-like"),
    ERR("STRING unquoted", "Sabc\n.", PKSCAN_ERR_VALUE, 0, "must be quoted"),
    ERR("STRING bad \\x", "S'\\x4'\n.", PKSCAN_ERR_VALUE, 0, "\\x escape"),
    ERR("UNICODE bad \\u", "V\\u12\n.", PKSCAN_ERR_VALUE, 0, "truncated"),
    ERR("INT text", "Iabc\n.", PKSCAN_ERR_VALUE, 0, "int()"),
    ERR("FLOAT text", "F1.5x\n.", PKSCAN_ERR_VALUE, 0, "float"),
    ERR("FLOAT space", "F 1.5\n.", PKSCAN_ERR_VALUE, 0, "float"),
    ERR("FLOAT overflow", "F1e999\n.", PKSCAN_ERR_VALUE, 0, "too large"),
    ERR("FLOAT rounds to inf", "F1.7976931348623159e308\n.",
        PKSCAN_ERR_VALUE, 0, "too large"),
    ERR("INT octal 8", "I08\n.", PKSCAN_ERR_VALUE, 0, "int()"),
    ERR("INT octal past a long", "I0777777777777777777777777777\n.",
        PKSCAN_ERR_VALUE, 0, "int()"),
    ERR("BINUNICODE utf-8", "X\x02\x00\x00\x00\xff\xfe.", PKSCAN_ERR_VALUE, 0,
        "utf-8"),
    ERR("GLOBAL utf-8", "c\xff\nx\n.", PKSCAN_ERR_VALUE, 0, "UTF-8"),
    ERR("EXT code 0", "\x80\x02\x82\x00.", PKSCAN_ERR_VALUE, 2, "code <= 0"),
    ERR("BINUNICODE long", "X\xff\xff\xff\xff.", PKSCAN_ERR_LENGTH, 0,
        "exceeds"),
    ERR("BINSTRING negative", "T\xff\xff\xff\xff.", PKSCAN_ERR_LENGTH, 0,
        "negative byte count"),
    ERR("LONG4 negative", "\x8b\xff\xff\xff\xff.", PKSCAN_ERR_LENGTH, 0,
        "negative byte count"),
    ERR("BINBYTES8 huge", "\x8e\xff\xff\xff\xff\xff\xff\xff\xff.",
        PKSCAN_ERR_LENGTH, 0, "maximum"),
    /* CPython allocates first, and its failure path reads uninitialised
     * memory (PyByteArray_FromStringAndSize -> bytearray_dealloc prints
     * "deallocated bytearray object has exported buffers") */
    ERR("BYTEARRAY8 huge", "\x80\x05\x96\xff\xff\xff\xff\xff\xff\xff\x0f.",
        PKSCAN_ERR_LENGTH, 2, "BYTEARRAY8 length"),
    ERR("FRAME long", "\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00N.",
        PKSCAN_ERR_LENGTH, 2, "FRAME"),
    ERR("frame: argument crosses the end",
        "\x80\x04\x95\x02\x00\x00\x00\x00\x00\x00\x00J\x01\x00\x00\x00.",
        PKSCAN_ERR_LENGTH, 11, "exhausted before end of frame"),
    ERR("frame: FRAME inside a frame",
        "\x80\x04\x95\x0a\x00\x00\x00\x00\x00\x00\x00"
        "\x95\x00\x00\x00\x00\x00\x00\x00\x00N.",
        PKSCAN_ERR_LENGTH, 11, "new frame before end"),
    ERR("PROTO 6", "\x80\x06N.", PKSCAN_ERR_PROTOCOL, 0,
        "unsupported pickle protocol: 6"),
    ERR("PERSID", "P1\n.", PKSCAN_ERR_UNSUPPORTED, 0, "persistent"),
    ERR("BINPERSID", "NQ.", PKSCAN_ERR_UNSUPPORTED, 1, "persistent"),
    ERR("trailing", "\x80\x04N.junk", PKSCAN_ERR_TRAILING, 4,
        "4 bytes of data after"),
};

ParameterizedTestParameters(scan_c, errors)
{
    return cr_make_param_array(err_case, err_cases,
                               sizeof err_cases / sizeof *err_cases);
}

ParameterizedTest(err_case *c, scan_c, errors)
{
    pkscan_report *r = scan_bytes(c->data, c->len);
    cr_assert_eq(r->status, c->status, "%s: got %s (%s)", c->name,
                 pkscan_status_name(r->status), r->error ? r->error : "-");
    cr_assert_eq(r->error_offset, c->offset, "%s: offset %zu", c->name,
                 r->error_offset);
    cr_assert(r->error != NULL && strstr(r->error, c->fragment),
              "%s: message '%s' lacks '%s'", c->name, r->error, c->fragment);
    cr_assert_str_neq(pkscan_status_name(r->status), "unknown");
    pkscan_free(r);
}

Test(scan, error_kinds_match_what_cpython_refuses)
{
    /* Each error case (but the scanner's own stricter ones: trailing
     * data, the memo bound, PERSID which needs a persistent_load) is
     * refused by pickle.loads too; each OK case loads. */
    PyObject *main = PyImport_AddModule("__main__");
    PyObject *g = PyModule_GetDict(main);
    cr_assert(PyRun_String("import pickle, io\n", Py_file_input, g, g));
    for (size_t i = 0; i < sizeof err_cases / sizeof *err_cases; i++) {
        err_case *c = &err_cases[i];
        if (c->status == PKSCAN_ERR_TRAILING ||
            strcmp(c->name, "huge memo index") == 0)
            continue;
        if (strncmp(c->name, "frame:", 6) == 0) {
            /* the C unpickler ignores frames in bytes; pickle's Python
             * implementation refuses these */
            PyObject *b = PyBytes_FromStringAndSize(c->data,
                                                    (Py_ssize_t)c->len);
            PyDict_SetItemString(g, "data", b);
            Py_DECREF(b);
            PyObject *res = PyRun_String(
                "try:\n"
                "    pickle._loads(data)\n"
                "    refused = False\n"
                "except pickle.UnpicklingError as e:\n"
                "    refused = 'frame' in str(e)\n",
                Py_file_input, g, g);
            cr_assert(res != NULL);
            Py_DECREF(res);
            cr_assert(PyObject_IsTrue(PyDict_GetItemString(g, "refused")),
                      "%s: pickle._loads accepts it", c->name);
            continue;
        }
        PyObject *b = PyBytes_FromStringAndSize(c->data, (Py_ssize_t)c->len);
        PyDict_SetItemString(g, "data", b);
        Py_DECREF(b);
        PyObject *res = PyRun_String(
            "try:\n"
            "    pickle.loads(data)\n"
            "    refused = False\n"
            "except Exception:\n"
            "    refused = True\n",
            Py_file_input, g, g);
        cr_assert(res != NULL);
        Py_DECREF(res);
        cr_assert(PyObject_IsTrue(PyDict_GetItemString(g, "refused")),
                  "%s: pickle.loads accepts it", c->name);
    }
    for (size_t i = 0; i < sizeof ok_cases / sizeof *ok_cases; i++) {
        ok_case *c = &ok_cases[i];
        if (strstr(c->name, "EXT") || strstr(c->name, "BUFFER") ||
            strstr(c->name, "non-callable"))
            continue; /* need a registry, buffers= or would fail calling */
        PyObject *b = PyBytes_FromStringAndSize(c->data, (Py_ssize_t)c->len);
        PyDict_SetItemString(g, "data", b);
        Py_DECREF(b);
        PyObject *res = PyRun_String("pickle.loads(data)\n", Py_file_input,
                                     g, g);
        if (res == NULL)
            PyErr_Print();
        cr_assert(res != NULL, "%s: pickle.loads refuses it", c->name);
        Py_DECREF(res);
    }
}

Test(scan, truncated_at_every_length)
{
    cpk_py("import ccloudpickle\n"
           "def outer(a, b=2, *args, c, d=4, **kw):\n"
           "    z = 5\n"
           "    def inner(x, /, y):\n"
           "        return x + y + z + a\n"
           "    return inner\n");
    size_t n;
    char *data = cpk_py_bytes("ccloudpickle.dumps(outer(1, c=3))", &n);
    pkscan_report *r = scan_bytes(data, n);
    assert_ok(r, "whole");
    pkscan_free(r);
    for (size_t len = 0; len < n; len++) {
        /* a fresh copy of exactly len bytes: ASan sees any overread */
        char *cut = malloc(len ? len : 1);
        memcpy(cut, data, len);
        r = scan_bytes(cut, len);
        cr_assert(r->status == PKSCAN_ERR_TRUNCATED ||
                      r->status == PKSCAN_ERR_LENGTH,
                  "prefix of %zu bytes: %s (%s)", len,
                  pkscan_status_name(r->status), r->error ? r->error : "-");
        cr_assert(r->error_offset <= len);
        pkscan_free(r);
        free(cut);
    }
    free(data);
}

Test(scan_c, deep_nesting_needs_no_recursion)
{
    size_t depth = 1000000, n = 3 + 2 * depth + 1;
    char *p = malloc(n + 8);
    size_t k = 0;
    p[k++] = '\x80';
    p[k++] = 4;
    memset(p + k, '(', depth);
    k += depth;
    p[k++] = 'N';
    memset(p + k, 't', depth);
    k += depth;
    p[k++] = '.';
    pkscan_report *r = scan_bytes(p, k);
    assert_ok(r, "deep MARK/TUPLE");
    cr_assert_str_eq(r->result_kind, "tuple");
    pkscan_free(r);
    /* the same as a chain of TUPLE1, and of lists appended to lists */
    k = 2;
    p[k++] = 'N';
    memset(p + k, '\x85', depth);
    k += depth;
    p[k++] = '.';
    r = scan_bytes(p, k);
    assert_ok(r, "deep TUPLE1");
    pkscan_free(r);
    free(p);
}

/* Imports and danger ------------------------------------------------------- */

Test(scan, os_system_is_dangerous_and_nothing_runs)
{
    char marker[256], tmp[200];
    cpk_tmpdir(tmp, sizeof tmp);
    snprintf(marker, sizeof marker, "%s/marker", tmp);
    char code[600];
    snprintf(code, sizeof code,
             "import os, pickle\n"
             "class Evil:\n"
             "    def __reduce__(self):\n"
             "        return (os.system, ('touch %s',))\n",
             marker);
    cpk_py(code);
    for (int proto = 0; proto <= 5; proto++) {
        char expr[80];
        snprintf(expr, sizeof expr, "pickle.dumps(Evil(), protocol=%d)", proto);
        pkscan_report *r = scan_py(expr);
        assert_ok(r, expr);
        const pkscan_import *im = find_import(r, "posix", "system");
        cr_assert(im != NULL, "protocol %d: posix.system not listed", proto);
        cr_assert(im->dangerous && im->reason != NULL);
        cr_assert_eq(im->category, PKSCAN_CAT_OTHER);
        cr_assert_eq(im->via, proto >= 4 ? PKSCAN_VIA_STACK_GLOBAL
                                         : PKSCAN_VIA_GLOBAL);
        cr_assert_eq(r->n_dangerous, 1);
        cr_assert(pkscan_strict_violation(r));
        cr_assert_str_eq(r->result_kind, "instance");
        pkscan_free(r);
    }
    struct stat st;
    cr_assert(stat(marker, &st) != 0, "the marker exists: something ran");
}

Test(scan, danger_table)
{
    static const struct {
        const char *m, *n;
        int dangerous;
        pkscan_category cat;
    } cases[] = {
        {"os", "system", 1, PKSCAN_CAT_OTHER},
        {"os.path", "join", 1, PKSCAN_CAT_OTHER},
        {"subprocess", "Popen", 1, PKSCAN_CAT_OTHER},
        {"builtins", "eval", 1, PKSCAN_CAT_OTHER},
        {"builtins", "exec", 1, PKSCAN_CAT_OTHER},
        {"builtins", "getattr", 1, PKSCAN_CAT_OTHER},
        {"builtins", "__import__", 1, PKSCAN_CAT_OTHER},
        {"builtins", "open", 1, PKSCAN_CAT_OTHER},
        {"marshal", "loads", 1, PKSCAN_CAT_OTHER},
        {"types", "FunctionType", 1, PKSCAN_CAT_OTHER},
        {"types", "CodeType", 1, PKSCAN_CAT_OTHER},
        {"pickle", "loads", 1, PKSCAN_CAT_OTHER},
        {"_pickle", "loads", 1, PKSCAN_CAT_OTHER},
        {"importlib", "import_module", 1, PKSCAN_CAT_OTHER},
        {"sys", "modules", 1, PKSCAN_CAT_OTHER},
        {"shutil", "rmtree", 1, PKSCAN_CAT_OTHER},
        {"socket", "socket", 1, PKSCAN_CAT_OTHER},
        {"ctypes", "CDLL", 1, PKSCAN_CAT_OTHER},
        {"pty", "spawn", 1, PKSCAN_CAT_OTHER},
        {"runpy", "run_path", 1, PKSCAN_CAT_OTHER},
        {"code", "interact", 1, PKSCAN_CAT_OTHER},
        {"webbrowser", "open", 1, PKSCAN_CAT_OTHER},
        {"operator", "attrgetter", 1, PKSCAN_CAT_OTHER},
        {"operator", "methodcaller", 1, PKSCAN_CAT_OTHER},
        {"builtins", "object.__subclasses__", 1, PKSCAN_CAT_OTHER},
        {"operator", "itemgetter", 0, PKSCAN_CAT_PLAIN},
        {"math", "floor", 0, PKSCAN_CAT_PLAIN},
        {"mymod", "f.__globals__", 1, PKSCAN_CAT_OTHER},
        {"builtins", "set", 0, PKSCAN_CAT_PLAIN},
        {"builtins", "ValueError", 0, PKSCAN_CAT_PLAIN},
        {"copyreg", "_reconstructor", 0, PKSCAN_CAT_PLAIN},
        {"collections", "OrderedDict", 0, PKSCAN_CAT_PLAIN},
        {"datetime", "datetime", 0, PKSCAN_CAT_PLAIN},
        {"ccloudpickle", "_function_new", 0, PKSCAN_CAT_CCLOUDPICKLE},
        {"ccloudpickle", "_import", 1, PKSCAN_CAT_CCLOUDPICKLE},
        {"ccloudpickle", "dumps", 0, PKSCAN_CAT_OTHER},
        {"cloudpickle.cloudpickle", "_make_function", 0,
         PKSCAN_CAT_CLOUDPICKLE},
        /* fill reconstructors not called on a literal tuple: what they
         * fill is not seen (a bare name is such a use) */
        {"cloudpickle", "_class_setstate", 1, PKSCAN_CAT_OTHER},
        {"cloudpickle.cloudpickle_fast", "_function_setstate", 1,
         PKSCAN_CAT_OTHER},
        {"cloudpickle", "_make_skeleton_class", 0, PKSCAN_CAT_CLOUDPICKLE},
        {"mymod", "handler", 0, PKSCAN_CAT_OTHER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char buf[200];
        int n = snprintf(buf, sizeof buf, "\x80\x04\x8c%c%s\x8c%c%s\x93.",
                         (int)strlen(cases[i].m), cases[i].m,
                         (int)strlen(cases[i].n), cases[i].n);
        pkscan_report *r = scan_bytes(buf, (size_t)n);
        assert_ok(r, cases[i].n);
        cr_assert_eq(r->n_imports, 1);
        cr_assert_eq(r->imports[0].dangerous, cases[i].dangerous, "%s.%s",
                     cases[i].m, cases[i].n);
        cr_assert_eq(r->imports[0].category, cases[i].cat, "%s.%s: %s",
                     cases[i].m, cases[i].n,
                     pkscan_category_name(r->imports[0].category));
        cr_assert_eq(pkscan_strict_violation(r),
                     cases[i].dangerous || cases[i].cat == PKSCAN_CAT_OTHER);
        pkscan_free(r);
    }
}

Test(scan, getattr_with_constants_is_resolved)
{
    /* getattr(__import__('os'), 'system'): os.system, dangerous; the
     * getattr and __import__ themselves are then plain lookups */
    static const char p[] =
        "\x80\x04\x8c\x08" "builtins\x8c\x07getattr\x93"
        "\x8c\x08" "builtins\x8c\x0a__import__\x93\x8c\x02os\x85R"
        "\x8c\x06system\x86R.";
    pkscan_report *r = scan_bytes(p, sizeof p - 1);
    assert_ok(r, "getattr");
    const pkscan_import *sys_ = find_import(r, "os", "system");
    cr_assert(sys_ != NULL && sys_->dangerous);
    cr_assert_eq(sys_->via, PKSCAN_VIA_GETATTR);
    cr_assert(!find_import(r, "builtins", "getattr")->dangerous);
    pkscan_free(r);
    /* getattr on something computed (here set()): getattr itself stays
     * dangerous */
    static const char q[] = "\x80\x04\x8c\x08" "builtins\x94"
                            "\x8c\x07getattr\x93"
                            "h\x00\x8c\x03set\x93)R\x8c\x03" "add\x86R.";
    r = scan_bytes(q, sizeof q - 1);
    assert_ok(r, "getattr opaque");
    cr_assert(find_import(r, "builtins", "getattr")->dangerous);
    pkscan_free(r);
    /* ... and on plain data with a constant name it is harmless, unless
     * the name leads into interpreter internals */
    static const char t[] = "\x80\x04\x8c\x08" "builtins\x8c\x07getattr\x93"
                            "K\x01\x8c\x04real\x86R.";
    r = scan_bytes(t, sizeof t - 1);
    assert_ok(r, "getattr on int");
    cr_assert(!find_import(r, "builtins", "getattr")->dangerous);
    pkscan_free(r);
    static const char u[] = "\x80\x04\x8c\x08" "builtins\x8c\x07getattr\x93"
                            "K\x01\x8c\x09__class__\x86R.";
    r = scan_bytes(u, sizeof u - 1);
    assert_ok(r, "getattr __class__");
    cr_assert(find_import(r, "builtins", "getattr")->dangerous);
    pkscan_free(r);
}

static int cmp_line(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

Test(scan, differential_globals_match_cpython)
{
    need_debian_cloudpickle();
    cpk_py_file("_diff_setup.py");
    size_t n;
    char *all = cpk_py_bytes("b''.join(out)", &n);
    size_t k = 0, count = 0;
    while (k < n) {
        uint32_t dl, nl;
        memcpy(&dl, all + k, 4);
        const char *data = all + k + 4;
        int proto = (unsigned char)data[dl], top = (unsigned char)data[dl + 1];
        memcpy(&nl, data + dl + 2, 4);
        const char *want = data + dl + 6;
        k += 10 + dl + nl;
        pkscan_report *r = scan_bytes(data, dl);
        assert_ok(r, "differential");
        cr_assert_eq(r->protocol, proto >= 2 ? proto : -1,
                     "record %zu: protocol %d for %d", count, r->protocol,
                     proto);
        cr_assert_eq(r->min_protocol, top, "record %zu: %d, genops %d",
                     count, r->min_protocol, top);
        /* our names: what find_class is asked (as written, before the
         * protocol < 3 mapping), direct imports only */
        char **lines = calloc(r->n_imports + 1, sizeof *lines);
        size_t nlines = 0, total = 0;
        for (size_t i = 0; i < r->n_imports; i++) {
            const pkscan_import *im = &r->imports[i];
            if (im->via != PKSCAN_VIA_GLOBAL &&
                im->via != PKSCAN_VIA_STACK_GLOBAL &&
                im->via != PKSCAN_VIA_INST)
                continue;
            pkscan_str m = im->written_module.s ? im->written_module
                                                : im->module;
            pkscan_str nm = im->written_name.s ? im->written_name : im->name;
            lines[nlines] = malloc(m.len + nm.len + 3);
            sprintf(lines[nlines], "%s %s\n", m.s, nm.s);
            total += strlen(lines[nlines++]);
        }
        qsort(lines, nlines, sizeof *lines, cmp_line);
        char *got = calloc(total + 1, 1);
        for (size_t i = 0; i < nlines; i++) {
            strcat(got, lines[i]);
            free(lines[i]);
        }
        free(lines);
        cr_assert(strlen(got) == nl && memcmp(got, want, nl) == 0,
                  "record %zu: scanned\n%s\nCPython asked for\n%.*s", count,
                  got, (int)nl, want);
        free(got);
        pkscan_free(r);
        count++;
    }
    cr_assert_gt(count, 200);
    free(all);
}

/* Functions and classes ---------------------------------------------------- */

/* The running interpreter's "3.X", bytecode magic, and the version a
 * CodeType(*fields) layout reports for it. */
static void py_version(char *ver, size_t cap, long *magic, const char **layout)
{
    size_t n;
    char *v = cpk_py_bytes("('%d.%d' % __import__('sys').version_info[:2])"
                           ".encode()", &n);
    snprintf(ver, cap, "%.*s", (int)n, v);
    free(v);
    char *m = cpk_py_bytes("__import__('importlib.util').util.MAGIC_NUMBER",
                           &n);
    *magic = (unsigned char)m[0] | (unsigned char)m[1] << 8;
    free(m);
    *layout = strcmp(ver, "3.11") >= 0 && strlen(ver) >= 4 ? "3.11+"
                                                           : "3.8-3.10";
}

static void check_inner(const pkscan_report *r, const char *version)
{
    const pkscan_function *f = find_fn(r, "outer.<locals>.inner");
    cr_assert(f != NULL, "inner not found");
    char buf[300];
    cr_assert(str_is(f->name, "inner"));
    cr_assert(str_is(f->module, "__main__"));
    cr_assert(str_is(f->filename, "/scan/src.py"));
    cr_assert_eq(f->firstlineno, 5);
    cr_assert(f->code_known);
    params_text(f->params, f->n_params, buf, sizeof buf);
    cr_assert_str_eq(buf, "positional-only:x regular:y");
    strs_text(f->freevars, f->n_freevars, buf, sizeof buf);
    cr_assert_str_eq(buf, "a z");
    strs_text(f->globals, f->n_globals, buf, sizeof buf);
    cr_assert(strstr(buf, "K") && strstr(buf, "sys"), "globals: %s", buf);
    cr_assert(str_is(f->python_version, version), "version %s",
              f->python_version.s ? f->python_version.s : "(unknown)");
    cr_assert_eq(f->n_defaults, 0);
}

Test(scan, ccloudpickle_closure)
{
    cpk_py_file("_fn_source.py");
    pkscan_report *r = scan_py("ccloudpickle.dumps(inner)");
    assert_ok(r, "closure");
    cr_assert_str_eq(r->result_kind, "function");
    cr_assert_eq(r->n_functions, 1);
    cr_assert_eq(r->functions[0].layout, PKSCAN_FN_CCLOUDPICKLE);
    char ver[16];
    long magic;
    const char *layout;
    py_version(ver, sizeof ver, &magic, &layout);
    check_inner(r, ver);
    cr_assert_eq(r->functions[0].magic, magic);
    /* its state holds only a number and a module: one call */
    cr_assert(find_import(r, "ccloudpickle", "_function_make") != NULL);
    cr_assert(find_import(r, "ccloudpickle", "_function_new") == NULL);
    /* its code inline, read as _code_unmarshal's arguments */
    cr_assert(find_import(r, "ccloudpickle", "_code_unmarshal") == NULL);
    /* the module the function's globals refer to, classified as any
     * import of it: sys is interpreter internals */
    const pkscan_import *s = find_import(r, "sys", "");
    cr_assert(s != NULL && s->via == PKSCAN_VIA_SUBIMPORT);
    cr_assert(s->dangerous && strcmp(s->reason, "interpreter internals") == 0);
    cr_assert_eq(r->n_dangerous, 1);
    pkscan_free(r);
}

Test(scan, ccloudpickle_signatures)
{
    cpk_py_file("_fn_source.py");
    pkscan_report *r = scan_py("ccloudpickle.dumps([outer, square, "
                               "nested(), Thing.helper, Thing.method])");
    assert_ok(r, "functions");
    char buf[300];
    const pkscan_function *f = find_fn(r, "outer");
    cr_assert(f != NULL);
    params_text(f->params, f->n_params, buf, sizeof buf);
    cr_assert_str_eq(buf, "regular:a regular:b varargs:args keyword-only:c "
                          "keyword-only:d varkw:kw");
    cr_assert_eq(f->n_defaults, 1);
    cr_assert_eq(f->n_kwdefaults, 1);
    cr_assert_eq(f->firstlineno, 3);
    f = find_fn(r, "<lambda>");
    cr_assert(f != NULL && str_is(f->name, "<lambda>"));
    params_text(f->params, f->n_params, buf, sizeof buf);
    cr_assert_str_eq(buf, "regular:v");
    cr_assert_eq(f->firstlineno, 8);
    f = find_fn(r, "nested.<locals>.level1.<locals>.level2");
    cr_assert(f != NULL);
    cr_assert_eq(f->n_defaults, 2);
    cr_assert_eq(f->firstlineno, 11);
    f = find_fn(r, "Thing.helper");
    cr_assert(f != NULL);
    params_text(f->params, f->n_params, buf, sizeof buf);
    cr_assert_str_eq(buf, "varargs:items");
    pkscan_free(r);
}

Test(scan, ccloudpickle_classes_and_enums)
{
    cpk_py_file("_fn_source.py");
    pkscan_report *r = scan_py("ccloudpickle.dumps([Thing, Color])");
    assert_ok(r, "classes");
    const pkscan_class *c = find_cls(r, "Thing");
    cr_assert(c != NULL && !c->is_enum && !c->from_cloudpickle);
    cr_assert(str_is(c->module, "__main__"));
    cr_assert_eq(c->n_bases, 1);
    cr_assert(str_is(c->bases[0], "Base"), "base %s", c->bases[0].s);
    char buf[300];
    strs_text(c->methods, c->n_methods, buf, sizeof buf);
    cr_assert_eq(c->n_methods, 4, "methods: %s", buf); /* not `size` */
    cr_assert(strstr(buf, "method") && strstr(buf, "make") &&
                  strstr(buf, "helper") && strstr(buf, "prop"),
              "methods: %s", buf);
    cr_assert(find_cls(r, "Base") != NULL);
    cr_assert(find_fn(r, "Thing.method") != NULL);
    c = find_cls(r, "Color");
    cr_assert(c != NULL && c->is_enum);
    strs_text(c->members, c->n_members, buf, sizeof buf);
    cr_assert_str_eq(buf, "RED GREEN");
    strs_text(c->bases, c->n_bases, buf, sizeof buf);
    cr_assert_str_eq(buf, "enum.Enum");
    cr_assert_eq(r->n_dangerous, 0);
    pkscan_free(r);
}

Test(scan, common_objects_are_not_dangerous)
{
    /* what ccloudpickle writes for members of enums carried by value,
     * bound methods of plain data, operator functions, StringIO */
    cpk_py_file("_fn_source.py", "common_objects_are_not_dangerous.py");
    pkscan_report *r = scan_py("ccloudpickle.dumps([Color.RED, [].append, "
                               "operator.or_, math.floor, io.StringIO('x'),"
                               " Thing.make])");
    assert_ok(r, "common objects");
    for (size_t i = 0; i < r->n_imports; i++)
        cr_assert(!r->imports[i].dangerous, "%s.%s: %s",
                  r->imports[i].module.s, r->imports[i].name.s,
                  r->imports[i].reason);
    const pkscan_import *g = find_import(r, "builtins", "getattr");
    cr_assert(g != NULL && g->category == PKSCAN_CAT_PLAIN);
    pkscan_free(r);
    r = scan_py("ccloudpickle.dumps(Color.RED, compat='cloudpickle')");
    assert_ok(r, "compat enum member");
    cr_assert_eq(r->n_dangerous, 0);
    pkscan_free(r);
}

Test(scan, ccloudpickle_compat_layout)
{
    cpk_py_file("_fn_source.py");
    pkscan_report *r = scan_py("ccloudpickle.dumps(inner, "
                               "compat='cloudpickle')");
    assert_ok(r, "compat");
    cr_assert_eq(r->n_functions, 1);
    cr_assert_eq(r->functions[0].layout, PKSCAN_FN_CLOUDPICKLE);
    char ver[16];
    long magic;
    const char *layout;
    py_version(ver, sizeof ver, &magic, &layout);
    check_inner(r, layout);
    /* the getattr/__import__ naming is resolved, so not dangerous; what
     * is, is the module sys the function refers to */
    cr_assert_eq(r->n_dangerous, 1, "%zu dangerous", r->n_dangerous);
    cr_assert(find_import(r, "sys", "")->dangerous);
    const pkscan_import *m =
        find_import(r, "cloudpickle.cloudpickle", "_make_function");
    cr_assert(m != NULL && m->via == PKSCAN_VIA_GETATTR &&
              m->category == PKSCAN_CAT_CLOUDPICKLE);
    pkscan_free(r);
}

Test(scan, stock_cloudpickle_2_2)
{
    need_debian_cloudpickle();
    cpk_py_file("_fn_source.py", "stock_cloudpickle_2_2.py");
    pkscan_report *r = scan_py("cloudpickle.dumps(inner)");
    assert_ok(r, "cloudpickle 2.2");
    cr_assert_eq(r->functions[0].layout, PKSCAN_FN_CLOUDPICKLE);
    check_inner(r, "3.11+");
    cr_assert(find_import(r, "cloudpickle.cloudpickle", "_make_function"));
    const pkscan_import *ct = find_import(r, "types", "CodeType");
    cr_assert(ct != NULL && ct->via == PKSCAN_VIA_BUILTIN_TYPE &&
              !ct->dangerous && ct->category == PKSCAN_CAT_CLOUDPICKLE);
    cr_assert_eq(r->n_dangerous, 1); /* subimport("sys") */
    cr_assert(find_import(r, "sys", "")->dangerous);
    pkscan_free(r);
    r = scan_py("cloudpickle.dumps([Thing, Color])");
    assert_ok(r, "cloudpickle 2.2 classes");
    const pkscan_class *c = find_cls(r, "Thing");
    cr_assert(c != NULL && c->from_cloudpickle);
    cr_assert_eq(c->n_bases, 1);
    cr_assert(str_is(c->bases[0], "Base"));
    /* 2.2 writes __module__ into the class state (Thing's it leaves out) */
    cr_assert(str_is(find_cls(r, "Base")->module, "__main__"));
    char buf[300];
    strs_text(c->methods, c->n_methods, buf, sizeof buf);
    cr_assert(strstr(buf, "method") && strstr(buf, "make"), "methods: %s",
              buf);
    c = find_cls(r, "Color");
    cr_assert(c != NULL && c->is_enum);
    strs_text(c->members, c->n_members, buf, sizeof buf);
    cr_assert_str_eq(buf, "RED GREEN");
    pkscan_free(r);
}

/* The marshal reader ------------------------------------------------------- */

static char *fixture(const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/scan/%s", CPK_FIXTURES, name);
    char *d = cpk_read_file(path, len);
    cr_assert(d != NULL, "missing fixture %s", path);
    return d;
}

Test(scan_c, marshal_reader_every_version)
{
    static const char *const versions[] = {"3.9", "3.10", "3.11", "3.12",
                                           "3.13"};
    static const char *const codes[] = {"sample", "inner", "noargs",
                                        "method"};
    for (size_t v = 0; v < 5; v++) {
        for (size_t c = 0; c < 4; c++) {
            char name[64];
            size_t n, tn;
            snprintf(name, sizeof name, "code-%s-%s.bin", versions[v],
                     codes[c]);
            char *bin = fixture(name, &n);
            snprintf(name, sizeof name, "code-%s-%s.txt", versions[v],
                     codes[c]);
            char *want = fixture(name, &tn);
            long magic = (unsigned char)bin[0] | (unsigned char)bin[1] << 8;
            cr_assert_str_eq(cpk_mscan_version(magic), versions[v]);
            cpk_mcode mc;
            cr_assert(cpk_mscan_code((uint8_t *)bin + 2, n - 2, magic, &mc),
                      "%s: not read", name);
            char got[1024], params[512], freev[256];
            pkscan_param pp[32];
            pkscan_str fv[32];
            cr_assert(mc.n_params <= 32 && mc.n_freevars <= 32);
            /* the same ordering rule as the report (*args before
             * keyword-only ones) */
            size_t k = 0;
            for (long i = 0; i < mc.argcount; i++, k++) {
                pp[k].name.s = strndup((char *)mc.params[k].p,
                                       mc.params[k].len);
                pp[k].kind = i < mc.posonlyargcount ? PKSCAN_PARAM_POSONLY
                                                    : PKSCAN_PARAM_REGULAR;
            }
            size_t kw0 = k, out = k;
            if (mc.flags & 4) {
                size_t va = k + (size_t)mc.kwonlyargcount;
                pp[out].name.s = strndup((char *)mc.params[va].p,
                                         mc.params[va].len);
                pp[out++].kind = PKSCAN_PARAM_VARARGS;
            }
            for (long i = 0; i < mc.kwonlyargcount; i++) {
                pp[out].name.s = strndup((char *)mc.params[kw0 + i].p,
                                         mc.params[kw0 + i].len);
                pp[out++].kind = PKSCAN_PARAM_KWONLY;
            }
            if (mc.flags & 8) {
                size_t vk = mc.n_params - 1;
                pp[out].name.s = strndup((char *)mc.params[vk].p,
                                         mc.params[vk].len);
                pp[out++].kind = PKSCAN_PARAM_VARKW;
            }
            params_text(pp, out, params, sizeof params);
            for (size_t i = 0; i < out; i++)
                free((char *)pp[i].name.s);
            for (size_t i = 0; i < mc.n_freevars; i++) {
                fv[i].s = strndup((char *)mc.freevars[i].p,
                                  mc.freevars[i].len);
                fv[i].len = mc.freevars[i].len;
            }
            strs_text(fv, mc.n_freevars, freev, sizeof freev);
            for (size_t i = 0; i < mc.n_freevars; i++)
                free((char *)fv[i].s);
            snprintf(got, sizeof got, "%.*s\n%.*s\n%.*s\n%ld\n%s\n%s\n",
                     (int)mc.name.len, (char *)mc.name.p,
                     (int)mc.qualname.len,
                     mc.qualname.p ? (char *)mc.qualname.p : "",
                     (int)mc.filename.len, (char *)mc.filename.p,
                     mc.firstlineno, params, freev);
            cr_assert_str_eq(got, want, "%s", name);
            cpk_mscan_free(&mc);
            /* every prefix, and every single-byte corruption of the
             * header region, is handled without a crash */
            for (size_t cut = 0; cut < n - 2; cut++) {
                char *p = malloc(cut ? cut : 1);
                memcpy(p, bin + 2, cut);
                cr_assert(!cpk_mscan_code((uint8_t *)p, cut, magic, &mc),
                          "%s: prefix %zu read as complete", name, cut);
                free(p);
            }
            for (size_t pos = 2; pos < n && pos < 80; pos++) {
                char *p = malloc(n - 2);
                memcpy(p, bin + 2, n - 2);
                p[pos - 2] ^= 0xff;
                if (cpk_mscan_code((uint8_t *)p, n - 2, magic, &mc))
                    cpk_mscan_free(&mc);
                free(p);
            }
            free(bin);
            free(want);
        }
    }
    cr_assert_null(cpk_mscan_version(1234));
}

Test(scan_c, marshal_reader_refuses_hostile_refs_and_depth)
{
    cpk_mcode mc;
    /* a ref to a slot never made, a ref to the code being read */
    static const uint8_t badref[] = "\xe3\x00\x00\x00\x00\x00\x00\x00\x00\x00"
                                    "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
                                    "\x00r\x05\x00\x00\x00";
    cr_assert(!cpk_mscan_code(badref, sizeof badref - 1, 3495, &mc));
    static const uint8_t selfref[] = "\xe3\x00\x00\x00\x00\x00\x00\x00\x00\x00"
                                     "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
                                     "\x00r\x00\x00\x00\x00";
    cr_assert(!cpk_mscan_code(selfref, sizeof selfref - 1, 3495, &mc));
    /* tuples nested past the depth limit */
    size_t n = 20 + 3 * 100000;
    uint8_t *deep = calloc(n, 1);
    deep[0] = 'c';
    for (size_t i = 0; i < 100000; i++) {
        deep[21 + 2 * i] = ')';
        deep[22 + 2 * i] = 1;
    }
    cr_assert(!cpk_mscan_code(deep, n, 3495, &mc));
    free(deep);
    /* a tuple count beyond the data */
    static const uint8_t count[] = "c\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
                                   "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
                                   "(\xff\xff\xff\x7f";
    cr_assert(!cpk_mscan_code(count, sizeof count - 1, 3495, &mc));
}

Test(scan_c, report_strings_are_owned_and_terminated)
{
    static const char lit[] = "\x80\x04\x8c\x05mod\0x\x8c\x04name\x93.";
    size_t n = sizeof lit - 1;
    char *p = malloc(n);
    memcpy(p, lit, n);
    pkscan_report *r = scan_bytes(p, n);
    memset(p, 'Z', n);
    free(p);
    assert_ok(r, "owned");
    cr_assert_eq(r->n_imports, 1);
    cr_assert_eq(r->imports[0].module.len, 5);
    cr_assert(memcmp(r->imports[0].module.s, "mod\0x", 6) == 0);
    cr_assert_str_eq(r->imports[0].name.s, "name");
    pkscan_free(r);
    pkscan_free(NULL);
}

/* Found by fuzzing: items appended to an imported object (APPENDS on a
 * GLOBAL, which CPython allows: it calls .extend) overwrote the import's
 * module and name in the value graph. */
Test(scan_c, items_added_to_an_import_keep_its_name)
{
    static const char p[] = "cbuiltins\nlist\n(I1\nI2\neI3\na"
                            "cos\nsystem\n(I4\ne.";
    pkscan_report *r = scan_bytes(p, sizeof p - 1);
    assert_ok(r, "appends to globals");
    cr_assert_eq(r->n_imports, 2);
    cr_assert(find_import(r, "builtins", "list") != NULL);
    const pkscan_import *s = find_import(r, "posix", "system") ?
        find_import(r, "posix", "system") : find_import(r, "os", "system");
    cr_assert(s != NULL && s->dangerous);
    pkscan_free(r);
}

Test(scan, mutants_refused_only_where_cpython_refuses)
{
    need_debian_cloudpickle();
    cpk_py_file("_diff_setup.py");
    cpk_py_file("mutants_refused_only_where_cpython_refuses.py");
    size_t n;
    char *all = cpk_py_bytes("b''.join(mut)", &n);
    size_t k = 0, count = 0, refused = 0, both = 0;
    while (k < n) {
        uint32_t dl;
        memcpy(&dl, all + k, 4);
        const char *data = all + k + 4;
        char cpython_ok = data[dl];
        k += 5 + dl;
        char *copy = malloc(dl ? dl : 1);
        memcpy(copy, data, dl);
        pkscan_report *r = scan_bytes(copy, dl);
        free(copy);
        count++;
        if (r->status != PKSCAN_OK && r->status != PKSCAN_ERR_TRAILING) {
            refused++;
            cr_assert(cpython_ok == '0',
                      "mutant %zu: scanner refuses (%s at byte %zu), "
                      "CPython loads it", count, r->error, r->error_offset);
        }
        both += r->status == PKSCAN_OK && cpython_ok == '1';
        pkscan_free(r);
    }
    cr_assert_eq(count, 4000);
    cr_assert_gt(refused, 1000, "only %zu refused", refused);
    cr_assert_gt(both, 100, "only %zu accepted by both", both);
    free(all);
}

/* Sharing: one globals dict of 200000 keys referenced by the state of
 * 60000 functions. Listing it per function would be quadratic; the
 * analysis' work budget stops it (the report says `truncated`) and the
 * scan stays linear. The timeout only guards against a hang. */
Test(scan_c, shared_dict_analysis_is_bounded, .timeout = 60)
{
    size_t nkeys = 200000, nfns = 60000;
    size_t cap = 64 + nkeys * 8 + nfns * 16;
    char *p = malloc(cap);
    size_t k = 0;
    static const char hdr[] = "\x80\x04\x8c\x0c" "ccloudpickle\x94" /* 0 */
                              "\x8c\x0d_function_new\x93\x94"      /* 1 */
                              "h\x00\x8c\x0e_function_fill\x93\x94" /* 2 */
                              "}\x94(";                            /* 3: D */
    memcpy(p + k, hdr, sizeof hdr - 1);
    k += sizeof hdr - 1;
    /* n: () (distinct keys; a tuple value keeps each pair in the model,
     * where pairs of scalars would only be counted) */
    for (size_t i = 0; i < nkeys; i++) {
        p[k++] = 'J';
        memcpy(p + k, &i, 4);
        k += 4;
        p[k++] = ')';
    }
    p[k++] = 'u';
    /* memo 4: args (None, D, None); memo 5: S = {'__globals__': D} */
    const char *mid = "Nh\x03N\x87\x94}\x94\x8c\x0b__globals__h\x03s0";
    memcpy(p + k, mid, strlen(mid));
    k += strlen(mid);
    p[k++] = 'h';
    p[k++] = 5; /* keep S on the stack; pop it below after the loop */
    p[k++] = '0';
    for (size_t i = 0; i < nfns; i++) {
        const char *fn = "h\x02h\x01h\x04Rh\x05\x86R0";
        memcpy(p + k, fn, 12);
        k += 12;
    }
    memcpy(p + k, "N.", 2);
    k += 2;
    pkscan_report *r = scan_bytes(p, k);
    assert_ok(r, "shared dict");
    cr_assert_eq(r->n_functions, nfns);
    cr_assert(r->truncated, "not truncated");
    cr_assert_eq(r->functions[0].n_globals, 0, "keys are not str");
    pkscan_free(r);
    free(p);
}

/* getattr(getattr(getattr(object, 'a'), 'a'), ...) 150000 deep: each
 * level's name is one longer than the last, so resolving them all would
 * be quadratic. Names stop at 16 attributes; the unresolved getattr
 * stays dangerous. */
Test(scan_c, getattr_chain_is_bounded, .timeout = 60)
{
    size_t depth = 150000;
    char *p = malloc(64 + depth * 7);
    size_t k = 0;
    static const char hdr[] = "\x80\x04\x8c\x08" "builtins\x94"
                              "\x8c\x07getattr\x93\x94";
    memcpy(p + k, hdr, sizeof hdr - 1);
    k += sizeof hdr - 1;
    for (size_t i = 0; i < depth; i++) {
        p[k++] = 'h';
        p[k++] = 1;
    }
    static const char obj[] = "h\x00\x8c\x06object\x93";
    memcpy(p + k, obj, sizeof obj - 1);
    k += sizeof obj - 1;
    for (size_t i = 0; i < depth; i++) {
        memcpy(p + k, "\x8c\x01" "a\x86R", 5);
        k += 5;
    }
    p[k++] = '.';
    pkscan_report *r = scan_bytes(p, k);
    assert_ok(r, "getattr chain");
    const pkscan_import *g = find_import(r, "builtins", "getattr");
    cr_assert(g != NULL && g->dangerous);
    cr_assert(find_import(r, "builtins", "object.a.a") != NULL);
    char longest[64] = "object";
    for (int i = 0; i < 15; i++)
        strcat(longest, ".a");
    cr_assert(find_import(r, "builtins", longest) != NULL, "%s", longest);
    strcat(longest, ".a");
    cr_assert(find_import(r, "builtins", longest) == NULL, "%s", longest);
    pkscan_free(r);
    free(p);
}

/* One name reached two ways: through a reconstructor (not dangerous) and
 * imported directly (dangerous). Listed as two entries, each with its own
 * via and verdict: the direct import says dangerous, whichever comes
 * first (one merged entry mixed the reconstructor's via with the direct
 * import's verdict). */
Test(scan_c, a_name_reached_two_ways_keeps_the_danger)
{
    static const char p[] = "\x80\x04\x8c\x0c" "ccloudpickle\x94"
                            "\x8c\x0d_builtin_type\x93"
                            "\x8c\x08" "CodeType\x94\x85R0"
                            "\x8c\x05types" "h\x01\x93.";
    pkscan_report *r = scan_bytes(p, sizeof p - 1);
    assert_ok(r, "two ways");
    const pkscan_import *bt = NULL, *ct = NULL;
    for (size_t i = 0; i < r->n_imports; i++)
        if (str_is(r->imports[i].module, "types") &&
            str_is(r->imports[i].name, "CodeType")) {
            if (r->imports[i].via == PKSCAN_VIA_BUILTIN_TYPE)
                bt = &r->imports[i];
            else
                ct = &r->imports[i];
        }
    cr_assert(bt != NULL && ct != NULL);
    cr_assert_eq(bt->count, 1);
    cr_assert(!bt->dangerous);
    cr_assert_eq(ct->count, 1);
    cr_assert_eq(ct->via, PKSCAN_VIA_STACK_GLOBAL);
    cr_assert(ct->dangerous, "types.CodeType imported directly is not flagged");
    cr_assert_eq(r->n_dangerous, 1);
    pkscan_free(r);
}

/* Code whose constants marshal cannot write travels as
 * _code_new(python_version, magic, fields). */
Test(scan, ccloudpickle_code_new)
{
    cpk_py("import ccloudpickle, types\n"
           "SRC = 'def f(a, /, *rest, b=1):\\n    return a\\n'\n"
           "exec(compile(SRC, '/scan/new.py', 'exec'))\n"
           "c = f.__code__.replace(co_consts=f.__code__.co_consts +"
           " (object(),))\n"
           "g = types.FunctionType(c, {}, 'f')\n"
           "data = ccloudpickle.dumps(g)\n"
           "assert b'_code_new' in data\n");
    pkscan_report *r = scan_py("data");
    assert_ok(r, "_code_new");
    cr_assert(find_import(r, "ccloudpickle", "_code_new") != NULL);
    cr_assert_eq(r->n_functions, 1);
    const pkscan_function *f = &r->functions[0];
    char ver[16], buf[200];
    long magic;
    const char *layout;
    py_version(ver, sizeof ver, &magic, &layout);
    cr_assert(str_is(f->python_version, ver));
    cr_assert_eq(f->magic, magic);
    cr_assert(str_is(f->name, "f") && str_is(f->filename, "/scan/new.py"));
    cr_assert_eq(f->firstlineno, 1);
    params_text(f->params, f->n_params, buf, sizeof buf);
    cr_assert_str_eq(buf, "positional-only:a varargs:rest keyword-only:b");
    pkscan_free(r);
}

/* subimport("mod") imports mod: classified by the module, with the tables
 * of every other import (a by-value function referring to math is plain,
 * to os dangerous, to numpy "other"), in ccloudpickle's and cloudpickle's
 * spelling. */
Test(scan_c, subimport_is_classified_by_its_module)
{
    static const struct {
        const char *module;
        int dangerous;
        const char *reason;
        pkscan_category cat;
    } cases[] = {
        {"math", 0, NULL, PKSCAN_CAT_PLAIN},
        {"collections.abc", 0, NULL, PKSCAN_CAT_PLAIN},
        {"os", 1, "runs commands", PKSCAN_CAT_OTHER},
        {"os.path", 1, "runs commands", PKSCAN_CAT_OTHER},
        {"subprocess", 1, "runs commands", PKSCAN_CAT_OTHER},
        {"importlib", 1, "imports modules", PKSCAN_CAT_OTHER},
        {"numpy", 0, NULL, PKSCAN_CAT_OTHER},
    };
    static const char *const recon[] = {"ccloudpickle",
                                        "cloudpickle.cloudpickle"};
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            unsigned char p[128];
            size_t n = 0, ml = strlen(recon[k]);
            size_t l = strlen(cases[i].module);
            p[n++] = 0x80;
            p[n++] = 4;
            p[n++] = 0x8c;
            p[n++] = (unsigned char)ml;
            memcpy(p + n, recon[k], ml);
            n += ml;
            p[n++] = 0x8c;
            p[n++] = 9;
            memcpy(p + n, "subimport", 9);
            n += 9;
            p[n++] = 0x93;
            p[n++] = 0x8c;
            p[n++] = (unsigned char)l;
            memcpy(p + n, cases[i].module, l);
            n += l;
            p[n++] = 0x85;
            p[n++] = 'R';
            p[n++] = '.';
            pkscan_report *r = scan_bytes(p, n);
            assert_ok(r, cases[i].module);
            const pkscan_import *im = find_import(r, cases[i].module, "");
            cr_assert(im != NULL && im->via == PKSCAN_VIA_SUBIMPORT,
                      "%s", cases[i].module);
            cr_assert_eq(im->dangerous, cases[i].dangerous, "%s",
                         cases[i].module);
            cr_assert_eq(im->category, cases[i].cat, "%s: %s",
                         cases[i].module,
                         pkscan_category_name(im->category));
            if (cases[i].reason)
                cr_assert_str_eq(im->reason, cases[i].reason);
            /* the reconstructor itself is neither */
            const pkscan_import *sub = find_import(r, recon[k], "subimport");
            cr_assert(sub != NULL && !sub->dangerous &&
                      sub->category != PKSCAN_CAT_OTHER);
            cr_assert_eq(pkscan_strict_violation(r),
                         cases[i].cat == PKSCAN_CAT_OTHER);
            pkscan_free(r);
        }
}

/* What a pickler always leaves (one item, no MARK open at STOP) and how
 * deep the items nest, for cloudpickle-load to refuse before loading what
 * would crash or bloat CPython (a tuple 300,000 deep overflows the C stack
 * when hashed; "]" * n leaves n lists). */
Test(scan_c, depth_and_what_stop_leaves)
{
    pkscan_report *r = scan_bytes("\x80\x04N.", 4);
    assert_ok(r, "None");
    cr_assert_eq(r->max_depth, 1);
    cr_assert_eq(r->stop_stack, 1);
    cr_assert_eq(r->stop_marks, 0);
    pkscan_free(r);
    /* ((None,),) : 3 deep, reached by the second TUPLE1 at byte 4 */
    r = scan_bytes("\x80\x04N\x85\x85.", 6);
    cr_assert_eq(r->max_depth, 3);
    cr_assert_eq(r->max_depth_offset, 4);
    pkscan_free(r);
    /* lists appended into lists: [[[None]]] by APPENDS */
    r = scan_bytes("\x80\x04](](](Neee.", 13);
    assert_ok(r, "lists");
    cr_assert_eq(r->max_depth, 4);
    pkscan_free(r);
    /* a list appending itself does not deepen */
    r = scan_bytes("\x80\x04]\x94(h\x00h\x00h\x00h\x00" "e.", 15);
    assert_ok(r, "self-reference");
    cr_assert_eq(r->max_depth, 1);
    pkscan_free(r);
    /* REDUCE and BUILD nest their operands */
    r = scan_bytes("\x80\x04\x8c\x01m\x8c\x01n\x93N\x85R}b.", 15);
    assert_ok(r, "reduce");
    cr_assert_eq(r->max_depth, 3);
    pkscan_free(r);
    /* leftovers and open MARKs, which pickle.loads ignores */
    r = scan_bytes("\x80\x04]]]N.", 7);
    assert_ok(r, "leftovers");
    cr_assert_eq(r->stop_stack, 4);
    pkscan_free(r);
    r = scan_bytes("\x80\x04(N.", 5);
    assert_ok(r, "open mark");
    cr_assert_eq(r->stop_marks, 1);
    cr_assert_eq(r->stop_stack, 1);
    pkscan_free(r);
    /* deep: saturates, never overflows */
    size_t depth = 100000, n = 0;
    char *p = malloc(depth + 8);
    p[n++] = '\x80';
    p[n++] = 4;
    p[n++] = 'N';
    memset(p + n, '\x85', depth);
    n += depth;
    p[n++] = '.';
    r = scan_bytes(p, n);
    assert_ok(r, "deep");
    cr_assert_eq(r->max_depth, 65535);
    pkscan_free(r);
    free(p);
}

/* int() refuses more than 4300 decimal digits (int_max_str_digits, every
 * supported version): INT when strtol overflows, and LONG. Hex has no
 * limit; strtol reads any number of zeros. */
Test(scan_c, decimal_digit_limit_as_cpython)
{
    static const struct {
        char op;
        const char *prefix;
        char digit;
        size_t n;
        int ok;
    } cases[] = {
        {'I', "", '1', 4300, 1}, {'I', "", '1', 4301, 0},
        {'L', "", '1', 4300, 1}, {'L', "", '1', 4301, 0},
        {'I', "", '0', 5000, 1}, {'I', "0x", 'f', 5000, 1},
        {'L', "0x", 'f', 5000, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t pl = strlen(cases[i].prefix), n = 0;
        char *p = malloc(cases[i].n + pl + 4);
        p[n++] = cases[i].op;
        memcpy(p + n, cases[i].prefix, pl);
        n += pl;
        memset(p + n, cases[i].digit, cases[i].n);
        n += cases[i].n;
        p[n++] = '\n';
        p[n++] = '.';
        pkscan_report *r = scan_bytes(p, n);
        if (cases[i].ok)
            assert_ok(r, "digits");
        else
            cr_assert_eq(r->status, PKSCAN_ERR_VALUE, "case %zu: %s", i,
                         pkscan_status_name(r->status));
        pkscan_free(r);
        free(p);
    }
}
