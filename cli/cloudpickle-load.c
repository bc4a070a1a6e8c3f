/* cloudpickle-load - load a pickle written by ccloudpickle or cloudpickle,
 * then describe the object or call it.
 *
 *     cloudpickle-load [options] [FILE|-]
 *     cloudpickle-load [options] --call FILE|- [-- ARG... NAME=VALUE...]
 *
 * Options and exit statuses: man/cloudpickle-load.1. The input is read by
 * input.c, described by report.c; --call arguments are parsed by
 * callargs.c; the interpreter is host.c's.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "callargs.h"
#include "ccloudpickle.h"
#include "host.h"
#include "input.h"
#include "message.h"
#include "report.h"

enum {
    OPT_CALL = 256,
};

static const struct option longopts[] = {
    {"call", no_argument, NULL, OPT_CALL},
    {"path", required_argument, NULL, 'P'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

typedef struct {
    int call;
    const char *file; /* "-" for standard input */
    const char *name; /* for messages: FILE or "standard input" */
    char **args;
    int nargs;
    const char **paths;
    int npaths;
} options;

static void
usage(void)
{
    printf("Usage: %s [OPTION]... [FILE]\n"
           "  or:  %s [OPTION]... --call FILE [-- ARG... NAME=VALUE...]\n"
           "Load a pickle written by ccloudpickle or cloudpickle (from FILE, "
           "or standard\ninput when FILE is - or absent) and describe the "
           "object, or call it.\n"
           "\n"
           "      --call           call the object with the ARGs and print "
           "repr() of the\n"
           "                       result; each ARG is a Python literal, "
           "else a string;\n"
           "                       NAME=VALUE passes a keyword argument\n"
           "  -P, --path=DIR       also search DIR for modules (repeatable)\n"
           "  -h, --help           show this help and exit\n"
           "  -V, --version        show the version and exit\n"
           "\n"
           "Exit status: 0 success, 1 the called function raised (traceback "
           "on stderr),\n2 usage error, 3 bad input (not a pickle, "
           "truncated, wrong Python version),\n4 the pickle needs a module "
           "or object that cannot be loaded, 5 the output\ncould not be "
           "written. A called function's SystemExit(n) exits with n.\n",
           cpk_prog, cpk_prog);
}

static int
parse_options(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof(*o));
    o->paths = calloc((size_t)argc, sizeof(char *));
    if (o->paths == NULL) {
        cpk_error("out of memory");
        return CPK_EXIT_SYSTEM;
    }
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":P:hV", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_CALL:
            o->call = 1;
            break;
        case 'P':
            o->paths[o->npaths++] = optarg;
            break;
        case 'h':
            usage();
            exit(fflush(stdout) == 0 ? CPK_EXIT_OK : CPK_EXIT_SYSTEM);
        case 'V':
            printf("%s (ccloudpickle) %s, Python %d.%d.%d\n", cpk_prog,
                   CPK_VERSION, PY_MAJOR_VERSION, PY_MINOR_VERSION,
                   PY_MICRO_VERSION);
            exit(fflush(stdout) == 0 ? CPK_EXIT_OK : CPK_EXIT_SYSTEM);
        default:
            return cpk_option_error(c, argv, longopts);
        }
    }
    o->file = optind < argc ? argv[optind++] : "-";
    o->args = argv + optind;
    o->nargs = argc - optind;
    if (o->nargs > 0 && !o->call)
        return cpk_usage_error("unexpected argument '%s' (arguments are for "
                               "--call)",
                               o->args[0]);
    o->name = strcmp(o->file, "-") == 0 ? "standard input" : o->file;
    if (strcmp(o->file, "-") == 0 && isatty(STDIN_FILENO))
        return cpk_usage_error("refusing to read a pickle from a terminal "
                               "(give a FILE or a pipe)");
    return 0;
}

/* Map a failed load to a message and exit status. */
static int
load_failed(const options *o, const cpk_input *in)
{
    cpk_host_exit_if_interrupted(NULL);
    char *line = cpk_host_exception_line();
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    /* ccloudpickle.UnpicklingError is _pickle's. */
    PyObject *pickle = PyImport_ImportModule("_pickle");
    PyObject *unpickling_error =
        pickle ? PyObject_GetAttrString(pickle, "UnpicklingError") : NULL;
    PyErr_Clear();
    int status = CPK_EXIT_OBJECT;
    const char *what = "cannot load";
    if (PyErr_GivenExceptionMatches(type, PyExc_EOFError)) {
        status = CPK_EXIT_INPUT;
        what = "truncated pickle";
    }
    else if (unpickling_error != NULL &&
             PyErr_GivenExceptionMatches(type, unpickling_error)) {
        status = CPK_EXIT_INPUT;
        what = line && strstr(line, "invalid load key") ? "not a pickle"
               : line && strstr(line, "truncated")      ? "truncated pickle"
                                                        : "bad pickle";
    }
    else if (PyErr_GivenExceptionMatches(type, PyExc_ValueError) && line &&
             strstr(line, "unsupported pickle protocol")) {
        status = CPK_EXIT_INPUT;
        what = "not a pickle";
    }
    else if (PyErr_GivenExceptionMatches(type, PyExc_ImportError))
        what = "cannot load, a module is missing";
    /* Every pickle of protocol 2 and later starts with PROTO; one that
     * does not and fails to load is most likely no pickle at all. */
    if (status == CPK_EXIT_INPUT && (unsigned char)in->data[0] != 0x80)
        what = "not a pickle";
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    Py_XDECREF(unpickling_error);
    Py_XDECREF(pickle);
    /* "UnpicklingError: msg" says no more than "bad pickle: msg". */
    const char *detail = line ? line : "error";
    const char *colon = strstr(detail, ": ");
    if (status == CPK_EXIT_INPUT && colon != NULL &&
        strncmp(detail, "UnpicklingError", 15) == 0)
        detail = colon + 2;
    cpk_error("%s: %s: %s", o->name, what, detail);
    free(line);
    return status;
}

/* Exit status for a SystemExit raised by the called function, printing its
 * message if it has one, as the interpreter would. */
static int
system_exit_status(void)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    PyObject *code = value ? PyObject_GetAttrString(value, "code") : NULL;
    int status = CPK_EXIT_RAISED;
    if (code == NULL || code == Py_None)
        status = CPK_EXIT_OK;
    else if (PyLong_Check(code)) {
        long v = PyLong_AsLong(code);
        status = (v == -1 && PyErr_Occurred()) ? CPK_EXIT_RAISED
                                               : (int)(v & 0xff);
    }
    else {
        PyObject *s = PyObject_Str(code);
        const char *msg = s ? PyUnicode_AsUTF8(s) : NULL;
        if (msg != NULL)
            fprintf(stderr, "%s\n", msg);
        Py_XDECREF(s);
    }
    PyErr_Clear();
    Py_XDECREF(code);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return status;
}

/* Write repr(result) and a newline to sys.stdout, then flush it. */
static int
print_result(PyObject *result)
{
    PyObject *out = PySys_GetObject("stdout"); /* borrowed */
    if (out == NULL || out == Py_None) {
        cpk_error("no sys.stdout to print the result to");
        return CPK_EXIT_SYSTEM;
    }
    if (PyFile_WriteObject(result, out, 0) < 0 ||
        PyFile_WriteString("\n", out) < 0) {
        cpk_host_exit_if_interrupted(NULL);
        char *line = cpk_host_exception_line();
        PyErr_Clear();
        cpk_error("standard output: %s", line ? line : "error");
        free(line);
        return CPK_EXIT_SYSTEM;
    }
    PyObject *r = PyObject_CallMethod(out, "flush", NULL);
    if (r == NULL) {
        char *line = cpk_host_exception_line();
        PyErr_Clear();
        cpk_error("standard output: %s", line ? line : "error");
        free(line);
        return CPK_EXIT_SYSTEM;
    }
    Py_DECREF(r);
    return CPK_EXIT_OK;
}

static int
call(PyObject *obj, const options *o)
{
    if (!PyCallable_Check(obj)) {
        cpk_error("%s: cannot call an object of type %s", o->name,
                  Py_TYPE(obj)->tp_name);
        return CPK_EXIT_INPUT;
    }
    PyObject *args, *kwargs;
    int bad = cpk_callargs_build(obj, o->nargs, o->args, &args, &kwargs);
    if (bad > 0)
        return bad; /* a usage error, printed */
    if (bad < 0) {
        cpk_host_exit_if_interrupted(NULL);
        char *line = cpk_host_exception_line();
        PyErr_Clear();
        int usage = cpk_usage_error("%s", line ? line : "bad argument");
        free(line);
        return usage;
    }
    PyObject *result = PyObject_Call(obj, args, kwargs);
    Py_DECREF(args);
    Py_DECREF(kwargs);
    if (result == NULL) {
        cpk_host_exit_if_interrupted(NULL);
        /* Before PyErr_Print, which would exit the process on it. */
        if (PyErr_ExceptionMatches(PyExc_SystemExit))
            return system_exit_status();
        PyErr_Print();
        return CPK_EXIT_RAISED;
    }
    int status = print_result(result);
    Py_DECREF(result);
    return status;
}

static int
run(const options *o, const cpk_input *in)
{
    PyObject *cpk = cpk_host_import(CPK_MODULE_NAME);
    if (cpk == NULL) {
        PyErr_Print();
        cpk_error("cannot import ccloudpickle");
        return CPK_EXIT_SYSTEM;
    }
    PyObject *data = PyBytes_FromStringAndSize(in->data, (Py_ssize_t)in->len);
    PyObject *obj = data ? PyObject_CallMethod(cpk, "_loads_exact", "(O)",
                                               data)
                         : NULL;
    Py_XDECREF(data);
    Py_DECREF(cpk);
    if (obj == NULL)
        return load_failed(o, in);
    int status;
    if (o->call)
        status = call(obj, o);
    else {
        if (cpk_report(stdout, obj, in->data, in->len) < 0) {
            /* A repr() or signature that raised: one line, never
             * PyErr_Print (which would exit on SystemExit). */
            cpk_host_exit_if_interrupted(NULL);
            char *line = cpk_host_exception_line();
            PyErr_Clear();
            cpk_error("%s: cannot describe the object: %s", o->name,
                      line ? line : "error");
            free(line);
            errno = 0;
            status = CPK_EXIT_OBJECT;
        }
        else
            status = fflush(stdout) == 0 && !ferror(stdout) ? CPK_EXIT_OK
                                                            : CPK_EXIT_SYSTEM;
        if (status == CPK_EXIT_SYSTEM && errno != 0)
            cpk_error("standard output: %s", strerror(errno));
    }
    Py_DECREF(obj);
    return status;
}

int
main(int argc, char **argv)
{
    cpk_message_init(argv[0]);
    options o;
    int status = parse_options(argc, argv, &o);
    if (status != 0) {
        free(o.paths);
        return status;
    }
    cpk_input in;
    int e = cpk_read_input(o.file, &in);
    if (e != 0) {
        cpk_error("%s: %s", o.name, strerror(e));
        free(o.paths);
        return CPK_EXIT_INPUT;
    }
    if (in.len == 0) {
        cpk_error("%s: empty input, not a pickle", o.name);
        free(o.paths);
        cpk_input_free(&in);
        return CPK_EXIT_INPUT;
    }
    /* sys.argv is what the called function sees: the file and its args. */
    char **py_argv = calloc((size_t)o.nargs + 1, sizeof(char *));
    if (py_argv == NULL) {
        cpk_error("out of memory");
        cpk_input_free(&in);
        free(o.paths);
        return CPK_EXIT_SYSTEM;
    }
    py_argv[0] = (char *)o.file;
    for (int i = 0; i < o.nargs; i++)
        py_argv[i + 1] = o.args[i];
    cpk_host_config cfg = {
        .argc = o.nargs + 1,
        .argv = py_argv,
        .npaths = o.npaths,
        .paths = o.paths,
    };
    status = cpk_host_start(&cfg);
    if (status == 0)
        status = cpk_host_finish(run(&o, &in));
    cpk_input_free(&in);
    free(py_argv);
    free(o.paths);
    return status;
}
