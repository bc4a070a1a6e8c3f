/* names.h - names.c: the private copies of names that make pickles
 * deterministic. */
#ifndef CPK_CORE_NAMES_H
#define CPK_CORE_NAMES_H

#include "core/state.h"

/* names.c: the private copy of the str `name` that every pickle uses for
 * it (new reference; other objects are returned as they are). */
PyObject *cpk_name(cpk_state *st, PyObject *name);

#endif
