/* cloudpickle-dump - pickle a Python object, by value where it cannot be
 * imported on the loading side, to a file or standard output.
 *
 *     cloudpickle-dump [options] MODULE:ATTR[.ATTR...]
 *     cloudpickle-dump [options] -e EXPR
 *
 * Options and exit statuses: man/cloudpickle-dump.1. The interpreter is
 * started by host.c, the output written by output.c; -e is dumpexpr.c's,
 * --report dumpreport.c's, --hash dumphash.c's.
 *
 * Standard output carries the pickle and nothing else: the pickle goes to
 * host.c's private duplicate of it, and what the module prints while it is
 * imported or pickled goes to standard error.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ccloudpickle.h"
#include "common/host.h"
#include "common/keyfile.h"
#include "common/message.h"
#include "common/output.h"
#include "common/stdopts.h" /* -h, -V */
#include "dump/dumpexpr.h"   /* -e */
#include "dump/dumphash.h"   /* --hash */
#include "dump/dumpreport.h" /* --report */
#include "scan/format.h"     /* --format: CPK_FORMAT_CURRENT */

enum {
    OPT_BY_REF = 256, /* long-only options: above any char */
    OPT_BY_VALUE,
    OPT_COMPAT,
    OPT_SIGN,
    OPT_GEN_KEY,
    OPT_REPORT,
    OPT_HASH,
    OPT_PORTABLE,
    OPT_FORMAT,
};

static const struct option longopts[] = {
    {"output", required_argument, NULL, 'o'},
    {"protocol", required_argument, NULL, 'p'},
    {"path", required_argument, NULL, 'P'},
    {"force", no_argument, NULL, 'f'},
    {"by-ref", no_argument, NULL, OPT_BY_REF},
    {"by-value", required_argument, NULL, OPT_BY_VALUE},
    {"compat", required_argument, NULL, OPT_COMPAT},
    {"portable", no_argument, NULL, OPT_PORTABLE},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"sign", required_argument, NULL, OPT_SIGN},
    {"gen-key", required_argument, NULL, OPT_GEN_KEY},
    {"expr", required_argument, NULL, 'e'},
    {"report", no_argument, NULL, OPT_REPORT},
    {"hash", no_argument, NULL, OPT_HASH},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

typedef struct {
    const char *output;  /* NULL or "-": stdout */
    int protocol;        /* -1: default (highest) */
    int force;
    int by_ref;
    const char *compat;  /* NULL or one of CPK_COMPAT_VALUES */
    int portable;        /* --portable: dumps(portable=True) */
    int format;          /* --format N: dumps(format=N); 0: current */
    const char **paths;
    int npaths;
    const char **by_value;
    int nby_value;
    const char *spec;
    const char *sign;    /* --sign KEYFILE, or NULL */
    unsigned char *key;  /* its key, read before Python starts */
    size_t keylen;
    const char *gen_key; /* --gen-key FILE, or NULL */
    const char *expr;    /* -e EXPR, or NULL (then spec) */
    const char *what;    /* the object in messages: spec, or "-e" */
    const char *root;    /* ... at the start of a path: spec, or "EXPR" */
    const char *target;  /* the output in --hash and --report: -o's
                            argument as given, or "-" */
    int report;
    int hash;
} options;

static void
usage(void)
{
    printf("Usage: %s [OPTION]... MODULE:ATTR[.ATTR...]\n"
           "  or:  %s [OPTION]... -e EXPR\n"
           "  or:  %s --gen-key=FILE\n"
           "Pickle the object MODULE.ATTR with ccloudpickle: functions and "
           "classes that\nthe loading side cannot import travel by value.\n"
           "\n"
           "  -e, --expr=EXPR      pickle the value of Python source EXPR "
           "run in a fresh\n"
           "                       __main__ instead (what it defines travels "
           "by value);\n"
           "                       its last statement must be an expression, "
           "e.g.\n"
           "                       -e 'import math; lambda x: math.sqrt(x)'\n"
           "  -o, --output=FILE    write to FILE (atomically) instead of "
           "standard output\n"
           "  -p, --protocol=N     pickle protocol 0-5 (default 5)\n"
           "  -P, --path=DIR       also search DIR for modules (repeatable)\n"
           "  -f, --force          write to standard output even if it is a "
           "terminal\n"
           "      --by-ref         pickle MODULE's functions and classes by "
           "reference\n"
           "      --by-value=MOD   also pickle module MOD by value "
           "(repeatable)\n"
           "      --compat=TARGET  write a pickle that stock cloudpickle "
           "TARGET loads:\n"
           "                       cloudpickle3 (or cloudpickle) for 3.x, "
           "cloudpickle2\n"
           "                       for any 2.x, or a release such as 2.2 or "
           "3.1.2\n"
           "      --format=N       write format N (1-" CPK_FORMAT_CURRENT_STR
           "), which the ccloudpickle\n"
           "                       release of that format loads "
           "(doc/FORMAT.md)\n"
           "      --portable       also ship each function's source, proven "
           "to compile\n"
           "                       to its code, so that another CPython "
           "version can run\n"
           "                       it (with --report: which functions are "
           "portable)\n"
           "      --sign=KEYFILE   write a signed envelope (HMAC-SHA256 with "
           "the key in\n"
           "                       KEYFILE) instead of the bare pickle\n"
           "      --gen-key=FILE   create FILE holding a new random 32-byte "
           "key (mode 0600)\n"
           "                       and exit; an existing FILE is never "
           "overwritten\n"
           "      --report         after the dump, print to standard error "
           "what was\n"
           "                       pickled by value (with source files and "
           "the bytes\n"
           "                       each part adds) and by reference\n"
           "      --hash           after the dump, print the SHA-256 of the "
           "bytes written\n"
           "                       to standard error as sha256sum does "
           "(`HASH  FILE`)\n"
           "  -h, --help           show this help and exit\n"
           "  -V, --version        show the version and exit\n"
           "\n"
           "MODULE is found like `python -m` finds it: in the current "
           "directory, the\n-P directories, PYTHONPATH, an active "
           "virtualenv, then the system.\nMODULE (and, for a package, its "
           "submodules) is pickled by value unless\n--by-ref is given; other "
           "imports stay references.\n"
           "\n"
           "What the module prints while it is imported or pickled goes to "
           "standard error.\n"
           "\n"
           "Exit status: 0 success, 2 usage error (a key file refused, EXPR "
           "that does not\ncompile too), 4 the object could not be imported, "
           "made (EXPR raised) or\npickled, 5 the output (or the new key "
           "file) could not be written.\n",
           cpk_prog, cpk_prog, cpk_prog);
}

static int
parse_protocol(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < 0 || v > 5)
        return -1;
    *out = (int)v;
    return 0;
}

/* One option, after getopt_long returned it: 0, or an exit status (-h
 * and -V exit here). */
static int
take_option(int c, char **argv, options *o)
{
    switch (c) {
    case 'e':
        if (o->expr != NULL)
            return cpk_usage_error("-e given more than once");
        o->expr = optarg;
        break;
    case OPT_REPORT:
        o->report = 1;
        break;
    case OPT_HASH:
        o->hash = 1;
        break;
    case 'o':
        o->output = optarg;
        break;
    case 'p':
        if (parse_protocol(optarg, &o->protocol) < 0)
            return cpk_usage_error("invalid protocol '%s' (0 to 5)",
                                   optarg);
        break;
    case 'P':
        o->paths[o->npaths++] = optarg;
        break;
    case 'f':
        o->force = 1;
        break;
    case OPT_BY_REF:
        o->by_ref = 1;
        break;
    case OPT_BY_VALUE:
        /* `--by-value m:f` took the spec as its module. */
        if (strchr(optarg, ':') != NULL)
            return cpk_usage_error("--by-value takes a MODULE name, not "
                                   "'%s' (give the module before "
                                   "MODULE:ATTR)",
                                   optarg);
        o->by_value[o->nby_value++] = optarg;
        break;
    case OPT_COMPAT:
        if (!cpk_compat_valid(optarg))
            return cpk_usage_error("unknown --compat format '%s' "
                                   "(accepted: " CPK_COMPAT_VALUES ")",
                                   optarg);
        o->compat = optarg;
        break;
    case OPT_PORTABLE:
        o->portable = 1;
        break;
    case OPT_FORMAT: {
        char *end;
        errno = 0;
        long n = strtol(optarg, &end, 10);
        if (optarg[0] < '0' || optarg[0] > '9' || *end != '\0' ||
            errno != 0 || n < CPK_FORMAT_OLDEST ||
            n > CPK_FORMAT_CURRENT)
            return cpk_usage_error("invalid --format '%s' (accepted: "
                                   "%d to %d)",
                                   optarg, CPK_FORMAT_OLDEST,
                                   CPK_FORMAT_CURRENT);
        o->format = (int)n;
        break;
    }
    case OPT_SIGN:
        o->sign = optarg;
        break;
    case OPT_GEN_KEY:
        o->gen_key = optarg;
        break;
    case 'h':
        cpk_stdopts_help(usage);
    case 'V':
        cpk_stdopts_version();
    default:
        return cpk_option_error(c, argv, longopts);
    }
    return 0;
}

/* The checks of --gen-key, after getopt: 0 or the usage error's exit
 * status. */
static int
gen_key_options(int argc, char **argv, options *o)
{
    if (optind < argc)
        return cpk_usage_error("--gen-key takes no MODULE:ATTR ('%s')",
                               argv[optind]);
    /* Options about the pickle written are refused, as --sign and
     * --output are: --gen-key writes a key, no pickle. */
    const char *other = o->sign != NULL     ? "--sign"
                        : o->output != NULL ? "--output"
                        : o->expr != NULL   ? "--expr"
                        : o->report         ? "--report"
                        : o->hash           ? "--hash"
                        : o->portable       ? "--portable"
                                            : NULL;
    if (other != NULL)
        return cpk_usage_error("--gen-key cannot be combined with %s",
                               other);
    return 0;
}

/* The object to pickle, -e EXPR or the MODULE:ATTR operand: 0 or the
 * usage error's exit status. */
static int
object_options(int argc, char **argv, options *o)
{
    if (o->expr != NULL) {
        if (optind < argc)
            return cpk_usage_error("give -e EXPR or MODULE:ATTR, not both "
                                   "('%s')",
                                   argv[optind]);
        if (o->by_ref)
            return cpk_usage_error("--by-ref needs MODULE:ATTR (what -e "
                                   "defines is in __main__, always by "
                                   "value)");
        o->what = "-e";
        o->root = "EXPR";
    }
    else {
        if (optind >= argc)
            return cpk_usage_error("missing MODULE:ATTR");
        if (argc - optind > 1)
            return cpk_usage_error("unexpected argument '%s'",
                                   argv[optind + 1]);
        o->spec = argv[optind];
        const char *colon = strchr(o->spec, ':');
        if (colon == NULL || colon == o->spec || colon[1] == '\0' ||
            strchr(colon + 1, ':') != NULL)
            return cpk_usage_error("'%s' is not MODULE:ATTR", o->spec);
        o->what = o->root = o->spec;
    }
    return 0;
}

/* Where the pickle goes, -o or standard output: 0, or the exit status
 * of a refused output. */
static int
output_options(options *o)
{
    o->target = o->output != NULL ? o->output : "-";
    if (o->output != NULL && strcmp(o->output, "-") == 0)
        o->output = NULL;
    /* Checked before Python starts, while fd 1 is still the standard
     * output: -o /dev/stdout (/dev/fd/1, /proc/self/fd/1, or any name of
     * the file standard output is) means standard output, terminal refusal
     * included; a directory is refused before anything is imported. */
    if (o->output != NULL) {
        int e = cpk_output_check(o->output);
        if (e == CPK_OUTPUT_IS_STDOUT)
            o->output = NULL;
        else if (e == EISDIR) {
            cpk_error("%s: is a directory", o->output);
            return CPK_EXIT_SYSTEM;
        }
        else if (e != 0) {
            cpk_error("%s: cannot create a file next to it: %s", o->output,
                      strerror(e));
            return CPK_EXIT_SYSTEM;
        }
    }
    if (o->output == NULL && !o->force && isatty(STDOUT_FILENO))
        return cpk_usage_error("refusing to write a pickle to a terminal "
                               "(use -o FILE, a pipe, or -f)");
    return 0;
}

static int
parse_options(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof(*o));
    o->protocol = -1;
    o->paths = calloc((size_t)argc, sizeof(char *));
    o->by_value = calloc((size_t)argc, sizeof(char *));
    if (o->paths == NULL || o->by_value == NULL) {
        cpk_error("out of memory");
        return CPK_EXIT_SYSTEM;
    }
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:p:P:fe:hV", longopts, NULL)) !=
           -1) {
        int bad = take_option(c, argv, o);
        if (bad != 0)
            return bad;
    }
    /* A compat pickle names stock cloudpickle's reconstructors, which
     * have no _code_portable (dumps() raises ValueError for the same). */
    if (o->portable && o->compat != NULL)
        return cpk_usage_error("--portable cannot be combined with --compat "
                               "(stock cloudpickle cannot load the sources "
                               "it ships)");
    if (o->format != 0 && o->compat != NULL)
        return cpk_usage_error("--format cannot be combined with --compat "
                               "(--compat writes stock cloudpickle's "
                               "format)");
    if (o->gen_key != NULL)
        return gen_key_options(argc, argv, o);
    int bad = object_options(argc, argv, o);
    if (bad == 0)
        bad = output_options(o);
    if (bad != 0)
        return bad;
    /* The key is read before anything is imported: a refused key file
     * writes nothing and runs nothing. */
    if (o->sign != NULL) {
        char why[256];
        if (cpk_keyfile_read(o->sign, &o->key, &o->keylen, why,
                             sizeof(why)) < 0) {
            cpk_error("%s: %s", o->sign, why);
            return CPK_EXIT_USAGE;
        }
    }
    return 0;
}

/* Report the pending exception as `prog: context: Type: message` and
 * return `status`; a KeyboardInterrupt dies by SIGINT instead. */
static int
fail(const char *context, int status, void (*cleanup)(void))
{
    cpk_host_exit_if_interrupted(cleanup);
    char *line = cpk_host_exception_line();
    PyErr_Clear();
    cpk_error("%s: %s", context, line ? line : "error");
    free(line);
    return status;
}

/* Where the import of the spec's module failed, when the module exists
 * but raised: "file.py, line N". Empty if unknown. */
static void
raise_site(char *buf, size_t cap)
{
    PyObject *type, *value, *tb;
    buf[0] = '\0';
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    PyObject *t = tb;
    while (t != NULL && ((PyTracebackObject *)t)->tb_next != NULL)
        t = (PyObject *)((PyTracebackObject *)t)->tb_next;
    if (t != NULL) {
        PyTracebackObject *last = (PyTracebackObject *)t;
        PyCodeObject *co = PyFrame_GetCode(last->tb_frame);
        /* The attribute, not the field: 3.12 computes it lazily. */
        PyObject *lineno = PyObject_GetAttrString(t, "tb_lineno");
        const char *file = PyUnicode_AsUTF8(co->co_filename);
        long line = lineno ? PyLong_AsLong(lineno) : -1;
        if (file != NULL && file[0] != '<' && line > 0)
            snprintf(buf, cap, " (%s, line %ld)", file, line);
        PyErr_Clear();
        Py_XDECREF(lineno);
        Py_DECREF(co);
    }
    if (tb != NULL)
        PyException_SetTraceback(value, tb);
    PyErr_Restore(type, value, tb);
}

/* Import MODULE of the spec and walk ATTR.ATTR...; new reference. */
static PyObject *
resolve(const char *spec, int *status, PyObject **module_out)
{
    const char *colon = strchr(spec, ':');
    PyObject *modname = PyUnicode_DecodeFSDefaultAndSize(spec, colon - spec);
    PyObject *attrs = PyUnicode_DecodeFSDefault(colon + 1);
    PyObject *obj = NULL, *parts = NULL;
    *module_out = NULL;
    if (modname == NULL || attrs == NULL)
        goto error;
    /* Each dotted part must be an identifier, as in `import` and `.`. */
    PyObject *names[2] = {modname, attrs};
    for (int i = 0; i < 2; i++) {
        PyObject *dot = PyUnicode_FromString(".");
        PyObject *split = dot ? PyUnicode_Split(names[i], dot, -1) : NULL;
        Py_XDECREF(dot);
        if (split == NULL)
            goto error;
        for (Py_ssize_t j = 0; j < PyList_GET_SIZE(split); j++) {
            if (!PyUnicode_IsIdentifier(PyList_GET_ITEM(split, j))) {
                Py_DECREF(split);
                Py_DECREF(modname);
                Py_DECREF(attrs);
                *status = cpk_usage_error("'%s' is not MODULE:ATTR (dotted "
                                          "Python names)",
                                          spec);
                return NULL;
            }
        }
        if (i == 1)
            parts = split;
        else
            Py_DECREF(split);
    }
    PyObject *module = PyImport_Import(modname);
    if (module == NULL) {
        char where[1024] = "";
        int missing = PyErr_ExceptionMatches(PyExc_ModuleNotFoundError);
        if (!missing)
            raise_site(where, sizeof(where));
        char *line = cpk_host_exception_line();
        cpk_host_exit_if_interrupted(NULL);
        PyErr_Clear();
        cpk_error("%s: cannot import %.*s: %s%s", spec, (int)(colon - spec),
                  spec, line ? line : "error", where);
        free(line);
        *status = CPK_EXIT_OBJECT;
        goto done;
    }
    Py_INCREF(module);
    obj = module;
    for (Py_ssize_t j = 0; j < PyList_GET_SIZE(parts); j++) {
        Py_SETREF(obj, PyObject_GetAttr(obj, PyList_GET_ITEM(parts, j)));
        if (obj == NULL) {
            Py_DECREF(module);
            *status = fail(spec, CPK_EXIT_OBJECT, NULL);
            goto done;
        }
    }
    *module_out = module;
    goto done;
error:
    *status = fail(spec, CPK_EXIT_SYSTEM, NULL);
done:
    Py_XDECREF(modname);
    Py_XDECREF(attrs);
    Py_XDECREF(parts);
    return obj;
}

static int
register_by_value(PyObject *cpk, PyObject *module, const char *context)
{
    PyObject *r = PyObject_CallMethod(cpk, "register_pickle_by_value", "(O)",
                                      module);
    if (r == NULL)
        return fail(context, CPK_EXIT_OBJECT, NULL);
    Py_DECREF(r);
    return 0;
}

/* Explain a pickling failure: which part of the object graph (found by
 * ccloudpickle._find_unpicklable) and why, in one line. */
static int
pickling_failed(PyObject *cpk, PyObject *obj, const options *o,
                void (*cleanup)(void))
{
    cpk_host_exit_if_interrupted(cleanup);
    char *why = cpk_host_exception_line();
    PyErr_Clear();
    if (cleanup != NULL)
        cleanup();
    char where[2048] = "";
    PyObject *found = PyObject_CallMethod(cpk, "_find_unpicklable", "(Ois)",
                                          obj,
                                          o->protocol < 0 ? 5 : o->protocol,
                                          o->compat);
    if (found != NULL && PyTuple_Check(found) && PyTuple_GET_SIZE(found) == 2) {
        const char *path = PyUnicode_AsUTF8(PyTuple_GET_ITEM(found, 0));
        PyObject *culprit = PyTuple_GET_ITEM(found, 1);
        if (path != NULL)
            snprintf(where, sizeof(where), " %s%s (%s)", o->root, path,
                     Py_TYPE(culprit)->tp_name);
    }
    Py_XDECREF(found);
    PyErr_Clear();
    if (where[0] == '\0')
        snprintf(where, sizeof(where), " %s (%s)", o->root,
                 Py_TYPE(obj)->tp_name);
    cpk_error("%s: cannot pickle%s: %s", o->what, where, why ? why : "error");
    free(why);
    return CPK_EXIT_OBJECT;
}

static cpk_output file_out;

static void
abort_output(void)
{
    cpk_output_abort(&file_out);
}

static PyObject *
call_kw(PyObject *cpk, const char *method, PyObject *args,
        const options *o)
{
    PyObject *func = PyObject_GetAttrString(cpk, method);
    PyObject *kw = PyDict_New();
    PyObject *r = NULL;
    if (func == NULL || kw == NULL)
        goto done;
    if (o->protocol >= 0) {
        PyObject *p = PyLong_FromLong(o->protocol);
        if (p == NULL || PyDict_SetItemString(kw, "protocol", p) < 0) {
            Py_XDECREF(p);
            goto done;
        }
        Py_DECREF(p);
    }
    if (o->compat != NULL) {
        PyObject *c = PyUnicode_FromString(o->compat);
        if (c == NULL || PyDict_SetItemString(kw, "compat", c) < 0) {
            Py_XDECREF(c);
            goto done;
        }
        Py_DECREF(c);
    }
    if (o->portable && PyDict_SetItemString(kw, "portable", Py_True) < 0)
        goto done;
    if (o->format != 0) {
        PyObject *f = PyLong_FromLong(o->format);
        if (f == NULL || PyDict_SetItemString(kw, "format", f) < 0) {
            Py_XDECREF(f);
            goto done;
        }
        Py_DECREF(f);
    }
    /* pickling_failed() runs the culprit search itself, once, to name
     * the path in its own words: dumps() need not run it first. */
    if (PyDict_SetItemString(kw, "diagnose", Py_False) < 0)
        goto done;
    if (o->key != NULL) {
        PyObject *k = PyBytes_FromStringAndSize((const char *)o->key,
                                                (Py_ssize_t)o->keylen);
        if (k == NULL || PyDict_SetItemString(kw, "sign_key", k) < 0) {
            Py_XDECREF(k);
            goto done;
        }
        Py_DECREF(k);
    }
    r = PyObject_Call(func, args, kw);
done:
    Py_XDECREF(func);
    Py_XDECREF(kw);
    return r;
}

/* Write the pickle to standard output: the private descriptor, not fd 1
 * (standard error meanwhile, and left open for Python's flush at exit);
 * closing it reports a delayed write error, as fclose(stdout) would. */
static int
write_stdout(const char *buf, size_t len)
{
    int fd = cpk_host_stdout_take();
    int e = fd < 0 ? EBADF : cpk_write_all(fd, buf, len);
    if (fd >= 0 && close(fd) != 0 && e == 0)
        e = errno;
    if (e == EPIPE)
        cpk_die_by_signal(SIGPIPE); /* quietly, as a filter does */
    if (e != 0) {
        cpk_error("standard output: %s", strerror(e));
        return CPK_EXIT_SYSTEM;
    }
    return CPK_EXIT_OK;
}

/* Write the pickle to -o's file, atomically (output.h). */
static int
write_file(const options *o, const char *buf, size_t len)
{
    int e = cpk_output_open(&file_out, o->output);
    if (e != 0) {
        cpk_error("%s: cannot create a file next to it: %s", o->output,
                  strerror(e));
        return CPK_EXIT_SYSTEM;
    }
    e = cpk_write_all(file_out.fd, buf, len);
    if (e != 0) {
        cpk_output_abort(&file_out);
        cpk_error("%s: %s", o->output, strerror(e));
        return CPK_EXIT_SYSTEM;
    }
    const char *what = "write";
    e = cpk_output_commit(&file_out, &what);
    if (e == EINTR && PyErr_Occurred())
        cpk_host_exit_if_interrupted(NULL);
    if (e != 0) {
        cpk_error("%s: %s: %s", o->output, what, strerror(e));
        return CPK_EXIT_SYSTEM;
    }
    return CPK_EXIT_OK;
}

/* --report and --hash of the `len` bytes at `buf` just written, on
 * standard error. The output is in place whatever happens here. */
static void
after_dump(const options *o, const char *buf, size_t len)
{
    if (o->report &&
        cpk_dump_report(stderr, (const unsigned char *)buf, len, o->what,
                        o->target,
                        o->expr != NULL ? CPK_EXPR_FILENAME : NULL) < 0) {
        cpk_host_exit_if_interrupted(NULL);
        char *line = cpk_host_exception_line();
        PyErr_Clear();
        cpk_error("--report: %s", line ? line : "error");
        free(line);
    }
    if (o->hash) {
        char hex[65];
        if (cpk_sha256_hex(buf, len, hex) < 0)
            cpk_error("--hash: SHA-256 failed (libcrypto)");
        else {
            cpk_hash_line(stderr, hex, o->target);
            fflush(stderr);
        }
    }
}

/* Pickle into memory, write it once, then --report and --hash: what is
 * hashed and reported is exactly what was written. (Without those and
 * with -o, dump_to_file streams into the file instead.) */
static int
dump_in_memory(PyObject *cpk, PyObject *obj, const options *o)
{
    PyObject *args = PyTuple_Pack(1, obj);
    if (args == NULL)
        return fail(o->what, CPK_EXIT_SYSTEM, NULL);
    PyObject *data = call_kw(cpk, "dumps", args, o);
    Py_DECREF(args);
    if (data == NULL)
        return pickling_failed(cpk, obj, o, NULL);
    const char *buf = PyBytes_AS_STRING(data);
    size_t len = (size_t)PyBytes_GET_SIZE(data);
    int status = o->output ? write_file(o, buf, len) : write_stdout(buf, len);
    if (status == CPK_EXIT_OK)
        after_dump(o, buf, len);
    Py_DECREF(data);
    return status;
}

static int
dump_to_file(PyObject *cpk, PyObject *obj, const options *o)
{
    int e = cpk_output_open(&file_out, o->output);
    if (e != 0) {
        cpk_error("%s: cannot create a file next to it: %s", o->output,
                  strerror(e));
        return CPK_EXIT_SYSTEM;
    }
    PyObject *writer = cpk_output_writer(&file_out);
    PyObject *args = writer ? PyTuple_Pack(2, obj, writer) : NULL;
    PyObject *r = args ? call_kw(cpk, "dump", args, o) : NULL;
    Py_XDECREF(args);
    Py_XDECREF(writer);
    if (r == NULL) {
        if (file_out.write_errno != 0) {
            cpk_host_exit_if_interrupted(abort_output);
            PyErr_Clear();
            cpk_output_abort(&file_out);
            cpk_error("%s: %s", o->output, strerror(file_out.write_errno));
            return CPK_EXIT_SYSTEM;
        }
        return pickling_failed(cpk, obj, o, abort_output);
    }
    Py_DECREF(r);
    const char *what = "write";
    e = cpk_output_commit(&file_out, &what);
    if (e == EINTR && PyErr_Occurred())
        cpk_host_exit_if_interrupted(NULL);
    if (e != 0) {
        cpk_error("%s: %s: %s", o->output, what, strerror(e));
        return CPK_EXIT_SYSTEM;
    }
    return CPK_EXIT_OK;
}

static int
run(const options *o)
{
    PyObject *cpk = cpk_host_import(CPK_MODULE_NAME);
    if (cpk == NULL)
        return fail("cannot import ccloudpickle", CPK_EXIT_SYSTEM, NULL);
    /* Protocols 2 and 3 write __newobj_ex__ as functools.partial(...)
     * (_pickle's own partial): functools must be a module then, or the
     * partial class would go by value. cpk_host_import left it out. */
    int status = CPK_EXIT_OK;
    PyObject *module = NULL, *obj = NULL;
    if (o->protocol == 2 || o->protocol == 3) {
        PyObject *functools = PyImport_ImportModule("functools");
        if (functools == NULL) {
            status = fail("cannot import functools", CPK_EXIT_SYSTEM, NULL);
            goto done;
        }
        Py_DECREF(functools);
    }
    for (int i = 0; i < o->nby_value && status == CPK_EXIT_OK; i++) {
        PyObject *m = PyImport_ImportModule(o->by_value[i]);
        if (m == NULL) {
            char ctx[512];
            snprintf(ctx, sizeof(ctx), "--by-value %s", o->by_value[i]);
            status = fail(ctx, CPK_EXIT_OBJECT, NULL);
            break;
        }
        status = register_by_value(cpk, m, o->by_value[i]);
        Py_DECREF(m);
    }
    if (status != CPK_EXIT_OK)
        goto done;
    if (o->expr != NULL) {
        obj = cpk_expr_eval(o->expr, &status);
        if (obj == NULL)
            goto done;
    }
    else {
        obj = resolve(o->spec, &status, &module);
        if (obj == NULL)
            goto done;
        if (!o->by_ref &&
            (status = register_by_value(cpk, module, o->spec)) != 0)
            goto done;
    }
    status = o->output && !o->report && !o->hash
                 ? dump_to_file(cpk, obj, o)
                 : dump_in_memory(cpk, obj, o);
done:
    Py_XDECREF(obj);
    Py_XDECREF(module);
    Py_DECREF(cpk);
    return status;
}

int
main(int argc, char **argv)
{
    cpk_message_init(argv[0]);
    cpk_output_init(); /* before any Python thread exists */
    options o;
    int status = parse_options(argc, argv, &o);
    if (status == 0 && o.gen_key != NULL) {
        /* No interpreter: a key from the kernel, written once. */
        char why[256];
        if (cpk_keyfile_generate(o.gen_key, why, sizeof(why)) < 0) {
            cpk_error("%s: %s", o.gen_key, why);
            status = CPK_EXIT_SYSTEM;
        }
        free(o.paths);
        free(o.by_value);
        return status;
    }
    if (status != 0) {
        cpk_keyfile_free(o.key, o.keylen);
        free(o.paths);
        free(o.by_value);
        return status;
    }
    /* sys.argv: [prog, MODULE:ATTR], or ['-e'] as python -c gives ['-c'] */
    char *py_argv[2] = {argv[0], (char *)o.spec};
    if (o.expr != NULL)
        py_argv[0] = "-e";
    cpk_host_config cfg = {
        .argc = o.expr != NULL ? 1 : 2,
        .argv = py_argv,
        .npaths = o.npaths,
        .paths = o.paths,
    };
    status = cpk_host_start(&cfg);
    if (status == 0) {
        status = cpk_host_finish(run(&o));
        cpk_output_rewatch();
    }
    cpk_keyfile_free(o.key, o.keylen);
    free(o.paths);
    free(o.by_value);
    return status;
}
