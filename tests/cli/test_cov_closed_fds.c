/* test_cov_closed_fds.c - the programs started with standard output or
 * standard error closed (`>&-`, `2>&-`): no standard output is status 5
 * with one line, in every mode that writes there; no standard error
 * still gives the result, and prints by the user's code never reach
 * the data: --call without standard output refuses before it calls. */
#include <stdio.h>
#include <string.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    const char *argv[] = {CPK_DUMP, "-e",
                          "def f(x):\n    print('noise')\n    return x + 1\nf",
                          "-o", "inc.pkl", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

TestSuite(cov_closed_fds, .init = setup);

static void
shell(cpk_proc *p, const char *cmd)
{
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    cpk_spawn(p, argv, dir, "1\n", 2, NULL);
}

static void
closed_stdout(const char *cmd, const char *err)
{
    cpk_proc p;
    shell(&p, cmd);
    cpk_assert_exit(&p, 5);
    cr_assert_str_eq(p.err, err);
    cpk_proc_free(&p);
}

Test(cov_closed_fds, dump_without_stdout)
{
    closed_stdout(CPK_DUMP " -e 1 >&-",
                  "cloudpickle-dump: standard output: Bad file descriptor\n");
}

Test(cov_closed_fds, call_without_stdout)
{
    closed_stdout(CPK_LOAD " --call inc.pkl -- 1 >&-",
                  "cloudpickle-load: standard output: OSError: [Errno 9] "
                  "Bad file descriptor\n");
}

Test(cov_closed_fds, pickled_result_without_stdout)
{
    closed_stdout(CPK_LOAD " --call inc.pkl --result pickle -- 1 >&-",
                  "noise\ncloudpickle-load: standard output: Bad file "
                  "descriptor\n");
}

Test(cov_closed_fds, map_without_stdout)
{
    closed_stdout(CPK_LOAD " --map inc.pkl >&-",
                  "cloudpickle-load: standard output: Bad file "
                  "descriptor\n");
}

Test(cov_closed_fds, report_without_stdout)
{
    closed_stdout(CPK_LOAD " inc.pkl >&-",
                  "cloudpickle-load: standard output: Bad file "
                  "descriptor\n");
}

Test(cov_closed_fds, call_without_stderr)
{
    cpk_proc p;
    shell(&p, CPK_LOAD " --call inc.pkl -- 1 2>&-");
    cpk_assert_exit(&p, 0);
    /* --call's prints go to standard output, before the result */
    cr_assert_str_eq(p.out, "noise\n2\n");
    cpk_proc_free(&p);
}

Test(cov_closed_fds, dump_without_stderr_writes_only_the_pickle)
{
    cpk_proc p;
    shell(&p, CPK_DUMP " -e \"print('hi') or (lambda x: x * 5)\" 2>&-");
    cpk_assert_exit(&p, 0);
    cr_assert(p.out_len > 2 && (unsigned char)p.out[0] == 0x80, "%zu bytes",
              p.out_len);
    const char *argv[] = {CPK_LOAD, "--call", "-", "--", "3", NULL};
    cpk_proc q;
    cpk_spawn(&q, argv, dir, p.out, p.out_len, NULL);
    cpk_assert_exit(&q, 0);
    cr_assert_str_eq(q.out, "15\n");
    cpk_proc_free(&q);
    cpk_proc_free(&p);
}
