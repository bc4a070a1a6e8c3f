/* host.h - the embedded interpreter both programs share: start it the way
 * `python -m` would see the world (current directory, -P directories and
 * PYTHONPATH on sys.path, an active virtualenv honoured, nothing else from
 * the environment), UTF-8 text under any locale, standard output kept for
 * the program's own output; describe exceptions in one line, shut it down.
 *
 * Standard output: before Python starts, fd 1 is duplicated to a private
 * descriptor (cpk_host_stdout_take) and fd 1 is pointed at standard error;
 * sys.stdout is sys.stderr. So whatever user code prints while it is
 * imported, loaded or pickled goes to standard error (and a failure to
 * write it there is ignored), and the pickle or
 * the report written to the private descriptor is all standard output
 * carries. cpk_host_stdout_restore gives fd 1 and sys.stdout back, for
 * --call, whose prints are part of its output. fd 1 is never closed
 * before finalization (Python flushes sys.stdout there).
 */
#ifndef CPK_CLI_COMMON_HOST_H
#define CPK_CLI_COMMON_HOST_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "common/pycompat.h" /* Py_NewRef before 3.10 */

typedef struct {
    int argc;            /* sys.argv */
    char **argv;
    int npaths;          /* -P directories, in order */
    const char **paths;
    int cwd_last;        /* current directory after everything else, so
                          * it never shadows the standard library or an
                          * installed package (cloudpickle-load) */
    int venv_optional;   /* a broken VIRTUAL_ENV is ignored, not refused;
                          * cpk_host_venv_note() then says why */
} cpk_host_config;

/* Check the -P directories (each must be a directory): 0, or the usage
 * error's exit status after saying so. cpk_host_start checks them too. */
int cpk_host_check_paths(int npaths, const char **paths);

/* Start the interpreter with ccloudpickle built in. Returns 0, or an exit
 * status after printing why it could not. */
int cpk_host_start(const cpk_host_config *cfg);

/* Shut the interpreter down. Returns `status`, or CPK_EXIT_FINALIZE when
 * finalization failed (e.g. flushing sys.stdout). */
int cpk_host_finish(int status);

/* The pending exception as one line, "Type: message" (newlines folded),
 * in a malloc'd string the caller frees; the exception stays set. */
char *cpk_host_exception_line(void);

/* If the pending exception is KeyboardInterrupt: run `cleanup` (may be
 * NULL), shut Python down and die by SIGINT, as a shell expects. */
void cpk_host_exit_if_interrupted(void (*cleanup)(void));

/* Re-raise `sig` with its default action (after cleanup): never returns. */
_Noreturn void cpk_die_by_signal(int sig);

/* The private duplicate of the original standard output (>= 3), now the
 * caller's to write to and close; -1 when there was none, or when it was
 * taken or given back to fd 1 (cpk_host_stdout_restore) already. */
int cpk_host_stdout_take(void);

/* Give fd 1 and sys.stdout back to the original standard output (what was
 * printed until now went to standard error). Returns 0, or -1 with a
 * Python exception set. */
int cpk_host_stdout_restore(void);

/* After a failed write to standard output, which was reported: point fd 1
 * at /dev/null and drop what sys.stdout still buffers, so that Python's
 * flush at exit adds no second message. */
void cpk_host_stdout_discard(void);

/* 1 if `fd` is a pipe whose reading end is closed (a write would fail
 * with EPIPE), else 0. SIGPIPE stays ignored while Python runs (user code
 * gets BrokenPipeError on its own pipes); the programs die by SIGPIPE
 * themselves when their standard output is such a pipe. */
int cpk_host_stdout_broken(int fd);

/* Why the VIRTUAL_ENV in the environment was ignored (venv_optional), as
 * "VIRTUAL_ENV=..., which <reason>", or NULL if it was not. */
const char *cpk_host_venv_note(void);

/* Import `name` or return NULL with the exception set. For ccloudpickle,
 * _pickle is imported first without functools (see host.c). */
PyObject *cpk_host_import(const char *name);

#endif
