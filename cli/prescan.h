/* prescan.h - cloudpickle-load's cheap check of its input, in C, before
 * any byte reaches Python: one linear walk over the pickle's opcodes and
 * their argument lengths, as the input is read. It refuses, with the byte
 * offset, what CPython's unpickler would refuse only after allocating for
 * it or would report as some other error: unknown opcodes, truncation,
 * trailing data, lengths past the end, strings that are not UTF-8,
 * unsupported protocols, malformed protocol-0 numbers (as CPython parses
 * them), memo indices that no earlier opcode stored or far beyond what
 * the input could have stored (a PUT of index 2**28 makes CPython
 * allocate 2 GiB for its memo).
 *
 * It also follows the stack, item by item, without building anything:
 * the nesting depth of each item (CPK_PRESCAN_MAX_DEPTH: a tuple nested
 * 300,000 deep overflows the C stack when it is hashed) and, at STOP,
 * that exactly one item is left and no MARK is open, as every pickler
 * leaves it (CPython would drop the rest: "]" * 50 MB costs it 3.8 GB).
 * It runs nothing: the full static inspection is another file's concern.
 */
#ifndef CPK_PRESCAN_H
#define CPK_PRESCAN_H

#include <stddef.h>

/* The deepest nesting of containers the pre-scan lets through (see
 * prescan.c for why this number). */
#define CPK_PRESCAN_MAX_DEPTH 10000

typedef struct {
    size_t count;           /* this many items in a row ... */
    unsigned short depth;   /* ... of this nesting depth (1: a leaf) */
} cpk_prescan_run;

typedef struct {
    size_t at;              /* a MARK at this stack height ... */
    size_t count;           /* ... this many times in a row */
} cpk_prescan_mark;

typedef struct {
    size_t pos;             /* offset of the next opcode to scan */
    int done;               /* STOP seen; pos is just past it */
    size_t need;            /* the input must reach this far (FRAME) */
    size_t line_from;       /* where to go on looking for the '\n' that
                             * ends the argument of the opcode at pos */
    size_t line_nl1;        /* INST, GLOBAL: end of their first line */
    size_t nmemo_ops;       /* PUT, BINPUT, LONG_BINPUT, MEMOIZE seen */
    size_t ndefined;        /* distinct memo indices stored */
    unsigned short *memo;   /* depth of the item at each memo index, 0 if
                             * none was stored there */
    size_t memo_cap;        /* its capacity */
    /* The stack, run-length encoded (a run of leaves costs one entry). */
    cpk_prescan_run *runs;
    size_t nruns, runs_cap, nitems;
    cpk_prescan_mark *marks;
    size_t nmarkruns, marks_cap, nmarks;
    int lost;               /* an opcode CPython refuses for the stack's
                             * shape: following it stopped (CPython's own
                             * error stands), nothing more is refused for
                             * depth or leftovers */
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
