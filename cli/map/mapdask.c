/* mapdask.c - cloudpickle-load --map --dask (mapdask.h): records decoded
 * and results rendered here by mapwork.c, calls run on the cluster by
 * python/_ccloudpickle_dask.py, output in input order by map.c's sink. */
#include "map/mapdask.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "common/host.h"
#include "common/message.h"
#include "common/pycompat.h" /* Py_NewRef before 3.10 */

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

int
cpk_mapdask_run(cpk_mapdask *d, cpk_reader *rd, cpk_mapwork *w,
                const cpk_sink *sink, int *read_rc, int *read_errno)
{
    int status = CPK_RUN_ERROR;
    standin st = {0};
    PyObject *cap = NULL, *keep = NULL, *give = NULL;
    cpk_mapwork cw = *w, rw = *w;
    int rw_ready = 0;
    cpk_batch b = {0}, fake = {0};
    cpk_results fin = {0}, tmp = {0};
    slot *slots = NULL;
    size_t head = 0, count = 0;
    int input_done = 0, input_rc = 0, input_errno = 0;
    double per_record = 0; /* seconds of work per record, measured */

    PyObject *win = PyObject_GetAttrString(d->runner, "window");
    long window = win ? PyLong_AsLong(win) : -1;
    Py_XDECREF(win);
    if (window < 1) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_SystemError, "dask: no window");
        goto done;
    }
    slots = calloc((size_t)window, sizeof(*slots));
    st.calls = PyList_New(0);
    cap = st.calls ? PyCapsule_New(&st, "cpk_mapdask.standin", NULL) : NULL;
    keep = cap ? PyCFunction_New(&keep_def, cap) : NULL;
    give = keep ? PyCFunction_New(&give_def, cap) : NULL;
    if (slots == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (give == NULL)
        goto done;
    cw.fn = keep;
    /* The second pass reads JSON "0" records, each one call of `give`.
     * What cpk_mapwork_init makes (and cpk_mapwork_free drops) is rw's
     * own: the copies of w's references are not. */
    rw.fn = give;
    rw.in = CPK_IN_JSON;
    rw.kwargs = 0;
    rw.enc = NULL;
    rw.scan_once = rw.json_loads = rw.loads_exact = NULL;
    rw_ready = 1; /* a failed init leaves what it made for the free */
    if (cpk_mapwork_init(&rw) < 0)
        goto done;

    for (;;) {
        if (PyErr_CheckSignals() < 0)
            goto done;
        /* Fill the window. */
        while (count < (size_t)window && !input_done) {
            size_t target = MAX_BATCH;
            if (per_record > 0) {
                double n = TASK_SECONDS / per_record;
                target = n < 1 ? 1 : n > MAX_BATCH ? MAX_BATCH : (size_t)n;
            }
            else
                target = 1;
            cpk_batch_reset(&b, rd->count + 1);
            int rc = CPK_READ_MORE, read_failed = 0;
            for (;;) {
                const char *rec;
                size_t len;
                while (b.n < target && b.data.len < BATCH_BYTES &&
                       (rc = cpk_reader_next(rd, &rec, &len)) ==
                           CPK_READ_RECORD)
                    if (cpk_batch_add_num(&b, rec, len, rd->number) < 0) {
                        PyErr_NoMemory();
                        goto done;
                    }
                if (b.n >= target || b.data.len >= BATCH_BYTES ||
                    rc != CPK_READ_MORE)
                    break;
                /* A partial batch goes at once when no more input is
                 * ready; with tasks in flight, their results are waited
                 * for instead of the input. */
                if ((b.n > 0 || count > 0) && !readable(rd->fd))
                    break;
                int f = sink->flush(sink->ctx);
                if (f != 0) {
                    status = f < 0 ? CPK_RUN_ERROR : CPK_RUN_STOPPED;
                    goto done;
                }
                long got;
                Py_BEGIN_ALLOW_THREADS
                got = cpk_reader_fill(rd);
                Py_END_ALLOW_THREADS
                if (got < 0) {
                    if (errno == EINTR) {
                        if (PyErr_CheckSignals() < 0)
                            goto done;
                        continue;
                    }
                    read_failed = 1;
                    input_errno = errno;
                    break;
                }
            }
            /* A read error ends the input as the other modes end it:
             * the records before it run, then "NAME: strerror". */
            if (read_failed) {
                input_done = 1;
                input_rc = -1;
            }
            else if (rc == CPK_READ_END)
                input_done = 1;
            else if (rc != CPK_READ_MORE && rc != CPK_READ_RECORD) {
                input_done = 1;
                input_rc = rc;
                input_errno = errno;
            }
            if (b.n == 0)
                break;
            /* First pass: decode, keep the calls. */
            slot *sl = &slots[(head + count) % (size_t)window];
            b.end = cpk_reader_consumed(rd);
            if (cpk_mapwork_batch(&cw, &b, 0, 0, &sl->first) < 0)
                goto done;
            if (sl->first.n < b.n ||
                (sl->first.n > 0 &&
                 cpk_rec_stops(&sl->first.rec[sl->first.n - 1],
                               w->keep_going))) {
                /* a refused record ends the run after it */
                input_done = 1;
                input_rc = 0;
            }
            sl->end = b.end;
            if (sl->cap < b.n) {
                uint64_t *num = realloc(sl->num, b.n * sizeof(*num));
                if (num == NULL) {
                    PyErr_NoMemory();
                    goto done;
                }
                sl->num = num;
                sl->cap = b.n;
            }
            memcpy(sl->num, b.num, b.n * sizeof(*sl->num));
            sl->ncalls = PyList_GET_SIZE(st.calls);
            if (sl->ncalls > 0) {
                PyObject *r = PyObject_CallMethod(d->runner, "submit", "O",
                                                  st.calls);
                if (r == NULL)
                    goto done;
                Py_DECREF(r);
                Py_SETREF(st.calls, PyList_New(0));
                if (st.calls == NULL)
                    goto done;
            }
            count++;
        }
        if (count == 0) {
            if (!input_done)
                continue;
            if (input_rc != 0) {
                *read_rc = input_rc;
                *read_errno = input_errno;
                status = CPK_RUN_INPUT;
            }
            else
                status = CPK_RUN_DONE;
            goto done;
        }
        /* The oldest batch, once done. */
        slot *sl = &slots[head];
        PyObject *got = NULL;
        if (sl->ncalls > 0) {
            int more = !input_done && count < (size_t)window;
            int f = sink->flush(sink->ctx);
            if (f != 0) {
                status = f < 0 ? CPK_RUN_ERROR : CPK_RUN_STOPPED;
                goto done;
            }
            got = more ? PyObject_CallMethod(d->runner, "next", "d",
                                             WAIT_SECONDS)
                       : PyObject_CallMethod(d->runner, "next", "O",
                                             Py_None);
            if (got == NULL)
                goto done;
            if (got == Py_None) {
                Py_DECREF(got);
                continue;
            }
            PyObject *outcomes;
            double per;
            if (!PyArg_ParseTuple(got, "dO!", &per, &PyList_Type,
                                  &outcomes)) {
                Py_DECREF(got);
                goto done;
            }
            if (per > 0)
                per_record = per_record == 0 ? per
                                             : 0.7 * per_record + 0.3 * per;
            st.outcomes = outcomes;
            st.next = 0;
        }
        int rc = render(&rw, &st, sl, &fin, &tmp, &fake);
        st.outcomes = NULL;
        Py_XDECREF(got);
        if (rc < 0)
            goto done;
        head = (head + 1) % (size_t)window;
        count--;
        int e = sink->emit(sink->ctx, &fin, sl->end);
        if (e != 0) {
            status = e < 0 ? CPK_RUN_ERROR : CPK_RUN_STOPPED;
            goto done;
        }
    }
done:
    if (status != CPK_RUN_DONE)
        cpk_mapdask_close(d); /* cancels what is in flight */
    if (slots != NULL)
        for (long i = 0; i < window; i++) {
            cpk_results_free(&slots[i].first);
            free(slots[i].num);
        }
    free(slots);
    if (rw_ready)
        cpk_mapwork_free(&rw);
    cpk_batch_free(&b);
    cpk_batch_free(&fake);
    cpk_results_free(&fin);
    cpk_results_free(&tmp);
    Py_XDECREF(give);
    Py_XDECREF(keep);
    Py_XDECREF(cap);
    Py_XDECREF(st.calls);
    return status;
}
