/* test_cov_worker_streams.c - a mapped function that replaces sys.stdout:
 * with None, or with a writer whose flush raises. Under -j the workers'
 * flushes between batches ignore both and every result is written; in
 * the program itself the flush at shutdown fails, which is status 120
 * (Py_FinalizeEx failed) after the results. */
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
    dump("none.pkl", "import sys\n"
                     "def f(x):\n"
                     "    sys.stdout = None\n"
                     "    return x\n"
                     "f");
    dump("badflush.pkl", "import sys\n"
                         "class W:\n"
                         "    def write(self, s): return len(s)\n"
                         "    def flush(self): raise OSError(5, 'flush "
                         "failed')\n"
                         "def f(x):\n"
                         "    sys.stdout = W()\n"
                         "    print('lost', x)\n"
                         "    return x * 10\n"
                         "f");
}

TestSuite(cov_worker_streams, .init = setup, .timeout = 60);

static void
map(cpk_proc *p, const char *pkl, const char *jobs)
{
    const char *argv[] = {CPK_LOAD, "--map", pkl, jobs ? "-j" : NULL, jobs,
                          NULL};
    cpk_spawn(p, argv, dir, "1\n2\n3\n", 6, NULL);
}

Test(cov_worker_streams, stdout_none_in_workers)
{
    cpk_proc p;
    map(&p, "none.pkl", "2");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "1\n2\n3\n");
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
}

Test(cov_worker_streams, failing_flush_in_workers)
{
    cpk_proc p;
    map(&p, "badflush.pkl", "2");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "10\n20\n30\n");
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
}

Test(cov_worker_streams, failing_flush_at_shutdown_is_status_120)
{
    cpk_proc p;
    map(&p, "badflush.pkl", NULL);
    cpk_assert_exit(&p, 120);
    cr_assert_str_eq(p.out, "10\n20\n30\n");
    cr_assert(strstr(p.err, "OSError: [Errno 5] flush failed\n") != NULL,
              "%s", p.err);
    cpk_proc_free(&p);
}
