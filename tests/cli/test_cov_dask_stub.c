/* test_cov_dask_stub.c - cloudpickle-load --map --dask against a
 * stand-in for its companion module (tests/dask_stub/_ccloudpickle_dask.py,
 * first on PYTHONPATH; no cluster, no network): what the program says
 * when the companion cannot be imported, its Runner cannot start or
 * refuses, gives no window, fails a submit, answers "not done yet",
 * returns what is no (seconds, outcomes) pair, too few outcomes, or
 * malformed ones, or raises in next(); records refused as they are read
 * (over --max-size, a bad pickle) and records that arrive slowly; and an
 * exception raised by the function, traceback and all, stops the run or
 * becomes an error record. */
#include <stdio.h>
#include <string.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    const char *argv[] = {CPK_DUMP, "-e",
                          "def f(x):\n"
                          "    if x == 3: raise ValueError('three')\n"
                          "    return x + 1\n"
                          "f",
                          "-o", "f.pkl", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

TestSuite(cov_dask_stub, .init = setup);

static void
run_args(cpk_proc *p, const char *mode, const char *in, const char *a1,
         const char *a2, const char *a3)
{
    char env_mode[64];
    snprintf(env_mode, sizeof(env_mode), "CPK_STUB_MODE=%s", mode);
    const char *env[] = {"PYTHONPATH=" CPK_SOURCE_DIR "/tests/dask_stub:"
                         CPK_BUILD_DIR,
                         env_mode, NULL};
    const char *argv[] = {CPK_LOAD, "--map", "--dask", "stub:1", "f.pkl",
                          a1, a2, a3, NULL};
    cpk_spawn(p, argv, dir, in, strlen(in), env);
}

static void
run(cpk_proc *p, const char *mode, const char *in, int keep_going)
{
    char env_mode[64];
    snprintf(env_mode, sizeof(env_mode), "CPK_STUB_MODE=%s", mode);
    const char *env[] = {"PYTHONPATH=" CPK_SOURCE_DIR "/tests/dask_stub:"
                         CPK_BUILD_DIR,
                         env_mode, NULL};
    const char *argv[] = {CPK_LOAD, "--map", "--dask", "stub:1", "f.pkl",
                          keep_going ? "--keep-going" : NULL, NULL};
    cpk_spawn(p, argv, dir, in, strlen(in), env);
}

static void
refused(const char *mode, int status, const char *err)
{
    cpk_proc p;
    run(&p, mode, "1\n2\n", 0);
    cpk_assert_exit(&p, status);
    cr_assert_str_eq(p.err, err);
    cr_assert_eq(p.out_len, 0, "stdout: %s", p.out);
    cpk_proc_free(&p);
}

Test(cov_dask_stub, companion_that_cannot_be_imported)
{
    refused("import", 4,
            "cloudpickle-load: --dask: cannot import _ccloudpickle_dask "
            "(installed beside ccloudpickle): ImportError: no dask "
            "companion here\n");
}

Test(cov_dask_stub, runner_that_raises)
{
    refused("open", 5,
            "cloudpickle-load: --dask: RuntimeError: cannot reach stub:1\n");
}

Test(cov_dask_stub, runner_that_refuses)
{
    refused("refuse", 4, "cloudpickle-load: --dask: no workers at stub:1\n");
}

Test(cov_dask_stub, runner_with_no_window)
{
    refused("window", 5, "cloudpickle-load: SystemError: dask: no window\n");
}

Test(cov_dask_stub, submit_that_raises)
{
    refused("submit", 5, "cloudpickle-load: RuntimeError: submit failed\n");
}

Test(cov_dask_stub, outcomes_that_are_no_pair)
{
    refused("garbage", 5,
            "cloudpickle-load: SystemError: new style getargs format but "
            "argument is not a tuple\n");
}

/* A broken batch fails its record, as the function raising would. */
static void
bad_outcomes(const char *mode, const char *what)
{
    cpk_proc p;
    run(&p, mode, "1\n2\n", 0);
    cpk_assert_exit(&p, 1);
    char want[256];
    snprintf(want, sizeof(want),
             "SystemError: dask: %s\n"
             "cloudpickle-load: standard input: record 1: SystemError: "
             "dask: %s\n",
             what, what);
    cr_assert_str_eq(p.err, want);
    cr_assert_eq(p.out_len, 0);
    cpk_proc_free(&p);
}

Test(cov_dask_stub, fewer_outcomes_than_records)
{
    bad_outcomes("short", "fewer outcomes than records");
}

Test(cov_dask_stub, malformed_outcome)
{
    bad_outcomes("malformed", "malformed outcome");
}

Test(cov_dask_stub, failure_that_is_no_exception)
{
    bad_outcomes("notexc", "malformed failure");
}

static const char *const TB_END = "  File \"<cloudpickle-dump -e>\", line 2, "
                                  "in f\nValueError: three\n";

Test(cov_dask_stub, not_done_yet_then_a_raise_stops_the_run)
{
    cpk_proc p;
    run(&p, "slow", "1\n2\n3\n4\n", 0);
    cpk_assert_exit(&p, 1);
    cr_assert_str_eq(p.out, "2\n3\n");
    const char *last = "cloudpickle-load: standard input: record 3: "
                       "ValueError: three\n";
    char want[512];
    snprintf(want, sizeof(want), "%s%s", TB_END, last);
    size_t n = strlen(p.err), m = strlen(want);
    cr_assert(strncmp(p.err, "Traceback (most recent call last):\n", 35) ==
                      0 &&
                  n >= m && strcmp(p.err + n - m, want) == 0,
              "stderr:\n%s", p.err);
    cpk_proc_free(&p);
}

Test(cov_dask_stub, raise_under_keep_going_is_an_error_record)
{
    cpk_proc p;
    run(&p, "slow", "1\n2\n3\n4\n", 1);
    cpk_assert_exit(&p, 1);
    cr_assert_str_eq(p.err, "cloudpickle-load: standard input: record 3: "
                            "ValueError: three\n");
    cr_assert(strncmp(p.out, "2\n3\n{\"error\":{\"type\":\"ValueError\","
                             "\"message\":\"three\",\"traceback\":\"Traceback "
                             "(most recent call last):\\n",
                      79) == 0,
              "stdout:\n%s", p.out);
    const char *tail = "ValueError: three\\n\",\"record\":3}}\n5\n";
    size_t n = strlen(p.out), m = strlen(tail);
    cr_assert(n >= m && strcmp(p.out + n - m, tail) == 0, "stdout:\n%s",
              p.out);
    cpk_proc_free(&p);
}

Test(cov_dask_stub, next_that_raises)
{
    refused("nextraise", 5, "cloudpickle-load: RuntimeError: next failed\n");
}

Test(cov_dask_stub, record_over_max_size)
{
    char in[3100];
    memset(in, '9', sizeof(in) - 1);
    memcpy(in, "1\n", 2);
    memcpy(in + sizeof(in) - 4, "\n2\n", 4);
    cpk_proc p;
    run_args(&p, "", in, "--max-size", "1K", NULL);
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.out, "2\n");
    cr_assert_str_eq(p.err, "cloudpickle-load: standard input: record 2: "
                            "longer than 1 KiB (raise it with --max-size)\n");
    cpk_proc_free(&p);
}

Test(cov_dask_stub, pickled_record_with_an_unknown_opcode)
{
    /* pickle.dumps(1, protocol=2), then a bad one (no NUL inside) */
    const char in[] = "\x80\x02K\x01.\x80\x05K\x01\xff.";
    cpk_proc p;
    run_args(&p, "", in, "--in", "pickle", NULL);
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.out, "2\n");
    cr_assert_str_eq(p.err, "cloudpickle-load: standard input: record 2: "
                            "not a valid pickle: invalid load key, '\\xff' "
                            "at byte 4\n");
    cpk_proc_free(&p);
}

Test(cov_dask_stub, records_that_arrive_slowly)
{
    const char *env[] = {"PYTHONPATH=" CPK_SOURCE_DIR "/tests/dask_stub:"
                         CPK_BUILD_DIR,
                         "CPK_STUB_MODE=slow", NULL};
    const char *argv[] = {"/bin/sh", "-c",
                          "(echo 1; sleep 0.3; echo 2; sleep 0.3; echo 4) | "
                          CPK_LOAD " --map --dask stub:1 f.pkl",
                          NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, env);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "2\n3\n5\n");
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
}

/* An input that fails to read ends the run with the reason and status 3,
 * as -j N and the serial loop do, never as a clean end of input. */
Test(cov_dask_stub, input_read_error_is_reported)
{
    cpk_proc p;
    run_args(&p, "", "", "--input", ".", NULL);
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.err, "cloudpickle-load: .: Is a directory\n");
    cr_assert_eq(p.out_len, 0, "stdout: %s", p.out);
    cpk_proc_free(&p);
}
