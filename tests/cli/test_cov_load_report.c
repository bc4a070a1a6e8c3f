/* test_cov_load_report.c - the value row of cloudpickle-load --load for
 * big values (a str, bytes and bytearray longer than the repr bound: the
 * head only, cut to 200 characters with "..."; a frozenset of more than
 * 32 items: the first 32 and ", ..."), text of 3- and 4-byte UTF-8 with
 * a bidirectional override escaped, and an object whose repr raises. */
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

TestSuite(cov_load_report, .init = setup);

/* The --load report of the value of `expr`: its "value" row. */
static char *
value_row(const char *expr)
{
    const char *d[] = {CPK_DUMP, "-e", expr, "-o", "v.pkl", NULL};
    cpk_proc p;
    cpk_spawn(&p, d, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    const char *l[] = {CPK_LOAD, "--load", "v.pkl", NULL};
    cpk_spawn(&p, l, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    const char *v = strstr(p.out, "\nvalue      ");
    cr_assert_not_null(v, "%s", p.out);
    v += 12;
    size_t n = strcspn(v, "\n");
    char *row = strndup(v, n);
    cpk_proc_free(&p);
    return row;
}

/* `open` + `fill` repeated to 197 characters in all, then "..." */
static void
assert_cut(const char *row, const char *open, char fill)
{
    char want[256];
    size_t k = strlen(open);
    memcpy(want, open, k);
    memset(want + k, fill, 197 - k);
    memcpy(want + 197, "...", 4);
    cr_assert_str_eq(row, want);
}

Test(cov_load_report, big_str_is_cut)
{
    char *row = value_row("'x' * 5000");
    assert_cut(row, "'", 'x');
    free(row);
}

Test(cov_load_report, big_bytes_are_cut)
{
    char *row = value_row("b'y' * 5000");
    assert_cut(row, "b'", 'y');
    free(row);
}

Test(cov_load_report, big_bytearray_is_cut)
{
    char *row = value_row("bytearray(b'z' * 5000)");
    assert_cut(row, "bytearray(b'", 'z');
    free(row);
}

Test(cov_load_report, big_frozenset_shows_its_head)
{
    char *row = value_row("frozenset(range(100))");
    char want[256] = "frozenset({";
    for (int i = 0; i < 32; i++)
        sprintf(want + strlen(want), "%d, ", i);
    strcat(want, "...})");
    cr_assert_str_eq(row, want);
    free(row);
}

Test(cov_load_report, wide_characters_and_an_override)
{
    char *row = value_row("'\\u65e5\\u672c \\U0001F600 \\u202e'");
    cr_assert_str_eq(row, "'\xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80 "
                          "\\u202e'");
    free(row);
}

Test(cov_load_report, repr_that_raises_is_unprintable)
{
    char *row = value_row("class R:\n"
                          "    def __repr__(self): raise ValueError('x')\n"
                          "R()");
    cr_assert_str_eq(row, "<unprintable R>");
    free(row);
}
