/* test_pkcheck.c - the bounded check before a load (src/scan/pkcheck.h):
 * it accepts what picklers write at protocols 2 to 5, holding memory
 * bounded by the stack and the memo; it never accepts what the full scan
 * refuses, nor ends a pickle elsewhere (pkcheck_oracle.h), on every
 * pickle kept in the tests and mutants of them; the cases it leaves to
 * the full scan are ones the full scan refuses. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../fuzz/pkcheck_oracle.h"
#include "support.h"

TestSuite(pkcheck, .init = cpk_py_start, .fini = cpk_py_stop);

static pkcheck_status
check(const void *p, size_t len, int trailing, pkcheck_result *res)
{
    return pkcheck_run(p, len, 0, PKCHECK_ORACLE_DEPTH, trailing, res);
}

/* Left to the full scan (not accepted), which refuses it. */
static void
refused_both(const char *what, const void *p, size_t len)
{
    pkcheck_result res;
    size_t end = 0;
    cr_assert_neq(check(p, len, 0, &res), PKCHECK_OK, "%s: accepted", what);
    cr_assert(!pkcheck_oracle_accepts(p, len, 0, &end),
              "%s: the full scan accepts it", what);
}

#define REFUSED(what, lit) refused_both((what), (lit), sizeof(lit) - 1)

Test(pkcheck, accepts_what_picklers_write_at_protocols_2_to_5)
{
    size_t len;
    /* a list of pickles, each 8-byte little-endian length first */
    cpk_py_file("picklers.py");
    char *all = cpk_py_bytes("result", &len);
    size_t n = 0, at = 0;
    while (at + 8 <= len) {
        uint64_t k;
        memcpy(&k, all + at, 8);
        at += 8;
        cr_assert(k <= len - at);
        pkcheck_result res;
        cr_assert_eq(check(all + at, (size_t)k, 0, &res), PKCHECK_OK,
                     "pickle %zu (%llu bytes) left to the full scan at "
                     "byte %zu",
                     n, (unsigned long long)k, res.at);
        cr_assert_eq(res.end, (size_t)k);
        cr_assert(!pkcheck_oracle_breaks(all + at, (size_t)k), "pickle %zu",
                  n);
        at += (size_t)k;
        n++;
    }
    cr_assert_eq(at, len);
    cr_assert(n >= 60, "only %zu pickles", n);
    free(all);
}

/* xorshift: the same mutants on every run */
static uint64_t
next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

typedef struct {
    size_t files, accepted, mutants, mutants_accepted;
} tally;

/* The property on `p` and on mutants of it: every cut of a small one,
 * byte flips, insertions and deletions. */
static void
property(const char *path, const unsigned char *p, size_t len, tally *t)
{
    cr_assert(!pkcheck_oracle_breaks(p, len), "%s", path);
    pkcheck_result res;
    t->files++;
    t->accepted += check(p, len, 0, &res) == PKCHECK_OK;
    if (len > 0 && len <= 4096)
        for (size_t cut = 0; cut < len; cut++)
            cr_assert(!pkcheck_oracle_breaks(p, cut), "%s cut at %zu", path,
                      cut);
    unsigned char *m = malloc(len + 1);
    cr_assert_not_null(m);
    uint64_t seed = 0x9e3779b97f4a7c15ull ^ len;
    for (int i = 0; i < 200 && len > 0; i++) {
        memcpy(m, p, len);
        size_t mlen = len;
        size_t at = (size_t)(next_rand(&seed) % len);
        switch (next_rand(&seed) % 4) {
        case 0: /* a byte changed */
            m[at] = (unsigned char)next_rand(&seed);
            break;
        case 1: /* a bit flipped */
            m[at] ^= (unsigned char)(1u << (next_rand(&seed) % 8));
            break;
        case 2: /* a byte deleted */
            memmove(m + at, m + at + 1, len - at - 1);
            mlen--;
            break;
        default: /* a byte inserted */
            memmove(m + at + 1, m + at, len - at);
            m[at] = (unsigned char)next_rand(&seed);
            mlen++;
            break;
        }
        cr_assert(!pkcheck_oracle_breaks(m, mlen), "%s mutant %d", path, i);
        t->mutants++;
        t->mutants_accepted += check(m, mlen, 0, &res) == PKCHECK_OK;
    }
    free(m);
}

static void
walk(const char *dir, tally *t)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            walk(path, t);
            continue;
        }
        if (!S_ISREG(st.st_mode) || st.st_size > (16 << 20) ||
            strstr(e->d_name, ".py") || strstr(e->d_name, ".txt") ||
            strstr(e->d_name, ".json") || strstr(e->d_name, ".c"))
            continue;
        size_t len;
        unsigned char *p = (unsigned char *)cpk_read_file(path, &len);
        property(path, p, len, t);
        free(p);
    }
    closedir(d);
}

Test(pkcheck, never_accepts_what_the_full_scan_refuses, .timeout = 600)
{
    static const char *const dirs[] = {
        "tests/fuzz/corpus_loads", "tests/fuzz/corpus_pkscan",
        "tests/fuzz/corpus_envelope", "tests/fuzz/strict_cases",
        "tests/fuzz/regressions", "tests/fuzz/cpython_crashes",
        "tests/fixtures/formats", "tests/fixtures/pkcheck",
    };
    tally t = {0};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", CPK_SOURCE_DIR, dirs[i]);
        walk(path, &t);
    }
    /* not a check that accepts nothing: most kept pickles are accepted,
     * and some mutants */
    cr_log_info("%zu files, %zu accepted; %zu mutants, %zu accepted",
                t.files, t.accepted, t.mutants, t.mutants_accepted);
    cr_assert(t.files > 350, "%zu files", t.files);
    cr_assert(t.accepted * 2 > t.files, "%zu of %zu accepted", t.accepted,
              t.files);
    cr_assert(t.mutants_accepted > 0 && t.mutants_accepted < t.mutants,
              "%zu of %zu mutants accepted", t.mutants_accepted, t.mutants);
}

Test(pkcheck, leaves_to_the_full_scan_what_it_refuses)
{
    pkcheck_result res;
    cr_assert_eq(check("\x80\x04K\x01", 4, 0, &res), PKCHECK_MORE);
    cr_assert_eq(check("", 0, 0, &res), PKCHECK_MORE);
    REFUSED("truncated", "\x80\x04K\x01");
    REFUSED("an unknown opcode", "\x80\x04\xff.");
    REFUSED("a memo index never set", "\x80\x04h\x05.");
    REFUSED("a memo index past the input", "K\x01r\xff\xff\xff\x00.");
    REFUSED("data after STOP", "\x80\x04K\x01.K");
    REFUSED("a read across a frame's end",
            "\x80\x04\x95\x02\x00\x00\x00\x00\x00\x00\x00J\x01\x00"
            "\x00\x00.");
    REFUSED("a frame longer than the input",
            "\x80\x04\x95\x40\x00\x00\x00\x00\x00\x00\x00K\x01.");
    REFUSED("invalid UTF-8", "\x8c\x02\xff\xfe.");
    REFUSED("a GLOBAL name not UTF-8", "c\xff\nx\n.");
    REFUSED("APPENDS onto a dict", "}(K\x01" "e.");
    REFUSED("an odd SETITEMS", "}(K\x01u.");
    REFUSED("an unhashable key", "}]K\x01s.");
    REFUSED("a list in a frozenset", "(]\x91.");
    REFUSED("two items at STOP", "K\x01K\x02.");
    REFUSED("a MARK open at STOP", "(K\x01.");
    REFUSED("an empty stack at STOP", ".");
    REFUSED("BUILD on a list", "]}(K\x01K\x02ub.");
    REFUSED("NEWOBJ of an int", "K\x01)\x81.");
    REFUSED("STACK_GLOBAL of an int", "K\x01K\x02\x93.");
    REFUSED("protocol 6", "\x80\x06K\x01.");
    REFUSED("a negative LONG4 length", "\x8b\xff\xff\xff\xff.");
    REFUSED("a BINSTRING not ASCII", "U\x02\xc3\xa9.");
    REFUSED("a negative BINSTRING length", "T\xff\xff\xff\xff.");
    cr_assert_eq(check("U\x02" "ab.", 5, 0, &res), PKCHECK_OK);

    /* data after STOP is the next record's, with trailing_ok */
    cr_assert_eq(check("\x80\x04K\x01.K", 6, 1, &res), PKCHECK_OK);
    cr_assert_eq(res.end, 5);

    /* what the full scan accepts but this check does not answer for */
    cr_assert_eq(check("N2\x86.", 4, 0, &res), PKCHECK_MODEL); /* DUP */
    cr_assert_eq(check("I1\n.", 4, 0, &res), PKCHECK_MODEL);    /* INT */
    size_t end;
    cr_assert(pkcheck_oracle_accepts("N2\x86.", 4, 0, &end));
}

/* The marker of a newer format than ours, by STACK_GLOBAL: the full
 * scan's to refuse (with the loader's upgrade message). */
Test(pkcheck, leaves_a_newer_format_to_the_full_scan)
{
    char name[64];
    int n = cpk_format_marker(name, sizeof name, CPK_FORMAT_CURRENT + 1,
                              "9.9.9");
    cr_assert(n > 0 && n < 200);
    unsigned char p[300];
    size_t k = 0;
    p[k++] = 0x8c;
    p[k++] = 12;
    memcpy(p + k, "ccloudpickle", 12);
    k += 12;
    p[k++] = 0x8c;
    p[k++] = (unsigned char)n;
    memcpy(p + k, name, (size_t)n);
    k += (size_t)n;
    p[k++] = 0x93;
    p[k++] = '.';
    refused_both("a newer format", p, k);
    /* ours is accepted */
    n = cpk_format_marker(name, sizeof name, CPK_FORMAT_CURRENT, "0.6.0");
    p[15] = (unsigned char)n;
    memcpy(p + 16, name, (size_t)n);
    k = 16 + (size_t)n;
    p[k++] = 0x93;
    p[k++] = '.';
    pkcheck_result res;
    cr_assert_eq(check(p, k, 0, &res), PKCHECK_OK);
}

/* The marker reached by getattr of an import, of __import__ or
 * subimport, of STACK_GLOBAL with an empty name, through another
 * module's attribute, behind 400 long imports, or by the module's
 * __getattr__ (the breakers' pickles, tests/fixtures/pkcheck): left to
 * the full scan, which finds the newer format. */
Test(pkcheck, leaves_a_marker_looked_up_by_getattr_to_the_full_scan)
{
    static const char *const names[] = {
        "01_getattr_import_newer_format.pkl",
        "01b_stackglobal_getattr_newer_format.pkl",
        "01c_getattr_subimport_newer_format.pkl",
        "01d_getattr_stackglobal_empty_name_newer_format.pkl",
        "01e_side_effect_before_newer_marker.pkl",
        "engines_stack_global.pkl", "engines_global.pkl",
        "engines_getattr.pkl", "import_budget_truncation.pkl",
        "marker_via_dunder.pkl",
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/tests/fixtures/pkcheck/%s",
                 CPK_SOURCE_DIR, names[i]);
        size_t len;
        char *p = cpk_read_file(path, &len);
        refused_both(names[i], p, len);
        free(p);
    }
}

/* n EMPTY_LISTs, each appended into the one before it as soon as it
 * is made: a list nested n deep. */
static unsigned char *
nested(size_t n, size_t *len)
{
    unsigned char *p = malloc(2 * n + 2);
    cr_assert_not_null(p);
    size_t k = 0;
    p[k++] = ']';
    for (size_t i = 1; i < n; i++)
        p[k++] = ']';
    for (size_t i = 1; i < n; i++)
        p[k++] = 'a';
    p[k++] = '.';
    *len = k;
    return p;
}

/* n lists, each memoized, then linked top-down through the memo: the
 * list i is appended into list i - 1 while still empty, then filled by a
 * GET. The depth grows after each holder took its bound. */
static unsigned char *
linked_top_down(size_t n, size_t *len)
{
    unsigned char *p = malloc(16 * n + 16);
    cr_assert_not_null(p);
    size_t k = 0;
    p[k++] = ']';
    p[k++] = 'r';
    memset(p + k, 0, 4);
    k += 4;
    for (size_t i = 1; i < n; i++) {
        uint32_t prev = (uint32_t)(i - 1), cur = (uint32_t)i;
        p[k++] = 'j'; /* LONG_BINGET i - 1 */
        memcpy(p + k, &prev, 4);
        k += 4;
        p[k++] = ']';
        p[k++] = 'r'; /* LONG_BINPUT i */
        memcpy(p + k, &cur, 4);
        k += 4;
        p[k++] = 'a';
        p[k++] = '0'; /* POP */
    }
    p[k++] = '.';
    *len = k;
    return p;
}

Test(pkcheck, bounds_the_nesting_as_the_full_scan_measures_it)
{
    size_t len, end;
    pkcheck_result res;
    unsigned char *p = nested(PKCHECK_ORACLE_DEPTH, &len);
    cr_assert_eq(check(p, len, 0, &res), PKCHECK_OK);
    free(p);
    p = nested(PKCHECK_ORACLE_DEPTH + 1, &len);
    refused_both("nested one too deep", p, len);
    free(p);

    p = linked_top_down(100, &len);
    cr_assert_eq(check(p, len, 0, &res), PKCHECK_OK);
    cr_assert(pkcheck_oracle_accepts(p, len, 0, &end));
    free(p);
    p = linked_top_down(PKCHECK_ORACLE_DEPTH + 1, &len);
    refused_both("linked top-down one too deep", p, len);
    free(p);
}

/* A pickle of n small ints in a list, as pickle writes it at protocol 4
 * (APPENDS of 1000, no frames). */
static unsigned char *
int_list(size_t n, size_t *len)
{
    unsigned char *p = malloc(8 + n * 5 + n / 1000 * 2 + 8);
    cr_assert_not_null(p);
    size_t k = 0;
    p[k++] = 0x80;
    p[k++] = 4;
    p[k++] = ']';
    p[k++] = 0x94;
    for (size_t i = 0; i < n; i++) {
        if (i % 1000 == 0)
            p[k++] = '(';
        p[k++] = 'J';
        memcpy(p + k, &(int32_t){(int32_t)i}, 4);
        k += 4;
        if (i % 1000 == 999 || i + 1 == n)
            p[k++] = 'e';
    }
    p[k++] = '.';
    *len = k;
    return p;
}

Test(pkcheck, holds_the_stack_and_the_memo_never_the_values)
{
    size_t len;
    pkcheck_result res;
    unsigned char *p = int_list(2000000, &len);
    cr_assert_eq(check(p, len, 0, &res), PKCHECK_OK);
    /* a batch of 1000 on the stack, 16 bytes each, rounded up */
    cr_assert(res.peak <= 32 * 1024, "%zu bytes for 2M ints", res.peak);
    size_t small = res.peak;
    free(p);
    p = int_list(1000, &len);
    cr_assert_eq(check(p, len, 0, &res), PKCHECK_OK);
    cr_assert_eq(res.peak, small, "%zu then %zu", res.peak, small);
    /* under a cap it does not fit, the full scan decides */
    cr_assert_eq(pkcheck_run(p, len, 1024, PKCHECK_ORACLE_DEPTH, 0, &res),
                 PKCHECK_MODEL);
    free(p);
}
