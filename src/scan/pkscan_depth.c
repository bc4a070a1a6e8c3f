/* pkscan_depth.c - the nesting depth of a pickle (pkscan_report.max_depth),
 * measured over the value graph once the walk (pkscan_walk.c) is done. */
#include "scan/pkscan_internal.h"

/* pkscan_report.max_depth: the longest chain of nodes each holding the
 * next (container items, REDUCE/NEWOBJ/OBJ callable and arguments, the
 * state BUILD gives an opaque object), found once the walk is done, so
 * that a chain linked top-down through the memo (d1 appended to d0 after
 * both exist) counts in full. Iterative depth-first search, linear in
 * nodes and edges; an edge back to a node being visited (a cycle) adds
 * nothing. 16 bytes per node while it runs. */
#define GRAY UINT32_MAX
int pkscan_depth_pass(scanner *sc)
{
    pkscan_report *r = &sc->rep->pub;
    size_t nnodes = sc->nnodes;
    if (nnodes == 0)
        return 0;
    typedef struct {
        uint32_t id, cur, maxc; /* cur: 0 a, 1 b, 2 items, 3 done, e + 4 */
    } frame;
    uint32_t *depth = scalloc(sc->acct, nnodes, sizeof(uint32_t));
    frame *stack = depth ? scalloc(sc->acct, nnodes, sizeof(frame)) : NULL;
    if (stack == NULL) {
        if (depth) {
            free(depth);
            acct_give(sc->acct, nnodes * sizeof(uint32_t));
        }
        pkscan_nomem(sc, 0);
        return -1;
    }
    uint32_t best = 0;
    size_t best_off = 0;
    for (size_t root = 0; root < nnodes; root++) {
        if (depth[root])
            continue;
        size_t sp = 0;
        stack[sp++] = (frame){(uint32_t)root, 0,
                              nsum(&sc->nodes[root]) ? 1 : 0};
        depth[root] = GRAY;
        while (sp) {
            frame *f = &stack[sp - 1];
            const node *nd = &sc->nodes[f->id];
            int ab = nd->kind == K_REDUCE || nd->kind == K_NEWOBJ ||
                     nd->kind == K_OBJ;
            uint32_t child = NONE_ID;
            while (child == NONE_ID && f->cur != 3) {
                if (f->cur == 0) {
                    f->cur = 1;
                    child = ab ? nd->a : NONE_ID;
                } else if (f->cur == 1) {
                    f->cur = 2;
                    child = ab ? nd->b : NONE_ID;
                } else if (f->cur == 2) {
                    f->cur = nd->n ? nd->eh + 4 : 3;
                } else {
                    uint32_t e = f->cur - 4;
                    child = sc->edges[e].child;
                    f->cur = sc->edges[e].next == NONE_ID
                                 ? 3 : sc->edges[e].next + 4;
                }
                if (child != NONE_ID &&
                    (child == f->id || depth[child] == GRAY))
                    child = NONE_ID; /* a cycle */
            }
            if (child != NONE_ID) {
                if (depth[child] == 0) {
                    depth[child] = GRAY;
                    stack[sp++] = (frame){child, 0,
                                          nsum(&sc->nodes[child]) ? 1 : 0};
                } else if (depth[child] > f->maxc) {
                    f->maxc = depth[child];
                }
                continue;
            }
            uint32_t d = f->maxc < GRAY - 1 ? f->maxc + 1 : GRAY - 1;
            depth[f->id] = d;
            if (d > best) {
                best = d;
                best_off = nd->off;
            }
            sp--;
            if (sp && d > stack[sp - 1].maxc)
                stack[sp - 1].maxc = d;
        }
    }
    /* where the nesting opcode by opcode (deepen) reached the depth,
     * its opcode; else the outermost value of the deepest chain */
    if (best > 65535)
        best = 65535;
    if (best != r->max_depth) {
        r->max_depth = best;
        r->max_depth_offset = best_off;
    }
    free(depth);
    free(stack);
    acct_give(sc->acct, nnodes * (sizeof(uint32_t) + sizeof(frame)));
    return 0;
}
