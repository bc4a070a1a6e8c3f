/* support.c - shared test helpers (support.h). */
#include "support.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ccloudpickle.h"

extern char **environ;

/* Embedded interpreter ---------------------------------------------------- */

void
cpk_py_start(void)
{
    PyImport_AppendInittab(CPK_MODULE_NAME, PyInit_ccloudpickle);
    PyConfig config;
    PyConfig_InitIsolatedConfig(&config);
    config.parse_argv = 0;
    config.install_signal_handlers = 0;
    PyStatus status = Py_InitializeFromConfig(&config);
    PyConfig_Clear(&config);
    cr_assert(!PyStatus_Exception(status), "Python did not start: %s",
              status.err_msg);
    PyObject *path = PySys_GetObject("path");
    PyObject *dir = PyUnicode_FromString(CPK_FIXTURES);
    cr_assert(path != NULL && dir != NULL && PyList_Insert(path, 0, dir) == 0);
    Py_DECREF(dir);
}

void
cpk_py_stop(void)
{
    if (Py_IsInitialized())
        cr_assert(Py_FinalizeEx() == 0, "Python did not finalize cleanly");
}

/* The pending exception's traceback as text (malloc'd). */
static char *
traceback_text(void)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb != NULL && value != NULL)
        PyException_SetTraceback(value, tb);
    char *out = NULL;
    PyObject *mod = PyImport_ImportModule("traceback");
    PyObject *lines = mod ? PyObject_CallMethod(mod, "format_exception", "(O)",
                                                value ? value : Py_None)
                          : NULL;
    PyObject *empty = PyUnicode_FromString("");
    PyObject *text = lines && empty ? PyUnicode_Join(empty, lines) : NULL;
    const char *s = text ? PyUnicode_AsUTF8(text) : NULL;
    out = strdup(s ? s : "(could not format the traceback)");
    PyErr_Clear();
    Py_XDECREF(mod);
    Py_XDECREF(lines);
    Py_XDECREF(empty);
    Py_XDECREF(text);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return out;
}

static PyObject *
run(const char *code)
{
    PyObject *main = PyImport_AddModule("__main__"); /* borrowed */
    if (main == NULL)
        return NULL;
    PyObject *globals = PyModule_GetDict(main);
    return PyRun_String(code, Py_file_input, globals, globals);
}

void
cpk_py_run(const char *file, int line, const char *code)
{
    PyObject *r = run(code);
    if (r == NULL) {
        char *tb = traceback_text();
        cr_assert_fail("%s:%d: Python raised:\n%s", file, line, tb);
        free(tb);
    }
    Py_DECREF(r);
}

char *
cpk_py_bytes(const char *expr, size_t *len)
{
    PyObject *main = PyImport_AddModule("__main__");
    PyObject *globals = PyModule_GetDict(main);
    PyObject *r = PyRun_String(expr, Py_eval_input, globals, globals);
    if (r == NULL) {
        char *tb = traceback_text();
        cr_assert_fail("evaluating %s raised:\n%s", expr, tb);
    }
    cr_assert(PyBytes_Check(r), "%s did not give bytes", expr);
    *len = (size_t)PyBytes_GET_SIZE(r);
    char *copy = malloc(*len + 1);
    cr_assert(copy != NULL);
    memcpy(copy, PyBytes_AS_STRING(r), *len);
    copy[*len] = '\0';
    Py_DECREF(r);
    return copy;
}

void
cpk_py_raises_run(const char *file, int line, const char *code,
                  const char *exc_name, const char *fragment)
{
    PyObject *r = run(code);
    cr_assert(r == NULL, "%s:%d: expected %s, nothing was raised", file, line,
              exc_name);
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    const char *tname = ((PyTypeObject *)type)->tp_name;
    const char *dot = strrchr(tname, '.');
    tname = dot ? dot + 1 : tname;
    PyObject *s = PyObject_Str(value);
    const char *msg = s ? PyUnicode_AsUTF8(s) : "";
    cr_assert_str_eq(tname, exc_name, "%s:%d: expected %s, got %s: %s", file,
                     line, exc_name, tname, msg);
    if (fragment != NULL)
        cr_assert(strstr(msg, fragment) != NULL,
                  "%s:%d: %s message lacks \"%s\": %s", file, line, tname,
                  fragment, msg);
    Py_XDECREF(s);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
}

/* Child processes ------------------------------------------------------------ */

static void
append(char **buf, size_t *len, size_t *cap, const char *data, size_t n)
{
    if (*len + n + 1 > *cap) {
        while (*len + n + 1 > *cap)
            *cap = *cap ? *cap * 2 : 4096;
        *buf = realloc(*buf, *cap);
        cr_assert(*buf != NULL);
    }
    memcpy(*buf + *len, data, n);
    *len += n;
    (*buf)[*len] = '\0';
}

void
cpk_spawn(cpk_proc *p, const char *const argv[], const char *cwd,
          const char *in, size_t in_len, const char *const env[])
{
    int pin[2], pout[2], perr[2];
    memset(p, 0, sizeof(*p));
    cr_assert(pipe(pin) == 0 && pipe(pout) == 0 && pipe(perr) == 0);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        dup2(pin[0], 0);
        dup2(pout[1], 1);
        dup2(perr[1], 2);
        close(pin[0]);
        close(pin[1]);
        close(pout[0]);
        close(pout[1]);
        close(perr[0]);
        close(perr[1]);
        signal(SIGPIPE, SIG_DFL);
        if (cwd != NULL && chdir(cwd) != 0)
            _exit(126);
        for (int i = 0; env != NULL && env[i] != NULL; i++)
            putenv((char *)env[i]);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(pin[0]);
    close(pout[1]);
    close(perr[1]);
    size_t out_cap = 0, err_cap = 0, in_off = 0;
    append(&p->out, &p->out_len, &out_cap, "", 0);
    append(&p->err, &p->err_len, &err_cap, "", 0);
    if (in == NULL || in_len == 0) {
        close(pin[1]);
        pin[1] = -1;
    }
    else
        fcntl(pin[1], F_SETFL, O_NONBLOCK);
    int open_out = 1, open_err = 1;
    void (*old)(int) = signal(SIGPIPE, SIG_IGN);
    while (open_out || open_err) {
        struct pollfd fds[3] = {{pout[0], POLLIN, 0},
                                {perr[0], POLLIN, 0},
                                {pin[1], POLLOUT, 0}};
        if (!open_out)
            fds[0].fd = -1;
        if (!open_err)
            fds[1].fd = -1;
        if (poll(fds, 3, -1) < 0) {
            cr_assert(errno == EINTR);
            continue;
        }
        char buf[65536];
        for (int i = 0; i < 2; i++) {
            if (fds[i].revents & (POLLIN | POLLHUP)) {
                ssize_t n = read(fds[i].fd, buf, sizeof(buf));
                if (n <= 0) {
                    if (i == 0)
                        open_out = 0;
                    else
                        open_err = 0;
                }
                else if (i == 0)
                    append(&p->out, &p->out_len, &out_cap, buf, (size_t)n);
                else
                    append(&p->err, &p->err_len, &err_cap, buf, (size_t)n);
            }
        }
        if (pin[1] >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
            ssize_t n = write(pin[1], in + in_off, in_len - in_off);
            if (n > 0)
                in_off += (size_t)n;
            if (n < 0 || in_off == in_len) {
                close(pin[1]);
                pin[1] = -1;
            }
        }
    }
    signal(SIGPIPE, old);
    if (pin[1] >= 0)
        close(pin[1]);
    close(pout[0]);
    close(perr[0]);
    int status;
    cr_assert(waitpid(pid, &status, 0) == pid);
    p->exited = WIFEXITED(status);
    p->status = p->exited ? WEXITSTATUS(status) : -1;
    p->signaled = WIFSIGNALED(status);
    p->sig = p->signaled ? WTERMSIG(status) : 0;
}

void
cpk_proc_free(cpk_proc *p)
{
    free(p->out);
    free(p->err);
    memset(p, 0, sizeof(*p));
}

void
cpk_python(cpk_proc *p, const char *code, const char *in, size_t in_len)
{
    const char *argv[] = {CPK_PYTHON, "-c", code, NULL};
    const char *env[] = {"PYTHONPATH=" CPK_BUILD_DIR ":" CPK_FIXTURES, NULL};
    cpk_spawn(p, argv, "/", in, in_len, env);
}

char *
cpk_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
        append(&buf, &n, &cap, chunk, got);
    fclose(f);
    if (buf == NULL)
        append(&buf, &n, &cap, "", 0);
    if (len != NULL)
        *len = n;
    return buf;
}

void
cpk_tmpdir(char *buf, size_t cap)
{
    snprintf(buf, cap, "/tmp/cpk-test-XXXXXX");
    cr_assert(mkdtemp(buf) != NULL, "mkdtemp: %s", strerror(errno));
}

void
cpk_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert(f != NULL, "%s: %s", path, strerror(errno));
    fputs(text, f);
    cr_assert(fclose(f) == 0);
}

void
cpk_fresh_run(const char *file, int line, const char *data_expr,
              const char *check)
{
    size_t len;
    char *data = cpk_py_bytes(data_expr, &len);
    const char *prologue = "import sys, ccloudpickle\n"
                           "obj = ccloudpickle.loads(sys.stdin.buffer.read())\n";
    char *code = malloc(strlen(prologue) + strlen(check) + 1);
    cr_assert(code != NULL);
    strcpy(code, prologue);
    strcat(code, check);
    cpk_proc p;
    cpk_python(&p, code, data, len);
    cr_assert(p.exited && p.status == 0,
              "%s:%d: the fresh interpreter failed (%d):\n%s", file, line,
              p.status, p.err);
    cpk_proc_free(&p);
    free(code);
    free(data);
}
