/* test_cli_map_review.c - cloudpickle-load --map and --merge at their
 * edges: a function that forks, whose copy returns, raises or exits (the
 * copy leaves with the status python3 would give it, at -j 1 and -j 2),
 * and --merge on lines no --with-index run writes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static char dir[64];

/* Functions whose record 2 forks; the parent returns what its copy's
 * exit status was, as waitpid saw it. */
static const char *const FUNC =
    "import ccloudpickle as cp, os, sys\n"
    "def run(child):\n"
    "    def f(x):\n"
    "        if x == 2:\n"
    "            pid = os.fork()\n"
    "            if pid == 0:\n"
    "                return child()\n"
    "            _, st = os.waitpid(pid, 0)\n"
    "            return ['copy', os.waitstatus_to_exitcode(st)]\n"
    "        return x\n"
    "    return f\n"
    "def returns(): return 'copy'\n"
    "def raises(): raise ValueError('in the copy')\n"
    "def exits7(): sys.exit(7)\n"
    "def exits_none(): sys.exit(None)\n"
    "def exits_text(): sys.exit('bye from the copy')\n"
    "for name in ['returns', 'raises', 'exits7', 'exits_none',\n"
    "             'exits_text']:\n"
    "    open(name + '.pkl', 'wb').write(cp.dumps(run(globals()[name])))\n"
    "open('in.jsonl', 'w').write('1\\n2\\n3\\n')\n";

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    char code[2048];
    snprintf(code, sizeof(code), "import os\nos.chdir('%s')\n%s", dir, FUNC);
    cpk_proc p;
    cpk_python(&p, code, NULL, 0);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

TestSuite(cli_map_review, .init = setup, .timeout = 60);

/* cloudpickle-load ARGS... in dir. */
static void
load(cpk_proc *p, const char *const *args)
{
    const char *argv[32] = {CPK_LOAD};
    int i = 1;
    for (; args[i - 1] != NULL; i++)
        argv[i] = args[i - 1];
    argv[i] = NULL;
    cpk_spawn(p, argv, dir, NULL, 0, NULL);
}

#define LOAD(p, ...) load((p), (const char *[]){__VA_ARGS__, NULL})

/* The run of FUNC `name`.pkl at -j `jobs`: exit 0, and record 2's line
 * is the copy's status. */
static void
fork_case(const char *name, const char *jobs, int copy_status,
          const char *err_has)
{
    char pkl[64], want[64];
    snprintf(pkl, sizeof(pkl), "%s.pkl", name);
    snprintf(want, sizeof(want), "1\n[\"copy\",%d]\n3\n", copy_status);
    cpk_proc p;
    LOAD(&p, pkl, "--map", "--input", "in.jsonl", "-j", jobs);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, want, "%s -j %s: %s", name, jobs, p.err);
    if (err_has != NULL)
        cr_assert(strstr(p.err, err_has) != NULL, "%s -j %s: %s", name,
                  jobs, p.err);
    else
        cr_assert_str_eq(p.err, "", "%s -j %s", name, jobs);
    cpk_proc_free(&p);
}

Test(cli_map_review, a_copy_that_returns_leaves_with_0)
{
    fork_case("returns", "1", 0, NULL);
    fork_case("returns", "2", 0, NULL);
}

Test(cli_map_review, a_copy_that_raises_leaves_with_1_and_its_traceback)
{
    fork_case("raises", "1", 1, "ValueError: in the copy");
    fork_case("raises", "2", 1, "ValueError: in the copy");
}

Test(cli_map_review, a_copy_that_exits_leaves_with_its_code)
{
    fork_case("exits7", "1", 7, NULL);
    fork_case("exits7", "2", 7, NULL);
    fork_case("exits_none", "1", 0, NULL);
    fork_case("exits_none", "2", 0, NULL);
    fork_case("exits_text", "1", 1, "bye from the copy\n");
    fork_case("exits_text", "2", 1, "bye from the copy\n");
}

/* --merge of one file holding `text`: exit 3 and the line named. */
static void
merge_refuses(const char *text, size_t len, const char *message)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/shard.jsonl", dir);
    FILE *f = fopen(path, "wb");
    cr_assert(f != NULL);
    cr_assert_eq(fwrite(text, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
    cpk_proc p;
    LOAD(&p, "--merge", "shard.jsonl");
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.err, message);
    cpk_proc_free(&p);
}

Test(cli_map_review, merge_refuses_an_empty_result)
{
    /* --with-index never writes one: the unsharded run has no empty
     * line to match */
    merge_refuses("[1,]\n", 5,
                  "cloudpickle-load: shard.jsonl: line 1: not a line of "
                  "--with-index output ([N,RESULT])\n");
}

Test(cli_map_review, merge_refuses_a_nul_byte)
{
    /* JSON text holds no NUL: a binary or corrupt file */
    merge_refuses("[1,\"a\"]\n[2,\"a\0b\"]\n", 17,
                  "cloudpickle-load: shard.jsonl: line 2: not a line of "
                  "--with-index output ([N,RESULT])\n");
}

Test(cli_map_review, merge_refuses_the_options_of_map)
{
    /* --result-file ignored would leave the file unwritten (or stale)
     * after exit 0, the merged output gone to standard output */
    static const char *const opts[][3] = {
        {"--result-file", "merged.jsonl", "--result-file"},
        {"--shard", "0/2", "--shard"},
        {"--keep-going", NULL, "--keep-going"},
        {"--with-index", NULL, "--with-index"},
        {"-j", "2", "-j"},
        {"--input", "in.jsonl", "--input"},
    };
    char path[128];
    snprintf(path, sizeof(path), "%s/shard.jsonl", dir);
    FILE *f = fopen(path, "wb");
    cr_assert(f != NULL);
    fputs("[1,\"a\"]\n", f);
    cr_assert_eq(fclose(f), 0);
    for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
        cpk_proc p;
        if (opts[i][1] != NULL)
            LOAD(&p, "--merge", opts[i][0], opts[i][1], "shard.jsonl");
        else
            LOAD(&p, "--merge", opts[i][0], "shard.jsonl");
        cpk_assert_exit(&p, 2);
        char want[256];
        snprintf(want, sizeof(want),
                 "cloudpickle-load: %s cannot be combined with --merge%s\n"
                 "Try 'cloudpickle-load --help' for more information.\n",
                 opts[i][2],
                 i == 0 ? " (it writes on standard output)" : "");
        cr_assert_str_eq(p.err, want);
        cr_assert_str_eq(p.out, "");
        cpk_proc_free(&p);
    }
    snprintf(path, sizeof(path), "%s/merged.jsonl", dir);
    cr_assert(fopen(path, "r") == NULL, "merged.jsonl was written");
}
