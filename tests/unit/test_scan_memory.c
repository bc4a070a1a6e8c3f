/* test_scan_memory.c - the memory the static scan holds
 * (pkscan_scan_limited, src/scan/pkscan.h): a pickle of one-byte opcodes needs
 * tens of bytes of model per input byte, so a cap stops the scan with
 * PKSCAN_ERR_LIMIT instead of running out of memory (checked under an
 * address-space limit it would otherwise blow); cloudpickle-load's
 * --max-scan-memory refuses such input with exit 3 and says how to raise
 * it, and accepts it with a larger cap. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "scan/pkscan.h"
#include "support.h"

TestSuite(scan_memory);

/* PROTO 4, MARK, n EMPTY_LISTs (with MEMOIZE after each if `memo`),
 * LIST, STOP: a valid pickle of a list of n empty lists. */
static char *
list_bomb(size_t n, int memo, size_t *len)
{
    size_t k = memo ? 2 : 1;
    char *p = malloc(n * k + 5);
    cr_assert(p != NULL);
    size_t at = 0;
    p[at++] = '\x80';
    p[at++] = 4;
    p[at++] = '(';
    for (size_t i = 0; i < n; i++) {
        p[at++] = ']';
        if (memo)
            p[at++] = '\x94';
    }
    p[at++] = 'l';
    p[at++] = '.';
    *len = at;
    return p;
}

Test(scan_memory, a_cap_stops_the_scan_with_its_own_status)
{
    size_t len;
    char *p = list_bomb(1000000, 0, &len);
    pkscan_report *r = pkscan_scan_limited(p, len, 0, (size_t)8 << 20);
    cr_assert(r != NULL);
    cr_assert_eq(r->status, PKSCAN_ERR_LIMIT, "%s",
                 pkscan_status_name(r->status));
    cr_assert_str_eq(r->error, "needs more than 8 MiB of memory to inspect");
    cr_assert(r->error_offset > 2 && r->error_offset < len, "at %zu",
              r->error_offset);
    cr_assert_eq(r->error_opcode, ']');
    cr_assert_str_eq(pkscan_status_name(r->status), "memory-limit");
    cr_assert(r->result_kind == NULL);
    pkscan_free(r);

    /* the same pickle under a cap it fits, and without a cap */
    size_t caps[] = {(size_t)256 << 20, 0};
    for (size_t i = 0; i < 2; i++) {
        r = pkscan_scan_limited(p, len, 0, caps[i]);
        cr_assert(r != NULL);
        cr_assert_eq(r->status, PKSCAN_OK, "cap %zu: %s", caps[i],
                     r->error ? r->error : "");
        cr_assert_str_eq(r->result_kind, "list");
        cr_assert_eq(r->n_opcodes, 1000004);
        pkscan_free(r);
    }
    free(p);

    /* memo entries are charged too */
    p = list_bomb(1000000, 1, &len);
    r = pkscan_scan_limited(p, len, 0, (size_t)16 << 20);
    cr_assert_eq(r->status, PKSCAN_ERR_LIMIT);
    pkscan_free(r);
    r = pkscan_scan_limited(p, len, 0, (size_t)256 << 20);
    cr_assert_eq(r->status, PKSCAN_OK, "%s", r->error ? r->error : "");
    pkscan_free(r);
    free(p);
}

/* A cap below what even a tiny scan needs is reported, in bytes. */
/* PROTO 4, EMPTY_DICT, then n pairs BININT i: BININT1 (an int:int dict
 * in batches of 1000), one pair 'k': [] (kept) and one 0: None, STOP;
 * with `set` EMPTY_SET and ADDITEMS of BININTs instead. */
static char *
scalar_bulk(size_t n, int set, size_t *len)
{
    char *p = malloc(n * 7 + n / 1000 * 2 + 64);
    cr_assert(p != NULL);
    size_t at = 0;
    p[at++] = '\x80';
    p[at++] = 4;
    p[at++] = set ? '\x8f' : '}';
    for (size_t i = 0; i < n; i++) {
        if (i % 1000 == 0)
            p[at++] = '(';
        uint32_t v = (uint32_t)i;
        p[at++] = 'J';
        memcpy(p + at, &v, 4);
        at += 4;
        if (!set) {
            p[at++] = 'K';
            p[at++] = (char)(i & 0x7f);
        }
        if (i % 1000 == 999 || i + 1 == n)
            p[at++] = set ? '\x90' : 'u';
    }
    if (!set) {
        memcpy(p + at, "\x8c\x01k]sK\x00Ns", 9);
        at += 9;
    }
    p[at++] = '.';
    *len = at;
    return p;
}

/* Plain scalars in a plain dict or set are counted, not kept: two
 * million values inspect in a few MiB, with the same facts. */
Test(scan_memory, scalars_in_plain_containers_cost_nothing_each)
{
    for (int set = 0; set < 2; set++) {
        size_t len;
        char *p = scalar_bulk(2000000, set, &len);
        pkscan_report *r = pkscan_scan_limited(p, len, 0, (size_t)4 << 20);
        cr_assert(r != NULL);
        cr_assert_eq(r->status, PKSCAN_OK, "%s: %s", set ? "set" : "dict",
                     r->error ? r->error : "");
        cr_assert_str_eq(r->result_kind, set ? "set" : "dict");
        /* the list value nests: dict > list; else set > int */
        cr_assert_eq(r->max_depth, 2, "%zu", r->max_depth);
        cr_assert_eq(r->stop_stack, 1);
        cr_assert_eq(r->n_imports, 0);
        pkscan_free(r);
        free(p);
    }
}

/* What the counted items still decide: a slot state that holds only
 * counted pairs is not empty (CPython: read-only attribute); an unhashable
 * key is refused; a bytearray key too; a list appended to an int. */
Test(scan_memory, counted_items_keep_their_refusals)
{
    static const struct {
        const char *data;
        size_t len;
        pkscan_status st;
        const char *msg;
    } cases[] = {
#define B(lit) lit, sizeof(lit) - 1
        {B("\x80\x04K\x01N}(K\x01K\x02u\x86" "b."), PKSCAN_ERR_TYPE,
         "'int' object attribute is read-only"},
        {B("\x80\x04}(]K\x01u."), PKSCAN_ERR_TYPE,
         "unhashable type: 'list'"},
        {B("\x80\x04}(\x96\x01\x00\x00\x00\x00\x00\x00\x00" "xK\x01u."),
         PKSCAN_ERR_TYPE, "unhashable type: 'bytearray'"},
        {B("\x80\x04K\x01(K\x02" "e."), PKSCAN_ERR_TYPE,
         "'int' object has no attribute 'append'"},
        {B("\x80\x04(K\x01K\x02" "d(K\x03K\x04" "d\x86."), PKSCAN_OK, NULL},
#undef B
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        pkscan_report *r = pkscan_scan(cases[i].data, cases[i].len, 0);
        cr_assert(r != NULL);
        cr_assert_eq(r->status, cases[i].st, "case %zu: %s", i,
                     r->error ? r->error : "ok");
        if (cases[i].msg)
            cr_assert_str_eq(r->error, cases[i].msg, "case %zu", i);
        else
            cr_assert_eq(r->max_depth, 3, "case %zu: %zu", i, r->max_depth);
        pkscan_free(r);
    }
}

Test(scan_memory, a_tiny_cap)
{
    static const char p[] = "\x80\x04K\x01.";
    pkscan_report *r = pkscan_scan_limited(p, sizeof p - 1, 0, 100);
    cr_assert(r != NULL);
    cr_assert_eq(r->status, PKSCAN_ERR_LIMIT);
    cr_assert_str_eq(r->error,
                     "needs more than 100 bytes of memory to inspect");
    pkscan_free(r);
    r = pkscan_scan_limited(p, sizeof p - 1, 0, (size_t)1 << 20);
    cr_assert_eq(r->status, PKSCAN_OK);
    cr_assert_str_eq(r->result_kind, "int");
    pkscan_free(r);
}

/* Current virtual size of this process in bytes. */
static size_t
vm_size(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    cr_assert(f != NULL);
    unsigned long pages = 0;
    cr_assert(fscanf(f, "%lu", &pages) == 1);
    fclose(f);
    return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

/* The point of the cap: with 400 MB of address space left, a 48 MB bomb
 * (which needs 2 GB or more to scan whole) fails for want of memory
 * without a cap, and with a 128 MiB cap is refused by the cap, every
 * time, never by malloc. Each Criterion test runs in its own process, so
 * the limit stays here. */
Test(scan_memory, the_cap_holds_before_memory_runs_out)
{
    size_t len;
    char *p = list_bomb((size_t)48 << 20, 0, &len);
    struct rlimit rl;
    size_t room = vm_size() + ((size_t)400 << 20);
    rl.rlim_cur = rl.rlim_max = room;
    cr_assert(setrlimit(RLIMIT_AS, &rl) == 0);
    pkscan_report *r = pkscan_scan(p, len, 0);
    cr_assert(r != NULL);
    cr_assert_eq(r->status, PKSCAN_ERR_NOMEM,
                 "without a cap: %s (the bomb fits: make it bigger)",
                 pkscan_status_name(r->status));
    pkscan_free(r);
    for (int i = 0; i < 3; i++) {
        r = pkscan_scan_limited(p, len, 0, (size_t)128 << 20);
        cr_assert(r != NULL);
        cr_assert_eq(r->status, PKSCAN_ERR_LIMIT, "%s: %s",
                     pkscan_status_name(r->status), r->error);
        pkscan_free(r);
    }
    free(p);
}

/* --- cloudpickle-load --max-scan-memory ------------------------------- */

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
}

TestSuite(cli_scan_memory, .init = setup);

static const char *
bomb_file(size_t n)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/bomb.pkl", dir);
    size_t len;
    char *p = list_bomb(n, 0, &len);
    FILE *f = fopen(path, "wb");
    cr_assert(f != NULL);
    cr_assert(fwrite(p, 1, len, f) == len);
    cr_assert(fclose(f) == 0);
    free(p);
    return path;
}

Test(cli_scan_memory, refused_under_the_cap_accepted_above_it)
{
    /* 2 MB of EMPTY_LIST: about 100 MB of scan */
    const char *path = bomb_file((size_t)2 << 20);
    for (int load = 0; load < 2; load++) {
        cpk_proc p;
        const char *argv[] = {CPK_LOAD, "--max-scan-memory=16M", path,
                              load ? "--load" : NULL, NULL};
        cpk_spawn(&p, argv, dir, NULL, 0, NULL);
        cpk_assert_exit(&p, 3);
        cr_assert_eq(p.out_len, 0);
        char expected[400];
        snprintf(expected, sizeof expected,
                 "cloudpickle-load: %s: too large to inspect: needs more "
                 "than 16 MiB of memory, at byte ",
                 path);
        cr_assert(strncmp(p.err, expected, strlen(expected)) == 0, "%s",
                  p.err);
        cr_assert(strstr(p.err, " (raise it with --max-scan-memory)\n") !=
                      NULL &&
                      strchr(p.err, '\n') == p.err + p.err_len - 1,
                  "%s", p.err);
        cpk_proc_free(&p);
    }
    cpk_proc p;
    const char *ok[] = {CPK_LOAD, "--max-scan-memory", "1G", path, NULL};
    cpk_spawn(&p, ok, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "list") != NULL, "%s", p.out);
    cpk_proc_free(&p);
    /* the default (2G) takes it too */
    const char *dflt[] = {CPK_LOAD, path, NULL};
    cpk_spawn(&p, dflt, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

/* Streamed input is refused while it arrives (the early scans are
 * capped too), and the size syntax is --max-size's. */
Test(cli_scan_memory, stdin_and_bad_sizes)
{
    size_t len;
    char *data = list_bomb((size_t)1 << 20, 0, &len);
    cpk_proc p;
    const char *argv[] = {CPK_LOAD, "--max-scan-memory=4m", "-", NULL};
    cpk_spawn(&p, argv, dir, data, len, NULL);
    cpk_assert_exit(&p, 3);
    cr_assert(strstr(p.err, "cloudpickle-load: standard input: too large "
                            "to inspect: needs more than 4 MiB of memory") ==
                  p.err,
              "%s", p.err);
    cpk_proc_free(&p);
    free(data);
    static const char *const bad[] = {"0", "abc", "-1", "12Q"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char opt[64];
        snprintf(opt, sizeof opt, "--max-scan-memory=%s", bad[i]);
        const char *a[] = {CPK_LOAD, opt, "-", NULL};
        cpk_spawn(&p, a, dir, "\x80\x04K\x01.", 5, NULL);
        cpk_assert_exit(&p, 2);
        char expected[128];
        snprintf(expected, sizeof expected,
                 "invalid size '%s' for --max-scan-memory", bad[i]);
        cr_assert(strstr(p.err, expected) != NULL, "%s", p.err);
        cpk_proc_free(&p);
    }
    /* a small pickle passes a small cap */
    const char *small[] = {CPK_LOAD, "--max-scan-memory=1M", "-", NULL};
    cpk_spawn(&p, small, dir, "\x80\x04K\x01.", 5, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

/* Plain data (nothing imported, so nothing called or carried by value)
 * skips the analysis' per-node arrays: a million memoized lists fit in
 * 88 bytes a value (the walk's node with its array's slack, memo slot,
 * edge, and the depth pass), where the analysis' arrays took the peak to
 * 98. */
Test(scan_memory, plain_data_pays_for_the_walk_alone)
{
    size_t n = 1000000, len;
    char *p = list_bomb(n, 1, &len);
    pkscan_report *r = pkscan_scan_limited(p, len, 0, 88 * n);
    cr_assert(r != NULL);
    cr_assert_eq(r->status, PKSCAN_OK, "%s", r->error);
    cr_assert_eq(r->n_imports, 0);
    cr_assert_str_eq(r->result_kind, "list");
    pkscan_free(r);
    free(p);
}

/* PROTO 4, EMPTY_DICT, MEMOIZE, then per 1000 items MARK, (BININT i,
 * SHORT_BINUNICODE "abc", MEMOIZE) × 1000, SETITEMS; STOP: what pickle
 * writes for a dict of ints to distinct strs. */
static char *
str_dict(size_t n, size_t *len)
{
    char *p = malloc(n * 12 + 8);
    cr_assert(p != NULL);
    memcpy(p, "\x80\x04}\x94", 4);
    size_t at = 4;
    for (size_t i = 0; i < n; i++) {
        uint32_t v = (uint32_t)i;
        if (i % 1000 == 0)
            p[at++] = '(';
        p[at++] = 'J';
        memcpy(p + at, &v, 4);
        at += 4;
        memcpy(p + at, "\x8c\x03" "abc\x94", 6);
        at += 6;
        if (i % 1000 == 999 || i + 1 == n)
            p[at++] = 'u';
    }
    p[at++] = '.';
    *len = at;
    return p;
}

/* A memoized str that is a dict's value is counted, as an int is: the
 * model holds its memo slot (4 bytes, 8 with the array's slack), not a
 * node. As a key or a list's item it is kept (analyses read those). */
Test(scan_memory, memoized_strs_as_dict_values_cost_their_memo_slot)
{
    size_t n = 1000000, len;
    char *p = str_dict(n, &len);
    pkscan_report *r = pkscan_scan_limited(p, len, 0, 10 * n);
    cr_assert(r != NULL);
    cr_assert_eq(r->status, PKSCAN_OK, "%s", r->error);
    cr_assert_str_eq(r->result_kind, "dict");
    cr_assert_eq(r->max_depth, 2);
    pkscan_free(r);
    /* the same strs as keys: kept, so a node each */
    for (size_t at = 4; at + 11 <= len; at++) {
        if (p[at] != 'J')
            continue;
        char k[5];
        memcpy(k, p + at, 5);
        memmove(p + at, p + at + 5, 6);
        memcpy(p + at + 6, k, 5);
        at += 10;
    }
    r = pkscan_scan_limited(p, len, 0, 10 * n);
    cr_assert(r != NULL);
    cr_assert_eq(r->status, PKSCAN_ERR_LIMIT, "%s",
                 pkscan_status_name(r->status));
    pkscan_free(r);
    free(p);
}

/* The default cap follows the machine: at least the 2 GiB floor, at most
 * all of its memory (MemAvailable is part of it) when that is more. */
Test(scan_memory, the_default_cap_is_the_memory_available)
{
    size_t cap = pkscan_default_limit();
    cr_assert_geq(cap, PKSCAN_LIMIT_FLOOR);
    size_t total = (size_t)sysconf(_SC_PHYS_PAGES) *
                   (size_t)sysconf(_SC_PAGESIZE);
    if (total > PKSCAN_LIMIT_FLOOR)
        cr_assert_leq(cap, total, "%zu > %zu", cap, total);
    else
        cr_assert_eq(cap, PKSCAN_LIMIT_FLOOR);
}

/* A tuple of a million GETs of one memoized str (what pickle writes for
 * ('a' * 10,) * 1000000): every copy on the stack is the memo's one
 * node, so the model holds the stack and the tuple's edges, some 20
 * bytes an item, not a node each. */
Test(scan_memory, copies_of_a_memoized_str_share_its_node)
{
    size_t n = 1000000;
    size_t len = 2 + 12 + 1 + 2 * n + 2;
    char *p = malloc(len);
    cr_assert(p != NULL);
    size_t at = 0;
    memcpy(p, "\x80\x04(\x8c\x0a" "aaaaaaaaaa\x94", 16);
    at = 16;
    for (size_t i = 1; i < n; i++) {
        p[at++] = 'h';
        p[at++] = 0;
    }
    p[at++] = 't';
    p[at++] = '.';
    pkscan_report *r = pkscan_scan_limited(p, at, 0, 28 * n);
    cr_assert(r != NULL);
    cr_assert_eq(r->status, PKSCAN_OK, "%s", r->error);
    cr_assert_str_eq(r->result_kind, "tuple");
    pkscan_free(r);
    free(p);
}
