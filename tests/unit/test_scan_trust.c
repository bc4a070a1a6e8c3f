/* test_scan_trust.c - what the static inspector (src/scan/pkscan.h) must not
 * call harmless, after the hostile review of issue 8: names of "plain"
 * modules that eval, exec or run commands (typing._eval_type,
 * dataclasses._create_fn, uuid._get_command_stdout); BUILD on an imported
 * object (math.pi = 3); code carried by value that the load itself runs
 * (pkscan_report.load_calls: a by-value function called by REDUCE, an
 * instance of a by-value class with __setstate__); the real nesting depth
 * of a chain linked top-down through the memo; every written spelling of
 * one import; 3.13's fix_imports table. And the other side: what
 * ccloudpickle and stock cloudpickle write for lambdas, closures, classes,
 * enums, typing objects and plain data still passes --strict, and a lambda
 * or a class without methods is not "run by the load". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "scan/pkscan.h"
#include "support.h"

TestSuite(scan_trust, .init = cpk_py_start, .fini = cpk_py_stop);
TestSuite(scan_trust_c);

static pkscan_report *scan_flags(const void *p, size_t n, unsigned flags)
{
    pkscan_report *r = pkscan_scan(p, n, flags);
    cr_assert(r != NULL, "pkscan_scan returned NULL");
    cr_assert(r->status == PKSCAN_OK, "%s (%s) at byte %zu",
              pkscan_status_name(r->status), r->error ? r->error : "",
              r->error_offset);
    return r;
}

static pkscan_report *scan_c(const void *p, size_t n)
{
    return scan_flags(p, n, 0);
}

static pkscan_report *scan_py(const char *expr)
{
    size_t n;
    char *data = cpk_py_bytes(expr, &n);
    pkscan_report *r = pkscan_scan(data, n, 0);
    free(data);
    cr_assert(r != NULL);
    cr_assert(r->status == PKSCAN_OK, "%s: %s", expr,
              r->error ? r->error : "");
    return r;
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

/* PROTO 4, STACK_GLOBAL m n, then `tail` (ending in STOP). */
static size_t stack_global(char *buf, size_t cap, const char *m,
                           const char *n, const char *tail, size_t tl)
{
    size_t ml = strlen(m), nl = strlen(n), k = 0;
    cr_assert(ml < 256 && nl < 256 && ml + nl + tl + 8 < cap);
    buf[k++] = '\x80';
    buf[k++] = 4;
    buf[k++] = '\x8c';
    buf[k++] = (char)ml;
    memcpy(buf + k, m, ml);
    k += ml;
    buf[k++] = '\x8c';
    buf[k++] = (char)nl;
    memcpy(buf + k, n, nl);
    k += nl;
    buf[k++] = '\x93';
    memcpy(buf + k, tail, tl);
    return k + tl;
}

/* S1: names of otherwise plain modules, one by one. */
Test(scan_trust_c, plain_modules_are_plain_name_by_name)
{
    static const struct {
        const char *m, *n;
        const char *reason; /* NULL: not dangerous */
        pkscan_category cat;
    } cases[] = {
        /* they eval, exec or run commands */
        {"typing", "_eval_type", "evaluates code", PKSCAN_CAT_OTHER},
        {"typing", "get_type_hints", "evaluates code", PKSCAN_CAT_OTHER},
        {"dataclasses", "_create_fn", "evaluates code", PKSCAN_CAT_OTHER},
        {"dataclasses", "make_dataclass", "evaluates code", PKSCAN_CAT_OTHER},
        {"dataclasses", "dataclass", "evaluates code", PKSCAN_CAT_OTHER},
        {"uuid", "_get_command_stdout", "runs commands", PKSCAN_CAT_OTHER},
        {"uuid", "getnode", "runs commands", PKSCAN_CAT_OTHER},
        {"uuid", "uuid1", "runs commands", PKSCAN_CAT_OTHER},
        /* private names, unlisted names, shared state: not plain */
        {"collections", "_sys", NULL, PKSCAN_CAT_OTHER},
        {"enum", "_EnumDict", NULL, PKSCAN_CAT_OTHER},
        {"typing", "_GenericAlias", NULL, PKSCAN_CAT_OTHER},
        {"typing", "no_type_check", NULL, PKSCAN_CAT_OTHER},
        {"zoneinfo", "reset_tzpath", NULL, PKSCAN_CAT_OTHER},
        {"decimal", "setcontext", NULL, PKSCAN_CAT_OTHER},
        {"operator", "setitem", NULL, PKSCAN_CAT_OTHER},
        {"_operator", "iadd", NULL, PKSCAN_CAT_OTHER},
        {"operator", "call", NULL, PKSCAN_CAT_OTHER},
        /* what picklers write stays plain */
        {"typing", "List", NULL, PKSCAN_CAT_PLAIN},
        {"typing", "Union", NULL, PKSCAN_CAT_PLAIN},
        {"typing", "ForwardRef", NULL, PKSCAN_CAT_PLAIN},
        {"typing", "Generic", NULL, PKSCAN_CAT_PLAIN},
        {"dataclasses", "Field", NULL, PKSCAN_CAT_PLAIN},
        {"dataclasses", "_DataclassParams", NULL, PKSCAN_CAT_PLAIN},
        {"dataclasses", "_MISSING_TYPE", NULL, PKSCAN_CAT_PLAIN},
        {"dataclasses", "_HAS_DEFAULT_FACTORY_CLASS", NULL, PKSCAN_CAT_PLAIN},
        {"uuid", "UUID", NULL, PKSCAN_CAT_PLAIN},
        {"zoneinfo", "ZoneInfo", NULL, PKSCAN_CAT_PLAIN},
        {"collections", "deque", NULL, PKSCAN_CAT_PLAIN},
        {"decimal", "Decimal", NULL, PKSCAN_CAT_PLAIN},
        {"operator", "getitem", NULL, PKSCAN_CAT_PLAIN},
        {"copyreg", "_reconstructor", NULL, PKSCAN_CAT_PLAIN},
        {"re", "_compile", NULL, PKSCAN_CAT_PLAIN},
        {"logging", "getLogger", NULL, PKSCAN_CAT_PLAIN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char buf[300];
        size_t n = stack_global(buf, sizeof buf, cases[i].m, cases[i].n,
                                ".", 1);
        pkscan_report *r = scan_c(buf, n);
        const pkscan_import *im = find_import(r, cases[i].m, cases[i].n);
        cr_assert(im != NULL, "%s.%s", cases[i].m, cases[i].n);
        if (cases[i].reason == NULL)
            cr_assert(!im->dangerous, "%s.%s: %s", cases[i].m, cases[i].n,
                      im->reason);
        else
            cr_assert(im->dangerous && strcmp(im->reason, cases[i].reason) == 0,
                      "%s.%s: %s", cases[i].m, cases[i].n,
                      im->dangerous ? im->reason : "not dangerous");
        cr_assert_eq(im->category, cases[i].cat, "%s.%s: %s", cases[i].m,
                     cases[i].n, pkscan_category_name(im->category));
        cr_assert_eq(pkscan_strict_violation(r),
                     cases[i].cat != PKSCAN_CAT_PLAIN, "%s.%s", cases[i].m,
                     cases[i].n);
        pkscan_free(r);
    }
}

/* The reviewer's pickle: typing._eval_type(typing.ForwardRef(SRC), {}, {})
 * at protocol 2. --strict refused nothing; now _eval_type is dangerous. */
Test(scan_trust_c, typing_eval_type_pickle_is_dangerous)
{
    static const char p[] =
        "\x80\x02" "ctyping\n_eval_type\n("
        "ctyping\nForwardRef\n(X\x03\x00\x00\x00" "1+1tR}}tR.";
    pkscan_report *r = scan_c(p, sizeof p - 1);
    const pkscan_import *e = find_import(r, "typing", "_eval_type");
    cr_assert(e != NULL && e->dangerous);
    cr_assert_str_eq(e->reason, "evaluates code");
    const pkscan_import *f = find_import(r, "typing", "ForwardRef");
    cr_assert(f != NULL && !f->dangerous &&
              f->category == PKSCAN_CAT_PLAIN);
    cr_assert_eq(r->n_dangerous, 1);
    cr_assert(pkscan_strict_violation(r));
    pkscan_free(r);
}

/* S1b: BUILD (APPENDS, SETITEMS) on an imported object changes it for the
 * whole process: dangerous, whatever the object. */
Test(scan_trust_c, build_on_an_imported_object_is_dangerous)
{
    static const struct {
        const char *what, *data;
        size_t len;
        const char *m, *n;
    } cases[] = {
#define CASE(w, lit, m, n) {w, lit, sizeof(lit) - 1, m, n}
        /* subimport("math") then BUILD {'pi': 3} */
        CASE("subimport",
             "\x80\x02" "ccloudpickle.cloudpickle\nsubimport\n("
             "X\x04\x00\x00\x00" "mathtR}X\x02\x00\x00\x00" "piK\x03sb.",
             "math", ""),
        /* GLOBAL math floor, BUILD {'x': 1} */
        CASE("global",
             "\x80\x02" "cmath\nfloor\n}X\x01\x00\x00\x00" "xK\x01sb.",
             "math", "floor"),
        /* logging.getLogger('x') then BUILD {'disabled': True} */
        CASE("getLogger",
             "\x80\x02" "clogging\ngetLogger\n(X\x01\x00\x00\x00" "xtR"
             "}X\x08\x00\x00\x00" "disabled\x88sb.",
             "logging", "getLogger"),
        /* __import__('math') then BUILD */
        CASE("__import__",
             "\x80\x02" "cbuiltins\n__import__\n(X\x04\x00\x00\x00"
             "mathtR}X\x02\x00\x00\x00" "piK\x03sb.",
             "builtins", "__import__"),
        /* zoneinfo.TZPATH, APPENDS into it */
        CASE("appends",
             "\x80\x02" "czoneinfo\nTZPATH\n(X\x01\x00\x00\x00" "/e.",
             "zoneinfo", "TZPATH"),
#undef CASE
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        pkscan_report *r = scan_c(cases[i].data, cases[i].len);
        const pkscan_import *im = find_import(r, cases[i].m, cases[i].n);
        cr_assert(im != NULL, "%s", cases[i].what);
        cr_assert(im->dangerous, "%s: not flagged", cases[i].what);
        cr_assert_str_eq(im->reason, "modifies an imported object", "%s",
                         cases[i].what);
        cr_assert_neq(im->category, PKSCAN_CAT_PLAIN, "%s", cases[i].what);
        cr_assert(pkscan_strict_violation(r));
        pkscan_free(r);
    }
    /* a fresh object built by a plain class is not an imported one */
    static const char ok[] = "\x80\x02" "ccollections\nOrderedDict\n)R"
                             "}X\x01\x00\x00\x00xK\x01sb.";
    pkscan_report *r = scan_c(ok, sizeof ok - 1);
    cr_assert_eq(r->n_dangerous, 0);
    cr_assert(!pkscan_strict_violation(r));
    pkscan_free(r);
}

/* C1: a chain built top-down through the memo (d0..dN made and memoised
 * first, then d[i+1] appended into d[i]) nests N deep; a cycle is
 * finite. */
Test(scan_trust_c, memo_chain_depth_is_the_real_depth)
{
    enum { N = 3000 };
    size_t cap = 64 + N * 32, k = 0;
    char *p = malloc(cap);
    memcpy(p + k, "\x80\x02" "ccollections\ndeque\n", 21);
    k += 21;
    /* memo 0: deque; memo i: deque() */
    p[k++] = 'r';
    memset(p + k, 0, 4);
    k += 4;
    p[k++] = '0';
    for (uint32_t i = 1; i <= N; i++) {
        p[k++] = 'j';
        memset(p + k, 0, 4);
        k += 4;
        p[k++] = ')';
        p[k++] = 'R';
        p[k++] = 'r';
        memcpy(p + k, &i, 4); /* little-endian host */
        k += 4;
        p[k++] = '0';
    }
    for (uint32_t i = 1; i < N; i++) {
        uint32_t j = i + 1;
        p[k++] = 'j';
        memcpy(p + k, &i, 4);
        k += 4;
        p[k++] = 'j';
        memcpy(p + k, &j, 4);
        k += 4;
        p[k++] = 'a';
        p[k++] = '0';
    }
    uint32_t one = 1;
    p[k++] = 'j';
    memcpy(p + k, &one, 4);
    k += 4;
    p[k++] = '.';
    pkscan_report *r = scan_c(p, k);
    cr_assert_geq(r->max_depth, N, "max_depth %zu", r->max_depth);
    pkscan_free(r);
    /* close the chain into a cycle: dN appends d1 */
    k--; /* drop STOP and the last GET */
    k -= 5;
    uint32_t last = N;
    p[k++] = 'j';
    memcpy(p + k, &last, 4);
    k += 4;
    p[k++] = 'j';
    memcpy(p + k, &one, 4);
    k += 4;
    p[k++] = 'a';
    p[k++] = '.';
    r = scan_c(p, k);
    cr_assert_geq(r->max_depth, N);
    cr_assert_leq(r->max_depth, N + 2);
    pkscan_free(r);
    free(p);
}

/* The reviewer's reproducer: 20,000 deques linked top-down. The static
 * report refuses it (it reported 3 and the load crashed CPython). */
Test(scan_trust_c, cli_refuses_a_deep_memo_chain)
{
    char dir[64];
    cpk_tmpdir(dir, sizeof(dir));
    char path[128];
    snprintf(path, sizeof(path), "%s/deep.pkl", dir);
    cpk_python_to_file(path, cpk_py_text("cli_refuses_a_deep_memo_chain.py"));
    for (int load = 0; load < 2; load++) {
        const char *argv[] = {CPK_LOAD, load ? "--load" : path,
                              load ? path : NULL, NULL};
        cpk_proc pr;
        cpk_spawn(&pr, argv, dir, NULL, 0, NULL);
        cpk_assert_exit(&pr, 3);
        cr_assert(strstr(pr.err, "not a valid pickle: nesting ") != NULL,
                  "%s", pr.err);
        cr_assert(strstr(pr.err, "more than 10000") != NULL, "%s", pr.err);
        cpk_proc_free(&pr);
    }
}

/* K1: two spellings of one name, both kept. */
Test(scan_trust_c, every_written_spelling_is_kept)
{
    static const char p[] = "\x80\x02(" "cexceptions\nException\n"
                            "c__builtin__\nException\n"
                            "cbuiltins\nException\nt.";
    pkscan_report *r = scan_c(p, sizeof p - 1);
    cr_assert_eq(r->n_imports, 1);
    const pkscan_import *im = &r->imports[0];
    cr_assert(str_is(im->module, "builtins") && str_is(im->name, "Exception"));
    cr_assert_eq(im->count, 3);
    cr_assert(str_is(im->written_module, "exceptions"));
    cr_assert_eq(im->n_alt_written, 1, "%zu alternatives", im->n_alt_written);
    cr_assert(str_is(im->alt_written[0], "__builtin__"));
    cr_assert(str_is(im->alt_written[1], "Exception"));
    pkscan_free(r);
    /* one spelling: no alternatives */
    static const char q[] = "\x80\x02(" "c__builtin__\nException\n"
                            "c__builtin__\nException\nt.";
    r = scan_c(q, sizeof q - 1);
    cr_assert_eq(r->n_imports, 1);
    cr_assert_eq(r->imports[0].n_alt_written, 0);
    pkscan_free(r);
}

/* K3: 3.13 dropped Tix from _compat_pickle. */
Test(scan_trust_c, python313_has_no_tix_mapping)
{
    static const char p[] = "\x80\x02" "cTix\nBalloon\n.";
    pkscan_report *r = scan_flags(p, sizeof p - 1, 0);
    cr_assert(find_import(r, "tkinter.tix", "Balloon") != NULL);
    pkscan_free(r);
    r = scan_flags(p, sizeof p - 1, PKSCAN_PY313);
    cr_assert(find_import(r, "Tix", "Balloon") != NULL);
    cr_assert(find_import(r, "tkinter.tix", "Balloon") == NULL);
    pkscan_free(r);
    cr_assert_eq(PKSCAN_PY_FLAGS(0x030C07F0) & PKSCAN_PY313, 0);
    cr_assert_eq(PKSCAN_PY_FLAGS(0x030D00F0) & PKSCAN_PY313, PKSCAN_PY313);
    /* and the minor version, for portable code (pkscan.h) */
    cr_assert_eq(PKSCAN_PY_MINOR(PKSCAN_PY_FLAGS(0x030C07F0)), 12);
    cr_assert_eq(PKSCAN_PY_MINOR(PKSCAN_PY_FLAGS(0x030900F0)), 9);
    /* other mappings are the same */
    static const char q[] = "\x80\x02" "cTkinter\nLabel\n.";
    r = scan_flags(q, sizeof q - 1, PKSCAN_PY313);
    cr_assert(find_import(r, "tkinter", "Label") != NULL);
    pkscan_free(r);
}

static const pkscan_load_call *only_call(const pkscan_report *r,
                                         const char *what)
{
    cr_assert_eq(r->n_load_calls, 1, "%s: %zu load calls", what,
                 r->n_load_calls);
    cr_assert(pkscan_strict_violation(r), "%s", what);
    return &r->load_calls[0];
}

/* S2: what the load itself runs, in ordinary ccloudpickle.dumps output. */
Test(scan_trust, code_the_load_runs_is_listed)
{
    cpk_py_file("_defs.py");
    /* an instance of a class by value with __setstate__ */
    pkscan_report *r = scan_py("ccloudpickle.dumps(K())");
    const pkscan_load_call *c = only_call(r, "K()");
    static const char inst[] = "creates an instance of a class carried by "
                               "value (its methods may run";
    cr_assert(strncmp(c->reason, inst, sizeof inst - 1) == 0, "%s",
              c->reason);
    cr_assert(str_is(c->name, "K"));
    cr_assert_str_eq(r->result_kind, "instance");
    cr_assert_eq(r->result_call, 0);
    pkscan_free(r);
    /* a function by value that the load calls: its result is the object */
    r = scan_py("ccloudpickle.dumps(Call())");
    c = only_call(r, "Call()");
    cr_assert_str_eq(c->reason, "calls a function carried by value");
    cr_assert(str_is(c->name, "f"));
    cr_assert_str_eq(r->result_kind, "call result");
    cr_assert_eq(r->result_call, 1);
    pkscan_free(r);
    /* through functools.partial, nested in a list */
    cpk_py("class CallP:\n"
           "    def __reduce__(self):\n"
           "        return (functools.partial(f), ())\n");
    r = scan_py("ccloudpickle.dumps([CallP()])");
    c = only_call(r, "partial");
    cr_assert_str_eq(c->reason, "calls a function carried by value");
    cr_assert_str_eq(r->result_kind, "list");
    pkscan_free(r);
    /* code handed to something that calls it: list(map(f, ...)) */
    cpk_py("class Mapped:\n"
           "    def __reduce__(self):\n"
           "        return (list, (map(f, []),))\n");
    r = scan_py("ccloudpickle.dumps(Mapped())");
    cr_assert_geq(r->n_load_calls, 1);
    int passes = 0;
    for (size_t i = 0; i < r->n_load_calls; i++)
        passes |= strcmp(r->load_calls[i].reason,
                         "passes code carried by value to a callable that "
                         "may call it") == 0;
    cr_assert(passes);
    pkscan_free(r);
    /* a metaclass by value; a base by value with __init_subclass__ */
    r = scan_py("ccloudpickle.dumps(WithMeta)");
    c = only_call(r, "WithMeta");
    cr_assert_str_eq(c->reason,
                     "creates a class whose metaclass is carried by value");
    cr_assert(str_is(c->name, "Meta"));
    pkscan_free(r);
    r = scan_py("ccloudpickle.dumps(Sub)");
    c = only_call(r, "Sub");
    cr_assert_str_eq(c->reason, "creates a class whose base carried by "
                                "value defines __init_subclass__");
    cr_assert(str_is(c->name, "Hooked"));
    pkscan_free(r);
}

/* An enum member of an enum by value whose class defines __hash__, used
 * as a dict key: the load hashes it, running __hash__. The same with an
 * enum whose methods are not hooks is not listed. */
Test(scan_trust, hashing_by_value_hooks_is_listed)
{
    cpk_py_file("hashing_by_value_hooks_is_listed.py");
    pkscan_report *r = scan_py("ccloudpickle.dumps({Hashy.RED: 1})");
    const pkscan_load_call *c = only_call(r, "Hashy key");
    cr_assert_str_eq(c->reason, "hashes an object of a class carried by "
                                "value that defines __hash__ or __eq__ (a "
                                "dict key or set item)");
    cr_assert(str_is(c->name, "Hashy"));
    pkscan_free(r);
    r = scan_py("ccloudpickle.dumps({Hashy.RED, 2}, protocol=4)");
    cr_assert_eq(r->n_load_calls, 1);
    pkscan_free(r);
    r = scan_py("ccloudpickle.dumps([{Quiet.RED: 1}, {1: Hashy.RED}])");
    cr_assert_eq(r->n_load_calls, 0, "%s",
                 r->n_load_calls ? r->load_calls[0].reason : "");
    cr_assert(!pkscan_strict_violation(r));
    pkscan_free(r);
}

/* ... and what it does not run: a function or class only rebuilt. */
Test(scan_trust, code_only_rebuilt_is_not_listed)
{
    cpk_py_file("_defs.py");
    static const char *const exprs[] = {
        "ccloudpickle.dumps(lambda x: x + 1)",
        "ccloudpickle.dumps(f)",
        "ccloudpickle.dumps(functools.partial(f))",
        "ccloudpickle.dumps(collections.defaultdict(f))",
        "ccloudpickle.dumps(K)",
        "ccloudpickle.dumps(b)",
        "ccloudpickle.dumps(Bare)",
        "ccloudpickle.dumps([Color.RED, Color])",
        "ccloudpickle.dumps(Hooked)",
        "ccloudpickle.dumps((typing.List[int], typing.Optional[str], "
        "typing.Dict[str, typing.Any], typing.TypeVar('T')))",
        "ccloudpickle.dumps(typing.List[K])",
        "ccloudpickle.dumps(lambda: math.pi)",
    };
    for (size_t i = 0; i < sizeof exprs / sizeof *exprs; i++) {
        pkscan_report *r = scan_py(exprs[i]);
        cr_assert_eq(r->n_load_calls, 0, "%s: %s", exprs[i],
                     r->n_load_calls ? r->load_calls[0].reason : "");
        cr_assert(!pkscan_strict_violation(r), "%s: %zu dangerous, %zu other",
                  exprs[i], r->n_dangerous, r->n_other);
        cr_assert_eq(r->result_call, 0);
        pkscan_free(r);
    }
}

/* Stock cloudpickle 2.2 (Debian's, for the system Python): the same
 * verdicts. */
Test(scan_trust, stock_cloudpickle_same_verdicts)
{
    struct stat st;
    if (strcmp(CPK_PYTHON, "/usr/bin/python3") != 0 ||
        stat("/usr/lib/python3/dist-packages/cloudpickle", &st) != 0)
        cr_skip_test("Debian's cloudpickle 2.2 is for /usr/bin/python3");
    cpk_py_file("_defs.py", "stock_cloudpickle_same_verdicts.py");
    pkscan_report *r = scan_py("cloudpickle.dumps(K())");
    const pkscan_load_call *c = only_call(r, "cloudpickle K()");
    cr_assert(str_is(c->name, "K"));
    pkscan_free(r);
    r = scan_py("cloudpickle.dumps(Call())");
    c = only_call(r, "cloudpickle Call()");
    cr_assert_str_eq(c->reason, "calls a function carried by value");
    cr_assert_str_eq(r->result_kind, "call result");
    pkscan_free(r);
    static const char *const ok[] = {
        "cloudpickle.dumps(lambda x: x + 1)", "cloudpickle.dumps(K)",
        "cloudpickle.dumps(b)", "cloudpickle.dumps([Color.RED, Color])",
        "cloudpickle.dumps(typing.List[int])",
    };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        r = scan_py(ok[i]);
        cr_assert_eq(r->n_load_calls, 0, "%s", ok[i]);
        cr_assert(!pkscan_strict_violation(r), "%s", ok[i]);
        pkscan_free(r);
    }
}
