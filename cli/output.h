/* output.h - where cloudpickle-dump's pickle goes.
 *
 * A file (-o FILE): a temp file in the target's directory that the pickler
 * streams into, fsync'd, then renamed over the target. On any failure, and
 * on SIGTERM, SIGHUP or SIGQUIT, the temp file is removed: the target is
 * either untouched or the complete new pickle (git's lockfile pattern).
 *
 * Standard output: the caller pickles into memory first and writes once,
 * so a failed pickle writes nothing.
 */
#ifndef CPK_OUTPUT_H
#define CPK_OUTPUT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>

typedef struct {
    const char *target;
    char tmp[PATH_MAX];
    int fd;
    int write_errno; /* first write(2) error of the writer, or 0 */
} cpk_output;

/* Create the temp file next to `target`. Returns 0 or an errno value. */
int cpk_output_open(cpk_output *out, const char *target);

/* A Python object whose write(b) writes all of b to the temp file; on
 * failure it records errno in out->write_errno and raises OSError. The
 * output must outlive it. New reference. */
PyObject *cpk_output_writer(cpk_output *out);

/* Give the file the target's mode (or the umask's), fsync, close, rename
 * over the target, fsync the directory. Returns 0, or an errno value after
 * removing the temp file; *what names the step that failed. */
int cpk_output_commit(cpk_output *out, const char **what);

/* Remove the temp file (idempotent). */
void cpk_output_abort(cpk_output *out);

/* Write all of buf to fd, retrying short writes and EINTR. Returns 0 or an
 * errno value. */
int cpk_write_all(int fd, const void *buf, size_t len);

#endif
