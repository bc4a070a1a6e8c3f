/* glue.h - glue.c: the entry points forwarded to the companion Python
 * modules (install_alias, install_multiprocessing, wrap). */
#ifndef CPK_ENGINE_GLUE_H
#define CPK_ENGINE_GLUE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* glue.c: install_alias, install_multiprocessing, wrap (forwarded to the
 * companion Python modules of python/, imported on first call). */
extern PyMethodDef cpk_glue_methods[];

#endif
