/* test_cov_records.c - --map records as they arrive: a record bigger than
 * the reader's first buffer (it grows and the record is whole), JSON and
 * pickled; a last line with no newline over --max-size; a pickled record
 * over --max-size, whole in the buffer or still arriving. Each refusal
 * names its record; the results before it are written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    const char *argv[] = {CPK_DUMP, "-e", "lambda s: len(s)", "-o", "len.pkl",
                          NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

TestSuite(cov_records, .init = setup, .timeout = 60);

static void
map(cpk_proc *p, const char *in, size_t len, const char *a1, const char *a2,
    const char *a3, const char *a4)
{
    const char *argv[] = {CPK_LOAD, "--map", "len.pkl", a1, a2, a3, a4, NULL};
    cpk_spawn(p, argv, dir, in, len, NULL);
}

/* pickle.dumps('a' * n, protocol=2): BINUNICODE */
static char *
pickled_str(size_t n, size_t *len)
{
    char *s = malloc(n + 16);
    cr_assert_not_null(s);
    memcpy(s, "\x80\x02X", 3);
    s[3] = (char)(n & 0xff);
    s[4] = (char)((n >> 8) & 0xff);
    s[5] = (char)((n >> 16) & 0xff);
    s[6] = (char)((n >> 24) & 0xff);
    memset(s + 7, 'a', n);
    s[7 + n] = '.';
    *len = n + 8;
    return s;
}

Test(cov_records, json_record_bigger_than_the_first_buffer)
{
    size_t n = 300000;
    char *in = malloc(n + 16);
    cr_assert_not_null(in);
    memcpy(in, "\"xy\"\n\"", 6);
    memset(in + 6, 'a', n);
    memcpy(in + 6 + n, "\"\n\"abc\"\n", 8);
    cpk_proc p;
    map(&p, in, n + 14, NULL, NULL, NULL, NULL);
    free(in);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "2\n300000\n3\n");
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
}

Test(cov_records, pickled_record_bigger_than_the_first_buffer)
{
    size_t a, b;
    char *one = pickled_str(3, &a);
    char *big = pickled_str(300000, &b);
    char *in = malloc(a + b + a);
    memcpy(in, one, a);
    memcpy(in + a, big, b);
    memcpy(in + a + b, one, a);
    cpk_proc p;
    map(&p, in, a + b + a, "--in", "pickle", NULL, NULL);
    free(in);
    free(one);
    free(big);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "3\n300000\n3\n");
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
}

Test(cov_records, last_line_without_newline_over_max_size)
{
    char in[3000];
    memcpy(in, "\"ab\"\n\"", 6);
    memset(in + 6, 'z', sizeof(in) - 6);
    cpk_proc p;
    map(&p, in, sizeof(in), "--max-size", "1K", NULL, NULL);
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.out, "2\n");
    cr_assert_str_eq(p.err, "cloudpickle-load: standard input: record 2: "
                            "longer than 1 KiB (raise it with --max-size)\n");
    cpk_proc_free(&p);
}

static void
pickled_over_max_size(size_t n)
{
    size_t a, b;
    char *one = pickled_str(2, &a);
    char *big = pickled_str(n, &b);
    char *in = malloc(a + b);
    memcpy(in, one, a);
    memcpy(in + a, big, b);
    cpk_proc p;
    map(&p, in, a + b, "--in", "pickle", "--max-size", "64K");
    free(in);
    free(one);
    free(big);
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.out, "2\n");
    cr_assert_str_eq(p.err, "cloudpickle-load: standard input: record 2: "
                            "longer than 64 KiB (raise it with --max-size)\n");
    cpk_proc_free(&p);
}

Test(cov_records, pickled_record_over_max_size_whole_in_the_buffer)
{
    pickled_over_max_size(80000);
}

Test(cov_records, pickled_record_over_max_size_still_arriving)
{
    pickled_over_max_size(1000000);
}
