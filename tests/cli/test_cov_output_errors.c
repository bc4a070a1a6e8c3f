/* test_cov_output_errors.c - where the output cannot go: a full device
 * (/dev/full) written in place, a directory that takes no new file
 * (/proc), a full standard output; for cloudpickle-dump (streamed and in
 * memory), cloudpickle-load --call and --map (in this process and with
 * -j): exit status 5, one `prog: target: message` line, nothing left
 * behind. And an input that is a directory. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

static char dir[64];
static char inc[128];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    snprintf(inc, sizeof(inc), "%s/inc.pkl", dir);
    const char *argv[] = {CPK_DUMP, "-e", "lambda x: x + 1", "-o", inc, NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

TestSuite(cov_output_errors, .init = setup);

/* Run argv with "1\n2\n" on standard input; expect status 5, this one
 * stderr line and nothing on standard output. */
static void
expect_system_error(const char *const *argv, const char *err)
{
    cpk_proc p;
    cpk_spawn(&p, argv, dir, "1\n2\n", 4, NULL);
    cpk_assert_exit(&p, 5);
    cr_assert_str_eq(p.err, err);
    cr_assert_eq(p.out_len, 0, "stdout: %s", p.out);
    cpk_proc_free(&p);
}

/* The shell command `cmd` (run in dir, stdin "1\n2\n"): status 5 and
 * this stderr. */
static void
expect_shell_error(const char *cmd, const char *err)
{
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    expect_system_error(argv, err);
}

/* Nothing was made: the test directory holds inc.pkl alone, and
 * /proc/cov.pkl does not exist. */
static void
assert_only_inc(void)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL)
        cr_assert(strcmp(ent->d_name, ".") == 0 ||
                      strcmp(ent->d_name, "..") == 0 ||
                      strcmp(ent->d_name, "inc.pkl") == 0,
                  "left behind: %s", ent->d_name);
    closedir(d);
    struct stat sb;
    cr_assert_neq(stat("/proc/cov.pkl", &sb), 0);
}

Test(cov_output_errors, dump_streamed_into_a_full_device)
{
    const char *argv[] = {CPK_DUMP, "-o", "/dev/full", "-e", "b'x' * 10",
                          NULL};
    expect_system_error(argv,
                        "cloudpickle-dump: /dev/full: No space left on "
                        "device\n");
}

Test(cov_output_errors, dump_in_memory_into_a_full_device)
{
    /* --hash pickles into memory first, then writes it once. */
    const char *argv[] = {CPK_DUMP, "--hash", "-o", "/dev/full", "-e",
                          "b'x' * 10", NULL};
    expect_system_error(argv,
                        "cloudpickle-dump: /dev/full: No space left on "
                        "device\n");
}

Test(cov_output_errors, dump_where_no_file_can_be_created)
{
    const char *argv[] = {CPK_DUMP, "-o", "/proc/cov.pkl", "-e", "1", NULL};
    expect_system_error(argv, "cloudpickle-dump: /proc/cov.pkl: cannot "
                              "create a file next to it: No such file or "
                              "directory\n");
    assert_only_inc();
}

Test(cov_output_errors, dump_in_memory_where_no_file_can_be_created)
{
    const char *argv[] = {CPK_DUMP, "--report", "-o", "/proc/cov.pkl", "-e",
                          "1", NULL};
    expect_system_error(argv, "cloudpickle-dump: /proc/cov.pkl: cannot "
                              "create a file next to it: No such file or "
                              "directory\n");
    assert_only_inc();
}

Test(cov_output_errors, dump_to_a_full_standard_output)
{
    expect_shell_error(CPK_DUMP " --hash -e 1 >/dev/full",
                       "cloudpickle-dump: standard output: No space left "
                       "on device\n");
}

Test(cov_output_errors, call_result_file_on_a_full_device)
{
    const char *argv[] = {CPK_LOAD, "--call", inc, "--result-file",
                          "/dev/full", "--", "1", NULL};
    expect_system_error(argv, "cloudpickle-load: /dev/full: No space left "
                              "on device\n");
}

Test(cov_output_errors, call_result_file_where_none_can_be_created)
{
    const char *argv[] = {CPK_LOAD, "--call", inc, "--result-file",
                          "/proc/cov.pkl", "--", "1", NULL};
    expect_system_error(argv, "cloudpickle-load: /proc/cov.pkl: cannot "
                              "create a file next to it: No such file or "
                              "directory\n");
    assert_only_inc();
}

Test(cov_output_errors, call_result_to_a_full_standard_output)
{
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "%s --call %s -- 1 >/dev/full", CPK_LOAD, inc);
    expect_shell_error(cmd, "cloudpickle-load: standard output: OSError: "
                            "[Errno 28] No space left on device\n");
}

Test(cov_output_errors, map_result_file_on_a_full_device)
{
    const char *argv[] = {CPK_LOAD, "--map", "--result-file", "/dev/full",
                          inc, NULL};
    expect_system_error(argv, "cloudpickle-load: /dev/full: No space left "
                              "on device\n");
}

Test(cov_output_errors, map_result_file_where_none_can_be_created)
{
    const char *argv[] = {CPK_LOAD, "--map", "--result-file", "/proc/cov.pkl",
                          inc, NULL};
    expect_system_error(argv, "cloudpickle-load: /proc/cov.pkl: No such file "
                              "or directory\n");
    assert_only_inc();
}

Test(cov_output_errors, map_to_a_full_standard_output)
{
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "%s --map %s >/dev/full", CPK_LOAD, inc);
    expect_shell_error(cmd, "cloudpickle-load: standard output: No space "
                            "left on device\n");
}

Test(cov_output_errors, map_with_workers_to_a_full_standard_output)
{
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "%s --map -j 2 %s >/dev/full", CPK_LOAD, inc);
    expect_shell_error(cmd, "cloudpickle-load: standard output: No space "
                            "left on device\n");
}

Test(cov_output_errors, map_input_that_is_a_directory)
{
    const char *argv[] = {CPK_LOAD, "--map", "--input", "/tmp", inc, NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.err, "cloudpickle-load: /tmp: Is a directory\n");
    cr_assert_eq(p.out_len, 0);
    cpk_proc_free(&p);
}

Test(cov_output_errors, map_with_workers_input_that_is_a_directory)
{
    const char *argv[] = {CPK_LOAD, "--map", "-j", "2", "--input", "/tmp",
                          inc, NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.err, "cloudpickle-load: /tmp: Is a directory\n");
    cr_assert_eq(p.out_len, 0);
    cpk_proc_free(&p);
}
