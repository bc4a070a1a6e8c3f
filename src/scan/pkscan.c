/* pkscan.c - static pickle inspection, the public entry (contract:
 * scan/pkscan.h): the walk (pkscan_walk.c) builds a value graph of the
 * pickle without executing anything, then the analysis names imports,
 * functions and classes and, with PKSCAN_SPANS, measures the bytes each
 * part carried by value takes; the state pass holds it to the closed
 * world (what it may give state to, store into or call). The analysis
 * walks the graph forwards (operands are always older than what uses
 * them), so it never recurses. The files, lowest first: pkscan_mem.c,
 * pkscan_walk.c, pkscan_depth.c, pkscan_table.c, pkscan_classify.c,
 * pkscan_analyze.c, pkscan_objects.c, pkscan_state.c, pkscan_calls.c,
 * pkscan_imports.c, pkscan_spans.c; what they share is
 * pkscan_internal.h. The marshal reader for code objects is
 * marshal_scan.c. */
#include "scan/pkscan_internal.h"

#include <stdlib.h>

/* The analysis over the value graph the walk left, pass by pass: names
 * (resolve), imports, functions and classes, the closed world (state),
 * the code the load runs, then with PKSCAN_SPANS the bytes of each
 * part; what they found is copied into the report's memory. */
/* Plain data: no node names, calls or carries anything (no import, so
 * nothing to call, carry by value or give state to). */
static int plain_data(const scanner *sc)
{
    if (sc->nwrites > 0)
        return 0;
    for (size_t i = 0; i < sc->nnodes; i++)
        if (sc->nodes[i].kind >= K_GLOBAL)
            return 0;
    return 1;
}

static void analyse(scanner *sc)
{
    /* Plain data whose keys hash cheaply has nothing to decide: the
     * per-node arrays of the passes below (some 30 bytes a node) are
     * not allocated. Spans measure parts, which plain data has none
     * of, but keep their own path. */
    if (!sc->spans && plain_data(sc) && !pkscan_state_has_work(sc))
        return;
    analysis an;
    memset(&an, 0, sizeof an);
    an.sc = sc;
    an.rep = sc->rep;
    size_t nnodes = sc->nnodes ? sc->nnodes : 1;
    memacct *m = sc->acct;
    an.res_of = scalloc(m, nnodes, sizeof(uint32_t));
    an.recog = scalloc(m, nnodes, sizeof(uint32_t));
    an.aux_of = scalloc(m, nnodes, sizeof(uint32_t));
    if (!an.res_of || !an.recog || !an.aux_of || pkscan_resolve_pass(&an))
        an.oom = 1;
    /* imports first: when the budget runs out, what is cut is the
     * description of functions and classes, not the import list */
    if (!an.oom) {
        an.for_imports = 1;
        pkscan_imports_pass(&an);
        an.for_imports = 0;
    }
    if (!an.oom)
        pkscan_objects_pass(&an);
    if (!an.oom)
        pkscan_state_pass(&an);
    if (!an.oom)
        pkscan_calls_pass(&an);
    pkscan_report *r = &sc->rep->pub;
    if (!an.oom && sc->spans && r->status == PKSCAN_OK)
        pkscan_spans_pass(&an);
    if (!an.oom && an.ncalls) {
        r->load_calls = pkscan_arena_alloc(&sc->rep->mem,
                                           an.ncalls * sizeof *an.calls,
                                           sizeof(void *));
        if (r->load_calls) {
            memcpy(r->load_calls, an.calls, an.ncalls * sizeof *an.calls);
            r->n_load_calls = an.ncalls;
            r->result_call = an.result_call;
        } else {
            an.oom = 1;
        }
    }
    if (!an.oom && an.nfns) {
        r->functions = pkscan_arena_alloc(&sc->rep->mem,
                                          an.nfns * sizeof *an.fns,
                                          sizeof(void *));
        if (r->functions) {
            memcpy(r->functions, an.fns, an.nfns * sizeof *an.fns);
            r->n_functions = an.nfns;
        } else {
            an.oom = 1;
        }
    }
    if (!an.oom && an.nclss) {
        r->classes = pkscan_arena_alloc(&sc->rep->mem,
                                        an.nclss * sizeof *an.clss,
                                        sizeof(void *));
        if (r->classes) {
            memcpy(r->classes, an.clss, an.nclss * sizeof *an.clss);
            r->n_classes = an.nclss;
        } else {
            an.oom = 1;
        }
    }
    if (r->status == PKSCAN_OK && r->result_kind && sc->nstack) {
        uint32_t top = sc->stack[sc->nstack - 1];
        if (an.aux_of && aux_get(&an, top, AUX_FN))
            r->result_kind = "function";
        else if (an.aux_of && aux_get(&an, top, AUX_CLS))
            r->result_kind = "class";
        else if (r->result_call)
            r->result_kind = "call result";
    }
    if (an.oom && r->status == PKSCAN_OK) {
        sc->failed = 0;
        pkscan_nomem(sc, 0);
    }
    if (r->status != PKSCAN_OK) {
        r->parts = NULL;
        r->n_parts = 0;
        r->by_value = 0;
    }
    uint32_t **per_node[] = {&an.res_of, &an.recog, &an.aux_of};
    for (size_t i = 0; i < NELEM(per_node); i++)
        if (*per_node[i] != NULL) {
            free(*per_node[i]);
            acct_give(m, nnodes * sizeof(uint32_t));
        }
    acct_give(m,
              an.capres * sizeof(resolved) + an.capraw * sizeof(raw_import) +
              an.capcodes * sizeof(code_info) +
              an.capdsums * sizeof(dict_summary) +
              an.capfns * sizeof(pkscan_function) +
              an.capclss * sizeof(pkscan_class) +
              an.capimp * sizeof(uint32_t) +
              an.capcalls * sizeof(pkscan_load_call));
    free(an.res);
    free(an.raw);
    free(an.codes);
    free(an.dsums);
    free(an.fns);
    free(an.clss);
    free(an.imp_nodes);
    free(an.calls);
}

/* --- public -------------------------------------------------------------- */

static _Atomic size_t scans_started;

size_t pkscan_scans_started(void)
{
    return scans_started;
}

pkscan_report *pkscan_scan(const void *data, size_t len, unsigned flags)
{
    return pkscan_scan_limited(data, len, flags, 0);
}

pkscan_report *pkscan_scan_limited(const void *data, size_t len,
                                   unsigned flags, size_t max_bytes)
{
    scans_started++;
    report_impl *rep = calloc(1, sizeof *rep);
    if (rep == NULL)
        return NULL;
    rep->acct.limit = max_bytes;
    rep->mem.acct = &rep->acct;
    pkscan_report *r = &rep->pub;
    r->size = len;
    r->protocol = -1;
    r->stop_offset = (size_t)-1;
    r->error_opcode = -1;
    rep->budget = 16 * len + 100000;
    rep->ibudget = 4 * len + 65536;

    scanner sc;
    memset(&sc, 0, sizeof sc);
    sc.d = data;
    sc.n = data ? len : 0;
    sc.flags = flags;
    sc.rep = rep;
    sc.acct = &rep->acct;
    sc.dec.acct = &rep->acct;
    sc.memo_dense_limit = sc.n + 1;
    sc.lazy = sc.n < LAZY;
    sc.first_lazy = SIZE_MAX;
    sc.spans = (flags & PKSCAN_SPANS) != 0;

    pkscan_walk(&sc, len);
    /* (the room a node's depth would take, as depth_pass needs it) */
    int hit = rep->acct.hit;
    int depth_ok =
        pkscan_depth_pass(&sc) == 0 && acct_take(&rep->acct, 16) == 0;
    if (depth_ok)
        acct_give(&rep->acct, 16);
    rep->acct.hit = hit;
    /* a lazy scalar left without a node (dropped by POP_MARK, on the
     * stack of a failed scan) is a leaf all the same: where nothing
     * nests, the first value pushed is where the depth was reached */
    if (depth_ok && r->max_depth <= 1 && sc.first_lazy != SIZE_MAX &&
        (r->max_depth == 0 || sc.first_lazy < r->max_depth_offset)) {
        r->max_depth = 1;
        r->max_depth_offset = sc.first_lazy;
    }
    analyse(&sc);

    free(sc.nodes);
    free(sc.edges);
    free(sc.stack);
    free(sc.smemo);
    free(sc.marks);
    free(sc.builds);
    free(sc.writes);
    free(sc.memo_dense);
    free(sc.decbuf);
    free(sc.sstart);
    free(sc.mkoff);
    free(sc.recs);
    acct_give(&rep->acct, sc.capnodes * sizeof(node) +
                              sc.capedges * sizeof(edge) +
                              (sc.capstack + sc.capsmemo + sc.capmarks + sc.capbuilds + sc.capwrites +
                               sc.memo_dense_cap + sc.capsstart +
                               sc.capmkoff) * sizeof(uint32_t) +
                              sc.caprecs * sizeof(span_rec) + sc.capdec);
    /* strings the report shows were copied; decoded ones die here */
    pkscan_arena_free(&sc.dec);
    return r;
}

void pkscan_free(pkscan_report *r)
{
    if (r == NULL)
        return;
    report_impl *rep = (report_impl *)r;
    pkscan_arena_free(&rep->mem);
    free(rep);
}

const char *pkscan_status_name(pkscan_status s)
{
    static const char *const n[] = {
        "ok", "truncated", "bad-opcode", "stack-underflow", "mark-missing",
        "memo", "type", "value", "length", "protocol", "unsupported",
        "trailing-data", "no-memory", "memory-limit",
    };
    return (unsigned)s < NELEM(n) ? n[s] : "unknown";
}

const char *pkscan_via_name(pkscan_via v)
{
    static const char *const n[] = {
        "global", "stack_global", "inst", "ext", "dynamic", "getattr",
        "builtin_type", "subimport",
    };
    return (unsigned)v < NELEM(n) ? n[v] : "unknown";
}

const char *pkscan_category_name(pkscan_category c)
{
    static const char *const n[] = {"other", "ccloudpickle", "cloudpickle",
                                    "plain"};
    return (unsigned)c < NELEM(n) ? n[c] : "unknown";
}

const char *pkscan_param_kind_name(pkscan_param_kind k)
{
    static const char *const n[] = {"positional-only", "regular", "varargs",
                                    "keyword-only", "varkw"};
    return (unsigned)k < NELEM(n) ? n[k] : "unknown";
}

const char *pkscan_state_kind_name(pkscan_state_kind k)
{
    static const char *const n[] = {"value", "opaque", "import", "taint",
                                    "named", "call", "computed",
                                    "unbounded", "text", "trap"};
    return (unsigned)k < NELEM(n) ? n[k] : "unknown";
}

int pkscan_strict_violation(const pkscan_report *r)
{
    return r->n_dangerous > 0 || r->n_other > 0 || r->n_load_calls > 0 ||
           r->n_state_total > 0;
}
