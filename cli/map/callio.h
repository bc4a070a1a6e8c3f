/* callio.h - what comes out of a called function, for cloudpickle-load
 * --call and --map: the result encoded as repr, JSON or a pickle, and a
 * raised exception as one JSON object. The arguments that go in are
 * callargs.c's; the record loop of --map is map.c's.
 *
 * Formats (man/cloudpickle-load.1):
 *   repr    repr(result) and a newline
 *   json    the result as JSON on one line (compact separators ","
 *           and ":", UTF-8 text rather than \u escapes, no NaN or
 *           Infinity: strict JSON) and a newline
 *   pickle  ccloudpickle.dumps(result) (protocol 5): functions and classes
 *           by value, as cloudpickle-dump writes them; no newline
 *   none    nothing
 */
#ifndef CPK_CLI_MAP_CALLIO_H
#define CPK_CLI_MAP_CALLIO_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>

#include "common/bytebuf.h" /* cpk_bytebuf: where results are appended */

typedef enum {
    CPK_RESULT_REPR,
    CPK_RESULT_JSON,
    CPK_RESULT_PICKLE,
    CPK_RESULT_NONE,
} cpk_result_format;

/* "repr", "json", "pickle" or "none": 0 and *f set, or -1. */
int cpk_result_format_parse(const char *s, cpk_result_format *f);

/* What encodes results in one format; made once, used per result. */
typedef struct cpk_encoder cpk_encoder;

/* New encoder for `f` (imports and prepares what the format needs once:
 * json's C encoder, ccloudpickle.dumps). NULL with a Python exception
 * set. Needs the interpreter. */
cpk_encoder *cpk_encoder_new(cpk_result_format f);
void cpk_encoder_free(cpk_encoder *e);

/* Append the encoding of `obj` to `out`. Returns 0; 1 when `obj` cannot be
 * encoded in the format (a type JSON has no form for, NaN, a circular
 * structure, an unpicklable object, a __repr__ that raised): *why is
 * then a malloc'd one-line message naming the type, such as
 * "cannot encode a result of type 'set' as JSON" or, for pickle, with the
 * path to the unpicklable part (the exception's __notes__, in
 * parentheses), and `out` is as it was; or -1 with a Python exception
 * that must propagate (KeyboardInterrupt, MemoryError, SystemExit), `out`
 * as it was too. *why is NULL unless 1 is returned. JSON: None, bool,
 * exact int, float and str, and exact lists, tuples and dicts with str
 * keys of those, are encoded in C without running Python code; the rest
 * by json's C encoder. */
int cpk_encode_result(cpk_encoder *e, PyObject *obj, cpk_bytebuf *out,
                      char **why);

/* The pending exception, fetched and cleared, as a dict:
 *   {"type": "ZeroDivisionError" (builtins) or "module.QualName",
 *    "message": str(exception) ("" if str() raised),
 *    "traceback": the formatted traceback, as PyErr_Print shows it,
 *    "record": `record`}       <- only when record >= 1 (--map)
 * New reference; NULL with a new exception set only when that exception
 * must propagate (MemoryError, KeyboardInterrupt). */
PyObject *cpk_error_info(long long record);

/* `info` (from cpk_error_info) as compact strict JSON and a newline,
 * appended to `out`. 0, or -1 with an exception set. */
int cpk_error_info_json(PyObject *info, cpk_bytebuf *out);

#endif
