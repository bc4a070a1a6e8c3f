/* test_cli_describe.c - `cloudpickle-load FILE` without --load or --call:
 * the static report (cli/load/describe.c over src/scan/pkscan.h), which never loads
 * the pickle. A pickle that would run os.system, eval or exec is reported
 * with the danger flagged and nothing runs (a marker file proves it; with
 * --load the same pickle does run, so the pickle is a real one); modules
 * the pickle names are not imported; functions, closures, classes and
 * enums of ccloudpickle and of stock cloudpickle 2.2 (and 3.x when
 * CPK_CLOUDPICKLE3 names a directory holding it) are described; --strict
 * refuses; hostile names cannot reach the terminal raw. The JSON form is
 * test_cli_json.c's. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
}

TestSuite(cli_describe, .init = setup);

/* Run CPK_PYTHON with `code`, which writes a pickle to stdout; save it as
 * dir/name and return the path (static buffer per call). */
static const char *
pickle_file(const char *name, const char *code)
{
    static char paths[4][256];
    static int next;
    char *path = paths[next++ % 4];
    snprintf(path, 256, "%s/%s", dir, name);
    cpk_python_to_file(path, code);
    return path;
}

/* cloudpickle-load ARGS... (NULL-ended, at most 6) in dir. */
static void
run_load(cpk_proc *p, const char *a1, const char *a2, const char *a3,
         const char *a4)
{
    const char *argv[] = {CPK_LOAD, a1, a2, a3, a4, NULL};
    cpk_spawn(p, argv, dir, NULL, 0, NULL);
}

static int
exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void
assert_has(const cpk_proc *p, const char *text)
{
    cr_assert(strstr(p->out, text) != NULL, "missing %s in:\n%s", text,
              p->out);
}

/* A class whose __reduce__ calls the callable (%s, a Python expression)
 * with one string argument (%s) that creates a marker file when run, then
 * pickled with protocol %d. */
#define EVIL_FMT                                                              \
    "import os, pickle, builtins, sys\n"                                      \
    "class Evil:\n"                                                           \
    "    def __reduce__(self):\n"                                             \
    "        return (%s, (%s,))\n"                                            \
    "sys.stdout.buffer.write(pickle.dumps(Evil(), protocol=%d))\n"

typedef struct {
    const char *callable;  /* the Python expression */
    const char *arg;       /* its argument, %s the marker path */
    const char *import;    /* the import line the report shows */
    const char *reason;
} evil_case;

static const evil_case evil_cases[] = {
    {"os.system", "'touch %s'", "posix.system", "runs commands"},
    /* with globals: without a Python frame eval needs them */
    {"builtins.eval", "'open(%%r, \"w\").close()' %% ('%s',), {}",
     "builtins.eval", "evaluates code"},
    {"builtins.exec", "'open(%%r, \"w\").close()' %% ('%s',), {}",
     "builtins.exec", "evaluates code"},
};

/* THE test: every protocol, each callable. Reported, flagged, exit 0,
 * and the marker does not exist afterwards; --strict refuses it (exit 3,
 * one line naming it), --strict --load and --strict --call refuse it
 * before loading; --load alone runs it (so the pickle is a real one). */
Test(cli_describe, pickle_that_runs_code_is_reported_not_run)
{
    for (size_t c = 0; c < sizeof(evil_cases) / sizeof(evil_cases[0]); c++)
        for (int proto = 0; proto <= 5; proto++) {
            const evil_case *e = &evil_cases[c];
            char marker[256], arg[400], code[1200];
            snprintf(marker, sizeof(marker), "%s/MARKER-%zu-%d", dir, c,
                     proto);
            snprintf(arg, sizeof(arg), e->arg, marker);
            snprintf(code, sizeof(code), EVIL_FMT, e->callable, arg, proto);
            const char *path = pickle_file("evil.pkl", code);
            cpk_proc p;
            run_load(&p, path, NULL, NULL, NULL);
            cpk_assert_exit(&p, 0);
            cr_assert_str_eq(p.err, "");
            char line[300];
            snprintf(line, sizeof(line), "! %s", e->import);
            assert_has(&p, line);
            snprintf(line, sizeof(line), "DANGEROUS: %s", e->reason);
            assert_has(&p, line);
            assert_has(&p, "result     instance\n");
            assert_has(&p, "verdict    DANGEROUS");
            cpk_proc_free(&p);
            cr_assert(!exists(marker), "%s ran (protocol %d)", e->callable,
                      proto);

            /* --strict: refused, one line, nothing on stdout */
            run_load(&p, "--strict", path, NULL, NULL);
            cpk_assert_exit(&p, 3);
            cr_assert_eq(p.out_len, 0);
            cr_assert(strstr(p.err, "cloudpickle-load: ") == p.err &&
                          strstr(p.err, ": refused import ") != NULL &&
                          strstr(p.err, e->import) != NULL &&
                          strstr(p.err, e->reason) != NULL &&
                          strchr(p.err, '\n') == p.err + p.err_len - 1,
                      "%s", p.err);
            cpk_proc_free(&p);
            run_load(&p, "--strict", "--load", path, NULL);
            cpk_assert_exit(&p, 3);
            cpk_proc_free(&p);
            run_load(&p, "--strict", "--call", path, NULL);
            cpk_assert_exit(&p, 3);
            cpk_proc_free(&p);
            cr_assert(!exists(marker), "%s ran under --strict",
                      e->callable);
            if (proto != 5)
                continue;
            /* The control: loading it does run it. */
            run_load(&p, "--load", path, NULL, NULL);
            cpk_proc_free(&p);
            cr_assert(exists(marker), "%s did not run under --load",
                      e->callable);
        }
}

Test(cli_describe, strict_refusal_names_the_import_and_its_byte)
{
    const char *path = pickle_file(
        "evil.pkl", "import os, pickle, sys\n"
                    "class E:\n"
                    "    def __reduce__(self):\n"
                    "        return (os.system, ('true',))\n"
                    "sys.stdout.buffer.write(pickle.dumps(E(), protocol=2))\n");
    cpk_proc p;
    run_load(&p, "--strict", path, NULL, NULL);
    cpk_assert_exit(&p, 3);
    char expected[400];
    /* protocol 2: PROTO, then GLOBAL at byte 2 */
    snprintf(expected, sizeof(expected),
             "cloudpickle-load: %s: refused import posix.system (runs "
             "commands) at byte 2\n",
             path);
    cr_assert_str_eq(p.err, expected);
    cpk_proc_free(&p);
}

/* Modules a pickle names are not imported: a module on -P that would
 * create a marker on import. */
Test(cli_describe, named_modules_are_not_imported)
{
    char mod[256], marker[256];
    snprintf(marker, sizeof(marker), "%s/IMPORTED", dir);
    snprintf(mod, sizeof(mod), "%s/noisy.py", dir);
    char text[600];
    snprintf(text, sizeof(text),
             "open(%s%s%s, 'w').close()\n"
             "def f():\n"
             "    return 1\n",
             "'", marker, "'");
    cpk_write_file(mod, text);
    const char data[] = "\x80\x04\x8c\x05noisy\x94\x8c\x01" "f\x94\x93\x94.";
    char path[256];
    snprintf(path, sizeof(path), "%s/byref.pkl", dir);
    FILE *f = fopen(path, "wb");
    cr_assert(f && fwrite(data, 1, sizeof(data) - 1, f) == sizeof(data) - 1);
    cr_assert(fclose(f) == 0);
    cpk_proc p;
    run_load(&p, "-P", dir, path, NULL);
    cpk_assert_exit(&p, 0);
    assert_has(&p, "noisy.f  other (byte 14)\n");
    assert_has(&p, "by name    noisy.f\n");
    assert_has(&p, "result     global\n");
    cpk_proc_free(&p);
    cr_assert(!exists(marker), "noisy was imported");
    run_load(&p, "-P", dir, "--load", path);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    cr_assert(exists(marker), "--load did not import noisy");
}

/* The static report starts no interpreter: strace sees no file of the
 * standard library opened. */
Test(cli_describe, no_interpreter_is_started)
{
    if (access("/usr/bin/strace", X_OK) != 0)
        cr_skip_test("no strace");
    const char *path = pickle_file(
        "fn.pkl", "import ccloudpickle, sys\n"
                  "sys.stdout.buffer.write(ccloudpickle.dumps("
                  "lambda x: x + 1))\n");
    char trace[256];
    snprintf(trace, sizeof(trace), "%s/trace", dir);
    const char *argv[] = {"/usr/bin/strace", "-f", "-e", "trace=openat,open",
                          "-o", trace, CPK_LOAD, path, NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    if (p.exited && p.status != 0 && strstr(p.err, "ptrace") != NULL)
        cr_skip_test("strace cannot trace here: %s", p.err);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "result     function\n") != NULL, "%s", p.out);
    cpk_proc_free(&p);
    size_t len;
    char *t = cpk_read_file(trace, &len);
    cr_assert(t != NULL);
    /* libpython itself is mapped by the dynamic loader; an interpreter
     * that starts reads the encodings package and os.py */
    cr_assert(strstr(t, "/encodings") == NULL &&
                  strstr(t, "os.py") == NULL,
              "the interpreter started:\n%s", t);
    free(t);
}

/* ccloudpickle's functions, closures, classes and enums. */
#define FN_SRC                                                                \
    "import sys, enum, ccloudpickle\n"                                        \
    "SRC = '''\\\n"                                                           \
    "import math, os\n"                                                       \
    "K = 3\n"                                                                 \
    "def outer(a, b=2, *args, c, d=4, **kw):\n"                               \
    "    z = 5\n"                                                             \
    "    def inner(x, /, y=1, *rest, flag, **opts):\n"                        \
    "        return x + y + z + a + K + math.floor(1.5)\n"                    \
    "    return inner\n"                                                      \
    "def runs():\n"                                                           \
    "    return os.getcwd()\n"                                                \
    "class Base:\n"                                                           \
    "    pass\n"                                                              \
    "class Thing(Base):\n"                                                    \
    "    def method(self, n, *, scale=2):\n"                                  \
    "        return n * scale\n"                                              \
    "class Color(enum.Enum):\n"                                               \
    "    RED = 1\n"                                                           \
    "    GREEN = 2\n"                                                         \
    "'''\n"                                                                   \
    "exec(compile(SRC, '/src/mod.py', 'exec'), globals())\n"

Test(cli_describe, ccloudpickle_functions_classes_enums)
{
    const char *path = pickle_file(
        "all.pkl", FN_SRC "sys.stdout.buffer.write(ccloudpickle.dumps("
                          "[outer(1, c=3), runs, Thing, Color]))\n");
    cpk_proc p;
    run_load(&p, path, NULL, NULL, NULL);
    cpk_assert_exit(&p, 0);
    char line[400];
    snprintf(line, sizeof(line), "file       %s\n", path);
    assert_has(&p, line);
    assert_has(&p, "protocol 5");
    assert_has(&p, "result     list\n");
    assert_has(&p, "function   outer.<locals>.inner (byte ");
    assert_has(&p, "  module     __main__\n"
                   "  source     /src/mod.py, line 5\n"
                   "  signature  inner(x, /, y=..., *rest, flag, **opts)\n");
    assert_has(&p, "  globals    K, math\n"
                   "  closure    a, z\n"
                   "  defaults   1 positional, 0 keyword-only\n");
    assert_has(&p, "function   runs (byte ");
    assert_has(&p, "  signature  runs()\n");
    assert_has(&p, "  globals    os\n");
    assert_has(&p, "function   Thing.method (byte ");
    assert_has(&p, "  signature  method(self, n, *, scale)\n");
    assert_has(&p, "  defaults   0 positional, 1 keyword-only\n");
    assert_has(&p, "class      Thing (byte ");
    assert_has(&p, "  bases      Base\n  methods    method\n");
    assert_has(&p, "enum       Color (byte ");
    assert_has(&p, "  bases      enum.Enum\n");
    assert_has(&p, "  members    RED, GREEN\n");
    /* subimport("math") is plain, subimport("os") dangerous */
    cr_assert(strstr(p.out, "    math ") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "  ! os ") != NULL, "%s", p.out);
    assert_has(&p, "DANGEROUS: runs commands, module imported by a "
                   "reconstructor");
    snprintf(line, sizeof(line), "  python     %d.%d (bytecode magic ",
             PY_MAJOR_VERSION, PY_MINOR_VERSION);
    assert_has(&p, line);
    cpk_proc_free(&p);
}

/* --strict accepts a function whose globals name a plain module (the
 * subimport is classified by its module), refuses one naming os. */
Test(cli_describe, strict_and_subimported_modules)
{
    const char *plain = pickle_file(
        "plain.pkl", FN_SRC "sys.stdout.buffer.write(ccloudpickle.dumps("
                            "outer(1, c=3)))\n");
    cpk_proc p;
    run_load(&p, "--strict", plain, NULL, NULL);
    cpk_assert_exit(&p, 0);
    assert_has(&p, "verdict    only reconstructors and plain data");
    cpk_proc_free(&p);
    /* passes --strict, is loaded, then called without its arguments */
    run_load(&p, "--strict", "--call", plain, NULL);
    cpk_assert_exit(&p, 2);
    cr_assert(strstr(p.err, "missing a required argument: 'x'") != NULL,
              "%s", p.err);
    cpk_proc_free(&p);
    const char *os = pickle_file(
        "os.pkl", FN_SRC "sys.stdout.buffer.write(ccloudpickle.dumps("
                         "runs))\n");
    run_load(&p, "--strict", os, NULL, NULL);
    cpk_assert_exit(&p, 3);
    cr_assert(strstr(p.err, ": refused import os (runs commands) at byte ") !=
                  NULL,
              "%s", p.err);
    cpk_proc_free(&p);
    /* a module outside the tables is "other" */
    const char *other = pickle_file(
        "other.pkl",
        "import sys, types, ccloudpickle\n"
        "m = types.ModuleType('zzmod')\n"
        "sys.modules['zzmod'] = m\n"
        "exec('def f():\\n    return zzmod', {'zzmod': m, '__name__': "
        "'__main__'}, g := {})\n"
        "sys.stdout.buffer.write(ccloudpickle.dumps(g['f']))\n");
    run_load(&p, "--strict", other, NULL, NULL);
    cpk_assert_exit(&p, 3);
    cr_assert(strstr(p.err, "refused import zzmod (not a reconstructor or "
                            "plain data) at byte ") != NULL,
              "%s", p.err);
    cpk_proc_free(&p);
}

/* ccloudpickle's compat="cloudpickle" layout. */
Test(cli_describe, ccloudpickle_compat_layout)
{
    const char *path = pickle_file(
        "compat.pkl", FN_SRC "sys.stdout.buffer.write(ccloudpickle.dumps("
                             "[outer(1, c=3), Color], "
                             "compat='cloudpickle'))\n");
    cpk_proc p;
    run_load(&p, path, NULL, NULL, NULL);
    cpk_assert_exit(&p, 0);
    assert_has(&p, "function   outer.<locals>.inner (byte ");
    assert_has(&p, "cloudpickle layout)\n");
    assert_has(&p, "  signature  inner(x, /, y=..., *rest, flag, **opts)\n");
    assert_has(&p, "cloudpickle.cloudpickle._make_function");
    assert_has(&p, "cloudpickle reconstructor, by getattr");
    assert_has(&p, "enum       Color (byte ");
    assert_has(&p, "  members    RED, GREEN\n");
    cr_assert(strstr(p.out, "DANGEROUS") == NULL, "%s", p.out);
    cpk_proc_free(&p);
}

/* Stock cloudpickle 2.2 (Debian's python3-cloudpickle). */
Test(cli_describe, stock_cloudpickle_2_2)
{
    if (strcmp(CPK_PYTHON, "/usr/bin/python3") != 0 ||
        !exists("/usr/lib/python3/dist-packages/cloudpickle"))
        cr_skip_test("Debian's cloudpickle 2.2 is for /usr/bin/python3");
    const char *path = pickle_file(
        "cp22.pkl",
        FN_SRC "import cloudpickle\n"
               "assert cloudpickle.__version__.startswith('2.2')\n"
               "sys.stdout.buffer.write(cloudpickle.dumps("
               "[outer(1, c=3), Thing, Color]))\n");
    cpk_proc p;
    run_load(&p, path, NULL, NULL, NULL);
    cpk_assert_exit(&p, 0);
    assert_has(&p, "function   outer.<locals>.inner (byte ");
    assert_has(&p, "  source     /src/mod.py, line 5\n"
                   "  signature  inner(x, /, y=..., *rest, flag, **opts)\n");
    assert_has(&p, "  closure    a, z\n");
    assert_has(&p, "cloudpickle.cloudpickle._make_function");
    assert_has(&p, "class      Thing (byte ");
    assert_has(&p, "cloudpickle layout)\n");
    assert_has(&p, "  members    RED, GREEN\n");
    assert_has(&p, "verdict    only reconstructors and plain data");
    cpk_proc_free(&p);
    run_load(&p, "--strict", path, NULL, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

/* Stock cloudpickle 3.x, where CPK_CLOUDPICKLE3 names a directory holding
 * its package. */
Test(cli_describe, stock_cloudpickle_3)
{
    const char *cp3 = cpk_stock_cloudpickle("CPK_CLOUDPICKLE3");
    char code[4096];
    snprintf(code, sizeof(code),
             FN_SRC "sys.path.insert(0, %s%s%s)\n"
                    "import cloudpickle\n"
                    "assert cloudpickle.__version__.startswith('3.')\n"
                    "sys.stdout.buffer.write(cloudpickle.dumps("
                    "[outer(1, c=3), Thing, Color]))\n",
             "'", cp3, "'");
    const char *path = pickle_file("cp3.pkl", code);
    cpk_proc p;
    run_load(&p, path, NULL, NULL, NULL);
    cpk_assert_exit(&p, 0);
    assert_has(&p, "function   outer.<locals>.inner (byte ");
    assert_has(&p, "  signature  inner(x, /, y=..., *rest, flag, **opts)\n");
    assert_has(&p, "  closure    a, z\n");
    assert_has(&p, "class      Thing (byte ");
    assert_has(&p, "  members    RED, GREEN\n");
    assert_has(&p, "verdict    only reconstructors and plain data");
    cpk_proc_free(&p);
}

/* Code made for another Python: described, with a note; --load refuses
 * it as before. */
Test(cli_describe, code_of_another_python_is_described)
{
    char code[2048];
    snprintf(code, sizeof(code),
             "import sys, ccloudpickle, importlib.util\n"
             "d = ccloudpickle.dumps(lambda x: x)\n"
             "v = b'%d.%d'\n"
             "n = bytes([0x8c, len(v)]) + v\n"
             "assert d.count(n) == 1, d\n"
             "d = d.replace(n, b'\\x8c\\x043.99')\n"
             "m = b'J' + importlib.util.MAGIC_NUMBER\n"
             "assert d.count(m) == 1, d\n"
             "d = d.replace(m, b'J' + (9999 | 0x0a0d << 16).to_bytes(4, "
             "'little'))\n"
             "sys.stdout.buffer.write(d)\n",
             PY_MAJOR_VERSION, PY_MINOR_VERSION);
    const char *path = pickle_file("v399.pkl", code);
    cpk_proc p;
    run_load(&p, path, NULL, NULL, NULL);
    cpk_assert_exit(&p, 0);
    char *at = strstr(p.out, "  python     3.99 (bytecode magic ");
    cr_assert(at != NULL, "%s", p.out);
    long magic = 0;
    char tail[200];
    snprintf(tail, sizeof(tail), "; this program runs %d.%d: --load and "
             "--call would refuse it\n",
             PY_MAJOR_VERSION, PY_MINOR_VERSION);
    cr_assert(sscanf(at, "  python     3.99 (bytecode magic %ld)", &magic) ==
                  1 && magic == 9999 && strstr(at, tail) != NULL,
              "%s", p.out);
    cpk_proc_free(&p);
    run_load(&p, "--load", path, NULL, NULL);
    cpk_assert_exit(&p, 3);
    cr_assert(strstr(p.err, "compiled by Python 3.99") != NULL, "%s", p.err);
    cpk_proc_free(&p);
}

/* Names from the pickle reach the terminal escaped: no escape sequence,
 * no line of their own, invalid UTF-8 as \xNN; valid UTF-8 as itself. */
Test(cli_describe, hostile_names_are_escaped)
{
    const char *path = pickle_file(
        "hostile.pkl",
        "import sys, ccloudpickle\n"
        "src = 'def f(caf\\u00e9, b):\\n    return 1\\n'\n"
        "g = {'__name__': '__main__'}\n"
        "exec(compile(src, '/tmp/\\x1b[31mred\\nverdict    fake.py', 'exec'),"
        " g)\n"
        "f = g['f']\n"
        "f.__qualname__ = 'q\\rfunction   forged\\x07\\u202e'\n"
        "sys.stdout.buffer.write(ccloudpickle.dumps(f))\n");
    cpk_proc p;
    run_load(&p, path, NULL, NULL, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert(memchr(p.out, '\x1b', p.out_len) == NULL, "%s", p.out);
    cr_assert(memchr(p.out, '\r', p.out_len) == NULL);
    cr_assert(memchr(p.out, '\a', p.out_len) == NULL);
    cr_assert(strstr(p.out, "\nverdict    fake") == NULL, "%s", p.out);
    cr_assert(strstr(p.out, "\nfunction   forged") == NULL, "%s", p.out);
    assert_has(&p, "  source     /tmp/\\x1b[31mred\\nverdict    fake.py, "
                   "line 1\n");
    assert_has(&p, "function   q\\rfunction   forged\\x07\\u202e (byte ");
    assert_has(&p, "  signature  f(caf\xc3\xa9, b)\n");
    cpk_proc_free(&p);

    /* an import whose module name holds an encoded surrogate (valid for
     * BINUNICODE, not UTF-8), a newline and an escape */
    const char bad[] = "\x80\x04\x8c\x07m\xed\xb2\x80\n\x1b[\x8c\x01n\x93.";
    char badpath[256];
    snprintf(badpath, sizeof(badpath), "%s/bad-name.pkl", dir);
    FILE *f = fopen(badpath, "wb");
    cr_assert(f && fwrite(bad, 1, sizeof(bad) - 1, f) == sizeof(bad) - 1);
    cr_assert(fclose(f) == 0);
    run_load(&p, badpath, NULL, NULL, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert(memchr(p.out, '\x1b', p.out_len) == NULL, "%s", p.out);
    assert_has(&p, "m\\xed\\xb2\\x80\\n\\x1b[.n  other (byte 14)\n");
    cpk_proc_free(&p);
    /* and in --strict's refusal on stderr */
    run_load(&p, "--strict", badpath, NULL, NULL);
    cpk_assert_exit(&p, 3);
    cr_assert(memchr(p.err, '\x1b', p.err_len) == NULL, "%s", p.err);
    cr_assert(strchr(p.err, '\n') == p.err + p.err_len - 1, "%s", p.err);
    cpk_proc_free(&p);
}

/* Out-of-band buffers are counted. */
Test(cli_describe, buffers_are_counted)
{
    const char *path = pickle_file(
        "oob.pkl", "import pickle, sys\n"
                   "bufs = []\n"
                   "d = pickle.dumps([pickle.PickleBuffer(b'ab'), "
                   "pickle.PickleBuffer(b'cd')], protocol=5, "
                   "buffer_callback=bufs.append)\n"
                   "sys.stdout.buffer.write(d)\n");
    cpk_proc p;
    run_load(&p, path, NULL, NULL, NULL);
    cpk_assert_exit(&p, 0);
    assert_has(&p, "buffers    2 out-of-band (a load needs them passed as "
                   "buffers=)\n");
    cpk_proc_free(&p);
}

/* A report past PKSCAN_MAX_ITEMS imports says it is truncated. */
Test(cli_describe, capped_report_says_truncated, .timeout = 120)
{
    const char *path = pickle_file(
        "many.pkl", "import sys\n"
                    "out = [b'\\x80\\x04']\n"
                    "for i in range(100005):\n"
                    "    m = b'm%d' % i\n"
                    "    out.append(b'\\x8c' + bytes([len(m)]) + m + "
                    "b'\\x8c\\x01f\\x930')\n"
                    "out.append(b'N.')\n"
                    "sys.stdout.buffer.write(b''.join(out))\n");
    cpk_proc p;
    run_load(&p, path, NULL, NULL, NULL);
    cpk_assert_exit(&p, 0);
    assert_has(&p, "imports    100000, 100005 outside reconstructors and "
                   "plain data\n");
    assert_has(&p, "\ntruncated  the report is capped");
    cpk_proc_free(&p);
}

Test(cli_describe, usage_errors)
{
    static const struct {
        const char *a1, *a2;
        const char *err;
    } cases[] = {
        {"--load", "--call", "--load and --call are mutually exclusive"},
        {"--json", "--load",
         "--json is for the static report; it cannot be combined with "
         "--load"},
        {"--call", "--json",
         "--json is for the static report; it cannot be combined with "
         "--call"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cpk_proc p;
        run_load(&p, cases[i].a1, cases[i].a2, "x.pkl", NULL);
        cpk_assert_exit(&p, 2);
        char expected[400];
        snprintf(expected, sizeof(expected),
                 "cloudpickle-load: %s\nTry 'cloudpickle-load --help' for "
                 "more information.\n",
                 cases[i].err);
        cr_assert_str_eq(p.err, expected);
        cpk_proc_free(&p);
    }
}

/* A closed pipe kills quietly (SIGPIPE), a full disk is one line, exit 5. */
Test(cli_describe, standard_output_errors)
{
    const char *path = pickle_file(
        "fn.pkl", "import ccloudpickle, sys\n"
                  "sys.stdout.buffer.write(ccloudpickle.dumps("
                  "lambda x: x + 1))\n");
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "%s %s >/dev/full", CPK_LOAD, path);
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 5);
    cr_assert_str_eq(p.err, "cloudpickle-load: standard output: No space "
                            "left on device\n");
    cpk_proc_free(&p);
    const char *args[] = {CPK_LOAD, path, NULL};
    cpk_spawn_opts o = {.argv = args, .cwd = dir, .close_stdout = 1};
    cpk_spawn_ex(&p, &o);
    cr_assert(p.signaled && p.sig == SIGPIPE, "exited %d: %s", p.status,
              p.err);
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
}

/* Code carried by value that the load itself runs: an ordinary
 * ccloudpickle.dumps(K()) of a class by value with __setstate__, and a
 * REDUCE of a function by value. Listed under "load runs", the verdict
 * says so, --strict refuses (naming it), nothing runs; --load runs it
 * (the control). */
#define RUNS_SRC                                                              \
    "import sys, ccloudpickle\n"                                              \
    "MARK = sys.argv[1] if len(sys.argv) > 1 else None\n"                     \
    "class K:\n"                                                              \
    "    def __setstate__(self, st):\n"                                       \
    "        open(st['path'], 'w').close()\n"                                 \
    "k = K()\n"                                                               \
    "def f():\n"                                                              \
    "    return 42\n"                                                         \
    "class Call:\n"                                                           \
    "    def __reduce__(self):\n"                                             \
    "        return (f, ())\n"

Test(cli_describe, code_the_load_runs_is_marked)
{
    char marker[256], code[2048];
    snprintf(marker, sizeof(marker), "%s/MARKER-setstate", dir);
    snprintf(code, sizeof(code),
             RUNS_SRC "k.__dict__['path'] = '%s'\n"
                      "sys.stdout.buffer.write(ccloudpickle.dumps(k))\n",
             marker);
    const char *path = pickle_file("setstate.pkl", code);
    cpk_proc p;
    run_load(&p, path, NULL, NULL, NULL);
    cpk_assert_exit(&p, 0);
    assert_has(&p, "load runs  code carried by value, at 1 place\n");
    assert_has(&p, "  ! creates an instance of a class carried by value (its "
                   "methods may run: __new__, __init__, __setstate__, "
                   "__setattr__, __hash__...): K (byte ");
    assert_has(&p, "verdict    LOADING RUNS CODE carried by value");
    cr_assert(strstr(p.out, "only reconstructors and plain data") == NULL,
              "%s", p.out);
    assert_has(&p, "result     instance\n");
    cpk_proc_free(&p);
    run_load(&p, "--strict", path, NULL, NULL);
    cpk_assert_exit(&p, 3);
    cr_assert_eq(p.out_len, 0);
    cr_assert(strstr(p.err, ": refused: the load creates an instance of a "
                            "class carried by value") != NULL &&
                  strstr(p.err, "): K at byte ") != NULL,
              "%s", p.err);
    cpk_proc_free(&p);
    run_load(&p, "--strict", "--load", path, NULL);
    cpk_assert_exit(&p, 3);
    cpk_proc_free(&p);
    cr_assert(!exists(marker), "__setstate__ ran without --load");
    run_load(&p, "--load", path, NULL, NULL);
    cpk_proc_free(&p);
    cr_assert(exists(marker), "__setstate__ did not run under --load");

    /* the result is what a function by value returns */
    path = pickle_file("call.pkl", RUNS_SRC "sys.stdout.buffer.write("
                                            "ccloudpickle.dumps(Call()))\n");
    run_load(&p, path, NULL, NULL, NULL);
    cpk_assert_exit(&p, 0);
    assert_has(&p, "result     result of calling f carried by value\n");
    assert_has(&p, "  ! calls a function carried by value: f (byte ");
    cpk_proc_free(&p);
    /* a lambda alone: rebuilt, not run */
    path = pickle_file("lam.pkl", RUNS_SRC "sys.stdout.buffer.write("
                                           "ccloudpickle.dumps(f))\n");
    run_load(&p, "--strict", path, NULL, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "load runs") == NULL, "%s", p.out);
    assert_has(&p, "verdict    only reconstructors and plain data");
    cpk_proc_free(&p);
}
