/* callargs.h - cloudpickle-load --call's arguments, turned into Python
 * values and checked against the callable's signature before the call.
 *
 * The rules, in order, for each ARG (man/cloudpickle-load.1 has them too):
 *
 * 1. A literal: an ARG that starts with [ ( { ' " or a digit, with + or -
 *    then a digit (or . and a digit), with . and a digit, or with a string
 *    prefix (b r u f, or two of them) then a quote, is a Python literal,
 *    evaluated by ast.literal_eval. It must be a valid one: "[1," "007"
 *    "1.2.3" "1+2" are errors, not strings.
 * 2. A keyword: an ARG with = in it (and not a literal by rule 1) is
 *    NAME=VALUE. NAME, before the first =, must be a Python identifier
 *    ("--x=1" and "x-y=1" are errors); VALUE follows rules 1, 3, 4 and 5.
 *    A NAME given twice is an error.
 * 3. An ARG that starts with - and is no number looks like a misplaced
 *    option: an error.
 * 4. True, False and None are those constants.
 * 5. Anything else is the string itself, as given (no evaluation).
 *
 * A string that breaks these rules is passed quoted as a literal:
 * "'x-y=1'", "'-v'", "'007'".
 *
 * Then the positional and keyword arguments are bound to
 * inspect.signature(callable); a mismatch (missing, surplus or unknown
 * arguments) is a usage error naming the callable. A callable without a
 * signature (inspect.signature raises) is called unchecked.
 *
 * The arguments may come as JSON (--args-json) or as a pickled (args,
 * kwargs) tuple (--args-pickle) instead: their values are taken as they
 * are, and bound to the signature the same way.
 */
#ifndef CPK_CLI_LOAD_CALLARGS_H
#define CPK_CLI_LOAD_CALLARGS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "common/pycompat.h" /* Py_NewRef before 3.10 */

/* Build the positional tuple and keyword dict for calling `callable` with
 * the n strings of strs (new references in *args and *kwargs). Returns 0;
 * CPK_EXIT_USAGE after printing the usage error (one line
 * `prog: --call ...: problem` and the --help hint); or -1 with a Python
 * exception set that must not be swallowed (KeyboardInterrupt,
 * MemoryError, SystemExit). */
int cpk_callargs_build(PyObject *callable, int n, char **strs,
                       PyObject **args, PyObject **kwargs);

/* Check positional `args` (a tuple) and keyword `kwargs` (a dict) against
 * the callable's signature, as cpk_callargs_build does for argv's: 0;
 * CPK_EXIT_USAGE after the same usage error; or -1 with an exception that
 * must propagate. */
int cpk_callargs_bind(PyObject *callable, PyObject *args, PyObject *kwargs);

/* --args-json: `len` bytes of JSON at `data`, either an array (the
 * positional arguments) or an object {"args": [...], "kwargs": {...}}
 * (either key optional, no other key). New references in *args (a tuple)
 * and *kwargs (a dict). Returns 0; CPK_EXIT_INPUT after one line
 * `prog: CONTEXT: not valid JSON: MSG (line L, column C)` or naming what
 * has the wrong shape (CONTEXT is e.g. "--args-json FILE"); or -1 with an
 * exception that must propagate. */
int cpk_callargs_from_json(const char *context, const char *data,
                           size_t len, PyObject **args, PyObject **kwargs);

/* --args-pickle: the loaded object `v` must be a tuple (args, kwargs),
 * args a tuple or a list, kwargs a dict whose keys are all str. New
 * references (a fresh tuple and dict) in *args and *kwargs. Returns 0;
 * CPK_EXIT_INPUT after one line `prog: CONTEXT: ...` naming what has the
 * wrong type; or -1 with an exception that must propagate. */
int cpk_callargs_from_value(const char *context, PyObject *v,
                            PyObject **args, PyObject **kwargs);

#endif
