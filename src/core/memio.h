/* memio.h - memio.c: the in-memory files behind dumps() (the sink) and
 * loads() (the reader). */
#ifndef CPK_CORE_MEMIO_H
#define CPK_CORE_MEMIO_H

#include "core/state.h"

int cpk_memio_init_types(PyObject *module, cpk_state *st);
PyObject *cpk_sink_new(cpk_state *st);                 /* new reference */
PyObject *cpk_sink_getvalue(PyObject *sink);           /* new reference */
void cpk_sink_reset(PyObject *sink);                   /* empty again */
/* A sink in front of a user's file (whose write it calls on), so a
 * Pickler knows whether anything reached the file, and can hold a whole
 * dump back until it succeeded (pickler.c's deep retry). */
PyObject *cpk_sink_wrap(cpk_state *st, PyObject *file); /* new reference */
int cpk_sink_is(cpk_state *st, PyObject *op);
int cpk_sink_passes(PyObject *sink);
Py_ssize_t cpk_sink_written(PyObject *sink);
void cpk_sink_hold(PyObject *sink);
int cpk_sink_release(PyObject *sink, int commit);
/* The next pickle opens with prefix[0, len) (static or the module
 * state's bytes) if cpk_sink_need_prefix is called before it is out. */
void cpk_sink_set_prefix(PyObject *sink, const char *prefix, Py_ssize_t len);
void cpk_sink_need_prefix(PyObject *sink);
/* The end of a successful dump to a user's file: what a sink kept while
 * the marker's need was unknown goes on to the file. 0, or -1 with an
 * exception. */
int cpk_sink_end_dump(PyObject *sink);

PyObject *cpk_reader_new(cpk_state *st, PyObject *data); /* new reference */
/* A reader over `view`, a memoryview of a whole private, read-only file
 * mapping (MAP_PRIVATE, never written) that nothing else reads while the
 * reader lives: it releases the pages behind what it has read
 * (MADV_DONTNEED; touched again, they are read from the file again).
 * `fd`: the mapped file, open for reading, its offset 0 the view's first
 * byte, valid while the reader lives (not closed here), which readinto()
 * of a window or more reads with pread(2) instead of copying from the
 * mapping; -1: none. New reference. */
PyObject *cpk_reader_new_mapped(cpk_state *st, PyObject *view, int fd);
Py_ssize_t cpk_reader_remaining(PyObject *reader);

#endif
