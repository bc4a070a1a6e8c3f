/* test_cov_merge.c - cloudpickle-load --merge refusing its inputs or its
 * output: a directory among the files (status 3), standard input named
 * twice (usage, 2), a record number beyond 64 bits (not a line of
 * --with-index output, 3), a full standard output (5); each with one
 * line. */
#include <stdio.h>
#include <string.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    char path[128];
    snprintf(path, sizeof(path), "%s/m1", dir);
    cpk_write_file(path, "[1,\"a\"]\n[3,\"c\"]\n");
    snprintf(path, sizeof(path), "%s/m2", dir);
    cpk_write_file(path, "[2,\"b\"]\n");
    snprintf(path, sizeof(path), "%s/big", dir);
    cpk_write_file(path, "[99999999999999999999999,1]\n");
}

TestSuite(cov_merge, .init = setup);

static void
merge(const char *a, const char *b, int status, const char *err)
{
    const char *argv[] = {CPK_LOAD, "--merge", a, b, NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, status);
    cr_assert_str_eq(p.err, err);
    cr_assert_eq(p.out_len, 0, "stdout: %s", p.out);
    cpk_proc_free(&p);
}

Test(cov_merge, directory_among_the_files)
{
    merge("m1", "/tmp", 3, "cloudpickle-load: /tmp: Is a directory\n");
}

Test(cov_merge, standard_input_twice)
{
    merge("-", "-", 2, "cloudpickle-load: standard input given twice\n");
}

Test(cov_merge, record_number_beyond_64_bits)
{
    merge("big", NULL, 3, "cloudpickle-load: big: line 1: not a line of "
                          "--with-index output ([N,RESULT])\n");
}

Test(cov_merge, full_standard_output)
{
    const char *argv[] = {"/bin/sh", "-c",
                          CPK_LOAD " --merge m1 m2 >/dev/full", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 5);
    cr_assert_str_eq(p.err, "cloudpickle-load: standard output: No space "
                            "left on device\n");
    cpk_proc_free(&p);
}
