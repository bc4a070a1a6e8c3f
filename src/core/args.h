/* args.h - args.c: argument parsing, the reconstructors' signatures and
 * their checks (arguments, values, code objects). */
#ifndef CPK_CORE_ARGS_H
#define CPK_CORE_ARGS_H

#include "core/state.h"

int cpk_parse_args(const char *fname, PyObject *const *args, Py_ssize_t nargs,
                   PyObject *kwnames, const char *const *kwlist,
                   int npos_required, int npos_max, ...);
/* Reconstructors check their positional arguments against a signature
 * before reading them: what a parameter must be (OR_NONE: or None). */
enum {
    CPK_ARG_ANY = 0, CPK_ARG_CODE, CPK_ARG_DICT, CPK_ARG_STR, CPK_ARG_INT,
    CPK_ARG_BOOL, CPK_ARG_BYTES, CPK_ARG_TUPLE, CPK_ARG_LIST,
    CPK_ARG_SEQ,       /* list or tuple */
    CPK_ARG_CLASS,     /* an instance of type */
    CPK_ARG_METACLASS, /* a subclass of type */
    CPK_ARG_FUNCTION, CPK_ARG_CELL,
    CPK_ARG_KIND_MASK = 0xff,
    CPK_ARG_OR_NONE = 0x100,
};
#define CPK_MAX_PARAMS 8
typedef struct {
    const char *name;
    int kind;
} cpk_param;
typedef struct {
    const char *fname;
    int nrequired;      /* leading parameters without a default; -1: all */
    cpk_param params[CPK_MAX_PARAMS]; /* up to a {NULL} entry */
} cpk_signature;
/* A reconstructor's signature, <fname>_sig, checked before anything reads
 * an argument; and its method table row (METH_FASTCALL). */
#define SIG(fname, nrequired, ...)                                            \
    static const cpk_signature fname##_sig = {#fname, nrequired, {__VA_ARGS__}}
#define FAST(name, func, doc)                                                \
    {name, (PyCFunction)(void (*)(void))func, METH_FASTCALL, PyDoc_STR(doc)}

/* Create ReconstructorTypeError/ValueError (UnpicklingError and
 * TypeError/ValueError) and add them to the module. 0 or -1. */
int cpk_args_init(PyObject *module, cpk_state *st);
/* Count and kinds of args; 1 if they fit, else 0 with
 * ReconstructorTypeError set ("<fname>() argument 2 (globals) must be dict,
 * not int"). Runs no Python code. */
int cpk_check_args(cpk_state *st, const cpk_signature *sig,
                   PyObject *const *args, Py_ssize_t nargs);
/* One value (`what`: "state['__globals__']"), or every item of a list or
 * tuple; 1 or 0 with ReconstructorTypeError set. Run no Python code. */
int cpk_check_value(cpk_state *st, const char *fname, const char *what,
                    PyObject *obj, int kind);
int cpk_check_items(cpk_state *st, const char *fname, const char *what,
                    PyObject *seq, int kind);
/* Raise ReconstructorTypeError (value 0) or ReconstructorValueError
 * (value 1): "<fname>() <fmt...>". Returns 0. */
int cpk_arg_error(cpk_state *st, int value, const char *fname,
                  const char *fmt, ...);
/* args.c: 1 if a code object's argument counts agree with its locals
 * (what CPython's own check means to ensure but, its sum overflowing int,
 * does not: a function of such code reads past its frame when called)
 * and, on 3.11, its bytecode does not end inside an instruction's inline
 * caches (3.11's co_code writes past its copy for such code); else 0
 * with ReconstructorValueError "<fname>() ...". */
int cpk_code_check(cpk_state *st, const char *fname, PyObject *code);

/* args.c: the same bytecode check before pickling code (and a
 * function's code): 1, or 0 with PicklingError (or another error) set. */
int cpk_code_check_pickle(cpk_state *st, PyObject *code);

#endif
