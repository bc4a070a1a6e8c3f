/* loadpolicy.c - loads(data, allow=..., deny=...) and load(file, ...):
 * the Python side of the import policy. Parse the patterns into a
 * cpk_policy (policy.c), scan the bytes without running anything
 * (pkscan.c), refuse the whole load if any import is refused, then load
 * with our Unpickler holding the set of lookups the scan permitted, which
 * its find_class (unpickler.c) enforces. The state belongs to the one
 * Unpickler of the load, never to the module: concurrent loads with
 * different policies do not meet. The unpoliced loads/load are in
 * module.c.
 */
#include "engine/loadpolicy.h"
#include "core/state.h"
#include "ccloudpickle.h"
#include "common/pycompat.h"
#include "common/pyerr.h" /* cpk_error_clearable */
#include "core/memio.h"
#include "core/subtype.h"
#include "engine/unpickler.h"
#include "engine/versionerror.h"
#include "scan/format.h" /* cpk_format_newer_import */
#include "scan/pkscan.h" /* pkscan_scan */
#include "scan/policy.h" /* cpk_policy, cpk_policy_names */
#include "scan/pycompat_scan.h" /* CPK_PY_SCAN_FLAGS */

#include <string.h>

/* Pickles from this size on are scanned without the GIL. */
#define CPK_SCAN_NOGIL_SIZE 65536

/* The most memory the static pass may hold (pkscan_scan_limited), as
 * cloudpickle-load's default --max-scan-memory: the memory available
 * (pkscan_default_limit), at least 2 GiB. A pickle that needs more raises
 * UnpicklingError ("too large to inspect ...", documented in loads'
 * docstring) instead of exhausting memory. An input under 8 MiB keeps
 * the 2 GiB floor (the model keeps at most some 130 bytes an input
 * byte): reading the machine's memory would cost more than its load. */
static size_t
policy_scan_limit(size_t len)
{
    return len < ((size_t)8 << 20) ? PKSCAN_LIMIT_FLOOR
                                   : pkscan_default_limit();
}

/* Deepest nesting a policed load accepts: the same limit as
 * cloudpickle-load's (cli/common/scancheck.h), for the same reason. */
#define CPK_POLICY_MAX_DEPTH 10000

/* Add each str of the iterable `patterns` as a rule, and append it to
 * the list `kept`. 0, or -1 with TypeError (not an iterable of str) or
 * ValueError (a malformed pattern, named) set. */
static int
add_rules(cpk_policy *p, int allow, PyObject *patterns, PyObject *kept)
{
    const char *what = allow ? "allow" : "deny";
    /* a str is an iterable of one-letter patterns: surely a mistake */
    if (PyUnicode_Check(patterns) || PyBytes_Check(patterns) ||
        PyByteArray_Check(patterns)) {
        PyErr_Format(PyExc_TypeError,
                     "%s must be an iterable of str patterns, not %.100s "
                     "(write %s=[...])",
                     what, Py_TYPE(patterns)->tp_name, what);
        return -1;
    }
    PyObject *it = PyObject_GetIter(patterns);
    if (it == NULL) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError,
                         "%s must be an iterable of str patterns, not %.100s",
                         what, Py_TYPE(patterns)->tp_name);
        }
        return -1;
    }
    PyObject *item;
    while ((item = PyIter_Next(it)) != NULL) {
        if (!PyUnicode_Check(item)) {
            PyErr_Format(PyExc_TypeError,
                         "%s patterns must be str, not %.100s", what,
                         Py_TYPE(item)->tp_name);
            goto error;
        }
        Py_ssize_t len;
        const char *s = PyUnicode_AsUTF8AndSize(item, &len);
        if (s == NULL) {
            if (!PyErr_ExceptionMatches(PyExc_UnicodeError))
                goto error;
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError,
                         "bad %s pattern %R: not encodable as UTF-8", what,
                         item);
            goto error;
        }
        const char *why = NULL;
        if ((size_t)len != strlen(s))
            why = "not a dotted name (letters, digits and '_' only)";
        else if (cpk_policy_add(p, allow, s, &why) == 0) {
            int r = PyList_Append(kept, item);
            Py_DECREF(item);
            if (r < 0) {
                Py_DECREF(it);
                return -1;
            }
            continue;
        }
        if (strcmp(why, "out of memory") == 0)
            PyErr_NoMemory();
        else
            PyErr_Format(PyExc_ValueError, "bad %s pattern %R: %s", what,
                         item, why);
        goto error;
    }
    Py_DECREF(it);
    return PyErr_Occurred() ? -1 : 0;
error:
    Py_DECREF(item);
    Py_DECREF(it);
    return -1;
}

/* The patterns of one of allow/deny as read: a tuple, or None when not
 * given. New reference, NULL with an exception. */
static PyObject *
kept_patterns(cpk_policy *p, int allow, PyObject *patterns)
{
    if (patterns == NULL || patterns == Py_None)
        return Py_NewRef(Py_None);
    PyObject *list = PyList_New(0);
    if (list == NULL)
        return NULL;
    PyObject *tuple = NULL;
    if (add_rules(p, allow, patterns, list) == 0)
        tuple = PyList_AsTuple(list);
    Py_DECREF(list);
    return tuple;
}

/* The policy of allow/deny (NULL or None: not given), or NULL with an
 * exception. Any given list, even empty, makes an active policy:
 * allow=[] restricts a load to reconstructors and plain data. *kept is
 * set to (allow, deny) as read (tuples of str, or None): what nested
 * loads under the same rules are given (new reference). */
static cpk_policy *
policy_from_args(PyObject *allow, PyObject *deny, PyObject **kept)
{
    PyObject *a = NULL, *d = NULL;
    cpk_policy *p = cpk_policy_new();
    if (p == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    if (allow != NULL && allow != Py_None)
        cpk_policy_restrict(p);
    a = kept_patterns(p, 1, allow);
    d = a ? kept_patterns(p, 0, deny) : NULL;
    *kept = d ? PyTuple_Pack(2, a, d) : NULL;
    Py_XDECREF(a);
    Py_XDECREF(d);
    if (*kept == NULL)
        goto error;
    return p;
error:
    cpk_policy_free(p);
    return NULL;
}

int
cpk_loadpolicy_init(PyObject *module, cpk_state *st)
{
    static const struct {
        const char *name;
        const char *doc;
        size_t field;
    } errors[] = {
        {CPK_MODULE_NAME ".PolicyError",
         "loads()/load() with allow= or deny= refused the pickle: an import "
         "the policy does not permit (listed before anything runs, or "
         "refused by find_class during the load).",
         offsetof(cpk_state, PolicyError)},
        {CPK_MODULE_NAME ".SignatureError",
         "A signed pickle was refused before anything in it ran: not "
         "signed, altered, truncated, signed with another key or by "
         "another CPython version, or signed but loaded without "
         "verify_key.",
         offsetof(cpk_state, SignatureError)},
    };
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++) {
        PyObject **field = (PyObject **)((char *)st + errors[i].field);
        *field = PyErr_NewExceptionWithDoc(errors[i].name, errors[i].doc,
                                           st->UnpicklingError, NULL);
        if (*field == NULL ||
            PyModule_AddObjectRef(module, strchr(errors[i].name, '.') + 1,
                                  *field) < 0)
            return -1;
    }
    /* (allow, deny) of the policed load running in this context, for
     * loaders nested in it (wrap()'s _rebuild, python/) */
    st->load_policy =
        PyContextVar_New(CPK_MODULE_NAME "._load_policy", NULL);
    if (st->load_policy == NULL ||
        PyModule_AddObjectRef(module, "_load_policy", st->load_policy) < 0)
        return -1;
    return 0;
}

/* `s` as shown in a message: itself when every character is printable
 * (str.isprintable(): no control, format - the bidi controls U+202A-202E,
 * U+2066-2069, U+200E/F, U+061C are format characters - or separator
 * other than the space), else its ascii(). Steals `s`; new reference or
 * NULL. */
static PyObject *
shown(PyObject *s)
{
    if (s == NULL)
        return NULL;
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!Py_UNICODE_ISPRINTABLE(PyUnicode_READ(kind, data, i))) {
            PyObject *a = PyObject_ASCII(s);
            Py_DECREF(s);
            return a;
        }
    }
    return s;
}

/* Append "module.name" (or what stands for an unknown name) of `imp` to
 * the list `parts`, with its byte offset. The names are the pickle's
 * bytes: a name with characters that would act on a terminal (escapes,
 * bidi controls) is shown as its ascii(). 0 or -1. */
static int
describe_import(PyObject *parts, const pkscan_import *imp)
{
    PyObject *s;
    if (imp->via == PKSCAN_VIA_EXT)
        s = PyUnicode_FromFormat("extension code %ld (byte %zu)",
                                 imp->ext_code, imp->offset);
    else if (imp->via == PKSCAN_VIA_DYNAMIC)
        s = PyUnicode_FromFormat("a name computed at load time (byte %zu)",
                                 imp->offset);
    else {
        /* the names are the pickle's bytes: shown, never trusted */
        PyObject *m = imp->module.s
            ? PyUnicode_DecodeUTF8(imp->module.s, (Py_ssize_t)imp->module.len,
                                   "backslashreplace")
            : PyUnicode_FromString("?");
        PyObject *n = imp->name.s
            ? PyUnicode_DecodeUTF8(imp->name.s, (Py_ssize_t)imp->name.len,
                                   "backslashreplace")
            : PyUnicode_FromString("?");
        PyObject *d = m && n ? shown(PyUnicode_FromFormat(
                                   "%U%s%U", m,
                                   PyUnicode_GET_LENGTH(n) ? "." : "", n))
                             : NULL;
        s = d ? PyUnicode_FromFormat("%U (byte %zu)", d, imp->offset)
              : NULL;
        Py_XDECREF(d);
        Py_XDECREF(m);
        Py_XDECREF(n);
    }
    if (s == NULL)
        return -1;
    int r = PyList_Append(parts, s);
    Py_DECREF(s);
    return r;
}

/* PolicyError listing every refused import of `r`. */
static void
raise_refused(cpk_state *st, const cpk_policy *p, const pkscan_report *r,
              size_t count)
{
    size_t *idx = PyMem_Malloc((count ? count : 1) * sizeof(size_t));
    if (idx == NULL) {
        PyErr_NoMemory();
        return;
    }
    size_t n = cpk_policy_check(p, r, idx, count);
    if (n > count)
        n = count;
    PyObject *parts = PyList_New(0);
    PyObject *sep = NULL, *list = NULL;
    if (parts == NULL)
        goto done;
    size_t listed = 0;
    for (size_t i = 0; i < n; i++) {
        if (idx[i] >= r->n_imports)
            continue;
        if (describe_import(parts, &r->imports[idx[i]]) < 0)
            goto done;
        listed++;
    }
    if (listed < count) {
        PyObject *s = PyUnicode_FromString(
            "imports beyond the scanner's limit, which cannot be checked");
        if (s == NULL || PyList_Append(parts, s) < 0) {
            Py_XDECREF(s);
            goto done;
        }
        Py_DECREF(s);
    }
    sep = PyUnicode_FromString(", ");
    list = sep ? PyUnicode_Join(sep, parts) : NULL;
    if (list != NULL)
        PyErr_Format(st->PolicyError,
                     "import policy refuses %zu import%s: %U", count,
                     count == 1 ? "" : "s", list);
done:
    Py_XDECREF(list);
    Py_XDECREF(sep);
    Py_XDECREF(parts);
    PyMem_Free(idx);
}

/* PolicyError naming the code carried by value the load would run
 * (`count` from cpk_policy_load_calls). */
static void
raise_load_calls(cpk_state *st, const pkscan_report *r, size_t count)
{
    PyObject *parts = PyList_New(0);
    PyObject *sep = NULL, *list = NULL;
    if (parts == NULL)
        return;
    for (size_t i = 0; i < r->n_load_calls; i++) {
        const pkscan_load_call *c = &r->load_calls[i];
        /* the name is the pickle's bytes: shown, never trusted */
        PyObject *n = c->name.s
            ? PyUnicode_DecodeUTF8(c->name.s, (Py_ssize_t)c->name.len,
                                   "backslashreplace")
            : PyUnicode_FromString("?");
        PyObject *d = shown(n);
        PyObject *e = d ? PyUnicode_FromFormat("%s %U (byte %zu)", c->reason,
                                               d, c->offset)
                        : NULL;
        Py_XDECREF(d);
        if (e == NULL || PyList_Append(parts, e) < 0) {
            Py_XDECREF(e);
            goto done;
        }
        Py_DECREF(e);
    }
    if (count > r->n_load_calls) {
        PyObject *e = PyUnicode_FromString(
            "a report cut short, which cannot rule such code out");
        if (e == NULL || PyList_Append(parts, e) < 0) {
            Py_XDECREF(e);
            goto done;
        }
        Py_DECREF(e);
    }
    sep = PyUnicode_FromString(", ");
    list = sep ? PyUnicode_Join(sep, parts) : NULL;
    if (list != NULL)
        PyErr_Format(st->PolicyError,
                     "import policy refuses a pickle whose load runs code "
                     "carried by value: %U", list);
done:
    Py_XDECREF(list);
    Py_XDECREF(sep);
    Py_DECREF(parts);
}

/* PolicyError naming the writes and calls outside the closed world that
 * `p` refuses (`count` from cpk_policy_state). */
static void
raise_state(cpk_state *st, const cpk_policy *p, const pkscan_report *r,
            size_t count)
{
    PyObject *parts = PyList_New(0);
    PyObject *sep = NULL, *list = NULL;
    if (parts == NULL)
        return;
    size_t listed = 0;
    for (size_t i = 0; i < r->n_state_writes; i++) {
        const pkscan_state_write *w = &r->state_writes[i];
        if (cpk_policy_state_admits(p, w))
            continue;
        /* the text escapes the pickle's bytes already */
        PyObject *e = PyUnicode_DecodeUTF8(w->text, (Py_ssize_t)strlen(w->text),
                                           "backslashreplace");
        if (e == NULL || PyList_Append(parts, e) < 0) {
            Py_XDECREF(e);
            goto done;
        }
        Py_DECREF(e);
        listed++;
    }
    if (count > listed) {
        PyObject *e = PyUnicode_FromFormat(
            "%zu more than the report lists", count - listed);
        if (e == NULL || PyList_Append(parts, e) < 0) {
            Py_XDECREF(e);
            goto done;
        }
        Py_DECREF(e);
    }
    sep = PyUnicode_FromString("; ");
    list = sep ? PyUnicode_Join(sep, parts) : NULL;
    if (list != NULL)
        PyErr_Format(st->PolicyError,
                     "import policy refuses a pickle that reaches beyond "
                     "what it made: %U", list);
done:
    Py_XDECREF(list);
    Py_XDECREF(sep);
    Py_DECREF(parts);
}

/* The static pass over `len` bytes: scan, check against `p`. The set of
 * find_class lookups the load may make (owned by the caller), or NULL
 * with UnpicklingError ("<what> at byte N"), PolicyError (the refused
 * imports) or MemoryError set. `exact`: data after STOP is an error (else the load
 * ignores it, as pickle.loads does). *end: the offset just after STOP. */
static cpk_policy_names *
static_pass(cpk_state *st, const cpk_policy *p, const char *buf,
            Py_ssize_t len, int fix_imports, int exact, size_t *end)
{
    pkscan_report *r;
    /* `buf` is an immutable bytes object's: a big scan lets other threads
     * run (a small one would only pay for the hand-over) */
    if (len >= CPK_SCAN_NOGIL_SIZE) {
        Py_BEGIN_ALLOW_THREADS
        r = pkscan_scan_limited(buf, (size_t)len,
                                (fix_imports ? 0 : PKSCAN_NO_FIX_IMPORTS) |
                                    CPK_PY_SCAN_FLAGS,
                                policy_scan_limit((size_t)len));
        Py_END_ALLOW_THREADS
    }
    else
        r = pkscan_scan_limited(buf, (size_t)len,
                                (fix_imports ? 0 : PKSCAN_NO_FIX_IMPORTS) |
                                    CPK_PY_SCAN_FLAGS,
                                policy_scan_limit((size_t)len));
    cpk_policy_names *names = NULL;
    if (r == NULL || r->status == PKSCAN_ERR_NOMEM) {
        PyErr_NoMemory();
        goto done;
    }
    if (r->status == PKSCAN_ERR_LIMIT) {
        PyErr_Format(st->UnpicklingError,
                     "pickle too large to inspect under an import policy: "
                     "%s (at byte %zu)", r->error, r->error_offset);
        goto done;
    }
    if (r->status != PKSCAN_OK &&
        (exact || r->status != PKSCAN_ERR_TRAILING)) {
        PyErr_Format(st->UnpicklingError, "%s at byte %zu", r->error,
                     r->error_offset);
        goto done;
    }
    /* A newer format's marker anywhere: refused before anything runs,
     * as the load would refuse it once it got there. */
    int fmt;
    char writer[48];
    if (cpk_format_newer_import(r, &fmt, writer, sizeof writer)) {
        char msg[256];
        cpk_format_message(msg, sizeof msg, fmt, writer, CPK_VERSION);
        PyErr_SetString(st->FormatError, msg);
        goto done;
    }
    size_t count = cpk_policy_check(p, r, NULL, 0);
    if (count > 0) {
        raise_refused(st, p, r, count);
        goto done;
    }
    /* As deep as cloudpickle-load accepts (cli/common/scancheck.h): deeper
     * nesting can exhaust the C stack when CPython frees it. */
    if (r->max_depth > CPK_POLICY_MAX_DEPTH) {
        PyErr_Format(st->UnpicklingError,
                     "nesting %zu%s deep, more than %d, at byte %zu",
                     r->max_depth, r->max_depth >= 65535 ? " or more" : "",
                     CPK_POLICY_MAX_DEPTH,
                     r->max_depth_offset);
        goto done;
    }
    size_t calls = cpk_policy_load_calls(p, r);
    if (calls > 0) {
        raise_load_calls(st, r, calls);
        goto done;
    }
    size_t state = cpk_policy_state(p, r);
    if (state > 0) {
        raise_state(st, p, r, state);
        goto done;
    }
    names = cpk_policy_names_new(p, r);
    if (names == NULL)
        PyErr_NoMemory();
    *end = r->stop_offset + 1;
done:
    pkscan_free(r);
    return names;
}

/* bytes of a bytes-like `data` (new reference): a copy unless it is
 * bytes already, so what is scanned is what is loaded even if somebody
 * mutates a bytearray during the load. */
static PyObject *
data_bytes(PyObject *data)
{
    if (PyBytes_CheckExact(data))
        return Py_NewRef(data);
    if (!PyObject_CheckBuffer(data)) {
        PyErr_Format(PyExc_TypeError,
                     "a bytes-like object is required, not '%.100s'",
                     Py_TYPE(data)->tp_name);
        return NULL;
    }
    return PyBytes_FromObject(data);
}

/* The check reads protocol 0-2 strings (STRING, BINSTRING) as their
 * bytes; the load decodes them with `encoding`. Only encodings that give
 * every ASCII byte itself keep the two the same ('bytes' gives bytes,
 * which no reconstructor takes for a name): an escaping codec turned
 * "\x72unpy" into runpy past deny=['runpy'], EBCDIC would
 * spell names in other bytes. 1 if the load may use it, else 0 with
 * PolicyError set, -1 on another error. */
static int
encoding_agrees(cpk_state *st, PyObject *encoding)
{
    if (encoding == NULL || encoding == st->str_ASCII)
        return 1;
    if (PyUnicode_Check(encoding) &&
        PyUnicode_CompareWithASCIIString(encoding, "bytes") == 0)
        return 1;
    int ok = 0;
    if (PyUnicode_Check(encoding)) {
        /* codecs.lookup(encoding).name: the codec's canonical name */
        PyObject *codecs = PyImport_ImportModule("codecs");
        PyObject *ci = codecs ? PyObject_CallMethod(codecs, "lookup", "O",
                                                    encoding)
                              : NULL;
        PyObject *name = ci ? PyObject_GetAttrString(ci, "name") : NULL;
        ok = name != NULL && PyUnicode_Check(name) &&
             (PyUnicode_CompareWithASCIIString(name, "ascii") == 0 ||
              PyUnicode_CompareWithASCIIString(name, "utf-8") == 0 ||
              PyUnicode_CompareWithASCIIString(name, "iso8859-1") == 0);
        Py_XDECREF(codecs);
        Py_XDECREF(ci);
        Py_XDECREF(name);
        /* an unknown codec is refused below; any other error stands */
        if (name == NULL) {
            if (!PyErr_ExceptionMatches(PyExc_LookupError))
                return -1;
            PyErr_Clear();
        }
    }
    if (!ok)
        PyErr_Format(st->PolicyError,
                     "an import policy reads the pickle's strings as bytes: "
                     "loads under a policy take encoding 'ASCII', 'latin1', "
                     "'utf-8' or 'bytes', not %R",
                     encoding);
    return ok;
}

/* Load the one pickle of `bytes` (bytes, or the program's private
 * memoryview; `len` bytes) under `names` (owned: freed here or by the
 * Unpickler) with our Unpickler, with st->load_policy set to `kept`
 * (borrowed) meanwhile. On success *consumed is the number of bytes the
 * load read. */
static PyObject *
load_checked(cpk_state *st, PyObject *bytes, Py_ssize_t len,
             cpk_policy_names *names, PyObject *kept, PyObject *fix_imports,
             PyObject *encoding, PyObject *errors, PyObject *buffers,
             int exact, Py_ssize_t *consumed)
{
    PyObject *reader = cpk_reader_new(st, bytes);
    if (reader == NULL) {
        cpk_policy_names_free(names);
        return NULL;
    }
    PyObject *result = NULL;
    PyObject *args[5] = {reader, fix_imports,
                         encoding ? encoding : st->str_ASCII,
                         errors ? errors : st->str_strict, buffers};
    PyObject *u = PyObject_Vectorcall((PyObject *)st->unpickler_type, args,
                                      1, st->kwnames_unpickler);
    if (u == NULL) {
        cpk_policy_names_free(names);
        goto done;
    }
    /* from here on the Unpickler owns the set (freed with it) */
    CPK_UNPICKLER_EXT(u)->policy_names = names;
    PyObject *token = PyContextVar_Set(st->load_policy, kept);
    if (token == NULL) {
        Py_DECREF(u);
        goto done;
    }
    result = cpk_load_with(st, u, cpk_reader_remaining(reader));
    Py_DECREF(u);
    /* The load's own error, if any, stays the one raised. */
    PyObject *et, *ev, *etb;
    PyErr_Fetch(&et, &ev, &etb);
    int reset = PyContextVar_Reset(st->load_policy, token);
    Py_DECREF(token);
    if (reset < 0) {
        if (et != NULL)
            PyErr_Clear(); /* RuntimeError/ValueError: keep the first */
        else
            Py_CLEAR(result);
    }
    if (et != NULL) {
        PyErr_Restore(et, ev, etb);
        cpk_version_error_explain(st, bytes);
    }
    Py_ssize_t left = cpk_reader_remaining(reader);
    if (result != NULL && exact && left > 0) {
        PyErr_Format(st->UnpicklingError,
                     "%zd byte%s of trailing data after the pickle", left,
                     left == 1 ? "" : "s");
        Py_CLEAR(result);
    }
    *consumed = len - left;
done:
    Py_DECREF(reader);
    return result;
}

PyObject *
cpk_loads_policed(cpk_state *st, PyObject *data, PyObject *allow,
                  PyObject *deny, PyObject *fix_imports, PyObject *encoding,
                  PyObject *errors, PyObject *buffers, int exact)
{
    if (encoding_agrees(st, encoding) <= 0)
        return NULL;
    PyObject *kept;
    cpk_policy *p = policy_from_args(allow, deny, &kept);
    if (p == NULL)
        return NULL;
    PyObject *result = NULL;
    PyObject *bytes = data_bytes(data);
    int fix = bytes ? PyObject_IsTrue(fix_imports) : -1;
    if (fix < 0)
        goto done;
    size_t end;
    cpk_policy_names *names = static_pass(st, p, PyBytes_AS_STRING(bytes),
                                          PyBytes_GET_SIZE(bytes), fix,
                                          exact, &end);
    if (names == NULL)
        goto done;
    Py_ssize_t consumed;
    /* fix_imports is evaluated once: the load maps names as the scan did */
    result = load_checked(st, bytes, PyBytes_GET_SIZE(bytes), names, kept,
                          fix ? Py_True : Py_False, encoding, errors, buffers,
                          exact, &consumed);
done:
    Py_XDECREF(bytes);
    Py_DECREF(kept);
    cpk_policy_free(p);
    return result;
}

PyObject *
cpk_loads_prechecked(cpk_state *st, PyObject *view, cpk_policy_names *names,
                     PyObject *allow, PyObject *deny)
{
    PyObject *kept;
    cpk_policy *p = policy_from_args(allow, deny, &kept);
    if (p == NULL) {
        cpk_policy_names_free(names);
        return NULL;
    }
    /* the names are the verdict: the policy itself is only for nested
     * loads (`kept`) */
    cpk_policy_free(p);
    Py_buffer *b = PyMemoryView_Check(view) ? PyMemoryView_GET_BUFFER(view)
                                            : NULL;
    if (b == NULL || !b->readonly || !PyBuffer_IsContiguous(b, 'C')) {
        cpk_policy_names_free(names);
        Py_DECREF(kept);
        PyErr_SetString(PyExc_TypeError,
                        "a read-only contiguous memoryview is required");
        return NULL;
    }
    Py_ssize_t consumed;
    PyObject *result = load_checked(st, view, b->len, names, kept, Py_True,
                                    NULL, NULL, Py_None, 1, &consumed);
    Py_DECREF(kept);
    return result;
}

PyObject *
cpk_load_policed(cpk_state *st, PyObject *file, PyObject *allow,
                 PyObject *deny, PyObject *fix_imports, PyObject *encoding,
                 PyObject *errors, PyObject *buffers)
{
    if (encoding_agrees(st, encoding) <= 0)
        return NULL;
    PyObject *kept;
    cpk_policy *p = policy_from_args(allow, deny, &kept);
    if (p == NULL)
        return NULL;
    PyObject *result = NULL, *bytes = NULL, *pos = NULL;
    /* Where the pickle starts, as an int, to put back what follows it; a
     * file that cannot tell (a pipe) is fine as long as nothing
     * follows. */
    PyObject *told = PyObject_CallMethod(file, "tell", NULL);
    pos = told ? PyNumber_Index(told) : NULL;
    Py_XDECREF(told);
    if (pos == NULL) {
        if (!cpk_error_clearable())
            goto done;
        PyErr_Clear();
    }
    PyObject *data = PyObject_CallMethod(file, "read", NULL);
    if (data == NULL)
        goto done;
    bytes = data_bytes(data);
    Py_DECREF(data);
    int fix = bytes ? PyObject_IsTrue(fix_imports) : -1;
    if (fix < 0)
        goto done;
    const char *buf = PyBytes_AS_STRING(bytes);
    Py_ssize_t len = PyBytes_GET_SIZE(bytes);
    size_t end;
    cpk_policy_names *names = static_pass(st, p, buf, len, fix, 0, &end);
    if (names == NULL)
        goto done;
    if (end < (size_t)len) {
        /* Leave the file just after the pickle, as load() does: decided
         * and done before anything runs, so a file that cannot seek back
         * refuses the load instead of running it first. */
        if (pos == NULL) {
            cpk_policy_names_free(names);
            PyErr_Format(st->UnpicklingError,
                         "load() with allow/deny read %zd bytes after the "
                         "pickle from a file that cannot seek back (tell() "
                         "failed or gave no int)",
                         len - (Py_ssize_t)end);
            goto done;
        }
        PyObject *off = PyLong_FromSize_t(end);
        PyObject *target = off ? PyNumber_Add(pos, off) : NULL;
        Py_XDECREF(off);
        PyObject *r = target ? PyObject_CallMethod(file, "seek", "O", target)
                             : NULL;
        Py_XDECREF(target);
        if (r == NULL) {
            cpk_policy_names_free(names);
            goto done;
        }
        Py_DECREF(r);
    }
    Py_ssize_t consumed = 0;
    /* fix_imports is evaluated once: the load maps names as the scan did */
    result = load_checked(st, bytes, len, names, kept,
                          fix ? Py_True : Py_False, encoding, errors, buffers,
                          0, &consumed);
done:
    Py_XDECREF(pos);
    Py_XDECREF(bytes);
    Py_DECREF(kept);
    cpk_policy_free(p);
    return result;
}
