/* test_scan_attr_chain.c - a chain of getattr resolves to one dotted
 * name per link up to 16 attributes; longer chains stay unresolved, so
 * getattr is listed dangerous (a name that long is no qualified name a
 * pickler writes, and checking each would cost the chain's square). */
#include "support.h"

#include "scan/pkscan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Protocol 4: getattr in memo 0, collections.OrderedDict in memo 1, then
 * `links` times memo 1 = getattr(memo 1, "a"); the result memo 1. */
static unsigned char *
chain(size_t links, size_t *len)
{
    static const unsigned char head[] =
        "\x80\x04\x8c\x08" "builtins" "\x8c\x07" "getattr" "\x93q\x00"
        "\x8c\x0b" "collections" "\x8c\x0b" "OrderedDict" "\x93q\x01";
    static const unsigned char link[] = "h\x00h\x01\x8c\x01" "a" "\x86Rq\x01" "0";
    size_t hl = sizeof head - 1, ll = sizeof link - 1;
    unsigned char *p = malloc(hl + links * ll + 3);
    cr_assert_not_null(p);
    memcpy(p, head, hl);
    for (size_t i = 0; i < links; i++)
        memcpy(p + hl + i * ll, link, ll);
    memcpy(p + hl + links * ll, "h\x01.", 3);
    *len = hl + links * ll + 3;
    return p;
}

static const pkscan_import *
find(const pkscan_report *r, const char *module, const char *name)
{
    for (size_t i = 0; i < r->n_imports; i++)
        if (r->imports[i].module.s && r->imports[i].name.s &&
            strcmp(r->imports[i].module.s, module) == 0 &&
            strcmp(r->imports[i].name.s, name) == 0)
            return &r->imports[i];
    return NULL;
}

Test(scan_attr_chain, short_chains_resolve_to_one_name)
{
    size_t len;
    unsigned char *p = chain(14, &len);
    pkscan_report *r = pkscan_scan(p, len, 0);
    cr_assert_eq(r->status, PKSCAN_OK, "%s", r->error);
    char name[128] = "OrderedDict";
    for (int i = 0; i < 14; i++)
        strcat(name, ".a");
    const pkscan_import *im = find(r, "collections", name);
    cr_assert_not_null(im, "%s not listed", name);
    const pkscan_import *ga = find(r, "builtins", "getattr");
    cr_assert_not_null(ga);
    cr_expect_not(ga->dangerous, "a resolved chain: getattr is a lookup");
    pkscan_free(r);
    free(p);
}

Test(scan_attr_chain, long_chains_stay_unresolved_and_dangerous)
{
    size_t len;
    unsigned char *p = chain(40, &len);
    pkscan_report *r = pkscan_scan(p, len, 0);
    cr_assert_eq(r->status, PKSCAN_OK, "%s", r->error);
    const pkscan_import *ga = find(r, "builtins", "getattr");
    cr_assert_not_null(ga);
    cr_expect(ga->dangerous, "getattr past 16 attributes is not a lookup");
    char name[128] = "OrderedDict";
    for (int i = 0; i < 16; i++)
        strcat(name, ".a");
    cr_expect_null(find(r, "collections", name), "%s resolved", name);
    pkscan_free(r);
    free(p);
}

Test(scan_attr_chain, a_long_chain_scans_in_one_pass)
{
    /* 100000 links: the scan ends with the same verdict (and, without
     * the bound, took minutes: each name's check read every suffix) */
    size_t len;
    unsigned char *p = chain(100000, &len);
    pkscan_report *r = pkscan_scan(p, len, 0);
    cr_assert_not_null(r);
    const pkscan_import *ga = find(r, "builtins", "getattr");
    cr_assert_not_null(ga);
    cr_expect(ga->dangerous);
    pkscan_free(r);
    free(p);
}
