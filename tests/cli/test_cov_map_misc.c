/* test_cov_map_misc.c - cloudpickle-load --map in this process (no -j):
 * a function that forks without exec (the copy leaves after its record,
 * with python3's status, and writes no result), a record over --max-size,
 * pickled records that are cut short or hold an unknown opcode (serial
 * and -j), each refusal naming its record. */
#include <stdio.h>
#include <string.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
}

TestSuite(cov_map_misc, .init = setup, .timeout = 60);

static void
dump(const char *expr)
{
    char path[160];
    snprintf(path, sizeof(path), "%s/f.pkl", dir);
    const char *argv[] = {CPK_DUMP, "-e", expr, "-o", path, NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

static void
map(cpk_proc *p, const char *in, size_t len, const char *a1, const char *a2,
    const char *a3)
{
    const char *argv[] = {CPK_LOAD, "--map", "f.pkl", a1, a2, a3, NULL};
    cpk_spawn(p, argv, dir, in, len, NULL);
}

Test(cov_map_misc, fork_in_the_function_writes_each_result_once)
{
    dump("import os\n"
         "def f(x):\n"
         "    pid = os.fork()\n"
         "    if pid:\n"
         "        os.waitpid(pid, 0)\n"
         "    return [x, pid == 0]\n"
         "f");
    cpk_proc p;
    map(&p, "1\n2\n3\n", 6, NULL, NULL, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "[1,false]\n[2,false]\n[3,false]\n");
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
}

Test(cov_map_misc, forked_copy_that_raises_leaves_with_status_1)
{
    dump("import os\n"
         "def f(x):\n"
         "    if x == 2:\n"
         "        pid = os.fork()\n"
         "        if pid:\n"
         "            _, st = os.waitpid(pid, 0)\n"
         "            return ['parent', os.waitstatus_to_exitcode(st)]\n"
         "        raise ValueError('in child')\n"
         "    return x\n"
         "f");
    cpk_proc p;
    map(&p, "1\n2\n3\n", 6, NULL, NULL, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "1\n[\"parent\",1]\n3\n");
    cr_assert(strstr(p.err, "ValueError: in child\n") != NULL, "%s", p.err);
    cpk_proc_free(&p);
}

Test(cov_map_misc, record_over_max_size)
{
    dump("lambda x: x + 1");
    char in[3100];
    memset(in, '9', sizeof(in));
    memcpy(in, "1\n", 2);
    memcpy(in + sizeof(in) - 3, "\n2\n", 3);
    cpk_proc p;
    map(&p, in, sizeof(in), "--max-size", "1K", NULL);
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.out, "2\n");
    cr_assert_str_eq(p.err, "cloudpickle-load: standard input: record 2: "
                            "longer than 1 KiB (raise it with --max-size)\n");
    cpk_proc_free(&p);
}

/* pickle.dumps(1, protocol=2), then `bad` */
static void
bad_pickle_record(const char *bad, size_t bad_len, const char *jobs,
                  const char *err)
{
    dump("lambda x: x + 1");
    char in[64];
    memcpy(in, "\x80\x02K\x01.", 5);
    memcpy(in + 5, bad, bad_len);
    cpk_proc p;
    map(&p, in, 5 + bad_len, "--in", "pickle", jobs);
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.out, "2\n");
    cr_assert_str_eq(p.err, err);
    cpk_proc_free(&p);
}

Test(cov_map_misc, pickled_record_cut_short)
{
    bad_pickle_record("\x80\x05\x95\xff\xff\xff\x00\x00\x00\x00\x00", 11, NULL,
                      "cloudpickle-load: standard input: record 2: not a "
                      "valid pickle: FRAME length 16777215 exceeds the 0 "
                      "bytes left (pickle data was truncated) at byte 2\n");
}

Test(cov_map_misc, pickled_record_with_an_unknown_opcode)
{
    bad_pickle_record("\x80\x05K\x01\xff.", 6, NULL,
                      "cloudpickle-load: standard input: record 2: not a "
                      "valid pickle: invalid load key, '\\xff' at byte 4\n");
}

Test(cov_map_misc, pickled_record_with_an_unknown_opcode_under_j)
{
    bad_pickle_record("\x80\x05K\x01\xff.", 6, "-j2",
                      "cloudpickle-load: standard input: record 2: not a "
                      "valid pickle: invalid load key, '\\xff' at byte 4\n");
}
