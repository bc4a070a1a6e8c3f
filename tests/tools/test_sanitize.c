/* test_sanitize.c - `make sanitize` really watches every kind of process
 * the suite runs: a heap overflow is reported (exit status 86, the
 * Makefile's ASAN_OPTIONS) in a (forked) Criterion test process with its
 * embedded interpreter, and in a fresh CPK_PYTHON that loads the instrumented
 * module with the preloaded runtime; the programs carry the ASan and UBSan
 * runtimes. Skipped in an uninstrumented build. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support.h"

/* gcc and clang define this under -fsanitize=address. */
#if defined(__SANITIZE_ADDRESS__)
#define CPK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CPK_ASAN 1
#endif
#endif

/* Writes 16 bytes past a 1000-byte buffer that Python allocated (on plain
 * malloc under PYTHONMALLOC=malloc, so ASan knows its bounds). */
#define OVERFLOW                                                             \
    "import ctypes\n"                                                        \
    "b = ctypes.create_string_buffer(1000)\n"                                \
    "ctypes.memmove(b, b'x' * 1100, 1016)\n"

static void
require_sanitize(void)
{
#ifndef CPK_ASAN
    cr_skip_test("not an ASan build (make sanitize)");
#else
    const char *pre = getenv("CPK_SAN_PRELOAD");
    cr_assert(pre != NULL && *pre != '\0',
              "an ASan build run without CPK_SAN_PRELOAD: run it with "
              "make sanitize");
    const char *alloc = getenv("PYTHONMALLOC");
    cr_assert(alloc != NULL && strcmp(alloc, "malloc_debug") == 0,
              "make sanitize sets PYTHONMALLOC=malloc_debug");
#endif
}

TestSuite(sanitize, .init = cpk_py_start, .fini = cpk_py_stop);

Test(sanitize, overflow_in_the_test_process_is_reported)
{
    require_sanitize();
    /* In a fork of this test process (the embedded interpreter and all),
     * its report in a file. */
    char dir[64], log[128];
    cpk_tmpdir(dir, sizeof(dir));
    snprintf(log, sizeof(log), "%s/report", dir);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || dup2(fd, 2) < 0)
            _exit(1);
        PyRun_SimpleString(OVERFLOW);
        _exit(0);
    }
    int status;
    cr_assert(waitpid(pid, &status, 0) == pid);
    char *report = cpk_read_file(log, NULL);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 86,
              "status %#x; stderr:\n%s", status, report ? report : "");
    cr_assert(strstr(report, "AddressSanitizer: heap-buffer-overflow"), "%s",
              report);
    free(report);
    unlink(log);
    rmdir(dir);
}

Test(sanitize, overflow_in_a_fresh_interpreter_is_reported)
{
    require_sanitize();
    cpk_proc p;
    /* The instrumented module first: it loads only when the runtime is. */
    cpk_python(&p, "import ccloudpickle\n"
                   "assert ccloudpickle.loads(ccloudpickle.dumps("
                   "lambda: 5))() == 5\n" OVERFLOW,
               NULL, 0);
    cpk_assert_exit(&p, 86);
    cr_assert(strstr(p.err, "AddressSanitizer: heap-buffer-overflow"), "%s",
              p.err);
    cpk_proc_free(&p);
}

Test(sanitize, programs_carry_both_runtimes)
{
    require_sanitize();
    cpk_py("import ccloudpickle as cp\n"
           "def runtimes():\n"
           "    maps = open('/proc/self/maps').read()\n"
           "    return ('libasan' in maps, 'libubsan' in maps)\n"
           "data = cp.dumps(runtimes)\n");
    size_t len;
    char *data = cpk_py_bytes("data", &len);
    const char *argv[] = {CPK_LOAD, "--call", "-", NULL};
    cpk_proc p;
    /* Without the LD_PRELOAD cpk_spawn adds: the program links them. */
    const char *unset[] = {"LD_PRELOAD", NULL};
    cpk_spawn_opts o = {.argv = argv, .cwd = "/", .in = data, .in_len = len,
                        .unset = unset};
    cpk_spawn_ex(&p, &o);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "(True, True)\n");
    cpk_proc_free(&p);
    free(data);
}
