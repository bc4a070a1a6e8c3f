/* dumpreport.h - cloudpickle-dump --report: after a dump, what went into
 * the pickle, on standard error. The parts carried by value (functions,
 * classes, enums, modules) with their source files and the bytes each
 * adds, largest first (measured and named by the static scanner,
 * src/scan/pkscan.h, on the bytes written), then the names and modules
 * the pickle imports by reference. The format is in
 * man/cloudpickle-dump.1. */
#ifndef CPK_CLI_DUMP_DUMPREPORT_H
#define CPK_CLI_DUMP_DUMPREPORT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdio.h>

/* Print the report to `out`. `written` holds the `len` bytes written (a
 * signed envelope with --sign: the pickle inside is reported), `what`
 * names the object ("MODULE:ATTR" or "-e"), `target` the output (a FILE
 * or "-"). Source files of classes and modules are looked up in this
 * interpreter's sys.modules; `main_file` (NULL: none) is that of
 * __main__, which has no __file__ under -e. Returns 0; -1 with a
 * Python exception that must propagate (KeyboardInterrupt,
 * MemoryError). Write errors on `out` are ignored (standard error). */
int cpk_dump_report(FILE *out, const unsigned char *written, size_t len,
                    const char *what, const char *target,
                    const char *main_file);

#endif
