/* mapwork.c - one batch of --map records through the function
 * (mapwork.h). Runs in the program (-j 1) and in worker processes. */
#include "map/mapwork.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ccloudpickle.h"     /* cpk_loads_input */
#include "common/bytebuf.h" /* cpk_results' out and err */
#include "common/message.h"
#include "common/pycompat.h" /* Py_NewRef before 3.10 */
#include "common/safetext.h"
#include "map/signed.h"
#include "common/pyerr.h"    /* cpk_error_clearable */
#include "map/callio.h" /* cpk_encode_result, cpk_error_info */
#include "map/records.h" /* cpk_batch */
#include "scan/pkscan.h" /* pkscan_report */

void
cpk_results_reset(cpk_results *res, uint64_t first)
{
    res->first = first;
    res->n = 0;
    res->out.len = 0;
    res->err.len = 0;
}

void
cpk_results_free(cpk_results *res)
{
    free(res->rec);
    cpk_bytebuf_release(&res->out);
    cpk_bytebuf_release(&res->err);
    memset(res, 0, sizeof(*res));
}

int
cpk_results_add(cpk_results *res, cpk_rec_kind kind, int status,
                const char *out, size_t out_len, const char *err,
                size_t err_len)
{
    if (out_len > UINT32_MAX || err_len > UINT32_MAX)
        return -1;
    if (res->n == res->cap) {
        size_t cap = res->cap ? res->cap * 2 : 64;
        cpk_rec_result *rec = realloc(res->rec, cap * sizeof(*rec));
        if (rec == NULL)
            return -1;
        res->rec = rec;
        res->cap = cap;
    }
    size_t out_at = res->out.len;
    if (cpk_bytebuf_put(&res->out, out, out_len) < 0 ||
        cpk_bytebuf_put(&res->err, err, err_len) < 0) {
        res->out.len = out_at;
        return -1;
    }
    res->rec[res->n++] = (cpk_rec_result){
        .kind = (uint8_t)kind,
        .status = status,
        .out_len = (uint32_t)out_len,
        .err_len = (uint32_t)err_len,
    };
    return 0;
}

int
cpk_rec_stops(const cpk_rec_result *r, int keep_going)
{
    return r->kind != CPK_REC_OK && !keep_going;
}

int
cpk_mapwork_init(cpk_mapwork *w)
{
    w->enc = cpk_encoder_new(w->result);
    if (w->enc == NULL)
        return -1;
    if (w->in == CPK_IN_JSON) {
        PyObject *json = PyImport_ImportModule("json");
        PyObject *cls = json ? PyObject_GetAttrString(json, "JSONDecoder")
                             : NULL;
        PyObject *dec = cls ? PyObject_CallNoArgs(cls) : NULL;
        w->scan_once = dec ? PyObject_GetAttrString(dec, "scan_once") : NULL;
        w->json_loads = json ? PyObject_GetAttrString(json, "loads") : NULL;
        Py_XDECREF(dec);
        Py_XDECREF(cls);
        Py_XDECREF(json);
        if (w->scan_once == NULL || w->json_loads == NULL)
            return -1;
    }
    else {
        w->module = PyImport_ImportModule("ccloudpickle");
        w->loads_exact = w->module ? PyObject_GetAttrString(w->module,
                                                            "_loads_exact")
                                   : NULL;
        if (w->loads_exact == NULL)
            return -1;
    }
    return 0;
}

void
cpk_mapwork_free(cpk_mapwork *w)
{
    cpk_encoder_free(w->enc);
    w->enc = NULL;
    Py_CLEAR(w->scan_once);
    Py_CLEAR(w->json_loads);
    Py_CLEAR(w->loads_exact);
    Py_CLEAR(w->module);
}

/* What a record leaves behind, being rendered: text for standard error
 * and bytes for the output stream. */
typedef struct {
    cpk_bytebuf out;
    cpk_bytebuf err;
} render;

/* Append printf-style text to b (cut at 4 KiB). */
static void
addf(cpk_bytebuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void
addf(cpk_bytebuf *b, const char *fmt, ...)
{
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    (void)cpk_bytebuf_put(b, line, (size_t)n < sizeof(line) ? (size_t)n
                                                       : sizeof(line) - 1);
}

/* `text` escaped for a terminal (safetext.h), appended to b. */
static void
add_safe(cpk_bytebuf *b, const char *text, size_t n)
{
    char *safe = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&safe, &len);
    if (m == NULL)
        return;
    cpk_put_safe(m, text, n);
    if (fclose(m) == 0)
        (void)cpk_bytebuf_put(b, safe, len);
    free(safe);
}

/* The line that names a failed record: "prog: NAME: record N: " */
static void
add_prefix(cpk_bytebuf *b, const cpk_mapwork *w, uint64_t record)
{
    addf(b, "%s: %s: record %llu: ", cpk_prog, w->input_name,
         (unsigned long long)record);
}

/* str(o) as UTF-8 appended to b ("?" when it cannot be had). */
static void
add_str(cpk_bytebuf *b, PyObject *o)
{
    Py_ssize_t n;
    const char *s = o && PyUnicode_Check(o) ? PyUnicode_AsUTF8AndSize(o, &n)
                                            : NULL;
    if (s == NULL) {
        PyErr_Clear();
        (void)cpk_bytebuf_put(b, "?", 1);
        return;
    }
    add_safe(b, s, (size_t)n);
}

/* The error record of --keep-going on the output stream: {"error": info}
 * as a JSON line (repr and json), pickled (pickle), or nothing (none).
 * 0, or -1 with an exception. */
static int
error_record(cpk_mapwork *w, PyObject *info, cpk_bytebuf *out)
{
    if (!w->keep_going || w->result == CPK_RESULT_NONE)
        return 0;
    PyObject *rec = Py_BuildValue("{sO}", "error", info);
    if (rec == NULL)
        return -1;
    int rc;
    if (w->result == CPK_RESULT_PICKLE) {
        char *why = NULL;
        rc = cpk_encode_result(w->enc, rec, out, &why);
        if (rc > 0) { /* a dict of str and int pickles */
            free(why);
            PyErr_SetString(PyExc_SystemError, "cannot pickle an error");
            rc = -1;
        }
    }
    else
        rc = cpk_error_info_json(rec, out);
    Py_DECREF(rec);
    return rc;
}

/* Render the exception the function raised for `record`: a line naming
 * the record on standard error (or the JSON object with --error-json),
 * and the error record. The traceback goes before that line when the run
 * stops here, and into the error record under --keep-going (on standard
 * error still when there is no error record: --result none). 0, or -1
 * with an exception that must propagate. */
static int
render_raised(cpk_mapwork *w, uint64_t record, render *r)
{
    PyObject *info = cpk_error_info((long long)record);
    if (info == NULL)
        return -1;
    int rc = 0;
    if (w->error_json)
        rc = cpk_error_info_json(info, &r->err);
    else {
        PyObject *tb = PyDict_GetItemString(info, "traceback"); /* borrowed */
        Py_ssize_t n;
        int show = !w->keep_going || w->result == CPK_RESULT_NONE;
        const char *s = show && tb && PyUnicode_Check(tb)
                            ? PyUnicode_AsUTF8AndSize(tb, &n)
                            : NULL;
        if (s != NULL)
            (void)cpk_bytebuf_put(&r->err, s, (size_t)n);
        PyErr_Clear();
        add_prefix(&r->err, w, record);
        add_str(&r->err, PyDict_GetItemString(info, "type"));
        PyObject *msg = PyDict_GetItemString(info, "message");
        if (msg != NULL && PyUnicode_Check(msg) &&
            PyUnicode_GET_LENGTH(msg) > 0) {
            (void)cpk_bytebuf_put(&r->err, ": ", 2);
            add_str(&r->err, msg);
        }
        (void)cpk_bytebuf_put(&r->err, "\n", 1);
    }
    if (rc == 0)
        rc = error_record(w, info, &r->out);
    Py_DECREF(info);
    return rc;
}

/* A result with no form in the format: the same two renderings, the
 * error's type being "EncodeError" and its message `why`. */
static int
render_unencodable(cpk_mapwork *w, uint64_t record, const char *why,
                   render *r)
{
    PyObject *info = Py_BuildValue("{sssssssK}", "type", "EncodeError",
                                   "message", why, "traceback", "",
                                   "record", (unsigned long long)record);
    if (info == NULL)
        return -1;
    int rc = 0;
    if (w->error_json)
        rc = cpk_error_info_json(info, &r->err);
    else {
        add_prefix(&r->err, w, record);
        add_safe(&r->err, why, strlen(why));
        (void)cpk_bytebuf_put(&r->err, "\n", 1);
    }
    if (rc == 0)
        rc = error_record(w, info, &r->out);
    Py_DECREF(info);
    return rc;
}

/* The run's exit status for the SystemExit being raised (left set): the
 * status it asks for when that is a number other than 0 (modulo 256, as
 * the interpreter computes it), else 1: a record that exits has failed,
 * whatever status it names, and the run cannot look complete. */
static int
exit_code(void)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    int status = CPK_EXIT_RAISED;
    PyObject *code = value && PyObject_TypeCheck(value, (PyTypeObject *)
                                                 PyExc_SystemExit)
                         ? ((PySystemExitObject *)value)->code
                         : NULL; /* borrowed: nothing runs while used */
    if (code != NULL && PyLong_Check(code)) {
        int overflow = 0;
        long v = PyLong_AsLongAndOverflow(code, &overflow);
        if (v == -1 && PyErr_Occurred())
            PyErr_Clear();
        else if (!overflow && (v & 0xff) != 0)
            status = (int)(v & 0xff);
    }
    PyErr_Restore(type, value, tb);
    return status;
}

/* A record that cannot be decoded, its reason already on r->err as
 * "prog: NAME: record N: reason": under --keep-going, the error record
 * {"type": "InvalidRecord", "message": reason, ...} (and the JSON object
 * on standard error with --error-json). 0, or -1 with an exception. */
static int
render_bad(cpk_mapwork *w, uint64_t record, render *r)
{
    if (!w->keep_going)
        return 0;
    cpk_bytebuf prefix = {0};
    add_prefix(&prefix, w, record);
    size_t at = 0, end = r->err.len;
    if (prefix.len <= end && memcmp(r->err.data, prefix.data, prefix.len) == 0)
        at = prefix.len;
    cpk_bytebuf_release(&prefix);
    while (end > at && r->err.data[end - 1] == '\n')
        end--;
    PyObject *msg = PyUnicode_DecodeUTF8(r->err.data + at,
                                         (Py_ssize_t)(end - at), "replace");
    if (msg == NULL)
        return -1;
    PyObject *info = Py_BuildValue("{sssNsssK}", "type", "InvalidRecord",
                                   "message", msg, "traceback", "",
                                   "record", (unsigned long long)record);
    if (info == NULL)
        return -1;
    int rc = 0;
    if (w->error_json) {
        r->err.len = 0;
        rc = cpk_error_info_json(info, &r->err);
    }
    if (rc == 0)
        rc = error_record(w, info, &r->out);
    Py_DECREF(info);
    return rc;
}

/* Skip JSON white space (json's WHITESPACE: space, tab, CR, LF). */
static size_t
skip_ws(const char *p, size_t i, size_t n)
{
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' ||
                     p[i] == '\n'))
        i++;
    return i;
}

/* An int small enough for a long long, written as JSON writes it (no
 * leading zeros, no '+'): the common record, decoded without a str. */
static PyObject *
small_int(const char *p, size_t n)
{
    size_t i = 0;
    if (n > 0 && p[0] == '-')
        i = 1;
    size_t digits = n - i;
    if (digits == 0 || digits > 18 || (p[i] == '0' && digits > 1))
        return NULL;
    long long v = 0;
    for (; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return NULL;
        v = v * 10 + (p[i] - '0');
    }
    return PyLong_FromLongLong(p[0] == '-' ? -v : v);
}

/* Decode a JSON record: a new reference; NULL with the refusal rendered
 * (status in *status, exception cleared) or, when *status is -1, with an
 * exception that must propagate. Decodes as json.loads does (the C
 * scanner it uses, after the white space it skips), and asks json.loads
 * itself for the message of an error. */
static PyObject *
decode_json(cpk_mapwork *w, uint64_t record, const char *p, size_t n,
            render *r, int *status)
{
    *status = -1;
    size_t a = skip_ws(p, 0, n), b = n;
    while (b > a && (p[b - 1] == ' ' || p[b - 1] == '\t' ||
                     p[b - 1] == '\r' || p[b - 1] == '\n'))
        b--;
    PyObject *v = small_int(p + a, b - a);
    if (v != NULL || PyErr_Occurred())
        return v;
    PyObject *s = PyUnicode_DecodeUTF8(p, (Py_ssize_t)n, "strict");
    if (s == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_UnicodeDecodeError))
            return NULL;
        PyErr_Clear();
        add_prefix(&r->err, w, record);
        addf(&r->err, "not valid JSON: not UTF-8 text\n");
        *status = CPK_EXIT_INPUT;
        return NULL;
    }
    /* Character indices: the white space skipped is ASCII. */
    PyObject *start = PyLong_FromSize_t(a);
    PyObject *pair = start ? PyObject_CallFunctionObjArgs(w->scan_once, s,
                                                          start, NULL)
                           : NULL;
    Py_XDECREF(start);
    if (pair != NULL && PyTuple_Check(pair) && PyTuple_GET_SIZE(pair) == 2) {
        Py_ssize_t end = PyLong_AsSsize_t(PyTuple_GET_ITEM(pair, 1));
        Py_ssize_t len = PyUnicode_GET_LENGTH(s);
        while (end >= 0 && end < len) {
            Py_UCS4 c = PyUnicode_READ_CHAR(s, end);
            if (c != ' ' && c != '\t' && c != '\r' && c != '\n')
                break;
            end++;
        }
        if (end == len) {
            v = Py_NewRef(PyTuple_GET_ITEM(pair, 0));
            Py_DECREF(pair);
            Py_DECREF(s);
            return v;
        }
    }
    Py_XDECREF(pair);
    if (PyErr_Occurred() && !cpk_error_clearable()) {
        Py_DECREF(s);
        return NULL;
    }
    PyErr_Clear();
    /* Not valid: json.loads says why (and where). */
    v = PyObject_CallOneArg(w->json_loads, s);
    Py_DECREF(s);
    if (v != NULL) { /* cannot happen: the scanner and loads agree */
        Py_DECREF(v);
        PyErr_SetString(PyExc_ValueError, "undecodable");
    }
    if (!cpk_error_clearable())
        return NULL;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *msg = value ? PyObject_Str(value) : NULL;
    PyErr_Clear();
    add_prefix(&r->err, w, record);
    addf(&r->err, "not valid JSON: ");
    add_str(&r->err, msg);
    (void)cpk_bytebuf_put(&r->err, "\n", 1);
    Py_XDECREF(msg);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    *status = CPK_EXIT_INPUT;
    return NULL;
}

/* Check a pickled record as the program's input is checked
 * (cpk_signed_check: the signature, required when a key is in force;
 * malformed, --strict, --allow/--deny), its refusal lines kept in r->err:
 * 0, or CPK_EXIT_INPUT (CPK_EXIT_SYSTEM out of memory). *is_signed: the
 * record is a signed envelope; *names: for an unsigned record under
 * --allow/--deny, the lookups this scan permits (the caller's to free),
 * else NULL. */
static int
check_pickle(cpk_mapwork *w, uint64_t record, const char *p, size_t n,
             render *r, int *is_signed, cpk_policy_names **names)
{
    *is_signed = 0;
    *names = NULL;
    char name[PATH_MAX + 64];
    snprintf(name, sizeof(name), "%s: record %llu", w->input_name,
             (unsigned long long)record);
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (m == NULL)
        return CPK_EXIT_SYSTEM;
    FILE *was = cpk_message_capture(m);
    const cpk_load_checks checks = {
        .key = w->key,
        .keylen = w->keylen,
        .key_source = w->key_source,
        .loadable = 1,
        .strict = w->strict,
        .policy = w->policy,
        .max_scan = w->max_scan,
    };
    cpk_signed_input sig;
    pkscan_report *scan = NULL;
    int status = cpk_signed_check(name, (const unsigned char *)p, n, &checks,
                                  &sig, &scan);
    if (status == 0 && !sig.is_signed && w->policy != NULL &&
        cpk_policy_active(w->policy)) {
        *names = cpk_policy_names_new(w->policy, scan);
        if (*names == NULL) {
            cpk_error("out of memory");
            status = CPK_EXIT_SYSTEM;
        }
    }
    *is_signed = sig.is_signed;
    pkscan_free(scan);
    cpk_message_capture(was);
    if (fclose(m) == 0 && text != NULL)
        (void)cpk_bytebuf_put(&r->err, text, len);
    free(text);
    return status;
}

/* Load a pickled record under the policy: a new reference; NULL with the
 * refusal rendered and *status set, or *status -1 and an exception that
 * must propagate. */
static PyObject *
decode_pickle(cpk_mapwork *w, uint64_t record, const char *p, size_t n,
              render *r, int *status)
{
    int is_signed;
    cpk_policy_names *names;
    *status = check_pickle(w, record, p, n, r, &is_signed, &names);
    if (*status != 0)
        return NULL;
    *status = -1;
    PyObject *v;
    if (names != NULL) {
        /* unsigned, under --allow/--deny: loaded from the batch's bytes
         * (unchanged until the batch is done) with the lookups the check
         * above permits, not copied and scanned once more */
        PyObject *kw = w->loads_kwargs;
        PyObject *allow = kw ? PyDict_GetItemString(kw, "allow") : NULL;
        PyObject *deny = kw ? PyDict_GetItemString(kw, "deny") : NULL;
        v = cpk_loads_input_prechecked(w->module, p, n, names, allow, deny);
    }
    else if (!is_signed)
        v = cpk_loads_input(w->module, p, n, 0, -1);
    else {
        PyObject *data = PyBytes_FromStringAndSize(p, (Py_ssize_t)n);
        PyObject *args = data ? PyTuple_Pack(1, data) : NULL;
        Py_XDECREF(data);
        v = args ? PyObject_Call(w->loads_exact, args, w->loads_kwargs)
                 : NULL;
        Py_XDECREF(args);
    }
    if (v != NULL)
        return v;
    if (!cpk_error_clearable())
        return NULL;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *msg = value ? PyObject_Str(value) : NULL;
    if (msg == NULL && PyErr_Occurred() && !cpk_error_clearable()) {
        /* str() of it raised what must propagate (KeyboardInterrupt) */
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        return NULL;
    }
    PyErr_Clear();
    int policy = 0;
    PyObject *cpk = PyImport_ImportModule("ccloudpickle");
    PyObject *cls = cpk ? PyObject_GetAttrString(cpk, "PolicyError") : NULL;
    PyErr_Clear();
    policy = cls != NULL && PyErr_GivenExceptionMatches(type, cls);
    Py_XDECREF(cls);
    Py_XDECREF(cpk);
    add_prefix(&r->err, w, record);
    if (policy)
        addf(&r->err, "refused by --allow/--deny: ");
    else
        addf(&r->err, "cannot load: %s: ",
             ((PyTypeObject *)type)->tp_name);
    add_str(&r->err, msg);
    (void)cpk_bytebuf_put(&r->err, "\n", 1);
    *status = policy ? CPK_EXIT_INPUT : CPK_EXIT_OBJECT;
    Py_XDECREF(msg);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return NULL;
}

/* Call the function with the record's value as its arguments (see
 * mapwork.h). New reference, or NULL with the function's exception. */
static PyObject *
call(cpk_mapwork *w, PyObject *v)
{
    if ((w->in == CPK_IN_JSON && PyList_CheckExact(v)) ||
        (w->in == CPK_IN_PICKLE && PyTuple_CheckExact(v))) {
        /* Our own container: the function cannot reach it to change it
         * while it runs, so lending its items is safe. */
        PyObject **items = PySequence_Fast_ITEMS(v);
        return PyObject_Vectorcall(w->fn, items,
                                   (size_t)PySequence_Fast_GET_SIZE(v),
                                   NULL);
    }
    if (w->kwargs && PyDict_CheckExact(v)) {
        PyObject *empty = PyTuple_New(0);
        if (empty == NULL)
            return NULL;
        PyObject *r = PyObject_Call(w->fn, empty, v);
        Py_DECREF(empty);
        return r;
    }
    return PyObject_Vectorcall(w->fn, &v, 1, NULL);
}

/* --with-index: the record's line (a result or an error record, JSON)
 * as [N,LINE], so that shards' outputs merge back in order
 * (mapmerge.c). 0, or -1 out of memory. */
static int
with_index(uint64_t record, render *r)
{
    char head[32];
    int n = snprintf(head, sizeof(head), "[%llu,",
                     (unsigned long long)record);
    size_t len = r->out.len;
    if (r->out.data[len - 1] == '\n')
        len--;
    cpk_bytebuf line = {0};
    if (cpk_bytebuf_put(&line, head, (size_t)n) < 0 ||
        cpk_bytebuf_put(&line, r->out.data, len) < 0 ||
        cpk_bytebuf_put(&line, "]\n", 2) < 0) {
        cpk_bytebuf_release(&line);
        return -1;
    }
    cpk_bytebuf_release(&r->out);
    r->out = line;
    return 0;
}

/* The status python3 exits with for the SystemExit being raised (its
 * handle_system_exit): None 0, an int itself, anything else 1 after its
 * str on standard error. The exception is cleared. */
static int
copy_exit_code(void)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    PyObject *code = value && PyObject_TypeCheck(value, (PyTypeObject *)
                                                 PyExc_SystemExit)
                         ? ((PySystemExitObject *)value)->code
                         : NULL;
    Py_XINCREF(code); /* str() below runs Python code */
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    int status = 0;
    if (code != NULL && PyLong_Check(code)) {
        long v = PyLong_AsLong(code); /* -1 on overflow, as python3 */
        status = (int)(v & 0xff);
    }
    else if (code != NULL && code != Py_None) {
        PyObject *f = PySys_GetObject("stderr"); /* borrowed */
        Py_XINCREF(f);
        if (f == NULL || f == Py_None ||
            PyFile_WriteObject(code, f, Py_PRINT_RAW) < 0 ||
            PyFile_WriteString("\n", f) < 0)
            PyErr_Clear();
        Py_XDECREF(f);
        status = 1;
    }
    PyErr_Clear();
    Py_XDECREF(code);
    return status;
}

/* A process the function forked, returning from the call (w->abandon
 * set): it is no run of its own and stops after this record (pool.c,
 * map.c), so its outcome is not a record's but the status python3 would
 * give the copy: 0 when the call returned, that of its SystemExit, or 1
 * after the traceback of any other exception; kept in w->copy_status.
 * What it printed is flushed, for _exit follows. An empty result that
 * ends the batch: 0, or -1 out of memory. */
static int
copy_outcome(cpk_mapwork *w, PyObject *result, cpk_results *res)
{
    int status = 0;
    if (result != NULL)
        Py_DECREF(result);
    else if (PyErr_ExceptionMatches(PyExc_SystemExit))
        status = copy_exit_code();
    else {
        /* The traceback as python3 prints it, but not through
         * PyErr_Print: a sys.excepthook raising SystemExit would shut
         * the interpreter down in the copy (atexit handlers included). */
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyErr_NormalizeException(&type, &value, &tb);
        if (tb != NULL && value != NULL)
            PyException_SetTraceback(value, tb);
        if (type != NULL)
            PyErr_Display(type, value, tb);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        status = 1;
    }
    PyErr_Clear();
    static const char *const names[] = {"stdout", "stderr"};
    for (int i = 0; i < 2; i++) {
        PyObject *f = PySys_GetObject(names[i]); /* borrowed */
        if (f == NULL || f == Py_None)
            continue;
        Py_INCREF(f);
        PyObject *r = PyObject_CallMethod(f, "flush", NULL);
        Py_XDECREF(r);
        Py_DECREF(f);
        PyErr_Clear(); /* the copy is leaving: no one to tell */
    }
    w->copy_status = status;
    if (cpk_results_add(res, CPK_REC_OK, 0, "", 0, "", 0) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* One record into `res`: 0, or -1 with an exception that must end the
 * program. */
static int
one(cpk_mapwork *w, uint64_t record, const char *p, size_t n,
    cpk_results *res, render *r)
{
    r->out.len = 0;
    r->err.len = 0;
    cpk_rec_kind kind = CPK_REC_OK;
    int status = 0;
    int bad;
    PyObject *v = w->in == CPK_IN_JSON
                      ? decode_json(w, record, p, n, r, &bad)
                      : decode_pickle(w, record, p, n, r, &bad);
    if (v == NULL) {
        if (bad < 0)
            return -1;
        kind = CPK_REC_BADINPUT;
        status = bad;
        if (render_bad(w, record, r) < 0)
            return -1;
        goto done;
    }
    PyObject *result = call(w, v);
    Py_DECREF(v);
    if (w->abandon != NULL && *w->abandon)
        return copy_outcome(w, result, res);
    if (result == NULL) {
        if (PyErr_ExceptionMatches(PyExc_KeyboardInterrupt))
            return -1;
        if (PyErr_ExceptionMatches(PyExc_SystemExit)) {
            kind = CPK_REC_EXIT;
            status = exit_code();
            if (render_raised(w, record, r) < 0)
                return -1;
            goto done;
        }
        /* What `except Exception` would not catch ends the program
         * (MemoryError included), as anywhere else. */
        if (!cpk_error_clearable())
            return -1;
        kind = CPK_REC_RAISED;
        status = CPK_EXIT_RAISED;
        if (render_raised(w, record, r) < 0)
            return -1;
        goto done;
    }
    char *why = NULL;
    int rc = cpk_encode_result(w->enc, result, &r->out, &why);
    Py_DECREF(result);
    if (rc < 0 && PyErr_ExceptionMatches(PyExc_SystemExit)) {
        /* a __repr__ or __reduce__ that called sys.exit() */
        r->out.len = 0;
        kind = CPK_REC_EXIT;
        status = exit_code();
        if (render_raised(w, record, r) < 0)
            return -1;
        goto done;
    }
    if (rc < 0)
        return -1;
    if (rc > 0) {
        kind = CPK_REC_UNENCODABLE;
        status = CPK_EXIT_OBJECT;
        r->out.len = 0;
        rc = render_unencodable(w, record, why ? why : "cannot encode", r);
        free(why);
        if (rc < 0)
            return -1;
    }
done:
    if (w->with_index && r->out.len > 0 && with_index(record, r) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    if (cpk_results_add(res, kind, status, r->out.data, r->out.len,
                        r->err.data, r->err.len) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

int
cpk_mapwork_batch(cpk_mapwork *w, const cpk_batch *b, size_t from,
                  long long budget_ns, cpk_results *res)
{
    cpk_results_reset(res, from < b->n ? b->num[from] : b->first);
    render r = {{0}};
    int rc = 0;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (size_t i = from; i < b->n; i++) {
        if (PyErr_CheckSignals() < 0) {
            rc = -1;
            break;
        }
        if (one(w, b->num[i], cpk_batch_record(b, i), b->len[i], res,
                &r) < 0) {
            rc = -1;
            break;
        }
        if (cpk_rec_stops(&res->rec[res->n - 1], w->keep_going))
            break;
        if (w->abandon != NULL && *w->abandon)
            break;
        if (budget_ns > 0) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            if ((long long)(t.tv_sec - t0.tv_sec) * 1000000000LL +
                    (t.tv_nsec - t0.tv_nsec) >=
                budget_ns)
                break;
        }
    }
    cpk_bytebuf_release(&r.out);
    cpk_bytebuf_release(&r.err);
    return rc;
}
