/* lazytypes.h - lazytypes.c: the classes of Python modules, resolved
 * into the exact-type table once their module is imported. */
#ifndef CPK_CORE_LAZYTYPES_H
#define CPK_CORE_LAZYTYPES_H

#include "core/state.h"

/* lazytypes.c: resolve the classes of lazy_specs whose module has been
 * imported (or imported anew) since the last call; cheap when nothing was. */
int cpk_refresh_lazy_types(cpk_state *st);

#endif
