/* fuzz-link: src/scan/pk*.c src/scan/marshal_scan.c src/scan/format.c */
/* fuzz-options: -max_len=65536 -timeout=10 */
/* fuzz_pkcheck.c - libFuzzer target for the bounded check before a load
 * (src/scan/pkcheck.c): no crash, no leak, and what it accepts the full
 * scan accepts, ending at the same STOP (pkcheck_oracle.h). Seeds:
 * tests/fuzz/corpus_pkcheck, a link to the loader's corpus; dictionary
 * tests/fuzz/pkcheck.dict, a link to the full scan's. */
#include <stdint.h>
#include <stdlib.h>

#include "pkcheck_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (pkcheck_oracle_breaks(data, size))
        abort();
    return 0;
}
