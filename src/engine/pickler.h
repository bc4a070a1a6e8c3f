/* pickler.h - pickler.c: the Pickler type, dumps()'s spare Pickler and
 * the format= argument. */
#ifndef CPK_ENGINE_PICKLER_H
#define CPK_ENGINE_PICKLER_H

#include "core/state.h"

int cpk_pickler_init_type(PyObject *module, cpk_state *st);
/* dumps()'s Pickler for default options (protocol 5, no buffer_callback,
 * native format), writing to *sink: the spare one if it is free, else a new
 * one. New references to both, or NULL with an exception set. */
PyObject *cpk_dumps_pickler_take(cpk_state *st, PyObject **sink);
/* Hand both back after a successful dump of `written` bytes (no exception
 * set): kept, reset, as the spare if none is kept yet and it is small;
 * else released. Steals both references. 0, or -1 with an exception that
 * must propagate (MemoryError, KeyboardInterrupt from the reset). */
int cpk_dumps_pickler_give(cpk_state *st, PyObject *pickler, PyObject *sink,
                           Py_ssize_t written);

/* format= of dumps, dump and Pickler: None (the current format) or a
 * format number this version writes, in *out; -1 with ValueError or
 * TypeError otherwise. */
int cpk_format_arg(PyObject *value, int *out);

#endif
