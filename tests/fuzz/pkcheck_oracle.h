/* pkcheck_oracle.h - the property of the bounded check (src/scan/pkcheck.h)
 * that its fuzz target and unit test assert: a pickle it accepts is one
 * the full scan accepts, with the same end, under the programs' checks
 * (cli/common/scancheck.c's verdict: no newer format, nesting within the
 * limit, one item and no MARK at STOP). Pure C. */
#ifndef CPK_TESTS_PKCHECK_ORACLE_H
#define CPK_TESTS_PKCHECK_ORACLE_H

#include <stddef.h>

#include "scan/format.h"
#include "scan/pkcheck.h"
#include "scan/pkscan.h"

#define PKCHECK_ORACLE_DEPTH 10000 /* CPK_SCAN_MAX_DEPTH */

/* 1 when the full scan accepts data[0, len) as the programs do (with
 * `trailing_ok`: a pickle followed by anything, ending at *end). */
static inline int pkcheck_oracle_accepts(const void *data, size_t len,
                                         int trailing_ok, size_t *end)
{
    /* the flags (pycompat_scan.h) only rename protocol 2's imports */
    pkscan_report *r = pkscan_scan(data, len, 0);
    int fmt;
    char writer[48];
    int ok = r != NULL &&
             (r->status == PKSCAN_OK ||
              (trailing_ok && r->status == PKSCAN_ERR_TRAILING)) &&
             !cpk_format_newer_import(r, &fmt, writer, sizeof writer) &&
             r->max_depth <= PKCHECK_ORACLE_DEPTH && r->stop_marks == 0 &&
             r->stop_stack == 1;
    if (ok)
        *end = r->stop_offset + 1;
    pkscan_free(r);
    return ok;
}

/* The property on data[0, len), both ways of ending: 0 when it holds,
 * else 1 (the bounded check accepted what the full scan refuses, or
 * gave another end). */
static inline int pkcheck_oracle_breaks(const void *data, size_t len)
{
    for (int trailing = 0; trailing <= 1; trailing++) {
        pkcheck_result res;
        if (pkcheck_run(data, len, 0, PKCHECK_ORACLE_DEPTH, trailing,
                        &res) != PKCHECK_OK)
            continue;
        size_t end = 0;
        if (!pkcheck_oracle_accepts(data, len, trailing, &end) ||
            end != res.end)
            return 1;
    }
    return 0;
}

#endif
