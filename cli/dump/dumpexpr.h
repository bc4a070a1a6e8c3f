/* dumpexpr.h - cloudpickle-dump -e EXPR: Python source run in the
 * embedded interpreter's fresh __main__, the value of its last statement
 * being the object to pickle. What it defines (functions, lambdas,
 * classes) belongs to __main__ and so travels by value; what it imports
 * stays a reference. The rest of the dump is cloudpickle-dump.c's. */
#ifndef CPK_CLI_DUMP_DUMPEXPR_H
#define CPK_CLI_DUMP_DUMPEXPR_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* The file name code from -e is compiled with (tracebacks, co_filename,
 * linecache: inspect.getsource works on the dump side). */
#define CPK_EXPR_FILENAME "<cloudpickle-dump -e>"

/* Run `source` (argv bytes, decoded as CPython decodes argv): every
 * statement but the last in __main__ (exec mode), then the last, which
 * must be an expression (eval mode). Returns its value (new reference),
 * or NULL after one stderr line and *status set:
 *   CPK_EXIT_USAGE   it does not compile, or ends with no expression:
 *                    `prog: -e: SyntaxError: MSG (line L, column C)`,
 *                    `prog: -e: the last statement (KIND, line L) is no
 *                    expression: end EXPR with the value to pickle`,
 *                    `prog: -e: EXPR is not valid UTF-8 at byte N`
 *   CPK_EXIT_OBJECT  running it raised: its traceback, then
 *                    `prog: -e: TYPE: MESSAGE`
 * A KeyboardInterrupt dies by SIGINT (cpk_host_exit_if_interrupted). */
PyObject *cpk_expr_eval(const char *source, int *status);

#endif
