/* pool.c - --map's worker processes (pool.h). */
#include "map/pool.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/bytebuf.h" /* the frames to and from a worker */
#include "common/host.h"
#include "common/message.h"
#include "common/output.h"
#include "common/pyerr.h" /* cpk_error_clearable */
#include "map/mapwork.h" /* cpk_mapwork_batch, cpk_results */
#include "map/records.h" /* cpk_batch, cpk_records */

#define MAX_INFLIGHT 2                  /* batches per worker */
#define BATCH_BYTES ((size_t)256 << 10) /* of records, at most */
#define BATCH_MAX 4096                  /* records, at most */
#define BATCH_NS 10000000.0             /* the work a batch should hold */
#define FRAME_NS 100000000LL            /* slow records: results this often */

/* Frames on the pipes, in host byte order (both ends are this binary).
 * Batch: first, n, data bytes; n record lengths; n record numbers; the
 * data. Results: first (the index in its batch of its first result), n,
 * out bytes, err bytes, ns of work, more; n cpk_rec_result; out; err. A
 * batch's results come in one frame or, when its records turn slow, in
 * several (more = 1 on all but the last), in order. */
typedef struct {
    uint64_t first, n, len;
} batch_head;

typedef struct {
    uint64_t first, n, out, err, ns, more;
} result_head;

typedef struct {
    pid_t pid;
    int to;           /* batches go here (non-blocking) */
    int from;         /* results come from here (non-blocking) */
    int pidfd;        /* readable once it exited; -1: none (swept) */
    cpk_bytebuf wbuf; /* frame bytes not yet written, from wpos */
    size_t wpos;
    cpk_bytebuf rbuf; /* result bytes received and not yet parsed */
    uint64_t fifo[MAX_INFLIGHT]; /* batches in flight, oldest first */
    int nq;
    int dead;
    char why[160];    /* how it died */
} worker;

typedef struct {
    int used, ready, lost;
    int worker;
    uint64_t first, count, end;
    uint64_t *num;    /* the batch's record numbers (count of them) */
    uint64_t got;     /* results received (frames so far) */
    uint64_t emitted; /* of them, handed to the sink */
    cpk_results res;  /* received and not yet emitted */
} slot;

/* ---- the worker process ---- */

/* Read exactly n bytes: 1, 0 at the end of input before any, -1 error. */
static int
read_full(int fd, void *p, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)p + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r == 0 && got == 0 ? 0 : -1;
        got += (size_t)r;
    }
    return 1;
}

static int
write_full(int fd, const void *p, size_t n)
{
    size_t put = 0;
    while (put < n) {
        ssize_t r = write(fd, (const char *)p + put, n - put);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        put += (size_t)r;
    }
    return 0;
}

/* What the function printed (sys.stdout is standard error here). */
static void
flush_python(void)
{
    static const char *const names[] = {"stdout", "stderr"};
    for (int i = 0; i < 2; i++) {
        PyObject *f = PySys_GetObject(names[i]); /* borrowed */
        if (f == NULL || f == Py_None)
            continue;
        Py_INCREF(f);
        PyObject *r = PyObject_CallMethod(f, "flush", NULL);
        Py_XDECREF(r);
        Py_DECREF(f);
        /* A failed flush is the stream's (a closed stderr); what must
         * propagate (KeyboardInterrupt) stays set for the caller. */
        if (r == NULL && cpk_error_clearable())
            PyErr_Clear();
        if (PyErr_Occurred())
            return;
    }
}

/* A process the function forked without exec, that returned into the
 * worker's loop, must not speak on the worker's pipes nor take its
 * batches: it stops after the record it returned from (mapwork.c reads
 * the flag, set by a fork handler at no cost per record) and leaves
 * with the status python3 would give it (mapwork.c's copy_status; its
 * parent, the worker, goes on). */
static volatile int forked_copy;

static void
on_fork_in_worker(void)
{
    forked_copy = 1;
}

static void
leave_if_forked(const cpk_mapwork *w, pid_t self)
{
    if (forked_copy || getpid() != self) {
        cpk_coverage_flush();
        _exit(w->copy_status);
    }
}

/* Run batch b and send its results: one frame, or one per FRAME_NS of
 * work when its records are slow. 0, or an exit status for the worker. */
static int
answer_batch(int out, cpk_mapwork *w, const cpk_batch *b, cpk_results *res,
             cpk_bytebuf *frame, pid_t self)
{
    for (size_t from = 0; from < b->n;) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        int rc = cpk_mapwork_batch(w, b, from, FRAME_NS, res);
        leave_if_forked(w, self);
        if (rc < 0) {
            /* Nothing the run could report per record (MemoryError): say
             * it in one line and die; the program reports the worker's
             * death with its records. Never PyErr_Print, which would shut
             * Python down here on SystemExit (running the program's
             * atexit handlers in a copy of it). */
            if (!PyErr_ExceptionMatches(PyExc_KeyboardInterrupt)) {
                char *line = cpk_host_exception_line();
                cpk_error("worker %ld: %s", (long)getpid(),
                          line ? line : "error");
                free(line);
            }
            PyErr_Clear();
            return CPK_EXIT_RAISED;
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        flush_python();
        PyErr_Clear(); /* a worker has no one to tell: the records go on */
        result_head rh = {
            .first = from,
            .n = res->n,
            .out = res->out.len,
            .err = res->err.len,
            .ns = (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000LL +
                             (t1.tv_nsec - t0.tv_nsec)),
        };
        from += res->n;
        int stopped = res->n == 0 ||
                      cpk_rec_stops(&res->rec[res->n - 1], w->keep_going);
        rh.more = !stopped && from < b->n;
        frame->len = 0;
        size_t recs = res->n * sizeof(*res->rec);
        int bad = cpk_bytebuf_put(frame, &rh, sizeof(rh)) < 0 ||
                  cpk_bytebuf_put(frame, res->rec, recs) < 0 ||
                  cpk_bytebuf_put(frame, res->out.data, res->out.len) < 0 ||
                  cpk_bytebuf_put(frame, res->err.data, res->err.len) < 0;
        Py_BEGIN_ALLOW_THREADS
        bad = bad || write_full(out, frame->data, frame->len) < 0;
        Py_END_ALLOW_THREADS
        if (bad)
            return CPK_EXIT_SYSTEM;
        if (!rh.more)
            return 0;
    }
    return 0;
}

static _Noreturn void
worker_main(int in, int out, cpk_mapwork *w, pid_t parent)
{
    signal(SIGINT, SIG_IGN); /* the program stops us */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) {
        cpk_coverage_flush();
        _exit(CPK_EXIT_SYSTEM);
    }
    pid_t self = getpid();
    pthread_atfork(NULL, NULL, on_fork_in_worker);
    w->abandon = &forked_copy;
    cpk_batch b = {0};
    cpk_results res = {0};
    cpk_bytebuf frame = {0};
    int status = 0;
    for (;;) {
        batch_head h;
        int r;
        /* Threads the function started run while this one waits. */
        Py_BEGIN_ALLOW_THREADS
        r = read_full(in, &h, sizeof(h));
        Py_END_ALLOW_THREADS
        if (r == 0)
            break;
        if (r < 0 || h.n > BATCH_MAX || h.len > ((size_t)1 << 40)) {
            status = CPK_EXIT_SYSTEM;
            break;
        }
        cpk_batch_reset(&b, h.first);
        size_t *lens = malloc(h.n * sizeof(size_t) + 1);
        uint64_t *nums = malloc(h.n * sizeof(uint64_t) + 1);
        char *data = malloc(h.len + 1);
        int bad = lens == NULL || nums == NULL || data == NULL;
        Py_BEGIN_ALLOW_THREADS
        bad = bad || read_full(in, lens, h.n * sizeof(size_t)) < 0 ||
              read_full(in, nums, h.n * sizeof(uint64_t)) < 0 ||
              (h.len > 0 && read_full(in, data, h.len) <= 0);
        Py_END_ALLOW_THREADS
        if (bad) {
            free(lens);
            free(nums);
            free(data);
            status = CPK_EXIT_SYSTEM;
            break;
        }
        size_t at = 0;
        for (uint64_t i = 0; i < h.n && status == 0; i++) {
            if (lens[i] > h.len - at ||
                cpk_batch_add_num(&b, data + at, lens[i], nums[i]) < 0)
                status = CPK_EXIT_SYSTEM;
            at += lens[i];
        }
        free(lens);
        free(nums);
        free(data);
        if (status != 0)
            break;
        status = answer_batch(out, w, &b, &res, &frame, self);
        if (status != 0)
            break;
    }
    flush_python();
    PyErr_Clear();
    cpk_batch_free(&b);
    cpk_results_free(&res);
    cpk_bytebuf_release(&frame);
    cpk_coverage_flush();
    _exit(status);
}

/* ---- the program's side ---- */

typedef struct {
    int jobs;
    worker *wk;
    int nslots;
    slot *slots;
    uint64_t next_send, next_emit;
    double ns_per_record; /* measured, 0 until the first result */
    int stopping;         /* the workers' ends are ours now */
    int died;             /* 1 + a worker that died holding no records */
    uint64_t died_at;     /* ... reported once the results before are */
    int wake[2];          /* Python's signal wakeup pipe, while we poll */
    int old_wake;         /* the wakeup fd before ours ... */
    int wake_set;         /* ... given back once the run is over */
    int keep_going;
    /* The poll set, here rather than in locals so that a worker (a fork
     * of this frame, which never returns) still holds it. */
    struct pollfd *pf;
    int *who;        /* pf -> worker */
} pool;

/* signal.set_wakeup_fd(fd): the previous fd, or -1. (The C API's
 * PySignal_SetWakeupFd is exported by libpython only from 3.13.) A
 * failure only costs the wakeup: signals are still checked each pass. */
static int
set_wakeup_fd(int fd)
{
    PyObject *sig = PyImport_ImportModule("signal");
    PyObject *r = sig ? PyObject_CallMethod(sig, "set_wakeup_fd", "i", fd)
                      : NULL;
    Py_XDECREF(sig);
    long old = r && PyLong_Check(r) ? PyLong_AsLong(r) : -1;
    Py_XDECREF(r);
    if (PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_Exception))
            return -2; /* KeyboardInterrupt: the loop sees it next */
        PyErr_Clear();
    }
    return (int)old;
}

static int
set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static void
describe_death(worker *k, int wstatus)
{
    if (WIFSIGNALED(wstatus))
        snprintf(k->why, sizeof(k->why), "was killed by signal %d (%s)",
                 WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
    else if (WIFEXITED(wstatus))
        snprintf(k->why, sizeof(k->why), "exited with status %d",
                 WEXITSTATUS(wstatus));
    else
        snprintf(k->why, sizeof(k->why), "stopped");
}

/* The worker is gone (its pipe closed): reap it, note how it died, and
 * mark what it held as lost. */
static void
worker_lost(pool *p, int i)
{
    worker *k = &p->wk[i];
    if (k->dead)
        return;
    k->dead = 1;
    close(k->to);
    close(k->from);
    if (k->pidfd >= 0)
        close(k->pidfd);
    k->to = k->from = k->pidfd = -1;
    int ws = 0;
    pid_t r = waitpid(k->pid, &ws, WNOHANG);
    if (r == 0) { /* its pipe closed, it still runs: it is no worker now */
        kill(k->pid, SIGKILL);
        do
            r = waitpid(k->pid, &ws, 0);
        while (r < 0 && errno == EINTR);
    }
    if (r == k->pid)
        describe_death(k, ws);
    else
        snprintf(k->why, sizeof(k->why), "was lost");
    for (int q = 0; q < k->nq; q++)
        p->slots[k->fifo[q] % (uint64_t)p->nslots].lost = 1;
    if (k->nq == 0 && !p->stopping && !p->died) {
        p->died = i + 1;
        p->died_at = p->next_send;
    }
    k->nq = 0;
}

static void
stop_all(pool *p, int gently)
{
    p->stopping = 1;
    for (int i = 0; i < p->jobs; i++) {
        worker *k = &p->wk[i];
        if (k->dead || k->pid <= 0)
            continue;
        if (!gently)
            kill(k->pid, SIGKILL);
        close(k->to);
        k->to = -1;
    }
    for (int i = 0; i < p->jobs; i++) {
        worker *k = &p->wk[i];
        if (k->dead || k->pid <= 0)
            continue;
        pid_t r;
        int ws;
        Py_BEGIN_ALLOW_THREADS
        do
            r = waitpid(k->pid, &ws, 0);
        while (r < 0 && errno == EINTR);
        Py_END_ALLOW_THREADS
        close(k->from);
        k->from = -1;
        if (k->pidfd >= 0)
            close(k->pidfd);
        k->pidfd = -1;
        k->dead = 1;
    }
}

/* A descriptor that polls readable when process pid exits (pidfd_open,
 * Linux 5.3), or -1: then the pool sweeps with waitid() instead. */
static int
open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    return -1;
#endif
}

/* 1 if worker k has exited (not reaped: worker_lost does that). */
static int
has_exited(const worker *k)
{
    siginfo_t si;
    si.si_pid = 0;
    return waitid(P_PID, (id_t)k->pid, &si, WEXITED | WNOHANG | WNOWAIT) ==
               0 &&
           si.si_pid == k->pid;
}

static void pull(pool *p, int i);

/* Worker i has exited: what it sent before is in its pipe, taken without
 * waiting for the pipe to close (a process it forked may hold it open
 * for as long as it lives), then the death is noted. */
static void
exited(pool *p, int i)
{
    pull(p, i);
    worker_lost(p, i);
}

static int
start_workers(pool *p, cpk_mapwork *w, const int *close_fds, int nclose)
{
    pid_t parent = getpid();
    for (int i = 0; i < p->jobs; i++) {
        int down[2], up[2];
        if (pipe2(down, O_CLOEXEC) < 0)
            return -1;
        if (pipe2(up, O_CLOEXEC) < 0) {
            close(down[0]);
            close(down[1]);
            return -1;
        }
        /* What Python buffered would be printed again by each copy. */
        flush_python();
        if (PyErr_Occurred()) {
            close(down[0]);
            close(down[1]);
            close(up[0]);
            close(up[1]);
            return -1;
        }
        fflush(NULL);
        PyOS_BeforeFork();
        pid_t pid = fork();
        if (pid == 0) {
            PyOS_AfterFork_Child();
            cpk_output_forget_in_child();
            (void)set_wakeup_fd(-1);
            PyErr_Clear();
            if (p->wake[0] >= 0) {
                close(p->wake[0]);
                close(p->wake[1]);
            }
            close(down[1]);
            close(up[0]);
            for (int j = 0; j < i; j++) {
                close(p->wk[j].to);
                close(p->wk[j].from);
                if (p->wk[j].pidfd >= 0)
                    close(p->wk[j].pidfd);
            }
            for (int j = 0; j < nclose; j++)
                if (close_fds[j] > 2)
                    close(close_fds[j]);
            worker_main(down[0], up[1], w, parent);
        }
        int err = errno;
        PyOS_AfterFork_Parent();
        close(down[0]);
        close(up[1]);
        if (pid < 0) {
            close(down[1]);
            close(up[0]);
            errno = err;
            return -1;
        }
        worker *k = &p->wk[i];
        k->pid = pid;
        k->to = down[1];
        k->from = up[0];
        k->pidfd = open_pidfd(pid);
        if (set_nonblock(k->to) < 0 || set_nonblock(k->from) < 0)
            return -1;
    }
    return 0;
}

/* Write what the worker's frame buffer holds, as far as the pipe takes
 * it. A closed pipe: the worker died (its read side says how). */
static void
push(pool *p, int i)
{
    worker *k = &p->wk[i];
    while (!k->dead && k->wpos < k->wbuf.len) {
        ssize_t r = write(k->to, k->wbuf.data + k->wpos,
                          k->wbuf.len - k->wpos);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            if (errno != EAGAIN)
                worker_lost(p, i);
            return;
        }
        k->wpos += (size_t)r;
    }
    if (k->wpos == k->wbuf.len)
        k->wbuf.len = k->wpos = 0;
}

/* The worker with room for a batch and the fewest in flight, or -1. */
static int
pick(const pool *p)
{
    int best = -1;
    for (int i = 0; i < p->jobs; i++) {
        const worker *k = &p->wk[i];
        if (!k->dead && k->nq < MAX_INFLIGHT &&
            (best < 0 || k->nq < p->wk[best].nq))
            best = i;
    }
    return best;
}

/* Send the batch to worker i: 0, or -1 out of memory. */
static int
send_batch(pool *p, int i, const cpk_batch *b)
{
    worker *k = &p->wk[i];
    batch_head h = {b->first, b->n, b->data.len};
    slot *s = &p->slots[p->next_send % (uint64_t)p->nslots];
    uint64_t *num = realloc(s->num, (b->n ? b->n : 1) * sizeof(*num));
    if (num == NULL)
        return -1;
    s->num = num;
    memcpy(num, b->num, b->n * sizeof(*num));
    if (cpk_bytebuf_put(&k->wbuf, &h, sizeof(h)) < 0 ||
        cpk_bytebuf_put(&k->wbuf, b->len, b->n * sizeof(size_t)) < 0 ||
        cpk_bytebuf_put(&k->wbuf, b->num, b->n * sizeof(uint64_t)) < 0 ||
        cpk_bytebuf_put(&k->wbuf, b->data.data, b->data.len) < 0)
        return -1;
    uint64_t seq = p->next_send++;
    s->used = 1;
    s->ready = s->lost = 0;
    s->got = s->emitted = 0;
    cpk_results_reset(&s->res, b->first);
    s->worker = i;
    s->first = b->first;
    s->count = b->n;
    s->end = b->end;
    k->fifo[k->nq++] = seq;
    push(p, i);
    return 0;
}

/* Worker i sent what is no frame of ours: it is killed, and what it held
 * is lost (reported with its records). */
static void
malformed(pool *p, int i)
{
    worker *k = &p->wk[i];
    kill(k->pid, SIGKILL);
    worker_lost(p, i);
    snprintf(k->why, sizeof(k->why), "sent malformed results");
}

/* Parse the complete result frames worker i sent into their slots. */
static void
take_results(pool *p, int i)
{
    worker *k = &p->wk[i];
    size_t at = 0;
    while (k->rbuf.len - at >= sizeof(result_head)) {
        result_head h;
        memcpy(&h, k->rbuf.data + at, sizeof(h));
        /* The worker runs the function, which may write anything to this
         * pipe: every field is checked before it is added or used, and a
         * frame that fails a check ends the worker, none of it kept. */
        slot *s = k->nq > 0 ? &p->slots[k->fifo[0] % (uint64_t)p->nslots]
                            : NULL;
        uint64_t count = s ? s->count - s->got : 0;
        if (s == NULL || h.first != s->got || h.n > count ||
            h.more > 1 || (h.more && (h.n == 0 || h.n == count)) ||
            h.out > ((uint64_t)1 << 40) || h.err > ((uint64_t)1 << 40)) {
            malformed(p, i);
            return;
        }
        size_t need = sizeof(h) + (size_t)h.n * sizeof(cpk_rec_result) +
                      (size_t)h.out + (size_t)h.err;
        if (k->rbuf.len - at < need)
            break;
        const char *q = k->rbuf.data + at + sizeof(h);
        const cpk_rec_result *rec = (const cpk_rec_result *)(const void *)q;
        const char *out = q + h.n * sizeof(cpk_rec_result);
        const char *err = out + h.out;
        size_t before_n = s->res.n, before_out = s->res.out.len,
               before_err = s->res.err.len;
        size_t oa = 0, ea = 0;
        int bad = 0;
        for (uint64_t j = 0; j < h.n && !bad; j++) {
            cpk_rec_result r;
            memcpy(&r, rec + j, sizeof(r));
            bad = r.kind > CPK_REC_EXIT || r.out_len > h.out - oa ||
                  r.err_len > h.err - ea ||
                  cpk_results_add(&s->res, (cpk_rec_kind)r.kind, r.status,
                                  out + oa, r.out_len, err + ea,
                                  r.err_len) < 0;
            oa += r.out_len;
            ea += r.err_len;
        }
        /* Fewer results than records only after one that stops the
         * run (mapwork.h). */
        if (!bad && !h.more && h.n < count &&
            (h.n == 0 ||
             !cpk_rec_stops(&s->res.rec[s->res.n - 1], p->keep_going)))
            bad = 1;
        if (bad) {
            s->res.n = before_n;
            s->res.out.len = before_out;
            s->res.err.len = before_err;
            malformed(p, i);
            return;
        }
        s->got += h.n;
        if (!h.more) {
            memmove(k->fifo, k->fifo + 1,
                    (size_t)(k->nq - 1) * sizeof(*k->fifo));
            k->nq--;
            s->ready = 1;
        }
        if (h.n > 0) {
            double per = (double)h.ns / (double)h.n;
            p->ns_per_record = p->ns_per_record == 0
                                   ? per
                                   : 0.7 * p->ns_per_record + 0.3 * per;
        }
        at += need;
    }
    if (at > 0) {
        memmove(k->rbuf.data, k->rbuf.data + at, k->rbuf.len - at);
        k->rbuf.len -= at;
    }
}

/* Read what worker i sent; its closed pipe means it died. */
static void
pull(pool *p, int i)
{
    worker *k = &p->wk[i];
    char buf[65536];
    for (;;) {
        ssize_t r = read(k->from, buf, sizeof(buf));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && errno == EAGAIN)
            break;
        if (r <= 0) {
            take_results(p, i);
            worker_lost(p, i);
            return;
        }
        if (cpk_bytebuf_put(&k->rbuf, buf, (size_t)r) < 0) {
            kill(k->pid, SIGKILL);
            worker_lost(p, i);
            snprintf(k->why, sizeof(k->why), "sent more than fits in "
                     "memory");
            return;
        }
    }
    take_results(p, i);
}

static size_t
batch_target(const pool *p)
{
    /* Unmeasured: one record a batch, so that a few costly records
     * already spread over the workers. */
    if (p->ns_per_record <= 0)
        return 1;
    double n = BATCH_NS / p->ns_per_record;
    return n < 1 ? 1 : n > BATCH_MAX ? BATCH_MAX : (size_t)n;
}

/* 1 if fd has input to read now. */
static int
ready_now(int fd)
{
    struct pollfd pf = {.fd = fd, .events = POLLIN};
    return poll(&pf, 1, 0) > 0;
}

/* A phase's return while the run goes on (no CPK_RUN_* value). */
#define RUN_GOES_ON (-2)

/* The input side of cpk_pool_run's loop. */
typedef struct {
    cpk_records *rd;
    cpk_batch cur;   /* the batch being filled */
    int input_done;  /* the reader said its last ... */
    int rerr;        /* ... and why, if not the end: CPK_READ_* or -1 */
    int *read_errno;
} feed;

/* The pool's memory, the signal wakeup pipe and the workers:
 * RUN_GOES_ON, or how the run ends. */
static int
start_pool(pool *p, cpk_mapwork *w, const cpk_sink *sink,
           const int *close_fds, int nclose)
{
    int jobs = p->jobs;
    p->wk = calloc((size_t)jobs, sizeof(*p->wk));
    p->nslots = jobs * MAX_INFLIGHT;
    p->slots = calloc((size_t)p->nslots, sizeof(*p->slots));
    p->pf = calloc(3 * (size_t)jobs + 2, sizeof(*p->pf));
    p->who = calloc(3 * (size_t)jobs + 2, sizeof(*p->who));
    if (p->wk == NULL || p->slots == NULL || p->pf == NULL ||
        p->who == NULL) {
        PyErr_NoMemory();
        return CPK_RUN_ERROR;
    }
    for (int i = 0; i < jobs; i++)
        p->wk[i].to = p->wk[i].from = p->wk[i].pidfd = -1;
    int f = sink->flush(sink->ctx);
    if (f != 0)
        return f < 0 ? CPK_RUN_ERROR : CPK_RUN_STOPPED;
    /* A signal that arrives just before poll() would wait for the next
     * event: Python's handler also writes to this pipe, which poll()
     * watches (signal.set_wakeup_fd). */
    if (pipe2(p->wake, O_CLOEXEC | O_NONBLOCK) < 0) {
        PyErr_SetFromErrno(PyExc_OSError);
        return CPK_RUN_ERROR;
    }
    p->old_wake = set_wakeup_fd(p->wake[1]);
    if (p->old_wake == -2)
        return CPK_RUN_ERROR;
    p->wake_set = 1;
    if (start_workers(p, w, close_fds, nclose) < 0) {
        if (!PyErr_Occurred())
            PyErr_SetFromErrno(PyExc_OSError);
        return CPK_RUN_ERROR;
    }
    return RUN_GOES_ON;
}

/* Results, in input order, up to a worker's death between batches:
 * reported once the results before it are out. RUN_GOES_ON, or how the
 * run ends. */
static int
emit_ready(pool *p, const cpk_sink *sink)
{
    while (p->next_emit < p->next_send &&
           !(p->died && p->next_emit == p->died_at)) {
        slot *s = &p->slots[p->next_emit % (uint64_t)p->nslots];
        /* What arrived of the oldest batch goes out as it arrives. */
        if (s->res.n > 0) {
            int e = sink->emit(sink->ctx, &s->res, s->end);
            s->emitted += s->res.n;
            cpk_results_reset(&s->res, s->first + s->emitted);
            if (e != 0)
                return e < 0 ? CPK_RUN_ERROR : CPK_RUN_STOPPED;
        }
        if (s->lost) {
            const worker *k = &p->wk[s->worker];
            uint64_t e = s->emitted < s->count ? s->emitted
                                               : s->count - 1;
            unsigned long long z = s->num[s->count - 1];
            unsigned long long a = s->num[e];
            if (a == z)
                cpk_error("worker %d (pid %ld) %s while running record "
                          "%llu",
                          s->worker + 1, (long)k->pid, k->why, a);
            else
                cpk_error("worker %d (pid %ld) %s while running records "
                          "%llu-%llu",
                          s->worker + 1, (long)k->pid, k->why, a, z);
            return CPK_RUN_WORKER;
        }
        if (!s->ready)
            break;
        s->used = 0;
        p->next_emit++;
    }
    /* A worker that died between batches, once the results before
     * its death are out. */
    if (p->died && p->next_emit == p->died_at) {
        const worker *k = &p->wk[p->died - 1];
        cpk_error("worker %d (pid %ld) %s", p->died, (long)k->pid,
                  k->why);
        return CPK_RUN_WORKER;
    }
    return RUN_GOES_ON;
}

/* The current batch, from what is buffered: 1 when it wants input not
 * read yet, 0, or -1 out of memory. */
static int
fill_batch(const pool *p, feed *in)
{
    size_t target = batch_target(p);
    while (!in->input_done && in->cur.n < target &&
           in->cur.data.len < BATCH_BYTES) {
        const char *rec;
        size_t len;
        int rc = cpk_records_next(in->rd, &rec, &len);
        if (rc == CPK_READ_RECORD) {
            if (cpk_batch_add_num(&in->cur, rec, len, in->rd->number) < 0)
                return -1;
            in->cur.end = cpk_records_consumed(in->rd);
            continue;
        }
        if (rc == CPK_READ_MORE)
            return 1;
        in->input_done = 1;
        if (rc != CPK_READ_END) {
            in->rerr = rc;
            *in->read_errno = errno;
        }
        break;
    }
    return 0;
}

/* Read more of the input: 0, or -1 with the exception a signal handler
 * raised. */
static int
read_more(feed *in)
{
    long got = cpk_records_fill(in->rd);
    if (got < 0 && errno != EINTR) {
        in->input_done = 1;
        in->rerr = -1;
        *in->read_errno = errno;
    }
    if (got < 0 && PyErr_CheckSignals() < 0)
        return -1;
    return 0;
}

/* Wait for input, results or room in a pipe, and take what came:
 * RUN_GOES_ON, or how the run ends. */
static int
wait_and_take(pool *p, feed *in, const cpk_sink *sink, int want_input)
{
    int alive = 0;
    for (int i = 0; i < p->jobs; i++)
        alive += !p->wk[i].dead;
    if (alive == 0 && p->next_emit == p->next_send && in->cur.n > 0) {
        cpk_error("every worker is gone");
        return CPK_RUN_WORKER;
    }
    int f = sink->flush(sink->ctx);
    if (f != 0)
        return f < 0 ? CPK_RUN_ERROR : CPK_RUN_STOPPED;
    /* Each worker's result pipe, its pidfd, its batch pipe while a
     * frame is pending, and the input when a record is wanted. */
    struct pollfd *pf = p->pf;
    int *who = p->who;
    int nf = 0, sweep = 0;
    for (int i = 0; i < p->jobs; i++) {
        worker *wk = &p->wk[i];
        if (wk->dead)
            continue;
        pf[nf] = (struct pollfd){.fd = wk->from, .events = POLLIN};
        who[nf++] = i;
        if (wk->pidfd >= 0) {
            pf[nf] = (struct pollfd){.fd = wk->pidfd, .events = POLLIN};
            who[nf++] = i;
        }
        else
            sweep = 1;
        if (wk->wpos < wk->wbuf.len) {
            pf[nf] = (struct pollfd){.fd = wk->to, .events = POLLOUT};
            who[nf++] = i;
        }
    }
    int wake_slot = nf;
    pf[nf++] = (struct pollfd){.fd = p->wake[0], .events = POLLIN};
    int in_slot = -1;
    if (want_input && !in->input_done) {
        in_slot = nf;
        pf[nf].fd = in->rd->fd;
        pf[nf].events = POLLIN;
        nf++;
    }
    int n;
    Py_BEGIN_ALLOW_THREADS
    n = poll(pf, (nfds_t)nf, sweep ? 200 : -1);
    Py_END_ALLOW_THREADS
    if (n < 0) {
        if (errno == EINTR && PyErr_CheckSignals() < 0)
            return CPK_RUN_ERROR;
        return RUN_GOES_ON;
    }
    if (pf[wake_slot].revents) {
        char drain[64];
        while (read(p->wake[0], drain, sizeof(drain)) > 0)
            ;
    }
    for (int j = 0; j < nf; j++) {
        if (j == in_slot || j == wake_slot)
            continue;
        short ev = pf[j].revents;
        if (ev == 0 || p->wk[who[j]].dead)
            continue;
        if (pf[j].fd == p->wk[who[j]].to)
            push(p, who[j]); /* POLLERR: the write says EPIPE */
        else if (pf[j].fd == p->wk[who[j]].pidfd)
            exited(p, who[j]);
        else
            pull(p, who[j]);
    }
    for (int i = 0; sweep && i < p->jobs; i++)
        if (!p->wk[i].dead && p->wk[i].pidfd < 0 && has_exited(&p->wk[i]))
            exited(p, i);
    if (in_slot >= 0 && pf[in_slot].revents && read_more(in) < 0)
        return CPK_RUN_ERROR;
    return RUN_GOES_ON;
}

/* The run, once the workers are started: results out in input order,
 * batches in as input and room allow. How the run ends. */
static int
serve(pool *p, feed *in, const cpk_sink *sink, int *read_rc)
{
    for (;;) {
        if (PyErr_CheckSignals() < 0)
            return CPK_RUN_ERROR;
        int end = emit_ready(p, sink);
        if (end != RUN_GOES_ON)
            return end;
        if (in->input_done && in->cur.n == 0 &&
            p->next_emit == p->next_send) {
            if (in->rerr != 0) {
                *read_rc = in->rerr;
                return CPK_RUN_INPUT;
            }
            return CPK_RUN_DONE;
        }
        int want_input = fill_batch(p, in);
        if (want_input < 0) {
            PyErr_NoMemory();
            return CPK_RUN_ERROR;
        }
        if (want_input && ready_now(in->rd->fd)) {
            if (read_more(in) < 0)
                return CPK_RUN_ERROR;
            continue;
        }
        /* Full, at the end, or nothing more ready: send it. */
        int room = (p->next_send - p->next_emit) < (uint64_t)p->nslots;
        int k = room ? pick(p) : -1;
        if (in->cur.n > 0 && k >= 0) {
            if (send_batch(p, k, &in->cur) < 0) {
                PyErr_NoMemory();
                return CPK_RUN_ERROR;
            }
            cpk_batch_reset(&in->cur, in->cur.first + in->cur.n);
            continue;
        }
        /* The end of input, just seen, with every result already out:
         * the run is over (the top of the loop says so). No descriptor
         * would wake a poll now: the workers wait for batches. */
        if (in->input_done && in->cur.n == 0 &&
            p->next_emit == p->next_send)
            continue;
        end = wait_and_take(p, in, sink, want_input);
        if (end != RUN_GOES_ON)
            return end;
    }
}

/* Every worker stopped (gently when the run is done), the wakeup fd
 * given back and the pool's memory freed. */
static void
finish_pool(pool *p, int status)
{
    if (p->wk != NULL)
        stop_all(p, status == CPK_RUN_DONE);
    if (p->wake_set) {
        /* keep a pending exception (KeyboardInterrupt) across the call */
        PyObject *t, *v, *tb;
        PyErr_Fetch(&t, &v, &tb);
        (void)set_wakeup_fd(p->old_wake);
        PyErr_Clear();
        PyErr_Restore(t, v, tb);
    }
    if (p->wake[0] >= 0) {
        close(p->wake[0]);
        close(p->wake[1]);
    }
    for (int i = 0; p->wk != NULL && i < p->jobs; i++) {
        cpk_bytebuf_release(&p->wk[i].wbuf);
        cpk_bytebuf_release(&p->wk[i].rbuf);
    }
    for (int i = 0; p->slots != NULL && i < p->nslots; i++) {
        cpk_results_free(&p->slots[i].res);
        free(p->slots[i].num);
    }
    free(p->slots);
    free(p->wk);
    free(p->pf);
    free(p->who);
}

int
cpk_pool_run(int jobs, cpk_records *rd, cpk_mapwork *w,
             const cpk_sink *sink, const int *close_fds, int nclose,
             int *read_rc, int *read_errno)
{
    pool p = {.jobs = jobs, .keep_going = w->keep_going,
              .wake = {-1, -1}, .old_wake = -1};
    feed in = {.rd = rd, .read_errno = read_errno};
    int status = start_pool(&p, w, sink, close_fds, nclose);
    if (status == RUN_GOES_ON) {
        cpk_batch_reset(&in.cur, rd->count + 1);
        status = serve(&p, &in, sink, read_rc);
    }
    finish_pool(&p, status);
    cpk_batch_free(&in.cur);
    return status;
}
