/* test_cov_pool.c - the -j N worker pool when a worker misbehaves: a
 * function that writes garbage into the worker's result pipe (the worker
 * is killed, its record named), a worker that dies between batches (its
 * death reported after the results before it), and one that dies inside
 * a batch of many records (the batch's range named, every result before
 * it written, in order). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
}

TestSuite(cov_pool, .init = setup, .timeout = 120);

static void
dump(const char *name, const char *expr)
{
    char path[160];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    const char *argv[] = {CPK_DUMP, "-e", expr, "-o", path, NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

/* "1\n" ... "n\n" */
static char *
numbers(int n, size_t *len)
{
    char *s = malloc((size_t)n * 8 + 1);
    cr_assert_not_null(s);
    size_t at = 0;
    for (int i = 1; i <= n; i++)
        at += (size_t)sprintf(s + at, "%d\n", i);
    *len = at;
    return s;
}

/* stderr is "cloudpickle-load: worker W (pid P) <rest>" with W in 1..2;
 * returns <rest>. */
static const char *
worker_line(const char *err)
{
    int w = 0, n = 0;
    long pid = 0;
    cr_assert(sscanf(err, "cloudpickle-load: worker %d (pid %ld) %n", &w, &pid,
                     &n) == 2 && n > 0,
              "stderr: %s", err);
    cr_assert(w == 1 || w == 2, "stderr: %s", err);
    cr_assert(pid > 0);
    return err + n;
}

static const char *const GARBAGE =
    "import os, fcntl\n"
    "def f(x):\n"
    "    if x == 3:\n"
    "        for fd in map(int, os.listdir('/proc/self/fd')):\n"
    "            try:\n"
    "                if fd > 2 and fcntl.fcntl(fd, fcntl.F_GETFL) & "
    "os.O_ACCMODE == os.O_WRONLY:\n"
    "                    os.write(fd, b'\\xff' * 256)\n"
    "            except OSError:\n"
    "                pass\n"
    "    return x\n"
    "f";

static void
garbage(int keep_going)
{
    dump("g.pkl", GARBAGE);
    const char *argv[] = {CPK_LOAD, "--map", "-j", "2", "g.pkl",
                          keep_going ? "--keep-going" : NULL, NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, "1\n2\n3\n4\n5\n6\n", 12, NULL);
    cpk_assert_exit(&p, 1);
    cr_assert_str_eq(worker_line(p.err),
                     "sent malformed results while running record 3\n");
    cr_assert_str_eq(p.out, "1\n2\n");
    cpk_proc_free(&p);
}

Test(cov_pool, garbage_in_the_result_pipe_kills_the_worker)
{
    garbage(0);
}

Test(cov_pool, garbage_in_the_result_pipe_ends_a_keep_going_run)
{
    garbage(1);
}

Test(cov_pool, worker_dying_between_batches)
{
    /* Record 1 (worker 1) leaves a timer that ends its process after its
     * result went out; record 2 (worker 2) returns only once worker 1 is
     * gone, however loaded the machine: no record is lost, the death is
     * reported after both results. */
    dump("later.pkl", "import os, time, threading\n"
                      "def gone(pid):\n"
                      "    try:\n"
                      "        with open('/proc/%d/stat' % pid) as f:\n"
                      "            return f.read().split(') ')[1][0] == 'Z'\n"
                      "    except OSError:\n"
                      "        return True\n"
                      "def f(x):\n"
                      "    if x == 1:\n"
                      "        with open('w1.pid', 'w') as f:\n"
                      "            f.write(str(os.getpid()))\n"
                      "        threading.Timer(2.0, os._exit, (9,)).start()\n"
                      "    if x == 2:\n"
                      "        for _ in range(600):\n"
                      "            try:\n"
                      "                pid = int(open('w1.pid').read())\n"
                      "            except (OSError, ValueError):\n"
                      "                pid = None\n"
                      "            if pid is not None and gone(pid):\n"
                      "                break\n"
                      "            time.sleep(0.05)\n"
                      "    return x\n"
                      "f");
    const char *argv[] = {CPK_LOAD, "--map", "-j", "2", "later.pkl", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, "1\n2\n", 4, NULL);
    cpk_assert_exit(&p, 1);
    cr_assert_str_eq(worker_line(p.err), "exited with status 9\n");
    cr_assert_str_eq(p.out, "1\n2\n");
    cpk_proc_free(&p);
}

Test(cov_pool, worker_dying_inside_a_batch_of_records)
{
    /* Fast records travel in batches of many: the death names the range
     * of the batch, whose first record is the first result missing. */
    dump("many.pkl", "import os\n"
                     "def f(x):\n"
                     "    if x == 3000: os._exit(7)\n"
                     "    return x\n"
                     "f");
    size_t len;
    char *in = numbers(5000, &len);
    const char *argv[] = {CPK_LOAD, "--map", "-j", "2", "many.pkl", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, in, len, NULL);
    free(in);
    cpk_assert_exit(&p, 1);
    unsigned long long a = 0, z = 0;
    const char *rest = worker_line(p.err);
    int n = 0;
    cr_assert(sscanf(rest, "exited with status 7 while running records "
                           "%llu-%llu\n%n",
                     &a, &z, &n) == 2 &&
                  rest[n] == '\0',
              "stderr: %s", p.err);
    cr_assert(a < z && a <= 3000 && 3000 <= z, "records %llu-%llu", a, z);
    /* every result before the batch, in order, and nothing else */
    size_t want_len;
    char *want = numbers((int)a - 1, &want_len);
    cr_assert_eq(p.out_len, want_len, "%zu bytes of results", p.out_len);
    cr_assert(memcmp(p.out, want, want_len) == 0);
    free(want);
    cpk_proc_free(&p);
}
