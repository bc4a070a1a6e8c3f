/* memio.c - the in-memory files behind dumps() and loads().
 *
 * Sink: what CPython's Pickler writes to. A pickle that fits in one write
 * (anything up to one frame, i.e. most pickles) is returned as the very
 * bytes object the pickler produced, with no copy; larger ones are copied
 * once, into one growing bytes object.
 *
 * Reader: what CPython's Unpickler reads from. Its peek() hands over a
 * window of the remaining buffer (CPK_READ_WINDOW, or what was asked for
 * if more), so the unpickler reads from memory as pickle.loads() does
 * without holding on to the whole input, and read() returns memoryview
 * slices, so the "skip what was consumed" calls copy nothing; a payload
 * bigger than the window goes through readinto(), copied once into its
 * object. It also tells how many bytes were left unread (cloudpickle-load
 * refuses trailing data). A reader over a private read-only file mapping
 * (cpk_reader_new_mapped: cloudpickle-load's input) gives the pages it
 * has read back to the kernel as it goes (MADV_DONTNEED), so the input
 * is not resident next to what is loaded from it. Given the file too
 * (cpk_reader_new_mapped's fd), its readinto() of a window or more reads
 * the file with pread(2) straight into the object, the mapping untouched:
 * no page of the input is faulted in and copied out of user space, and
 * the object's pages are made present up front (MADV_POPULATE_WRITE), not
 * one fault each, as pickle.load's read(2) of a file is. A read that
 * comes short (the file shrank) is finished from the mapping, which then
 * fails as it always did (cloudpickle-load's SIGBUS guard).
 */
#include "core/memio.h"
#include "core/state.h"
#include "common/pycompat.h"
#include "common/pickle_ops.h" /* CPK_OP_PROTO */

#include <errno.h>
#include <structmember.h>
#include <sys/mman.h>
#include <unistd.h>

/* Sink -------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    PyObject *first; /* the only chunk so far (kept as is), or NULL */
    PyObject *acc;   /* growing bytes once a second chunk came, or NULL */
    Py_ssize_t size; /* bytes written */
    /* A user's file behind us (the Pickler(file) case): its write, which
     * each write goes on to, unless `hold` keeps them here until
     * cpk_sink_release. `passed` counts the writes that went on. */
    PyObject *target;
    int hold;
    Py_ssize_t passed;
    /* The format marker (format.h) the pickle opens with, once `need`
     * says it names a reconstructor of ours (cpk_sink_set_prefix): put
     * after the PROTO opcode (before the first frame) or first when the
     * pickle has none, by getvalue or on the way to the file. The bytes
     * are the module state's. */
    const char *prefix;
    Py_ssize_t prefix_len;
    int need;
} cpk_sink;

/* Room the accumulator keeps past a write that made it grow: what follows
 * a large buffer in a pickle (the end of its frame, the STOP) fits. */
#define CPK_SINK_SLACK 4096

/* Where the marker goes in a pickle starting with data[0, n): after
 * PROTO (2 bytes), so the pickle still opens with it. */
static Py_ssize_t
prefix_at(const char *data, Py_ssize_t n)
{
    return n >= 2 && (unsigned char)data[0] == CPK_OP_PROTO ? 2 : 0;
}

/* data[0, at) + prefix + data[at, n) as a new bytes object. */
static PyObject *
with_prefix(cpk_sink *self, const char *data, Py_ssize_t n)
{
    Py_ssize_t at = prefix_at(data, n);
    PyObject *out = PyBytes_FromStringAndSize(NULL, self->prefix_len + n);
    if (out == NULL)
        return NULL;
    char *o = PyBytes_AS_STRING(out);
    memcpy(o, data, (size_t)at);
    memcpy(o + at, self->prefix, (size_t)self->prefix_len);
    memcpy(o + at + self->prefix_len, data + at, (size_t)(n - at));
    return out;
}

/* Make room for `need` more bytes in the accumulator. The first block is
 * of the size needed (plus a little), not doubled: a pickle carrying one
 * large buffer (a 1 MB array, CPython writes it in one call) then takes
 * one block a little above its size, trimmed in place at the end. glibc
 * serves such a block from the heap again at the next dump of the same
 * size; a doubled block, twice the result, came from a fresh mmap at
 * every dump or made the heap trim itself, and touching its new pages
 * cost 10-25 ms per 1 MB dump on the development machine, against some
 * 0.1 ms. Later growth is by half again, so many writes stay linear (and
 * glibc moves big blocks with mremap). */
static int
sink_reserve(cpk_sink *self, Py_ssize_t need)
{
    Py_ssize_t cap = self->acc ? PyBytes_GET_SIZE(self->acc) : 0;
    if (self->size + need <= cap)
        return 0;
    if (self->size + need > PY_SSIZE_T_MAX - CPK_SINK_SLACK) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t want = self->size + need + CPK_SINK_SLACK;
    if (cap > 0 && cap <= PY_SSIZE_T_MAX / 3 * 2 && want < cap / 2 * 3)
        want = cap / 2 * 3;
    if (self->acc == NULL) {
        self->acc = PyBytes_FromStringAndSize(NULL, want);
        return self->acc ? 0 : -1;
    }
    return _PyBytes_Resize(&self->acc, want);
}

/* Keep data in memory: the first bytes object as is, anything after
 * copied once into the accumulator (a memoryview over the caller's
 * buffer must be copied now anyway). 0, or -1 with an exception. */
static int
sink_keep(cpk_sink *self, PyObject *data)
{
    Py_buffer b;
    if (self->first == NULL && self->acc == NULL &&
        PyBytes_CheckExact(data)) {
        /* Most pickles arrive in one write: keep that bytes object. */
        self->first = Py_NewRef(data);
        self->size = PyBytes_GET_SIZE(data);
        return 0;
    }
    if (PyObject_GetBuffer(data, &b, PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (self->first != NULL) {
        Py_ssize_t n = PyBytes_GET_SIZE(self->first);
        self->size = 0;
        if (sink_reserve(self, n + b.len) < 0) {
            PyBuffer_Release(&b);
            return -1;
        }
        memcpy(PyBytes_AS_STRING(self->acc), PyBytes_AS_STRING(self->first),
               (size_t)n);
        self->size = n;
        Py_CLEAR(self->first);
    }
    else if (sink_reserve(self, b.len) < 0) {
        PyBuffer_Release(&b);
        return -1;
    }
    memcpy(PyBytes_AS_STRING(self->acc) + self->size, b.buf, (size_t)b.len);
    self->size += b.len;
    PyBuffer_Release(&b);
    return 0;
}

/* Write what is kept (the marker put in by getvalue) on to the file. */
static int
sink_pass_kept(cpk_sink *self)
{
    PyObject *data = cpk_sink_getvalue((PyObject *)self);
    PyObject *w = data ? PyObject_CallOneArg(self->target, data) : NULL;
    Py_XDECREF(data);
    cpk_sink_reset((PyObject *)self);
    if (w == NULL)
        return -1;
    self->passed++;
    Py_DECREF(w);
    return 0;
}

static PyObject *
Sink_write(PyObject *op, PyObject *data)
{
    cpk_sink *self = (cpk_sink *)op;
    if (self->target != NULL && !self->hold && self->prefix != NULL) {
        /* Whether the pickle needs the marker is known once it names a
         * reconstructor of ours, or at the end of the dump
         * (cpk_sink_end_dump): until then its frames are kept here. */
        if (sink_keep(self, data) < 0)
            return NULL;
        if (self->need && sink_pass_kept(self) < 0)
            return NULL;
        Py_RETURN_NONE;
    }
    if (self->target != NULL && !self->hold) {
        PyObject *r = PyObject_CallOneArg(self->target, data);
        if (r == NULL)
            return NULL;
        self->passed++;
        return r;
    }
    if (sink_keep(self, data) < 0)
        return NULL;
    Py_RETURN_NONE; /* the pickler ignores what write() returns */
}

int
cpk_sink_end_dump(PyObject *op)
{
    cpk_sink *self = (cpk_sink *)op;
    if (self->target == NULL || self->hold || self->prefix == NULL)
        return 0;
    if (self->size == 0 && self->first == NULL) {
        self->prefix = NULL;
        return 0;
    }
    return sink_pass_kept(self);
}

PyObject *
cpk_sink_getvalue(PyObject *op)
{
    cpk_sink *self = (cpk_sink *)op;
    if (self->prefix != NULL && self->need) {
        /* One copy, of a pickle that names our reconstructors. */
        Py_ssize_t n = self->first ? PyBytes_GET_SIZE(self->first)
                                   : self->size;
        const char *from = self->first ? PyBytes_AS_STRING(self->first)
                         : self->acc   ? PyBytes_AS_STRING(self->acc)
                                       : "";
        PyObject *out = with_prefix(self, from, n);
        if (out == NULL)
            return NULL;
        Py_CLEAR(self->acc);
        Py_XSETREF(self->first, Py_NewRef(out));
        self->size = PyBytes_GET_SIZE(out);
        self->prefix = NULL;
        return out;
    }
    if (self->first != NULL)
        return Py_NewRef(self->first);
    if (self->acc == NULL)
        return PyBytes_FromStringAndSize(NULL, 0);
    /* Only we hold it: trimmed, then handed over. Within the slack, by
     * its length alone: reallocated smaller, a block from mmap is freed
     * below the size the next dump of the same size asks for, and glibc
     * then takes that one from a fresh mmap again (sink_reserve). The
     * bytes stay NUL-terminated, as bytes objects are. */
    if (PyBytes_GET_SIZE(self->acc) - self->size <= CPK_SINK_SLACK) {
        Py_SET_SIZE(self->acc, self->size);
        PyBytes_AS_STRING(self->acc)[self->size] = '\0';
    }
    else if (_PyBytes_Resize(&self->acc, self->size) < 0)
        return NULL;
    PyObject *out = self->acc;
    self->acc = NULL;
    self->first = Py_NewRef(out);
    return out;
}

void
cpk_sink_reset(PyObject *op)
{
    cpk_sink *self = (cpk_sink *)op;
    Py_CLEAR(self->first);
    Py_CLEAR(self->acc);
    self->size = 0;
    self->prefix = NULL;
    self->need = 0;
}

void
cpk_sink_set_prefix(PyObject *op, const char *prefix, Py_ssize_t len)
{
    cpk_sink *self = (cpk_sink *)op;
    if (self->target != NULL && !self->hold)
        cpk_sink_reset(op); /* what a failed dump kept was never written */
    self->prefix = prefix;
    self->prefix_len = len;
    self->need = 0;
}

void
cpk_sink_need_prefix(PyObject *op)
{
    ((cpk_sink *)op)->need = 1;
}

/* A passthrough sink (cpk_sink_wrap) for `file`: NULL with the TypeError
 * CPython's Pickler raises when it has no write. New reference. */
PyObject *
cpk_sink_wrap(cpk_state *st, PyObject *file)
{
    PyObject *write = PyObject_GetAttr(file, st->str_write);
    if (write == NULL) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();
            PyErr_SetString(PyExc_TypeError,
                            "file must have a 'write' attribute");
        }
        return NULL;
    }
    PyObject *sink = cpk_sink_new(st);
    if (sink == NULL) {
        Py_DECREF(write);
        return NULL;
    }
    ((cpk_sink *)sink)->target = write;
    return sink;
}

int
cpk_sink_is(cpk_state *st, PyObject *op)
{
    return Py_IS_TYPE(op, st->sink_type);
}

/* Writes that reached the user's file, or bytes kept in memory. */
Py_ssize_t
cpk_sink_written(PyObject *op)
{
    cpk_sink *self = (cpk_sink *)op;
    return self->target != NULL ? self->passed : self->size;
}

int
cpk_sink_passes(PyObject *op)
{
    return ((cpk_sink *)op)->target != NULL;
}

void
cpk_sink_hold(PyObject *op)
{
    cpk_sink *self = (cpk_sink *)op;
    const char *prefix = self->prefix; /* still to come first */
    cpk_sink_reset(op);
    self->prefix = prefix;
    self->hold = 1;
}

/* End of a hold: what was kept goes on to the file in one write when
 * `commit`, else is dropped. -1 with an exception if that write fails. */
int
cpk_sink_release(PyObject *op, int commit)
{
    cpk_sink *self = (cpk_sink *)op;
    int r = 0;
    self->hold = 0;
    if (commit && self->size > 0) {
        PyObject *data = cpk_sink_getvalue(op);
        PyObject *w = data ? PyObject_CallOneArg(self->target, data) : NULL;
        Py_XDECREF(data);
        if (w == NULL)
            r = -1;
        else {
            self->passed++;
            Py_DECREF(w);
        }
    }
    cpk_sink_reset(op);
    return r;
}

static int
Sink_traverse(PyObject *op, visitproc visit, void *arg)
{
    cpk_sink *self = (cpk_sink *)op;
    Py_VISIT(self->target);
    Py_VISIT(self->first);
    Py_VISIT(self->acc);
    Py_VISIT(Py_TYPE(op));
    return 0;
}

static void
Sink_dealloc(PyObject *op)
{
    cpk_sink *self = (cpk_sink *)op;
    PyTypeObject *tp = Py_TYPE(op);
    PyObject_GC_UnTrack(op);
    Py_CLEAR(self->target);
    Py_CLEAR(self->first);
    Py_CLEAR(self->acc);
    tp->tp_free(op);
    Py_DECREF(tp);
}

static PyMethodDef Sink_methods[] = {
    {"write", Sink_write, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot sink_slots[] = {
    {Py_tp_methods, Sink_methods},
    {Py_tp_traverse, Sink_traverse},
    {Py_tp_dealloc, Sink_dealloc},
    {0, NULL},
};

static PyType_Spec sink_spec = {
    .name = "ccloudpickle._Sink",
    .basicsize = sizeof(cpk_sink),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .slots = sink_slots,
};

PyObject *
cpk_sink_new(cpk_state *st)
{
    cpk_sink *self = PyObject_GC_New(cpk_sink, st->sink_type);
    if (self == NULL)
        return NULL;
    self->first = self->acc = self->target = NULL;
    self->size = self->passed = 0;
    self->hold = 0;
    self->prefix = NULL;
    self->prefix_len = 0;
    self->need = 0;
    PyObject_GC_Track(self);
    return (PyObject *)self;
}

/* Reader ------------------------------------------------------------------ */

/* What peek() hands over at most (unless asked for more), and the step of
 * readinto()'s copy: a window, not the whole input. */
#define CPK_READ_WINDOW ((Py_ssize_t)1 << 20)
/* The slices handed out that the unpickler may still hold: it keeps the
 * buffer of its last peek() or read() until the next one, and reads the
 * bytes it consumed from a peek (a slice from the same start) between. */
#define CPK_READ_HELD 3

typedef struct {
    PyObject_HEAD
    PyObject *data; /* bytes-like object given to loads() */
    PyObject *view; /* memoryview over data, sliced for read() */
    Py_ssize_t len;
    Py_ssize_t pos;
    /* A mapped reader (cpk_reader_new_mapped) releases the pages behind
     * what was read; never those of a slice the unpickler may hold. */
    int release;
    Py_ssize_t held_start[CPK_READ_HELD]; /* oldest first; -1: none */
    Py_ssize_t held_end[CPK_READ_HELD];
    Py_ssize_t done;    /* [0, done) was released */
    Py_ssize_t done_hi; /* [.., done_hi) past the held slices was too */
    /* A mapped reader's file, whose offset 0 is the view's first byte,
     * for readinto()'s pread (not ours to close); -1: none. */
    int fd;
} cpk_reader;

/* A slice [start, end) goes to the unpickler, which may keep it. */
static void
note_held(cpk_reader *self, Py_ssize_t start, Py_ssize_t end)
{
    if (!self->release)
        return;
    for (int i = 0; i + 1 < CPK_READ_HELD; i++) {
        self->held_start[i] = self->held_start[i + 1];
        self->held_end[i] = self->held_end[i + 1];
    }
    self->held_start[CPK_READ_HELD - 1] = start;
    self->held_end[CPK_READ_HELD - 1] = end;
}

/* A mapped reader: give back the whole pages behind `pos` that no held
 * slice covers, those before the oldest held slice and those after the
 * last one (what readinto() copied out). The mapping is private, read
 * only and unwritten: a page touched again is read from the file again. */
static void
release_behind(cpk_reader *self)
{
#ifdef MADV_DONTNEED
    if (!self->release)
        return;
    Py_ssize_t page = (Py_ssize_t)sysconf(_SC_PAGESIZE);
    if (page <= 0)
        return;
    char *base = PyMemoryView_GET_BUFFER(self->view)->buf;
    Py_ssize_t lo = self->pos, hi = 0;
    for (int i = 0; i < CPK_READ_HELD; i++) {
        if (self->held_start[i] < 0)
            continue;
        if (self->held_start[i] < lo)
            lo = self->held_start[i];
        if (self->held_end[i] > hi)
            hi = self->held_end[i];
    }
    Py_ssize_t to = lo / page * page;
    if (to > self->done) {
        (void)madvise(base + self->done, (size_t)(to - self->done),
                      MADV_DONTNEED);
        self->done = to;
    }
    Py_ssize_t from = (hi + page - 1) / page * page;
    if (from < self->done)
        from = self->done;
    if (from < self->done_hi)
        from = self->done_hi;
    to = self->pos / page * page;
    if (to > from) {
        (void)madvise(base + from, (size_t)(to - from), MADV_DONTNEED);
        self->done_hi = to;
    }
#else
    (void)self;
#endif
}

static PyObject *
slice(cpk_reader *self, Py_ssize_t start, Py_ssize_t end)
{
    if (start == 0 && end == self->len && PyBytes_CheckExact(self->data))
        return Py_NewRef(self->data);
    PyObject *r = PySequence_GetSlice(self->view, start, end);
    if (r != NULL)
        note_held(self, start, end);
    return r;
}

static Py_ssize_t
size_arg(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t dflt)
{
    if (nargs < 1 || args[0] == Py_None)
        return dflt;
    return PyLong_AsSsize_t(args[0]);
}

static PyObject *
Reader_peek(PyObject *op, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_reader *self = (cpk_reader *)op;
    Py_ssize_t n = size_arg(args, nargs, 0);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t left = self->len - self->pos;
    if (n < CPK_READ_WINDOW)
        n = CPK_READ_WINDOW;
    if (n > left)
        n = left;
    PyObject *r = slice(self, self->pos, self->pos + n);
    release_behind(self);
    return r;
}

static PyObject *
Reader_read(PyObject *op, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_reader *self = (cpk_reader *)op;
    Py_ssize_t left = self->len - self->pos;
    Py_ssize_t n = size_arg(args, nargs, -1);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    if (n < 0 || n > left)
        n = left;
    PyObject *r = slice(self, self->pos, self->pos + n);
    if (r != NULL) {
        self->pos += n;
        release_behind(self);
    }
    return r;
}

/* What readinto() reads of the file (a mapped reader's fd) between two
 * populations of the destination's pages. */
#define CPK_PREAD_STEP ((Py_ssize_t)64 << 20)

/* A mapped reader with its file: read [pos, pos + n) of the file into
 * dst with pread(2), advancing pos and releasing the mapped pages behind.
 * Returns how many bytes were read: fewer than n only when the file gave
 * no more (it shrank) or failed, for the caller to take the rest from the
 * mapping as any other read does. */
static Py_ssize_t
pread_into(cpk_reader *self, char *dst, Py_ssize_t n)
{
    int fd = self->fd;
    Py_ssize_t off = 0;
    int more = 1;
    while (more && off < n) {
        Py_ssize_t step = n - off;
        if (step > CPK_PREAD_STEP)
            step = CPK_PREAD_STEP;
        Py_ssize_t got = 0;
        Py_BEGIN_ALLOW_THREADS
#ifdef MADV_POPULATE_WRITE
        /* The whole pages of the step, present at once: the read writes
         * every byte of them anyway, and a fault per page costs more than
         * the copy. Best effort (an old kernel says EINVAL). */
        long page = sysconf(_SC_PAGESIZE);
        if (page > 0) {
            uintptr_t a = (uintptr_t)(dst + off);
            uintptr_t lo = (a + (uintptr_t)page - 1) / (uintptr_t)page *
                           (uintptr_t)page;
            uintptr_t hi = (a + (uintptr_t)step) / (uintptr_t)page *
                           (uintptr_t)page;
            if (hi > lo)
                (void)madvise((void *)lo, (size_t)(hi - lo),
                              MADV_POPULATE_WRITE);
        }
#endif
        while (got < step) {
            ssize_t r = pread(fd, dst + off + got, (size_t)(step - got),
                              (off_t)(self->pos + got));
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                more = 0;
                break;
            }
            got += (Py_ssize_t)r;
        }
        Py_END_ALLOW_THREADS
        self->pos += got;
        off += got;
        release_behind(self);
    }
    return off;
}

static PyObject *
Reader_readinto(PyObject *op, PyObject *buf)
{
    cpk_reader *self = (cpk_reader *)op;
    Py_buffer dst;
    if (PyObject_GetBuffer(buf, &dst, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    const char *src = PyMemoryView_GET_BUFFER(self->view)->buf;
    Py_ssize_t n = self->len - self->pos;
    if (n > dst.len)
        n = dst.len;
    Py_ssize_t off = 0;
    /* A payload of a window or more: from the file itself. */
    if (self->fd >= 0 && n >= CPK_READ_WINDOW)
        off = pread_into(self, dst.buf, n);
    /* A window at a time, giving back what was copied (mapped input). */
    while (off < n) {
        Py_ssize_t step = n - off;
        if (step > CPK_READ_WINDOW)
            step = CPK_READ_WINDOW;
        memcpy((char *)dst.buf + off, src + self->pos, (size_t)step);
        self->pos += step;
        off += step;
        release_behind(self);
    }
    PyBuffer_Release(&dst);
    return PyLong_FromSsize_t(n);
}

static PyObject *
Reader_readline(PyObject *op, PyObject *const *args, Py_ssize_t nargs)
{
    cpk_reader *self = (cpk_reader *)op;
    (void)args;
    (void)nargs;
    const char *src = PyMemoryView_GET_BUFFER(self->view)->buf;
    const char *nl = memchr(src + self->pos, '\n',
                            (size_t)(self->len - self->pos));
    Py_ssize_t end = nl ? (Py_ssize_t)(nl - src) + 1 : self->len;
    PyObject *r = slice(self, self->pos, end);
    if (r != NULL) {
        self->pos = end;
        release_behind(self);
    }
    return r;
}

Py_ssize_t
cpk_reader_remaining(PyObject *op)
{
    cpk_reader *self = (cpk_reader *)op;
    return self->len - self->pos;
}

static int
Reader_traverse(PyObject *op, visitproc visit, void *arg)
{
    cpk_reader *self = (cpk_reader *)op;
    Py_VISIT(self->data);
    Py_VISIT(self->view);
    Py_VISIT(Py_TYPE(op));
    return 0;
}

static void
Reader_dealloc(PyObject *op)
{
    cpk_reader *self = (cpk_reader *)op;
    PyTypeObject *tp = Py_TYPE(op);
    PyObject_GC_UnTrack(op);
    Py_CLEAR(self->view);
    Py_CLEAR(self->data);
    tp->tp_free(op);
    Py_DECREF(tp);
}

static PyMethodDef Reader_methods[] = {
    {"peek", (PyCFunction)(void (*)(void))Reader_peek, METH_FASTCALL, NULL},
    {"read", (PyCFunction)(void (*)(void))Reader_read, METH_FASTCALL, NULL},
    {"readinto", Reader_readinto, METH_O, NULL},
    {"readline", (PyCFunction)(void (*)(void))Reader_readline, METH_FASTCALL,
     NULL},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot reader_slots[] = {
    {Py_tp_methods, Reader_methods},
    {Py_tp_traverse, Reader_traverse},
    {Py_tp_dealloc, Reader_dealloc},
    {0, NULL},
};

static PyType_Spec reader_spec = {
    .name = "ccloudpickle._Reader",
    .basicsize = sizeof(cpk_reader),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .slots = reader_slots,
};

PyObject *
cpk_reader_new(cpk_state *st, PyObject *data)
{
    PyObject *view = PyMemoryView_FromObject(data);
    if (view == NULL)
        return NULL;
    Py_buffer *b = PyMemoryView_GET_BUFFER(view);
    if (!PyBuffer_IsContiguous(b, 'C')) {
        Py_DECREF(view);
        PyErr_SetString(PyExc_BufferError, "pickle data must be contiguous");
        return NULL;
    }
    /* Slices index bytes, whatever the item size of the exporter. */
    if (b->itemsize != 1 || b->ndim != 1) {
        PyObject *flat = PyObject_CallMethod(view, "cast", "s", "B");
        Py_DECREF(view);
        if (flat == NULL)
            return NULL;
        view = flat;
        b = PyMemoryView_GET_BUFFER(view);
    }
    cpk_reader *self = PyObject_GC_New(cpk_reader, st->reader_type);
    if (self == NULL) {
        Py_DECREF(view);
        return NULL;
    }
    self->data = Py_NewRef(data);
    self->view = view;
    self->len = b->len;
    self->pos = 0;
    self->release = 0;
    for (int i = 0; i < CPK_READ_HELD; i++)
        self->held_start[i] = self->held_end[i] = -1;
    self->done = self->done_hi = 0;
    self->fd = -1;
    PyObject_GC_Track(self);
    return (PyObject *)self;
}

PyObject *
cpk_reader_new_mapped(cpk_state *st, PyObject *view, int fd)
{
    PyObject *r = cpk_reader_new(st, view);
    if (r != NULL) {
        cpk_reader *self = (cpk_reader *)r;
        /* Only over the very buffer the caller mapped: a cast or a copy
         * would make the released range someone else's memory. */
        self->release =
            PyMemoryView_Check(view) &&
            PyMemoryView_GET_BUFFER(self->view)->buf ==
                PyMemoryView_GET_BUFFER(view)->buf;
        if (self->release)
            self->fd = fd;
    }
    return r;
}

int
cpk_memio_init_types(PyObject *module, cpk_state *st)
{
    st->sink_type = (PyTypeObject *)PyType_FromModuleAndSpec(module,
                                                             &sink_spec, NULL);
    if (st->sink_type == NULL)
        return -1;
    st->reader_type = (PyTypeObject *)PyType_FromModuleAndSpec(
        module, &reader_spec, NULL);
    return st->reader_type == NULL ? -1 : 0;
}
