/* host.c - start, describe and stop the embedded interpreter (host.h). */
#include "host.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ccloudpickle.h"
#include "message.h"

_Noreturn void
cpk_die_by_signal(int sig)
{
    fflush(stdout);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
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

/* Point the interpreter at an active virtualenv, as its bin/python would
 * be: getpath then finds pyvenv.cfg and site adds its site-packages. */
static int
use_virtualenv(PyConfig *config)
{
    const char *venv = getenv("VIRTUAL_ENV");
    if (venv == NULL || *venv == '\0')
        return 0;
    char python[PATH_MAX];
    if (snprintf(python, sizeof(python), "%s/bin/python", venv) >=
            (int)sizeof(python) ||
        access(python, X_OK) != 0) {
        cpk_error("VIRTUAL_ENV=%s: no %s/bin/python; not a virtualenv",
                  venv, venv);
        return CPK_EXIT_SYSTEM;
    }
    char version[32], mine[32];
    venv_version(venv, version, sizeof(version));
    snprintf(mine, sizeof(mine), "%d.%d", PY_MAJOR_VERSION, PY_MINOR_VERSION);
    if (version[0] != '\0' && strcmp(version, mine) != 0) {
        cpk_error("VIRTUAL_ENV=%s is a Python %s environment; %s embeds "
                  "Python %s",
                  venv, version, cpk_prog, mine);
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

/* sys.path = [cwd, -P dirs..., PYTHONPATH entries..., the rest]. */
static int
set_path(const cpk_host_config *cfg)
{
    PyObject *path = PySys_GetObject("path"); /* borrowed */
    if (path == NULL || !PyList_Check(path))
        return -1;
    Py_ssize_t at = 0;
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof(cwd)) != NULL) {
        PyObject *s = PyUnicode_DecodeFSDefault(cwd);
        if (s == NULL || PyList_Insert(path, at++, s) < 0) {
            Py_XDECREF(s);
            return -1;
        }
        Py_DECREF(s);
    }
    for (int i = 0; i < cfg->npaths; i++) {
        char abs[PATH_MAX];
        const char *dir = cfg->paths[i];
        if (realpath(dir, abs) != NULL)
            dir = abs;
        PyObject *s = PyUnicode_DecodeFSDefault(dir);
        if (s == NULL || PyList_Insert(path, at++, s) < 0) {
            Py_XDECREF(s);
            return -1;
        }
        Py_DECREF(s);
    }
    const char *pp = getenv("PYTHONPATH");
    if (pp != NULL && *pp != '\0') {
        char *copy = strdup(pp), *save = NULL;
        if (copy == NULL)
            return -1;
        for (char *tok = strtok_r(copy, ":", &save); tok != NULL;
             tok = strtok_r(NULL, ":", &save)) {
            PyObject *s = PyUnicode_DecodeFSDefault(tok);
            if (s == NULL || PyList_Insert(path, at++, s) < 0) {
                Py_XDECREF(s);
                free(copy);
                return -1;
            }
            Py_DECREF(s);
        }
        free(copy);
    }
    return 0;
}

int
cpk_host_start(const cpk_host_config *cfg)
{
    for (int i = 0; i < cfg->npaths; i++) {
        struct stat sb;
        if (stat(cfg->paths[i], &sb) != 0) {
            return cpk_usage_error("-P %s: %s", cfg->paths[i],
                                   strerror(errno));
        }
        if (!S_ISDIR(sb.st_mode))
            return cpk_usage_error("-P %s: not a directory", cfg->paths[i]);
    }
    if (PyImport_AppendInittab(CPK_MODULE_NAME, PyInit_ccloudpickle) < 0) {
        cpk_error("cannot register the ccloudpickle module");
        return CPK_EXIT_SYSTEM;
    }

    /* PYTHONMALLOC=malloc (memory debugging, valgrind) is the one PYTHON*
     * variable honoured besides PYTHONPATH. */
    const char *alloc = getenv("PYTHONMALLOC");
    if (alloc != NULL && strcmp(alloc, "malloc") == 0) {
        PyPreConfig pre;
        PyPreConfig_InitIsolatedConfig(&pre);
        pre.allocator = PYMEM_ALLOCATOR_MALLOC;
        PyStatus st = Py_PreInitialize(&pre);
        if (PyStatus_Exception(st)) {
            cpk_error("cannot start Python: %s", st.err_msg);
            return CPK_EXIT_SYSTEM;
        }
    }

    /* Isolated: no PYTHON* variables, no user site, no script directory;
     * we set sys.path ourselves. parse_argv = 0 keeps our options ours. */
    PyConfig config;
    PyConfig_InitIsolatedConfig(&config);
    config.parse_argv = 0;
    config.install_signal_handlers = 1;
    config.site_import = 1;
    int rc = use_virtualenv(&config);
    if (rc != 0) {
        PyConfig_Clear(&config);
        return rc;
    }
    PyStatus status = PyConfig_SetBytesArgv(&config, cfg->argc, cfg->argv);
    if (!PyStatus_Exception(status))
        status = Py_InitializeFromConfig(&config);
    PyConfig_Clear(&config);
    if (PyStatus_Exception(status)) {
        cpk_error("cannot start Python %d.%d: %s", PY_MAJOR_VERSION,
                  PY_MINOR_VERSION,
                  status.err_msg ? status.err_msg : "unknown error");
        return CPK_EXIT_SYSTEM;
    }
    /* Python ignores SIGPIPE; a Unix filter dies of it on a closed pipe. */
    signal(SIGPIPE, SIG_DFL);
    if (set_path(cfg) < 0) {
        PyErr_Print();
        cpk_error("cannot set sys.path");
        return CPK_EXIT_SYSTEM;
    }
    return 0;
}

int
cpk_host_finish(int status)
{
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
    const char *msg = str ? PyUnicode_AsUTF8(str) : NULL;
    if (msg == NULL)
        PyErr_Clear();
    else if (*msg != '\0' && len + 2 < sizeof(buf)) {
        buf[len++] = ':';
        buf[len++] = ' ';
        buf[len] = '\0';
        fold(buf, sizeof(buf), &len, msg);
    }
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

PyObject *
cpk_host_import(const char *name)
{
    return PyImport_ImportModule(name);
}
