/* host.h - the embedded interpreter both programs share: start it the way
 * `python -m` would see the world (current directory, -P directories and
 * PYTHONPATH on sys.path, an active virtualenv honoured, nothing else from
 * the environment), describe exceptions in one line, and shut it down.
 */
#ifndef CPK_HOST_H
#define CPK_HOST_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "pycompat.h" /* Py_NewRef before 3.10 */

typedef struct {
    int argc;            /* sys.argv */
    char **argv;
    int npaths;          /* -P directories, in order */
    const char **paths;
} cpk_host_config;

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

/* Import `name` or return NULL with the exception set. */
PyObject *cpk_host_import(const char *name);

#endif
