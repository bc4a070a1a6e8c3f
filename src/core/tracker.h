/* tracker.h - tracker.c: class identity across pickles (the tracker ids). */
#ifndef CPK_CORE_TRACKER_H
#define CPK_CORE_TRACKER_H

#include "core/state.h"

/* tracker.c: class identity across pickles. */
int cpk_tracker_init(PyObject *module, cpk_state *st);
/* The class tracked under `id` (new reference), or NULL (an error set
 * only on failure). */
PyObject *cpk_tracker_lookup(cpk_state *st, PyObject *id);
PyObject *cpk_tracker_get_or_create_id(cpk_state *st, PyObject *cls);
/* The class already tracked under `id`, else `cls`, now tracked as
 * reconstructed. New reference. */
PyObject *cpk_tracker_lookup_or_track(cpk_state *st, PyObject *id,
                                      PyObject *cls, int *found);
/* 1 if cls was tracked while pickling (defined here), not rebuilt. */
int cpk_tracker_is_original(cpk_state *st, PyObject *cls);

#endif
