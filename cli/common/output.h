/* output.h - where cloudpickle-dump's pickle goes.
 *
 * A file (-o FILE): a temp file in the target's directory that the pickler
 * streams into, fsync'd, then renamed over the target (git's lockfile
 * pattern). The target is either untouched or the complete new pickle:
 *
 * - A symbolic link is written through: the link chain is followed (as
 *   git's lock files do), the temp file goes next to the final target and
 *   replaces it; the links stay links. A dangling link's target is created.
 * - Until the rename, SIGTERM, SIGHUP and SIGQUIT remove the temp file and
 *   the program dies by the signal; SIGINT is Python's KeyboardInterrupt,
 *   which the caller turns into cpk_output_abort and death by SIGINT. The
 *   temp file's name is registered before the file exists, so no signal
 *   can leave it behind. A signal the program was started ignoring (nohup)
 *   stays ignored.
 * - The rename is the commit point. SIGINT, SIGTERM, SIGHUP and SIGQUIT are
 *   blocked across it, and from then on they no longer kill the program: a
 *   signal that arrives during or after the rename ends it at once with
 *   status 0 (its handler calls _exit), since the new file is in place.
 * - Mode: an existing target's permission bits (0777; setuid, setgid and
 *   sticky bits are dropped, as xz does), else 0666 less the umask the
 *   program started with (cpk_output_init). The umask is never changed
 *   while Python threads may run.
 *
 * - A target that exists and is no regular file or directory (a device
 *   such as /dev/null, a FIFO, /dev/stdout) is opened and written in
 *   place: nothing to replace atomically, and replacing it would be
 *   wrong.
 *
 * Standard output: the caller pickles into memory first and writes once,
 * so a failed pickle writes nothing.
 */
#ifndef CPK_CLI_COMMON_OUTPUT_H
#define CPK_CLI_COMMON_OUTPUT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>

typedef struct {
    const char *target; /* as given, for messages */
    char path[PATH_MAX]; /* the file the rename replaces: symlinks resolved */
    char tmp[PATH_MAX];
    int fd;
    int write_errno; /* first write(2) error of the writer, or 0 */
    int direct;      /* a device, FIFO or socket: written in place */
} cpk_output;

/* Record the process umask. Call once, early in main, before the
 * interpreter starts: reading the umask means setting it, which races
 * with threads an imported module may start. Without it the umask is read
 * from /proc/self/status when the output is opened. */
void cpk_output_init(void);

enum { CPK_OUTPUT_IS_STDOUT = -1 };

/* Check `target` before anything runs: CPK_OUTPUT_IS_STDOUT when it is
 * the very file (same device and inode) the process's standard output is
 * now (/dev/stdout, /dev/fd/1, /proc/self/fd/1): write to standard output
 * instead, as for "-". EISDIR for a directory; the errno value of what
 * keeps the temp file from being made beside it (a missing directory, a
 * symbolic link loop); 0 otherwise. */
int cpk_output_check(const char *target);

/* Create the temp file next to `target` (after following symbolic
 * links). Returns 0 or an errno value. */
int cpk_output_open(cpk_output *out, const char *target);

/* A Python object whose write(b) writes all of b to the temp file; on
 * failure it records errno in out->write_errno and raises OSError. The
 * output must outlive it. New reference. */
PyObject *cpk_output_writer(cpk_output *out);

/* Give the file its mode (see above), fsync, close, rename over the
 * target, fsync the directory. Returns 0 once the file is in place (a
 * fatal signal then ends the program with status 0), or an
 * errno value after removing the temp file; *what names the step that
 * failed. EINTR with a Python exception set: a KeyboardInterrupt arrived
 * before the rename. */
int cpk_output_commit(cpk_output *out, const char **what);

/* After Py_FinalizeEx, which gives SIGINT back its default action: once
 * committed, a fatal signal with the default action is ours again (ends
 * the program with status 0). */
void cpk_output_rewatch(void);

/* In a forked child (a --map worker): the parent's temp file is not its
 * own to remove; a fatal signal acts as it did before cpk_output_open. */
void cpk_output_forget_in_child(void);

/* Remove the temp file (idempotent). */
void cpk_output_abort(cpk_output *out);

/* Write all of buf to fd, retrying short writes and EINTR. Returns 0 or an
 * errno value. */
int cpk_write_all(int fd, const void *buf, size_t len);

#endif
