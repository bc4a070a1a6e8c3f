/* module.c - the ccloudpickle module: its exec (fills the state) and the
 * public functions dumps, dump, loads, load: the top of the include
 * graph, which no other file calls into. The definition and the state's
 * traverse and clear are state.c's. The Pickler and
 * Unpickler types live in pickler.c and unpickler.c, the by-value registry
 * functions in lookup.c, the reconstructors in reconstruct.c and compat.c.
 */
#include "core/state.h"
#include "ccloudpickle.h"
#include "common/pycompat.h"
#include "core/args.h"
#include "core/lazytypes.h"
#include "core/lookup.h"
#include "core/memio.h"
#include "core/stock.h"
#include "core/subtype.h"
#include "core/tracker.h"
#include "engine/diagnose.h"
#include "engine/gcpause.h"
#include "engine/glue.h"
#include "engine/loadpolicy.h"
#include "engine/pickler.h"
#include "engine/signing.h"
#include "engine/unpickler.h"
#include "engine/versionerror.h"
#include "scan/envelope.h" /* cpk_envelope_is_signed: loads' fast path */
#include "scan/format.h"
#include "types/codeinfo.h"
#include "types/compat.h"
#include "types/functools.h"
#include "types/portable.h"
#include "types/primitives.h"
#include "types/reconstruct.h"
#include "types/reducers.h"
#include "types/typeforms_load.h"

/* The highest protocol of every CPython this builds for (3.8 and later). */
#define CPK_HIGHEST_PROTOCOL 5

/* Public functions ---------------------------------------------------- */

/* Parse the (obj, protocol, buffer_callback, *, compat) tail shared by dump
 * and dumps, and make a Pickler writing to `file`; diagnose=False turns
 * its culprit search off (diagnose.c), portable=True ships sources
 * (portable.c). New reference. */
static PyObject *
make_pickler(cpk_state *st, PyObject *file, PyObject *protocol,
             PyObject *buffer_callback, PyObject *compat, int diagnose,
             int portable, int fmt)
{
    if (portable && compat != NULL && compat != Py_None) {
        PyErr_SetString(PyExc_ValueError,
                        "portable=True cannot be combined with compat=: "
                        "stock cloudpickle cannot load the source it adds");
        return NULL;
    }
    /* Positional file, protocol, buffer_callback; compat by keyword. */
    PyObject *args[4] = {file, protocol, buffer_callback, compat};
    int with_compat = compat != NULL && compat != Py_None;
    PyObject *p = PyObject_Vectorcall((PyObject *)st->pickler_type, args, 3,
                                      with_compat ? st->kwnames_compat : NULL);
    if (p != NULL && !diagnose)
        CPK_PICKLER_EXT(p)->diagnose_off = 1;
    if (p != NULL && portable)
        CPK_PICKLER_EXT(p)->portable = 1;
    if (p != NULL)
        CPK_PICKLER_EXT(p)->fmt = fmt;
    return p;
}

static PyObject *
pickler_dump(PyObject *pickler, PyObject *obj)
{
    cpk_state *st = cpk_get_state(CPK_PICKLER_EXT(pickler)->module);
    PyObject *args[2] = {pickler, obj};
    /* Through the attribute: a subclass may override dump(). */
    return PyObject_VectorcallMethod(st->str_dump, args,
                                     2 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
}

/* Plain data: None, bools, exact ints, floats, str and bytes, and exact
 * dicts, lists and tuples of them a few levels deep, CPK_PLAIN_MAX_ITEMS at
 * most in all. CPython's pickler writes these itself, without asking a
 * dispatch table, or reducer_override (but for bytes under protocol 3,
 * written as a reduce to _codecs.encode, whose globals our
 * reducer_override leaves to CPython too), so our Pickler's bytes for them
 * are _pickle.dumps's, as long as the class is not given a persistent_id
 * (cpk_pickler_type_pristine): dumps() hands them straight there, and a
 * result or a small argument tuple costs what pickle.dumps costs. */
#define CPK_PLAIN_MAX_ITEMS 64
#define CPK_PLAIN_MAX_DEPTH 3

static inline int
is_atom(PyObject *o)
{
    PyTypeObject *t = Py_TYPE(o);
    return t == &PyLong_Type || t == &PyUnicode_Type || t == &PyFloat_Type ||
           o == Py_None || t == &PyBool_Type || t == &PyBytes_Type;
}

/* 1 if obj is plain data within *budget items (which it spends), else 0.
 * Reads types only: no Python code runs. */
static int
is_plain(PyObject *obj, int depth, Py_ssize_t *budget)
{
    if (is_atom(obj))
        return 1;
    PyTypeObject *t = Py_TYPE(obj);
    if (depth >= CPK_PLAIN_MAX_DEPTH)
        return 0;
    if (t == &PyTuple_Type || t == &PyList_Type) {
        Py_ssize_t n = Py_SIZE(obj);
        if ((*budget -= n) < 0)
            return 0;
        PyObject **items = PySequence_Fast_ITEMS(obj);
        for (Py_ssize_t i = 0; i < n; i++)
            if (!is_plain(items[i], depth + 1, budget))
                return 0;
        return 1;
    }
    if (t == &PyDict_Type) {
        if ((*budget -= 2 * PyDict_GET_SIZE(obj)) < 0)
            return 0;
        Py_ssize_t pos = 0;
        PyObject *k, *v;
        while (PyDict_Next(obj, &pos, &k, &v))
            if (!is_atom(k) || !is_plain(v, depth + 1, budget))
                return 0;
        return 1;
    }
    return 0;
}

/* The pickle of obj as bytes (new reference); with a sign_key (not None),
 * its signed envelope: the pickle is made in memory first either way. */
static PyObject *
dumps_impl(cpk_state *st, PyObject *obj, PyObject *protocol,
           PyObject *buffer_callback, PyObject *compat, PyObject *sign_key,
           int diagnose, int portable, int fmt)
{
    int signing = sign_key != NULL && sign_key != Py_None;
    int native = buffer_callback == Py_None && compat == Py_None &&
                 cpk_pickler_type_pristine(st);
    if (fmt != CPK_FORMAT_CURRENT && compat != Py_None) {
        PyErr_SetString(PyExc_ValueError,
                        "format= cannot be combined with compat=: format= "
                        "numbers ccloudpickle's formats, compat= names a "
                        "stock cloudpickle");
        return NULL;
    }
    if (native && !signing) {
        Py_ssize_t budget = CPK_PLAIN_MAX_ITEMS;
        if (is_plain(obj, 0, &budget)) {
            PyObject *args[2] = {obj, protocol};
            if (protocol == Py_None &&
                (args[1] = PyLong_FromLong(CPK_HIGHEST_PROTOCOL)) == NULL)
                return NULL;
            PyObject *r = PyObject_Vectorcall(st->base_dumps, args, 2, NULL);
            if (protocol == Py_None)
                Py_DECREF(args[1]);
            return r;
        }
    }
    if (signing) {
        if (buffer_callback != Py_None) {
            PyErr_SetString(PyExc_ValueError,
                            "sign_key cannot be combined with "
                            "buffer_callback: out-of-band buffers would not "
                            "be signed");
            return NULL;
        }
        if (cpk_signing_check_key(sign_key, "sign_key") < 0)
            return NULL;
    }
    PyObject *sink = NULL, *pickler;
    /* None, 5 and -1 all make a protocol 5 Pickler, the spare's (engines
     * pass protocol=pickle.HIGHEST_PROTOCOL). */
    int spare = native && !portable && protocol == Py_None &&
                fmt == CPK_FORMAT_CURRENT;
    if (native && !portable && !spare && fmt == CPK_FORMAT_CURRENT &&
        PyLong_CheckExact(protocol)) {
        int overflow; /* no exception: a huge value is not 5 */
        long p = PyLong_AsLongAndOverflow(protocol, &overflow);
        spare = !overflow && (p == CPK_HIGHEST_PROTOCOL || p == -1);
    }
    if (spare) {
        pickler = cpk_dumps_pickler_take(st, &sink);
        if (pickler != NULL && !diagnose)
            CPK_PICKLER_EXT(pickler)->diagnose_off = 1;
    }
    else {
        if ((sink = cpk_sink_new(st)) == NULL)
            return NULL;
        pickler = make_pickler(st, sink, protocol, buffer_callback, compat,
                               diagnose, portable, fmt);
    }
    if (pickler == NULL) {
        Py_XDECREF(sink);
        return NULL;
    }
    int proto = CPK_PICKLER_EXT(pickler)->proto;
    PyObject *result = NULL, *r = pickler_dump(pickler, obj);
    if (r != NULL) {
        Py_DECREF(r);
        result = cpk_sink_getvalue(sink);
    }
    if (result != NULL && spare) {
        if (cpk_dumps_pickler_give(st, pickler, sink,
                                   PyBytes_GET_SIZE(result)) < 0)
            Py_CLEAR(result);
    }
    else {
        Py_DECREF(pickler);
        Py_DECREF(sink);
    }
    if (result != NULL && signing)
        Py_SETREF(result, cpk_signing_seal(st, result, proto, sign_key));
    return result;
}

static PyObject *
module_dumps(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
             PyObject *kwnames)
{
    static const char *const kwlist[] = {"obj", "protocol", "buffer_callback",
                                         "compat", "sign_key", "diagnose",
                                         "portable", "format", NULL};
    cpk_state *st = cpk_get_state(module);
    PyObject *obj, *protocol = Py_None, *buffer_callback = Py_None;
    PyObject *compat = Py_None, *sign_key = Py_None, *diagnose = Py_True;
    PyObject *portable = Py_False, *format = Py_None;
    if (nargs == 1 && kwnames == NULL)
        return dumps_impl(st, args[0], protocol, buffer_callback, compat,
                          sign_key, 1, 0, CPK_FORMAT_CURRENT);
    if (!cpk_parse_args("dumps", args, nargs, kwnames, kwlist, 1, 3,
                        &obj, &protocol, &buffer_callback, &compat, &sign_key,
                        &diagnose, &portable, &format))
        return NULL;
    int fmt;
    if (cpk_format_arg(format, &fmt) < 0)
        return NULL;
    int diag = PyObject_IsTrue(diagnose);
    int port = diag < 0 ? -1 : PyObject_IsTrue(portable);
    if (port < 0)
        return NULL;
    return dumps_impl(st, obj, protocol, buffer_callback, compat, sign_key,
                      diag, port, fmt);
}

static PyObject *
module_dump(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
            PyObject *kwnames)
{
    static const char *const kwlist[] = {"obj", "file", "protocol",
                                         "buffer_callback", "compat",
                                         "sign_key", "diagnose", "portable",
                                         "format", NULL};
    cpk_state *st = cpk_get_state(module);
    PyObject *obj, *file, *protocol = Py_None, *buffer_callback = Py_None;
    PyObject *compat = Py_None, *sign_key = Py_None, *diagnose = Py_True;
    PyObject *portable = Py_False, *format = Py_None;
    if (!cpk_parse_args("dump", args, nargs, kwnames, kwlist, 2, 4,
                        &obj, &file, &protocol, &buffer_callback, &compat,
                        &sign_key, &diagnose, &portable, &format))
        return NULL;
    int fmt;
    if (cpk_format_arg(format, &fmt) < 0)
        return NULL;
    int diag = PyObject_IsTrue(diagnose);
    int port = diag < 0 ? -1 : PyObject_IsTrue(portable);
    if (port < 0)
        return NULL;
    if (sign_key != Py_None) {
        /* Signed: made in memory, then one write (nothing is written if
         * pickling fails). */
        PyObject *env = dumps_impl(st, obj, protocol, buffer_callback,
                                   compat, sign_key, diag, port, fmt);
        if (env == NULL)
            return NULL;
        PyObject *wargs[2] = {file, env};
        PyObject *w = PyObject_VectorcallMethod(
            st->str_write, wargs, 2 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
        Py_DECREF(env);
        if (w == NULL)
            return NULL;
        Py_DECREF(w);
        Py_RETURN_NONE;
    }
    if (fmt != CPK_FORMAT_CURRENT && compat != Py_None) {
        PyErr_SetString(PyExc_ValueError,
                        "format= cannot be combined with compat=: format= "
                        "numbers ccloudpickle's formats, compat= names a "
                        "stock cloudpickle");
        return NULL;
    }
    PyObject *pickler = make_pickler(st, file, protocol, buffer_callback,
                                     compat, diag, port, fmt);
    if (pickler == NULL)
        return NULL;
    PyObject *r = pickler_dump(pickler, obj);
    Py_DECREF(pickler);
    if (r == NULL)
        return NULL;
    Py_DECREF(r);
    Py_RETURN_NONE;
}

/* loads/load take pickle.loads's keyword-only options. */
static PyObject *
make_unpickler(cpk_state *st, PyObject *file, PyObject *fix_imports,
               PyObject *encoding, PyObject *errors, PyObject *buffers)
{
    PyObject *args[5] = {file, fix_imports, encoding ? encoding : st->str_ASCII,
                         errors ? errors : st->str_strict, buffers};
    /* The defaults: no keywords for CPython's __init__ to parse. */
    int defaults = fix_imports == Py_True && encoding == NULL &&
                   errors == NULL && buffers == Py_None;
    return PyObject_Vectorcall((PyObject *)st->unpickler_type, args, 1,
                               defaults ? NULL : st->kwnames_unpickler);
}

/* Pickles that name anything of ours or of stock cloudpickle's (or
 * import it, as compat pickles do) take our Unpickler, whose find_class
 * maps cloudpickle's names, unless cloudpickle_names below finds only
 * ours as protocols 4 and 5 write them. The rest (plain data) goes
 * straight to _pickle.loads, which builds no Unpickler object: most of
 * the cost of a small load. Large pickles always take the Unpickler: its
 * cost is nothing there, and a scan would not be. */
#define CPK_FAST_LOADS_MAX 65536

/* The names a small pickle gives find_class, read from its bytes: 0 for
 * none of ours nor stock cloudpickle's; 1 for ours only, each written as
 * protocols 4 and 5 write our module's name (SHORT_BINUNICODE of the 12
 * bytes "ccloudpickle": its opcode and length before it, an opcode after
 * it); 2 for anything
 * else naming "cloudpickle" (stock's names, which our find_class maps,
 * ours in protocols 0 to 3, a string that merely holds the word). */
static int
cloudpickle_names(const char *p, Py_ssize_t n)
{
    if (n > CPK_FAST_LOADS_MAX)
        return 2;
    const char *start = p, *end = p + n;
    int ours = 0;
    /* memchr, not memmem: glibc's memmem sets up a two-way search that
     * costs more than a small load's every other check together. */
    while (end - p >= 11 && (p = memchr(p, 'c', (size_t)(end - p - 10)))) {
        if (memcmp(p, "cloudpickle", 11) != 0) {
            p++;
            continue;
        }
        /* GLOBAL and INST end a module name with a newline, never an
         * opcode: "c" "cloudpickle\n" after bytes that happen to be
         * SHORT_BINUNICODE's (an argument of BININT2) is stock's. */
        if (p - start < 3 || memcmp(p - 3, "\x8c\x0c" "c", 3) != 0 ||
            (end - p > 11 && p[11] == '\n'))
            return 2;
        ours = 1;
        p += 11;
    }
    return ours;
}

/* Is sys.modules["ccloudpickle"] this very module? Then pickle.loads's
 * own find_class (import, getattr) finds our names as ours does. */
static int
own_module_imported(cpk_state *st, PyObject *module)
{
    PyObject *modules = PyImport_GetModuleDict();
    /* An exact dict and an exact str key: the lookup runs no code. */
    if (!PyDict_CheckExact(modules))
        return 0;
    PyObject *m = PyDict_GetItemWithError(modules, st->str_ccloudpickle);
    if (m == NULL)
        PyErr_Clear();
    return m == module;
}

static PyObject *do_loads(PyObject *module, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kwnames, int exact);

/* The load of a verified envelope's pickle: loads(pickle, **same other
 * arguments) with `first` (the data or file argument, positional or by
 * keyword) replaced by `pickle` and verify_key dropped, so every option of
 * the call, whatever options loads has, applies to the pickle inside. */
static PyObject *
load_opened(PyObject *module, PyObject *pickle, PyObject *const *args,
            Py_ssize_t nargs, PyObject *kwnames, const char *first, int exact)
{
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    PyObject *small[17], **a = small;
    PyObject *names = PyTuple_New(nkw);
    if (names == NULL)
        return NULL;
    if (nkw + 1 > 17 &&
        (a = PyMem_New(PyObject *, (size_t)nkw + 1)) == NULL) {
        Py_DECREF(names);
        return PyErr_NoMemory();
    }
    a[0] = pickle;
    Py_ssize_t n = 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        if (PyUnicode_CompareWithASCIIString(key, first) == 0 ||
            PyUnicode_CompareWithASCIIString(key, "verify_key") == 0)
            continue;
        PyTuple_SET_ITEM(names, n, Py_NewRef(key));
        a[1 + n++] = args[nargs + k];
    }
    PyObject *r = NULL;
    if (_PyTuple_Resize(&names, n) == 0)
        r = do_loads(module, a, 1, n > 0 ? names : NULL, exact);
    Py_XDECREF(names);
    if (a != small)
        PyMem_Free(a);
    return r;
}

/* The load of `data` (borrowed) through `reader` (borrowed, over data)
 * with our Unpickler: the rest of loads/_loads_exact once the fast paths,
 * signatures and policies are out of the way. New reference, or NULL with
 * the exception set (explained if it comes from a newer format). */
static PyObject *
load_from_reader(cpk_state *st, PyObject *reader, PyObject *data,
                 PyObject *fix_imports, PyObject *encoding, PyObject *errors,
                 PyObject *buffers, int exact)
{
    PyObject *u = make_unpickler(st, reader, fix_imports, encoding, errors,
                                 buffers);
    if (u == NULL)
        return NULL;
    PyObject *result = cpk_load_with(st, u, cpk_reader_remaining(reader));
    Py_DECREF(u);
    if (result == NULL)
        cpk_version_error_explain(st, data);
    if (result != NULL && exact) {
        Py_ssize_t left = cpk_reader_remaining(reader);
        if (left > 0) {
            PyErr_Format(st->UnpicklingError,
                         "%zd byte%s of trailing data after the pickle", left,
                         left == 1 ? "" : "s");
            Py_CLEAR(result);
        }
    }
    return result;
}

static PyObject *
do_loads(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
         PyObject *kwnames, int exact)
{
    static const char *const kwlist[] = {"data", "fix_imports", "encoding",
                                         "errors", "buffers", "verify_key",
                                         "allow", "deny", NULL};
    cpk_state *st = cpk_get_state(module);
    /* loads(bytes) of plain data, the per-result call of every engine:
     * the checks below for that case alone, without parsing arguments. */
    if (nargs == 1 && kwnames == NULL && !exact &&
        PyBytes_CheckExact(args[0])) {
        const char *p = PyBytes_AS_STRING(args[0]);
        Py_ssize_t n = PyBytes_GET_SIZE(args[0]);
        int names = n < CPK_FAST_LOADS_MAX &&
                            !cpk_envelope_is_signed(p, (size_t)n)
                        ? cloudpickle_names(p, n)
                        : 2;
        /* Small, and naming nothing our find_class maps: no GC pause,
         * no Unpickler object (making and freeing one costs more than a
         * task's find_class through the import system), and
         * _pickle.loads's C function called directly. */
        if (names == 0 || (names == 1 && own_module_imported(st, module))) {
            PyObject *r = st->base_loads_fast
                              ? st->base_loads_fast(st->base_loads_self,
                                                    args, 1, NULL)
                              : PyObject_Vectorcall(st->base_loads, args, 1,
                                                    NULL);
            if (r == NULL && names == 1) {
                cpk_version_error_explain(st, args[0]);
                cpk_missing_name_explain(module, args[0]);
            }
            return r;
        }
    }
    PyObject *data, *fix_imports = Py_True, *encoding = NULL, *errors = NULL;
    PyObject *buffers = Py_None, *verify_key = Py_None, *allow = NULL;
    PyObject *deny = NULL;
    if (!cpk_parse_args(exact ? "_loads_exact" : "loads", args, nargs, kwnames,
                        kwlist, 1, 1, &data, &fix_imports, &encoding, &errors,
                        &buffers, &verify_key, &allow, &deny))
        return NULL;
    if (PyUnicode_Check(data)) {
        PyErr_SetString(PyExc_TypeError,
                        "Can't load pickle from unicode string");
        return NULL;
    }
    /* Signed (or a key given): verify before a single opcode runs, then
     * load the pickle inside, with the call's other arguments (allow and
     * deny included). Unsigned data given a key is refused. */
    int is_signed = verify_key != Py_None ? 1 : cpk_signing_is_signed(data);
    if (is_signed < 0)
        return NULL;
    if (is_signed) {
        PyObject *pickle = cpk_signing_open(st, data, verify_key, buffers);
        if (pickle == NULL)
            return NULL;
        PyObject *r = load_opened(module, pickle, args, nargs, kwnames,
                                  "data", exact);
        Py_DECREF(pickle);
        return r;
    }
    /* import policy: never the fast path (loadpolicy.c) */
    if ((allow != NULL && allow != Py_None) ||
        (deny != NULL && deny != Py_None))
        return cpk_loads_policed(st, data, allow, deny, fix_imports,
                                 encoding, errors, buffers, exact);
    if (!exact && PyBytes_CheckExact(data) &&
        cloudpickle_names(PyBytes_AS_STRING(data),
                          PyBytes_GET_SIZE(data)) == 0) {
        PyObject *fargs[5] = {data, fix_imports,
                              encoding ? encoding : st->str_ASCII,
                              errors ? errors : st->str_strict, buffers};
        int defaults = fix_imports == Py_True && encoding == NULL &&
                       errors == NULL && buffers == Py_None;
        return cpk_call_paused(st, PyBytes_GET_SIZE(data), st->base_loads,
                               fargs, 1,
                               defaults ? NULL : st->kwnames_unpickler);
    }
    PyObject *reader = cpk_reader_new(st, data);
    if (reader == NULL)
        return NULL;
    PyObject *result = load_from_reader(st, reader, data, fix_imports,
                                        encoding, errors, buffers, exact);
    Py_DECREF(reader);
    return result;
}

PyObject *
cpk_loads_input(PyObject *module, const char *data, size_t len, int mapped,
                int fd)
{
    cpk_state *st = cpk_get_state(module);
    PyObject *view = PyMemoryView_FromMemory((char *)data, (Py_ssize_t)len,
                                             PyBUF_READ);
    if (view == NULL)
        return NULL;
    PyObject *result = NULL;
    /* A signed envelope goes the way _loads_exact takes it (refused
     * there without a key, as the program refused it already). */
    int is_signed = cpk_signing_is_signed(view);
    if (is_signed < 0)
        goto done;
    if (is_signed || !mapped) {
        result = do_loads(module, &view, 1, NULL, 1);
        goto done;
    }
    PyObject *reader = cpk_reader_new_mapped(st, view, fd);
    if (reader == NULL)
        goto done;
    result = load_from_reader(st, reader, view, Py_True, NULL, NULL, Py_None,
                              1);
    Py_DECREF(reader);
done:
    Py_DECREF(view);
    return result;
}

PyObject *
cpk_loads_input_prechecked(PyObject *module, const char *data, size_t len,
                           struct cpk_policy_names *names, PyObject *allow,
                           PyObject *deny)
{
    cpk_state *st = cpk_get_state(module);
    PyObject *view = PyMemoryView_FromMemory((char *)data, (Py_ssize_t)len,
                                             PyBUF_READ);
    if (view == NULL) {
        cpk_policy_names_free(names);
        return NULL;
    }
    PyObject *result = NULL;
    /* The verdict was made for an unsigned pickle: a signed one is the
     * caller's mistake, not to be loaded without its key. */
    int is_signed = cpk_signing_is_signed(view);
    if (is_signed != 0) {
        cpk_policy_names_free(names);
        if (is_signed > 0)
            PyErr_SetString(st->SignatureError,
                            "a signed pickle needs its key");
        goto done;
    }
    result = cpk_loads_prechecked(st, view, names, allow, deny);
done:
    Py_DECREF(view);
    return result;
}

static PyObject *
module_loads(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
             PyObject *kwnames)
{
    return do_loads(module, args, nargs, kwnames, 0);
}

static PyObject *
module_loads_exact(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                   PyObject *kwnames)
{
    return do_loads(module, args, nargs, kwnames, 1);
}

static PyObject *
module_load(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
            PyObject *kwnames)
{
    static const char *const kwlist[] = {"file", "fix_imports", "encoding",
                                         "errors", "buffers", "verify_key",
                                         "allow", "deny", NULL};
    cpk_state *st = cpk_get_state(module);
    PyObject *file, *fix_imports = Py_True, *encoding = NULL, *errors = NULL;
    PyObject *buffers = Py_None, *verify_key = Py_None, *allow = NULL;
    PyObject *deny = NULL;
    if (!cpk_parse_args("load", args, nargs, kwnames, kwlist, 1, 1, &file,
                        &fix_imports, &encoding, &errors, &buffers,
                        &verify_key, &allow, &deny))
        return NULL;
    if (verify_key != Py_None) {
        /* Exactly one envelope is read and verified, then its pickle is
         * loaded from memory (allow and deny apply to it there). */
        PyObject *pickle = cpk_signing_read(st, file, verify_key, buffers);
        if (pickle == NULL)
            return NULL;
        PyObject *r = load_opened(module, pickle, args, nargs, kwnames,
                                  "file", 0);
        Py_DECREF(pickle);
        return r;
    }
    if ((allow != NULL && allow != Py_None) ||
        (deny != NULL && deny != Py_None))
        return cpk_load_policed(st, file, allow, deny, fix_imports,
                                encoding, errors, buffers);
    PyObject *result = NULL;
    PyObject *u = make_unpickler(st, file, fix_imports, encoding, errors,
                                 buffers);
    if (u != NULL) {
        result = cpk_load_with(st, u, -1);
        Py_DECREF(u);
        if (result == NULL) {
            cpk_signing_hint_unsigned_load(st);
            cpk_version_error_explain_file(st, file);
        }
    }
    return result;
}

PyDoc_STRVAR(dumps_doc,
"dumps(obj, protocol=None, buffer_callback=None, *, compat=None,\n"
"      sign_key=None, diagnose=True, portable=False, format=None)\n--\n\n"
"Return the pickle of obj as bytes. Functions and classes that cannot be\n"
"imported by name on the other side are pickled by value.\n\n"
"protocol defaults to DEFAULT_PROTOCOL (the highest). compat= writes a\n"
"pickle that stock cloudpickle loads without ccloudpickle: 'cloudpickle3'\n"
"(or 'cloudpickle') for 3.x, 'cloudpickle2' for any 2.x, or a release\n"
"such as '2.2' or '3.1.2'; an object that release cannot rebuild raises\n"
"PicklingError here.\n\n"
"sign_key (bytes-like, at least 32 bytes, e.g. os.urandom(32)) returns a\n"
"signed envelope instead: a header naming this CPython version, the\n"
"pickle and an HMAC-SHA256 of both (doc/FORMAT.md); load it with\n"
"loads(data, verify_key=KEY). Not with buffer_callback (out-of-band\n"
"buffers would not be signed): ValueError.\n\n"
"When obj cannot be pickled, the exception raised (its type, traceback\n"
"and cause unchanged) also names the path to the culprit: a note such\n"
"as \"when pickling handler.__globals__['client'].conn['lock']\n"
"(_thread.lock)\" on Python 3.11+, the same words after its message\n"
"before (when its args are one str). To find it, parts of obj are\n"
"pickled again after the failure, so their __reduce__ code runs again\n"
"(a bounded number of times); diagnose=False skips that. A successful\n"
"dump costs nothing more either way.\n\n"
"portable=True also ships the source of each function carried by value,\n"
"when it is found and proven to compile to the running code, so that\n"
"another CPython version can compile and run it (doc/FORMAT.md,\n"
"_code_portable). Not with compat=: ValueError.\n\n"
"format=N (1 to FORMAT) writes what the ccloudpickle release of format N\n"
"loads, for older workers during an upgrade; an object that format cannot\n"
"carry raises PicklingError (doc/FORMAT.md). Not with compat=: ValueError.");

PyDoc_STRVAR(dump_doc,
"dump(obj, file, protocol=None, buffer_callback=None, *, compat=None,\n"
"     sign_key=None, diagnose=True, portable=False, format=None)\n--\n\n"
"Write the pickle of obj to the binary file object file. See dumps().\n"
"With sign_key, the signed envelope is made in memory and written with\n"
"one file.write() call.");

PyDoc_STRVAR(loads_doc,
"loads(data, /, *, fix_imports=True, encoding='ASCII', errors='strict',\n"
"      buffers=None, verify_key=None, allow=None, deny=None)\n--\n\n"
"Return the object pickled in data. Reads pickles written by ccloudpickle\n"
"and by stock cloudpickle, even where cloudpickle is not installed.\n\n"
"verify_key (bytes-like, at least 32 bytes): data must be a signed\n"
"envelope made by dumps(sign_key=) with the same key under the same\n"
"CPython version (major.minor and bytecode magic). Its signature is\n"
"checked before a single opcode runs; unsigned, altered, truncated,\n"
"other-key or other-version data raises SignatureError (an\n"
"UnpicklingError). Signed data without verify_key raises it too. A\n"
"mutable buffer is copied once and the copy verified and loaded. A\n"
"signature proves origin, not freshness. Not with buffers.\n\n"
"Loading a pickle runs code it carries. allow and deny (iterables of str\n"
"patterns: 'module', 'module.name', or either ending in '*', a prefix\n"
"of the dotted name) restrict what it may import. With allow given, even\n"
"empty, only ccloudpickle's and cloudpickle's reconstructors, plain data\n"
"and the allowed names are permitted; a deny pattern always wins. With\n"
"any rule, dangerous names (commands, code objects, eval, a computed\n"
"getattr, __import__, importlib, operator.attrgetter, nested unpicklers)\n"
"and paths through a private attribute ('tempfile._os.system') need an\n"
"allow pattern naming them ('os.system', 'os*'; not '*'); deny alone\n"
"permits all else. A deny list is a best-effort filter, not a boundary.\n"
"The pickle is first checked without running anything: if an import is\n"
"refused, PolicyError (an UnpicklingError) lists every refused import\n"
"(name and byte offset) before a single opcode runs, and a malformed\n"
"pickle is refused 'at byte N'. The load then runs with find_class\n"
"enforcing the same rules. A bad pattern raises ValueError, a non-str\n"
"TypeError. The check holds at most the memory the machine has available\n"
"(2 GiB at least): a pickle that needs more raises UnpicklingError ('too\n"
"large to inspect').\n\n"
"A policy is an audit aid, not a sandbox: code carried by value can run\n"
"during the load itself, not only when called (a pickle may call a\n"
"function it carries by value; a class carried by value runs its own\n"
"__setstate__, __new__ or __hash__ as its instances are rebuilt). The\n"
"check finds such pickles and any policy refuses them (PolicyError): load\n"
"them without a policy, after verifying their signature.\n\n"
"Code compiled by another CPython version runs only if the pickle ships\n"
"its source (dumps(portable=True)); otherwise UnpicklingError names both\n"
"versions and every function of the pickle that cannot run here (load()\n"
"finds them in a file that holds pickles from its start).");

PyDoc_STRVAR(load_doc,
"load(file, *, fix_imports=True, encoding='ASCII', errors='strict',\n"
"     buffers=None, verify_key=None, allow=None, deny=None)\n--\n\n"
"Read one pickle from the binary file object file. See loads(). With\n"
"verify_key, exactly one signed envelope is read (its header gives the\n"
"lengths) and verified before anything in it is loaded. The header is\n"
"unauthenticated until then: memory grows with the bytes the file\n"
"really holds, but an endless stream is read until the length the\n"
"header claims. Bound an untrusted stream yourself (read at most N\n"
"bytes, then loads()).\n\n"
"With allow or deny (and no verify_key), the rest of the file is read\n"
"(file.read()) and checked first, then, before anything is loaded, the\n"
"file is put back just after the pickle (file.seek()); data after the\n"
"pickle in a file whose tell() fails or gives no int raises\n"
"pickle.UnpicklingError, and a failing seek() its own error, before\n"
"anything is loaded.");

PyDoc_STRVAR(loads_exact_doc,
"_loads_exact(data, /, **kwargs)\n--\n\n"
"Like loads(), but data must hold exactly one pickle: trailing bytes raise\n"
"UnpicklingError. Used by cloudpickle-load.");

PyDoc_STRVAR(register_doc,
"register_pickle_by_value(module)\n--\n\n"
"Pickle the functions and classes of module (and of its submodules) by\n"
"value, so they load where the module cannot be imported.");

PyDoc_STRVAR(unregister_doc,
"unregister_pickle_by_value(module)\n--\n\n"
"Undo register_pickle_by_value(module).");

PyDoc_STRVAR(list_registry_doc,
"list_registry_pickle_by_value()\n--\n\n"
"Return a copy of the set of module names registered for pickling by "
"value.");

/* Module __getattr__ (PEP 562): the format markers (format.h), which a
 * pickle opens with and pops. Ours and older ones resolve to None; a
 * newer one raises FormatError, the message of a loader too old. */
static PyObject *
module_getattr(PyObject *module, PyObject *name)
{
    int n;
    char writer[48];
    Py_ssize_t len = 0;
    /* With its length: a name with a NUL in it is not a marker (the
     * static scan reads it whole too). */
    const char *s =
        PyUnicode_Check(name) ? PyUnicode_AsUTF8AndSize(name, &len) : NULL;
    if (s == NULL && PyErr_Occurred())
        return NULL;
    if (s != NULL &&
        cpk_format_parse(s, (size_t)len, &n, writer, sizeof writer)) {
        if (n <= CPK_FORMAT_CURRENT)
            Py_RETURN_NONE;
        char msg[256];
        cpk_format_message(msg, sizeof msg, n, writer, CPK_VERSION);
        PyErr_SetString(cpk_get_state(module)->FormatError, msg);
        return NULL;
    }
    PyErr_Format(PyExc_AttributeError,
                 "module '" CPK_MODULE_NAME "' has no attribute '%U'", name);
    return NULL;
}

static PyMethodDef module_methods[] = {
    {"__getattr__", module_getattr, METH_O, NULL},
    {"dumps", (PyCFunction)(void (*)(void))module_dumps,
     METH_FASTCALL | METH_KEYWORDS, dumps_doc},
    {"dump", (PyCFunction)(void (*)(void))module_dump,
     METH_FASTCALL | METH_KEYWORDS, dump_doc},
    {"loads", (PyCFunction)(void (*)(void))module_loads,
     METH_FASTCALL | METH_KEYWORDS, loads_doc},
    {"load", (PyCFunction)(void (*)(void))module_load,
     METH_FASTCALL | METH_KEYWORDS, load_doc},
    {"_loads_exact", (PyCFunction)(void (*)(void))module_loads_exact,
     METH_FASTCALL | METH_KEYWORDS, loads_exact_doc},
    {"register_pickle_by_value", cpk_register_by_value, METH_O, register_doc},
    {"unregister_pickle_by_value", cpk_unregister_by_value, METH_O,
     unregister_doc},
    {"list_registry_pickle_by_value", cpk_list_registry, METH_NOARGS,
     list_registry_doc},
    {NULL, NULL, 0, NULL},
};

/* Exec --------------------------------------------------------------- */

/* Fetch the module-level object `name` we defined (new reference). */
static PyObject *
own(PyObject *module, const char *name)
{
    return PyObject_GetAttrString(module, name);
}

static int
init_names(cpk_state *st)
{
#define INTERN(n)                                                            \
    if ((st->str_##n = PyUnicode_InternFromString(#n)) == NULL)              \
        return -1;
    CPK_NAMES(INTERN)
#undef INTERN
    st->str_dot = PyUnicode_InternFromString(".");
    st->str_locals = PyUnicode_InternFromString("<locals>");
    st->str_ASCII = PyUnicode_InternFromString("ASCII");
    st->str_strict = PyUnicode_InternFromString("strict");
    st->kwnames_compat = Py_BuildValue("(s)", "compat");
    st->kwnames_unpickler = Py_BuildValue("(ssss)", "fix_imports", "encoding",
                                          "errors", "buffers");
    if (!st->str_ASCII || !st->str_strict || !st->kwnames_compat ||
        !st->kwnames_unpickler)
        return -1;
    st->version_str = cpk_python_version();
    st->magic_int = PyLong_FromLong(PyImport_GetMagicNumber());
    return st->str_dot && st->str_locals && st->version_str && st->magic_int
               ? 0
               : -1;
}

static int
add_static_types(cpk_state *st)
{
    static const struct {
        PyTypeObject *type;
        int kind;
    } statics[] = {
        {&PyCode_Type, CPK_KIND_CODE},
        {&PyCell_Type, CPK_KIND_CELL},
        {&PyModule_Type, CPK_KIND_MODULE},
        {&PyProperty_Type, CPK_KIND_PROPERTY},
        {&PyClassMethod_Type, CPK_KIND_CLASSMETHOD},
        {&PyStaticMethod_Type, CPK_KIND_CLASSMETHOD},
        {&PyMethod_Type, CPK_KIND_METHOD},
        {&PyDictProxy_Type, CPK_KIND_MAPPINGPROXY},
        {&PyMemoryView_Type, CPK_KIND_MEMORYVIEW},
        {&PyGetSetDescr_Type, CPK_KIND_GETSET},
        {&PyDictKeys_Type, CPK_KIND_DICT_KEYS},
        {&PyDictValues_Type, CPK_KIND_DICT_VALUES},
        {&PyDictItems_Type, CPK_KIND_DICT_ITEMS},
        {&PyODictKeys_Type, CPK_KIND_ODICT_KEYS},
        {&PyODictValues_Type, CPK_KIND_ODICT_VALUES},
        {&PyODictItems_Type, CPK_KIND_ODICT_ITEMS},
        {&PyContextVar_Type, CPK_KIND_CONTEXTVAR},
    };
    for (size_t i = 0; i < sizeof(statics) / sizeof(statics[0]); i++)
        cpk_table_add(st, statics[i].type, statics[i].kind);
    cpk_table_add(st, (PyTypeObject *)st->textio_type, CPK_KIND_TEXTFILE);
    cpk_table_add(st, st->ref_type, CPK_KIND_EXTREF);

    /* abc is imported at interpreter start-up: no import cost. */
    PyObject *abc = PyImport_ImportModule("abc");
    if (abc == NULL)
        return -1;
    static const struct {
        const char *name;
        int kind;
    } abcs[] = {
        {"abstractproperty", CPK_KIND_PROPERTY},
        {"abstractclassmethod", CPK_KIND_CLASSMETHOD},
        {"abstractstaticmethod", CPK_KIND_CLASSMETHOD},
    };
    for (size_t i = 0; i < sizeof(abcs) / sizeof(abcs[0]); i++) {
        PyObject *t = PyObject_GetAttrString(abc, abcs[i].name);
        if (t == NULL) {
            /* Removed in a future CPython: nothing to dispatch. */
            PyErr_Clear();
            continue;
        }
        if (PyType_Check(t)) {
            /* Module abc keeps the class alive for the interpreter's life;
             * the table holds it borrowed like the static types. */
            if (PyList_Append(st->abc_types, t) < 0) {
                Py_DECREF(t);
                Py_DECREF(abc);
                return -1;
            }
            cpk_table_add(st, (PyTypeObject *)t, abcs[i].kind);
        }
        Py_DECREF(t);
    }
    Py_DECREF(abc);
    return 0;
}

/* The format marker: its opcodes for protocols 0-3 and 4+, and the
 * current one as an attribute. */
static int
add_format_marker(PyObject *module, cpk_state *st)
{
    /* GLOBAL ccloudpickle _format_N_..., POP (format.h) */
    char name[48];
    int n = cpk_format_marker(name, sizeof name, CPK_FORMAT_CURRENT,
                              CPK_VERSION);
    int len = n < 0 ? -1
                    : snprintf(st->format_op, sizeof st->format_op,
                               "c%s\n%s\n0", CPK_MODULE_NAME, name);
    if (len < 0 || (size_t)len >= sizeof st->format_op) {
        PyErr_SetString(PyExc_SystemError, "format marker too long");
        return -1;
    }
    st->format_op_len = len;
    /* SHORT_BINUNICODE module, SHORT_BINUNICODE name, STACK_GLOBAL, POP */
    len = snprintf(st->format_op4, sizeof st->format_op4,
                   "\x8c%c%s\x8c%c%s\x93" "0",
                   (char)strlen(CPK_MODULE_NAME), CPK_MODULE_NAME,
                   (char)n, name);
    if (len < 0 || (size_t)len >= sizeof st->format_op4) {
        PyErr_SetString(PyExc_SystemError, "format marker too long");
        return -1;
    }
    st->format_op4_len = len;
    /* The current marker is an attribute: every load of one of our
     * pickles finds it in the module dict, without the miss and the
     * __getattr__ call that older and newer markers take. */
    if (PyModule_AddObjectRef(module, name, Py_None) < 0)
        return -1;
    return 0;
}

/* What the module builds on: _pickle's classes and functions, copyreg's
 * table, the io and abc types, sys.modules and builtins. */
static int
import_bases(cpk_state *st)
{
    if ((st->base_pickler = cpk_import_attr("_pickle", "Pickler")) == NULL ||
        (st->base_dumps = cpk_import_attr("_pickle", "dumps")) == NULL ||
        (st->base_unpickler = cpk_import_attr("_pickle", "Unpickler")) ==
            NULL ||
        (st->PicklingError = cpk_import_attr("_pickle", "PicklingError")) ==
            NULL ||
        (st->UnpicklingError =
             cpk_import_attr("_pickle", "UnpicklingError")) == NULL ||
        (st->copyreg_dispatch =
             cpk_import_attr("copyreg", "dispatch_table")) == NULL ||
        (st->textio_type = cpk_import_attr("_io", "TextIOWrapper")) == NULL ||
        (st->stringio_type = cpk_import_attr("_io", "StringIO")) == NULL ||
        (st->abcmeta = cpk_import_attr("abc", "ABCMeta")) == NULL ||
        (st->abc_get_dump = cpk_import_attr("_abc", "_get_dump")) == NULL ||
        (st->sys_modules = PyImport_GetModuleDict()) == NULL)
        return -1;
    Py_INCREF(st->sys_modules);
    if (!PyType_Check(st->base_pickler) || !PyType_Check(st->base_unpickler)) {
        PyErr_SetString(PyExc_ImportError,
                        "_pickle.Pickler and Unpickler must be types");
        return -1;
    }
    if ((st->builtins_module = PyImport_ImportModule("builtins")) == NULL ||
        (st->getattr = PyObject_GetAttrString(st->builtins_module,
                                              "getattr")) == NULL ||
        (st->import_ = PyObject_GetAttrString(st->builtins_module,
                                              "__import__")) == NULL)
        return -1;
    return 0;
}

/* The state's containers, then each part's types and state. */
static int
init_parts(PyObject *module, cpk_state *st)
{
    if ((st->by_value = PySet_New(NULL)) == NULL ||
        (st->extrefs = PyDict_New()) == NULL ||
        (st->singletons = PyDict_New()) == NULL ||
        (st->abc_types = PyList_New(0)) == NULL)
        return -1;
    if (cpk_memio_init_types(module, st) < 0 ||
        cpk_pickler_init_type(module, st) < 0 ||
        cpk_unpickler_init_type(module, st) < 0 ||
        cpk_tracker_init(module, st) < 0 ||
        cpk_codeinfo_init(st) < 0 || cpk_compat_init(module, st) < 0 ||
        cpk_reconstruct_init_types(module, st) < 0 ||
        cpk_loadpolicy_init(module, st) < 0 ||
        cpk_primitives_init(module, st) < 0)
        return -1;
    return 0;
}

/* The module's functions, the state's references to those pickles name,
 * and the empty-cell sentinel. */
static int
add_functions(PyObject *module, cpk_state *st)
{
    if (PyModule_AddFunctions(module, cpk_reconstruct_methods) < 0 ||
        PyModule_AddFunctions(module, cpk_compat_methods) < 0 ||
        PyModule_AddFunctions(module, cpk_reducer_methods) < 0 ||
        PyModule_AddFunctions(module, cpk_diagnose_methods) < 0 ||
        PyModule_AddFunctions(module, cpk_glue_methods) < 0 ||
        PyModule_AddFunctions(module, cpk_stock_methods) < 0 ||
        PyModule_AddFunctions(module, cpk_portable_methods) < 0 ||
        PyModule_AddFunctions(module, cpk_functools_methods) < 0 ||
        PyModule_AddFunctions(module, cpk_typeform_methods) < 0)
        return -1;
    if ((st->function_new = own(module, "_function_new")) == NULL ||
        (st->function_fill = own(module, "_function_fill")) == NULL ||
        (st->function_make = own(module, "_function_make")) == NULL ||
        (st->code_unmarshal = own(module, "_code_unmarshal")) == NULL ||
        (st->code_new = own(module, "_code_new")) == NULL ||
        (st->make_cell = own(module, "_make_cell")) == NULL ||
        (st->make_empty_cell = own(module, "_make_empty_cell")) == NULL ||
        (st->subimport = own(module, "subimport")) == NULL ||
        (st->dynamic_subimport = own(module, "dynamic_subimport")) == NULL ||
        (st->module_new = own(module, "_module_new")) == NULL ||
        (st->module_fill = own(module, "_module_fill")) == NULL ||
        (st->code_portable = own(module, "_code_portable")) == NULL ||
        (st->builtin_type = own(module, "_builtin_type")) == NULL ||
        (st->make_skeleton_class = own(module, "_make_skeleton_class")) ==
            NULL ||
        (st->make_skeleton_enum = own(module, "_make_skeleton_enum")) ==
            NULL ||
        (st->class_setstate = own(module, "_class_setstate")) == NULL ||
        (st->make_typevar = own(module, "_make_typevar")) == NULL ||
        (st->make_typeparam = own(module, "_make_typeparam")) == NULL ||
        (st->make_newtype = own(module, "_make_newtype")) == NULL ||
        (st->make_dict_keys = own(module, "_make_dict_keys")) == NULL ||
        (st->make_dict_values = own(module, "_make_dict_values")) == NULL ||
        (st->make_dict_items = own(module, "_make_dict_items")) == NULL ||
        (st->file_reconstructor = own(module, "_file_reconstructor")) ==
            NULL ||
        (st->dataclass_sentinel =
             own(module, "_get_dataclass_field_type_sentinel")) == NULL ||
        (st->singledispatch_new = own(module, "_singledispatch_new")) ==
            NULL ||
        (st->singledispatch_fill = own(module, "_singledispatch_fill")) ==
            NULL ||
        (st->lru_cache_new = own(module, "_lru_cache_new")) == NULL ||
        (st->reduce_builtin = own(module, "_reduce")) == NULL ||
        (st->cp_make_function = own(module, "_make_function")) == NULL ||
        (st->cp_function_setstate = own(module, "_function_setstate")) ==
            NULL ||
        (st->compat_import = own(module, "_import")) == NULL)
        return -1;
    /* The empty-cell sentinel: one instance, found again by name. */
    st->empty_cell_value = PyType_GenericAlloc(st->sentinel_type, 0);
    if (st->empty_cell_value == NULL ||
        PyModule_AddObjectRef(module, "_empty_cell_value",
                              st->empty_cell_value) < 0)
        return -1;
    return 0;
}

/* The public names: the classes, the exceptions and the constants. */
static int
add_constants(PyObject *module, cpk_state *st)
{
    if (PyModule_AddObjectRef(module, "Pickler",
                              (PyObject *)st->pickler_type) < 0 ||
        PyModule_AddObjectRef(module, "CloudPickler",
                              (PyObject *)st->pickler_type) < 0 ||
        PyModule_AddObjectRef(module, "Unpickler",
                              (PyObject *)st->unpickler_type) < 0 ||
        PyModule_AddObjectRef(module, "PicklingError", st->PicklingError) < 0 ||
        PyModule_AddObjectRef(module, "UnpicklingError",
                              st->UnpicklingError) < 0 ||
        PyModule_AddIntConstant(module, "DEFAULT_PROTOCOL",
                                CPK_HIGHEST_PROTOCOL) < 0 ||
        PyModule_AddIntConstant(module, "HIGHEST_PROTOCOL",
                                CPK_HIGHEST_PROTOCOL) < 0 ||
        PyModule_AddStringConstant(module, "__version__", CPK_VERSION) < 0 ||
        PyModule_AddIntConstant(module, "FORMAT", CPK_FORMAT_CURRENT) < 0)
        return -1;
    st->FormatError = PyErr_NewExceptionWithDoc(
        CPK_MODULE_NAME ".FormatError",
        "The pickle needs a newer format than this ccloudpickle loads "
        "(doc/FORMAT.md): upgrade the loading side, or write with format=.",
        st->UnpicklingError, NULL);
    if (st->FormatError == NULL ||
        PyModule_AddObjectRef(module, "FormatError", st->FormatError) < 0)
        return -1;
    return 0;
}

static int
module_exec(PyObject *module)
{
    cpk_state *st = cpk_get_state(module);
    if (init_names(st) < 0 || add_format_marker(module, st) < 0 ||
        import_bases(st) < 0 || init_parts(module, st) < 0 ||
        add_functions(module, st) < 0 || add_static_types(st) < 0 ||
        cpk_refresh_lazy_types(st) < 0 ||
        cpk_gc_register_at_fork(module) < 0 || add_constants(module, st) < 0)
        return -1;
    /* Last: from here stock cloudpickle may call into the module. */
    return cpk_stock_init(module, st);
}

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, module_exec},
    {0, NULL},
};

PyDoc_STRVAR(module_doc,
"Fast cloudpickle in C: pickle functions, classes and modules by value.\n\n"
"A drop-in for cloudpickle's API: dumps, dump, loads, load, Pickler\n"
"(CloudPickler), register_pickle_by_value, unregister_pickle_by_value,\n"
"list_registry_pickle_by_value, DEFAULT_PROTOCOL. PolicyError and\n"
"SignatureError (both pickle.UnpicklingError) are loads' own refusals.");

PyMODINIT_FUNC
PyInit_ccloudpickle(void)
{
    /* The definition is state.c's; its methods and exec are this file's. */
    cpk_module_def.m_doc = module_doc;
    cpk_module_def.m_methods = module_methods;
    cpk_module_def.m_slots = module_slots;
    return PyModuleDef_Init(&cpk_module_def);
}
