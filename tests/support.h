/* support.h - what the Criterion tests share.
 *
 * Module tests run Python inside the test process: a suite's .init starts
 * an isolated interpreter with ccloudpickle built in and tests/fixtures on
 * sys.path (Criterion forks a process per test, so each test gets a fresh
 * one), then cpk_py() runs a snippet in __main__ and fails the test with
 * the Python traceback if it raises. The snippets assert on behaviour.
 *
 * Subprocess tests spawn the built programs, or CPK_PYTHON (the interpreter
 * the build is for, /usr/bin/python3 by default) with the built extension
 * module, and capture exit status, stdout and stderr. Under `make sanitize`
 * every child gets LD_PRELOAD=$CPK_SAN_PRELOAD (the ASan runtime), so an
 * uninstrumented interpreter can load the instrumented module.
 */
#ifndef CPK_TEST_SUPPORT_H
#define CPK_TEST_SUPPORT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <criterion/criterion.h>
#include <stddef.h>

#ifndef CPK_BUILD_DIR
#error "CPK_BUILD_DIR must be defined by the Makefile"
#endif

#define CPK_DUMP CPK_BUILD_DIR "/cloudpickle-dump"
#define CPK_LOAD CPK_BUILD_DIR "/cloudpickle-load"
#define CPK_FIXTURES CPK_SOURCE_DIR "/tests/fixtures"
#define CPK_EXAMPLES CPK_SOURCE_DIR "/examples"

/* A directory holding an unmodified stock cloudpickle release for interop
 * tests: $VAR (CPK_CLOUDPICKLE3 for 3.x, CPK_CLOUDPICKLE20 for 2.0.0) when
 * set, else the release kept beside the project, ../shared/vendor/
 * (cloudpickle-3.1.2, cloudpickle-2.0.0), which is then exported under VAR
 * for the children. Skips the test, saying why, when neither holds
 * cloudpickle/__init__.py. */
const char *cpk_stock_cloudpickle(const char *var);

/* Suite init/fini for module tests. */
void cpk_py_start(void);
void cpk_py_stop(void);

/* Run `code` in __main__; on an exception, fail the test with the
 * traceback. The snippet's assert statements are the test's checks. */
void cpk_py_run(const char *file, int line, const char *code);
#define cpk_py(code) cpk_py_run(__FILE__, __LINE__, (code))

/* Python scenarios of 8 lines or more live in files beside the test:
 * tests/<folder>/py/<stem>/<name>.py for tests/<folder>/test_<stem>.c,
 * found through CPK_SOURCE_DIR, so from any build directory. A scenario
 * may start with a shared part (a file named _<what>.py in the same
 * folder): the parts are concatenated, as the string literals they were,
 * and the text still runs as "<string>" (python -c's name), so what the
 * code sees is unchanged. A failure in cpk_py_run names the file and line.
 *
 * cpk_py_text("_setup.py", "name.py") is the text (owned by the support
 * code, kept until the test ends) for any function taking code;
 * cpk_py_file(...) runs it as cpk_py would. A missing file fails the
 * test. */
const char *cpk_py_text_get(const char *file, int line, const char *part,
                            ...);
#define cpk_py_text(...)                                                      \
    cpk_py_text_get(__FILE__, __LINE__, __VA_ARGS__, (const char *)NULL)
#define cpk_py_file(...)                                                      \
    cpk_py_run(__FILE__, __LINE__, cpk_py_text(__VA_ARGS__))

/* Run `code` and expect it to raise `exc_name` (e.g. "ValueError") whose
 * str() contains `fragment` (NULL: any message). */
void cpk_py_raises_run(const char *file, int line, const char *code,
                       const char *exc_name, const char *fragment);
#define cpk_py_raises(code, exc, frag)                                        \
    cpk_py_raises_run(__FILE__, __LINE__, (code), (exc), (frag))

/* Evaluate `expr` (which must give bytes) in __main__; a malloc'd copy. */
char *cpk_py_bytes(const char *expr, size_t *len);

/* Skip the test, saying why, unless `module` (e.g. "numpy") can be
 * imported both by the embedded interpreter (when one is running) and by
 * CPK_PYTHON: Debian's python3 has numpy and cloudpickle (make check
 * installs them), other interpreters under test may not. Only absence
 * skips; a failing check fails the test. */
void cpk_require(const char *module);

/* Pickle in this process, load in a fresh one: evaluate `data_expr`
 * (bytes) here, then run CPK_PYTHON with `check`, where `obj` is
 * ccloudpickle.loads(those bytes); fails the test if the check raises. The
 * fresh interpreter has tests/fixtures on its path, not __main__'s code. */
void cpk_fresh_run(const char *file, int line, const char *data_expr,
                   const char *check);
#define cpk_fresh(data_expr, check)                                           \
    cpk_fresh_run(__FILE__, __LINE__, (data_expr), (check))

/* cpk_fresh of ccloudpickle.dumps(<obj_expr>, protocol=P) for P = 2 and 5:
 * the check runs once per protocol, with `proto` set to P. */
void cpk_fresh_protos_run(const char *file, int line, const char *obj_expr,
                          const char *check);
#define cpk_fresh_protos(obj_expr, check)                                     \
    cpk_fresh_protos_run(__FILE__, __LINE__, (obj_expr), (check))

/* A finished child process. Buffers are NUL-terminated, caller frees with
 * cpk_proc_free. */
typedef struct {
    int exited;      /* 1: exited normally, status in `status` */
    int status;
    int signaled;    /* 1: killed by signal `sig` */
    int sig;
    char *out;
    size_t out_len;
    char *err;
    size_t err_len;
    long maxrss_kib; /* its peak resident set (wait4's ru_maxrss), KiB */
} cpk_proc;

/* How to run a child; zero-initialise and set what matters. */
typedef struct {
    const char *const *argv;  /* argv[0] is a path */
    const char *cwd;          /* NULL: current directory */
    const char *in;           /* standard input bytes; NULL: empty */
    size_t in_len;
    const char *const *env;   /* extra "NAME=value" entries, NULL-ended */
    const char *const *unset; /* variables to remove from the environment */
    int stdout_tty;           /* standard output is a pseudo-terminal */
    int stdin_tty;            /* standard input is a pseudo-terminal */
    int close_stdout;         /* close our end of stdout at once */
    int signal;               /* send this signal ... */
    int signal_after_ms;      /* ... this long after start (0: never) */
    const char *signal_when_exists; /* ... or once this file exists */
} cpk_spawn_opts;

void cpk_spawn_ex(cpk_proc *p, const cpk_spawn_opts *o);

/* For a test's own fork() before exec: every signal at its default action
 * and none blocked, as cpk_spawn's children start (a runner that ignores
 * SIGINT, such as a background job of a script, or nohup's SIGHUP, must
 * not change what the program under test does with a signal). */
void cpk_reset_signals(void);

/* Run argv in `cwd` (NULL: current), feeding `in` (in_len bytes; NULL:
 * nothing), with extra environment `env` (NULL-terminated, may be NULL). */
void cpk_spawn(cpk_proc *p, const char *const argv[], const char *cwd,
               const char *in, size_t in_len, const char *const env[]);
void cpk_proc_free(cpk_proc *p);

/* CPK_PYTHON -c code, with the built module importable (PYTHONPATH
 * is the build directory); stdin as above. */
void cpk_python(cpk_proc *p, const char *code, const char *in, size_t in_len);

/* CPK_PYTHON -S (no site: no dist-packages) -c code, with exactly
 * `pythonpath` added to the standard library: where ccloudpickle and
 * cloudpickle are importable is the test's choice. */
void cpk_python_path(cpk_proc *p, const char *pythonpath, const char *code,
                     const char *in, size_t in_len);

/* Assert a normal exit with `status`, showing stderr on failure. */
#define cpk_assert_exit(p, st)                                                 \
    cr_assert((p)->exited && (p)->status == (st),                             \
              "expected exit %d, got %s %d; stderr:\n%s", (st),               \
              (p)->exited ? "exit" : "signal",                                 \
              (p)->exited ? (p)->status : (p)->sig, (p)->err)

/* Run tests/beyond/<name>.py with ccloudpickle through tests/beyond/run.py:
 * pickled in one process, loaded and checked in a fresh one where the
 * defining code is absent. Fails the test, with the child's stderr, unless
 * the scenario's checks pass. */
void cpk_beyond_run(const char *file, int line, const char *name);
#define cpk_beyond(name) cpk_beyond_run(__FILE__, __LINE__, (name))

/* Read a whole file (NUL-terminated, caller frees); NULL if missing. */
char *cpk_read_file(const char *path, size_t *len);

/* The file `name` in directory `dir` holds exactly the text `want`. */
void cpk_assert_file(const char *dir, const char *name, const char *want);

/* A fresh empty directory under /tmp (static buffer per call site). */
void cpk_tmpdir(char *buf, size_t cap);

/* Write a file (text). */
void cpk_write_file(const char *path, const char *text);

/* Run CPK_PYTHON's `code` (cpk_python), assert it exits 0, and write what
 * it printed on stdout (bytes, e.g. a pickle) to `path`. */
void cpk_python_to_file(const char *path, const char *code);

/* MemAvailable of /proc/meminfo in bytes, 0 when unknown: tests that
 * need gigabytes skip below a threshold. */
unsigned long long cpk_mem_available(void);

#endif
