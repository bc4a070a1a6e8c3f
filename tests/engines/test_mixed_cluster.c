/* test_mixed_cluster.c - distributed clusters where one side runs the
 * cloudpickle alias in compat mode (CCLOUDPICKLE_ALIAS=cloudpickle3 or
 * cloudpickle2) and the other only stock cloudpickle: a real scheduler
 * and worker on 127.0.0.1 (tests/engines/mixed_cluster.py, which asserts
 * what travels). The alias side is a virtual environment with the build
 * installed and its .pth hook (tests/engines/alias_venv.py); the stock
 * side is Debian's python3 with stock cloudpickle 3.1.2 (the vendored
 * release) or Debian's 2.2, and no ccloudpickle. The script runs in a
 * process group of its own, which the suite's fini kills whatever
 * happened, the worker included; its directory is removed at exit
 * (kept when CPK_KEEP_TMP is set). */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support.h"

static char test_dir[64];
static pid_t group; /* the script's process group, 0: none */

static int
remove_entry(const char *path, const struct stat *sb, int flag,
             struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static void
drop_test_dir(void)
{
    if (test_dir[0] == '\0')
        return;
    const char *keep = getenv("CPK_KEEP_TMP");
    if (keep != NULL && *keep != '\0') {
        fprintf(stderr, "CPK_KEEP_TMP: kept %s\n", test_dir);
        return;
    }
    nftw(test_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Every process of the script's group, the worker included. */
static void
stop_group(void)
{
    if (group > 0) {
        kill(-group, SIGKILL);
        while (waitpid(group, NULL, 0) < 0 && errno == EINTR)
            ;
        group = 0;
    }
}

TestSuite(mixed_cluster, .fini = stop_group);

static long
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Skips unless distributed imports under CPK_PYTHON, which both sides
 * run (the venv is made from it). */
static void
require_distributed(void)
{
    cpk_proc p;
    const char *argv[] = {CPK_PYTHON, "-c", "import distributed", NULL};
    cpk_spawn(&p, argv, "/", NULL, 0, NULL);
    int ok = p.exited && p.status == 0;
    cpk_proc_free(&p);
    if (!ok)
        cr_skip_test("distributed does not import under %s", CPK_PYTHON);
}

/* A venv with the build installed and the .pth hook, in a new directory
 * (test_dir); its python in `python` (256 bytes). */
static void
make_venv(char *python)
{
    cpk_tmpdir(test_dir, sizeof(test_dir));
    atexit(drop_test_dir);
    char venv[128];
    snprintf(venv, sizeof(venv), "%s/venv", test_dir);
    const char *mk[] = {CPK_PYTHON,
                        CPK_SOURCE_DIR "/tests/engines/alias_venv.py",
                        CPK_BUILD_DIR,
                        CPK_SOURCE_DIR,
                        venv,
                        "--system-site-packages",
                        NULL};
    cpk_proc p;
    cpk_spawn(&p, mk, "/", NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    snprintf(python, 256, "%.*s", (int)strcspn(p.out, "\n"), p.out);
    cpk_proc_free(&p);
}

/* Runs the script with `client_python` and `env` (NULL-ended), in its
 * own process group, output in files; asserts it printed "ok". */
static void
run_script(const char *client_python, const char *side,
           const char *worker_python, const char *const *worker_env,
           const char *const *env)
{
    char out[128], err[128];
    snprintf(out, sizeof(out), "%s/out", test_dir);
    snprintf(err, sizeof(err), "%s/err", test_dir);
    const char *argv[16] = {client_python,
                            CPK_SOURCE_DIR "/tests/engines/mixed_cluster.py",
                            side, worker_python};
    size_t n = 4;
    for (size_t i = 0; worker_env[i] != NULL && n < 15; i++)
        argv[n++] = worker_env[i];
    argv[n] = NULL;
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0);
        int in = open("/dev/null", O_RDONLY);
        int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (in < 0 || o < 0 || e < 0 || chdir(test_dir) != 0)
            _exit(126);
        dup2(in, 0);
        dup2(o, 1);
        dup2(e, 2);
        signal(SIGPIPE, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        const char *san = getenv("CPK_SAN_PRELOAD");
        if (san != NULL && *san != '\0')
            setenv("LD_PRELOAD", san, 1);
        unsetenv("PYTHONPATH");
        unsetenv("CCLOUDPICKLE_ALIAS");
        for (int i = 0; env[i] != NULL; i++)
            putenv((char *)env[i]);
        char tmp[160];
        snprintf(tmp, sizeof(tmp), "%s", test_dir);
        setenv("TMPDIR", tmp, 1);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    setpgid(pid, pid); /* both sides: whichever runs first */
    group = pid;
    long until = now_ms() + 120 * 1000;
    int status = -1;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        cr_assert(r >= 0 || errno == EINTR);
        if (r == pid)
            break;
        if (now_ms() > until) {
            status = -1;
            break;
        }
        usleep(50 * 1000);
    }
    if (status != -1)
        group = 0;
    kill(-pid, SIGKILL); /* a worker the script left behind */
    stop_group();
    char *o = cpk_read_file(out, NULL);
    char *e = cpk_read_file(err, NULL);
    cr_assert(status != -1, "%s: the script did not end in 120 s:\n%s\n%s",
              side, o, e);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "%s: the script failed (status %d):\nstdout:\n%s\nstderr:\n%s",
              side, status, o, e);
    cr_assert_str_eq(o, "ok\n", "%s:\n%s", side, e);
    free(o);
    free(e);
}

/* The stock side's environment: cloudpickle 3.1.2 first on the path. */
static const char *
stock3_path(char *buf, size_t cap)
{
    const char *dir = cpk_stock_cloudpickle("CPK_CLOUDPICKLE3");
    snprintf(buf, cap, "PYTHONPATH=%s", dir);
    return buf;
}

Test(mixed_cluster, alias_client_stock3_worker, .timeout = 180)
{
    require_distributed();
    char path[4200];
    stock3_path(path, sizeof(path));
    char python[256];
    make_venv(python);
    const char *worker_env[] = {path, "CCLOUDPICKLE_ALIAS=", NULL};
    const char *env[] = {"CCLOUDPICKLE_ALIAS=cloudpickle3", NULL};
    run_script(python, "client:cloudpickle3", CPK_PYTHON, worker_env, env);
}

Test(mixed_cluster, stock3_client_alias_worker, .timeout = 180)
{
    require_distributed();
    char path[4200];
    stock3_path(path, sizeof(path));
    char python[256];
    make_venv(python);
    const char *worker_env[] = {"CCLOUDPICKLE_ALIAS=cloudpickle3", NULL};
    const char *env[] = {path, NULL};
    run_script(CPK_PYTHON, "worker:cloudpickle3", python, worker_env, env);
}

/* Debian's python3-cloudpickle (2.2) on the stock side (the other
 * direction writes the same format as stock3_client_alias_worker, for
 * another loader). */
Test(mixed_cluster, alias_client_stock2_worker, .timeout = 180)
{
    require_distributed();
    cpk_require("cloudpickle");
    char python[256];
    make_venv(python);
    const char *worker_env[] = {"CCLOUDPICKLE_ALIAS=", NULL};
    const char *env[] = {"CCLOUDPICKLE_ALIAS=cloudpickle2", NULL};
    run_script(python, "client:cloudpickle2", CPK_PYTHON, worker_env, env);
}
