/* test_cli_stdio.c - standard output has one writer: cloudpickle-dump's
 * carries the pickle and nothing else (what the module prints at import or
 * while pickled goes to standard error); cloudpickle-load's carries the
 * report, or with --call the function's prints and then its result, in
 * order; a full or closed standard output is one line on standard error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    char path[128];
    /* Prints at import: a little, or more than a pipe or stdio buffer. */
    snprintf(path, sizeof(path), "%s/chatty.py", dir);
    cpk_write_file(path,
                   "import sys\n"
                   "print('hello from import')\n"
                   "def f(x=1):\n"
                   "    print('called with', x)\n"
                   "    return x * 2\n");
    snprintf(path, sizeof(path), "%s/loud.py", dir);
    cpk_write_file(path,
                   "print('L' * 20000)\n"
                   "class Noisy:\n"
                   "    def __reduce__(self):\n"
                   "        print('R' * 20000)\n"
                   "        return (int, (7,))\n"
                   "def f():\n"
                   "    return Noisy()\n"
                   "obj = [Noisy(), 'x']\n");
    /* A pickle by reference to a module that prints when imported. */
    snprintf(path, sizeof(path), "%s/byref.pkl", dir);
    FILE *f = fopen(path, "wb");
    cr_assert(f != NULL);
    const char data[] = "\x80\x04\x8c\x06" "chatty\x94\x8c\x01" "f\x94\x93\x94.";
    fwrite(data, 1, sizeof(data) - 1, f);
    cr_assert(fclose(f) == 0);
}

TestSuite(cli_stdio, .init = setup);

static void
dump(cpk_proc *p, const char *spec)
{
    const char *argv[] = {CPK_DUMP, spec, NULL};
    cpk_spawn(p, argv, dir, NULL, 0, NULL);
}

/* cloudpickle-load args... with `in` on standard input, in dir. */
static void
load(cpk_proc *p, const char *in, size_t len, const char *a1, const char *a2,
     const char *a3, const char *a4)
{
    const char *argv[] = {CPK_LOAD, a1, a2, a3, a4, NULL};
    cpk_spawn(p, argv, dir, in, len, NULL);
}

Test(cli_stdio, dump_of_a_module_that_prints_a_little)
{
    cpk_proc p, q;
    dump(&p, "chatty:f");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "hello from import\n");
    cr_assert(p.out_len > 2 && (unsigned char)p.out[0] == 0x80,
              "stdout is not the pickle: %.40s", p.out);
    /* The pickle, and only it: it loads and runs elsewhere. */
    const char *argv[] = {CPK_LOAD, "--call", "-", "--", "21", NULL};
    cpk_spawn(&q, argv, "/", p.out, p.out_len, NULL);
    cpk_assert_exit(&q, 0);
    cr_assert_str_eq(q.out, "called with 21\n42\n");
    cpk_proc_free(&p);
    cpk_proc_free(&q);
}

Test(cli_stdio, dump_of_a_module_that_prints_a_lot)
{
    cpk_proc p, q;
    dump(&p, "loud:obj");
    cpk_assert_exit(&p, 0);
    /* Import and pickling printed 40 KB, all on standard error. */
    cr_assert_eq(p.err_len, 40002, "%zu bytes on stderr", p.err_len);
    cr_assert(p.err[0] == 'L' && p.err[20000] == '\n' && p.err[20001] == 'R');
    cr_assert(memchr(p.out, 'L', p.out_len) == NULL);
    load(&q, p.out, p.out_len, "--call", "-", NULL, NULL);
    cpk_assert_exit(&q, 3); /* a list: loaded fine, not callable */
    cpk_proc_free(&q);
    load(&q, p.out, p.out_len, "--load", "-", NULL, NULL);
    cpk_assert_exit(&q, 0);
    cr_assert(strstr(q.out, "value      [7, 'x']\n") != NULL, "%s", q.out);
    cpk_proc_free(&p);
    cpk_proc_free(&q);
}

Test(cli_stdio, load_report_has_stdout_to_itself)
{
    cpk_proc p;
    load(&p, NULL, 0, "--load", "byref.pkl", NULL, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert(strncmp(p.out, "object     function f\nmodule     chatty\n",
                      40) == 0,
              "%s", p.out);
    cr_assert(strstr(p.out, "hello") == NULL, "%s", p.out);
    cr_assert_str_eq(p.err, "hello from import\n");
    cpk_proc_free(&p);
}

Test(cli_stdio, load_call_prints_then_result_in_order)
{
    cpk_proc p;
    load(&p, NULL, 0, "--call", "byref.pkl", "--", "x='y'");
    cpk_assert_exit(&p, 0);
    /* Printed at import (the load): stderr; printed by the call: stdout,
     * before the result. */
    cr_assert_str_eq(p.out, "called with y\n'yy'\n");
    cr_assert_str_eq(p.err, "hello from import\n");
    cpk_proc_free(&p);

    /* More than a buffer's worth printed, then the result. */
    const char *argv[] = {CPK_PYTHON, "-c",
                          "import sys, ccloudpickle\n"
                          "def f():\n"
                          "    for i in range(3000):\n"
                          "        print(i)\n"
                          "    return 'end'\n"
                          "sys.stdout.buffer.write(ccloudpickle.dumps(f))\n",
                          NULL};
    const char *env[] = {"PYTHONPATH=" CPK_BUILD_DIR, NULL};
    cpk_proc mk;
    cpk_spawn(&mk, argv, "/", NULL, 0, env);
    cpk_assert_exit(&mk, 0);
    load(&p, mk.out, mk.out_len, "--call", "-", NULL, NULL);
    cpk_assert_exit(&p, 0);
    char *expected = malloc(30000);
    size_t n = 0;
    for (int i = 0; i < 3000; i++)
        n += (size_t)sprintf(expected + n, "%d\n", i);
    strcpy(expected + n, "'end'\n");
    cr_assert_str_eq(p.out, expected);
    cr_assert_str_eq(p.err, "");
    free(expected);
    cpk_proc_free(&p);
    cpk_proc_free(&mk);
}

/* One line on stderr, exit 5, whatever the size of the output. */
static void
full(const char *cmd, const char *err)
{
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 5);
    cr_assert_str_eq(p.err, err);
    cpk_proc_free(&p);
}

Test(cli_stdio, full_standard_output_is_one_line)
{
    /* A small output: written into Python's buffer, failing at the flush,
     * then again at exit ("Exception ignored ...") unless dropped. */
    full(CPK_LOAD " --call byref.pkl -- 2 >/dev/full",
         "hello from import\n"
         "cloudpickle-load: standard output: OSError: [Errno 28] No space "
         "left on device\n");
    full(CPK_LOAD " --load byref.pkl >/dev/full",
         "hello from import\n"
         "cloudpickle-load: standard output: No space left on device\n");
    full(CPK_DUMP " chatty:f >/dev/full",
         "hello from import\n"
         "cloudpickle-dump: standard output: No space left on device\n");
}

Test(cli_stdio, closed_standard_output_is_one_line)
{
    const char *argv[] = {"/bin/sh", "-c", CPK_DUMP " chatty:f >&-", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 5);
    cr_assert_str_eq(p.err, "hello from import\ncloudpickle-dump: standard "
                            "output: Bad file descriptor\n");
    cpk_proc_free(&p);
    const char *argv2[] = {"/bin/sh", "-c", CPK_LOAD " --load byref.pkl >&-", NULL};
    cpk_spawn(&p, argv2, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 5);
    cr_assert_str_eq(p.err, "hello from import\ncloudpickle-load: standard "
                            "output: Bad file descriptor\n");
    cpk_proc_free(&p);
}

/* sys.stdout while a module is imported is the programs' own stand-in
 * (cli/common/secondary.c): it takes weak references, as the Python class it
 * replaced did. */
Test(cli_stdio, weak_reference_to_stdout_at_import)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/weakout.py", dir);
    cpk_write_file(path, "import sys, weakref\n"
                         "ALIVE = weakref.ref(sys.stdout)() is sys.stdout\n"
                         "def f():\n"
                         "    return ALIVE\n");
    cpk_proc p;
    dump(&p, "weakout:f");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "");
    cpk_proc q;
    const char *argv[] = {CPK_LOAD, "--call", "-", NULL};
    cpk_spawn(&q, argv, "/", p.out, p.out_len, NULL);
    cpk_assert_exit(&q, 0);
    cr_assert_str_eq(q.out, "True\n");
    cpk_proc_free(&q);
    cpk_proc_free(&p);
}
