/* signing.c - signed pickles for the module's dumps, dump, loads and load:
 * the Python side of envelope.c (keys from bytes-like objects, the
 * interpreter's version in the header, the module's exceptions).
 *
 * Every refusal of an envelope is a SignatureError (a subclass of
 * UnpicklingError) raised before the pickle inside is given to any
 * unpickler: not one opcode runs unless the MAC matches and the envelope was written by this CPython (major.minor
 * and bytecode magic). The layout is in envelope.h and doc/FORMAT.md.
 */
#include "engine/signing.h"
#include "core/state.h"
#include "ccloudpickle.h"
#include "common/pycompat.h"
#include "common/pyerr.h" /* cpk_error_clearable */
#include "scan/envelope.h"

#include <stdint.h>

/* Largest read() asked of a file while reading an envelope: the pickle
 * length in the header is untrusted, so memory grows with what the file
 * really holds, never with what the header claims. */
#define READ_CHUNK ((Py_ssize_t)1 << 20)

/* This interpreter's bytecode magic as envelope.h stores it: the first two
 * bytes of importlib.util.MAGIC_NUMBER read little-endian. */
static unsigned
this_magic(cpk_state *st)
{
    long m = PyLong_AsLong(st->magic_int);
    if (m == -1 && PyErr_Occurred()) {
        PyErr_Clear(); /* a small int: cannot fail */
        m = PyImport_GetMagicNumber();
    }
    return (unsigned)(m & 0xffff);
}

/* Get `key` as a buffer of at least CPK_ENV_KEY_MIN bytes. 0, or -1 with
 * TypeError (not bytes-like) or ValueError (too short) naming `argname`.
 * On success the caller releases `view`. Runs no Python code beyond the
 * exporter's buffer slot. */
static int
get_key(PyObject *key, const char *argname, Py_buffer *view)
{
    if (PyUnicode_Check(key) || !PyObject_CheckBuffer(key)) {
        PyErr_Format(PyExc_TypeError,
                     "%s must be a bytes-like object, not %.100s", argname,
                     Py_TYPE(key)->tp_name);
        return -1;
    }
    if (PyObject_GetBuffer(key, view, PyBUF_SIMPLE) < 0)
        return -1;
    if (view->len < CPK_ENV_KEY_MIN) {
        PyErr_Format(PyExc_ValueError,
                     "%s is too short: %zd bytes, a key must have at least "
                     "%d (e.g. os.urandom(32))",
                     argname, view->len, CPK_ENV_KEY_MIN);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

int
cpk_signing_check_key(PyObject *key, const char *argname)
{
    Py_buffer view;
    if (get_key(key, argname, &view) < 0)
        return -1;
    PyBuffer_Release(&view);
    return 0;
}

PyObject *
cpk_signing_seal(cpk_state *st, PyObject *pickle, int proto, PyObject *key)
{
    Py_buffer kv;
    if (!PyBytes_Check(pickle)) {
        PyErr_SetString(PyExc_TypeError, "the pickle to sign must be bytes");
        return NULL;
    }
    if (get_key(key, "sign_key", &kv) < 0)
        return NULL;
    PyObject *out = NULL;
    cpk_envelope hdr;
    memset(&hdr, 0, sizeof(hdr));
    snprintf(hdr.tool_version, sizeof(hdr.tool_version), "%s", CPK_VERSION);
    hdr.py_major = PY_MAJOR_VERSION;
    hdr.py_minor = PY_MINOR_VERSION;
    hdr.py_micro = PY_MICRO_VERSION;
    hdr.bytecode_magic = this_magic(st);
    hdr.protocol = proto;
    size_t plen = (size_t)PyBytes_GET_SIZE(pickle);
    size_t size = cpk_envelope_size(hdr.tool_version, plen);
    if (size == 0 || size > (size_t)PY_SSIZE_T_MAX) {
        PyErr_NoMemory();
        goto done;
    }
    out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
    if (out == NULL)
        goto done;
    cpk_env_status s = cpk_envelope_seal(
        &hdr, PyBytes_AS_STRING(pickle), plen, kv.buf, (size_t)kv.len,
        (unsigned char *)PyBytes_AS_STRING(out));
    if (s != CPK_ENV_OK) {
        PyErr_Format(st->PicklingError, "cannot sign the pickle: %s",
                     cpk_envelope_strerror(s));
        Py_CLEAR(out);
    }
done:
    PyBuffer_Release(&kv);
    return out;
}

int
cpk_signing_is_signed(PyObject *data)
{
    if (PyBytes_Check(data))
        return cpk_envelope_is_signed(PyBytes_AS_STRING(data),
                                      (size_t)PyBytes_GET_SIZE(data));
    if (PyUnicode_Check(data) || !PyObject_CheckBuffer(data))
        return 0;
    Py_buffer b;
    if (PyObject_GetBuffer(data, &b, PyBUF_SIMPLE) < 0) {
        /* Not readable as one block: the load reports it. */
        if (cpk_error_clearable())
            PyErr_Clear();
        return PyErr_Occurred() ? -1 : 0;
    }
    int r = cpk_envelope_is_signed(b.buf, (size_t)b.len);
    PyBuffer_Release(&b);
    return r;
}

/* The pickle inside a verified envelope, after the version check; NULL
 * with SignatureError. `data` must not change during the call (private
 * memory): the MAC is computed over it and the pickle copied from it.
 * New reference. */
static PyObject *
open_buffer(cpk_state *st, const unsigned char *data, size_t len,
            const Py_buffer *key)
{
    cpk_envelope env;
    size_t at = 0;
    cpk_env_status s = cpk_envelope_parse(data, len, &env, &at);
    if (s == CPK_ENV_NOT_SIGNED) {
        PyErr_SetString(st->SignatureError,
                        "not a signed pickle (verify_key was given): "
                        "refusing to load it unverified");
        return NULL;
    }
    if (s != CPK_ENV_OK) {
        PyErr_Format(st->SignatureError, "signed pickle refused: %s at "
                     "byte %zu", cpk_envelope_strerror(s), at);
        return NULL;
    }
    s = cpk_envelope_verify(&env, data, key->buf, (size_t)key->len);
    if (s != CPK_ENV_OK) {
        PyErr_Format(st->SignatureError, "signed pickle refused: %s",
                     cpk_envelope_strerror(s));
        return NULL;
    }
    /* Code objects and the layouts reconstructors rebuild are per CPython
     * version: a pickle signed elsewhere is refused before it runs. */
    unsigned magic = this_magic(st);
    if (env.py_major != PY_MAJOR_VERSION || env.py_minor != PY_MINOR_VERSION ||
        env.bytecode_magic != magic) {
        PyErr_Format(st->SignatureError,
                     "signed pickle refused: signed by Python %u.%u "
                     "(bytecode magic %u); this is Python %d.%d (%u)",
                     env.py_major, env.py_minor, env.bytecode_magic,
                     PY_MAJOR_VERSION, PY_MINOR_VERSION, magic);
        return NULL;
    }
    if (env.pickle_len > (size_t)PY_SSIZE_T_MAX)
        return PyErr_NoMemory();
    return PyBytes_FromStringAndSize((const char *)env.pickle,
                                     (Py_ssize_t)env.pickle_len);
}

/* The refusals that come before any data is looked at: no key, or
 * out-of-band buffers, which a signature would not cover. 0 or -1. */
static int
check_open_args(cpk_state *st, PyObject *key, PyObject *buffers)
{
    if (key == NULL || key == Py_None) {
        PyErr_SetString(st->SignatureError,
                        "signed pickle: pass verify_key to check its "
                        "signature and load it");
        return -1;
    }
    if (buffers != NULL && buffers != Py_None) {
        PyErr_SetString(PyExc_ValueError,
                        "verify_key cannot be combined with buffers: "
                        "out-of-band buffers are not signed");
        return -1;
    }
    return 0;
}

PyObject *
cpk_signing_open(cpk_state *st, PyObject *data, PyObject *key,
                 PyObject *buffers)
{
    if (check_open_args(st, key, buffers) < 0)
        return NULL;
    Py_buffer kv;
    if (get_key(key, "verify_key", &kv) < 0)
        return NULL;
    /* One private copy first (bytes are immutable already): a shared
     * mapping (mmap, shared memory) may change under us, and what is
     * verified must be what is loaded. */
    PyObject *copy = PyBytes_CheckExact(data) ? Py_NewRef(data)
                                              : PyBytes_FromObject(data);
    PyObject *r = NULL;
    if (copy != NULL)
        r = open_buffer(st, (const unsigned char *)PyBytes_AS_STRING(copy),
                        (size_t)PyBytes_GET_SIZE(copy), &kv);
    Py_XDECREF(copy);
    PyBuffer_Release(&kv);
    return r;
}

/* Append up to `n` bytes read from `file` to `acc`, with as many read()
 * calls as it takes; stops early at end of file. 0 or -1. */
static int
read_into(cpk_state *st, PyObject *file, PyObject *acc, Py_ssize_t n)
{
    while (n > 0) {
        Py_ssize_t want = n < READ_CHUNK ? n : READ_CHUNK;
        PyObject *size = PyLong_FromSsize_t(want);
        if (size == NULL)
            return -1;
        PyObject *args[2] = {file, size};
        PyObject *chunk = PyObject_VectorcallMethod(
            st->str_read, args, 2 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
        Py_DECREF(size);
        if (chunk == NULL)
            return -1;
        Py_buffer b;
        if (PyObject_GetBuffer(chunk, &b, PyBUF_SIMPLE) < 0) {
            Py_DECREF(chunk);
            return -1;
        }
        Py_ssize_t got = b.len;
        int rc = 0;
        if (got > want)
            PyErr_Format(PyExc_ValueError, "read() returned %zd bytes, "
                         "more than the %zd asked", got, want);
        if (got > want ||
            (got > 0 && PyByteArray_Resize(acc, PyByteArray_GET_SIZE(acc) +
                                                    got) < 0))
            rc = -1;
        else if (got > 0)
            memcpy(PyByteArray_AS_STRING(acc) + PyByteArray_GET_SIZE(acc) - got,
                   b.buf, (size_t)got);
        PyBuffer_Release(&b);
        Py_DECREF(chunk);
        if (rc < 0)
            return -1;
        if (got == 0)
            return 0; /* end of file */
        n -= got;
    }
    return 0;
}

/* Bytes needed to complete the envelope whose first `have` bytes are in
 * `d`, as far as the header tells; 0 when it is complete or the header is
 * wrong (cpk_envelope_parse then says what is wrong). */
static Py_ssize_t
still_needed(const unsigned char *d, size_t have)
{
    cpk_envelope env;
    size_t at;
    if (cpk_envelope_parse(d, have, &env, &at) != CPK_ENV_TRUNCATED)
        return 0;
    if (have < 13)
        return (Py_ssize_t)(13 - have);
    size_t h = (size_t)d[10] << 8 | d[11]; /* checked against n by parse */
    if (have < h)
        return (Py_ssize_t)(h - have);
    uint64_t p = 0;
    for (size_t i = h - 8; i < h; i++)
        p = p << 8 | d[i];
    uint64_t total = (uint64_t)h + CPK_ENV_MAC_LEN;
    if (p > (uint64_t)PY_SSIZE_T_MAX - total)
        return PY_SSIZE_T_MAX; /* read to the end: truncated */
    total += p;
    return total > have ? (Py_ssize_t)(total - have) : 0;
}

PyObject *
cpk_signing_read(cpk_state *st, PyObject *file, PyObject *key,
                 PyObject *buffers)
{
    if (check_open_args(st, key, buffers) < 0)
        return NULL;
    Py_buffer kv;
    if (get_key(key, "verify_key", &kv) < 0)
        return NULL;
    PyObject *r = NULL;
    PyObject *acc = PyByteArray_FromStringAndSize(NULL, 0);
    if (acc == NULL)
        goto done;
    /* Header start, header, then pickle and MAC: exactly one envelope,
     * nothing after it is read. */
    for (;;) {
        Py_ssize_t have = PyByteArray_GET_SIZE(acc);
        Py_ssize_t need = still_needed(
            (const unsigned char *)PyByteArray_AS_STRING(acc), (size_t)have);
        if (have == 0)
            need = 13;
        if (need == 0)
            break;
        if (read_into(st, file, acc, need) < 0)
            goto done;
        if (PyByteArray_GET_SIZE(acc) - have < need)
            break; /* end of file: parse says truncated */
    }
    if (PyByteArray_GET_SIZE(acc) == 0) {
        PyErr_SetString(st->SignatureError,
                        "signed pickle refused: empty input (Ran out of "
                        "input)");
        goto done;
    }
    r = open_buffer(st, (const unsigned char *)PyByteArray_AS_STRING(acc),
                    (size_t)PyByteArray_GET_SIZE(acc), &kv);
done:
    Py_XDECREF(acc);
    PyBuffer_Release(&kv);
    return r;
}

void
cpk_signing_hint_unsigned_load(cpk_state *st)
{
    /* _pickle's message for the first byte of the magic, which is no
     * opcode: say what it probably is. */
    if (!PyErr_ExceptionMatches(st->UnpicklingError))
        return;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *s = value ? PyObject_Str(value) : NULL;
    int match = s != NULL &&
                PyUnicode_CompareWithASCIIString(
                    s, "invalid load key, '\\xcf'.") == 0;
    Py_XDECREF(s);
    if (s == NULL && PyErr_Occurred()) {
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        return;
    }
    if (!match) {
        PyErr_Restore(type, value, tb);
        return;
    }
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    PyErr_SetString(st->SignatureError,
                    "invalid load key, '\\xcf': a signed pickle starts with "
                    "this byte (pass verify_key to check it and load it)");
}
