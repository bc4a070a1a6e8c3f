/* support.c - shared test helpers (support.h). */
#include "support.h"

#include <errno.h>
#include <libgen.h>
#include <stdarg.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <time.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ccloudpickle.h"

extern char **environ;

static void append(char **buf, size_t *len, size_t *cap, const char *data,
                   size_t n);

/* Stock cloudpickle releases ---------------------------------------------- */

#define CPK_VENDOR_DIR CPK_SOURCE_DIR "/../shared/vendor"

static const char *
vendored_release(const char *var)
{
    if (strcmp(var, "CPK_CLOUDPICKLE3") == 0)
        return CPK_VENDOR_DIR "/cloudpickle-3.1.2";
    if (strcmp(var, "CPK_CLOUDPICKLE20") == 0)
        return CPK_VENDOR_DIR "/cloudpickle-2.0.0";
    return NULL;
}

static int
holds_cloudpickle(const char *dir)
{
    char path[4096];
    int n = snprintf(path, sizeof(path), "%s/cloudpickle/__init__.py", dir);
    return n > 0 && (size_t)n < sizeof(path) && access(path, R_OK) == 0;
}

/* The vendored releases are the default of every test binary, set before
 * any test runs, so that Python code the tests start (tests/beyond/run.py,
 * snippets reading os.environ) sees them too. An explicit setting wins,
 * even an empty one or a directory that does not exist. */
__attribute__((constructor)) static void
default_stock_dirs(void)
{
    const char *vars[] = {"CPK_CLOUDPICKLE3", "CPK_CLOUDPICKLE20"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *dir = vendored_release(vars[i]);
        if (getenv(vars[i]) == NULL && holds_cloudpickle(dir))
            setenv(vars[i], dir, 0);
    }
}

const char *
cpk_stock_cloudpickle(const char *var)
{
    const char *dir = getenv(var);
    if (dir == NULL || *dir == '\0')
        cr_skip_test("%s is not set and %s holds no cloudpickle release",
                     var, vendored_release(var));
    if (!holds_cloudpickle(dir))
        cr_skip_test("%s=%s holds no cloudpickle/__init__.py", var, dir);
    return dir;
}

/* Embedded interpreter ---------------------------------------------------- */

/* The hash seed scripts/run-tests chose for this run (CPK_TEST_HASHSEED,
 * which it prints), so that a failure depending on hash order runs again
 * the same way: an isolated config ignores PYTHONHASHSEED. A different
 * name keeps it from the child interpreters the tests start, which keep a
 * seed of their own each (tests that two processes write the same bytes).
 * Unset: a random seed, as before; not a number 0-4294967295: the test
 * fails rather than run with a seed other than the one printed. */
static void
set_hash_seed(PyConfig *config)
{
    const char *text = getenv("CPK_TEST_HASHSEED");
    if (text == NULL || *text == '\0')
        return;
    unsigned long long seed = 0;
    size_t n = strspn(text, "0123456789");
    if (text[n] == '\0' && n <= 10)
        for (const char *c = text; *c != '\0'; c++)
            seed = seed * 10 + (unsigned)(*c - '0');
    cr_assert(text[n] == '\0' && n <= 10 && seed <= 4294967295ULL,
              "CPK_TEST_HASHSEED=%s is not a number 0-4294967295", text);
    config->use_hash_seed = 1;
    config->hash_seed = (unsigned long)seed;
}

void
cpk_py_start(void)
{
    PyImport_AppendInittab(CPK_MODULE_NAME, PyInit_ccloudpickle);
    /* Under valgrind (scripts/memcheck): plain malloc, no pymalloc arenas
     * that valgrind cannot see through; under make sanitize, malloc with
     * CPython's debug hooks, which also poison freed objects, so a use
     * after free inside (uninstrumented) libpython crashes too. */
    const char *alloc = getenv("PYTHONMALLOC");
    int malloc_debug = alloc != NULL && strcmp(alloc, "malloc_debug") == 0;
    if (alloc != NULL && (strcmp(alloc, "malloc") == 0 || malloc_debug)) {
        PyPreConfig pre;
        PyPreConfig_InitIsolatedConfig(&pre);
        pre.allocator = malloc_debug ? PYMEM_ALLOCATOR_MALLOC_DEBUG
                                     : PYMEM_ALLOCATOR_MALLOC;
        PyStatus st = Py_PreInitialize(&pre);
        cr_assert(!PyStatus_Exception(st), "pre-init: %s", st.err_msg);
    }
    PyConfig config;
    PyConfig_InitIsolatedConfig(&config);
    config.parse_argv = 0;
    config.install_signal_handlers = 0;
    set_hash_seed(&config);
    PyStatus status = Py_InitializeFromConfig(&config);
    PyConfig_Clear(&config);
    cr_assert(!PyStatus_Exception(status), "Python did not start: %s",
              status.err_msg);
    PyObject *path = PySys_GetObject("path");
    PyObject *dir = PyUnicode_FromString(CPK_FIXTURES);
    cr_assert(path != NULL && dir != NULL && PyList_Insert(path, 0, dir) == 0);
    Py_DECREF(dir);
    /* The companion modules (python/, copied next to the extension). */
    dir = PyUnicode_FromString(CPK_BUILD_DIR);
    cr_assert(dir != NULL && PyList_Append(path, dir) == 0);
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
    /* The three-argument form: 3.9 has no format_exception(exc). */
    PyObject *lines =
        mod ? PyObject_CallMethod(mod, "format_exception", "(OOO)",
                                  type ? type : Py_None,
                                  value ? value : Py_None, tb ? tb : Py_None)
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

/* Python scenarios in files ------------------------------------------------ */

/* A text cpk_py_text gave out: its parts, to name them in failures. */
typedef struct {
    const char *text;
    int nparts;
    char paths[8][1024]; /* relative to the source directory */
    int lines[8];        /* lines each part holds */
} scenario;

static scenario *scenarios;
static size_t nscenarios;

/* tests/<folder>/py/<stem> for the test file `file` (its __FILE__). */
static void
scenario_dir(char *buf, size_t cap, const char *file)
{
    char a[1024], b[1024];
    snprintf(a, sizeof(a), "%s", file);
    snprintf(b, sizeof(b), "%s", file);
    const char *base = basename(a);
    const char *folder = basename(dirname(b));
    size_t n = strlen(base);
    int ok = strncmp(base, "test_", 5) == 0 && n > 7 &&
             strcmp(base + n - 2, ".c") == 0;
    cr_assert(ok, "%s: not a tests/<folder>/test_<name>.c file", file);
    int w = snprintf(buf, cap, "tests/%s/py/%.*s", folder, (int)(n - 7),
                     base + 5);
    cr_assert(w > 0 && (size_t)w < cap);
}

const char *
cpk_py_text_get(const char *file, int line, const char *part, ...)
{
    char dir[512];
    scenario_dir(dir, sizeof(dir), file);
    scenario s;
    memset(&s, 0, sizeof(s));
    char *text = NULL;
    size_t len = 0, cap = 0;
    va_list ap;
    va_start(ap, part);
    for (; part != NULL; part = va_arg(ap, const char *)) {
        cr_assert(s.nparts < 8, "%s:%d: more than 8 parts", file, line);
        char *rel = s.paths[s.nparts];
        snprintf(rel, sizeof(s.paths[0]), "%s/%s", dir, part);
        char path[2048];
        snprintf(path, sizeof(path), "%s/%s", CPK_SOURCE_DIR, rel);
        size_t n;
        char *data = cpk_read_file(path, &n);
        cr_assert(data != NULL, "%s:%d: %s: %s", file, line, path,
                  strerror(errno));
        cr_assert(n > 0, "%s:%d: %s is empty", file, line, path);
        cr_assert(strlen(data) == n, "%s:%d: %s holds a NUL byte", file,
                  line, path);
        int lines = 0;
        for (size_t i = 0; i < n; i++)
            lines += data[i] == '\n';
        s.lines[s.nparts++] = lines;
        append(&text, &len, &cap, data, n);
        free(data);
    }
    va_end(ap);
    if (text == NULL)
        append(&text, &len, &cap, "", 0);
    s.text = text;
    scenario *grown =
        realloc(scenarios, (nscenarios + 1) * sizeof(*scenarios));
    cr_assert(grown != NULL);
    scenarios = grown;
    scenarios[nscenarios++] = s;
    return text;
}

static const scenario *
scenario_of(const char *code)
{
    for (size_t i = nscenarios; i > 0; i--)
        if (scenarios[i - 1].text == code)
            return &scenarios[i - 1];
    return NULL;
}

/* `tb` with each `File "<string>", line N` of a scenario's text naming
 * its file and line instead (malloc'd). */
static char *
scenario_traceback(const scenario *s, const char *tb)
{
    static const char mark[] = "File \"<string>\", line ";
    char *out = NULL;
    size_t len = 0, cap = 0;
    const char *at;
    while ((at = strstr(tb, mark)) != NULL) {
        append(&out, &len, &cap, tb, (size_t)(at - tb));
        const char *num = at + sizeof(mark) - 1;
        char *end;
        long n = strtol(num, &end, 10), global = n;
        int k = 0;
        while (k < s->nparts - 1 && n > s->lines[k])
            n -= s->lines[k++];
        char repl[1200];
        snprintf(repl, sizeof(repl), "File \"%s\", line %ld", s->paths[k],
                 n);
        append(&out, &len, &cap, repl, strlen(repl));
        tb = end;
        /* the rest of the traceback's line, then the source line that
         * "<string>" could not show */
        const char *eol = strchr(tb, '\n');
        if (eol == NULL)
            continue;
        append(&out, &len, &cap, tb, (size_t)(eol + 1 - tb));
        tb = eol + 1;
        const char *src = s->text;
        for (long i = 1; i < global && src != NULL; i++)
            src = strchr(src, '\n') ? strchr(src, '\n') + 1 : NULL;
        if (src == NULL || global < 1)
            continue;
        src += strspn(src, " \t");
        size_t width = strcspn(src, "\n");
        append(&out, &len, &cap, "    ", 4);
        append(&out, &len, &cap, src, width);
        append(&out, &len, &cap, "\n", 1);
    }
    append(&out, &len, &cap, tb, strlen(tb));
    return out;
}

/* The files a scenario's text came from, for a failure message. */
static void
scenario_names(const scenario *s, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < s->nparts && used < cap; k++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%s",
                                 k ? " + " : " (", s->paths[k]);
    if (used < cap)
        snprintf(buf + used, cap - used, ")");
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
        const scenario *s = scenario_of(code);
        char names[2048] = "";
        if (s != NULL) {
            char *named = scenario_traceback(s, tb);
            free(tb);
            tb = named;
            scenario_names(s, names, sizeof(names));
        }
        cr_assert_fail("%s:%d%s: Python raised:\n%s", file, line, names, tb);
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
    const scenario *sc = scenario_of(code);
    char names[2048] = "";
    if (sc != NULL)
        scenario_names(sc, names, sizeof(names));
    cr_assert(r == NULL, "%s:%d%s: expected %s, nothing was raised", file,
              line, names, exc_name);
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    const char *tname = ((PyTypeObject *)type)->tp_name;
    const char *dot = strrchr(tname, '.');
    tname = dot ? dot + 1 : tname;
    PyObject *s = PyObject_Str(value);
    const char *msg = s ? PyUnicode_AsUTF8(s) : "";
    cr_assert_str_eq(tname, exc_name, "%s:%d%s: expected %s, got %s: %s",
                     file, line, names, exc_name, tname, msg);
    if (fragment != NULL)
        cr_assert(strstr(msg, fragment) != NULL,
                  "%s:%d%s: %s message lacks \"%s\": %s", file, line, names,
                  tname, fragment, msg);
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

static long
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* A child starts as from a fresh shell: every signal at its default
 * action and none blocked, whatever the test runner inherited (nohup
 * ignores SIGHUP, a CI runner or terminal may ignore SIGINT or block
 * signals), so a test's result does not depend on how it was started. */
void
cpk_reset_signals(void)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            sigaction(sig, &dfl, NULL); /* fails only for invalid numbers */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

void
cpk_spawn_ex(cpk_proc *p, const cpk_spawn_opts *o)
{
    int pin[2], pout[2], perr[2], tty = -1, tty_slave = -1;
    memset(p, 0, sizeof(*p));
    cr_assert(pipe(pin) == 0 && pipe(pout) == 0 && pipe(perr) == 0);
    if (o->stdout_tty || o->stdin_tty)
        cr_assert(openpty(&tty, &tty_slave, NULL, NULL, NULL) == 0);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        dup2(o->stdin_tty ? tty_slave : pin[0], 0);
        dup2(o->stdout_tty ? tty_slave : pout[1], 1);
        dup2(perr[1], 2);
        int fds[] = {pin[0], pin[1], pout[0], pout[1], perr[0], perr[1],
                     tty, tty_slave};
        for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
            if (fds[i] > 2)
                close(fds[i]);
        cpk_reset_signals();
        if (o->cwd != NULL && chdir(o->cwd) != 0)
            _exit(126);
        /* make sanitize: the ASan runtime must be loaded first in a
         * process that loads our instrumented module without being
         * instrumented itself (CPK_PYTHON, and whatever a child runs).
         * The instrumented programs already load it: preloading the same
         * library again changes nothing there. */
        const char *san = getenv("CPK_SAN_PRELOAD");
        if (san != NULL && *san != '\0')
            setenv("LD_PRELOAD", san, 1);
        for (int i = 0; o->unset != NULL && o->unset[i] != NULL; i++)
            unsetenv(o->unset[i]);
        for (int i = 0; o->env != NULL && o->env[i] != NULL; i++)
            putenv((char *)o->env[i]);
        execv(o->argv[0], (char *const *)o->argv);
        _exit(127);
    }
    close(pin[0]);
    close(pout[1]);
    close(perr[1]);
    if (tty_slave >= 0)
        close(tty_slave);
    size_t out_cap = 0, err_cap = 0, in_off = 0;
    append(&p->out, &p->out_len, &out_cap, "", 0);
    append(&p->err, &p->err_len, &err_cap, "", 0);
    if (o->in == NULL || o->in_len == 0) {
        close(pin[1]);
        pin[1] = -1;
    }
    else
        fcntl(pin[1], F_SETFL, O_NONBLOCK);
    int open_out = 1, open_err = 1;
    if (o->close_stdout) {
        close(pout[0]);
        pout[0] = -1;
        open_out = 0;
    }
    int out_fd = o->stdout_tty ? tty : pout[0];
    if (o->stdout_tty && pout[0] >= 0) {
        close(pout[0]);
        pout[0] = -1;
    }
    int signalled = o->signal == 0;
    long start = now_ms();
    void (*old)(int) = signal(SIGPIPE, SIG_IGN);
    while (open_out || open_err) {
        struct pollfd fds[3] = {{open_out ? out_fd : -1, POLLIN, 0},
                                {open_err ? perr[0] : -1, POLLIN, 0},
                                {pin[1], POLLOUT, 0}};
        int timeout = signalled ? -1 : 20;
        if (poll(fds, 3, timeout) < 0) {
            cr_assert(errno == EINTR);
            continue;
        }
        if (!signalled) {
            int fire = 0;
            if (o->signal_after_ms > 0 &&
                now_ms() - start >= o->signal_after_ms)
                fire = 1;
            if (o->signal_when_exists != NULL &&
                access(o->signal_when_exists, F_OK) == 0)
                fire = 1;
            if (fire) {
                kill(pid, o->signal);
                signalled = 1;
            }
        }
        char buf[65536];
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd >= 0 && (fds[i].revents & (POLLIN | POLLHUP | POLLERR))) {
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
            ssize_t n = write(pin[1], o->in + in_off, o->in_len - in_off);
            if (n > 0)
                in_off += (size_t)n;
            if (n < 0 || in_off == o->in_len) {
                close(pin[1]);
                pin[1] = -1;
            }
        }
    }
    signal(SIGPIPE, old);
    if (pin[1] >= 0)
        close(pin[1]);
    if (pout[0] >= 0)
        close(pout[0]);
    if (tty >= 0)
        close(tty);
    close(perr[0]);
    int status;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    cr_assert(wait4(pid, &status, 0, &ru) == pid);
    p->maxrss_kib = ru.ru_maxrss;
    p->exited = WIFEXITED(status);
    p->status = p->exited ? WEXITSTATUS(status) : -1;
    p->signaled = WIFSIGNALED(status);
    p->sig = p->signaled ? WTERMSIG(status) : 0;
}

void
cpk_spawn(cpk_proc *p, const char *const argv[], const char *cwd,
          const char *in, size_t in_len, const char *const env[])
{
    cpk_spawn_opts o = {.argv = argv, .cwd = cwd, .in = in, .in_len = in_len,
                        .env = env};
    cpk_spawn_ex(p, &o);
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

void
cpk_beyond_run(const char *file, int line, const char *name)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/tests/beyond/%s.py", CPK_SOURCE_DIR,
             name);
    const char *argv[] = {CPK_PYTHON, CPK_SOURCE_DIR "/tests/beyond/run.py",
                          "ccloudpickle", path, NULL};
    const char *env[] = {"CPK_BUILD_DIR=" CPK_BUILD_DIR, NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, "/", NULL, 0, env);
    int ok = p.exited && p.status == 0;
    cr_expect(ok, "%s:%d: scenario %s: %s %d (1 check failed, 2 dump, 3 "
              "load)\n%s%s", file, line, name, p.exited ? "exit" : "signal",
              p.exited ? p.status : p.sig, p.out, p.err);
    cpk_proc_free(&p);
    if (!ok)
        cr_assert_fail();
}

void
cpk_python_path(cpk_proc *p, const char *pythonpath, const char *code,
                const char *in, size_t in_len)
{
    const char *argv[] = {CPK_PYTHON, "-S", "-c", code, NULL};
    char env_var[1024];
    snprintf(env_var, sizeof(env_var), "PYTHONPATH=%s", pythonpath);
    const char *env[] = {env_var, NULL};
    cpk_spawn(p, argv, "/", in, in_len, env);
}

void
cpk_require(const char *module)
{
    char code[512];
    /* find_spec: absent is None, not an import of the whole package. */
    snprintf(code, sizeof(code),
             "import importlib.util, sys\n"
             "sys.exit(0 if importlib.util.find_spec('%s') else 3)\n",
             module);
    if (Py_IsInitialized()) {
        char expr[256];
        snprintf(expr, sizeof(expr),
                 "__import__('importlib.util').util.find_spec('%s') is None",
                 module);
        PyObject *main = PyImport_AddModule("__main__"); /* borrowed */
        PyObject *globals = main ? PyModule_GetDict(main) : NULL;
        PyObject *r = globals ? PyRun_String(expr, Py_eval_input, globals,
                                             globals)
                              : NULL;
        if (r == NULL) {
            char *tb = traceback_text();
            cr_assert_fail("looking for %s raised:\n%s", module, tb);
        }
        int absent = r == Py_True;
        Py_DECREF(r);
        if (absent)
            cr_skip_test("needs %s, which Python %d.%d (embedded) lacks",
                         module, PY_MAJOR_VERSION, PY_MINOR_VERSION);
    }
    cpk_proc p;
    cpk_python(&p, code, NULL, 0);
    int absent = p.exited && p.status == 3;
    cr_assert(absent || (p.exited && p.status == 0),
              "looking for %s in " CPK_PYTHON " failed:\n%s", module, p.err);
    cpk_proc_free(&p);
    if (absent)
        cr_skip_test("needs %s, which " CPK_PYTHON " lacks", module);
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
    int failed = ferror(f) ? errno : 0; /* a directory, a read error */
    fclose(f);
    if (failed) {
        free(buf);
        errno = failed;
        return NULL;
    }
    if (buf == NULL)
        append(&buf, &n, &cap, "", 0);
    if (len != NULL)
        *len = n;
    return buf;
}

void
cpk_tmpdir(char *buf, size_t cap)
{
    /* under TMPDIR, which scripts/run-tests sets and removes per binary */
    const char *base = getenv("TMPDIR");
    if (base == NULL || base[0] != '/')
        base = "/tmp";
    int n = snprintf(buf, cap, "%s/cpk-test-XXXXXX", base);
    cr_assert(n > 0 && (size_t)n < cap, "TMPDIR too long: %s", base);
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
cpk_python_to_file(const char *path, const char *code)
{
    cpk_proc mk;
    cpk_python(&mk, code, NULL, 0);
    cpk_assert_exit(&mk, 0);
    FILE *f = fopen(path, "wb");
    cr_assert(f != NULL, "%s: %s", path, strerror(errno));
    cr_assert(fwrite(mk.out, 1, mk.out_len, f) == mk.out_len);
    cr_assert(fclose(f) == 0);
    cpk_proc_free(&mk);
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

void
cpk_fresh_protos_run(const char *file, int line, const char *obj_expr,
                     const char *check)
{
    static const int protos[] = {2, 5};
    for (size_t i = 0; i < 2; i++) {
        char expr[2048], full[8192];
        snprintf(expr, sizeof(expr),
                 "__import__('ccloudpickle').dumps(%s, protocol=%d)", obj_expr,
                 protos[i]);
        snprintf(full, sizeof(full), "proto = %d\n%s", protos[i], check);
        cpk_fresh_run(file, line, expr, full);
    }
}

void
cpk_assert_file(const char *dir, const char *name, const char *want)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    size_t len;
    char *got = cpk_read_file(path, &len);
    cr_assert(got != NULL, "%s: not there", path);
    cr_assert_str_eq(got, want, "%s", path);
    free(got);
}

unsigned long long
cpk_mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (f == NULL)
        return 0;
    char line[256];
    unsigned long long kib = 0;
    while (fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
            break;
    fclose(f);
    return kib * 1024;
}
