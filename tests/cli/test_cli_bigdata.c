/* test_cli_bigdata.c - cloudpickle-load on pickles of data: a 120 MB
 * dict of ints with a list of memoised strings is described (text and
 * --json, a few lines whatever the number of values) and loaded at the
 * default settings; millions of ints inspect within a small
 * --max-scan-memory (the scan counts them, it does not keep them);
 * malformed bytes after or among millions of values are refused in every
 * mode with the line and exit status of any malformed pickle; the
 * loaded object's value row shows the head of a big container. The
 * pickles are made by CPK_PYTHON at run time, never kept. */
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

TestSuite(cli_bigdata, .init = setup, .timeout = 120);

static size_t
count_lines(const char *s)
{
    size_t n = 0;
    for (; *s != '\0'; s++)
        n += *s == '\n';
    return n;
}

/* Run cloudpickle-load with `args` (NULL-ended, at most 6) on `path`. */
static void
run(cpk_proc *p, const char *const *args, const char *path)
{
    const char *argv[10] = {CPK_LOAD};
    size_t k = 1;
    for (; args[k - 1] != NULL && k < 8; k++)
        argv[k] = args[k - 1];
    argv[k] = path;
    argv[k + 1] = NULL;
    cpk_spawn(p, argv, dir, NULL, 0, NULL);
}

/* 20 million ints in a dict, 2 million distinct memoised strings in a
 * list: a 120 MB pickle that pickle.load takes about a gigabyte for.
 * Some 20 s here; make sanitize (ASan, CPython's malloc_debug on every
 * one of the 22 million objects) takes minutes on a busy machine. */
Test(cli_bigdata, a_120_mb_data_pickle_describes_and_loads, .timeout = 600)
{
    unsigned long long avail = cpk_mem_available();
    if (avail < (4ULL << 30))
        cr_skip_test("needs 4 GiB of available memory, MemAvailable is "
                     "%llu MiB",
                     avail >> 20);
    char path[128];
    snprintf(path, sizeof(path), "%s/big.pkl", dir);
    cpk_python_to_file(
        path, "import pickle, sys\n"
              "n = 10_000_000\n"
              "d = {'ints': dict(zip(range(n), range(n))),\n"
              "     'strs': [str(i) for i in range(2_000_000)]}\n"
              "sys.stdout.buffer.write(pickle.dumps(d, 5))\n");
    size_t size = 0;
    free(cpk_read_file(path, &size));
    cr_assert(size > 100000000, "only %zu bytes", size);

    cpk_proc p;
    const char *text[] = {NULL};
    run(&p, text, path);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "");
    cr_assert(strstr(p.out, "\nresult     dict\n") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "\nimports    0\n") != NULL, "%s", p.out);
    cr_assert(count_lines(p.out) < 12, "%s", p.out);
    cpk_proc_free(&p);

    const char *json[] = {"--json", NULL};
    run(&p, json, path);
    cpk_assert_exit(&p, 0);
    cr_assert_eq(count_lines(p.out), 1, "%s", p.out);
    cr_assert(strstr(p.out, "\"status\": \"ok\"") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "\"max_depth\": 3") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "\"result\": \"dict\"") != NULL, "%s", p.out);
    cpk_proc_free(&p);

    const char *strict[] = {"--strict", "--load", NULL};
    run(&p, strict, path);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "");
    cr_assert(strstr(p.out, "value      {'ints': {0: 0, 1: 1, 2: 2, ") ==
                  p.out + strlen("object     instance of dict\n"),
              "%s", p.out);
    cpk_proc_free(&p);
}

/* Three million ints inspect within 16 MiB: counted, not kept. */
Test(cli_bigdata, millions_of_ints_are_counted_not_kept)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/ints.pkl", dir);
    cpk_python_to_file(path,
                       "import pickle, sys\n"
                       "d = [list(range(3_000_000)), {1.5: None}]\n"
                       "sys.stdout.buffer.write(pickle.dumps(d, 5))\n");
    cpk_proc p;
    const char *text[] = {"--max-scan-memory", "16M", NULL};
    run(&p, text, path);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "\nresult     list\n") != NULL, "%s", p.out);
    cr_assert(count_lines(p.out) < 12, "%s", p.out);
    cpk_proc_free(&p);
    const char *json[] = {"--json", "--max-scan-memory", "16M", NULL};
    run(&p, json, path);
    cpk_assert_exit(&p, 0);
    cr_assert_eq(count_lines(p.out), 1, "%s", p.out);
    cr_assert(strstr(p.out, "\"max_depth\": 3") != NULL, "%s", p.out);
    cpk_proc_free(&p);
}

/* The bench's 30 MB row, a dict of ints to ints and half a million
 * memoised strs: the strs are values, counted as the ints are, so the
 * model fits in 8 MiB (it took some 35 MiB when each str was a node). */
Test(cli_bigdata, memoised_strs_as_dict_values_are_counted_not_kept)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/strs.pkl", dir);
    cpk_python_to_file(path,
                       "import pickle, sys\n"
                       "d = {i: (str(i) if i % 11 < 2 else i)\n"
                       "     for i in range(2_750_000)}\n"
                       "sys.stdout.buffer.write(pickle.dumps(d, 5))\n");
    cpk_proc p;
    const char *text[] = {"--max-scan-memory", "8M", NULL};
    run(&p, text, path);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "");
    cr_assert(strstr(p.out, "\nresult     dict\n") != NULL, "%s", p.out);
    cr_assert(count_lines(p.out) < 12, "%s", p.out);
    cpk_proc_free(&p);
    const char *json[] = {"--json", "--max-scan-memory", "8M", NULL};
    run(&p, json, path);
    cpk_assert_exit(&p, 0);
    cr_assert_eq(count_lines(p.out), 1, "%s", p.out);
    cr_assert(strstr(p.out, "\"max_depth\": 2") != NULL, "%s", p.out);
    cpk_proc_free(&p);
    /* keys instead: kept, a node each, so 8 MiB is not enough */
    snprintf(path, sizeof(path), "%s/keys.pkl", dir);
    cpk_python_to_file(path,
                       "import pickle, sys\n"
                       "d = {str(i): i for i in range(500_000)}\n"
                       "sys.stdout.buffer.write(pickle.dumps(d, 5))\n");
    run(&p, text, path);
    cpk_assert_exit(&p, 3);
    cr_assert(strstr(p.err, "too large to inspect: needs more than 8 MiB")
                  != NULL, "%s", p.err);
    cpk_proc_free(&p);
}

/* A bad opcode, memo index, odd SETITEMS or unhashable key after a
 * million counted values: the same line and exit 3 in every mode. */
Test(cli_bigdata, malformed_among_counted_values_is_refused_everywhere)
{
    static const struct {
        const char *tail; /* Python bytes literal appended before STOP */
        const char *msg;  /* after "not a valid pickle: ", before " at" */
    } cases[] = {
        {"b'\\xff'", "invalid load key, '\\xff'"},
        {"b'h\\x07'", "Memo value not found at index 7"},
        {"b'}(K\\x01u'", "odd number of items for SETITEMS"},
        {"b'}(\\x96\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00K\\x01u'",
         "unhashable type: 'bytearray'"},
        {"b'K\\x01(K\\x02e'", "'int' object has no attribute 'append'"},
    };
    static const char *const modes[][4] = {
        {NULL},
        {"--json", NULL},
        {"--load", NULL},
        {"--call", NULL},
        {"--strict", "--load", NULL},
        {"--allow", "builtins.*", "--load", NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char path[128], code[512];
        snprintf(path, sizeof(path), "%s/bad%zu.pkl", dir, i);
        /* the list pickled, its STOP replaced by the tail and a STOP */
        snprintf(code, sizeof(code),
                 "import pickle, sys\n"
                 "d = pickle.dumps(list(range(1_000_000)), 5)[:-1]\n"
                 "t = %s\n"
                 "sys.stderr.write(str(len(d)))\n"
                 "sys.stdout.buffer.write(d + t + b'.')\n",
                 cases[i].tail);
        cpk_proc mk;
        cpk_python(&mk, code, NULL, 0);
        cpk_assert_exit(&mk, 0);
        FILE *f = fopen(path, "wb");
        cr_assert(f != NULL);
        cr_assert(fwrite(mk.out, 1, mk.out_len, f) == mk.out_len);
        cr_assert(fclose(f) == 0);
        size_t at = (size_t)strtoull(mk.err, NULL, 10);
        cpk_proc_free(&mk);
        /* the opcode that fails: the tail's first, or the last one */
        if (i == 2 || i == 3)
            at += i == 2 ? 4 : 13;
        else if (i == 4)
            at += 5;
        char expected[300];
        snprintf(expected, sizeof(expected),
                 "cloudpickle-load: %s: not a valid pickle: %s at byte "
                 "%zu\n",
                 path, cases[i].msg, at);
        for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
            cpk_proc p;
            run(&p, modes[m], path);
            cpk_assert_exit(&p, 3);
            cr_assert_str_eq(p.err, expected, "case %zu mode %zu", i, m);
            cr_assert_eq(p.out_len, 0);
            cpk_proc_free(&p);
        }
    }
}

/* --load's value row: the head of a big builtin container, "..." where
 * items were left out (repr() of the whole is never made). */
Test(cli_bigdata, the_value_row_shows_the_head_of_a_big_container)
{
    static const struct {
        const char *expr;
        const char *value;
    } cases[] = {
        {"[0] * 40", "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "
                     "0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ...]"},
        {"tuple([1] * 33)", "(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
                            "1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
                            "1, 1, ...)"},
        {"{i: None for i in range(33)}",
         "{0: None, 1: None, 2: None, 3: None, 4: None, 5: None, 6: None, "
         "7: None, 8: None, 9: None, 10: None, 11: None, 12: None, 13: "
         "None, 14: None, 15: None, 16: None, 17: None, 18: None, 19: None, "
         "20: No..."},
        {"frozenset(range(33))",
         "frozenset({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, "
         "16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, "
         "...})"},
        {"[0] * 32", "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "
                     "0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char path[128], code[256];
        snprintf(path, sizeof(path), "%s/v%zu.pkl", dir, i);
        snprintf(code, sizeof(code),
                 "import pickle, sys\n"
                 "sys.stdout.buffer.write(pickle.dumps(%s, 5))\n",
                 cases[i].expr);
        cpk_python_to_file(path, code);
        cpk_proc p;
        const char *load[] = {"--load", NULL};
        run(&p, load, path);
        cpk_assert_exit(&p, 0);
        char want[400];
        snprintf(want, sizeof(want), "\nvalue      %s\n", cases[i].value);
        cr_assert(strstr(p.out, want) != NULL, "case %zu: %s", i, p.out);
        cpk_proc_free(&p);
    }
}
