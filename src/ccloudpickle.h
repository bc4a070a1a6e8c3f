/* ccloudpickle.h - the public interface of the ccloudpickle library.
 *
 * The library is one CPython extension module, `ccloudpickle`. Programs that
 * embed Python (cli/) register it as a built-in module before starting the
 * interpreter and then use its Python-level API (dumps, loads, Pickler, ...):
 *
 *     PyImport_AppendInittab(CPK_MODULE_NAME, PyInit_ccloudpickle);
 *
 * The reconstructors a pickle references by name are a file format; they are
 * listed, with their signatures, in doc/FORMAT.md.
 */
#ifndef CCLOUDPICKLE_H
#define CCLOUDPICKLE_H

#include <Python.h>

#define CPK_MODULE_NAME "ccloudpickle"
#define CPK_VERSION "0.2.0"

/* Module init (multi-phase): returns the module definition. */
PyMODINIT_FUNC PyInit_ccloudpickle(void);

#endif
