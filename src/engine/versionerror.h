/* versionerror.h - versionerror.c: the error of a pickle holding code this
 * CPython cannot run, naming every such function. */
#ifndef CPK_ENGINE_VERSIONERROR_H
#define CPK_ENGINE_VERSIONERROR_H

#include "core/state.h"

/* versionerror.c: when the pending exception is such an error
 * (CPK_VERSION_ERROR_PREFIX, code.h; exactly UnpicklingError), or another
 * Exception (not MemoryError, not another UnpicklingError) that a load of
 * another Python's objects raised before reaching their code, and the
 * pickle `data` (bytes-like, the whole input of the failed load) holds
 * functions this Python cannot run, replace it with an UnpicklingError
 * naming both versions and every such function (at most 20, "and N more"),
 * caused by the original. When every function can run here (portable) but
 * some were compiled by a newer Python, and the exception is what this
 * Python's classes lacking that Python's state raise (no Python frame; not
 * an ImportError nor find_class's AttributeError), replace it with the
 * version error naming both versions and the original, its cause.
 * Otherwise, or if that fails, the pending exception is left as it is.
 * Scans `data` (static, never runs anything): call it on the error path
 * only. */
void cpk_version_error_explain(cpk_state *st, PyObject *data);
/* 1 if the pending exception is such an error. */
int cpk_version_error_pending(cpk_state *st);
/* module.c's fast loads finds our names as pickle.loads does (import,
 * getattr): when the pending exception is an AttributeError and `data`
 * names one of ours that `module` lacks, replace it with the one our
 * find_class gives (cpk_missing_own_name), caused by the original. Scans
 * `data`: error path only. */
void cpk_missing_name_explain(PyObject *module, PyObject *data);

/* The same for load(file), on the error path only: the pickle is found
 * by reading the file again from its start (seek, read), and the file
 * put back where the failed load left it. */
void cpk_version_error_explain_file(cpk_state *st, PyObject *file);

#endif
