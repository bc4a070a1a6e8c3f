/* prescan.h - cloudpickle-load's cheap check of its input, in C, before
 * any byte reaches Python: one linear walk over the pickle's opcodes and
 * their argument lengths, as the input is read. It refuses, with the byte
 * offset, what CPython's unpickler would refuse only after allocating for
 * it or would report as some other error: unknown opcodes, truncation,
 * trailing data, lengths past the end, strings that are not UTF-8,
 * unsupported protocols, malformed protocol-0 numbers, and memo indices
 * that no earlier opcode stored (a PUT of index 2**28 makes CPython
 * allocate 4 GiB for its memo). It does not simulate the stack, and it
 * runs nothing: the full static inspection is another file's concern.
 */
#ifndef CPK_PRESCAN_H
#define CPK_PRESCAN_H

#include <stddef.h>

typedef struct {
    size_t pos;             /* offset of the next opcode to scan */
    int done;               /* STOP seen; pos is just past it */
    size_t need;            /* the input must reach this far (FRAME) */
    size_t line_from;       /* where to go on looking for the '\n' that
                             * ends the argument of the opcode at pos */
    size_t line_nl1;        /* INST, GLOBAL: end of their first line */
    size_t nmemo_ops;       /* PUT, BINPUT, LONG_BINPUT, MEMOIZE seen */
    size_t ndefined;        /* distinct memo indices stored */
    unsigned char *defined; /* bitmap of stored memo indices */
    size_t defined_bits;    /* its capacity */
    char err[256];          /* why the input was refused */
} cpk_prescan;

void cpk_prescan_init(cpk_prescan *s);

/* Scan the opcodes of data[s->pos, len) that are complete. `eof`: the
 * input ends at len. Returns 1 once the pickle is complete and well formed
 * (with eof: nothing follows STOP), 0 if more input is needed, -1 if the
 * input is not a valid pickle: s->err says why and at which byte. */
int cpk_prescan_feed(cpk_prescan *s, const unsigned char *data, size_t len,
                     int eof);

void cpk_prescan_free(cpk_prescan *s);

#endif
