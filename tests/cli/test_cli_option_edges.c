/* test_cli_option_edges.c - option and exit-status edges: --max-size
 * suffixes as the help and the error name them, a --by-value that took
 * the MODULE:ATTR argument, and SystemExit codes past a C long. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    char path[256];
    snprintf(path, sizeof(path), "%s/mod.py", dir);
    cpk_write_file(path, "import sys\n"
                         "def big():\n"
                         "    raise SystemExit(2**100)\n"
                         "def small():\n"
                         "    raise SystemExit(2**40 + 3)\n"
                         "def negative():\n"
                         "    raise SystemExit(-2**100)\n");
}

TestSuite(cli_option_edges, .init = setup);

Test(cli_option_edges, max_size_help_and_error_name_every_suffix)
{
    const char *help[] = {CPK_LOAD, "--help", NULL};
    cpk_proc p;
    cpk_spawn(&p, help, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "K, M, G, T suffixes") != NULL, "%s", p.out);
    cpk_proc_free(&p);
    const char *bad[] = {CPK_LOAD, "--max-size", "5Q", "-", NULL};
    cpk_spawn(&p, bad, dir, "N.", 2, NULL);
    cpk_assert_exit(&p, 2);
    cr_assert(strncmp(p.err, "cloudpickle-load: invalid size '5Q' for "
                             "--max-size (bytes, or with a K, M, G or T "
                             "suffix)\n",
                      strlen("cloudpickle-load: invalid size '5Q' for "
                             "--max-size (bytes, or with a K, M, G or T "
                             "suffix)\n")) == 0,
              "%s", p.err);
    cpk_proc_free(&p);
    /* The documented forms: either case, B or iB after the suffix. */
    const char *forms[] = {"1T", "64k", "64K", "64KB", "64KiB", "1m", NULL};
    for (int i = 0; forms[i] != NULL; i++) {
        const char *ok[] = {CPK_LOAD, "--max-size", forms[i], "-", NULL};
        cpk_spawn(&p, ok, dir, "N.", 2, NULL);
        cpk_assert_exit(&p, 0);
        cpk_proc_free(&p);
    }
}

Test(cli_option_edges, by_value_that_took_the_spec_is_a_usage_error)
{
    const char *argv[] = {CPK_DUMP, "--by-value", "mod:big", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 2);
    cr_assert(strncmp(p.err, "cloudpickle-dump: --by-value takes a MODULE "
                             "name, not 'mod:big'",
                      strlen("cloudpickle-dump: --by-value takes a MODULE "
                             "name, not 'mod:big'")) == 0,
              "%s", p.err);
    cpk_proc_free(&p);
    /* A module name still works. */
    const char *ok[] = {CPK_DUMP, "--by-value", "mod", "mod:big", NULL};
    cpk_spawn(&p, ok, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

/* As python3 exits: the code as a C long, truncated to int; past a long,
 * 255. */
static void
exits_with(const char *spec, int status)
{
    const char *dargv[] = {CPK_DUMP, spec, NULL};
    cpk_proc d;
    cpk_spawn(&d, dargv, dir, NULL, 0, NULL);
    cpk_assert_exit(&d, 0);
    const char *argv[] = {CPK_LOAD, "--call", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, "/", d.out, d.out_len, NULL);
    cpk_assert_exit(&p, status);
    cpk_proc_free(&p);
    cpk_proc_free(&d);
}

Test(cli_option_edges, system_exit_codes_as_python3_has_them)
{
    exits_with("mod:big", 255);
    exits_with("mod:negative", 255);
    exits_with("mod:small", 3);
}
