/* fuzz-link: src/scan/pkscan*.c src/scan/marshal_scan.c src/scan/format.c */
/* fuzz-options: -max_len=65536 -timeout=10 */
/* fuzz_pkscan.c - libFuzzer target for the static pickle inspector
 * (src/scan/pkscan*.c) and, through it, the marshal reader
 * (src/scan/marshal_scan.c).
 * Built and run by scripts/fuzz (make fuzz); seeds in
 * tests/fuzz/corpus_pkscan, dictionary tests/fuzz/pkscan.dict.
 *
 * Beyond "no crash, no leak" (ASan/UBSan, libFuzzer's leak check), it
 * asserts the report's invariants: an error has a message and an offset
 * inside the input, every listed string is NUL-terminated at its length,
 * the parts measured (PKSCAN_SPANS, always on here) are the functions and
 * classes listed and their own bytes add up to by_value, at most the
 * input. */
#include "scan/pkscan.h"
#include "scan/marshal_scan.h"

#include <stdlib.h>
#include <string.h>

static void check_str(pkscan_str s)
{
    if (s.s == NULL) {
        if (s.len != 0)
            abort();
        return;
    }
    if (s.s[s.len] != '\0')
        abort();
}

/* The parts measured: only for a pickle scanned whole, in the order they
 * are made, each the function or class listed at its offset; their own
 * bytes add up to by_value, which the input holds. */
static void check_parts(const pkscan_report *r, size_t size)
{
    if (r->status != PKSCAN_OK) {
        if (r->parts != NULL || r->n_parts != 0 || r->by_value != 0)
            abort();
        return;
    }
    size_t own = 0;
    for (size_t i = 0; i < r->n_parts; i++) {
        const pkscan_part *p = &r->parts[i];
        if (p->own > p->bytes || p->create >= size ||
            (i > 0 && p->create <= r->parts[i - 1].create) ||
            p->parent < -1 || p->parent >= (long)r->n_parts ||
            p->parent == (long)i)
            abort();
        switch (p->kind) {
        case PKSCAN_PART_FUNCTION:
            if (p->index >= r->n_functions ||
                r->functions[p->index].offset != p->create)
                abort();
            break;
        case PKSCAN_PART_CLASS:
        case PKSCAN_PART_ENUM:
            if (p->index >= r->n_classes ||
                r->classes[p->index].offset != p->create ||
                r->classes[p->index].is_enum != (p->kind == PKSCAN_PART_ENUM))
                abort();
            break;
        case PKSCAN_PART_MODULE:
            if (p->index != (size_t)-1)
                abort();
            break;
        default:
            abort();
        }
        check_str(p->name);
        own += p->own;
    }
    if (own != r->by_value || r->by_value > size)
        abort();
}

/* The same input under a memory cap small enough to be hit at any point
 * of the walk or the analysis (chosen by its last byte): either the same
 * verdict or PKSCAN_ERR_LIMIT, with the report's invariants intact. */
static void check_capped(const uint8_t *data, size_t size, pkscan_status full)
{
    size_t cap = 1 + (size ? (size_t)data[size - 1] * 1024 + size * 4 : 0);
    pkscan_report *q = pkscan_scan_limited(data, size, PKSCAN_SPANS, cap);
    if (q == NULL)
        return;
    if (q->status != full && q->status != PKSCAN_ERR_LIMIT)
        abort();
    if ((q->status == PKSCAN_OK) != (q->error == NULL))
        abort();
    if (q->status != PKSCAN_OK && q->error_offset > size)
        abort();
    for (size_t i = 0; i < q->n_imports; i++) {
        check_str(q->imports[i].module);
        check_str(q->imports[i].name);
    }
    for (size_t i = 0; i < q->n_functions; i++)
        check_str(q->functions[i].name);
    check_parts(q, size);
    pkscan_free(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* PKSCAN_PY313 changes the fix_imports table only; PKSCAN_SPANS adds
     * the parts measured */
    pkscan_report *r = pkscan_scan(data, size,
                                   (size && data[0] == 0x80 && size > 1 &&
                                            (data[1] & 1)
                                        ? PKSCAN_PY313
                                        : 0) |
                                       PKSCAN_SPANS);
    if (r == NULL)
        return 0;
    check_capped(data, size, r->status);
    if ((r->status == PKSCAN_OK) != (r->error == NULL))
        abort();
    if (r->status != PKSCAN_OK && r->error_offset > size)
        abort();
    if (r->status == PKSCAN_OK && r->stop_offset != size - 1)
        abort();
    check_parts(r, size);
    for (size_t i = 0; i < r->n_imports; i++) {
        check_str(r->imports[i].module);
        check_str(r->imports[i].name);
        if (r->imports[i].offset >= size)
            abort();
        for (size_t j = 0; j < 2 * r->imports[i].n_alt_written; j++) {
            if (r->imports[i].alt_written[j].s == NULL)
                abort();
            check_str(r->imports[i].alt_written[j]);
        }
    }
    /* code by value the load runs: in input order, inside the input */
    for (size_t i = 0; i < r->n_load_calls; i++) {
        const pkscan_load_call *c = &r->load_calls[i];
        if (c->reason == NULL || c->offset >= size ||
            (i > 0 && c->offset < r->load_calls[i - 1].offset))
            abort();
        check_str(c->name);
    }
    if (r->result_call > r->n_load_calls)
        abort();
    if (r->n_load_calls > 0 && !pkscan_strict_violation(r))
        abort();
    if (r->max_depth > 65535 || (r->n_opcodes > 1 && r->status == PKSCAN_OK &&
                                 r->max_depth == 0))
        abort();
    for (size_t i = 0; i < r->n_functions; i++) {
        const pkscan_function *f = &r->functions[i];
        check_str(f->name);
        check_str(f->qualname);
        check_str(f->filename);
        for (size_t j = 0; j < f->n_params; j++)
            check_str(f->params[j].name);
        for (size_t j = 0; j < f->n_globals; j++)
            check_str(f->globals[j]);
        for (size_t j = 0; j < f->n_freevars; j++)
            check_str(f->freevars[j]);
    }
    for (size_t i = 0; i < r->n_classes; i++) {
        const pkscan_class *c = &r->classes[i];
        for (size_t j = 0; j < c->n_bases; j++)
            check_str(c->bases[j]);
        for (size_t j = 0; j < c->n_methods; j++)
            check_str(c->methods[j]);
        for (size_t j = 0; j < c->n_members; j++)
            check_str(c->members[j]);
    }
    pkscan_free(r);

    /* The marshal reader on its own, with each layout, when the input
     * looks like marshal data. */
    if (size > 0 && (data[0] & 0x7f) == 'c') {
        static const long magics[] = {3425, 3439, 3495, 3531, 3571};
        for (size_t i = 0; i < sizeof magics / sizeof *magics; i++) {
            cpk_mcode mc;
            if (cpk_mscan_code(data, size, magics[i], &mc)) {
                for (size_t j = 0; j < mc.n_params; j++)
                    if (mc.params[j].p + mc.params[j].len > data + size)
                        abort();
                cpk_mscan_free(&mc);
            }
        }
    }
    return 0;
}
