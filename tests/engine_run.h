/* engine_run.h - what the engine tests (tests/test_engine_*.c) share.
 *
 * Each engine test runs a Python driver, tests/engines/<engine>_*.py, under
 * CPK_PYTHON with the build directory (ccloudpickle and its companion
 * modules) and tests/engines on PYTHONPATH. A driver prints `ok NAME` for
 * each check that passed (it asserts, so a failed check exits non-zero
 * with a traceback) and ends with `descendants PID...`: the processes it
 * saw below itself while workers ran (tests/engines/_enginecheck.py). The
 * test asserts the exit status, the `ok` lines it expects, that workers
 * were seen, and that none of them is left once the driver has exited.
 */
#ifndef CPK_ENGINE_RUN_H
#define CPK_ENGINE_RUN_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "support.h"

#define CPK_ENGINES_DIR CPK_SOURCE_DIR "/tests/engines"

/* Run tests/engines/<script> with up to 4 arguments (NULL-ended) and
 * extra environment `env` (NULL-ended, may be NULL). */
static inline void
cpk_engine_run(cpk_proc *p, const char *script, const char *const args[],
               const char *const env[])
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", CPK_ENGINES_DIR, script);
    const char *argv[8] = {CPK_PYTHON, path};
    int n = 2;
    for (int i = 0; args != NULL && args[i] != NULL && n < 7; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    const char *full_env[16] = {
        "PYTHONPATH=" CPK_BUILD_DIR ":" CPK_ENGINES_DIR,
        "PYTHONDONTWRITEBYTECODE=1",
    };
    int e = 2;
    for (int i = 0; env != NULL && env[i] != NULL && e < 15; i++)
        full_env[e++] = env[i];
    full_env[e] = NULL;
    /* The engines' own settings in the caller's environment must not
     * change what the driver tests. */
    const char *unset[] = {"LOKY_PICKLER", "CCLOUDPICKLE_ALIAS", NULL};
    /* A fresh empty working directory: workers started with `python -m`
     * put it first on sys.path, where a stray file could shadow a module. */
    char cwd[256];
    cpk_tmpdir(cwd, sizeof(cwd));
    cpk_spawn_opts o = {.argv = argv, .cwd = cwd, .env = full_env,
                        .unset = unset};
    cpk_spawn_ex(p, &o);
    rmdir(cwd); /* left in place if the driver wrote into it */
}

/* Assert that the driver printed the line `ok <name>`. */
static inline void
cpk_engine_assert_ok(const cpk_proc *p, const char *name)
{
    char line[256];
    snprintf(line, sizeof(line), "ok %s\n", name);
    cr_assert(strstr(p->out, line) != NULL,
              "no '%s' in the driver's output:\n%s\nstderr:\n%s", name,
              p->out, p->err);
}

/* 1 if process `pid` is gone or a zombie (exited, not yet reaped). */
static inline int
cpk_engine_pid_gone(long pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 1;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *rp = strrchr(buf, ')');
    return rp != NULL && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X');
}

/* Assert that the driver saw worker processes (at least `min_seen`) and
 * that every one of them has exited. They may outlive the driver for a
 * moment (a forkserver or resource tracker notices its parent's exit), so
 * this waits up to a minute: a hang guard, not a timing check. */
static inline void
cpk_engine_assert_no_leftovers(const cpk_proc *p, int min_seen)
{
    const char *line = strstr(p->out, "descendants");
    cr_assert(line != NULL, "the driver did not list its processes:\n%s",
              p->out);
    line += strlen("descendants");
    long pids[256];
    int n = 0;
    char *end;
    for (;;) {
        long v = strtol(line, &end, 10);
        if (end == line || n == 256)
            break;
        pids[n++] = v;
        line = end;
    }
    cr_assert(n >= min_seen, "expected at least %d worker processes, saw %d",
              min_seen, n);
    for (int i = 0; i < n; i++) {
        int tries = 600;
        while (!cpk_engine_pid_gone(pids[i]) && tries-- > 0) {
            struct timespec ts = {0, 100 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        if (!cpk_engine_pid_gone(pids[i])) {
            kill((pid_t)pids[i], SIGKILL);
            cr_assert_fail("worker process %ld was left running", pids[i]);
        }
    }
}

/* Run the driver, assert exit 0, each of `oks` (NULL-ended) and no
 * leftover process. */
static inline void
cpk_engine_check(const char *script, const char *const args[],
                 const char *const env[], const char *const oks[],
                 int min_seen)
{
    cpk_proc p;
    cpk_engine_run(&p, script, args, env);
    cpk_assert_exit(&p, 0);
    for (int i = 0; oks[i] != NULL; i++)
        cpk_engine_assert_ok(&p, oks[i]);
    cpk_engine_assert_no_leftovers(&p, min_seen);
    cpk_proc_free(&p);
}

#endif
