/* test_closed_table.c - the closed table (src/scan/pkscan_table.c): its
 * rows are sorted and pkscan_table_find finds each and nothing else;
 * every row names something the scanner calls plain or a reconstructor;
 * and, under the build's CPython, every row behaves as it says and every
 * plain name is in the table or deliberately left out
 * (py/closed_table/check.py over the table as closed_table_json prints
 * it). */
#include <stdio.h>
#include <string.h>

#include "support.h"
#include "scan/pkscan_internal.h" /* pkscan_table_*, pkscan_categorize */

TestSuite(closed_table, .timeout = 120);

static int row_cmp(const pkscan_closed *a, const pkscan_closed *b)
{
    int c = strcmp(a->module, b->module);
    return c != 0 ? c : strcmp(a->name, b->name);
}

Test(closed_table, rows_are_sorted_and_found)
{
    size_t n;
    const pkscan_closed *r = pkscan_table_rows(&n);
    cr_assert_gt(n, 0);
    for (size_t i = 1; i < n; i++)
        cr_expect_lt(row_cmp(&r[i - 1], &r[i]), 0,
                     "row %zu (%s.%s) not after %s.%s", i, r[i].module,
                     r[i].name, r[i - 1].module, r[i - 1].name);
    for (size_t i = 0; i < n; i++)
        cr_expect_eq(pkscan_table_find(r[i].module, strlen(r[i].module),
                                       r[i].name, strlen(r[i].name)),
                     &r[i], "%s.%s not found", r[i].module, r[i].name);
}

Test(closed_table, find_compares_whole_names)
{
    /* counted strings: a prefix, an extension or another module is not
     * a row */
    static const char *const miss[][2] = {
        {"builtins", "dic"},      {"builtins", "dicts"},
        {"builtins", "memoryview"}, {"builtins", "getattr"},
        {"collection", "deque"},  {"collections", "ChainMap.x"},
        {"", ""},                 {"zzz", "zzz"},
        {"types", "MethodTyp"},   {"operator", "getitem"},
    };
    for (size_t i = 0; i < NELEM(miss); i++)
        cr_expect_null(pkscan_table_find(miss[i][0], strlen(miss[i][0]),
                                         miss[i][1], strlen(miss[i][1])),
                       "%s.%s found", miss[i][0], miss[i][1]);
    const char buf[] = "builtins.dict.fromkeys";
    const pkscan_closed *e = pkscan_table_find(buf, 8, buf + 9, 4);
    cr_assert_not_null(e);
    cr_expect_str_eq(e->name, "dict");
    e = pkscan_table_find(buf, 8, buf + 9, 13);
    cr_assert_not_null(e);
    cr_expect_str_eq(e->name, "dict.fromkeys");
}

/* A row vouches for a name only the scanner already accepts: plain data
 * or a reconstructor, never dangerous. */
Test(closed_table, rows_are_plain_names)
{
    size_t n;
    const pkscan_closed *r = pkscan_table_rows(&n);
    for (size_t i = 0; i < n; i++) {
        size_t ml = strlen(r[i].module), nl = strlen(r[i].name);
        pkscan_category c = pkscan_categorize(r[i].module, ml, r[i].name,
                                              nl);
        cr_expect(c == PKSCAN_CAT_PLAIN || c == PKSCAN_CAT_CCLOUDPICKLE ||
                      c == PKSCAN_CAT_CLOUDPICKLE,
                  "%s.%s is in the table but not plain (category %d)",
                  r[i].module, r[i].name, (int)c);
        cr_expect_null(pkscan_danger_reason(r[i].module, ml, r[i].name, nl,
                                            1),
                       "%s.%s is in the table but dangerous", r[i].module,
                       r[i].name);
        cr_expect(r[i].call != PKT_OPAQUE || r[i].newf != PKT_OPAQUE,
                  "%s.%s says nothing: leave it out", r[i].module,
                  r[i].name);
    }
}

Test(closed_table, behaves_as_listed)
{
    char dir[64], path[128];
    cpk_tmpdir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/table.json", dir);
    cpk_proc p;
    const char *mk[] = {CPK_BUILD_DIR "/tests/unit/closed_table_json", NULL};
    cpk_spawn(&p, mk, NULL, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_write_file(path, p.out);
    cpk_proc_free(&p);
    const char *argv[] = {
        CPK_PYTHON, CPK_SOURCE_DIR "/tests/unit/py/closed_table/check.py",
        path, CPK_SOURCE_DIR, "--module", NULL};
    const char *env[] = {"PYTHONPATH=" CPK_BUILD_DIR, NULL};
    cpk_spawn(&p, argv, dir, NULL, 0, env);
    cr_expect(p.exited && p.status == 0, "check.py: %s %d\n%s%s",
              p.exited ? "exit" : "signal", p.exited ? p.status : p.sig,
              p.out, p.err);
    cpk_proc_free(&p);
}
