/* pycompat_scan.h - the Python-version layer's part for files without
 * Python.h (cli/scancheck.c, cli/records.c): what pkscan models of the
 * CPython we are built for. The rest of the layer is pycompat.h.
 */
#ifndef CPK_PYCOMPAT_SCAN_H
#define CPK_PYCOMPAT_SCAN_H

#include <patchlevel.h> /* PY_VERSION_HEX, without the rest of Python.h */

#include "pkscan.h" /* PKSCAN_PY_FLAGS */

/* The pkscan_scan flags that model this CPython as the loader: its
 * fix_imports table and its minor version. */
#define CPK_PY_SCAN_FLAGS PKSCAN_PY_FLAGS(PY_VERSION_HEX)

#endif
