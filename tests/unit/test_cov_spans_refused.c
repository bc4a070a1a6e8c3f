/* test_cov_spans_refused.c - what the --report walker (cli/dump/dumpspans.c,
 * compiled in) says of pickles it cannot walk, beyond
 * test_coverage_spans.c's cases: memo opcodes with nothing to store, an
 * index never stored or out of range or not a number, stack underflow
 * under APPEND, BUILD, SETITEM, APPENDS, TUPLE1 and READONLY_BUFFER, and
 * arguments cut short. Each refusal names its reason and the offset of
 * the opcode at fault. */
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "../../cli/dump/dumpspans.c"

struct refusal {
    const char *data;
    size_t len;
    const char *why;
    size_t at;
};

#define P2 "\x80\x02"

static const struct refusal refusals[] = {
    {P2 "\x94.", 4, "memo PUT of nothing", 2},
    {P2 "q\x01.", 5, "memo PUT of nothing", 2},
    {P2 "Nr\xff\xff\xff\x7f.", 9, "memo index out of range", 3},
    {P2 "h\x05.", 5, "memo GET of an index never PUT", 2},
    {P2 "gx\n.", 6, "bad memo index", 2},
    {P2 "Np99999999999999999999999\n.", 29, "bad memo index", 3},
    {P2 "Na.", 5, "stack underflow", 3},
    {P2 "Nb.", 5, "stack underflow", 3},
    {P2 "NNs.", 6, "stack underflow", 4},
    {P2 "(e.", 5, "stack underflow", 3},
    {P2 "\x85.", 4, "stack underflow", 2},
    {P2 "\x98.", 4, "stack underflow", 2},
    {P2 "q", 3, "truncated", 2},
    {P2 "X\xff\xff\xff\x7f", 7, "truncated", 2},
    {P2 "X\xff\xff\xff\xff", 7, "negative length", 2},
};

Test(cov_spans_refused, each_with_its_reason_and_offset)
{
    for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
        const struct refusal *r = &refusals[i];
        cpk_spans sp;
        memset(&sp, 0, sizeof(sp));
        int rc = cpk_spans_measure((const unsigned char *)r->data, r->len,
                                   &sp);
        cr_expect(rc == -1, "case %zu walked", i);
        cr_expect(sp.error != NULL && strcmp(sp.error, r->why) == 0,
                  "case %zu: '%s', expected '%s'", i,
                  sp.error ? sp.error : "(none)", r->why);
        cr_expect_eq(sp.error_offset, r->at, "case %zu: at %zu, expected %zu",
                     i, sp.error_offset, r->at);
        cpk_spans_free(&sp);
    }
}
