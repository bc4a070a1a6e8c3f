/* versionerror.c - the error of a pickle that holds code this CPython
 * cannot run: the load stops at the first such code object (code.c's
 * check_version, portable.c's _code_portable), and this file then names
 * every function of the pickle that cannot run here, found by the static
 * scan (pkscan.h), so that one failed load says all that must change.
 * Also the error of a portable pickle of a newer CPython whose objects
 * this one cannot rebuild. Only the error path pays for the scan. */
#include "engine/versionerror.h"
#include "core/state.h"
#include "ccloudpickle.h"
#include "common/pycompat.h"
#include "common/pyerr.h" /* cpk_error_clearable */
#include "engine/unpickler.h"
#include "scan/pkscan.h" /* pkscan_scan_limited: the pickle's functions */
#include "scan/pycompat_scan.h" /* CPK_PY_SCAN_FLAGS */
#include "types/code.h"
#include <string.h>

/* The message names at most this many functions ("and N more"), each in
 * at most this many bytes of the pickle's own text; the scan holds at
 * most CPK_EXPLAIN_SCAN_LIMIT bytes of memory. */
#define CPK_EXPLAIN_MAX 20
#define CPK_EXPLAIN_ITEM_MAX 400
#define CPK_EXPLAIN_SCAN_LIMIT ((size_t)1 << 30)

/* Append s[0, len) (a string of the pickle: UTF-8, maybe not valid) to
 * the list, cut to CPK_EXPLAIN_ITEM_MAX bytes. 0, or -1 with an error. */
static int
put(PyObject *parts, const char *s, size_t len)
{
    const char *cut = "";
    if (len > CPK_EXPLAIN_ITEM_MAX) {
        len = CPK_EXPLAIN_ITEM_MAX;
        cut = "...";
    }
    PyObject *t = PyUnicode_DecodeUTF8(s ? s : "?", s ? (Py_ssize_t)len : 1,
                                       "replace");
    if (t == NULL)
        return -1;
    if (*cut != '\0') {
        PyObject *u = PyUnicode_FromFormat("%U%s", t, cut);
        Py_SETREF(t, u);
        if (t == NULL)
            return -1;
    }
    int rc = PyList_Append(parts, t);
    Py_DECREF(t);
    return rc;
}

/* "qualname (file, line N)" of a function the scan found, as far as it
 * could read its code ("function at byte N" if not at all). */
static int
put_where(PyObject *parts, const pkscan_function *f)
{
    pkscan_str n = f->qualname.s ? f->qualname : f->name;
    PyObject *more;
    if (n.s == NULL)
        more = PyUnicode_FromFormat("function at byte %zu", f->offset);
    else if (put(parts, n.s, n.len) < 0)
        return -1;
    else if (f->filename.s == NULL)
        return 0;
    else if (put(parts, " (", 2) < 0 ||
             put(parts, f->filename.s, f->filename.len) < 0)
        return -1;
    else
        more = PyUnicode_FromFormat(", line %ld)", f->firstlineno);
    if (more == NULL)
        return -1;
    int rc = PyList_Append(parts, more);
    Py_DECREF(more);
    return rc;
}

/* 1 if this Python cannot run f's code: bytecode of another magic and
 * no source to compile (pkscan_function.portable). */
static int
cannot_run(const pkscan_function *f, long ours)
{
    return f->magic >= 0 && f->magic != ours && f->portable != 1;
}

/* The Python that compiled f's code, as the pickle names it ("3.11"),
 * else "of bytecode version N": a new reference, or NULL with an error. */
static PyObject *
writer(const pkscan_function *f)
{
    if (f->python_version.s != NULL)
        return PyUnicode_DecodeUTF8(f->python_version.s,
                                    (Py_ssize_t)f->python_version.len,
                                    "replace");
    return PyUnicode_FromFormat("of bytecode version %ld", f->magic);
}

/* The message for the report `r`, which has `n` functions that cannot
 * run here (new reference), or NULL with an error. */
static PyObject *
message(const pkscan_report *r, size_t n, long ours)
{
    PyObject *mine = cpk_python_version();
    PyObject *parts = PyList_New(0);
    PyObject *theirs = NULL, *list = NULL, *empty = NULL, *msg = NULL;
    if (mine == NULL || parts == NULL)
        goto done;
    const pkscan_function *first = NULL;
    int any_portable = 0; /* some carry the reason they have no source */
    for (size_t i = 0; i < r->n_functions; i++)
        if (cannot_run(&r->functions[i], ours)) {
            if (first == NULL)
                first = &r->functions[i];
            any_portable |= r->functions[i].portable == 0;
        }
    theirs = writer(first);
    if (theirs == NULL)
        goto done;
    size_t listed = 0;
    for (size_t i = 0; i < r->n_functions && listed < CPK_EXPLAIN_MAX; i++) {
        const pkscan_function *f = &r->functions[i];
        if (!cannot_run(f, ours))
            continue;
        if (listed++ > 0 && put(parts, "; ", 2) < 0)
            goto done;
        if (f->portable == 0) {
            if (put(parts, f->portable_why.s, f->portable_why.len) < 0)
                goto done;
        }
        else if (put_where(parts, f) < 0 ||
                 (any_portable &&
                  put(parts, ": pickled without portable=True", 31) < 0))
            goto done;
    }
    if (n > listed) {
        PyObject *more = PyUnicode_FromFormat("; and %zu more", n - listed);
        if (more == NULL || PyList_Append(parts, more) < 0) {
            Py_XDECREF(more);
            goto done;
        }
        Py_DECREF(more);
    }
    empty = PyUnicode_New(0, 0);
    list = empty ? PyUnicode_Join(empty, parts) : NULL;
    if (list == NULL)
        goto done;
    /* The words of the single error this replaces (portable.c, code.c):
     * CPK_VERSION_ERROR_PREFIX first, "compiled by Python" for
     * cloudpickle-load's exit status. */
    if (!any_portable)
        msg = PyUnicode_FromFormat(
            CPK_VERSION_ERROR_PREFIX "compiled by Python %U, which Python "
            "%U cannot run (function%s: %U): load it with Python %U, or "
            "pickle it with portable=True",
            theirs, mine, n == 1 ? "" : "s", list, theirs);
    else if (n == 1)
        msg = PyUnicode_FromFormat(
            CPK_VERSION_ERROR_PREFIX "compiled by Python %U, which Python "
            "%U cannot run, and function %U carries no source to compile "
            "again: load it with Python %U",
            theirs, mine, list, theirs);
    else
        msg = PyUnicode_FromFormat(
            CPK_VERSION_ERROR_PREFIX "compiled by Python %U, which Python "
            "%U cannot run, and %zu functions carry no source to compile "
            "again: %U: load it with Python %U",
            theirs, mine, n, list, theirs);
done:
    Py_XDECREF(mine);
    Py_XDECREF(parts);
    Py_XDECREF(theirs);
    Py_XDECREF(list);
    Py_XDECREF(empty);
    return msg;
}

/* The first function of the report `r` compiled by a newer Python than
 * this one (bytecode magic numbers grow from one CPython version to the
 * next), portable or not; NULL if none. */
static const pkscan_function *
newer_code(const pkscan_report *r, long ours)
{
    char mine[16];
    int n = snprintf(mine, sizeof(mine), "%d.%d", PY_MAJOR_VERSION,
                     PY_MINOR_VERSION);
    for (size_t i = 0; i < r->n_functions; i++) {
        const pkscan_function *f = &r->functions[i];
        /* a higher magic that says our own version is no newer Python */
        if (f->magic > ours &&
            !(f->python_version.s != NULL &&
              f->python_version.len == (size_t)n &&
              memcmp(f->python_version.s, mine, (size_t)n) == 0))
            return f;
    }
    return NULL;
}

/* 1 if the normalized exception `exc` (traceback `tb`, borrowed) of a
 * failed load is what a load of a newer Python's objects raises where
 * this Python's classes lack their state: 3.11's dataclasses.Field state
 * sets kw_only, a slot 3.9's Field lacks, and setattr raises
 * AttributeError; 3.12's _DataclassParams state does the same under 3.10
 * and 3.11. That is what a state or a constructor's arguments that do not
 * fit raise, an AttributeError or a TypeError (nothing else: a ValueError,
 * an OSError, an EOFError at the end of a stream, a RecursionError say
 * something of their own), raised by no Python code (the unpickler
 * restoring a state, a C type called; a __setstate__ or reconstructor
 * written in Python leaves its frame in the traceback, and its error is
 * the pickle's own), and not find_class's AttributeError for a name a
 * module lacks (CPython's "Can't get attribute" and "Can't get/pickle
 * local attribute" of 3.9-3.13, and cpk_missing_own_name's): the pickle
 * needs an object that cannot be loaded, said as such. */
static int
rebuild_failure(PyObject *exc, PyObject *tb)
{
    if (exc == NULL || tb != NULL ||
        !(PyErr_GivenExceptionMatches(exc, PyExc_AttributeError) ||
          PyErr_GivenExceptionMatches(exc, PyExc_TypeError)))
        return 0;
    PyObject *own_tb = PyException_GetTraceback(exc);
    if (own_tb != NULL) {
        Py_DECREF(own_tb);
        return 0;
    }
    if (!PyErr_GivenExceptionMatches(exc, PyExc_AttributeError))
        return 1;
    static const char *const lookups[] = {
        "Can't get attribute ", "Can't get local attribute ",
        "Can't pickle local attribute ", CPK_MISSING_OWN_NAME_PREFIX};
    PyObject *text = PyObject_Str(exc);
    const char *t = text ? PyUnicode_AsUTF8(text) : NULL;
    int lookup = t == NULL; /* unreadable: not ours to explain */
    for (size_t i = 0; t != NULL && i < sizeof(lookups) / sizeof(*lookups);
         i++)
        lookup |= strncmp(t, lookups[i], strlen(lookups[i])) == 0;
    Py_XDECREF(text);
    return !lookup;
}

/* The message for a load that failed rebuilding the objects of the
 * newer Python that compiled f's code, with the exception `exc` (new
 * reference), or NULL with an error. */
static PyObject *
rebuild_message(const pkscan_function *f, PyObject *exc)
{
    PyObject *mine = cpk_python_version();
    PyObject *theirs = mine ? writer(f) : NULL;
    PyObject *msg = NULL;
    if (theirs != NULL)
        msg = PyUnicode_FromFormat(
            CPK_VERSION_ERROR_PREFIX "compiled by Python %U, with objects "
            "Python %U cannot rebuild (%s: %S): load it with Python %U",
            theirs, mine, Py_TYPE(exc)->tp_name, exc, theirs);
    Py_XDECREF(mine);
    Py_XDECREF(theirs);
    return msg;
}

/* 1 if the normalized exception `exc` is one of the version errors. */
static int
is_version_error(cpk_state *st, PyObject *exc)
{
    /* Exactly them: not PolicyError nor SignatureError (subclasses), nor
     * another UnpicklingError of the same load. */
    if (exc == NULL || (PyObject *)Py_TYPE(exc) != st->UnpicklingError)
        return 0;
    PyObject *text = PyObject_Str(exc);
    const char *t = text ? PyUnicode_AsUTF8(text) : NULL;
    int is = t != NULL && strncmp(t, CPK_VERSION_ERROR_PREFIX,
                                  strlen(CPK_VERSION_ERROR_PREFIX)) == 0;
    Py_XDECREF(text);
    return is;
}

int
cpk_version_error_pending(cpk_state *st)
{
    if (!PyErr_ExceptionMatches(st->UnpicklingError))
        return 0;
    PyObject *type, *exc, *tb;
    PyErr_Fetch(&type, &exc, &tb);
    PyErr_NormalizeException(&type, &exc, &tb);
    int is = is_version_error(st, exc);
    PyErr_Clear();
    PyErr_Restore(type, exc, tb);
    return is;
}

/* 1 if the pending exception may be replaced by the version error when
 * the pickle holds code this Python cannot run: the version errors, and
 * what a load of another Python's objects raises before it reaches that
 * code (a 3.11 dataclass Field's state sets kw_only, which 3.9's Field
 * lacks: AttributeError). Never MemoryError or what is not an Exception,
 * nor the UnpicklingErrors that say something else (malformed input,
 * PolicyError, SignatureError, FormatError). */
static int
explainable(cpk_state *st)
{
    if (cpk_version_error_pending(st))
        return 1;
    return cpk_error_clearable() &&
           !PyErr_ExceptionMatches(st->UnpicklingError);
}

/* The scan of buf[0, len): a report of status OK or TRAILING, or NULL. */
static pkscan_report *
scan(const void *buf, size_t len)
{
    pkscan_report *r = pkscan_scan_limited(buf, len, CPK_PY_SCAN_FLAGS,
                                           CPK_EXPLAIN_SCAN_LIMIT);
    if (r != NULL && r->status != PKSCAN_OK &&
        r->status != PKSCAN_ERR_TRAILING) {
        pkscan_free(r);
        r = NULL;
    }
    return r;
}

/* Replace the pending error (explainable, checked by the caller) with
 * the version error, if the report `r` (owned by the caller) has
 * functions that cannot run here (the error names every one), or else,
 * when `rebuild` is set (r is surely the pickle that failed), code of a
 * newer Python and the error is a rebuild_failure: 1 if replaced, else
 * 0. */
static int
explain_report(cpk_state *st, const pkscan_report *r, int rebuild)
{
    PyObject *type, *exc, *tb;
    PyErr_Fetch(&type, &exc, &tb);
    PyErr_NormalizeException(&type, &exc, &tb);
    PyObject *msg = NULL;
    long ours = PyLong_AsLong(st->magic_int) & 0xFFFF;
    size_t n = 0;
    for (size_t i = 0; exc != NULL && i < r->n_functions; i++)
        n += cannot_run(&r->functions[i], ours);
    const pkscan_function *newer = NULL;
    if (n > 0)
        msg = message(r, n, ours);
    else if (rebuild && exc != NULL &&
             (newer = newer_code(r, ours)) != NULL &&
             rebuild_failure(exc, tb))
        msg = rebuild_message(newer, exc);
    if (msg == NULL)
        goto keep;
    /* The new error, caused by the one the load raised. */
    PyObject *now = PyObject_CallOneArg(st->UnpicklingError, msg);
    if (now == NULL)
        goto keep;
    if (tb != NULL)
        PyException_SetTraceback(exc, tb);
    PyException_SetCause(now, exc); /* steals exc */
    Py_DECREF(type);
    Py_XDECREF(tb);
    Py_DECREF(msg);
    PyErr_SetObject((PyObject *)Py_TYPE(now), now);
    Py_DECREF(now);
    return 1;
keep:
    /* Any failure here leaves the load's own error, which is true too
     * (a MemoryError of ours would hide it). */
    if (PyErr_Occurred())
        PyErr_Clear();
    Py_XDECREF(msg);
    PyErr_Restore(type, exc, tb);
    return 0;
}

void
cpk_version_error_explain(cpk_state *st, PyObject *data)
{
    if (!explainable(st))
        return;
    PyObject *type, *exc, *tb;
    Py_buffer view;
    PyErr_Fetch(&type, &exc, &tb);
    int ok = PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) == 0;
    PyErr_Clear();
    PyErr_Restore(type, exc, tb);
    if (!ok)
        return;
    /* Under the GIL: nobody changes a bytearray meanwhile. The report
     * keeps no pointer into the data. */
    pkscan_report *r = scan(view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    if (r != NULL)
        (void)explain_report(st, r, 1);
    pkscan_free(r);
}

/* The name of ours the report lists that `module` lacks and that the
 * message `msg` of the AttributeError names (pickle's find_class: "Can't
 * get attribute '_x' on <module 'ccloudpickle' ...>"), as a new str;
 * NULL without an error if none, NULL with one on failure. */
static PyObject *
missing_own_name(PyObject *module, const pkscan_report *r, PyObject *msg)
{
    PyObject *own = PyUnicode_FromString(CPK_MODULE_NAME);
    if (own == NULL)
        return NULL;
    Py_ssize_t at = PyUnicode_Find(msg, own, 0, PyUnicode_GET_LENGTH(msg), 1);
    Py_DECREF(own);
    if (at < 0)
        return NULL; /* -2 with an error, -1 not about our module */
    for (size_t i = 0; i < r->n_imports; i++) {
        const pkscan_import *im = &r->imports[i];
        if (im->module.s == NULL || im->name.s == NULL ||
            im->module.len != strlen(CPK_MODULE_NAME) ||
            memcmp(im->module.s, CPK_MODULE_NAME, im->module.len) != 0)
            continue;
        PyObject *name = PyUnicode_DecodeUTF8(im->name.s,
                                              (Py_ssize_t)im->name.len,
                                              "replace");
        if (name == NULL)
            return NULL;
        PyObject *v = NULL;
        int has = PyObject_GetOptionalAttr(module, name, &v), named = 0;
        Py_XDECREF(v);
        if (has == 0) {
            PyObject *rep = PyObject_Repr(name);
            at = rep ? PyUnicode_Find(msg, rep, 0, PyUnicode_GET_LENGTH(msg),
                                      1)
                     : -2;
            Py_XDECREF(rep);
            has = at == -2 ? -1 : 0;
            named = at >= 0;
        }
        if (named)
            return name;
        Py_DECREF(name);
        if (has < 0)
            return NULL;
    }
    return NULL;
}

void
cpk_missing_name_explain(PyObject *module, PyObject *data)
{
    if (!PyErr_ExceptionMatches(PyExc_AttributeError))
        return;
    PyObject *type, *exc, *tb;
    Py_buffer view;
    PyErr_Fetch(&type, &exc, &tb);
    PyErr_NormalizeException(&type, &exc, &tb);
    if (tb != NULL)
        PyException_SetTraceback(exc, tb);
    PyObject *name = NULL, *msg = PyObject_Str(exc);
    if (msg != NULL && PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) == 0) {
        pkscan_report *r = scan(view.buf, (size_t)view.len);
        PyBuffer_Release(&view);
        if (r != NULL)
            name = missing_own_name(module, r, msg);
        pkscan_free(r);
    }
    Py_XDECREF(msg);
    if (name == NULL) {
        /* not one of ours (or the search failed): the original stands */
        PyErr_Clear();
        PyErr_Restore(type, exc, tb);
        return;
    }
    cpk_missing_own_name(name);
    Py_DECREF(name);
    PyObject *t2, *e2, *tb2;
    PyErr_Fetch(&t2, &e2, &tb2);
    PyErr_NormalizeException(&t2, &e2, &tb2);
    PyException_SetCause(e2, Py_NewRef(exc));
    PyException_SetContext(e2, exc); /* steals exc */
    PyErr_Restore(t2, e2, tb2);
    Py_XDECREF(type);
    Py_XDECREF(tb);
}

/* load(file) does not ask where the pickle starts (a tell() per load
 * costs a system call on a real file): the failed load left the file at
 * `at`, inside or at the end of the pickle. The file is read from its
 * start, and the pickle is the one of the pickles written back to back
 * from there whose bytes end at or after `at`. A file that does not
 * start with pickles, or cannot seek, keeps the load's own error. */
void
cpk_version_error_explain_file(cpk_state *st, PyObject *file)
{
    if (!explainable(st))
        return;
    PyObject *type, *exc, *tb;
    PyErr_Fetch(&type, &exc, &tb);
    long ours = PyLong_AsLong(st->magic_int) & 0xFFFF; /* a small int */
    PyObject *data = NULL, *r = NULL;
    PyObject *at = PyObject_CallMethod(file, "tell", NULL);
    Py_ssize_t pos = at && PyLong_Check(at) ? PyLong_AsSsize_t(at) : -1;
    if (pos >= 0 && (r = PyObject_CallMethod(file, "seek", "i", 0)) != NULL) {
        Py_DECREF(r);
        data = PyObject_CallMethod(file, "read", NULL);
        /* Back where the failed load left it, whatever read() did; its
         * error (a KeyboardInterrupt) is kept aside meanwhile: no call
         * is made with an exception set. */
        PyObject *rt, *rv, *rtb;
        PyErr_Fetch(&rt, &rv, &rtb);
        r = PyObject_CallMethod(file, "seek", "O", at);
        Py_XDECREF(r);
        if (rt != NULL) {
            PyErr_Clear(); /* the seek's own error matters less */
            PyErr_Restore(rt, rv, rtb);
        }
    }
    Py_XDECREF(at);
    if (PyErr_Occurred()) {
        if (!cpk_error_clearable()) {
            /* KeyboardInterrupt meanwhile: it replaces the load's error */
            Py_XDECREF(type);
            Py_XDECREF(exc);
            Py_XDECREF(tb);
            Py_XDECREF(data);
            return;
        }
        PyErr_Clear();
    }
    PyErr_Restore(type, exc, tb);
    if (data == NULL || !PyBytes_Check(data)) {
        Py_XDECREF(data);
        return;
    }
    const char *buf = PyBytes_AS_STRING(data);
    size_t len = (size_t)PyBytes_GET_SIZE(data), off = 0;
    /* The failing pickle is one whose bytes reach the position: a
     * BytesIO stops inside it or at its end, a buffered file (which
     * _pickle reads ahead of, with peek) at its first byte, the end of
     * the one before. The first of those with code that cannot run here
     * is it. A newer Python's objects that failed (rebuild_failure) are
     * told only where the failing pickle is sure: the position inside
     * one, or at an end that no pickle follows, or between two that both
     * hold a newer Python's code. */
    while (off < len && off <= (size_t)pos) {
        pkscan_report *rep = scan(buf + off, len - off);
        if (rep == NULL)
            break;
        size_t end = off + rep->stop_offset + 1;
        int done = 0;
        if (end >= (size_t)pos) {
            int rebuild = end > (size_t)pos || end >= len;
            if (!rebuild && newer_code(rep, ours) != NULL) {
                pkscan_report *next = scan(buf + end, len - end);
                rebuild = next != NULL && newer_code(next, ours) != NULL;
                pkscan_free(next);
            }
            done = explain_report(st, rep, rebuild);
        }
        pkscan_free(rep);
        if (done || end <= off)
            break;
        off = end;
    }
    Py_DECREF(data);
}
