/* test_cli_call_io.c - cloudpickle-load --call's input and output: the
 * arguments from --args-json and --args-pickle (files and standard input,
 * bound to the signature as argv's are), the result as repr, json, pickle
 * or none, on standard output or in --result-file (atomic), what cannot
 * be encoded (exit 4), --error-json, and every refusal with its exit
 * status and exact message. The encoders themselves: test_callio.c. */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

static char dir[64];

static int
remove_entry(const char *path, const struct stat *sb, int flag,
             struct FTW *ftw)
{
    return remove(path);
}

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
}

static void
teardown(void)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(cli_call_io, .init = setup, .fini = teardown);

/* Write `len` bytes to `name` in dir. */
static void
put(const char *name, const char *data, size_t len)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    cr_assert(f != NULL);
    cr_assert(fwrite(data, 1, len, f) == len);
    cr_assert(fclose(f) == 0);
}

/* `name` in dir holding what the Python `code` writes to stdout (its
 * last statement writes bytes: `out(data)`). */
static void
make(const char *name, const char *code)
{
    char full[8400];
    snprintf(full, sizeof(full),
             "import sys, pickle, ccloudpickle as cp\n"
             "out = sys.stdout.buffer.write\n%s\n",
             code);
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    cpk_python_to_file(path, full);
}

/* `name` in dir: ccloudpickle.dumps(<expr>) after `code`. */
static void
pickle_file(const char *name, const char *code, const char *expr)
{
    char full[8192];
    snprintf(full, sizeof(full), "%s\nout(cp.dumps(%s))", code, expr);
    make(name, full);
}

/* cloudpickle-load ARGS... in dir, `in` on standard input. */
static void
load_in(cpk_proc *p, const char *in, const char *const *args)
{
    const char *argv[40] = {CPK_LOAD};
    int i = 1;
    for (; args[i - 1] != NULL; i++)
        argv[i] = args[i - 1];
    argv[i] = NULL;
    cpk_spawn(p, argv, dir, in, in ? strlen(in) : 0, NULL);
}

#define LOAD(p, in, ...) load_in((p), (in), (const char *[]){__VA_ARGS__, NULL})

static void
assert_err(cpk_proc *p, int status, const char *line)
{
    cpk_assert_exit(p, status);
    char expected[2048];
    if (status == 2)
        snprintf(expected, sizeof(expected),
                 "cloudpickle-load: %s\n"
                 "Try 'cloudpickle-load --help' for more information.\n",
                 line);
    else
        snprintf(expected, sizeof(expected), "cloudpickle-load: %s\n", line);
    cr_assert_str_eq(p->err, expected);
}

/* The entries of dir, sorted, as one string "a b c". */
static void
listing(char *buf, size_t cap)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    cr_assert(n >= 0);
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (strcmp(names[i]->d_name, ".") != 0 &&
            strcmp(names[i]->d_name, "..") != 0)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s",
                                    len ? " " : "", names[i]->d_name);
        free(names[i]);
    }
    free(names);
}

/* Run CPK_PYTHON `code` with `data` on standard input: it must exit 0. */
static void
python_check(const char *code, const char *data, size_t len)
{
    cpk_proc q;
    cpk_python(&q, code, data, len);
    cpk_assert_exit(&q, 0);
    cpk_proc_free(&q);
}

/* echo.pkl: returns its arguments, after printing a line. */
static void
echo(void)
{
    pickle_file("echo.pkl",
                "def echo(*a, **k):\n"
                "    print('called')\n"
                "    return [list(a), k]\n",
                "echo");
}

Test(cli_call_io, args_json_array_and_object_from_files)
{
    echo();
    static const char a_json[] = "[1, \"caf\xc3\xa9\", null, [true, 2.5]]";
    put("a.json", a_json, sizeof(a_json) - 1);
    cpk_proc p;
    LOAD(&p, NULL, "--call", "--args-json", "a.json", "--result", "json",
         "echo.pkl");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "called\n[[1,\"caf\xc3\xa9\",null,[true,2.5]],{}]\n");
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);

    static const struct {
        const char *json, *out;
    } cases[] = {
        {"{\"args\": [1, 2], \"kwargs\": {\"x\": {\"y\": [3]}}}",
         "[[1,2],{\"x\":{\"y\":[3]}}]\n"},
        {"{\"kwargs\": {\"z\": \"\\u00e9\"}}", "[[],{\"z\":\"\xc3\xa9\"}]\n"},
        {"{\"args\": []}", "[[],{}]\n"},
        {"{}", "[[],{}]\n"},
        {"[]", "[[],{}]\n"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        put("o.json", cases[i].json, strlen(cases[i].json));
        LOAD(&p, NULL, "--call", "echo.pkl", "--args-json=o.json",
             "--result=json");
        cpk_assert_exit(&p, 0);
        char want[256];
        snprintf(want, sizeof(want), "called\n%s", cases[i].out);
        cr_assert_str_eq(p.out, want, "case %zu", i);
        cpk_proc_free(&p);
    }
}

Test(cli_call_io, args_json_from_standard_input)
{
    echo();
    cpk_proc p;
    LOAD(&p, "{\"args\": [\"x\"], \"kwargs\": {\"n\": -7}}", "--call",
         "--args-json", "-", "echo.pkl");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "called\n[['x'], {'n': -7}]\n");
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
}

Test(cli_call_io, args_json_are_bound_to_the_signature)
{
    pickle_file("two.pkl", "def two(a, b, *, c=0):\n    return a + b + c\n",
                "two");
    static const struct {
        const char *json, *err;
    } cases[] = {
        {"[1]", "--call two(): missing a required argument: 'b'"},
        {"[1, 2, 3]", "--call two(): too many positional arguments"},
        {"{\"args\": [1, 2], \"kwargs\": {\"d\": 1}}",
         "--call two(): got an unexpected keyword argument 'd'"},
    };
    cpk_proc p;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        LOAD(&p, cases[i].json, "--call", "--args-json", "-", "two.pkl");
        assert_err(&p, 2, cases[i].err);
        cr_assert_str_eq(p.out, "");
        cpk_proc_free(&p);
    }
    LOAD(&p, "{\"args\": [1, 2], \"kwargs\": {\"c\": 10}}", "--call",
         "--args-json", "-", "two.pkl");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "13\n");
    cpk_proc_free(&p);
}

Test(cli_call_io, args_pickle_from_file_and_standard_input)
{
    echo();
    make("args.pkl", "out(pickle.dumps(((1, b'\\xff', {2}), {'k': 1.5})))");
    make("list.pkl", "out(pickle.dumps(([1], {})))");
    cpk_proc p;
    LOAD(&p, NULL, "--call", "--args-pickle", "args.pkl", "echo.pkl");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "called\n[[1, b'\\xff', {2}], {'k': 1.5}]\n");
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);

    char path[256];
    snprintf(path, sizeof(path), "%s/list.pkl", dir);
    size_t len;
    char *data = cpk_read_file(path, &len);
    const char *argv[] = {CPK_LOAD, "--call", "echo.pkl", "--args-pickle",
                          "-", NULL};
    cpk_spawn(&p, argv, dir, data, len, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "called\n[[1], {}]\n");
    cpk_proc_free(&p);
    free(data);
}

Test(cli_call_io, args_pickle_wrong_shapes)
{
    echo();
    static const struct {
        const char *expr, *err;
    } cases[] = {
        {"[(), {}]", "expected a tuple (args, kwargs), not list"},
        {"((), {}, 1)", "expected a tuple (args, kwargs), not a tuple of 3 "
                        "items"},
        {"({1}, {})", "args must be a tuple or a list, not set"},
        {"((), [])", "kwargs must be a dict, not list"},
        {"((), {1: 2})", "kwargs keys must be str, not int"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char code[256];
        snprintf(code, sizeof(code), "out(pickle.dumps(%s))", cases[i].expr);
        make("bad.pkl", code);
        cpk_proc p;
        LOAD(&p, NULL, "--call", "echo.pkl", "--args-pickle", "bad.pkl");
        char want[256];
        snprintf(want, sizeof(want), "--args-pickle bad.pkl: %s",
                 cases[i].err);
        assert_err(&p, 3, want);
        cr_assert_str_eq(p.out, "", "case %zu", i);
        cpk_proc_free(&p);
    }
}

Test(cli_call_io, bad_json_and_wrong_shapes)
{
    echo();
    static const struct {
        const char *json, *err;
    } cases[] = {
        {"[1, 2", "not valid JSON: Expecting ',' delimiter (line 1, column 6)"},
        {"{\"args\": [1],\n  \"kwargs\": {\"a\" 1}}",
         "not valid JSON: Expecting ':' delimiter (line 2, column 18)"},
        {"", "not valid JSON: Expecting value (line 1, column 1)"},
        {"[1] x", "not valid JSON: Extra data (line 1, column 5)"},
        {"[NaN", "not valid JSON: Expecting ',' delimiter (line 1, column 5)"},
        {"\xff", "not valid JSON: UnicodeDecodeError: 'utf-8' codec can't "
                 "decode byte 0xff in position 0: invalid start byte"},
        {"3", "expected an array of arguments or an object with \"args\" "
              "and \"kwargs\", not a number"},
        {"\"s\"", "expected an array of arguments or an object with \"args\" "
                  "and \"kwargs\", not a string"},
        {"null", "expected an array of arguments or an object with \"args\" "
                 "and \"kwargs\", not null"},
        {"{\"args\": {}}", "\"args\" must be an array, not an object"},
        {"{\"kwargs\": [1]}", "\"kwargs\" must be an object, not an array"},
        {"{\"args\": [], \"other\": 1}",
         "unexpected key \"other\" (the object may have \"args\" and "
         "\"kwargs\")"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        put("bad.json", cases[i].json, strlen(cases[i].json));
        cpk_proc p;
        LOAD(&p, NULL, "--call", "echo.pkl", "--args-json", "bad.json");
        char want[512];
        snprintf(want, sizeof(want), "--args-json bad.json: %s",
                 cases[i].err);
        assert_err(&p, 3, want);
        cr_assert_str_eq(p.out, "", "case %zu", i);
        cpk_proc_free(&p);
    }
    /* A missing file, and one over --max-size. */
    cpk_proc p;
    LOAD(&p, NULL, "--call", "echo.pkl", "--args-json", "nope.json");
    assert_err(&p, 3, "--args-json nope.json: No such file or directory");
    cpk_proc_free(&p);
    char big[2048] = "[\"";
    memset(big + 2, 'x', 2000);
    memcpy(big + 2002, "\"]", 3);
    put("big.json", big, strlen(big));
    LOAD(&p, NULL, "--call", "echo.pkl", "--args-json", "big.json",
         "--max-size", "3K", "--result", "none");
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    LOAD(&p, NULL, "--call", "echo.pkl", "--args-json", "big.json",
         "--max-size", "1K");
    assert_err(&p, 3, "--args-json big.json: 2.0 KiB, more than the 1 "
                      "KiB limit (raise it with --max-size)");
    cpk_proc_free(&p);
}

Test(cli_call_io, usage_errors)
{
    echo();
    put("a.json", "[]", 2);
    make("a.pkl", "out(pickle.dumps(((), {})))");
    static const struct {
        const char *args[8];
        const char *err;
    } cases[] = {
        {{"--call", "--args-json", "a.json", "--args-pickle", "a.pkl",
          "echo.pkl"},
         "--args-json and --args-pickle are mutually exclusive"},
        {{"--call", "--args-json", "a.json", "echo.pkl", "--", "1"},
         "--args-json and arguments after FILE ('1') are mutually exclusive"},
        {{"--call", "--args-pickle", "a.pkl", "echo.pkl", "x=1"},
         "--args-pickle and arguments after FILE ('x=1') are mutually "
         "exclusive"},
        {{"--call", "--args-json", "-", "-"},
         "the pickle and --args-json cannot both come from standard input"},
        {{"--call", "--args-pickle", "-"},
         "the pickle and --args-pickle cannot both come from standard "
         "input"},
        {{"--args-json", "a.json", "echo.pkl"}, "--args-json is for --call"},
        {{"--load", "--result", "json", "echo.pkl"}, "--result is for --call and --map"},
        {{"--result-file", "x", "echo.pkl"}, "--result-file is for --call and --map"},
        {{"--error-json", "echo.pkl"}, "--error-json is for --call and --map"},
        {{"--call", "--result", "yaml", "echo.pkl"},
         "invalid --result 'yaml' (repr, json, pickle or none)"},
        {{"--call", "--result", "none", "--result-file", "r", "echo.pkl"},
         "--result-file has nothing to write with --result none"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cpk_proc p;
        load_in(&p, "[]", cases[i].args);
        assert_err(&p, 2, cases[i].err);
        cr_assert_str_eq(p.out, "");
        cpk_proc_free(&p);
    }
    char names[512];
    listing(names, sizeof(names));
    cr_assert_str_eq(names, "a.json a.pkl echo.pkl");
}

Test(cli_call_io, result_json_nested_non_ascii_decoded_back)
{
    pickle_file("data.pkl", "",
                "lambda: {'caf\\u00e9': ['\\u65e5\\u672c', '\\U0001f600', "
                "'q\"\\\\\\n\\t\\x01'], 'n': [None, True, False, -2**70, "
                "0.1, 1e300, -0.0, 5e-324], 't': (1, (2, [3, {}]))}");
    cpk_proc p;
    LOAD(&p, NULL, "--call", "data.pkl", "--result", "json");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "");
    /* byte for byte json.dumps(ensure_ascii=False, compact) */
    cr_assert_str_eq(p.out,
                     "{\"caf\xc3\xa9\":[\"\xe6\x97\xa5\xe6\x9c\xac\","
                     "\"\xf0\x9f\x98\x80\",\"q\\\"\\\\\\n\\t\\u0001\"],"
                     "\"n\":[null,true,false,-1180591620717411303424,0.1,"
                     "1e+300,-0.0,5e-324],\"t\":[1,[2,[3,{}]]]}\n");
    python_check("import json, sys\n"
                 "data = sys.stdin.buffer.read()\n"
                 "assert data.count(b'\\n') == 1\n"
                 "v = json.loads(data)\n"
                 "assert v == {'caf\\u00e9': ['\\u65e5\\u672c', "
                 "'\\U0001f600', 'q\"\\\\\\n\\t\\x01'], 'n': [None, True, "
                 "False, -2**70, 0.1, 1e300, -0.0, 5e-324], 't': [1, [2, "
                 "[3, {}]]]}, v\n",
                 p.out, p.out_len);
    cpk_proc_free(&p);
}

Test(cli_call_io, floats_round_trip_in_repr_and_json)
{
    pickle_file("fl.pkl", "", "lambda x: [x, x / 3, x * 1e-310, 2.0 ** 60]");
    for (int json = 0; json < 2; json++) {
        cpk_proc p;
        LOAD(&p, NULL, "--call", "fl.pkl", "--result", json ? "json" : "repr",
             "--", "0.1");
        cpk_assert_exit(&p, 0);
        cr_assert_str_eq(p.out, json ? "[0.1,0.03333333333333333,1e-311,"
                                       "1.152921504606847e+18]\n"
                                     : "[0.1, 0.03333333333333333, 1e-311, "
                                       "1.152921504606847e+18]\n");
        python_check("import ast, json, sys\n"
                     "t = sys.stdin.read()\n"
                     "v = json.loads(t) if t.startswith('[0.1,') else "
                     "ast.literal_eval(t)\n"
                     "assert v == [0.1, 0.1 / 3, 0.1 * 1e-310, 2.0 ** 60]\n",
                     p.out, p.out_len);
        cpk_proc_free(&p);
    }
}

Test(cli_call_io, result_pickle_loads_back)
{
    pickle_file("mk.pkl",
                "def mk(n):\n"
                "    print('making')\n"
                "    def add(x):\n"
                "        return x + n\n"
                "    return {'add': add, 'n': n, 's': 'caf\\u00e9'}\n",
                "mk");
    cpk_proc p;
    LOAD(&p, NULL, "--call", "mk.pkl", "--result", "pickle", "--", "5");
    cpk_assert_exit(&p, 0);
    /* standard output carries the pickle alone: prints go to stderr */
    cr_assert_str_eq(p.err, "making\n");
    cr_assert(p.out_len > 2 && (unsigned char)p.out[0] == 0x80 &&
              p.out[1] == 5);
    python_check("import sys, ccloudpickle\n"
                 "v = ccloudpickle.loads(sys.stdin.buffer.read())\n"
                 "assert v['add'](1) == 6 and v['n'] == 5, v\n"
                 "assert v['s'] == 'caf\\u00e9'\n",
                 p.out, p.out_len);
    cpk_proc_free(&p);
}

Test(cli_call_io, result_none_and_repr_default)
{
    echo();
    cpk_proc p;
    LOAD(&p, NULL, "--call", "echo.pkl", "--result", "none", "--", "1");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "called\n");
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
    LOAD(&p, NULL, "--call", "echo.pkl", "--result", "repr", "--", "1");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "called\n[[1], {}]\n");
    cpk_proc_free(&p);
    /* --result-file - is standard output */
    LOAD(&p, NULL, "--call", "echo.pkl", "--result-file", "-", "--result",
         "json", "--", "1");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "called\n[[1],{}]\n");
    cpk_proc_free(&p);
}

Test(cli_call_io, result_file_written_atomically)
{
    echo();
    cpk_proc p;
    LOAD(&p, NULL, "--call", "echo.pkl", "--result-file", "r.json",
         "--result", "json", "--", "caf\xc3\xa9");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "called\n"); /* the prints stay on stdout */
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
    char path[256];
    snprintf(path, sizeof(path), "%s/r.json", dir);
    size_t len;
    char *got = cpk_read_file(path, &len);
    cr_assert_str_eq(got, "[[\"caf\xc3\xa9\"],{}]\n");
    free(got);
    struct stat sb;
    cr_assert(stat(path, &sb) == 0);
    mode_t um = umask(0);
    umask(um);
    cr_assert_eq(sb.st_mode & 0777, 0666 & ~um);
    char names[512];
    listing(names, sizeof(names));
    cr_assert_str_eq(names, "echo.pkl r.json");

    /* A pickle to a file, even from a terminal's process. */
    const char *argv[] = {CPK_LOAD, "--call", "echo.pkl", "--result",
                          "pickle", "--result-file", "r.pkl", NULL};
    cpk_spawn_opts o = {.argv = argv, .cwd = dir, .stdout_tty = 1};
    cpk_spawn_ex(&p, &o);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    snprintf(path, sizeof(path), "%s/r.pkl", dir);
    got = cpk_read_file(path, &len);
    cr_assert(got != NULL);
    python_check("import sys, pickle\n"
                 "assert pickle.loads(sys.stdin.buffer.read()) == [[], {}]\n",
                 got, len);
    free(got);
}

Test(cli_call_io, result_file_untouched_on_failure)
{
    pickle_file("boom.pkl", "def boom():\n    raise ValueError('no')\n",
                "boom");
    pickle_file("set.pkl", "", "lambda: {1}");
    put("r.txt", "old\n", 4);
    static const char *const progs[] = {"boom.pkl", "set.pkl"};
    static const int statuses[] = {1, 4};
    for (int i = 0; i < 2; i++) {
        for (int existing = 0; existing < 2; existing++) {
            cpk_proc p;
            LOAD(&p, NULL, "--call", progs[i], "--result", "json",
                 "--result-file", existing ? "r.txt" : "new.txt");
            cpk_assert_exit(&p, statuses[i]);
            cpk_proc_free(&p);
            char names[512];
            listing(names, sizeof(names));
            cr_assert_str_eq(names, "boom.pkl r.txt set.pkl");
        }
    }
    cpk_assert_file(dir, "r.txt", "old\n");
    /* A directory that does not exist: refused before the call. */
    cpk_proc p;
    LOAD(&p, NULL, "--call", "boom.pkl", "--result-file", "no/r.txt");
    assert_err(&p, 5, "no/r.txt: cannot create a file next to it: No such "
                      "file or directory");
    cpk_proc_free(&p);
}

Test(cli_call_io, unencodable_results_exit_4)
{
    pickle_file("set.pkl", "", "lambda: {1}");
    pickle_file("lock.pkl", "import threading", "lambda: threading.local()");
    pickle_file("badrepr.pkl",
                "class Bad:\n"
                "    def __repr__(self):\n"
                "        raise RuntimeError('no repr')\n",
                "lambda: Bad()");
    pickle_file("nan.pkl", "", "lambda: [1, float('nan')]");
    static const struct {
        const char *file, *format, *err;
    } cases[] = {
        {"set.pkl", "json", "set.pkl: cannot encode a result of type 'set' "
                            "as JSON"},
        {"nan.pkl", "json", "nan.pkl: cannot encode a result of type 'list' "
                            "as JSON: Out of range float values are not "
                            "JSON compliant"},
        {"lock.pkl", "pickle", "lock.pkl: cannot encode a result of type "
                               "'_local' as a pickle: TypeError: cannot "
                               "pickle '_thread._local' object"},
        {"badrepr.pkl", "repr", "badrepr.pkl: cannot encode a result of type "
                                "'Bad' with repr(): RuntimeError: no repr"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cpk_proc p;
        LOAD(&p, NULL, "--call", cases[i].file, "--result", cases[i].format);
        cpk_assert_exit(&p, 4);
        /* the pickle's message may carry a note after it */
        char want[512];
        snprintf(want, sizeof(want), "cloudpickle-load: %s", cases[i].err);
        cr_assert(strncmp(p.err, want, strlen(want)) == 0 &&
                      strchr(p.err, '\n') == p.err + p.err_len - 1,
                  "case %zu: %s", i, p.err);
        /* 3.12's json names the value after "compliant": ": nan" */
        if (strcmp(cases[i].format, "pickle") != 0 &&
            strstr(cases[i].err, "compliant") == NULL)
            cr_assert_eq(p.err_len, strlen(want) + 1, "%s", p.err);
        cr_assert_str_eq(p.out, "");
        cpk_proc_free(&p);
    }
}

Test(cli_call_io, pickle_result_refuses_a_terminal)
{
    echo();
    const char *argv[] = {CPK_LOAD, "--call", "echo.pkl", "--result",
                          "pickle", NULL};
    cpk_spawn_opts o = {.argv = argv, .cwd = dir, .stdout_tty = 1};
    cpk_proc p;
    cpk_spawn_ex(&p, &o);
    assert_err(&p, 2, "refusing to write a pickle to a terminal (use "
                      "--result-file FILE, a pipe, or -f)");
    cpk_proc_free(&p);
    const char *forced[] = {CPK_LOAD, "--call", "-f", "echo.pkl", "--result",
                            "pickle", NULL};
    o.argv = forced;
    cpk_spawn_ex(&p, &o);
    cpk_assert_exit(&p, 0);
    cr_assert(p.out_len > 2 && (unsigned char)p.out[0] == 0x80);
    cpk_proc_free(&p);
    /* repr and json go to a terminal as text */
    const char *text[] = {CPK_LOAD, "--call", "echo.pkl", "--result", "json",
                          NULL};
    o.argv = text;
    cpk_spawn_ex(&p, &o);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

/* An args pickle that would run os.system when loaded. */
static void
hostile(void)
{
    make("evil.pkl",
         "import os\n"
         "class E:\n"
         "    def __reduce__(self):\n"
         "        return (os.system, ('touch pwned',))\n"
         "out(pickle.dumps(((E(),), {}), protocol=4))");
}

Test(cli_call_io, hostile_args_pickle_refused_statically)
{
    echo();
    hostile();
    cpk_proc p;
    LOAD(&p, NULL, "--call", "--strict", "echo.pkl", "--args-pickle",
         "evil.pkl");
    assert_err(&p, 3, "--args-pickle evil.pkl: refused import posix.system "
                      "(runs commands) at byte 28");
    cr_assert_str_eq(p.out, "");
    cpk_proc_free(&p);
    LOAD(&p, NULL, "--call", "--deny", "posix", "echo.pkl", "--args-pickle",
         "evil.pkl");
    assert_err(&p, 3, "--args-pickle evil.pkl: import posix.system refused "
                      "by --allow/--deny at byte 28");
    cpk_proc_free(&p);
    char names[512];
    listing(names, sizeof(names));
    cr_assert_str_eq(names, "echo.pkl evil.pkl");
}

Test(cli_call_io, malformed_and_unloadable_args_pickles)
{
    echo();
    make("args.pkl", "out(pickle.dumps(((1,), {}), protocol=4)[:-3])");
    cpk_proc p;
    LOAD(&p, NULL, "--call", "echo.pkl", "--args-pickle", "args.pkl");
    cpk_assert_exit(&p, 3);
    cr_assert(strncmp(p.err, "cloudpickle-load: --args-pickle args.pkl: not "
                             "a valid pickle: ", 58) == 0, "%s", p.err);
    cr_assert_str_eq(p.out, "");
    cpk_proc_free(&p);
    put("empty.pkl", "", 0);
    LOAD(&p, NULL, "--call", "echo.pkl", "--args-pickle", "empty.pkl");
    assert_err(&p, 3, "--args-pickle empty.pkl: empty input, not a pickle");
    cpk_proc_free(&p);
    /* names a module that is not there: exit 4, as for the pickle */
    /* ((no_such_mod.x,), {}) */
    static const char mod[] = "\x80\x04\x8c\x0bno_such_mod\x94\x8c\x01x\x94"
                              "\x93\x94\x85}\x86.";
    put("mod.pkl", mod, sizeof(mod) - 1);
    LOAD(&p, NULL, "--call", "echo.pkl", "--args-pickle", "mod.pkl");
    assert_err(&p, 4, "--args-pickle mod.pkl: cannot load, a module is "
                      "missing: ModuleNotFoundError: No module named "
                      "'no_such_mod'");
    cpk_proc_free(&p);
}

Test(cli_call_io, args_pickle_must_be_signed_under_verify)
{
    cpk_proc p;
    const char *gen[] = {CPK_DUMP, "--gen-key", "k.key", NULL};
    cpk_spawn(&p, gen, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    char code[1024];
    snprintf(code, sizeof(code),
             "key = open('%s/k.key', 'rb').read()\n"
             "def echo(*a, **k):\n"
             "    return [list(a), k]\n"
             "out(cp.dumps(echo, sign_key=key))",
             dir);
    make("echo.signed", code);
    snprintf(code, sizeof(code),
             "key = open('%s/k.key', 'rb').read()\n"
             "out(cp.dumps(((1,), {'k': 'v'}), sign_key=key))",
             dir);
    make("args.signed", code);
    make("args.pkl", "out(pickle.dumps(((1,), {})))");
    LOAD(&p, NULL, "--call", "--verify", "k.key", "echo.signed",
         "--args-pickle", "args.pkl");
    assert_err(&p, 3, "--args-pickle args.pkl: not a signed pickle "
                      "(--verify requires one)");
    cpk_proc_free(&p);
    LOAD(&p, NULL, "--call", "--verify", "k.key", "echo.signed",
         "--args-pickle", "args.signed");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "[[1], {'k': 'v'}]\n");
    cpk_proc_free(&p);
}

Test(cli_call_io, error_json_is_one_parsable_line)
{
    pickle_file("boom.pkl",
                "def boom(x):\n"
                "    print('before')\n"
                "    raise KeyError(f'bad {x}')\n",
                "boom");
    cpk_proc p;
    LOAD(&p, NULL, "--call", "--error-json", "boom.pkl", "--", "caf\xc3\xa9");
    cpk_assert_exit(&p, 1);
    cr_assert_str_eq(p.out, "before\n");
    cr_assert(p.err_len > 0 && strchr(p.err, '\n') == p.err + p.err_len - 1,
              "%s", p.err);
    python_check("import json, sys\n"
                 "v = json.loads(sys.stdin.buffer.read())\n"
                 "assert list(v) == ['type', 'message', 'traceback'], v\n"
                 "assert v['type'] == 'KeyError', v\n"
                 "assert v['message'] == \"'bad caf\\u00e9'\", v\n"
                 "t = v['traceback']\n"
                 "assert t.startswith('Traceback (most recent call "
                 "last):\\n'), t\n"
                 "assert ', in boom\\n' in t, t\n"
                 "assert t.endswith(\"KeyError: 'bad caf\\u00e9'\\n\"), t\n",
                 p.err, p.err_len);
    cpk_proc_free(&p);
    /* SystemExit is no error record: its status, as without it */
    pickle_file("ex.pkl", "import sys", "lambda: sys.exit(3)");
    LOAD(&p, NULL, "--call", "--error-json", "ex.pkl");
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
}

/* SIGINT (KeyboardInterrupt) or SIGTERM during a slow call: the program
 * dies by the signal and leaves no result file, temp file or not. */
static void
interrupted(int sig)
{
    char code[512];
    snprintf(code, sizeof(code),
             "import time\n"
             "def wait():\n"
             "    open(%s/started', 'w').close()\n"
             "    time.sleep(30)\n",
             "'" "__DIR__");
    char *at = strstr(code, "__DIR__");
    char full[600];
    snprintf(full, sizeof(full), "%.*s%s%s", (int)(at - code), code, dir,
             at + 7);
    pickle_file("wait.pkl", full, "wait");
    char mark[128];
    snprintf(mark, sizeof(mark), "%s/started", dir);
    const char *argv[] = {CPK_LOAD, "--call", "wait.pkl", "--result", "json",
                          "--result-file", "r.json", NULL};
    cpk_spawn_opts o = {.argv = argv, .cwd = dir, .signal = sig,
                        .signal_when_exists = mark};
    cpk_proc p;
    cpk_spawn_ex(&p, &o);
    cr_assert(p.signaled && p.sig == sig, "%s %d\n%s",
              p.exited ? "exit" : "signal", p.exited ? p.status : p.sig,
              p.err);
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
    char names[512];
    listing(names, sizeof(names));
    cr_assert_str_eq(names, "started wait.pkl");
}

Test(cli_call_io, sigint_during_call_leaves_no_result_file, .timeout = 60)
{
    interrupted(SIGINT);
}

Test(cli_call_io, sigterm_during_call_leaves_no_result_file, .timeout = 60)
{
    interrupted(SIGTERM);
}

Test(cli_call_io, system_exit_zero_is_no_result_for_a_result_file)
{
    /* Exit 0 would let the older file pass for this call's result. */
    pickle_file("quit.pkl", "import sys", "lambda: sys.exit(0)");
    put("r.txt", "old\n", 4);
    cpk_proc p;
    LOAD(&p, NULL, "--call", "quit.pkl", "--result-file", "r.txt");
    assert_err(&p, 1, "r.txt: not written: the function exited with status "
                      "0 (SystemExit) without returning a result");
    cpk_proc_free(&p);
    cpk_assert_file(dir, "r.txt", "old\n");
    /* without --result-file it is the status asked for, as before */
    LOAD(&p, NULL, "--call", "quit.pkl");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "");
    cpk_proc_free(&p);
}

Test(cli_call_io, system_exit_while_the_result_is_encoded)
{
    /* repr() of the result raises an exception whose str() raises
     * SystemExit(7): that exit, not an "unencodable" 4. */
    pickle_file("kistr.pkl",
                "class E(Exception):\n"
                "    def __str__(self):\n"
                "        raise SystemExit(7)\n"
                "class R:\n"
                "    def __repr__(self):\n"
                "        raise E()\n",
                "lambda: R()");
    cpk_proc p;
    LOAD(&p, NULL, "--call", "kistr.pkl");
    cpk_assert_exit(&p, 7);
    cr_assert_str_eq(p.out, "");
    cpk_proc_free(&p);
}
