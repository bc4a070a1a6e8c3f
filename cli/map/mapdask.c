/* mapdask.c - cloudpickle-load --map --dask (mapdask.h): records decoded
 * and results rendered here by mapwork.c, calls run on the cluster by
 * python/_ccloudpickle_dask.py, output in input order by map.c's sink. */
#include "map/mapdask.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/host.h"
#include "common/message.h"
#include "common/pycompat.h" /* Py_NewRef before 3.10 */
#include "map/mapwork.h" /* cpk_mapwork_batch, cpk_results */
#include "map/pool.h" /* cpk_sink, CPK_RUN_* */
#include "map/records.h" /* cpk_batch, cpk_records */

#define COMPANION "_ccloudpickle_dask"
#define TASK_SECONDS 0.05               /* work per task, when measured */
#define MAX_BATCH 4096                  /* records per task */
#define BATCH_BYTES ((size_t)256 << 10) /* record bytes per task */
#define WAIT_SECONDS 0.05 /* a wait for results while input may come */

/* The stand-in's state: the calls kept (first pass), or the outcomes
 * handed back in order (second pass). */
typedef struct {
    PyObject *calls;    /* list of (args, kwargs or None) */
    PyObject *outcomes; /* list of (0, result) | (1, exc, tb) */
    Py_ssize_t next;
} standin;

static standin *
standin_of(PyObject *self)
{
    return PyCapsule_GetPointer(self, "cpk_mapdask.standin");
}

/* First pass: keep the call's arguments, return None. */
static PyObject *
keep_call(PyObject *self, PyObject *args, PyObject *kwargs)
{
    standin *s = standin_of(self);
    if (s == NULL)
        return NULL;
    PyObject *call = PyTuple_Pack(2, args,
                                  kwargs && PyDict_GET_SIZE(kwargs) > 0
                                      ? kwargs
                                      : Py_None);
    if (call == NULL)
        return NULL;
    int rc = PyList_Append(s->calls, call);
    Py_DECREF(call);
    if (rc < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* Second pass: the next outcome, as the function's result or exception
 * (restored from C: no frame of ours in its traceback). */
static PyObject *
give_outcome(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)args;
    (void)kwargs;
    standin *s = standin_of(self);
    if (s == NULL)
        return NULL;
    if (s->outcomes == NULL || s->next >= PyList_GET_SIZE(s->outcomes)) {
        PyErr_SetString(PyExc_SystemError, "dask: fewer outcomes than "
                                           "records");
        return NULL;
    }
    PyObject *o = PyList_GET_ITEM(s->outcomes, s->next++); /* borrowed */
    if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) < 2) {
        PyErr_SetString(PyExc_SystemError, "dask: malformed outcome");
        return NULL;
    }
    long tag = PyLong_Check(PyTuple_GET_ITEM(o, 0))
                   ? PyLong_AsLong(PyTuple_GET_ITEM(o, 0))
                   : -1;
    if (tag == 0)
        return Py_NewRef(PyTuple_GET_ITEM(o, 1));
    PyObject *exc = PyTuple_GET_ITEM(o, 1);
    PyObject *tb = PyTuple_GET_SIZE(o) > 2 ? PyTuple_GET_ITEM(o, 2) : NULL;
    if (!PyExceptionInstance_Check(exc)) {
        PyErr_SetString(PyExc_SystemError, "dask: malformed failure");
        return NULL;
    }
    if (tb != NULL && PyTraceBack_Check(tb))
        PyException_SetTraceback(exc, tb);
    Py_INCREF(exc);
    PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    Py_DECREF(exc);
    return NULL;
}

static PyMethodDef keep_def = {"keep_call", (PyCFunction)(void (*)(void))
                               keep_call, METH_VARARGS | METH_KEYWORDS, NULL};
static PyMethodDef give_def = {"give_outcome", (PyCFunction)(void (*)(void))
                               give_outcome, METH_VARARGS | METH_KEYWORDS,
                               NULL};

/* The exception of a failed open: a Refusal's (status, message) said as
 * "--dask: message"; anything else as its line, status 5. */
static int
open_failed(void (*on_interrupt)(void))
{
    cpk_host_exit_if_interrupted(on_interrupt);
    int status = CPK_EXIT_SYSTEM;
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    PyErr_NormalizeException(&t, &v, &tb);
    PyObject *mod = PyImport_ImportModule(COMPANION);
    PyObject *cls = mod ? PyObject_GetAttrString(mod, "Refusal") : NULL;
    Py_XDECREF(mod);
    PyErr_Clear();
    PyObject *a = v && cls && PyErr_GivenExceptionMatches(v, cls)
                      ? PyObject_GetAttrString(v, "args")
                      : NULL;
    PyErr_Clear();
    Py_XDECREF(cls);
    if (a != NULL && PyTuple_Check(a) && PyTuple_GET_SIZE(a) == 2 &&
        PyLong_Check(PyTuple_GET_ITEM(a, 0)) &&
        PyUnicode_Check(PyTuple_GET_ITEM(a, 1))) {
        status = (int)PyLong_AsLong(PyTuple_GET_ITEM(a, 0));
        const char *msg = PyUnicode_AsUTF8(PyTuple_GET_ITEM(a, 1));
        cpk_error("--dask: %s", msg ? msg : "refused");
        PyErr_Clear();
    }
    else {
        PyErr_Restore(t, v, tb);
        t = v = tb = NULL;
        char *line = cpk_host_exception_line();
        PyErr_Clear();
        cpk_error("--dask: %s", line ? line : "error");
        free(line);
    }
    Py_XDECREF(a);
    Py_XDECREF(t);
    Py_XDECREF(v);
    Py_XDECREF(tb);
    return status;
}

int
cpk_mapdask_open(cpk_mapdask *d, void (*on_interrupt)(void))
{
    PyObject *mod = PyImport_ImportModule(COMPANION);
    if (mod == NULL) {
        cpk_host_exit_if_interrupted(on_interrupt);
        char *line = cpk_host_exception_line();
        PyErr_Clear();
        cpk_error("--dask: cannot import %s (installed beside "
                  "ccloudpickle): %s",
                  COMPANION, line ? line : "error");
        free(line);
        return CPK_EXIT_OBJECT;
    }
    PyObject *data = PyBytes_FromStringAndSize(d->pickle,
                                               (Py_ssize_t)d->pickle_len);
    PyObject *runner =
        data ? PyObject_CallMethod(mod, "Runner", "sOi", d->address, data,
                                   d->window)
             : NULL;
    Py_XDECREF(data);
    Py_DECREF(mod);
    if (runner == NULL)
        return open_failed(on_interrupt);
    d->runner = runner;
    return 0;
}

void
cpk_mapdask_close(cpk_mapdask *d)
{
    if (d->runner == NULL)
        return;
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    PyObject *r = PyObject_CallMethod(d->runner, "close", NULL);
    Py_XDECREF(r);
    PyErr_Clear();
    PyErr_Restore(t, v, tb);
    Py_CLEAR(d->runner);
}

/* A batch in flight: its records' first pass, and how many calls went. */
typedef struct {
    cpk_results first;
    uint64_t *num;      /* the records' numbers */
    size_t cap;
    uint64_t end;
    Py_ssize_t ncalls;
} slot;

/* Append record i of src (at byte offsets oa, ea) to dst. */
static int
copy_record(cpk_results *dst, const cpk_results *src, size_t i, size_t oa,
            size_t ea)
{
    const cpk_rec_result *r = &src->rec[i];
    return cpk_results_add(dst, (cpk_rec_kind)r->kind, r->status,
                           src->out.data + oa, r->out_len,
                           src->err.data + ea, r->err_len);
}

/* The final results of a batch: the first pass's refusals as they are,
 * the calls' outcomes rendered by mapwork.c through `give` (the second
 * pass reads "0" records numbered as the real ones). 0, or -1 with an
 * exception. */
static int
render(cpk_mapwork *rw, standin *s, const slot *sl, cpk_results *fin,
       cpk_results *tmp, cpk_batch *fake)
{
    const cpk_results *f = &sl->first;
    cpk_results_reset(fin, f->first);
    size_t oa = 0, ea = 0;
    size_t i = 0;
    while (i < f->n) {
        if (f->rec[i].kind != CPK_REC_OK) {
            if (copy_record(fin, f, i, oa, ea) < 0)
                goto nomem;
            oa += f->rec[i].out_len;
            ea += f->rec[i].err_len;
            i++;
            continue;
        }
        size_t j = i;
        while (j < f->n && f->rec[j].kind == CPK_REC_OK) {
            oa += f->rec[j].out_len;
            ea += f->rec[j].err_len;
            j++;
        }
        cpk_batch_reset(fake, sl->num[i]);
        for (size_t k = i; k < j; k++)
            if (cpk_batch_add_num(fake, "0", 1, sl->num[k]) < 0)
                goto nomem;
        if (cpk_mapwork_batch(rw, fake, 0, 0, tmp) < 0)
            return -1;
        size_t ta = 0, tea = 0;
        for (size_t k = 0; k < tmp->n; k++) {
            if (copy_record(fin, tmp, k, ta, tea) < 0)
                goto nomem;
            ta += tmp->rec[k].out_len;
            tea += tmp->rec[k].err_len;
        }
        if (tmp->n < j - i) /* a record that ends the run */
            return 0;
        i = j;
    }
    return 0;
nomem:
    PyErr_NoMemory();
    return -1;
}

/* Input can be read without blocking (or has ended). */
static int
readable(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, 0) > 0;
}

/* A phase's return while the run goes on (no CPK_RUN_* value). */
#define RUN_GOES_ON (-2)

/* One cpk_mapdask_run, shared by its phases. */
typedef struct {
    cpk_mapdask *d;
    cpk_records *rd;
    const cpk_mapwork *w;
    const cpk_sink *sink;
    standin st;
    PyObject *cap, *keep, *give; /* st, and its two functions */
    cpk_mapwork cw, rw; /* the first pass (keep) and the second (give) */
    int rw_ready;       /* rw is for cpk_mapwork_free */
    cpk_batch b, fake;
    cpk_results fin, tmp;
    slot *slots;        /* the window: `window` batches in flight ... */
    long window;
    size_t head, count; /* ... the oldest, and how many */
    int input_done, input_rc, input_errno;
    double per_record; /* seconds of work per record, measured */
} dask_run;

/* The window, the stand-in's functions and the second pass's mapwork:
 * 0, or -1 with an exception. */
static int
start_run(dask_run *r)
{
    PyObject *win = PyObject_GetAttrString(r->d->runner, "window");
    r->window = win ? PyLong_AsLong(win) : -1;
    Py_XDECREF(win);
    if (r->window < 1) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_SystemError, "dask: no window");
        return -1;
    }
    r->slots = calloc((size_t)r->window, sizeof(*r->slots));
    r->st.calls = PyList_New(0);
    r->cap = r->st.calls ? PyCapsule_New(&r->st, "cpk_mapdask.standin", NULL)
                         : NULL;
    r->keep = r->cap ? PyCFunction_New(&keep_def, r->cap) : NULL;
    r->give = r->keep ? PyCFunction_New(&give_def, r->cap) : NULL;
    if (r->slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    if (r->give == NULL)
        return -1;
    r->cw.fn = r->keep;
    /* The second pass reads JSON "0" records, each one call of `give`.
     * What cpk_mapwork_init makes (and cpk_mapwork_free drops) is rw's
     * own: the copies of w's references are not. */
    r->rw.fn = r->give;
    r->rw.in = CPK_IN_JSON;
    r->rw.kwargs = 0;
    r->rw.enc = NULL;
    r->rw.scan_once = r->rw.json_loads = r->rw.loads_exact = NULL;
    r->rw_ready = 1; /* a failed init leaves what it made for the free */
    if (cpk_mapwork_init(&r->rw) < 0)
        return -1;
    return 0;
}

/* The next batch in r->b, as many records as a task should hold of what
 * input comes, and the end of the input noted: RUN_GOES_ON, or how the
 * run ends. */
static int
read_batch(dask_run *r)
{
    cpk_records *rd = r->rd;
    cpk_batch *b = &r->b;
    size_t target = MAX_BATCH;
    if (r->per_record > 0) {
        double n = TASK_SECONDS / r->per_record;
        target = n < 1 ? 1 : n > MAX_BATCH ? MAX_BATCH : (size_t)n;
    }
    else
        target = 1;
    cpk_batch_reset(b, rd->count + 1);
    int rc = CPK_READ_MORE, read_failed = 0;
    for (;;) {
        const char *rec;
        size_t len;
        while (b->n < target && b->data.len < BATCH_BYTES &&
               (rc = cpk_records_next(rd, &rec, &len)) == CPK_READ_RECORD)
            if (cpk_batch_add_num(b, rec, len, rd->number) < 0) {
                PyErr_NoMemory();
                return CPK_RUN_ERROR;
            }
        if (b->n >= target || b->data.len >= BATCH_BYTES ||
            rc != CPK_READ_MORE)
            break;
        /* A partial batch goes at once when no more input is ready;
         * with tasks in flight, their results are waited for instead of
         * the input. */
        if ((b->n > 0 || r->count > 0) && !readable(rd->fd))
            break;
        int f = r->sink->flush(r->sink->ctx);
        if (f != 0)
            return f < 0 ? CPK_RUN_ERROR : CPK_RUN_STOPPED;
        long got;
        Py_BEGIN_ALLOW_THREADS
        got = cpk_records_fill(rd);
        Py_END_ALLOW_THREADS
        if (got < 0) {
            if (errno == EINTR) {
                if (PyErr_CheckSignals() < 0)
                    return CPK_RUN_ERROR;
                continue;
            }
            read_failed = 1;
            r->input_errno = errno;
            break;
        }
    }
    /* A read error ends the input as the other modes end it: the
     * records before it run, then "NAME: strerror". */
    if (read_failed) {
        r->input_done = 1;
        r->input_rc = -1;
    }
    else if (rc == CPK_READ_END)
        r->input_done = 1;
    else if (rc != CPK_READ_MORE && rc != CPK_READ_RECORD) {
        r->input_done = 1;
        r->input_rc = rc;
        r->input_errno = errno;
    }
    return RUN_GOES_ON;
}

/* First pass over r->b: decoded into the window's next slot, its calls
 * kept and submitted. 0, or -1 with an exception. */
static int
submit_batch(dask_run *r)
{
    cpk_batch *b = &r->b;
    slot *sl = &r->slots[(r->head + r->count) % (size_t)r->window];
    b->end = cpk_records_consumed(r->rd);
    if (cpk_mapwork_batch(&r->cw, b, 0, 0, &sl->first) < 0)
        return -1;
    if (sl->first.n < b->n ||
        (sl->first.n > 0 &&
         cpk_rec_stops(&sl->first.rec[sl->first.n - 1],
                       r->w->keep_going))) {
        /* a refused record ends the run after it */
        r->input_done = 1;
        r->input_rc = 0;
    }
    sl->end = b->end;
    if (sl->cap < b->n) {
        uint64_t *num = realloc(sl->num, b->n * sizeof(*num));
        if (num == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        sl->num = num;
        sl->cap = b->n;
    }
    memcpy(sl->num, b->num, b->n * sizeof(*sl->num));
    sl->ncalls = PyList_GET_SIZE(r->st.calls);
    if (sl->ncalls > 0) {
        PyObject *ok = PyObject_CallMethod(r->d->runner, "submit", "O",
                                           r->st.calls);
        if (ok == NULL)
            return -1;
        Py_DECREF(ok);
        Py_SETREF(r->st.calls, PyList_New(0));
        if (r->st.calls == NULL)
            return -1;
    }
    r->count++;
    return 0;
}

/* The oldest batch, once its calls are done: rendered and handed to the
 * sink. RUN_GOES_ON, or how the run ends. */
static int
take_oldest(dask_run *r)
{
    slot *sl = &r->slots[r->head];
    PyObject *got = NULL;
    if (sl->ncalls > 0) {
        int more = !r->input_done && r->count < (size_t)r->window;
        int f = r->sink->flush(r->sink->ctx);
        if (f != 0)
            return f < 0 ? CPK_RUN_ERROR : CPK_RUN_STOPPED;
        got = more ? PyObject_CallMethod(r->d->runner, "next", "d",
                                         WAIT_SECONDS)
                   : PyObject_CallMethod(r->d->runner, "next", "O",
                                         Py_None);
        if (got == NULL)
            return CPK_RUN_ERROR;
        if (got == Py_None) {
            Py_DECREF(got);
            return RUN_GOES_ON;
        }
        PyObject *outcomes;
        double per;
        if (!PyArg_ParseTuple(got, "dO!", &per, &PyList_Type,
                              &outcomes)) {
            Py_DECREF(got);
            return CPK_RUN_ERROR;
        }
        if (per > 0)
            r->per_record = r->per_record == 0
                                ? per
                                : 0.7 * r->per_record + 0.3 * per;
        r->st.outcomes = outcomes; /* borrowed from got */
        r->st.next = 0;
    }
    int rc = render(&r->rw, &r->st, sl, &r->fin, &r->tmp, &r->fake);
    r->st.outcomes = NULL;
    Py_XDECREF(got);
    if (rc < 0)
        return CPK_RUN_ERROR;
    r->head = (r->head + 1) % (size_t)r->window;
    r->count--;
    int e = r->sink->emit(r->sink->ctx, &r->fin, sl->end);
    if (e != 0)
        return e < 0 ? CPK_RUN_ERROR : CPK_RUN_STOPPED;
    return RUN_GOES_ON;
}

/* The run, once started: the window kept full, its oldest batch taken
 * as it is done. How the run ends. */
static int
serve(dask_run *r, int *read_rc, int *read_errno)
{
    for (;;) {
        if (PyErr_CheckSignals() < 0)
            return CPK_RUN_ERROR;
        /* Fill the window. */
        while (r->count < (size_t)r->window && !r->input_done) {
            int end = read_batch(r);
            if (end != RUN_GOES_ON)
                return end;
            if (r->b.n == 0)
                break;
            if (submit_batch(r) < 0)
                return CPK_RUN_ERROR;
        }
        if (r->count == 0) {
            if (!r->input_done)
                continue;
            if (r->input_rc != 0) {
                *read_rc = r->input_rc;
                *read_errno = r->input_errno;
                return CPK_RUN_INPUT;
            }
            return CPK_RUN_DONE;
        }
        int end = take_oldest(r);
        if (end != RUN_GOES_ON)
            return end;
    }
}

int
cpk_mapdask_run(cpk_mapdask *d, cpk_records *rd, cpk_mapwork *w,
                const cpk_sink *sink, int *read_rc, int *read_errno)
{
    int status = CPK_RUN_ERROR;
    dask_run r = {.d = d, .rd = rd, .w = w, .sink = sink, .cw = *w,
                  .rw = *w};
    if (start_run(&r) == 0)
        status = serve(&r, read_rc, read_errno);
    if (status != CPK_RUN_DONE)
        cpk_mapdask_close(d); /* cancels what is in flight */
    if (r.slots != NULL)
        for (long i = 0; i < r.window; i++) {
            cpk_results_free(&r.slots[i].first);
            free(r.slots[i].num);
        }
    free(r.slots);
    if (r.rw_ready)
        cpk_mapwork_free(&r.rw);
    cpk_batch_free(&r.b);
    cpk_batch_free(&r.fake);
    cpk_results_free(&r.fin);
    cpk_results_free(&r.tmp);
    Py_XDECREF(r.give);
    Py_XDECREF(r.keep);
    Py_XDECREF(r.cap);
    Py_XDECREF(r.st.calls);
    return status;
}
