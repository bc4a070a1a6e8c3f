/* map.c - cloudpickle-load --map (map.h): the run, its output and its
 * verdict. Records are cut by records.c, processed by mapwork.c here
 * (-j 1) or in pool.c's workers. */
#include "map/map.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/bytebuf.h" /* output waiting for its write */
#include "common/host.h"
#include "common/input.h"
#include "common/message.h"
#include "common/output.h"
#include "common/scancheck.h"
#include "map/mapdask.h" /* --dask */
#include "map/mapwork.h" /* -j 1: cpk_mapwork_batch */
#include "map/pool.h"
#include "map/progress.h"
#include "map/records.h" /* cpk_batch, cpk_records */
#include "map/signed.h"  /* a bad record's envelope */
#include "scan/pkscan.h" /* pkscan_report */

#define FLUSH_AT ((size_t)64 << 10)   /* output buffered before a write */
#define SERIAL_BATCH 1024             /* records processed between checks */
#define BORROW_AT FLUSH_AT            /* a pickle loaded in the reader's buffer */
#define RESULTS_EVERY_NS 50000000LL   /* slow records: results this often */

int
cpk_map_default_jobs(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* The output side of a run: results in order, buffered, and the verdict
 * the records give. */
typedef struct {
    int fd;
    int fd_tty;        /* results go to a terminal: the progress line's? */
    cpk_bytebuf pending;
    int keep_going;
    int status;        /* of the record that stopped the run */
    uint64_t raised;   /* records whose function raised or exited
                        * (--keep-going) */
    uint64_t unencodable;
    uint64_t bad;      /* records that could not be decoded ... */
    int bad_status;    /* ... and the status the first one gives */
    uint64_t done;
    int write_errno;   /* a failed write of the output */
    struct timespec flushed; /* when the output was last written */
    cpk_progress progress;
} emitter;

/* Write all of p to fd, *done bytes of it written whatever the return. A
 * signal interrupts a blocked write (Python's handler has no
 * SA_RESTART): short or failed, the handlers run after every write. 0; 1
 * with errno when the write failed; -1 with the exception a handler
 * raised (KeyboardInterrupt). */
static int
write_out(int fd, const char *p, size_t n, size_t *done)
{
    *done = 0;
    while (n > 0) {
        ssize_t r;
        Py_BEGIN_ALLOW_THREADS
        r = write(fd, p, n);
        Py_END_ALLOW_THREADS
        int err = errno;
        if (r > 0) {
            p += r;
            n -= (size_t)r;
            *done += (size_t)r;
        }
        if (PyErr_CheckSignals() < 0)
            return -1;
        if (r < 0) {
            if (err == EINTR)
                continue;
            errno = err;
            return 1;
        }
    }
    return 0;
}

static int
sink_flush(void *ctx)
{
    emitter *e = ctx;
    if (e->pending.len == 0)
        return 0;
    if (e->fd_tty)
        cpk_progress_clear(&e->progress);
    size_t done;
    int rc = write_out(e->fd, e->pending.data, e->pending.len, &done);
    if (rc > 0)
        e->write_errno = errno ? errno : EIO;
    /* What went out never goes again (a later flush on a fatal error). */
    memmove(e->pending.data, e->pending.data + done, e->pending.len - done);
    e->pending.len -= done;
    if (rc != 0)
        return rc;
    clock_gettime(CLOCK_MONOTONIC, &e->flushed);
    return 0;
}

static int
sink_emit(void *ctx, const cpk_results *res, uint64_t end)
{
    emitter *e = ctx;
    size_t oa = 0, ea = 0;
    int stop = 0;
    for (size_t i = 0; i < res->n && !stop; i++) {
        const cpk_rec_result *r = &res->rec[i];
        const char *out = res->out.data + oa;
        if (cpk_bytebuf_put(&e->pending, out, r->out_len) < 0) {
            e->write_errno = ENOMEM;
            return 1;
        }
        if (r->err_len > 0) {
            /* in order with the output, should both be one terminal */
            int rc = sink_flush(e);
            if (rc != 0)
                return rc;
            cpk_progress_clear(&e->progress);
            (void)cpk_write_all(STDERR_FILENO, res->err.data + ea,
                                r->err_len);
        }
        oa += r->out_len;
        ea += r->err_len;
        e->done++;
        switch ((cpk_rec_kind)r->kind) {
        case CPK_REC_OK:
            break;
        case CPK_REC_RAISED:
        case CPK_REC_EXIT:
            e->raised++;
            break;
        case CPK_REC_BADINPUT:
            if (e->bad++ == 0)
                e->bad_status = r->status;
            break;
        case CPK_REC_UNENCODABLE:
            e->unencodable++;
            break;
        default:
            break;
        }
        if (cpk_rec_stops(r, e->keep_going)) {
            e->status = r->status;
            stop = 1;
        }
    }
    /* Written when enough is buffered, or when the last write is some
     * 20 ms old: a slow function's results come out as they are made. */
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long ms = (now.tv_sec - e->flushed.tv_sec) * 1000 +
              (now.tv_nsec - e->flushed.tv_nsec) / 1000000;
    if (e->pending.len >= FLUSH_AT || ms >= 20) {
        int rc = sink_flush(e);
        if (rc != 0)
            return rc;
    }
    cpk_progress_update(&e->progress, e->done, end, 0);
    return stop;
}

/* A process the function forked without exec, that returned into the
 * serial loop, would go on with the records and write results a second
 * time: it stops after the record it returned from (mapwork.c reads the
 * flag, set by a fork handler at no cost per record) and leaves with the
 * status python3 would give it (mapwork.c's copy_status; its parent goes
 * on). */
static volatile int serial_forked;

static void
on_fork_in_serial(void)
{
    serial_forked = 1;
}

static void
leave_if_forked(const cpk_mapwork *w, pid_t self)
{
    if (serial_forked || getpid() != self)
        _exit(w->copy_status);
}

/* -j 1: the records of what is buffered, in batches, through the
 * function here; the output flushed before each wait for input. When a
 * record's processing raised what ends the run (MemoryError), the
 * results before it are emitted and *failed is its number. */
static int
serial_run(cpk_map_options *o, cpk_records *rd, const cpk_sink *sink,
           int *read_rc, int *read_errno, uint64_t *failed)
{
    cpk_batch b = {0};
    cpk_results res = {0};
    int status;
    double ns_per_record = 0; /* measured: batches of about 10 ms */
    static int fork_handler;
    if (!fork_handler && pthread_atfork(NULL, NULL, on_fork_in_serial) == 0)
        fork_handler = 1;
    pid_t self = getpid();
    o->work.abandon = &serial_forked;
    for (;;) {
        cpk_batch_reset(&b, rd->count + 1);
        int rc = CPK_READ_MORE;
        size_t target = SERIAL_BATCH;
        if (ns_per_record > 0) {
            double n = 1e7 / ns_per_record;
            target = n < 1 ? 1 : n > SERIAL_BATCH ? SERIAL_BATCH : (size_t)n;
        }
        else
            target = 1;
        if (PyErr_CheckSignals() < 0) {
            status = CPK_RUN_ERROR;
            goto done;
        }
        while (b.n < target && b.data.len < FLUSH_AT) {
            const char *rec;
            size_t len;
            rc = cpk_records_next(rd, &rec, &len);
            if (rc != CPK_READ_RECORD)
                break;
            /* A big pickle first: a batch of its own, loaded where the
             * reader holds it (until its next record), not copied. */
            int borrow = b.n == 0 && len >= BORROW_AT &&
                         rd->format == CPK_IN_PICKLE;
            if ((borrow ? cpk_batch_borrow(&b, rec, len, rd->number)
                        : cpk_batch_add_num(&b, rec, len, rd->number)) < 0) {
                PyErr_NoMemory();
                status = CPK_RUN_ERROR;
                goto done;
            }
            if (borrow)
                break;
        }
        /* The batch, in parts of at most some 50 ms of work each: records
         * that turn slow still have their results written as they come. */
        size_t from = 0;
        while (from < b.n) {
            b.end = cpk_records_consumed(rd);
            struct timespec t0, t1;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            int mw = cpk_mapwork_batch(&o->work, &b, from, RESULTS_EVERY_NS,
                                       &res);
            leave_if_forked(&o->work, self);
            if (mw < 0) {
                if (!PyErr_ExceptionMatches(PyExc_KeyboardInterrupt)) {
                    *failed = b.num[from + res.n];
                    PyObject *t, *v, *tb;
                    PyErr_Fetch(&t, &v, &tb);
                    int e = res.n > 0 ? sink->emit(sink->ctx, &res, b.end)
                                      : 0;
                    if (e < 0) { /* a newer exception: that one counts */
                        Py_XDECREF(t);
                        Py_XDECREF(v);
                        Py_XDECREF(tb);
                    }
                    else
                        PyErr_Restore(t, v, tb);
                }
                status = CPK_RUN_ERROR;
                goto done;
            }
            clock_gettime(CLOCK_MONOTONIC, &t1);
            double per = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 +
                          (double)(t1.tv_nsec - t0.tv_nsec)) /
                         (double)(res.n ? res.n : 1);
            ns_per_record = ns_per_record == 0
                                ? per
                                : 0.7 * ns_per_record + 0.3 * per;
            if (res.n == 0)
                break; /* cannot be (one record at least): no loop */
            from += res.n;
            int e = sink->emit(sink->ctx, &res, b.end);
            if (e != 0) {
                status = e < 0 ? CPK_RUN_ERROR : CPK_RUN_STOPPED;
                goto done;
            }
            if (from < b.n && (e = sink->flush(sink->ctx)) != 0) {
                status = e < 0 ? CPK_RUN_ERROR : CPK_RUN_STOPPED;
                goto done;
            }
        }
        if (b.n > 0)
            continue;
        if (rc == CPK_READ_END) {
            status = CPK_RUN_DONE;
            goto done;
        }
        if (rc != CPK_READ_MORE && rc != CPK_READ_RECORD) {
            *read_rc = rc;
            *read_errno = errno;
            status = CPK_RUN_INPUT;
            goto done;
        }
        int f = sink->flush(sink->ctx);
        if (f != 0) {
            status = f < 0 ? CPK_RUN_ERROR : CPK_RUN_STOPPED;
            goto done;
        }
        long got;
        Py_BEGIN_ALLOW_THREADS
        got = cpk_records_fill(rd);
        Py_END_ALLOW_THREADS
        if (got < 0) {
            if (errno == EINTR) {
                if (PyErr_CheckSignals() < 0) {
                    status = CPK_RUN_ERROR;
                    goto done;
                }
                continue;
            }
            *read_rc = -1;
            *read_errno = errno;
            status = CPK_RUN_INPUT;
            goto done;
        }
    }
done:
    cpk_batch_free(&b);
    cpk_results_free(&res);
    return status;
}

/* The unfinished --result-file, removed if SIGINT ends the program. */
static cpk_output *active_output;

static void
abort_output(void)
{
    if (active_output != NULL)
        cpk_output_abort(active_output);
}

/* The records' standard input moved to a private descriptor (closed in
 * workers, as over exec), fd 0 on /dev/null: the function, a process it
 * starts and every worker then read nothing of the records (sys.stdin
 * reads fd 0). The private descriptor, or -1 with errno. */
static int
records_off_stdin(void)
{
    int fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
    if (fd < 0)
        return -1;
    int null = open("/dev/null", O_RDONLY);
    if (null < 0 || (null != STDIN_FILENO && dup2(null, STDIN_FILENO) < 0)) {
        int err = errno;
        if (null > STDIN_FILENO)
            close(null);
        close(fd);
        errno = err;
        return -1;
    }
    if (null != STDIN_FILENO)
        close(null);
    return fd;
}

/* Why the reader stopped, said about the record it stopped at. */
static void
input_failed(cpk_map_options *o, cpk_records *rd, int rc, int err)
{
    const char *name = o->work.input_name;
    unsigned long long n = (unsigned long long)rd->count + 1;
    if (rc == CPK_READ_TOO_BIG) {
        char size[64];
        cpk_format_size(o->max_record, size, sizeof(size));
        cpk_error("%s: record %llu: longer than %s (raise it with "
                  "--max-size)",
                  name, n, size);
        return;
    }
    if (rc == CPK_READ_BAD && err != ENOMEM) {
        /* The envelope's check, or else the scan, says what is wrong,
         * and where in the record. */
        char label[PATH_MAX + 64];
        snprintf(label, sizeof(label), "%s: record %llu", name, n);
        const unsigned char *at = (const unsigned char *)rd->buf + rd->start;
        size_t len = rd->end - rd->start;
        int envelope = len > 0 && at[0] == (unsigned char)CPK_ENV_MAGIC[0];
        cpk_signed_input sig;
        if ((rd->signed_only || envelope) &&
            cpk_signed_open(label, at, len, o->work.key, o->work.keylen,
                            o->work.key_source, &sig) != 0)
            return;
        pkscan_report *r = NULL;
        int st = cpk_scan_pickle(label, rd->buf + rd->start,
                                 rd->end - rd->start, o->work.max_scan, &r);
        pkscan_free(r);
        if (st == 0)
            cpk_error("%s: not a valid pickle", label);
        return;
    }
    cpk_error("%s: %s", name, strerror(err ? err : EIO));
}

/* One run of cpk_map_run's, shared by its phases. */
typedef struct {
    cpk_map_options *o;
    int in_fd, out_fd;
    cpk_output out;
    int to_file;       /* the results go to out, a --result-file */
    cpk_records rd;
    emitter e;
    int run;           /* how the run ended: CPK_RUN_* */
    int read_rc, read_errno; /* CPK_RUN_INPUT: why the reader stopped */
    uint64_t failed;   /* -j 1: the record whose processing raised */
} map_run;

/* The records' descriptor, --input's or standard input's: it, or -1
 * after the message. */
static int
open_records(cpk_map_options *o)
{
    int in_fd;
    if (strcmp(o->input, "-") != 0) {
        in_fd = open(o->input, O_RDONLY | O_CLOEXEC);
        if (in_fd < 0) {
            cpk_error("%s: %s", o->input, strerror(errno));
            return -1;
        }
    }
    else if ((in_fd = records_off_stdin()) < 0) {
        cpk_error("standard input: %s", strerror(errno));
        return -1;
    }
    return in_fd;
}

/* The results' descriptor, --result-file's or standard output's: 0, or
 * CPK_EXIT_SYSTEM after the message. */
static int
open_results(map_run *r)
{
    /* cloudpickle-load turned names of standard output into NULL while
     * fd 1 was still it (fd 1 is standard error's now). */
    const char *target = r->o->result_file;
    if (target != NULL) {
        int err = cpk_output_open(&r->out, target);
        if (err != 0) {
            cpk_error("%s: %s", target, strerror(err));
            return CPK_EXIT_SYSTEM;
        }
        r->to_file = 1;
        active_output = &r->out;
        r->out_fd = r->out.fd;
    }
    else {
        r->out_fd = cpk_host_stdout_take();
        if (r->out_fd < 0) {
            cpk_error("standard output: %s", strerror(EBADF));
            return CPK_EXIT_SYSTEM;
        }
    }
    return 0;
}

/* The records through the function: on the cluster, here, or in
 * workers; then what is still buffered written out. */
static void
run_records(map_run *r, const cpk_sink *sink)
{
    cpk_map_options *o = r->o;
    if (o->dask.address != NULL)
        r->run = cpk_mapdask_run(&o->dask, &r->rd, &o->work, sink,
                                 &r->read_rc, &r->read_errno);
    else if (o->jobs <= 1)
        r->run = serial_run(o, &r->rd, sink, &r->read_rc, &r->read_errno,
                            &r->failed);
    else {
        int keep[2] = {r->out_fd, r->in_fd};
        r->run = cpk_pool_run(o->jobs, &r->rd, &o->work, sink, keep, 2,
                              &r->read_rc, &r->read_errno);
    }
    emitter *e = &r->e;
    if (r->run != CPK_RUN_ERROR && e->write_errno == 0 && sink_flush(e) < 0)
        r->run = CPK_RUN_ERROR;
    else if (r->run == CPK_RUN_ERROR && !r->to_file && e->write_errno == 0 &&
             !PyErr_ExceptionMatches(PyExc_KeyboardInterrupt)) {
        /* What was accepted still goes out, as a Python loop's prints
         * would have (a --result-file is dropped whole instead; Ctrl-C
         * ends the program by SIGINT at once, as it does elsewhere). */
        PyObject *t, *v, *tb;
        PyErr_Fetch(&t, &v, &tb);
        if (sink_flush(e) < 0) {
            Py_XDECREF(t);
            Py_XDECREF(v);
            Py_XDECREF(tb);
        }
        else
            PyErr_Restore(t, v, tb);
    }
}

/* The exit status the run ends with, after its message if any. */
static int
run_status(map_run *r)
{
    cpk_map_options *o = r->o;
    emitter *e = &r->e;
    int status;
    switch (r->run) {
    case CPK_RUN_ERROR:
        cpk_host_exit_if_interrupted(abort_output);
        {
            char *line = cpk_host_exception_line();
            PyErr_Clear();
            if (r->failed != 0) {
                /* as a worker's death on it would be, under -j N */
                cpk_error("%s: record %llu: %s", o->work.input_name,
                          (unsigned long long)r->failed,
                          line ? line : "error");
                status = CPK_EXIT_RAISED;
            }
            else {
                cpk_error("%s", line ? line : "error");
                status = CPK_EXIT_SYSTEM;
            }
            free(line);
        }
        break;
    case CPK_RUN_INPUT:
        input_failed(o, &r->rd, r->read_rc, r->read_errno);
        status = CPK_EXIT_INPUT;
        break;
    case CPK_RUN_WORKER:
        status = CPK_EXIT_RAISED;
        break;
    default:
        status = e->status;
        if (r->run == CPK_RUN_DONE && status == 0)
            status = e->raised        ? CPK_EXIT_RAISED
                     : e->bad         ? e->bad_status
                     : e->unencodable ? CPK_EXIT_OBJECT
                                      : CPK_EXIT_OK;
        break;
    }
    if (e->write_errno != 0) {
        /* A closed pipe ends a filter quietly, by SIGPIPE. */
        if (!r->to_file && (e->write_errno == EPIPE ||
                            cpk_host_stdout_broken(r->out_fd)))
            cpk_die_by_signal(SIGPIPE);
        cpk_error("%s: %s", r->to_file ? o->result_file : "standard output",
                  strerror(e->write_errno));
        status = CPK_EXIT_SYSTEM;
    }
    return status;
}

/* The results' output committed, dropped or closed, and the rest of the
 * run freed: the exit status, `status` unless that fails. */
static int
close_run(map_run *r, int status)
{
    cpk_map_options *o = r->o;
    /* A --result-file holds a whole run: one that ran to the end of its
     * input (--keep-going included), else nothing. */
    if (r->to_file) {
        int complete = r->e.write_errno == 0 &&
                       (status == CPK_EXIT_OK ||
                        (o->work.keep_going && r->run == CPK_RUN_DONE &&
                         r->e.status == 0));
        if (complete) {
            const char *what = NULL;
            int err = cpk_output_commit(&r->out, &what);
            if (err == EINTR && PyErr_Occurred())
                cpk_host_exit_if_interrupted(abort_output);
            if (err != 0) {
                cpk_error("%s: %s: %s", o->result_file, what ? what : "write",
                          strerror(err));
                status = CPK_EXIT_SYSTEM;
            }
        }
        else
            cpk_output_abort(&r->out);
        active_output = NULL;
    }
    else if (r->out_fd >= 0 && close(r->out_fd) != 0 &&
             status == CPK_EXIT_OK) {
        cpk_error("standard output: %s", strerror(errno));
        status = CPK_EXIT_SYSTEM;
    }
    cpk_mapdask_close(&o->dask);
    cpk_mapwork_free(&o->work);
    cpk_records_free(&r->rd);
    cpk_bytebuf_release(&r->e.pending);
    close(r->in_fd);
    return status;
}

int
cpk_map_run(cpk_map_options *o)
{
    int status = CPK_EXIT_OK;
    map_run r = {.o = o, .in_fd = -1, .out_fd = -1,
                 .e = {.keep_going = o->work.keep_going},
                 .run = CPK_RUN_ERROR};
    emitter *e = &r.e;
    /* The input. */
    r.in_fd = open_records(o);
    if (r.in_fd < 0)
        return CPK_EXIT_INPUT;
    struct stat st;
    uint64_t total = 0;
    if (fstat(r.in_fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        off_t at = lseek(r.in_fd, 0, SEEK_CUR);
        total = (uint64_t)st.st_size - (at > 0 ? (uint64_t)at : 0);
    }
    if (cpk_records_init(&r.rd, r.in_fd, o->work.in, o->max_record,
                        o->work.max_scan) < 0) {
        cpk_error("out of memory");
        status = CPK_EXIT_SYSTEM;
        goto done;
    }
    r.rd.shard_i = o->shard_i;
    r.rd.shard_n = o->shard_n;
    r.rd.signed_only = o->work.key != NULL;
    /* The output. */
    if ((status = open_results(&r)) != 0)
        goto done;
    e->fd = r.out_fd;
    e->fd_tty = isatty(r.out_fd);
    if (cpk_mapwork_init(&o->work) < 0) {
        cpk_host_exit_if_interrupted(abort_output);
        char *line = cpk_host_exception_line();
        PyErr_Clear();
        cpk_error("cannot prepare the map: %s", line ? line : "error");
        free(line);
        status = CPK_EXIT_SYSTEM;
        goto done;
    }
    if (o->dask.address != NULL &&
        (status = cpk_mapdask_open(&o->dask, abort_output)) != 0)
        goto done;
    cpk_progress_init(&e->progress, o->progress, total);
    clock_gettime(CLOCK_MONOTONIC, &e->flushed);
    cpk_sink sink = {.ctx = e, .emit = sink_emit, .flush = sink_flush};
    run_records(&r, &sink);
    if (e->progress.shown || (e->progress.on && r.run == CPK_RUN_DONE))
        cpk_progress_update(&e->progress, e->done,
                            cpk_records_consumed(&r.rd), 1);
    cpk_progress_done(&e->progress);
    status = run_status(&r);
done:
    return close_run(&r, status);
}
