/* pkscan_spans.c - with PKSCAN_SPANS, the bytes each part carried by
 * value takes (pkscan_report.parts), from the calls and BUILDs the walk
 * (pkscan_walk.c) recorded. */
#include "scan/pkscan_internal.h"

#include <stdlib.h>

typedef struct {
    uint32_t part, lo, hi, seq;
    int create; /* the part's creating call */
} span_range;

static int range_cmp(const void *x, const void *y)
{
    const span_range *a = x, *b = y;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi)
        return a->hi > b->hi ? -1 : 1; /* the enclosing one first */
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The index in `pnode` (ascending node ids) of node `id`, -1 if none. */
static long part_of(const uint32_t *pnode, size_t n, uint32_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pnode[mid] == id)
            return (long)mid;
        if (pnode[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* A module made on the fly (a part), by its node. */
static int module_part(const analysis *an, const node *nd)
{
    if (nd->kind != K_REDUCE)
        return 0;
    const resolved *c = res_get(an, nd->a);
    return pkscan_res_recon(c, "dynamic_subimport") || pkscan_res_recon(c, "_module_new");
}

/* A reconstructor that sets the state of the part it is given first. */
static int spans_setter(const resolved *c)
{
    return pkscan_res_recon(c, "_function_fill") ||
           pkscan_res_recon(c, "_function_setstate") ||
           pkscan_res_recon(c, "_class_setstate") || pkscan_res_recon(c, "_module_fill");
}

/* The parts (the functions and classes found, the modules made on the
 * fly) and their spans from the walk's records (pkscan.h, pkscan_part).
 * Spans nest as the expressions do: sorted by start, the longer first
 * on a tie, each lies in the innermost open one that has not ended
 * before it starts; its bytes count for its part and come out of the
 * `own` bytes of the part it lies in. */
void pkscan_spans_pass(analysis *an)
{
    scanner *sc = an->sc;
    pkscan_report *r = &an->rep->pub;
    memacct *m = sc->acct;
    size_t np = 0;
    for (size_t i = 0; i < sc->nnodes; i++)
        if (aux_get(an, (uint32_t)i, AUX_FN) ||
            aux_get(an, (uint32_t)i, AUX_CLS) ||
            module_part(an, &sc->nodes[i]))
            np++;
    if (np == 0)
        return;
    pkscan_part *parts = pkscan_arena_alloc(&an->rep->mem, np * sizeof *parts,
                                            sizeof(void *));
    uint32_t *pnode = parts ? scalloc(m, np, sizeof(uint32_t)) : NULL;
    long long *own = pnode ? scalloc(m, np, sizeof(long long)) : NULL;
    span_range *rg = own && sc->nrecs
                         ? scalloc(m, sc->nrecs, sizeof(span_range)) : NULL;
    uint32_t *opened = rg ? scalloc(m, sc->nrecs, sizeof(uint32_t)) : NULL;
    if (own == NULL || (sc->nrecs && opened == NULL)) {
        an->oom = 1;
        goto done;
    }
    size_t k = 0;
    for (size_t i = 0; i < sc->nnodes && k < np; i++) {
        const node *nd = &sc->nodes[i];
        uint32_t fn = aux_get(an, (uint32_t)i, AUX_FN);
        uint32_t cl = aux_get(an, (uint32_t)i, AUX_CLS);
        pkscan_part *p = &parts[k];
        memset(p, 0, sizeof *p);
        p->create = nd->off;
        p->parent = -1;
        if (fn) {
            p->kind = PKSCAN_PART_FUNCTION;
            p->index = fn - 1;
        } else if (cl) {
            p->kind = an->clss[cl - 1].is_enum ? PKSCAN_PART_ENUM
                                               : PKSCAN_PART_CLASS;
            p->index = cl - 1;
        } else if (module_part(an, nd)) {
            p->kind = PKSCAN_PART_MODULE;
            p->index = (size_t)-1;
            uint32_t nm = kind_of(sc, nd->b) == K_TUPLE ? item(sc, nd->b, 0)
                                                        : NONE_ID;
            if (kind_of(sc, nm) == K_STR)
                p->name = pkscan_rnode(an, nm);
        } else {
            continue;
        }
        pnode[k++] = (uint32_t)i;
    }
    size_t nr = 0;
    for (size_t i = 0; i < sc->nrecs; i++) {
        const span_rec *rc = &sc->recs[i];
        const node *nd = &sc->nodes[rc->node];
        long p = part_of(pnode, np, rc->node);
        int create = p >= 0 && !rc->build;
        uint32_t hi = rc->hi;
        if (p < 0 && !rc->build && nd->kind == K_REDUCE &&
            kind_of(sc, nd->b) == K_TUPLE && sc->nodes[nd->b].n > 0 &&
            spans_setter(res_get(an, nd->a))) {
            p = part_of(pnode, np, item(sc, nd->b, 0));
            hi += rc->popped;
        }
        if (p >= 0)
            rg[nr++] = (span_range){(uint32_t)p, rc->lo, hi, (uint32_t)i,
                                    create};
    }
    if (nr)
        qsort(rg, nr, sizeof *rg, range_cmp);
    size_t sp = 0, by_value = 0;
    for (size_t i = 0; i < nr; i++) {
        const span_range *g = &rg[i];
        while (sp > 0 && (rg[opened[sp - 1]].hi <= g->lo ||
                          rg[opened[sp - 1]].hi < g->hi))
            sp--; /* ended before it (or, never in a pickler's output,
                     overlaps it) */
        size_t len = g->hi - g->lo;
        long in = sp > 0 ? (long)rg[opened[sp - 1]].part : -1;
        if (in == (long)g->part)
            continue; /* already counted */
        parts[g->part].bytes += len;
        own[g->part] += (long long)len;
        if (in >= 0)
            own[in] -= (long long)len;
        else
            by_value += len;
        if (g->create)
            parts[g->part].parent = in;
        opened[sp++] = (uint32_t)i;
    }
    for (size_t i = 0; i < np; i++)
        parts[i].own = own[i] > 0 ? (size_t)own[i] : 0;
    r->parts = parts;
    r->n_parts = np;
    r->by_value = by_value;
done:
    if (opened) {
        free(opened);
        acct_give(m, sc->nrecs * sizeof(uint32_t));
    }
    if (rg) {
        free(rg);
        acct_give(m, sc->nrecs * sizeof(span_range));
    }
    if (own) {
        free(own);
        acct_give(m, np * sizeof(long long));
    }
    if (pnode) {
        free(pnode);
        acct_give(m, np * sizeof(uint32_t));
    }
}
