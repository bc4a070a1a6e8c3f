/* test_cli_map_shard.c - cloudpickle-load --map --shard I/N --with-index
 * and --merge: one input split over N runs (a job array), every record in
 * exactly one shard, and the shards' outputs merged back into the output
 * of the unsharded run, byte for byte; the usage errors of --shard and
 * --with-index, and what --merge refuses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static char dir[64];

/* f(x): x * 3, ValueError for x % 97 == 5 (error records under
 * --keep-going). */
static const char *const FUNC =
    "import ccloudpickle as cp\n"
    "def f(x):\n"
    "    if x % 97 == 5: raise ValueError('bad %d' % x)\n"
    "    return x * 3\n"
    "open('f.pkl', 'wb').write(cp.dumps(f))\n"
    "# 1..700, a blank line every 50 records, one at the end\n"
    "with open('in.jsonl', 'w') as out:\n"
    "    for i in range(1, 701):\n"
    "        out.write('%d\\n' % i)\n"
    "        if i % 50 == 0: out.write('\\n')\n"
    "    out.write('\\n')\n";

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

TestSuite(cli_map_shard, .init = setup, .timeout = 60);

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

static char *
file_text(const char *name, size_t *len)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    char *s = cpk_read_file(path, len);
    cr_assert(s != NULL, "%s", name);
    return s;
}

Test(cli_map_shard, shards_cover_every_record_once_and_merge_back)
{
    cpk_proc p;
    LOAD(&p, "f.pkl", "--map", "--keep-going", "--input", "in.jsonl",
         "--result-file", "all.jsonl");
    cpk_assert_exit(&p, 1);
    cpk_proc_free(&p);
    size_t all_len;
    char *all = file_text("all.jsonl", &all_len);
    static const int counts[] = {1, 3, 4};
    for (int c = 0; c < 3; c++) {
        int n = counts[c];
        /* the line numbers of the input, seen once each */
        static int seen[800];
        memset(seen, 0, sizeof(seen));
        const char *argv[16] = {CPK_LOAD, "--merge"};
        char names[4][32];
        for (int i = 0; i < n; i++) {
            char shard[16];
            snprintf(shard, sizeof(shard), "%d/%d", i, n);
            snprintf(names[i], sizeof(names[i]), "s%d-%d.jsonl", i, n);
            /* -j 2 for some shards, -j 1 for the others */
            LOAD(&p, "f.pkl", "--map", "--keep-going", "--input",
                 "in.jsonl", "--shard", shard, "--with-index", "-j",
                 i % 2 ? "2" : "1", "--result-file", names[i]);
            /* 1 where a record of the shard raised, else 0 */
            cr_assert(p.exited && (p.status == 0 || p.status == 1), "%s: %s",
                      shard, p.err);
            cpk_proc_free(&p);
            size_t len;
            char *text = file_text(names[i], &len);
            for (char *line = text; *line != '\0';) {
                unsigned long num;
                cr_assert(sscanf(line, "[%lu,", &num) == 1, "%s", line);
                cr_assert(num >= 1 && num < 800);
                cr_assert((num - 1) % (unsigned long)n == (unsigned long)i,
                          "record %lu in shard %s", num, shard);
                cr_assert(!seen[num], "record %lu twice", num);
                seen[num] = 1;
                char *nl = strchr(line, '\n');
                cr_assert(nl != NULL);
                line = nl + 1;
            }
            free(text);
            argv[2 + i] = names[i];
        }
        /* every non-blank line of the input (714 lines, 14 blank + 1) */
        int records = 0;
        for (int k = 1; k < 800; k++)
            records += seen[k];
        cr_assert_eq(records, 700, "%d shards: %d records", n, records);
        cr_assert(!seen[51] && !seen[715], "a blank line was a record");
        /* merged in any file order: the unsharded run, byte for byte */
        argv[2 + n] = NULL;
        if (n > 1) {
            const char *t = argv[2];
            argv[2] = argv[1 + n];
            argv[1 + n] = t;
        }
        cpk_spawn(&p, argv, dir, NULL, 0, NULL);
        cpk_assert_exit(&p, 0);
        cr_assert_eq(p.out_len, all_len, "%d shards", n);
        cr_assert(memcmp(p.out, all, all_len) == 0, "%d shards", n);
        cr_assert_str_eq(p.err, "");
        cpk_proc_free(&p);
    }
    free(all);
}

Test(cli_map_shard, with_index_numbers_results_and_error_records)
{
    cpk_proc p;
    const char *argv[] = {"/bin/sh", "-c",
                          "printf '1\\n\\n5\\n{x\\n' | \"$0\" f.pkl --map "
                          "--keep-going --with-index",
                          CPK_LOAD, NULL};
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 1);
    cr_assert(strncmp(p.out, "[1,3]\n[3,{\"error\":{\"type\":\"ValueError\"",
                      38) == 0,
              "%s", p.out);
    cr_assert(strstr(p.out, "\"record\":3}}]\n[4,{\"error\":{\"type\":"
                            "\"InvalidRecord\"") != NULL,
              "%s", p.out);
    cpk_proc_free(&p);
}

static void
assert_usage(cpk_proc *p, const char *line)
{
    cpk_assert_exit(p, 2);
    char expected[512];
    snprintf(expected, sizeof(expected),
             "cloudpickle-load: %s\n"
             "Try 'cloudpickle-load --help' for more information.\n",
             line);
    cr_assert_str_eq(p->err, expected);
}

Test(cli_map_shard, bad_shards_and_options_are_usage_errors)
{
    static const char *const bad[] = {"3/3", "-1/2", "a/b", "1/0",
                                      "1",   "1/2/3", "",   "99999999999999999999/2"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cpk_proc p;
        LOAD(&p, "f.pkl", "--map", "--input", "in.jsonl", "--shard", bad[i]);
        char line[256];
        snprintf(line, sizeof(line),
                 "invalid shard '%s' for --shard (I/N: shard I of N, 0 <= I "
                 "< N)",
                 bad[i]);
        assert_usage(&p, line);
        cpk_proc_free(&p);
    }
    cpk_proc p;
    LOAD(&p, "f.pkl", "--shard", "0/2");
    assert_usage(&p, "--shard is for --map");
    cpk_proc_free(&p);
    LOAD(&p, "f.pkl", "--with-index");
    assert_usage(&p, "--with-index is for --map");
    cpk_proc_free(&p);
    LOAD(&p, "f.pkl", "--map", "--input", "in.jsonl", "--with-index",
         "--result", "repr");
    assert_usage(&p, "--with-index is for --result json");
    cpk_proc_free(&p);
    LOAD(&p, "--merge");
    assert_usage(&p, "--merge needs the files to merge");
    cpk_proc_free(&p);
    LOAD(&p, "--merge", "--map", "a");
    assert_usage(&p, "--merge takes only the files of --with-index runs");
    cpk_proc_free(&p);
}

Test(cli_map_shard, merge_refuses_what_no_shards_wrote)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/a.jsonl", dir);
    cpk_write_file(path, "[1,10]\n[3,30]\n");
    snprintf(path, sizeof(path), "%s/b.jsonl", dir);
    cpk_write_file(path, "[2,20]\n[3,31]\n");
    snprintf(path, sizeof(path), "%s/plain.jsonl", dir);
    cpk_write_file(path, "10\n20\n");
    snprintf(path, sizeof(path), "%s/back.jsonl", dir);
    cpk_write_file(path, "[2,20]\n[1,10]\n");
    cpk_proc p;
    LOAD(&p, "--merge", "a.jsonl", "b.jsonl");
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.out, "10\n20\n30\n");
    cr_assert_str_eq(p.err, "cloudpickle-load: record 3 is in both a.jsonl "
                            "and b.jsonl\n");
    cpk_proc_free(&p);
    LOAD(&p, "--merge", "plain.jsonl");
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.err, "cloudpickle-load: plain.jsonl: line 1: not a "
                            "line of --with-index output ([N,RESULT])\n");
    cpk_proc_free(&p);
    LOAD(&p, "--merge", "back.jsonl");
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.err, "cloudpickle-load: back.jsonl: line 2: record 1 "
                            "after record 2 (not the output of one run)\n");
    cpk_proc_free(&p);
    LOAD(&p, "--merge", "missing.jsonl");
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.err, "cloudpickle-load: missing.jsonl: No such file "
                            "or directory\n");
    cpk_proc_free(&p);
}
