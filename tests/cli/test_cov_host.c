/* test_cov_host.c - the embedding host (cli/common/host.c) as users meet it:
 * -P naming a file is a usage error before Python starts; PYTHONMALLOC
 * (malloc, malloc_debug) is honoured and the pickle is the same; an
 * exception whose message holds a lone surrogate is one line with the
 * surrogate escaped, and one whose str() raises is named by its type. */
#include <stdio.h>
#include <string.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    char path[128];
    snprintf(path, sizeof(path), "%s/afile", dir);
    cpk_write_file(path, "");
}

TestSuite(cov_host, .init = setup);

Test(cov_host, path_that_is_a_file)
{
    const char *argv[] = {CPK_DUMP, "-P", "afile", "-e", "1", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 2);
    cr_assert_str_eq(p.err, "cloudpickle-dump: -P afile: not a directory\n"
                            "Try 'cloudpickle-dump --help' for more "
                            "information.\n");
    cr_assert_eq(p.out_len, 0);
    cpk_proc_free(&p);
}

static void
same_pickle_with(const char *allocator)
{
    const char *argv[] = {CPK_DUMP, "-e", "lambda: [5, 'five']", NULL};
    cpk_proc plain, other;
    cpk_spawn(&plain, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&plain, 0);
    char env0[64];
    snprintf(env0, sizeof(env0), "PYTHONMALLOC=%s", allocator);
    const char *env[] = {env0, NULL};
    cpk_spawn(&other, argv, dir, NULL, 0, env);
    cpk_assert_exit(&other, 0);
    cr_assert_str_eq(other.err, "");
    cr_assert(other.out_len == plain.out_len &&
                  memcmp(other.out, plain.out, plain.out_len) == 0,
              "the pickles differ under PYTHONMALLOC=%s", allocator);
    const char *load[] = {CPK_LOAD, "--call", "-", NULL};
    cpk_proc p;
    cpk_spawn(&p, load, dir, other.out, other.out_len, env);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "[5, 'five']\n");
    cpk_proc_free(&p);
    cpk_proc_free(&other);
    cpk_proc_free(&plain);
}

Test(cov_host, pythonmalloc_malloc)
{
    same_pickle_with("malloc");
}

Test(cov_host, pythonmalloc_malloc_debug)
{
    same_pickle_with("malloc_debug");
}

/* The last line of stderr (the summary after the traceback). */
static const char *
last_line(const char *err)
{
    size_t n = strlen(err);
    cr_assert(n > 0 && err[n - 1] == '\n', "stderr: %s", err);
    const char *p = err + n - 1;
    while (p > err && p[-1] != '\n')
        p--;
    return p;
}

Test(cov_host, lone_surrogate_in_a_message)
{
    const char *argv[] = {CPK_DUMP, "-e",
                          "def r(): raise ValueError('a\\ud800b')\nr()",
                          NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 4);
    cr_assert_str_eq(last_line(p.err),
                     "cloudpickle-dump: -e: ValueError: a\\ud800b\n");
    cr_assert_eq(p.out_len, 0);
    cpk_proc_free(&p);
}

Test(cov_host, exception_whose_str_raises)
{
    const char *argv[] = {CPK_DUMP, "-e",
                          "class E(Exception):\n"
                          "    def __str__(self): raise RuntimeError('no')\n"
                          "def r(): raise E()\n"
                          "r()",
                          NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 4);
    /* CPython's stand-in for the message: 3.9 and 3.10 print
     * "<unprintable E object>" */
    cr_assert(strstr(p.err, "\nE: <exception str() failed>\n") != NULL ||
                  strstr(p.err, "\nE: <unprintable E object>\n") != NULL,
              "%s", p.err);
    cr_assert_str_eq(last_line(p.err), "cloudpickle-dump: -e: E\n");
    cpk_proc_free(&p);
}
