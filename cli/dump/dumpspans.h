/* dumpspans.h - how many bytes of a pickle each part carried by value
 * takes: cloudpickle-dump --report's measurements (the report itself,
 * names, sources and imports, is dumpreport.c's; what the parts are named
 * comes from the static scanner, src/scan/pkscan.h).
 *
 * Why a walk of the written bytes rather than counters in the pickler:
 * the bytes are the truth (frames, memo opcodes, the state set after the
 * object exists, everything the loader reads), a normal dump pays nothing,
 * and the C pickler buffers its output (frames), so the pickler cannot see
 * its own position without a hook in every write.
 *
 * A part is a function (ccloudpickle._function_new, or cloudpickle's
 * _make_function / types.FunctionType as --compat writes it), a class
 * (_make_skeleton_class), an enum (_make_skeleton_enum) or a module
 * (dynamic_subimport) carried by value. Its bytes are the spans of the
 * opcodes that build it:
 *   - the creating call: from the first opcode of the callable to the
 *     REDUCE, with its arguments (code, globals dict skeleton, class
 *     namespace, module dict...) and the memo opcodes right after it;
 *   - each state-setting call applied to it later (_function_fill,
 *     _function_setstate, _class_setstate: the setter, the object fetched
 *     from the memo, the state, TUPLE2, REDUCE and the POP after it), and
 *     each BUILD on it (its state and the BUILD).
 * Spans nest as the expressions of the pickle do: a method made inside its
 * class's state, or a function first met in another function's globals,
 * lies inside the enclosing part's spans. `bytes` counts a part with the
 * parts built inside it; `own` without them (so the `own` figures of all
 * parts add up to `by_value`, every byte counted once). A part met again
 * later is a memo fetch (a few bytes) of whichever part holds it then.
 *
 * Pure C, no Python: the input is the pickle this program just wrote,
 * walked with every length checked all the same. */
#ifndef CPK_DUMPSPANS_H
#define CPK_DUMPSPANS_H

#include <stddef.h>

typedef enum {
    CPK_PART_FUNCTION,
    CPK_PART_CLASS,
    CPK_PART_ENUM,
    CPK_PART_MODULE,
} cpk_part_kind;

typedef struct {
    cpk_part_kind kind;
    size_t create;      /* offset of the REDUCE that creates it (the
                           `offset` pkscan_function / pkscan_class give) */
    size_t bytes;       /* its spans, nested parts included */
    size_t own;         /* its spans less the nested parts' */
    long parent;        /* index of the part whose spans hold its creating
                           call, -1 at the top */
    const char *name;   /* CPK_PART_MODULE: its name, into the pickle (not
                           NUL-terminated); else NULL */
    size_t name_len;
} cpk_span_part;

typedef struct {
    cpk_span_part *parts; /* in the order they are created */
    size_t nparts;
    size_t by_value;      /* bytes in some part's spans, each once */
    const char *error;    /* static text when the walk failed, else NULL */
    size_t error_offset;
} cpk_spans;

/* Walk the `len` bytes of a pickle at `data` and measure its parts into
 * *out (free with cpk_spans_free). Returns 0; -1 when out of memory or
 * when the pickle could not be walked (out->error says why; out holds
 * nothing to free). */
int cpk_spans_measure(const unsigned char *data, size_t len, cpk_spans *out);

void cpk_spans_free(cpk_spans *s);

#endif
