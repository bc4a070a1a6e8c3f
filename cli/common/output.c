/* output.c - atomic output file and the writer the pickler streams into
 * (output.h). Signal handling here covers the temp file's life only; the
 * interpreter's own SIGINT handling is host.c's. */
#include "common/output.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/message.h" /* CPK_EXIT_OK */

/* The umask the program started with (cpk_output_init). */
static mode_t start_umask;
static int umask_known;

void
cpk_output_init(void)
{
    if (umask_known)
        return;
    /* Single-threaded here: nothing can see the brief umask(0). */
    start_umask = umask(0);
    umask(start_umask);
    umask_known = 1;
}

/* Without cpk_output_init: the current umask, read without changing it
 * (Linux 4.7+); the set-and-restore read is the last resort. */
static void
learn_umask(void)
{
    if (umask_known)
        return;
    FILE *f = fopen("/proc/self/status", "re");
    if (f != NULL) {
        char line[256];
        unsigned int mask;
        while (fgets(line, sizeof(line), f) != NULL)
            if (sscanf(line, "Umask: %o", &mask) == 1) {
                start_umask = (mode_t)(mask & 0777);
                umask_known = 1;
                break;
            }
        fclose(f);
    }
    cpk_output_init();
}

/* Signals ------------------------------------------------------------------
 *
 * The temp file's state, shared with the handler, which may run in any
 * thread (an imported module may have started some). Transitions that race
 * with a handler are compare-and-swaps on a lock-free atomic, which is
 * async-signal-safe:
 *
 *   IDLE        no temp file: a fatal signal kills as usual.
 *   PENDING     pending_tmp may exist: the handler removes it (PENDING ->
 *               DYING) and dies by the signal.
 *   COMMITTING  the rename is under way: the handler records the signal.
 *   COMMITTED   the new file is in place: the handler exits with status 0.
 */
enum { ST_IDLE, ST_PENDING, ST_DYING, ST_COMMITTING, ST_COMMITTED };
static atomic_int state = ST_IDLE;
static char pending_tmp[PATH_MAX];
static volatile sig_atomic_t deferred = 0;

/* SIGINT is Python's (KeyboardInterrupt) until the commit. SIGPIPE is
 * ignored while Python runs, but a module may restore its default action:
 * then it, too, must not leave the temp file behind. */
static const int fatal_signals[] = {SIGTERM, SIGHUP, SIGQUIT, SIGPIPE,
                                    SIGINT};
#define NFATAL (sizeof(fatal_signals) / sizeof(fatal_signals[0]))
#define NFATAL_BEFORE_COMMIT (NFATAL - 1)
static struct sigaction saved_actions[NFATAL];
static int nsaved = 0; /* how many of fatal_signals are ours now */

static void
die_by(int sig)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
    cpk_coverage_flush();
    /* Blocked while this handler runs: delivered, with the default
     * action, when it returns. */
    raise(sig);
}

static void
on_fatal_signal(int sig)
{
    int saved_errno = errno;
    int expected = ST_PENDING;
    if (atomic_compare_exchange_strong(&state, &expected, ST_DYING)) {
        unlink(pending_tmp);
        die_by(sig);
    }
    else if (expected == ST_COMMITTING)
        deferred = sig;
    else if (expected == ST_COMMITTED) {
        cpk_coverage_flush();
        _exit(CPK_EXIT_OK);
    }
    else if (expected == ST_IDLE)
        die_by(sig);
    /* ST_DYING: another thread is removing the file and ending the
     * process. */
    errno = saved_errno;
}

/* Install our handler for the first `n` fatal signals, saving theirs. A
 * signal the program was started ignoring (nohup, `cmd &` for SIGINT)
 * stays ignored: it is nobody's request to stop. */
static void
watch_signals(size_t n)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NFATAL; i++)
        sigaddset(&sa.sa_mask, fatal_signals[i]);
    for (size_t i = (size_t)nsaved; i < n; i++) {
        sigaction(fatal_signals[i], NULL, &saved_actions[i]);
        if (saved_actions[i].sa_handler != SIG_IGN)
            sigaction(fatal_signals[i], &sa, NULL);
    }
    if ((size_t)nsaved < n)
        nsaved = (int)n;
}

static void
unwatch_signals(void)
{
    for (int i = 0; i < nsaved; i++)
        if (saved_actions[i].sa_handler != SIG_IGN)
            sigaction(fatal_signals[i], &saved_actions[i], NULL);
    nsaved = 0;
}

void
cpk_output_forget_in_child(void)
{
    atomic_store(&state, ST_IDLE);
    pending_tmp[0] = '\0';
    unwatch_signals();
}

static void
fatal_set(sigset_t *set)
{
    sigemptyset(set);
    for (size_t i = 0; i < NFATAL; i++)
        sigaddset(set, fatal_signals[i]);
}

/* Files ------------------------------------------------------------------ */

int
cpk_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Follow the symbolic links of `target` (the last component only: the
 * rename replaces that; directories may be links) into out[cap], as git's
 * lock files do. A dangling link resolves to the file it names. Returns 0
 * or an errno value. */
static int
resolve_target(const char *target, char *out, size_t cap)
{
    if (snprintf(out, cap, "%s", target) >= (int)cap)
        return ENAMETOOLONG;
    for (int depth = 0;; depth++) {
        struct stat sb;
        if (lstat(out, &sb) != 0 || !S_ISLNK(sb.st_mode))
            return 0; /* missing or not a link: this is the file */
        if (depth == 40) /* Linux's MAXSYMLINKS */
            return ELOOP;
        char link[PATH_MAX];
        ssize_t n = readlink(out, link, sizeof(link));
        if (n < 0)
            return errno;
        if ((size_t)n >= sizeof(link))
            return ENAMETOOLONG;
        link[n] = '\0';
        char *slash = strrchr(out, '/');
        size_t keep = link[0] == '/' || slash == NULL
                          ? 0
                          : (size_t)(slash - out) + 1; /* the link's dir */
        if (keep + (size_t)n + 1 > cap)
            return ENAMETOOLONG;
        memcpy(out + keep, link, (size_t)n + 1);
    }
}

/* Six random name characters, as mkstemp uses. */
static void
random_suffix(char *x)
{
    static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    unsigned char r[6];
    if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
        static unsigned long counter;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        unsigned long v = (unsigned long)ts.tv_nsec ^
                          ((unsigned long)getpid() << 16) ^ ++counter * 7919;
        for (size_t i = 0; i < sizeof(r); i++, v = v * 6364136223846793005UL + 1)
            r[i] = (unsigned char)(v >> 33);
    }
    for (size_t i = 0; i < sizeof(r); i++)
        x[i] = chars[r[i] % (sizeof(chars) - 1)];
}

int
cpk_output_check(const char *target)
{
    struct stat sb, so;
    if (stat(target, &sb) == 0) {
        if (fstat(STDOUT_FILENO, &so) == 0 && sb.st_dev == so.st_dev &&
            sb.st_ino == so.st_ino)
            return CPK_OUTPUT_IS_STDOUT;
        if (S_ISDIR(sb.st_mode))
            return EISDIR;
        if (!S_ISREG(sb.st_mode))
            return 0; /* a device or FIFO, written in place */
    }
    /* The directory the temp file will be made in must exist. */
    char path[PATH_MAX];
    int e = resolve_target(target, path, sizeof(path));
    if (e != 0)
        return e;
    char *slash = strrchr(path, '/');
    if (slash == NULL)
        return 0; /* the current directory */
    if (slash == path)
        slash++; /* "/name": the root */
    *slash = '\0';
    if (stat(path, &sb) != 0)
        return errno;
    return S_ISDIR(sb.st_mode) ? 0 : ENOTDIR;
}

int
cpk_output_open(cpk_output *out, const char *target)
{
    memset(out, 0, sizeof(*out));
    out->target = target;
    out->fd = -1;
    learn_umask();
    struct stat sb;
    if (stat(target, &sb) == 0 && !S_ISREG(sb.st_mode) &&
        !S_ISDIR(sb.st_mode)) {
        /* A device, FIFO or socket (/dev/null, /dev/stdout): nothing to
         * replace atomically, and replacing it would be a disaster. */
        snprintf(out->path, sizeof(out->path), "%s", target);
        out->fd = open(target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (out->fd < 0)
            return errno;
        out->direct = 1;
        return 0;
    }
    int e = resolve_target(target, out->path, sizeof(out->path));
    if (e != 0)
        return e;
    char copy[PATH_MAX];
    memcpy(copy, out->path, sizeof(copy));
    const char *base = strrchr(out->path, '/');
    base = base ? base + 1 : out->path;
    if (*base == '\0')
        return EISDIR;
    const char *dir = dirname(copy);
    /* ".NAME.XXXXXX" must fit in NAME_MAX: a long name is cut short in
     * the temp name (only the directory has to be the target's). */
    int keep = (int)strlen(base);
    if (keep > NAME_MAX - 8)
        keep = NAME_MAX - 8;
    int n = snprintf(out->tmp, sizeof(out->tmp), "%s/.%.*s.XXXXXX", dir,
                     keep, base);
    if (n >= (int)sizeof(out->tmp))
        return ENAMETOOLONG;
    watch_signals(NFATAL_BEFORE_COMMIT);
    /* mkstemp, with the name published to the handler before the file
     * exists: a signal at any moment removes what was created. */
    for (int attempt = 0; attempt < 100; attempt++) {
        random_suffix(out->tmp + n - 6);
        atomic_store(&state, ST_IDLE);
        memcpy(pending_tmp, out->tmp, sizeof(pending_tmp));
        atomic_store(&state, ST_PENDING);
        out->fd = open(out->tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (out->fd >= 0)
            return 0;
        e = errno;
        atomic_store(&state, ST_IDLE);
        if (e != EEXIST)
            break;
    }
    unwatch_signals();
    out->tmp[0] = '\0';
    return e;
}

void
cpk_output_abort(cpk_output *out)
{
    if (out->direct) {
        if (out->fd >= 0)
            close(out->fd);
        out->fd = -1;
        return;
    }
    if (atomic_load(&state) == ST_COMMITTED)
        return; /* nothing to undo */
    if (out->fd >= 0) {
        close(out->fd);
        out->fd = -1;
    }
    if (out->tmp[0] != '\0') {
        unlink(out->tmp);
        out->tmp[0] = '\0';
    }
    atomic_store(&state, ST_IDLE);
    unwatch_signals();
}

/* The permission bits the new file gets (output.h). */
static mode_t
output_mode(const cpk_output *out)
{
    struct stat sb;
    if (stat(out->path, &sb) == 0 && S_ISREG(sb.st_mode))
        return sb.st_mode & 0777;
    return 0666 & ~start_umask;
}

int
cpk_output_commit(cpk_output *out, const char **what)
{
    int e = 0;
    if (out->direct) {
        int fd = out->fd;
        out->fd = -1;
        if (close(fd) != 0) {
            *what = "close";
            return errno;
        }
        return 0;
    }
    if (fchmod(out->fd, output_mode(out)) != 0) {
        e = errno;
        *what = "chmod";
    }
    else if (fsync(out->fd) != 0) {
        e = errno;
        *what = "fsync";
    }
    else {
        int fd = out->fd;
        out->fd = -1;
        if (close(fd) != 0) {
            e = errno;
            *what = "close";
        }
    }
    if (e != 0) {
        cpk_output_abort(out);
        return e;
    }

    /* Across the rename, this thread takes no fatal signal; SIGINT goes to
     * our handler too, for the other threads. */
    sigset_t fatal, old_mask;
    fatal_set(&fatal);
    pthread_sigmask(SIG_BLOCK, &fatal, &old_mask);
    watch_signals(NFATAL);
    /* A SIGINT that Python caught before: do not publish. */
    if (PyErr_CheckSignals() < 0) {
        cpk_output_abort(out);
        pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
        return EINTR;
    }
    int expected = ST_PENDING;
    if (!atomic_compare_exchange_strong(&state, &expected, ST_COMMITTING))
        for (;;) /* ST_DYING: another thread's handler ends the process */
            pause();
    if (rename(out->tmp, out->path) != 0) {
        e = errno;
        *what = "rename";
        atomic_store(&state, ST_PENDING);
        cpk_output_abort(out);
        /* A signal held back during the attempt now acts as usual. */
        pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
        if (deferred != 0)
            raise(deferred);
        return e;
    }
    /* Committed. The handlers stay ours: from here on no signal turns
     * success into a death, and one ends the program with status 0. */
    atomic_store(&state, ST_COMMITTED);
    out->tmp[0] = '\0';
    /* Make the rename itself durable. */
    char copy[PATH_MAX];
    memcpy(copy, out->path, sizeof(copy));
    int dfd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    /* A signal held back across the rename, in this thread or another's
     * handler: the request to stop is honoured now, with success. */
    if (deferred != 0) {
        cpk_coverage_flush();
        _exit(CPK_EXIT_OK);
    }
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    return 0;
}

void
cpk_output_rewatch(void)
{
    if (atomic_load(&state) != ST_COMMITTED)
        return;
    struct sigaction sa, old;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NFATAL; i++)
        sigaddset(&sa.sa_mask, fatal_signals[i]);
    for (size_t i = 0; i < NFATAL; i++) {
        sigaction(fatal_signals[i], NULL, &old);
        if (old.sa_handler == SIG_DFL)
            sigaction(fatal_signals[i], &sa, NULL);
    }
}
/* The writer ------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    cpk_output *out;
} fd_writer;

static PyObject *
Writer_write(PyObject *op, PyObject *data)
{
    fd_writer *self = (fd_writer *)op;
    Py_buffer b;
    if (PyObject_GetBuffer(data, &b, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    const char *p = b.buf;
    size_t left = (size_t)b.len;
    while (left > 0) {
        ssize_t n = write(self->out->fd, p, left);
        if (n < 0) {
            if (errno == EINTR) {
                if (PyErr_CheckSignals() < 0) {
                    PyBuffer_Release(&b);
                    return NULL;
                }
                continue;
            }
            if (self->out->write_errno == 0)
                self->out->write_errno = errno;
            PyBuffer_Release(&b);
            return PyErr_SetFromErrno(PyExc_OSError);
        }
        p += n;
        left -= (size_t)n;
    }
    Py_ssize_t len = b.len;
    PyBuffer_Release(&b);
    return PyLong_FromSsize_t(len);
}

static PyMethodDef writer_methods[] = {
    {"write", Writer_write, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot writer_slots[] = {
    {Py_tp_methods, writer_methods},
    {0, NULL},
};

static PyType_Spec writer_spec = {
    .name = "cloudpickle_dump.Writer",
    .basicsize = sizeof(fd_writer),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = writer_slots,
};

PyObject *
cpk_output_writer(cpk_output *out)
{
    PyTypeObject *type = (PyTypeObject *)PyType_FromSpec(&writer_spec);
    if (type == NULL)
        return NULL;
    fd_writer *w = PyObject_New(fd_writer, type);
    Py_DECREF(type); /* the instance holds the type */
    if (w == NULL)
        return NULL;
    w->out = out;
    return (PyObject *)w;
}
