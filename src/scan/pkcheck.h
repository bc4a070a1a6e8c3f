/* pkcheck.h - the check before a plain load: one pass over a pickle
 * whose memory is bounded by its memo and its stack, never by the number
 * of values it holds. Pure C, no Python.
 *
 * The programs refuse, before CPython reads a byte, what CPython would
 * load badly or not at all: memo indices never set, lengths past the
 * end, nesting deeper than the limit, data after STOP, a read across a
 * frame's end, invalid UTF-8, wrong types under APPEND, SETITEM, BUILD
 * and the like. The full scan (pkscan.h) finds all of that and words it,
 * but keeps a node for what the pickle holds. This pass answers only
 * "the full scan would accept it": where it cannot say so, it says
 * PKCHECK_MODEL, and the caller runs the full scan, which decides and
 * words the refusal. So a refusal reads the same whichever ran, and a
 * pickle this pass accepts is one the full scan accepts (the property
 * tests/unit/test_pkcheck.c and fuzz_pkcheck check).
 *
 * What it answers for: the opcodes that picklers write at protocols 2 to
 * 5 (binary scalars, strs, bytes, containers, the memo, GLOBAL and
 * STACK_GLOBAL, REDUCE, NEWOBJ(_EX), BUILD, FRAME). Everything else (the
 * text opcodes of protocol 0, INST, OBJ, EXT, PERSID, out-of-band
 * buffers, DUP, a memo index set twice) goes to the full scan.
 *
 * Memory: 8 bytes per stack item, per memo index up to the highest one
 * set, and per open MARK. */
#ifndef CPK_SCAN_PKCHECK_H
#define CPK_SCAN_PKCHECK_H

#include <stddef.h>

typedef enum {
    PKCHECK_OK,    /* well formed: the full scan would accept it */
    PKCHECK_MORE,  /* the input ends before its STOP, nothing wrong yet */
    PKCHECK_MODEL, /* only the full scan can decide (or word) it */
} pkcheck_status;

typedef struct {
    size_t end;  /* PKCHECK_OK: the offset just past the STOP */
    size_t at;   /* otherwise: the opcode it stopped at */
    size_t peak; /* the most bytes it held */
} pkcheck_result;

/* Check the pickle at data[0, len). `max_bytes` (0: none) bounds what it
 * may hold: past it, PKCHECK_MODEL (the full scan then says how much it
 * needs). `max_depth`: the deepest nesting accepted (scancheck.h's
 * CPK_SCAN_MAX_DEPTH). With `trailing_ok` the pickle may be followed by
 * anything (a stream of records); without it, bytes after the STOP are
 * PKCHECK_MODEL. */
pkcheck_status pkcheck_run(const void *data, size_t len, size_t max_bytes,
                           size_t max_depth, int trailing_ok,
                           pkcheck_result *res);

#endif
