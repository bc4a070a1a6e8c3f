/* test_cov_report_misc.c - odd corners of what the programs print: -e
 * code that raises where a traceback.py in the current directory shadows
 * the standard library's (the C printer's traceback instead, then the
 * one-line summary); --load of a function whose source file is not on
 * this machine, and of a builtin class. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
}

TestSuite(cov_report_misc, .init = setup);

Test(cov_report_misc, shadowed_traceback_module)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/traceback.py", dir);
    cpk_write_file(path, "def print_exception(*a, **k):\n"
                         "    raise RuntimeError('shadowed')\n");
    const char *argv[] = {CPK_DUMP, "-e",
                          "def r(): raise ValueError('v')\nr()", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 4);
    cr_assert_str_eq(p.err, "Traceback (most recent call last):\n"
                            "  File \"<cloudpickle-dump -e>\", line 2, in "
                            "<module>\n"
                            "  File \"<cloudpickle-dump -e>\", line 1, in r\n"
                            "ValueError: v\n"
                            "cloudpickle-dump: -e: ValueError: v\n");
    cr_assert_eq(p.out_len, 0);
    cpk_proc_free(&p);
}

/* --load's report of the value of `expr`. */
static char *
load_report(const char *expr)
{
    const char *d[] = {CPK_DUMP, "-e", expr, "-o", "v.pkl", NULL};
    cpk_proc p;
    cpk_spawn(&p, d, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    const char *l[] = {CPK_LOAD, "--load", "v.pkl", NULL};
    cpk_spawn(&p, l, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    char *out = p.out;
    p.out = NULL;
    cpk_proc_free(&p);
    return out;
}

Test(cov_report_misc, source_not_on_this_machine)
{
    char *out = load_report(
        "ns = {}\n"
        "exec(compile('def f(x):\\n    return x\\n', '/nonexistent/cpk/f.py', "
        "'exec'), ns)\n"
        "ns['f']");
    cr_assert(strstr(out, "\nsource     /nonexistent/cpk/f.py, line 1 (not "
                          "on this machine)\n") != NULL,
              "%s", out);
    free(out);
}

Test(cov_report_misc, builtin_class)
{
    char *out = load_report("int");
    cr_assert(strncmp(out, "object     class int\nmodule     builtins\n"
                           "bases      object\n",
                      58) == 0,
              "%s", out);
    free(out);
}
