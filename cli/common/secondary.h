/* secondary.h - sys.stdout while the programs keep standard output for
 * themselves (host.c decides when): a writer that passes everything to
 * the stream it wraps, sys.stderr, and drops what cannot be written there.
 */
#ifndef CPK_CLI_COMMON_SECONDARY_H
#define CPK_CLI_COMMON_SECONDARY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* A new cloudpickle_host.SecondaryStdout over `f` (new reference), or
 * NULL with an exception set. Its write(s) returns f.write(s), or len(s)
 * when that raised OSError (a full disk, a closed pipe: what user code
 * prints is secondary output, which must not fail a dump or a load);
 * writelines(lines) writes each; flush() swallows OSError; any other
 * attribute is f's (encoding, fileno, isatty, buffer, ...); `_f` is f and
 * instances take attributes of their own, as the Python class this
 * replaces did (no source is compiled at start-up for it). */
PyObject *cpk_secondary_stdout(PyObject *f);

#endif
