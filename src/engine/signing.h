/* signing.h - signing.c: signed pickles (the Python side of envelope.c). */
#ifndef CPK_ENGINE_SIGNING_H
#define CPK_ENGINE_SIGNING_H

#include "core/state.h"

/* signing.c: signed pickles (envelope.h) for dumps/dump/loads/load. */
/* 0 if `key` is a bytes-like object of at least 32 bytes; else -1 with
 * TypeError or ValueError naming `argname`. */
int cpk_signing_check_key(PyObject *key, const char *argname);
/* The envelope (bytes, new reference) of the bytes `pickle` written with
 * protocol `proto`, signed with `key`, stamped with this interpreter's
 * version and bytecode magic. */
PyObject *cpk_signing_seal(cpk_state *st, PyObject *pickle, int proto,
                           PyObject *key);
/* 1 if the bytes-like `data` starts with the envelope magic, 0 if not (or
 * not a buffer), -1 on a non-clearable error. */
int cpk_signing_is_signed(PyObject *data);
/* Verify the envelope `data` with `key` (None: UnpicklingError "signed
 * pickle: pass verify_key"); `buffers` must be None. The pickle inside as
 * bytes (new reference), or NULL with UnpicklingError (unsigned, altered,
 * truncated, other key, other CPython), TypeError/ValueError (bad key). No
 * opcode has run. */
PyObject *cpk_signing_open(cpk_state *st, PyObject *data, PyObject *key,
                           PyObject *buffers);
/* The same for exactly one envelope read from `file` (its read(n), sized
 * by the header's lengths; nothing after the MAC is read). */
PyObject *cpk_signing_read(cpk_state *st, PyObject *file, PyObject *key,
                           PyObject *buffers);
/* After a failed load without verify_key: turn _pickle's "invalid load
 * key, '\xcf'." (the magic's first byte) into a hint at verify_key. */
void cpk_signing_hint_unsigned_load(cpk_state *st);

#endif
