/* host.c - start, describe and stop the embedded interpreter (host.h). */
#include "common/host.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ccloudpickle.h"
#include "common/message.h"
#include "common/secondary.h" /* cpk_secondary_stdout */
#include "common/pyerr.h"     /* cpk_error_clear_if_clearable */

_Noreturn void
cpk_die_by_signal(int sig)
{
    fflush(stdout);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    cpk_coverage_flush();
    raise(sig);
    _exit(128 + sig);
}

/* The Python major.minor a virtualenv was made with, from its pyvenv.cfg
 * ("version = 3.11.2" or "version_info = 3.11.2.final.0"); "" if unknown. */
static void
venv_version(const char *venv, char *out, size_t outlen)
{
    char path[PATH_MAX];
    out[0] = '\0';
    if (snprintf(path, sizeof(path), "%s/pyvenv.cfg", venv) >= (int)sizeof(path))
        return;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return;
    char line[512];
    while (fgets(line, sizeof(line), f) != NULL) {
        char key[64];
        int major, minor;
        if (sscanf(line, " %63[a-z_] = %d.%d", key, &major, &minor) == 3 &&
            (strcmp(key, "version") == 0 ||
             strcmp(key, "version_info") == 0)) {
            snprintf(out, outlen, "%d.%d", major, minor);
            break;
        }
    }
    fclose(f);
}

static char venv_note[2 * PATH_MAX + 512];

const char *
cpk_host_venv_note(void)
{
    return venv_note[0] != '\0' ? venv_note : NULL;
}

/* 1 if the virtualenv's pyvenv.cfg says `home = ` the bin directory of
 * the Python this program was built for (CPK_HOME): a venv made from
 * another build of the same version (pyenv's 3.11.7 for Debian's 3.11.2)
 * would hand this libpython another standard library. */
static int
venv_home_is_ours(const char *venv)
{
    char path[PATH_MAX], home[PATH_MAX], ours[PATH_MAX];
    if (snprintf(path, sizeof(path), "%s/pyvenv.cfg", venv) >= (int)sizeof(path))
        return 0;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    char *line = NULL;
    size_t cap = 0;
    int found = 0;
    while (!found && getline(&line, &cap, f) > 0) {
        char *p = line + strspn(line, " \t");
        if (strncmp(p, "home", 4) != 0)
            continue;
        p += 4 + strspn(p + 4, " \t");
        if (*p != '=')
            continue;
        p += 1 + strspn(p + 1, " \t");
        size_t len = strcspn(p, "\r\n");
        while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
            len--;
        p[len] = '\0';
        found = realpath(p, home) != NULL;
    }
    free(line);
    fclose(f);
    return found && realpath(CPK_HOME "/bin", ours) != NULL &&
           strcmp(home, ours) == 0;
}

/* The virtualenv this program is installed in (make install
 * PYTHON=venv/bin/python3 puts it in the venv's bin/): the directory above
 * the one holding the program, when it has a pyvenv.cfg of this program's
 * Python version, made from the Python this program was built for, and a
 * bin/python. Its path goes to out (1), else 0. */
static int
own_virtualenv(char *out, size_t outlen)
{
    char dir[PATH_MAX], version[32], mine[32], python[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
    if (n <= 0 || n == (ssize_t)sizeof(dir) - 1) /* error or truncated */
        return 0;
    dir[n] = '\0';
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(dir, '/');
        if (slash == NULL || slash == dir)
            return 0;
        *slash = '\0';
    }
    venv_version(dir, version, sizeof(version));
    snprintf(mine, sizeof(mine), "%d.%d", PY_MAJOR_VERSION, PY_MINOR_VERSION);
    if (strcmp(version, mine) != 0 ||
        snprintf(python, sizeof(python), "%s/bin/python", dir) >=
            (int)sizeof(python) ||
        access(python, X_OK) != 0 || !venv_home_is_ours(dir) ||
        snprintf(out, outlen, "%s", dir) >= (int)outlen)
        return 0;
    return 1;
}

/* Point the interpreter at an active virtualenv, or else the one the
 * program is installed in, as its bin/python would be: getpath then finds
 * pyvenv.cfg and site adds its site-packages. A stale VIRTUAL_ENV (the
 * directory is gone) or one made with another Python version cannot be
 * honoured: refused, or ignored with a note when cfg->venv_optional. */
static int
use_virtualenv(const cpk_host_config *cfg, PyConfig *config)
{
    static char own[PATH_MAX];
    const char *venv = getenv("VIRTUAL_ENV");
    int implicit = venv == NULL || *venv == '\0';
    if (implicit) {
        if (!own_virtualenv(own, sizeof(own)))
            return 0;
        venv = own;
    }
    char python[PATH_MAX], why[PATH_MAX + 128];
    char version[32], mine[32];
    why[0] = '\0';
    venv_version(venv, version, sizeof(version));
    snprintf(mine, sizeof(mine), "%d.%d", PY_MAJOR_VERSION, PY_MINOR_VERSION);
    if (snprintf(python, sizeof(python), "%s/bin/python", venv) >=
            (int)sizeof(python) ||
        access(python, X_OK) != 0)
        snprintf(why, sizeof(why), "has no bin/python (a stale "
                 "virtualenv?)");
    else if (version[0] != '\0' && strcmp(version, mine) != 0)
        snprintf(why, sizeof(why), "is a Python %s environment and %s "
                 "embeds Python %s", version, cpk_prog, mine);
    if (why[0] != '\0') {
        /* The program's own virtualenv changed since own_virtualenv
         * looked: nothing to deactivate; go on without it. */
        if (implicit)
            return 0;
        if (cfg->venv_optional) {
            snprintf(venv_note, sizeof(venv_note), "VIRTUAL_ENV=%s, which "
                     "%s", venv, why);
            return 0;
        }
        cpk_error("VIRTUAL_ENV=%s %s; run 'deactivate'", venv, why);
        return CPK_EXIT_SYSTEM;
    }
    PyStatus status = PyConfig_SetBytesString(config, &config->program_name,
                                              python);
    if (PyStatus_Exception(status)) {
        cpk_error("cannot configure Python: %s", status.err_msg);
        return CPK_EXIT_SYSTEM;
    }
    return 0;
}

/* Without a virtualenv: the program name is the program itself, and the
 * standard library is the one of the Python it was built for (CPK_HOME,
 * that Python's sys.base_prefix). Left to itself, CPython would take its
 * program name from argv[0] and look for lib/python3.X/os.py upward from
 * there, or from the current directory, or beside a pickle named first:
 * a planted directory would supply the standard library.
 * sys.executable is that Python's bin/python3.X when it exists: code that
 * runs [sys.executable, "-c", ...] or multiprocessing's spawn needs a real
 * interpreter, which this program (with its own options) is not. Both
 * PyConfig.executable and base_executable exist from 3.8 on. */
static int
use_own_python(PyConfig *config)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    PyStatus status = PyStatus_Ok();
    if (n > 0) {
        self[n] = '\0';
        status = PyConfig_SetBytesString(config, &config->program_name, self);
    }
    if (!PyStatus_Exception(status))
        status = PyConfig_SetBytesString(config, &config->home, CPK_HOME);
    char python[PATH_MAX];
    if (!PyStatus_Exception(status) &&
        snprintf(python, sizeof(python), "%s/bin/python%d.%d", CPK_HOME,
                 PY_MAJOR_VERSION, PY_MINOR_VERSION) < (int)sizeof(python) &&
        access(python, X_OK) == 0) {
        status = PyConfig_SetBytesString(config, &config->executable,
                                         python);
        if (!PyStatus_Exception(status))
            status = PyConfig_SetBytesString(config,
                                             &config->base_executable,
                                             python);
    }
    if (PyStatus_Exception(status)) {
        cpk_error("cannot configure Python: %s", status.err_msg);
        return CPK_EXIT_SYSTEM;
    }
    return 0;
}

/* Insert the decoded `dir` into sys.path at *at (then one further), or
 * append it when at is NULL. */
static int
path_add(PyObject *path, Py_ssize_t *at, const char *dir)
{
    PyObject *s = PyUnicode_DecodeFSDefault(dir);
    if (s == NULL)
        return -1;
    int rc = at != NULL ? PyList_Insert(path, (*at)++, s)
                        : PyList_Append(path, s);
    Py_DECREF(s);
    return rc;
}

/* sys.path = [cwd, -P dirs..., PYTHONPATH entries..., the rest], as
 * `python -m` has it; with cfg->cwd_last the current directory comes
 * after the rest instead (the reasoning of Python 3.11's -P: a file that
 * happens to be in the current directory, say typing.py, must not run in
 * place of the standard library's). */
static int
set_path(const cpk_host_config *cfg)
{
    PyObject *path = PySys_GetObject("path"); /* borrowed */
    if (path == NULL || !PyList_Check(path))
        return -1;
    Py_INCREF(path);
    Py_ssize_t at = 0;
    int rc = -1;
    char cwd[PATH_MAX];
    int have_cwd = getcwd(cwd, sizeof(cwd)) != NULL;
    if (have_cwd && !cfg->cwd_last && path_add(path, &at, cwd) < 0)
        goto done;
    for (int i = 0; i < cfg->npaths; i++) {
        char abs[PATH_MAX];
        const char *dir = cfg->paths[i];
        if (realpath(dir, abs) != NULL)
            dir = abs;
        if (path_add(path, &at, dir) < 0)
            goto done;
    }
    const char *pp = getenv("PYTHONPATH");
    if (pp != NULL && *pp != '\0') {
        char *copy = strdup(pp), *save = NULL;
        if (copy == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        for (char *tok = strtok_r(copy, ":", &save); tok != NULL;
             tok = strtok_r(NULL, ":", &save)) {
            if (path_add(path, &at, tok) < 0) {
                free(copy);
                goto done;
            }
        }
        free(copy);
    }
    if (have_cwd && cfg->cwd_last && path_add(path, NULL, cwd) < 0)
        goto done;
    rc = 0;
done:
    Py_DECREF(path);
    return rc;
}

/* Standard output ------------------------------------------------------ */

static int private_stdout = -1;

int
cpk_host_stdout_take(void)
{
    int fd = private_stdout;
    private_stdout = -1;
    return fd;
}

/* Before Python starts: keep the real standard output on a private
 * descriptor and make fd 1 a copy of standard error, so that nothing,
 * Python's own sys.stdout included, can write to it behind our back. */
static void
divert_stdout(void)
{
    private_stdout = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (null >= 0) {
            dup2(null, STDOUT_FILENO);
            close(null);
        }
    }
}

/* After Python started: sys.stdout writes through to sys.stderr (so a
 * print and a message written to sys.stderr keep their order), dropping
 * what cannot be written there (secondary.h); None without sys.stderr. */
static int
stdout_is_stderr(void)
{
    PyObject *err = PySys_GetObject("stderr"); /* borrowed */
    if (err == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "lost sys.stderr");
        return -1;
    }
    if (err == Py_None)
        return PySys_SetObject("stdout", Py_None);
    PyObject *out = cpk_secondary_stdout(err);
    if (out == NULL)
        return -1;
    int rc = PySys_SetObject("stdout", out);
    Py_DECREF(out);
    return rc;
}

/* Flush sys.<name>, ignoring (and clearing) an ordinary failure. */
static void
flush_quietly(const char *name)
{
    PyObject *f = PySys_GetObject(name); /* borrowed */
    if (f == NULL || f == Py_None)
        return;
    Py_INCREF(f);
    PyObject *r = PyObject_CallMethod(f, "flush", NULL);
    Py_DECREF(f);
    if (r == NULL && PyErr_ExceptionMatches(PyExc_Exception))
        PyErr_Clear();
    Py_XDECREF(r);
}

int
cpk_host_stdout_restore(void)
{
    flush_quietly("stdout");
    if (PyErr_Occurred())
        return -1;
    if (private_stdout < 0) {
        /* There was no standard output. */
        errno = EBADF;
        PyErr_SetFromErrno(PyExc_OSError);
        return -1;
    }
    /* What C code (a printf at import) left in stdio's buffer belongs
     * before the called function's output, on standard error. */
    fflush(stdout);
    if (dup2(private_stdout, STDOUT_FILENO) < 0) {
        PyErr_SetFromErrno(PyExc_OSError);
        return -1;
    }
    close(private_stdout);
    private_stdout = -1;
    /* sys.__stdout__ was made over fd 1 while it was standard error: its
     * line buffering follows the real standard output now, as Python's
     * create_stdio decides it (line-buffered on a terminal). */
    PyObject *out = PySys_GetObject("__stdout__"); /* borrowed */
    if (out == NULL || out == Py_None)
        return 0;
    Py_INCREF(out);
    int rc = -1;
    PyObject *meth = NULL, *args = NULL, *kw = NULL, *r = NULL;
    if (PySys_SetObject("stdout", out) < 0)
        goto done;
    meth = PyObject_GetAttrString(out, "reconfigure");
    args = PyTuple_New(0);
    kw = Py_BuildValue("{s:O}", "line_buffering",
                       isatty(STDOUT_FILENO) ? Py_True : Py_False);
    if (meth == NULL || args == NULL || kw == NULL)
        goto done;
    r = PyObject_Call(meth, args, kw);
    if (r != NULL)
        rc = 0;
done:
    Py_XDECREF(r);
    Py_XDECREF(kw);
    Py_XDECREF(args);
    Py_XDECREF(meth);
    Py_DECREF(out);
    return rc;
}

void
cpk_host_stdout_discard(void)
{
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null >= 0) {
        dup2(null, STDOUT_FILENO);
        close(null);
    }
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    flush_quietly("stdout");
    flush_quietly("__stdout__");
    PyErr_Restore(type, value, tb);
}

int
cpk_host_stdout_broken(int fd)
{
    /* A pipe whose readers are gone polls POLLERR on its write end. */
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    return poll(&p, 1, 0) == 1 && (p.revents & POLLERR) != 0;
}

int
cpk_host_check_paths(int npaths, const char **paths)
{
    for (int i = 0; i < npaths; i++) {
        struct stat sb;
        if (stat(paths[i], &sb) != 0)
            return cpk_usage_error("-P %s: %s", paths[i], strerror(errno));
        if (!S_ISDIR(sb.st_mode))
            return cpk_usage_error("-P %s: not a directory", paths[i]);
    }
    return 0;
}

int
cpk_host_start(const cpk_host_config *cfg)
{
    int rc = cpk_host_check_paths(cfg->npaths, cfg->paths);
    if (rc != 0)
        return rc;
    if (PyImport_AppendInittab(CPK_MODULE_NAME, PyInit_ccloudpickle) < 0) {
        cpk_error("cannot register the ccloudpickle module");
        return CPK_EXIT_SYSTEM;
    }

    /* Isolated, but not at the cost of text: UTF-8 mode (PEP 540), so
     * that the standard streams, file names and sys.argv are UTF-8 under
     * any locale, the POSIX one included, where python3 turns UTF-8 mode
     * on by itself. The isolated preset leaves the locale alone
     * (configure_locale = 0) and UTF-8 mode off, which made all text
     * ASCII. PyConfig_SetBytesArgv below decodes argv with this, as
     * CPython decodes its own (UTF-8, surrogateescape for bad bytes).
     * PYTHONMALLOC=malloc or malloc_debug (memory debugging: valgrind,
     * make sanitize) is the one PYTHON* variable honoured besides
     * PYTHONPATH. */
    PyPreConfig pre;
    PyPreConfig_InitIsolatedConfig(&pre);
    pre.utf8_mode = 1;
    pre.configure_locale = 1;
    pre.coerce_c_locale = 0;
    const char *alloc = getenv("PYTHONMALLOC");
    if (alloc != NULL && strcmp(alloc, "malloc") == 0)
        pre.allocator = PYMEM_ALLOCATOR_MALLOC;
    else if (alloc != NULL && strcmp(alloc, "malloc_debug") == 0)
        pre.allocator = PYMEM_ALLOCATOR_MALLOC_DEBUG;
    PyStatus status = Py_PreInitialize(&pre);
    if (PyStatus_Exception(status)) {
        cpk_error("cannot start Python: %s",
                  status.err_msg ? status.err_msg : "unknown error");
        return CPK_EXIT_SYSTEM;
    }

    /* Isolated: no PYTHON* variables, no user site, no script directory;
     * we set sys.path ourselves. parse_argv = 0 keeps our options ours. */
    PyConfig config;
    PyConfig_InitIsolatedConfig(&config);
    config.parse_argv = 0;
    config.install_signal_handlers = 1;
    config.site_import = 1;
    rc = use_virtualenv(cfg, &config);
    if (rc == 0 && config.program_name == NULL)
        rc = use_own_python(&config);
    if (rc != 0) {
        PyConfig_Clear(&config);
        return rc;
    }
    status = PyConfig_SetBytesArgv(&config, cfg->argc, cfg->argv);
    if (!PyStatus_Exception(status)) {
        divert_stdout();
        status = Py_InitializeFromConfig(&config);
    }
    PyConfig_Clear(&config);
    if (PyStatus_Exception(status)) {
        cpk_error("cannot start Python %d.%d: %s", PY_MAJOR_VERSION,
                  PY_MINOR_VERSION,
                  status.err_msg ? status.err_msg : "unknown error");
        return CPK_EXIT_SYSTEM;
    }
    if (stdout_is_stderr() < 0) {
        PyErr_Clear();
        cpk_error("cannot set sys.stdout");
        return CPK_EXIT_SYSTEM;
    }
    /* SIGPIPE stays ignored, as Python has it: user code's own pipes and
     * sockets give BrokenPipeError. A closed standard output is the
     * programs' concern: they die by SIGPIPE on EPIPE there
     * (cpk_host_stdout_broken). */
    if (set_path(cfg) < 0) {
        char *line = PyErr_Occurred() ? cpk_host_exception_line() : NULL;
        PyErr_Clear();
        cpk_error("cannot set sys.path: %s", line ? line : "error");
        free(line);
        return CPK_EXIT_SYSTEM;
    }
    return 0;
}

int
cpk_host_finish(int status)
{
    /* Standard error is secondary output: what could not be written
     * there (a full disk, a closed pipe) is dropped, not left for the
     * flush in Py_FinalizeEx to fail on. */
    PyObject *err = PySys_GetObject("stderr"); /* borrowed */
    if (err != NULL && err != Py_None) {
        Py_INCREF(err);
        PyObject *r = PyObject_CallMethod(err, "flush", NULL);
        if (r == NULL && PyErr_ExceptionMatches(PyExc_Exception)) {
            PyErr_Clear();
            int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
            if (null >= 0) {
                dup2(null, STDERR_FILENO);
                close(null);
            }
            r = PyObject_CallMethod(err, "flush", NULL);
        }
        if (r == NULL && PyErr_ExceptionMatches(PyExc_Exception))
            PyErr_Clear();
        Py_XDECREF(r);
        Py_DECREF(err);
    }
    if (Py_FinalizeEx() < 0)
        return status == CPK_EXIT_OK ? CPK_EXIT_FINALIZE : status;
    return status;
}

/* Append `s` to buf with runs of whitespace folded into one space. */
static void
fold(char *buf, size_t cap, size_t *len, const char *s)
{
    int space = 0;
    for (; *s != '\0' && *len + 1 < cap; s++) {
        if (*s == '\n' || *s == '\r' || *s == '\t' || *s == ' ') {
            space = 1;
            continue;
        }
        if (space && *len > 0 && buf[*len - 1] != ' ')
            buf[(*len)++] = ' ';
        space = 0;
        buf[(*len)++] = *s;
    }
    buf[*len] = '\0';
}

char *
cpk_host_exception_line(void)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    char buf[2048];
    size_t len = 0;
    buf[0] = '\0';
    const char *tname = type ? ((PyTypeObject *)type)->tp_name : "error";
    const char *dot = strrchr(tname, '.');
    fold(buf, sizeof(buf), &len, dot ? dot + 1 : tname);
    PyObject *str = value ? PyObject_Str(value) : NULL;
    /* A message may hold a path or argument decoded with surrogateescape
     * (UTF-8 mode): give those bytes back as they came. */
    PyObject *bytes = str ? PyUnicode_AsEncodedString(str, "utf-8",
                                                      "surrogateescape")
                          : NULL;
    if (bytes == NULL && str != NULL) {
        PyErr_Clear();
        bytes = PyUnicode_AsEncodedString(str, "utf-8", "backslashreplace");
    }
    const char *msg = bytes ? PyBytes_AsString(bytes) : NULL;
    if (msg == NULL)
        PyErr_Clear();
    else if (*msg != '\0' && len + 2 < sizeof(buf)) {
        buf[len++] = ':';
        buf[len++] = ' ';
        buf[len] = '\0';
        fold(buf, sizeof(buf), &len, msg);
    }
    Py_XDECREF(bytes);
    Py_XDECREF(str);
    PyErr_Restore(type, value, tb);
    return strdup(buf);
}

void
cpk_host_exit_if_interrupted(void (*cleanup)(void))
{
    if (!PyErr_ExceptionMatches(PyExc_KeyboardInterrupt))
        return;
    PyErr_Clear();
    if (cleanup != NULL)
        cleanup();
    Py_FinalizeEx();
    cpk_die_by_signal(SIGINT);
}

/* _pickle's module init imports functools for one attribute, partial
 * (CPython's _Pickle_InitState, 3.9-3.13: for __newobj_ex__ under
 * protocols 2 and 3), and functools brings collections, types, operator,
 * reprlib, keyword and itertools along: 9-12 M instructions, a quarter of
 * a run. functools.partial is _functools.partial (functools.py does
 * `from _functools import partial`), so _pickle is imported while a
 * stand-in functools holding just that sits in sys.modules; the stand-in
 * is gone before any other code runs, and a later `import functools`
 * gets the real module, whose partial is the very object _pickle keeps.
 * Without _functools, _pickle is imported the ordinary way. */
static int
import_pickle(void)
{
    PyObject *modules = PyImport_GetModuleDict(); /* borrowed */
    if (PyDict_GetItemString(modules, "_pickle") != NULL ||
        PyDict_GetItemString(modules, "functools") != NULL)
        return 0;
    PyObject *c = PyImport_ImportModule("_functools");
    PyObject *partial = c ? PyObject_GetAttrString(c, "partial") : NULL;
    Py_XDECREF(c);
    PyObject *stand_in = partial ? PyModule_New("functools") : NULL;
    if (stand_in == NULL ||
        PyObject_SetAttrString(stand_in, "partial", partial) < 0 ||
        PyDict_SetItemString(modules, "functools", stand_in) < 0) {
        Py_XDECREF(stand_in);
        Py_XDECREF(partial);
        /* No _functools: the ordinary import below, in the caller. */
        return cpk_error_clear_if_clearable();
    }
    Py_DECREF(partial);
    PyObject *pickle = PyImport_ImportModule("_pickle");
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (PyDict_GetItemString(modules, "functools") == stand_in &&
        PyDict_DelItemString(modules, "functools") < 0)
        PyErr_Clear();
    PyErr_Restore(type, value, tb);
    Py_DECREF(stand_in);
    if (pickle == NULL)
        return -1;
    Py_DECREF(pickle);
    return 0;
}

PyObject *
cpk_host_import(const char *name)
{
    if (strcmp(name, CPK_MODULE_NAME) == 0 && import_pickle() < 0)
        return NULL;
    return PyImport_ImportModule(name);
}
