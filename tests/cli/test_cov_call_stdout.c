/* test_cov_call_stdout.c - cloudpickle-load --call and --map when what
 * the function printed cannot go out: a function that printed and then
 * raised on a full standard output (status 1: the traceback, then the
 * output's own line), one that printed before a --result-file on a full
 * standard output (status 5, no file), one that prints into a closed
 * pipe (killed by SIGPIPE, quietly); --result-file /dev/stdout is
 * standard output; --map of an object that is not callable. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "support.h"

static char dir[64];

static void
dump(const char *name, const char *expr)
{
    const char *argv[] = {CPK_DUMP, "-e", expr, "-o", name, NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    dump("raise.pkl", "def f():\n"
                      "    print('printed')\n"
                      "    raise ValueError('after print')\n"
                      "f");
    dump("print.pkl", "def f():\n"
                      "    print('printed')\n"
                      "    return 3\n"
                      "f");
    dump("flood.pkl", "def f():\n"
                      "    for i in range(20000): print('x' * 100)\n"
                      "    return 1\n"
                      "f");
    dump("int.pkl", "42");
}

TestSuite(cov_call_stdout, .init = setup);

static void
shell(cpk_proc *p, const char *cmd)
{
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    cpk_spawn(p, argv, dir, NULL, 0, NULL);
}

Test(cov_call_stdout, printed_then_raised_on_a_full_stdout)
{
    cpk_proc p;
    shell(&p, CPK_LOAD " --call raise.pkl >/dev/full");
    cpk_assert_exit(&p, 1);
    cr_assert_str_eq(p.err, "Traceback (most recent call last):\n"
                            "  File \"<cloudpickle-dump -e>\", line 3, in f\n"
                            "ValueError: after print\n"
                            "cloudpickle-load: standard output: OSError: "
                            "[Errno 28] No space left on device\n");
    cpk_proc_free(&p);
}

Test(cov_call_stdout, printed_before_a_result_file_on_a_full_stdout)
{
    cpk_proc p;
    shell(&p, CPK_LOAD " --call print.pkl --result-file res.out >/dev/full");
    cpk_assert_exit(&p, 5);
    cr_assert_str_eq(p.err, "cloudpickle-load: standard output: OSError: "
                            "[Errno 28] No space left on device\n");
    char path[128];
    snprintf(path, sizeof(path), "%s/res.out", dir);
    cr_assert_null(cpk_read_file(path, NULL), "res.out was written");
    cpk_proc_free(&p);
}

Test(cov_call_stdout, prints_into_a_closed_pipe)
{
    const char *argv[] = {CPK_LOAD, "--call", "flood.pkl", NULL};
    cpk_spawn_opts o = {.argv = argv, .cwd = dir, .close_stdout = 1};
    cpk_proc p;
    cpk_spawn_ex(&p, &o);
    cr_assert(p.signaled && p.sig == SIGPIPE, "%s %d; stderr:\n%s",
              p.signaled ? "signal" : "exit", p.signaled ? p.sig : p.status,
              p.err);
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
}

Test(cov_call_stdout, result_file_dev_stdout_is_stdout)
{
    const char *argv[] = {CPK_LOAD, "--call", "print.pkl", "--result-file",
                          "/dev/stdout", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "printed\n3\n");
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
}

Test(cov_call_stdout, map_of_what_is_not_callable)
{
    const char *argv[] = {CPK_LOAD, "--map", "int.pkl", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, "1\n", 2, NULL);
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.err, "cloudpickle-load: int.pkl: cannot call an "
                            "object of type int\n");
    cr_assert_eq(p.out_len, 0);
    cpk_proc_free(&p);
}
