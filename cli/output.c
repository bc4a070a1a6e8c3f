/* output.c - atomic output file and the writer the pickler streams into
 * (output.h). */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host.h"

/* The temp file a fatal signal must remove; async-signal-safe access. */
static char pending_tmp[PATH_MAX];
static volatile sig_atomic_t pending = 0;
static const int fatal_signals[] = {SIGTERM, SIGHUP, SIGQUIT};

static void
on_fatal_signal(int sig)
{
    if (pending)
        unlink(pending_tmp);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void
watch_signals(int on)
{
    for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]);
         i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on ? on_fatal_signal : SIG_DFL;
        sigemptyset(&sa.sa_mask);
        sigaction(fatal_signals[i], &sa, NULL);
    }
}

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

int
cpk_output_open(cpk_output *out, const char *target)
{
    memset(out, 0, sizeof(*out));
    out->target = target;
    out->fd = -1;
    char copy[PATH_MAX];
    if (snprintf(copy, sizeof(copy), "%s", target) >= (int)sizeof(copy))
        return ENAMETOOLONG;
    const char *base = strrchr(target, '/');
    base = base ? base + 1 : target;
    const char *dir = dirname(copy);
    if (*base == '\0')
        return EISDIR;
    if (snprintf(out->tmp, sizeof(out->tmp), "%s/.%s.XXXXXX", dir, base) >=
        (int)sizeof(out->tmp))
        return ENAMETOOLONG;
    /* Signals are watched before the file exists, so none is missed. */
    memcpy(pending_tmp, out->tmp, sizeof(pending_tmp));
    watch_signals(1);
    out->fd = mkstemp(out->tmp);
    if (out->fd < 0) {
        int e = errno;
        watch_signals(0);
        out->tmp[0] = '\0';
        return e;
    }
    memcpy(pending_tmp, out->tmp, sizeof(pending_tmp));
    pending = 1;
    return 0;
}

void
cpk_output_abort(cpk_output *out)
{
    if (out->fd >= 0) {
        close(out->fd);
        out->fd = -1;
    }
    if (out->tmp[0] != '\0') {
        unlink(out->tmp);
        out->tmp[0] = '\0';
    }
    pending = 0;
    watch_signals(0);
}

int
cpk_output_commit(cpk_output *out, const char **what)
{
    struct stat sb;
    mode_t mode;
    if (stat(out->target, &sb) == 0)
        mode = sb.st_mode & 07777;
    else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    int e = 0;
    if (fchmod(out->fd, mode) != 0) {
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
    /* A SIGINT caught by Python while we were in C: do not publish. */
    if (e == 0 && PyErr_CheckSignals() < 0) {
        cpk_output_abort(out);
        return EINTR;
    }
    if (e == 0 && rename(out->tmp, out->target) != 0) {
        e = errno;
        *what = "rename";
    }
    if (e != 0) {
        cpk_output_abort(out);
        return e;
    }
    out->tmp[0] = '\0';
    pending = 0;
    watch_signals(0);
    /* Make the rename itself durable. */
    char copy[PATH_MAX];
    snprintf(copy, sizeof(copy), "%s", out->target);
    int dfd = open(dirname(copy), O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return 0;
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
