/* test_cli_map_dask.c - cloudpickle-load --map --dask against real dask
 * clusters on 127.0.0.1: a scheduler and workers started here
 * (python3 -m distributed.cli.dask_scheduler / dask_worker, Debian's
 * python3-distributed), and --dask local:2. Every result and its order,
 * a worker killed mid-run (nothing lost, nothing twice), --keep-going's
 * error records, --shard and --with-index, SIGINT (no partial
 * --result-file), a worker without ccloudpickle, an interpreter without
 * distributed, and the usage errors. Skipped, saying why, where the
 * interpreter under test cannot import distributed.
 *
 * Each cluster process runs in a process group of its own, killed by the
 * suite's fini (and at exit), so a failed assertion leaves none behind. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support.h"

static char dir[64];
static pid_t groups[8];
static int ngroups;

static const char *const FUNCS =
    "import os, time, ccloudpickle as cp\n"
    "def double(x): return 2 * x\n"
    "def boom(x):\n"
    "    if x % 3 == 0: raise ValueError('no %d' % x)\n"
    "    return x\n"
    "def mark(x):\n"
    "    if x == 1500: open('started', 'w').close()\n"
    "    time.sleep(0.0005)\n"
    "    return 2 * x\n"
    "def slow(x):\n"
    "    if x == 3: open('started', 'w').close()\n"
    "    time.sleep(0.2 if x <= 3 else 10)\n"
    "    return x\n"
    "for f in [double, boom, mark, slow]:\n"
    "    f.__module__ = '__main__'\n"
    "    f.__qualname__ = f.__name__\n"
    "    open(f.__name__ + '.pkl', 'wb').write(cp.dumps(f))\n"
    "open('in10k', 'w').write(''.join('%d\\n' % i for i in range(1, "
    "10001)))\n"
    "open('in2k', 'w').write(''.join('%d\\n' % i for i in range(1, "
    "2001)))\n"
    "open('in9', 'w').write(''.join('%d\\n' % i for i in range(1, 10)))\n";

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
stop_cluster(void)
{
    for (int i = 0; i < ngroups; i++)
        if (groups[i] > 0) {
            kill(-groups[i], SIGKILL);
            waitpid(groups[i], NULL, 0);
            groups[i] = 0;
        }
    ngroups = 0;
}

static void
setup(void)
{
    cpk_require("distributed");
    atexit(stop_cluster);
    cpk_tmpdir(dir, sizeof(dir));
    char code[4096];
    snprintf(code, sizeof(code), "import os\nos.chdir('%s')\n%s", dir, FUNCS);
    cpk_proc p;
    cpk_python(&p, code, NULL, 0);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

static void
teardown(void)
{
    stop_cluster();
    if (dir[0] != '\0')
        nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(cli_map_dask, .init = setup, .fini = teardown, .timeout = 120);

/* The records of the long runs: 10,000, or 2,000 under make sanitize
 * (the sanitizers slow the program and every worker down). */
static int
many(const char **input)
{
    const char *san = getenv("CPK_SAN_PRELOAD");
    int sanitized = san != NULL && *san != '\0';
    *input = sanitized ? "in2k" : "in10k";
    return sanitized ? 2000 : 10000;
}

/* Start `python3 -m MODULE ARGS...` in dir, in a process group of its
 * own, output to LOG; with_cpk: ccloudpickle importable. Its pid. */
static pid_t
start(const char *log, int with_cpk, const char *const *args)
{
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        cpk_reset_signals();
        setpgid(0, 0);
        /* gone with the test even when a timeout kills it (no fini) */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (chdir(dir) != 0)
            _exit(126);
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int null = open("/dev/null", O_RDONLY);
        if (fd < 0 || null < 0)
            _exit(126);
        dup2(null, 0);
        dup2(fd, 1);
        dup2(fd, 2);
        if (with_cpk)
            setenv("PYTHONPATH", CPK_BUILD_DIR, 1);
        else
            unsetenv("PYTHONPATH");
        /* under make sanitize, a worker's instrumented module needs the
         * ASan runtime first, as every child of the tests gets it; the
         * cluster's own allocations need no debug hooks (they would only
         * slow it down) */
        const char *san = getenv("CPK_SAN_PRELOAD");
        if (with_cpk && san != NULL && *san != '\0')
            setenv("LD_PRELOAD", san, 1);
        else
            unsetenv("LD_PRELOAD");
        unsetenv("PYTHONMALLOC");
        const char *argv[24] = {CPK_PYTHON, "-m"};
        int i = 2;
        for (; args[i - 2] != NULL && i < 23; i++)
            argv[i] = args[i - 2];
        argv[i] = NULL;
        execv(CPK_PYTHON, (char *const *)argv);
        _exit(127);
    }
    setpgid(pid, pid);
    cr_assert(ngroups < 8);
    groups[ngroups++] = pid;
    return pid;
}

/* Wait until file dir/name holds `text` (NULL: exists), at most 60 s. */
static void
wait_for(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    for (int i = 0; i < 6000; i++) {
        char *s = cpk_read_file(path, NULL);
        int ok = s != NULL && (text == NULL || strstr(s, text) != NULL);
        free(s);
        if (ok)
            return;
        struct timespec t = {0, 10000000};
        nanosleep(&t, NULL);
    }
    cr_assert_fail("%s never held '%s'", name, text ? text : "");
}

/* A scheduler and `good` workers with ccloudpickle, `bad` without: the
 * scheduler's address in addr. Worker pids in pids. */
static void
cluster(char *addr, size_t cap, int good, int bad, pid_t *pids)
{
    start("scheduler.log", 0,
          (const char *[]){"distributed.cli.dask_scheduler", "--host",
                           "127.0.0.1", "--port", "0", "--no-dashboard",
                           "--scheduler-file", "scheduler.json", NULL});
    wait_for("scheduler.json", "\"address\"");
    char path[256];
    snprintf(path, sizeof(path), "%s/scheduler.json", dir);
    char *json = cpk_read_file(path, NULL);
    char *a = json ? strstr(json, "tcp://") : NULL;
    cr_assert(a != NULL, "no address in %s", json);
    size_t n = strcspn(a, "\"");
    cr_assert(n < cap);
    memcpy(addr, a, n);
    addr[n] = '\0';
    free(json);
    for (int i = 0; i < good + bad; i++) {
        char log[32];
        snprintf(log, sizeof(log), "worker%d.log", i);
        pid_t pid = start(log, i < good,
                          (const char *[]){"distributed.cli.dask_worker",
                                           "--scheduler-file",
                                           "scheduler.json", "--nthreads",
                                           "1", "--no-nanny", "--host",
                                           "127.0.0.1", "--no-dashboard",
                                           NULL});
        if (pids != NULL)
            pids[i] = pid;
    }
    for (int i = 0; i < good + bad; i++) {
        char log[32];
        snprintf(log, sizeof(log), "worker%d.log", i);
        wait_for(log, "Registered to");
    }
}

/* cloudpickle-load ARGS... in dir. */
static void
load_n(cpk_proc *p, const char *const *args)
{
    const char *argv[24] = {CPK_LOAD};
    int i = 1;
    for (; args[i - 1] != NULL; i++)
        argv[i] = args[i - 1];
    argv[i] = NULL;
    const char *env[] = {"PYTHONPATH=" CPK_BUILD_DIR, NULL};
    cpk_spawn(p, argv, dir, NULL, 0, env);
}

#define LOAD(p, ...) load_n((p), (const char *[]){__VA_ARGS__, NULL})

/* out holds f(1) .. f(n) for f(x) = 2x, one a line, in order. */
static void
assert_doubled(const char *out, int n)
{
    const char *s = out;
    for (int i = 1; i <= n; i++) {
        char want[32];
        int len = snprintf(want, sizeof(want), "%d\n", 2 * i);
        cr_assert(strncmp(s, want, (size_t)len) == 0,
                  "record %d: expected %d, got '%.20s'", i, 2 * i, s);
        s += len;
    }
    cr_assert(*s == '\0', "more than %d results: '%.40s'", n, s);
}

Test(cli_map_dask, every_result_in_order)
{
    char addr[128];
    cluster(addr, sizeof(addr), 2, 0, NULL);
    const char *input;
    int n = many(&input);
    cpk_proc p;
    LOAD(&p, "double.pkl", "--map", "--dask", addr, "--input", input);
    cpk_assert_exit(&p, 0);
    assert_doubled(p.out, n);
    cpk_proc_free(&p);
}

Test(cli_map_dask, killed_worker_loses_nothing)
{
    char addr[128];
    pid_t pids[2];
    cluster(addr, sizeof(addr), 2, 0, pids);
    char out[256];
    snprintf(out, sizeof(out), "%s/out", dir);
    const char *input;
    int n = many(&input);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        cpk_reset_signals();
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (chdir(dir) != 0)
            _exit(126);
        int fd = open("out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int err = open("err", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || err < 0)
            _exit(126);
        dup2(fd, 1);
        dup2(err, 2);
        setenv("PYTHONPATH", CPK_BUILD_DIR, 1);
        execl(CPK_LOAD, CPK_LOAD, "mark.pkl", "--map", "--dask", addr,
              "--input", input, (char *)NULL);
        _exit(127);
    }
    wait_for("started", NULL);
    kill(-pids[0], SIGKILL);
    int st;
    cr_assert(waitpid(pid, &st, 0) == pid);
    char errp[256];
    snprintf(errp, sizeof(errp), "%s/err", dir);
    char *err = cpk_read_file(errp, NULL);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0,
              "status %d; stderr:\n%s", st, err);
    free(err);
    char *o = cpk_read_file(out, NULL);
    cr_assert(o != NULL);
    assert_doubled(o, n);
    free(o);
}

Test(cli_map_dask, keep_going_error_records)
{
    char addr[128];
    cluster(addr, sizeof(addr), 1, 0, NULL);
    cpk_proc p;
    LOAD(&p, "boom.pkl", "--map", "--dask", addr, "--input", "in9",
         "--keep-going", "--result-file", "res", "--error-json");
    cpk_assert_exit(&p, 1);
    char path[256];
    snprintf(path, sizeof(path), "%s/res", dir);
    char *res = cpk_read_file(path, NULL);
    cr_assert(res != NULL);
    /* records 3, 6, 9 are error records, in place */
    char *line = res;
    for (int i = 1; i <= 9; i++) {
        char *nl = strchr(line, '\n');
        cr_assert(nl != NULL, "line %d missing in:\n%s", i, res);
        *nl = '\0';
        if (i % 3 == 0) {
            char want[64];
            snprintf(want, sizeof(want), "\"record\":%d}}", i);
            cr_assert(strncmp(line, "{\"error\":{\"type\":\"ValueError\"",
                              29) == 0 &&
                          strstr(line, want) != NULL,
                      "line %d: %s", i, line);
        }
        else {
            char want[16];
            snprintf(want, sizeof(want), "%d", i);
            cr_assert_str_eq(line, want);
        }
        line = nl + 1;
    }
    cr_assert(*line == '\0');
    free(res);
    /* one JSON object a failing record on stderr, nothing else */
    int objects = 0;
    for (const char *s = p.err; (s = strstr(s, "{\"type\":")) != NULL; s++)
        objects++;
    cr_assert_eq(objects, 3, "stderr:\n%s", p.err);
    cpk_proc_free(&p);
}

Test(cli_map_dask, local_cluster)
{
    cpk_proc p;
    LOAD(&p, "double.pkl", "--map", "--dask", "local:2", "--input", "in9");
    cpk_assert_exit(&p, 0);
    assert_doubled(p.out, 9);
    cpk_proc_free(&p);
}

Test(cli_map_dask, worker_without_ccloudpickle)
{
    char addr[128];
    cluster(addr, sizeof(addr), 1, 1, NULL);
    cpk_proc p;
    LOAD(&p, "double.pkl", "--map", "--dask", addr, "--input", "in9");
    cpk_assert_exit(&p, 4);
    cr_assert_str_eq(p.out, "");
    const char *w = strstr(p.err, "cloudpickle-load: --dask: worker "
                                  "tcp://127.0.0.1:");
    cr_assert(w == p.err, "stderr:\n%s", p.err);
    cr_assert(strstr(p.err, " cannot import ccloudpickle "
                            "(ModuleNotFoundError: No module named "
                            "'ccloudpickle'): install ccloudpickle in the "
                            "workers' Python (pip install ccloudpickle), "
                            "or put it on their PYTHONPATH\n") != NULL,
              "stderr:\n%s", p.err);
    cpk_proc_free(&p);
}

Test(cli_map_dask, distributed_missing)
{
    /* a distributed package that cannot be imported, first on the path */
    char path[256];
    snprintf(path, sizeof(path), "%s/fake/distributed", dir);
    char fake[256];
    snprintf(fake, sizeof(fake), "%s/fake", dir);
    cr_assert(mkdir(fake, 0755) == 0 && mkdir(path, 0755) == 0);
    strcat(path, "/__init__.py");
    FILE *f = fopen(path, "w");
    cr_assert(f != NULL);
    fputs("raise ImportError('no distributed here')\n", f);
    fclose(f);
    char env0[512];
    snprintf(env0, sizeof(env0), "PYTHONPATH=%s:%s", fake, CPK_BUILD_DIR);
    const char *argv[] = {CPK_LOAD, "double.pkl", "--map", "--dask",
                          "local:1", "--input", "in9", NULL};
    const char *env[] = {env0, NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, env);
    cpk_assert_exit(&p, 2);
    cr_assert_str_eq(p.err,
                     "cloudpickle-load: --dask: the distributed package is "
                     "not importable (install python3-distributed or pip "
                     "install distributed)\n");
    cr_assert_str_eq(p.out, "");
    cpk_proc_free(&p);
}

Test(cli_map_dask, usage_errors)
{
    cpk_proc p;
    LOAD(&p, "double.pkl", "--map", "--dask", "local:1", "-j", "2",
         "--input", "in9");
    cpk_assert_exit(&p, 2);
    cr_assert(strstr(p.err, "cloudpickle-load: -j and --dask are mutually "
                            "exclusive") == p.err,
              "%s", p.err);
    cpk_proc_free(&p);
    LOAD(&p, "double.pkl", "--map", "--window", "3", "--input", "in9");
    cpk_assert_exit(&p, 2);
    cr_assert(strstr(p.err, "cloudpickle-load: --window is for --dask") ==
                  p.err,
              "%s", p.err);
    cpk_proc_free(&p);
    LOAD(&p, "double.pkl", "--dask", "local:1");
    cpk_assert_exit(&p, 2);
    cr_assert(strstr(p.err, "cloudpickle-load: --dask is for --map") ==
                  p.err,
              "%s", p.err);
    cpk_proc_free(&p);
    LOAD(&p, "double.pkl", "--map", "--dask", "local:x", "--input", "in9");
    cpk_assert_exit(&p, 2);
    cr_assert_str_eq(p.err, "cloudpickle-load: --dask: invalid number of "
                            "workers 'x' in 'local:N' (1 to 256)\n");
    cpk_proc_free(&p);
}

/* Start cloudpickle-load ARGS... in dir, output to dir/out and dir/err. */
static pid_t
start_load(const char *const *args)
{
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        cpk_reset_signals();
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (chdir(dir) != 0)
            _exit(126);
        int fd = open("out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int err = open("err", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || err < 0)
            _exit(126);
        dup2(fd, 1);
        dup2(err, 2);
        setenv("PYTHONPATH", CPK_BUILD_DIR, 1);
        const char *argv[24] = {CPK_LOAD};
        int i = 1;
        for (; args[i - 1] != NULL && i < 23; i++)
            argv[i] = args[i - 1];
        argv[i] = NULL;
        execv(CPK_LOAD, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* The records after the third take 10 s each: the SIGINT lands while
 * the run is busy, however loaded the machine. */
Test(cli_map_dask, sigint_leaves_no_result_file)
{
    char addr[128];
    cluster(addr, sizeof(addr), 1, 0, NULL);
    pid_t pid = start_load((const char *[]){"slow.pkl", "--map", "--dask",
                                            addr, "--input", "in9",
                                            "--result-file", "res", NULL});
    wait_for("started", NULL);
    kill(pid, SIGINT);
    int st;
    cr_assert(waitpid(pid, &st, 0) == pid);
    char path[256];
    snprintf(path, sizeof(path), "%s/err", dir);
    char *err = cpk_read_file(path, NULL);
    cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT,
              "status %d; stderr:\n%s", st, err);
    free(err);
    snprintf(path, sizeof(path), "%s/res", dir);
    cr_assert(access(path, F_OK) != 0, "a partial --result-file is left");
}

Test(cli_map_dask, shards_with_index_merge)
{
    char addr[128];
    cluster(addr, sizeof(addr), 1, 0, NULL);
    cpk_proc p;
    LOAD(&p, "double.pkl", "--map", "--dask", addr, "--input", "in9",
         "--shard", "1/3", "--with-index");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "[2,4]\n[5,10]\n[8,16]\n");
    cpk_proc_free(&p);
}
