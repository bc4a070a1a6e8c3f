/* test_engine_distributed.c - Dask distributed through the cloudpickle
 * alias: a real LocalCluster of two worker processes on loopback, started
 * by tests/engines/distributed_alias.py under CCLOUDPICKLE_ALIAS=1 in a
 * virtual environment where the build is installed with its .pth hook
 * and Debian's python3-distributed is visible. The script asserts what
 * travels and how; here we check it ran to the end, and that nothing of
 * it is left behind: it runs in a session of its own, whose processes
 * (the workers included) are counted and then killed, with its output in
 * files, so a worker that outlives it cannot hold a pipe open; its
 * TMPDIR and the venv are in a directory removed at exit (kept when
 * CPK_KEEP_TMP is set). */
#define _XOPEN_SOURCE 700
#include <dirent.h>
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

TestSuite(engine_distributed);

static char test_dir[64];

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

/* At exit of the test's process, passed or failed. */
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

/* Processes (not zombies) of session `sid`; each is sent `sig` unless it
 * is 0 (a worker may have made a process group of its own). */
static int
processes_in_session(pid_t sid, int sig)
{
    DIR *d = opendir("/proc");
    cr_assert(d != NULL);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[300];
        snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
        char *stat = cpk_read_file(path, NULL);
        if (stat == NULL)
            continue;
        /* pid (comm) state ppid pgrp session ... */
        const char *after = strrchr(stat, ')');
        char state;
        int ppid, pgrp, session;
        if (after != NULL &&
            sscanf(after + 1, " %c %d %d %d", &state, &ppid, &pgrp,
                   &session) == 4 &&
            session == sid && state != 'Z') {
            n++;
            if (sig != 0)
                kill((pid_t)atoi(e->d_name), sig);
        }
        free(stat);
    }
    closedir(d);
    return n;
}

/* The command lines of session `sid`'s processes, one a line. */
static void
session_names(pid_t sid, char *buf, size_t cap)
{
    buf[0] = '\0';
    DIR *d = opendir("/proc");
    cr_assert(d != NULL);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[300];
        snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
        char *stat = cpk_read_file(path, NULL);
        if (stat == NULL)
            continue;
        const char *after = strrchr(stat, ')');
        char state;
        int ppid, pgrp, session;
        int mine = after != NULL &&
                   sscanf(after + 1, " %c %d %d %d", &state, &ppid, &pgrp,
                          &session) == 4 &&
                   session == sid && state != 'Z';
        free(stat);
        if (!mine)
            continue;
        snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
        size_t len;
        char *cmd = cpk_read_file(path, &len);
        if (cmd == NULL)
            continue;
        for (size_t i = 0; i + 1 < len; i++)
            if (cmd[i] == '\0')
                cmd[i] = ' ';
        size_t used = strlen(buf);
        snprintf(buf + used, cap - used, "%s: %.200s\n", e->d_name, cmd);
        free(cmd);
    }
    closedir(d);
}

/* Files of `dir` whose name starts with `prefix`. */
static int
entries_starting(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

static long
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Run argv in a new session in `dir`, stdout and stderr to dir/out and
 * dir/err, with `env` added and `unset` removed; wait at most
 * `deadline_ms`, then kill the session. Returns the wait status
 * (-1 if it had to be killed); *sid is the session. */
static int
run_in_session(const char *dir, const char *const *argv,
               const char *const *env, const char *const *unset,
               long deadline_ms, pid_t *sid)
{
    char out[128], err[128];
    snprintf(out, sizeof(out), "%s/out", dir);
    snprintf(err, sizeof(err), "%s/err", dir);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        setsid();
        int in = open("/dev/null", O_RDONLY);
        int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (in < 0 || o < 0 || e < 0 || chdir(dir) != 0)
            _exit(126);
        dup2(in, 0);
        dup2(o, 1);
        dup2(e, 2);
        signal(SIGPIPE, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        const char *san = getenv("CPK_SAN_PRELOAD");
        if (san != NULL && *san != '\0')
            setenv("LD_PRELOAD", san, 1);
        for (int i = 0; unset != NULL && unset[i] != NULL; i++)
            unsetenv(unset[i]);
        for (int i = 0; env != NULL && env[i] != NULL; i++)
            putenv((char *)env[i]);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    *sid = pid; /* setsid() makes the child leader of both */
    long start = now_ms();
    int status;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        cr_assert(r >= 0 || errno == EINTR);
        if (r == pid)
            return status;
        if (now_ms() - start > deadline_ms) {
            processes_in_session(pid, SIGKILL);
            cr_assert(waitpid(pid, &status, 0) == pid);
            return -1;
        }
        usleep(100 * 1000);
    }
}

/* A venv in a new directory `dir` (64 bytes) at `venv` (128), where the
 * build is installed with its .pth hook and Debian's packages are
 * visible; its python in `python` (256). `dir` is removed at exit. */
static void
make_venv(char *dir, char *venv, char *python)
{
    cpk_tmpdir(dir, 64);
    snprintf(test_dir, sizeof(test_dir), "%s", dir);
    atexit(drop_test_dir);
    snprintf(venv, 128, "%s/venv", dir);
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

Test(engine_distributed, local_cluster_through_alias, .timeout = 300)
{
    cpk_require("distributed");
    char dir[64], venv[128], python[256], tmp[128];
    make_venv(dir, venv, python);
    snprintf(tmp, sizeof(tmp), "%s/tmp", dir);
    cr_assert(mkdir(tmp, 0700) == 0);

    /* The client script and, through the variable, every worker. */
    const char *argv[] = {python,
                          CPK_SOURCE_DIR "/tests/engines/distributed_alias.py",
                          NULL};
    char tmp_var[160];
    snprintf(tmp_var, sizeof(tmp_var), "TMPDIR=%s", tmp);
    const char *env[] = {"CCLOUDPICKLE_ALIAS=1", tmp_var, NULL};
    const char *unset[] = {"PYTHONPATH", NULL};
    pid_t sid;
    int status = run_in_session(dir, argv, env, unset, 240 * 1000, &sid);
    /* Counted, then killed whatever the count, then asserted on. */
    /* What outlives the script briefly by design (multiprocessing's
     * resource tracker, which exits on its pipe's end of file) has a
     * few seconds; a worker left running would stay. */
    long until = now_ms() + 10 * 1000;
    int left;
    while ((left = processes_in_session(sid, 0)) > 0 && now_ms() < until)
        usleep(100 * 1000);
    char names[4096];
    session_names(sid, names, sizeof(names));
    processes_in_session(sid, SIGKILL);
    char path[128];
    snprintf(path, sizeof(path), "%s/out", dir);
    char *out = cpk_read_file(path, NULL);
    snprintf(path, sizeof(path), "%s/err", dir);
    char *err = cpk_read_file(path, NULL);
    cr_assert(status != -1, "the distributed script did not end in 240 s:\n"
              "stdout:\n%s\nstderr:\n%s", out, err);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "the distributed script failed (%d):\nstdout:\n%s\nstderr:\n%s",
              status, out, err);
    cr_assert_str_eq(out, "ok\n");
    cr_assert_eq(left, 0, "%d processes of its session were still running:\n%s",
                 left, names);
    cr_assert_eq(entries_starting(tmp, "cpk-local-"), 0,
                 "the script left its module directory in %s", tmp);
    free(out);
    free(err);
}

/* Without the variable the same environment gives stock cloudpickle to
 * the engine: the alias is opt-in. */
Test(engine_distributed, without_the_variable_distributed_gets_stock,
     .timeout = 120)
{
    cpk_require("distributed");
    char dir[64], venv[128], python[256];
    make_venv(dir, venv, python);
    cpk_proc p;
    const char *argv[] = {python, "-c",
                          "import distributed.protocol.pickle as dpp, ccloudpickle\n"
                          "assert dpp.cloudpickle.dumps is not ccloudpickle.dumps\n"
                          "assert dpp.cloudpickle.__version__.startswith('2.')\n",
                          NULL};
    const char *unset[] = {"PYTHONPATH", "CCLOUDPICKLE_ALIAS", NULL};
    cpk_spawn_opts o = {.argv = argv, .cwd = dir, .unset = unset};
    cpk_spawn_ex(&p, &o);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}
