/* pycompat_scan.h - the Python-version layer's part that pkscan's users
 * need: what pkscan models of the CPython we are built for. It needs only
 * <patchlevel.h>, so pkscan.h itself stays free of Python. The rest of
 * the layer is pycompat.h.
 */
#ifndef CPK_SCAN_PYCOMPAT_SCAN_H
#define CPK_SCAN_PYCOMPAT_SCAN_H

#include <patchlevel.h> /* PY_VERSION_HEX, without the rest of Python.h */

#include "scan/pkscan.h" /* PKSCAN_PY_FLAGS */

/* The pkscan_scan flags that model this CPython as the loader: its
 * fix_imports table and its minor version. */
#define CPK_PY_SCAN_FLAGS PKSCAN_PY_FLAGS(PY_VERSION_HEX)

#endif
