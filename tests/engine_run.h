/* engine_run.h - what the engine tests (tests/test_engine_*.c) share.
 *
 * Each engine test runs a Python driver, tests/engines/<engine>_*.py, under
 * CPK_PYTHON with the build directory (ccloudpickle and its companion
 * modules) and tests/engines on PYTHONPATH. A driver prints `ok NAME` for
 * each check that passed (it asserts, so a failed check exits non-zero
 * with a traceback) and ends with `descendants PID...`: the processes it
 * saw below itself while workers ran (tests/engines/_enginecheck.py). The
 * test asserts the exit status, the `ok` lines it expects and that workers
 * were seen. The test process is a child subreaper while it runs the
 * driver: workers the driver leaves behind are reparented to it, and it
 * waits for every one of them to exit before the test ends (a worker that
 * never exits is caught by the test's Criterion .timeout). No pid is ever
 * signalled or trusted after its process may have been reaped.
 */
#ifndef CPK_ENGINE_RUN_H
#define CPK_ENGINE_RUN_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support.h"

#define CPK_ENGINES_DIR CPK_SOURCE_DIR "/tests/engines"

/* Run tests/engines/<script> with up to 4 arguments (NULL-ended) and
 * extra environment `env` (NULL-ended, may be NULL), with `pythonpath` as
 * PYTHONPATH (NULL: unset). The calling process becomes a child subreaper
 * (see cpk_engine_reap_leftovers). */
static inline void
cpk_engine_run_path(cpk_proc *p, const char *script, const char *const args[],
                    const char *const env[], const char *pythonpath)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", CPK_ENGINES_DIR, script);
    const char *argv[8] = {CPK_PYTHON, path};
    int n = 2;
    for (int i = 0; args != NULL && args[i] != NULL && n < 7; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    char pp[2048];
    snprintf(pp, sizeof(pp), "PYTHONPATH=%s", pythonpath ? pythonpath : "");
    const char *full_env[16] = {"PYTHONDONTWRITEBYTECODE=1"};
    int e = 1;
    if (pythonpath != NULL)
        full_env[e++] = pp;
    for (int i = 0; env != NULL && env[i] != NULL && e < 15; i++)
        full_env[e++] = env[i];
    full_env[e] = NULL;
    /* The engines' own settings in the caller's environment must not
     * change what the driver tests. */
    const char *unset[] = {"LOKY_PICKLER", "CCLOUDPICKLE_ALIAS",
                           pythonpath ? NULL : "PYTHONPATH", NULL};
    /* A fresh empty working directory: workers started with `python -m`
     * put it first on sys.path, where a stray file could shadow a module. */
    char cwd[256];
    cpk_tmpdir(cwd, sizeof(cwd));
    cpk_spawn_opts o = {.argv = argv, .cwd = cwd, .env = full_env,
                        .unset = unset};
    /* Orphaned descendants of the driver come back to this process. */
    cr_assert(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0,
              "prctl(PR_SET_CHILD_SUBREAPER): %s", strerror(errno));
    cpk_spawn_ex(p, &o);
    rmdir(cwd); /* left in place if the driver wrote into it */
}

/* cpk_engine_run_path with the build directory and tests/engines on
 * PYTHONPATH. */
static inline void
cpk_engine_run(cpk_proc *p, const char *script, const char *const args[],
               const char *const env[])
{
    cpk_engine_run_path(p, script, args, env,
                        CPK_BUILD_DIR ":" CPK_ENGINES_DIR);
}

/* Wait for and reap every process the driver left behind (reparented to
 * this subreaper); returns how many there were. Blocks until the last
 * one exits: the test's Criterion .timeout is the hang guard. */
static inline int
cpk_engine_reap_leftovers(void)
{
    int n = 0, status;
    for (;;) {
        pid_t pid = waitpid(-1, &status, 0);
        if (pid > 0) {
            n++;
            continue;
        }
        if (errno == EINTR)
            continue;
        cr_assert(errno == ECHILD, "waitpid: %s", strerror(errno));
        return n;
    }
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

/* Assert that the driver saw worker processes (at least `min_seen`) and
 * reap every process it left behind. */
static inline void
cpk_engine_assert_no_leftovers(const cpk_proc *p, int min_seen)
{
    const char *line = strstr(p->out, "descendants");
    cr_assert(line != NULL, "the driver did not list its processes:\n%s",
              p->out);
    line += strlen("descendants");
    int n = 0;
    char *end;
    for (;;) {
        (void)strtol(line, &end, 10);
        if (end == line)
            break;
        n++;
        line = end;
    }
    cr_assert(n >= min_seen, "expected at least %d worker processes, saw %d",
              min_seen, n);
    cpk_engine_reap_leftovers();
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
