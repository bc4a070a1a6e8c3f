/* test_cov_args_json.c - --args-json input that is refused before
 * anything is loaded: over --max-size from a file (its size named) and
 * from a pipe (only the limit), missing, a directory. Status 3, one
 * line naming --args-json and the file, the function never called. */
#include <stdio.h>
#include <string.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    const char *argv[] = {CPK_DUMP, "-e",
                          "def f(*a):\n"
                          "    open('called', 'w').close()\n"
                          "    return len(a)\n"
                          "f",
                          "-o", "f.pkl", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    char path[128], big[2100] = "[";
    for (int i = 0; i < 1000; i++)
        strcat(big, "1,");
    strcat(big, "1]\n");
    snprintf(path, sizeof(path), "%s/big.json", dir);
    cpk_write_file(path, big);
}

TestSuite(cov_args_json, .init = setup);

static void
refused(const char *json, const char *in, const char *err)
{
    const char *argv[] = {CPK_LOAD,  "--call", "--max-size", "1K",
                          "--args-json", json, "f.pkl", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, in, in ? strlen(in) : 0, NULL);
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.err, err);
    cr_assert_eq(p.out_len, 0);
    char path[128];
    snprintf(path, sizeof(path), "%s/called", dir);
    cr_assert_null(cpk_read_file(path, NULL), "the function was called");
    cpk_proc_free(&p);
}

Test(cov_args_json, file_over_max_size)
{
    refused("big.json", NULL,
            "cloudpickle-load: --args-json big.json: 2.0 KiB, more than the "
            "1 KiB limit (raise it with --max-size)\n");
}

Test(cov_args_json, pipe_over_max_size)
{
    char big[2100] = "[";
    for (int i = 0; i < 1000; i++)
        strcat(big, "1,");
    strcat(big, "1]\n");
    refused("-", big,
            "cloudpickle-load: --args-json -: more than the 1 KiB limit "
            "(raise it with --max-size)\n");
}

Test(cov_args_json, missing_file)
{
    refused("nonex.json", NULL,
            "cloudpickle-load: --args-json nonex.json: No such file or "
            "directory\n");
}

Test(cov_args_json, directory)
{
    refused("/tmp", NULL,
            "cloudpickle-load: --args-json /tmp: Is a directory\n");
}

Test(cov_args_json, within_max_size_the_call_runs)
{
    const char *argv[] = {CPK_LOAD, "--call", "--max-size", "4K",
                          "--args-json", "big.json", "f.pkl", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "1001\n");
    cpk_proc_free(&p);
}
