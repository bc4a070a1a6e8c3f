/* test_cov_usage.c - command lines the programs refuse, each with its
 * exit status and its exact standard error: option values out of range,
 * options --merge or -e cannot take, a spec that is no MODULE:ATTR, an
 * -o whose directory is a file; and a module whose import raises (named
 * with the file and line when the code has a file). Nothing is written
 * on standard output. A key file that is a device is refused before
 * anything runs. */
#include <stdio.h>
#include <string.h>

#include "support.h"
#include <criterion/parameterized.h>

#define TRY_LOAD "Try 'cloudpickle-load --help' for more information.\n"
#define TRY_DUMP "Try 'cloudpickle-dump --help' for more information.\n"

struct refusal {
    int dump;           /* 1: cloudpickle-dump, 0: cloudpickle-load */
    char args[6][48];   /* "" ends them */
    int status;
    char err[320];
};

static struct refusal refusals[] = {
    {0, {"--map", "--dask=", "f.pkl"}, 2,
     "cloudpickle-load: --dask needs an address (tcp://HOST:PORT, or "
     "local[:N])\n" TRY_LOAD},
    {0, {"--map", "--dask", "local:2", "--window", "0", "f.pkl"}, 2,
     "cloudpickle-load: invalid window '0' for --window (1 to 100000)\n"
     TRY_LOAD},
    {0, {"--map", "--dask", "local:2", "--window", "x", "f.pkl"}, 2,
     "cloudpickle-load: invalid window 'x' for --window (1 to 100000)\n"
     TRY_LOAD},
    {0, {"--map", "-j", "300", "f.pkl"}, 2,
     "cloudpickle-load: invalid number of jobs '300' for -j (0 to 256; 0: "
     "one per processor)\n" TRY_LOAD},
    {0, {"--map", "--in", "xml", "f.pkl"}, 2,
     "cloudpickle-load: invalid format 'xml' for --in (json or pickle)\n"
     TRY_LOAD},
    {0, {"--merge", "-j", "2", "a"}, 2,
     "cloudpickle-load: -j cannot be combined with --merge\n" TRY_LOAD},
    {0, {"--merge", "--dask", "local", "a"}, 2,
     "cloudpickle-load: --dask cannot be combined with --merge\n" TRY_LOAD},
    {0, {"--merge", "--with-index", "a"}, 2,
     "cloudpickle-load: --with-index cannot be combined with --merge\n"
     TRY_LOAD},
    {0, {"--merge", "--shard", "1/2", "a"}, 2,
     "cloudpickle-load: --shard cannot be combined with --merge\n" TRY_LOAD},
    {0, {"--merge", "--keep-going", "a"}, 2,
     "cloudpickle-load: --keep-going cannot be combined with --merge\n"
     TRY_LOAD},
    {0, {"--merge", "--input", "x", "a"}, 2,
     "cloudpickle-load: --input cannot be combined with --merge\n" TRY_LOAD},
    {0, {"--merge", "--error-json", "a"}, 2,
     "cloudpickle-load: --error-json cannot be combined with --merge\n"
     TRY_LOAD},
    {0, {"--merge", "--result", "repr", "a"}, 2,
     "cloudpickle-load: --result cannot be combined with --merge\n"
     TRY_LOAD},
    {0, {"--merge"}, 2,
     "cloudpickle-load: --merge needs the files to merge\n" TRY_LOAD},
    {0, {"--max-size", "1KQ", "f.pkl"}, 2,
     "cloudpickle-load: invalid size '1KQ' for --max-size (bytes, or with a "
     "K, M, G or T suffix)\n" TRY_LOAD},
    {0, {"--max-size", "99999999999T", "f.pkl"}, 2,
     "cloudpickle-load: invalid size '99999999999T' for --max-size (bytes, "
     "or with a K, M, G or T suffix)\n" TRY_LOAD},
    {0, {"--verify", "/dev/null", "f.pkl"}, 2,
     "cloudpickle-load: /dev/null: not a regular file\n"},
    {1, {"--sign", "/dev/null", "-e", "1"}, 2,
     "cloudpickle-dump: /dev/null: not a regular file\n"},
    {0, {"--max-scan-memory", "x", "f.pkl"}, 2,
     "cloudpickle-load: invalid size 'x' for --max-scan-memory (bytes, or "
     "with a K, M, G or T suffix)\n" TRY_LOAD},
    {0, {"--json", "--map", "f.pkl"}, 2,
     "cloudpickle-load: --json is for the static report; it cannot be "
     "combined with --map\n" TRY_LOAD},
    {1, {"-e", "1", "mod:f"}, 2,
     "cloudpickle-dump: give -e EXPR or MODULE:ATTR, not both ('mod:f')\n"
     TRY_DUMP},
    {1, {"--by-ref", "-e", "1"}, 2,
     "cloudpickle-dump: --by-ref needs MODULE:ATTR (what -e defines is in "
     "__main__, always by value)\n" TRY_DUMP},
    {1, {"-o", "afile/x", "-e", "1"}, 5,
     "cloudpickle-dump: afile/x: cannot create a file next to it: Not a "
     "directory\n"},
    {1, {"kraise:f:g"}, 2,
     "cloudpickle-dump: 'kraise:f:g' is not MODULE:ATTR\n" TRY_DUMP},
    {1, {"1mod:f"}, 2,
     "cloudpickle-dump: '1mod:f' is not MODULE:ATTR (dotted Python names)\n"
     TRY_DUMP},
    {1, {"-p", "9", "-e", "1"}, 2,
     "cloudpickle-dump: invalid protocol '9' (0 to 5)\n" TRY_DUMP},
    {1, {"--format", "9", "-e", "1"}, 2,
     "cloudpickle-dump: invalid --format '9' (accepted: 1 to 5)\n" TRY_DUMP},
    {1, {"--compat", "cloudpickle3", "--format", "3", "-e", "1"}, 2,
     "cloudpickle-dump: --format cannot be combined with --compat "
     "(--compat writes stock cloudpickle's format)\n" TRY_DUMP},
    {1, {"--portable", "--compat", "cloudpickle3", "-e", "1"}, 2,
     "cloudpickle-dump: --portable cannot be combined with --compat (stock "
     "cloudpickle cannot load the sources it ships)\n" TRY_DUMP},
    {1, {"kraise:f"}, 4,
     "cloudpickle-dump: kraise:f: cannot import kraise: KeyError: 'k' "
     "(@DIR@/kraise.py, line 2)\n"},
    {1, {"genraise:f"}, 4,
     "cloudpickle-dump: genraise:f: cannot import genraise: ValueError: 1\n"},
    {1, {"os:path.nope"}, 4,
     "cloudpickle-dump: os:path.nope: AttributeError: module 'posixpath' "
     "has no attribute 'nope'\n"},
};

ParameterizedTestParameters(cov_usage, refused)
{
    return cr_make_param_array(struct refusal, refusals,
                               sizeof(refusals) / sizeof(refusals[0]));
}

ParameterizedTest(struct refusal *r, cov_usage, refused)
{
    char dir[64];
    cpk_tmpdir(dir, sizeof(dir));
    char path[128];
    snprintf(path, sizeof(path), "%s/afile", dir);
    cpk_write_file(path, "");
    snprintf(path, sizeof(path), "%s/kraise.py", dir);
    cpk_write_file(path, "x = 1\nraise KeyError('k')\n");
    /* code without a file: no place is named */
    snprintf(path, sizeof(path), "%s/genraise.py", dir);
    cpk_write_file(path, "exec(compile('raise ValueError(1)', '<gen>', "
                         "'exec'))\n");
    const char *argv[8] = {r->dump ? CPK_DUMP : CPK_LOAD};
    int n = 1;
    for (int i = 0; i < 6 && r->args[i][0] != '\0'; i++)
        argv[n++] = r->args[i];
    argv[n] = NULL;
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, r->status);
    /* @DIR@ is the test's directory */
    char want[512];
    const char *at = strstr(r->err, "@DIR@");
    if (at != NULL)
        snprintf(want, sizeof(want), "%.*s%s%s", (int)(at - r->err), r->err,
                 dir, at + 5);
    else
        snprintf(want, sizeof(want), "%s", r->err);
    cr_assert_str_eq(p.err, want);
    cr_assert_eq(p.out_len, 0, "stdout: %s", p.out);
    cpk_proc_free(&p);
}

/* -j 0: one worker per processor this process may use; the results are
 * those of -j 1, in order. */
Test(cov_usage, jobs_0_is_one_per_processor)
{
    char dir[64];
    cpk_tmpdir(dir, sizeof(dir));
    const char *d[] = {CPK_DUMP, "-e", "lambda x: x * 3", "-o", "f.pkl", NULL};
    cpk_proc p;
    cpk_spawn(&p, d, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    const char *argv[] = {CPK_LOAD, "--map", "-j", "0", "--in", "json",
                          "f.pkl", NULL};
    cpk_spawn(&p, argv, dir, "1\n2\n3\n", 6, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "3\n6\n9\n");
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
}
