/* test_cov_spans_refused.c - a pickle the scan refuses is not measured
 * (pkscan_scan with PKSCAN_SPANS: no parts, by_value 0), whatever it
 * held before the fault: memo opcodes with nothing to store, an index
 * never stored or out of range or not a number, stack underflow under
 * POP, DUP, APPEND, BUILD, SETITEM, APPENDS, TUPLE1 and READONLY_BUFFER,
 * POP_MARK without a MARK, arguments cut short, an unknown opcode, no
 * STOP; a function's pickle cut short or followed by data; a scan over
 * its memory cap. Each refusal names its kind and the offset of the
 * opcode at fault (cloudpickle-dump --report prints them as "by value
 * not measured: ... at byte N"). */
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "scan/pkscan.h"

#define SCAN_FLAGS (PKSCAN_PY_FLAGS(PY_VERSION_HEX) | PKSCAN_SPANS)

struct refusal {
    const char *data;
    size_t len;
    pkscan_status why;
    size_t at;
};

#define P2 "\x80\x02"

static const struct refusal refusals[] = {
    {P2 "\x94.", 4, PKSCAN_ERR_UNDERFLOW, 2},
    {P2 "q\x01.", 5, PKSCAN_ERR_UNDERFLOW, 2},
    {P2 "Nr\xff\xff\xff\x7f.", 9, PKSCAN_ERR_MEMO, 3},
    {P2 "h\x05.", 5, PKSCAN_ERR_MEMO, 2},
    {P2 "gx\n.", 6, PKSCAN_ERR_MEMO, 2},
    {P2 "Np99999999999999999999999\n.", 29, PKSCAN_ERR_MEMO, 3},
    {P2 "Na.", 5, PKSCAN_ERR_UNDERFLOW, 3},
    {P2 "Nb.", 5, PKSCAN_ERR_UNDERFLOW, 3},
    {P2 "NNs.", 6, PKSCAN_ERR_UNDERFLOW, 4},
    {P2 "(e.", 5, PKSCAN_ERR_UNDERFLOW, 3},
    {P2 "\x85.", 4, PKSCAN_ERR_UNDERFLOW, 2},
    {P2 "\x98.", 4, PKSCAN_ERR_UNDERFLOW, 2},
    {P2 "0.", 4, PKSCAN_ERR_UNDERFLOW, 2},
    {P2 "2.", 4, PKSCAN_ERR_UNDERFLOW, 2},
    {P2 "1.", 4, PKSCAN_ERR_MARK, 2},
    {P2 "q", 3, PKSCAN_ERR_TRUNCATED, 2},
    {P2 "Iabc", 6, PKSCAN_ERR_TRUNCATED, 2},
    {P2 "X\xff\xff\xff\x7f", 7, PKSCAN_ERR_LENGTH, 2},
    {P2 "X\xff\xff\xff\xff", 7, PKSCAN_ERR_LENGTH, 2},
    {P2 "X\x05\x00\x00\x00" "ab.", 10, PKSCAN_ERR_LENGTH, 2},
    {P2 "\xff.", 4, PKSCAN_ERR_OPCODE, 2},
    {P2 "N", 3, PKSCAN_ERR_TRUNCATED, 3},
};

static void
assert_unmeasured(const pkscan_report *r, size_t i)
{
    cr_expect(r->parts == NULL && r->n_parts == 0 && r->by_value == 0,
              "case %zu: %zu parts, %zu bytes", i, r->n_parts, r->by_value);
    cr_expect(r->error != NULL && *r->error != '\0', "case %zu", i);
}

Test(cov_spans_refused, each_with_its_reason_and_offset)
{
    for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
        const struct refusal *c = &refusals[i];
        pkscan_report *r = pkscan_scan(c->data, c->len, SCAN_FLAGS);
        cr_assert(r != NULL);
        cr_expect_eq(r->status, c->why, "case %zu: %s (%s)", i,
                     pkscan_status_name(r->status),
                     r->error ? r->error : "(none)");
        cr_expect_eq(r->error_offset, c->at, "case %zu: at %zu, expected %zu",
                     i, r->error_offset, c->at);
        assert_unmeasured(r, i);
        pkscan_free(r);
    }
}

/* A function's pickle cut short after the function was made, or with a
 * byte after its STOP, or scanned under a memory cap it needs more
 * than: the function is named, its bytes are not counted. */
Test(cov_spans_refused, a_part_found_before_the_fault,
     .init = cpk_py_start, .fini = cpk_py_stop)
{
    cpk_py("import ccloudpickle as cp\n"
           "def f(x):\n"
           "    return x + 1\n");
    size_t len;
    char *data = cpk_py_bytes("cp.dumps(f, protocol=2)", &len);
    pkscan_report *r = pkscan_scan(data, len, SCAN_FLAGS);
    cr_assert(r != NULL && r->status == PKSCAN_OK);
    cr_assert_eq(r->n_parts, 1);
    cr_assert_eq(r->by_value, len - 3);
    pkscan_free(r);

    r = pkscan_scan(data, len - 1, SCAN_FLAGS); /* no STOP */
    cr_assert(r != NULL);
    cr_expect_eq(r->status, PKSCAN_ERR_TRUNCATED);
    cr_expect_eq(r->n_functions, 1);
    assert_unmeasured(r, 0);
    pkscan_free(r);

    char *more = malloc(len + 1);
    cr_assert(more != NULL);
    memcpy(more, data, len);
    more[len] = 'N';
    r = pkscan_scan(more, len + 1, SCAN_FLAGS);
    cr_assert(r != NULL);
    cr_expect_eq(r->status, PKSCAN_ERR_TRAILING);
    cr_expect_eq(r->error_offset, len);
    assert_unmeasured(r, 1);
    pkscan_free(r);
    free(more);

    r = pkscan_scan_limited(data, len, SCAN_FLAGS, 4096);
    cr_assert(r != NULL);
    cr_expect_eq(r->status, PKSCAN_ERR_LIMIT);
    assert_unmeasured(r, 2);
    pkscan_free(r);
    free(data);
}
