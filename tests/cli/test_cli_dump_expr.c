/* test_cli_dump_expr.c - cloudpickle-dump -e EXPR: source run in a fresh
 * __main__, the value of its last statement pickled (by value: what it
 * defines is __main__'s), loaded back by cloudpickle-load --call where no
 * module exists and by plain pickle.loads in a fresh python3; the other
 * options (-o, -p, --compat, --sign, --by-value, -f) with it; and the
 * refusals: both or neither of -e and MODULE:ATTR, source that does not
 * compile or ends with no expression (exit 2), source that raises (exit
 * 4, its traceback with the -e lines), an interrupt (SIGINT). */
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    char path[256];
    snprintf(path, sizeof(path), "%s/helper.py", dir);
    cpk_write_file(path, "def twice(x):\n    return 2 * x\n");
}

static int
remove_entry(const char *path, const struct stat *sb, int flag,
             struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void
teardown(void)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(cli_dump_expr, .init = setup, .fini = teardown);

static void
dump(cpk_proc *p, const char *const *args)
{
    const char *argv[24] = {CPK_DUMP};
    int i = 1;
    for (; args[i - 1] != NULL; i++)
        argv[i] = args[i - 1];
    argv[i] = NULL;
    cpk_spawn(p, argv, dir, NULL, 0, NULL);
}

/* cloudpickle-load - --call -- ARG in / (no module there), the pickle on
 * standard input. */
static void
load_call(cpk_proc *p, const char *in, size_t in_len, const char *arg)
{
    const char *argv[] = {CPK_LOAD, "-", "--call", "--", arg, NULL};
    cpk_spawn(p, argv, "/", in, in_len, NULL);
}

/* Plain pickle.loads in a fresh python3 after `import ccloudpickle`; the
 * loaded object is `f`, `check` asserts on it. */
static void
fresh_check(const char *in, size_t in_len, const char *check)
{
    char code[4096];
    snprintf(code, sizeof(code),
             "import os, pickle, sys\n"
             "os.chdir('/')\n"
             "import ccloudpickle\n"
             "f = pickle.loads(sys.stdin.buffer.read())\n"
             "%s\n",
             check);
    cpk_proc p;
    cpk_python(&p, code, in, in_len);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

Test(cli_dump_expr, import_then_lambda)
{
    cpk_proc p, q;
    dump(&p, (const char *[]){"-e", "import math; lambda x: math.sqrt(x)",
                              NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "");
    cr_assert(p.out_len > 2 && (unsigned char)p.out[0] == 0x80);
    load_call(&q, p.out, p.out_len, "16");
    cpk_assert_exit(&q, 0);
    cr_assert_str_eq(q.out, "4.0\n");
    cpk_proc_free(&q);
    fresh_check(p.out, p.out_len,
                "assert f(16) == 4.0, f(16)\n"
                "assert f.__module__ == '__main__'\n"
                "assert f.__code__.co_filename == '<cloudpickle-dump -e>'\n"
                "import math\n"
                "assert f.__globals__['math'] is math");
    cpk_proc_free(&p);
}

Test(cli_dump_expr, multi_line_def_then_name)
{
    const char *src = "import re\n"
                      "PAT = re.compile(r'\\s+')\n"
                      "def clean(s, sep=' '):\n"
                      "    '''Fold runs of white space.'''\n"
                      "    return PAT.sub(sep, s).strip()\n"
                      "clean";
    cpk_proc p, q;
    dump(&p, (const char *[]){"--expr", src, NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "");
    load_call(&q, p.out, p.out_len, "  a \t b  ");
    cpk_assert_exit(&q, 0);
    cr_assert_str_eq(q.out, "'a b'\n");
    cpk_proc_free(&q);
    fresh_check(p.out, p.out_len,
                "assert f('x   y', sep='-') == 'x-y'\n"
                "assert f.__name__ == 'clean'\n"
                "assert f.__doc__ == 'Fold runs of white space.'\n"
                "assert f.__code__.co_firstlineno == 3");
    cpk_proc_free(&p);
}

Test(cli_dump_expr, class_defined_travels_by_value)
{
    const char *src = "class Acc:\n"
                      "    def __init__(self):\n"
                      "        self.total = 0\n"
                      "    def add(self, x):\n"
                      "        self.total += x\n"
                      "        return self.total\n"
                      "def run(n):\n"
                      "    a = Acc()\n"
                      "    for i in range(n):\n"
                      "        a.add(i)\n"
                      "    return a.total\n"
                      "run\n";
    cpk_proc p, q;
    dump(&p, (const char *[]){"-e", src, NULL});
    cpk_assert_exit(&p, 0);
    load_call(&q, p.out, p.out_len, "5");
    cpk_assert_exit(&q, 0);
    cr_assert_str_eq(q.out, "10\n");
    cpk_proc_free(&q);
    fresh_check(p.out, p.out_len, "assert f(4) == 6");
    cpk_proc_free(&p);
}

Test(cli_dump_expr, non_ascii_source)
{
    /* Non-ASCII identifiers, string and comment, under the C locale. */
    const char *src = "größe = 3  # Maß\n"
                      "lambda s: s + ' ✓ ' + 'é' * größe";
    const char *argv[] = {CPK_DUMP, "-e", src, NULL};
    const char *env[] = {"LC_ALL=C", NULL};
    cpk_proc p, q;
    cpk_spawn(&p, argv, dir, NULL, 0, env);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "");
    load_call(&q, p.out, p.out_len, "ça");
    cpk_assert_exit(&q, 0);
    cr_assert_str_eq(q.out, "'ça ✓ ééé'\n");
    cpk_proc_free(&q);
    fresh_check(p.out, p.out_len,
                "assert f('x') == 'x \\u2713 \\u00e9\\u00e9\\u00e9'\n"
                "assert f.__globals__['gr\\u00f6\\u00dfe'] == 3");
    cpk_proc_free(&p);
}

Test(cli_dump_expr, prints_go_to_stderr)
{
    cpk_proc p, q;
    dump(&p, (const char *[]){"-e",
                              "import sys; print('to stdout'); "
                              "sys.stdout.write('more\\n'); lambda: 7",
                              NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "to stdout\nmore\n");
    cr_assert((unsigned char)p.out[0] == 0x80);
    load_call(&q, p.out, p.out_len, NULL);
    cpk_assert_exit(&q, 0);
    cr_assert_str_eq(q.out, "7\n");
    cpk_proc_free(&q);
    cpk_proc_free(&p);
}

Test(cli_dump_expr, source_registered_for_tracebacks_and_inspect)
{
    /* inspect.getsource of a function defined by -e, on the dump side. */
    const char *src = "import inspect, sys\n"
                      "def f(x):\n"
                      "    return x + 1\n"
                      "sys.stderr.write('[' + inspect.getsource(f) + ']')\n"
                      "f";
    cpk_proc p;
    dump(&p, (const char *[]){"-e", src, NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "[def f(x):\n    return x + 1\n]");
    cpk_proc_free(&p);
}

Test(cli_dump_expr, other_options_apply)
{
    char out[128], key[128];
    snprintf(out, sizeof(out), "%s/e.pkl", dir);
    snprintf(key, sizeof(key), "%s/key", dir);
    cpk_proc p, q;

    /* -o, -p */
    dump(&p, (const char *[]){"-o", out, "-p", "2", "-e", "lambda x: x + 1",
                              NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_eq(p.out_len, 0);
    cpk_proc_free(&p);
    size_t len;
    char *data = cpk_read_file(out, &len);
    cr_assert(data != NULL && len > 2);
    cr_assert((unsigned char)data[0] == 0x80 && data[1] == 2);
    fresh_check(data, len, "assert f(1) == 2");
    free(data);

    /* --compat: stock cloudpickle's names, loaded without ccloudpickle */
    cpk_require("cloudpickle");
    dump(&p, (const char *[]){"--compat", "cloudpickle3", "-e",
                              "import math\nlambda x: math.floor(x) * 2",
                              NULL});
    cpk_assert_exit(&p, 0);
    cpk_python(&q,
               "import pickle, sys\n"
               "f = pickle.loads(sys.stdin.buffer.read())\n"
               "assert f(2.5) == 4\n"
               "assert 'ccloudpickle' not in sys.modules\n",
               p.out, p.out_len);
    cpk_assert_exit(&q, 0);
    cpk_proc_free(&q);
    cpk_proc_free(&p);

    /* --sign, verified on load */
    dump(&p, (const char *[]){"--gen-key", key, NULL});
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    dump(&p, (const char *[]){"--sign", key, "-o", out, "-e",
                              "lambda x: -x", NULL});
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    const char *verify[] = {CPK_LOAD, "--verify", key, out, "--call",
                            "--",     "5",        NULL};
    cpk_spawn(&q, verify, "/", NULL, 0, NULL);
    cpk_assert_exit(&q, 0);
    cr_assert_str_eq(q.out, "-5\n");
    cpk_proc_free(&q);
}

Test(cli_dump_expr, by_value_carries_an_imported_module)
{
    cpk_proc p, q;
    const char *src = "import helper; lambda x: helper.twice(x) + 1";
    /* Without --by-value the import stays a reference: / has no helper. */
    dump(&p, (const char *[]){"-e", src, NULL});
    cpk_assert_exit(&p, 0);
    load_call(&q, p.out, p.out_len, "3");
    cpk_assert_exit(&q, 4);
    cr_assert(strstr(q.err, "No module named 'helper'") != NULL, "%s",
              q.err);
    cpk_proc_free(&q);
    cpk_proc_free(&p);
    dump(&p, (const char *[]){"--by-value", "helper", "-e", src, NULL});
    cpk_assert_exit(&p, 0);
    load_call(&q, p.out, p.out_len, "3");
    cpk_assert_exit(&q, 0);
    cr_assert_str_eq(q.out, "7\n");
    cpk_proc_free(&q);
    cpk_proc_free(&p);
}

Test(cli_dump_expr, terminal_refused_unless_forced)
{
    const char *argv[] = {CPK_DUMP, "-e", "lambda: 1", NULL};
    cpk_spawn_opts o = {.argv = argv, .cwd = dir, .stdout_tty = 1};
    cpk_proc p;
    cpk_spawn_ex(&p, &o);
    cpk_assert_exit(&p, 2);
    cr_assert_str_eq(p.err,
                     "cloudpickle-dump: refusing to write a pickle to a "
                     "terminal (use -o FILE, a pipe, or -f)\n"
                     "Try 'cloudpickle-dump --help' for more information.\n");
    cpk_proc_free(&p);
    const char *forced[] = {CPK_DUMP, "-f", "-e", "lambda: 1", NULL};
    o.argv = forced;
    cpk_spawn_ex(&p, &o);
    cpk_assert_exit(&p, 0);
    cr_assert(p.out_len > 0);
    cpk_proc_free(&p);
}

typedef struct {
    const char *args[6];
    int status;
    char err[512];
} refusal;

Test(cli_dump_expr, refusals)
{
#define TRY "Try 'cloudpickle-dump --help' for more information.\n"
    static const refusal cases[] = {
        {{"-e", "lambda: 1", "mod:f", NULL}, 2,
         "cloudpickle-dump: give -e EXPR or MODULE:ATTR, not both "
         "('mod:f')\n" TRY},
        {{"-e", "1", "-e", "2", NULL}, 2,
         "cloudpickle-dump: -e given more than once\n" TRY},
        {{"--by-ref", "-e", "1", NULL}, 2,
         "cloudpickle-dump: --by-ref needs MODULE:ATTR (what -e defines is "
         "in __main__, always by value)\n" TRY},
        {{"-e", NULL}, 2,
         "cloudpickle-dump: option requires an argument -- 'e'\n" TRY},
        {{"--gen-key", "k", "-e", "1", NULL}, 2,
         "cloudpickle-dump: --gen-key cannot be combined with --expr\n" TRY},
#if PY_VERSION_HEX >= 0x030A0000
        {{"-e", "lambda x: (x", NULL}, 2,
         "cloudpickle-dump: -e: SyntaxError: '(' was never closed (line 1, "
         "column 11)\n"},
#else /* 3.9's parser: no bracket tracking in its messages */
        {{"-e", "lambda x: (x", NULL}, 2,
         "cloudpickle-dump: -e: SyntaxError: unexpected EOF while parsing "
         "(line 1, column 13)\n"},
#endif
        {{"-e", "import math\nlambda x: x +", NULL}, 2,
         "cloudpickle-dump: -e: SyntaxError: invalid syntax (line 2, column "
         "14)\n"},
        {{"-e", "  1", NULL}, 2,
         "cloudpickle-dump: -e: IndentationError: unexpected indent (line "
         "1, column 2)\n"},
        {{"-e", "def f():\n    return 1", NULL}, 2,
         "cloudpickle-dump: -e: the last statement (FunctionDef, line 1) is "
         "no expression: end EXPR with the value to pickle\n"},
        {{"-e", "import math; x = math.pi", NULL}, 2,
         "cloudpickle-dump: -e: the last statement (Assign, line 1) is no "
         "expression: end EXPR with the value to pickle\n"},
        {{"-e", "1 + '\xff'", NULL}, 2,
         "cloudpickle-dump: -e: EXPR is not valid UTF-8 at byte 5\n"},
        {{"-e", "", NULL}, 2,
         "cloudpickle-dump: -e: no statement: EXPR must end with the value "
         "to pickle\n"},
        {{"-e", "import threading; L = threading.local(); lambda: L", NULL}, 4,
         "cloudpickle-dump: -e: cannot pickle EXPR.__globals__['L'] "
         "(_thread._local): TypeError: cannot pickle '_thread._local' object\n"},
    };
#undef TRY
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cpk_proc p;
        dump(&p, cases[i].args);
        cpk_assert_exit(&p, cases[i].status);
        cr_assert_str_eq(p.err, cases[i].err, "case %zu", i);
        cr_assert_eq(p.out_len, 0, "case %zu", i);
        cpk_proc_free(&p);
    }
}

Test(cli_dump_expr, raising_source_exits_4_with_its_traceback)
{
    char out[128];
    snprintf(out, sizeof(out), "%s/never.pkl", dir);
    const char *src = "def f(x):\n"
                      "    return {}[x]\n"
                      "f('missing')";
    cpk_proc p;
    dump(&p, (const char *[]){"-o", out, "-e", src, NULL});
    cpk_assert_exit(&p, 4);
    cr_assert_eq(p.out_len, 0);
    const char *last = "cloudpickle-dump: -e: KeyError: 'missing'\n";
    size_t n = strlen(last);
    cr_assert(p.err_len >= n && strcmp(p.err + p.err_len - n, last) == 0,
              "%s", p.err);
    cr_assert(strncmp(p.err, "Traceback (most recent call last):\n", 35) ==
                  0,
              "%s", p.err);
    cr_assert(strstr(p.err, "  File \"<cloudpickle-dump -e>\", line 2, in f\n"
                            "    return {}[x]\n") != NULL,
              "%s", p.err);
    struct stat sb;
    cr_assert(stat(out, &sb) != 0, "no output file is made");
    cpk_proc_free(&p);

    /* SystemExit is an error like any other, not an exit status */
    dump(&p, (const char *[]){"-e", "import sys; sys.exit(0)", NULL});
    cpk_assert_exit(&p, 4);
    last = "cloudpickle-dump: -e: SystemExit: 0\n";
    n = strlen(last);
    cr_assert(p.err_len >= n && strcmp(p.err + p.err_len - n, last) == 0,
              "%s", p.err);
    cpk_proc_free(&p);
}

Test(cli_dump_expr, interrupt_dies_by_sigint)
{
    cpk_proc p;
    dump(&p, (const char *[]){"-e",
                              "import os, signal\n"
                              "os.kill(os.getpid(), signal.SIGINT)\n"
                              "lambda: 1",
                              NULL});
    cr_assert(p.signaled && p.sig == SIGINT, "exit %d, stderr:\n%s",
              p.status, p.err);
    cr_assert_eq(p.out_len, 0);
    cpk_proc_free(&p);
}
