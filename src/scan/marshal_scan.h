/* marshal_scan.h - a bounded reader of marshalled code objects: names,
 * parameters, file and line of the code a pickle carries, read without
 * marshal.loads (which CPython documents as unsafe on crafted data).
 *
 * Pure C11, no Python.h, no global state. Used by src/scan/pkscan.c for
 * ccloudpickle's `_code_unmarshal(python_version, magic, data)`; fuzzed
 * through tests/fuzz/fuzz_pkscan.c. It never trusts a length (each is
 * checked against the bytes left), bounds-checks every back-reference,
 * limits nesting to CPK_MSCAN_MAX_DEPTH and uses memory linear in the
 * input; on any malformed input it returns 0 and the caller reports the
 * fields as unknown. */
#ifndef CPK_SCAN_MARSHAL_SCAN_H
#define CPK_SCAN_MARSHAL_SCAN_H

#include <stddef.h>
#include <stdint.h>

#define CPK_MSCAN_MAX_DEPTH 200

/* Bytes inside the caller's buffer (not NUL-terminated). */
typedef struct {
    const uint8_t *p;
    size_t len;
} cpk_mstr;

/* What the top-level code object says about itself. Every pointer points
 * into the scanned buffer; `params`/`freevars` are malloc'd arrays freed by
 * cpk_mscan_free. */
typedef struct {
    int layout;            /* 310: 3.8-3.10 field order, 311: 3.11+ */
    long argcount;         /* co_argcount (positional incl. pos-only) */
    long posonlyargcount;
    long kwonlyargcount;
    long flags;            /* co_flags: 0x04 *args, 0x08 **kwargs */
    long firstlineno;
    cpk_mstr name;
    cpk_mstr qualname;     /* 3.11+; p == NULL before */
    cpk_mstr filename;
    cpk_mstr *params;      /* argcount + kwonlyargcount + (*args) + (**kw)
                              names, in co_varnames order */
    size_t n_params;
    cpk_mstr *freevars;    /* co_freevars */
    size_t n_freevars;
} cpk_mcode;

/* The CPython minor version ("3.11") whose bytecode magic number (the low
 * 16 bits of importlib.util.MAGIC_NUMBER) is `magic`, or NULL if the reader
 * does not know that magic. */
const char *cpk_mscan_version(long magic);

/* Read the marshalled code object at data[0..len) written by the CPython
 * whose magic is `magic` (selects the field layout). Returns 1 and fills
 * `out` on success; 0 (out zeroed, nothing to free) if the magic is unknown,
 * the data is not a code object or anything is malformed or too deep. */
int cpk_mscan_code(const uint8_t *data, size_t len, long magic,
                   cpk_mcode *out);

/* Free what cpk_mscan_code allocated in `c` (zeroes it); safe twice. */
void cpk_mscan_free(cpk_mcode *c);

#endif
