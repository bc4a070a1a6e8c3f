/* pkscan_state.c - the closed world (pkscan.h pkscan_state_write): which
 * objects the pickle provably made fresh, and every write or call that
 * reaches beyond them.
 *
 * Each node gets a provenance, forwards in node order (operands are
 * older than what uses them):
 *   FRESH   made by the pickle's own opcodes, by a call the closed table
 *           (pkscan_table.c) says returns a new object, or a function or
 *           class carried by value: it may receive state;
 *   IMPORT  a name (GLOBAL, a constant getattr, subimport): a write into
 *           one is the import's own verdict ("modifies an imported
 *           object"), except a fill reconstructor's or __init__'s;
 *   VALUE   what a table call returns that may be an existing, cached or
 *           shared object: never a target;
 *   NAMED   what a named callable outside the table returns: a target
 *           only for an allow rule naming that callable;
 *   OPAQUE  anything else: never a target.
 * A call outside the table (NAMED) may keep its arguments: everything
 * reachable from them is tainted from that call's offset on, and a later
 * write into a tainted object is refused. Calls of names the table
 * leaves out, of computed values, and of bounded-cost entries on
 * computed arguments are refused where they stand. */
#include "scan/pkscan_internal.h"

#include "common/pickle_ops.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

enum { P_FRESH = 0, P_IMPORT, P_VALUE, P_OPAQUE, P_NAMED };
#define P_MASK 0x7
#define P_BYVALUE 0x08    /* an instance of a class carried by value */
#define P_DEEP_DONE 0x10  /* deep_plain computed */
#define P_DEEP_PLAIN 0x20 /* nothing reachable is a call result */
#define P_VISITING 0x40
#define P_UNSIZED 0x80    /* its length is a value of the input (range),
                             or it iterates such an object lazily */

/* bytes(n), bytearray(n) and the like allocate by the value: a literal
 * int argument of a bounded entry above this is refused */
#define BOUNDED_INT_MAX (INT64_C(1) << 20)

typedef struct {
    analysis *an;
    scanner *sc;
    uint8_t *prov;
    uint32_t *taint;   /* 1 + offset of the first call outside the table
                          it was passed to; 0: none */
    uint32_t *by;      /* the callable or class whose name decided a
                          call's prov (its row, or outside the table),
                          NONE_ID if none */
    uint32_t *taint_by; /* the call that tainted it */
    uint32_t *built;   /* 1 + offset of the first BUILD on it; 0: none */
    uint8_t *typing;   /* 1: a typing form (a subscription, a TypeVar) */
    uint64_t *size;    /* items and bytes it holds, counted through the
                          memo's sharing (saturating): what hashing,
                          comparing or copying it walks */
    uint64_t alloc;    /* bytes the pickle's bytes(n)/bytearray(n) ask */
    uint32_t cur;      /* the node being decided: newer ones are unknown */
    uint32_t *seen;    /* deep_plain's nodes of the current search */
    size_t nseen, capseen;
    uint8_t *argok;    /* unbounded_arg's answer per argument tuple: 0
                          unknown, 1 bounded, 2 not */
    uint32_t *work;
    size_t nwork, capwork;
    /* callee_of's answers for recent callables (direct-mapped by node:
     * a pickle calls the same memoized name again and again) */
    struct callee_slot *cache;
    pkscan_state_write *out;
    size_t nout, capout;
    size_t total, vouchable;
    int oom;
} state;

/* --- the entries ---------------------------------------------------------- */

/* `p[0, len)` with bytes outside printable ASCII as \xNN. */
static void put_escaped(char *buf, size_t cap, size_t *at, const char *p,
                        size_t len)
{
    for (size_t i = 0; i < len && *at + 5 < cap; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c >= 0x20 && c < 0x7f && c != '\\')
            buf[(*at)++] = (char)c;
        else
            *at += (size_t)snprintf(buf + *at, cap - *at, "\\x%02x", c);
    }
    buf[*at] = '\0';
}

/* The dotted name of resolved `r` (escaped), or "a computed value". */
static void name_text(char *buf, size_t cap, const resolved *r)
{
    size_t at = 0;
    buf[0] = '\0';
    if (r == NULL) {
        snprintf(buf, cap, "a value computed at load time");
        return;
    }
    put_escaped(buf, cap, &at, r->m, r->ml);
    if (!r->is_module && r->nl) {
        if (at + 2 < cap) {
            buf[at++] = '.';
            buf[at] = '\0';
        }
        put_escaped(buf, cap, &at, r->n, r->nl);
    }
}

/* One entry: `kind` at `off`, made at `made`, decided by `r`; the text
 * from `fmt` (after "OPCODE at byte N "). */
static void add(state *s, pkscan_state_kind kind, size_t off, size_t made,
                const resolved *r, const char *fmt, ...)
{
    s->total++;
    if (kind == PKSCAN_STATE_NAMED || kind == PKSCAN_STATE_CALL)
        s->vouchable++;
    if (s->nout >= PKSCAN_MAX_ITEMS) {
        s->an->rep->pub.truncated = 1;
        return;
    }
    if (charge(s->an, 64) ||
        sgrow(s->sc->acct, (void **)&s->out, &s->capout, s->nout + 1,
              sizeof *s->out)) {
        if (!s->an->rep->pub.truncated)
            s->oom = 1;
        return;
    }
    char text[768];
    uint8_t op = s->sc->d[off];
    int k = snprintf(text, sizeof text, "%s at byte %zu ",
                     pkscan_op_name(op), off);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text + k, sizeof text - (size_t)k, fmt, ap);
    va_end(ap);
    pkscan_state_write *w = &s->out[s->nout];
    memset(w, 0, sizeof *w);
    w->offset = off;
    w->opcode = op;
    w->kind = kind;
    w->target_offset = made;
    if (r != NULL) {
        w->module = pkscan_rstr(s->an, r->m, r->ml);
        if (!r->is_module)
            w->name = pkscan_rstr(s->an, r->n, r->nl);
    }
    w->text = pkscan_rep_strdup(s->an->rep, text, strlen(text));
    if (w->text == NULL) {
        s->oom = 1;
        return;
    }
    s->nout++;
}

/* --- names ----------------------------------------------------------------- */

/* The row of (m, n), stock cloudpickle's three module spellings as one. */
static const pkscan_closed *row_of(const char *m, size_t ml, const char *n,
                                   size_t nl)
{
    if (pkscan_is_cp_module(m, ml))
        return pkscan_table_find("cloudpickle", 11, n, nl);
    return pkscan_table_find(m, ml, n, nl);
}

/* What a callable node is. */
enum { CE_ROW, CE_ABSENT, CE_NAMED, CE_CLASS, CE_FUNCTION, CE_COMPUTED };

/* Names the pass treats apart from their row. */
enum {
    SP_NONE = 0, SP_GETITEM, SP_GETATTR, SP_NEWOBJ, SP_RECONSTRUCTOR,
    SP_OBJECT, SP_ZONE, SP_ZONE_NEW, SP_STR, SP_BYTES, SP_NUMBER, SP_RANGE,
    SP_NET, SP_TYPE, SP_LITERAL, SP_CODE_PORTABLE, SP_TYPEVAR,
    SP_TYPEPARAM, SP_NEWTYPE, SP_SKELETON_ENUM, SP_CALLS0,
    SP_SKELETON_CLASS, SP_ENUM_META, SP_CLASS_SETSTATE,
};

static const struct {
    const char *m, *n;
    uint8_t sp;
} specials[] = {
    {"operator", "getitem", SP_GETITEM},
    {"_operator", "getitem", SP_GETITEM},
    {"builtins", "getattr", SP_GETATTR},
    {"builtins", "object", SP_OBJECT},
    {"builtins", "str", SP_STR},
    {"builtins", "bytes", SP_BYTES},
    {"builtins", "bytearray", SP_BYTES},
    {"builtins", "range", SP_RANGE},
    {"builtins", "type", SP_TYPE},
    /* they call argument 0 on the items when consumed (iter with two
     * arguments: until it returns the sentinel) */
    {"builtins", "map", SP_CALLS0},
    {"builtins", "filter", SP_CALLS0},
    {"builtins", "iter", SP_CALLS0},
    {"copyreg", "__newobj__", SP_NEWOBJ},
    {"copyreg", "__newobj_ex__", SP_NEWOBJ},
    {"array", "_array_reconstructor", SP_NEWOBJ},
    {"copyreg", "_reconstructor", SP_RECONSTRUCTOR},
    {"zoneinfo", "ZoneInfo", SP_ZONE},
    {"zoneinfo", "ZoneInfo._unpickle", SP_ZONE},
    {"zoneinfo", "ZoneInfo.__new__", SP_ZONE_NEW},
    {"fractions", "Fraction", SP_NUMBER},
    {"fractions", "Decimal", SP_NUMBER},
    {"decimal", "Decimal", SP_NUMBER},
    {"typing", "Literal", SP_LITERAL},
    /* classes whose metaclass makes members as the class is made */
    {"enum", "EnumMeta", SP_ENUM_META},
    {"enum", "EnumType", SP_ENUM_META},
    {"enum", "Enum", SP_ENUM_META},
    {"enum", "IntEnum", SP_ENUM_META},
    {"enum", "Flag", SP_ENUM_META},
    {"enum", "IntFlag", SP_ENUM_META},
    {"enum", "StrEnum", SP_ENUM_META},
    {"enum", "ReprEnum", SP_ENUM_META},
    /* networks iterate 2**(bits - prefix) addresses */
    {"ipaddress", "IPv4Network", SP_NET},
    {"ipaddress", "IPv6Network", SP_NET},
    {"ipaddress", "IPv4Interface", SP_NET},
    {"ipaddress", "IPv6Interface", SP_NET},
    {"ipaddress", "ip_network", SP_NET},
    {"ipaddress", "ip_interface", SP_NET},
    {"ipaddress", "collapse_addresses", SP_NET},
    {"ipaddress", "summarize_address_range", SP_NET},
};

static const struct {
    const char *n;
    uint8_t sp;
} recon_specials[] = {
    {"_code_portable", SP_CODE_PORTABLE}, {"_make_typevar", SP_TYPEVAR},
    {"_make_typeparam", SP_TYPEPARAM},    {"_make_newtype", SP_NEWTYPE},
    {"_make_skeleton_enum", SP_SKELETON_ENUM},
    {"_make_skeleton_class", SP_SKELETON_CLASS},
    {"_class_setstate", SP_CLASS_SETSTATE},
};

/* Which of the names above `r` is (SP_NONE: none). */
static int sp_of(const resolved *r)
{
    if (r == NULL || r->is_module)
        return SP_NONE;
    if (str_eq(r->m, r->ml, "ccloudpickle") ||
        pkscan_is_cp_module(r->m, r->ml)) {
        for (size_t i = 0; i < NELEM(recon_specials); i++)
            if (str_eq(r->n, r->nl, recon_specials[i].n))
                return recon_specials[i].sp;
        return SP_NONE;
    }
    for (size_t i = 0; i < NELEM(specials); i++)
        if (str_eq(r->m, r->ml, specials[i].m) &&
            str_eq(r->n, r->nl, specials[i].n))
            return specials[i].sp;
    return SP_NONE;
}

typedef struct {
    int what;
    int sp;             /* SP_* of the name */
    const resolved *r;
    const pkscan_closed *row;
    const char *dunder; /* "__new__", ... when the name ends in one the
                           table has no row for (row: the class's) */
} callee;

static int is_named_dunder(const char *p, size_t len, const char *d)
{
    return str_eq(p, len, d);
}

static callee callee_find(const state *s, uint32_t c)
{
    callee ce = {CE_COMPUTED, SP_NONE, NULL, NULL, NULL};
    if (c == NONE_ID)
        return ce;
    if (aux_get(s->an, c, AUX_CLS)) {
        ce.what = CE_CLASS;
        return ce;
    }
    if (aux_get(s->an, c, AUX_FN)) {
        ce.what = CE_FUNCTION;
        return ce;
    }
    const resolved *r = res_get(s->an, c);
    if (r == NULL || r->is_module)
        return ce;
    ce.r = r;
    ce.sp = sp_of(r);
    ce.row = row_of(r->m, r->ml, r->n, r->nl);
    if (ce.row != NULL) {
        ce.what = CE_ROW;
        return ce;
    }
    /* X.__new__, X.__init__, ...: decided from X's row and the dunder */
    const char *dot = NULL;
    for (size_t i = r->nl; i-- > 0;)
        if (r->n[i] == '.') {
            dot = r->n + i;
            break;
        }
    static const char *const dunders[] = {"__new__", "__init__", "__call__",
                                          "__getitem__",
                                          "__class_getitem__"};
    if (dot != NULL) {
        size_t dl = r->nl - (size_t)(dot + 1 - r->n);
        for (size_t i = 0; i < NELEM(dunders); i++)
            if (is_named_dunder(dot + 1, dl, dunders[i])) {
                ce.dunder = dunders[i];
                ce.row = row_of(r->m, r->ml, r->n, (size_t)(dot - r->n));
                break;
            }
    }
    pkscan_category cat = pkscan_categorize(r->m, r->ml, r->n, r->nl);
    if (ce.dunder != NULL && (ce.row != NULL || cat == PKSCAN_CAT_PLAIN)) {
        ce.what = CE_ROW;
        return ce;
    }
    ce.dunder = NULL;
    ce.row = NULL;
    ce.what = cat == PKSCAN_CAT_OTHER ? CE_NAMED : CE_ABSENT;
    return ce;
}

#define CALLEE_CACHE 256

struct callee_slot {
    uint32_t node; /* NONE_ID: empty */
    callee ce;
};

static callee callee_of(state *s, uint32_t c)
{
    if (c == NONE_ID || s->cache == NULL)
        return callee_find(s, c);
    struct callee_slot *slot = &s->cache[c % CALLEE_CACHE];
    if (slot->node != c) {
        slot->ce = callee_find(s, c);
        slot->node = c;
    }
    return slot->ce;
}

/* --- provenance ------------------------------------------------------------ */

/* The escaped name of `nm_r` in the function's `nm` buffer, made only
 * when an entry is written. */
#define NM (name_text(nm, sizeof nm, nm_r), nm)

static int prov(const state *s, uint32_t id)
{
    return id == NONE_ID ? P_OPAQUE : s->prov[id] & P_MASK;
}

static void set_prov(state *s, uint32_t id, int p, uint32_t by)
{
    s->prov[id] = (uint8_t)((s->prov[id] & ~P_MASK) | p);
    s->by[id] = by;
}

static size_t off_of(const state *s, uint32_t id)
{
    return id == NONE_ID ? 0 : s->sc->nodes[id].off;
}

static int push_seen(state *s, uint32_t id)
{
    if (sgrow(s->sc->acct, (void **)&s->seen, &s->capseen, s->nseen + 1,
              sizeof(uint32_t))) {
        s->oom = 1;
        return -1;
    }
    s->seen[s->nseen++] = id;
    return 0;
}

static int push_work(state *s, uint32_t id)
{
    if (sgrow(s->sc->acct, (void **)&s->work, &s->capwork, s->nwork + 1,
              sizeof(uint32_t))) {
        s->oom = 1;
        return -1;
    }
    s->work[s->nwork++] = id;
    return 0;
}

/* The operands a node holds: its items, and a call's callable and
 * arguments; each passed to `fn` until it returns nonzero. */
static int each_child(state *s, uint32_t id, int (*fn)(state *, uint32_t,
                                                       void *), void *arg)
{
    const node *nd = &s->sc->nodes[id];
    if (nd->kind == K_REDUCE || nd->kind == K_NEWOBJ || nd->kind == K_OBJ) {
        if (nd->a != NONE_ID && fn(s, nd->a, arg))
            return 1;
        if (nd->b != NONE_ID && fn(s, nd->b, arg))
            return 1;
    }
    for (uint32_t e = nd->n ? nd->eh : NONE_ID, k = 0; k < nd->n;
         k++, e = s->sc->edges[e].next)
        if (fn(s, s->sc->edges[e].child, arg))
            return 1;
    return 0;
}

/* A node deep_plain need not look into: an import, a function carried
 * by value, or what a table entry returned from plain arguments (its
 * size was bounded when it was made; its methods are the standard
 * library's) that nothing filled since. Returns 1 for such a leaf, 0
 * for a node to look into (a container, or a table result that got
 * items), -1 for what is not plain: a node newer than the one being
 * decided (its provenance is not known yet: the graph holds what later
 * opcodes add), an unsized or by-value result, a computed one. */
static int plain_leaf(const state *s, uint32_t id)
{
    if (id >= s->cur)
        return -1;
    const node *nd = &s->sc->nodes[id];
    if (nd->kind < K_GLOBAL)
        return 0;
    uint8_t p = s->prov[id];
    if (p & (P_UNSIZED | P_BYVALUE))
        return -1;
    if (aux_get(s->an, id, AUX_FN))
        return 1;
    switch (p & P_MASK) {
    case P_IMPORT:
        return 1;
    case P_VALUE:
    case P_FRESH:
        if (aux_get(s->an, id, AUX_CLS))
            return -1;
        return nd->n ? 0 : 1;
    default:
        return -1;
    }
}

/* Whether the cost of iterating, hashing or comparing `id` is bounded by
 * the input: plain containers all the way down to plain_leaf nodes, so
 * no method of a class carried by value or of a computed object runs.
 * Depth-first with an explicit stack of (node, next edge) pairs; every
 * node it reaches is then memoized with the answer for `id` (a node
 * reached is plain when `id` is, as what it reaches `id` does too; on
 * a failure they are all marked not plain, which may only refuse more):
 * each node is visited by one search, so the pass stays linear. */
static int deep_plain(state *s, uint32_t id)
{
    if (s->prov[id] & P_DEEP_DONE)
        return (s->prov[id] & P_DEEP_PLAIN) != 0;
    int leaf = plain_leaf(s, id);
    if (leaf != 0)
        return leaf > 0;
    size_t seen0 = s->nseen;
    size_t base = s->nwork;
    int ok = 1;
    const node *nd = &s->sc->nodes[id];
    if (push_seen(s, id) || push_work(s, id) ||
        push_work(s, nd->n ? nd->eh : NONE_ID))
        return 0;
    s->prov[id] |= P_VISITING;
    while (ok && s->nwork > base) {
        uint32_t top = s->work[s->nwork - 2];
        uint32_t e = s->work[s->nwork - 1];
        if (e == NONE_ID) {
            s->nwork -= 2;
            continue;
        }
        uint32_t c = s->sc->edges[e].child;
        s->work[s->nwork - 1] = e == s->sc->nodes[top].et
                                    ? NONE_ID : s->sc->edges[e].next;
        uint8_t pc = s->prov[c];
        if (pc & P_DEEP_DONE) {
            ok = (pc & P_DEEP_PLAIN) != 0;
            continue;
        }
        if (pc & P_VISITING)
            continue;
        int cl = plain_leaf(s, c);
        if (cl != 0) {
            ok = cl > 0;
            continue;
        }
        const node *cn = &s->sc->nodes[c];
        if (push_seen(s, c) || push_work(s, c) ||
            push_work(s, cn->n ? cn->eh : NONE_ID))
            return 0;
        s->prov[c] |= P_VISITING;
    }
    s->nwork = base;
    for (size_t i = seen0; i < s->nseen; i++) {
        uint32_t t = s->seen[i];
        s->prov[t] = (uint8_t)((s->prov[t] & ~(P_VISITING | P_DEEP_PLAIN)) |
                               P_DEEP_DONE | (ok ? P_DEEP_PLAIN : 0));
    }
    s->nseen = seen0;
    return ok;
}

static uint64_t tree_size(state *s, uint32_t id);

static uint32_t unbounded_arg_walk(state *s, uint32_t args, int ints);

/* A bounded entry's arguments (`ints`: and no int literal above
 * BOUNDED_INT_MAX among them, which allocate or loop by their value), or
 * with `ints` 0 whether a result made from them is as plain as they are.
 * Memoized per argument tuple (calls may share one through the memo):
 * the answer of a first call stands for the later ones (a node newer
 * than that call counted as not plain: it may only refuse more). */
static uint32_t unbounded_arg(state *s, uint32_t args, int ints)
{
    if (args == NONE_ID || s->sc->nodes[args].kind != K_TUPLE)
        return args;
    uint8_t ok = ints ? 0x4 : 0x1, bad = ints ? 0x8 : 0x2;
    if (s->argok[args] & ok)
        return NONE_ID;
    if (s->argok[args] & bad)
        return args;
    uint32_t found = unbounded_arg_walk(s, args, ints);
    s->argok[args] |= found == NONE_ID ? ok : bad;
    return found;
}

static uint32_t unbounded_arg_walk(state *s, uint32_t args, int ints)
{
    /* what it walks, sharing counted: within a linear factor of the
     * input (a tuple DAG through the memo is exponential) */
    uint64_t limit = 16 * (uint64_t)s->sc->n + (UINT64_C(1) << 20);
    const node *nd = &s->sc->nodes[args];
    for (uint32_t e = nd->n ? nd->eh : NONE_ID, k = 0; k < nd->n;
         k++, e = s->sc->edges[e].next) {
        uint32_t c = s->sc->edges[e].child;
        const node *cn = &s->sc->nodes[c];
        if (ints && cn->kind == K_INT &&
            ((cn->flags & NF_BIGINT) || cn->u.ival > BOUNDED_INT_MAX ||
             cn->u.ival < -BOUNDED_INT_MAX))
            return c;
        if (!deep_plain(s, c) || tree_size(s, c) > limit)
            return c;
    }
    return NONE_ID;
}

/* Taint everything reachable from `id` with the call `call`. */
static int taint_child(state *s, uint32_t c, void *arg);

static void taint_at(state *s, uint32_t id, uint32_t call, uint32_t mark);

static void taint_from(state *s, uint32_t id, uint32_t call)
{
    taint_at(s, id, call, s->sc->nodes[call].off + 1);
}

/* ... from offset `mark` - 1 on: what a write into an object outside the
 * closed world hands it (a BUILD's state, items) may be kept by it. */
static void taint_at(state *s, uint32_t id, uint32_t call, uint32_t mark)
{
    if (id == NONE_ID || s->taint[id])
        return;
    size_t base = s->nwork;
    s->taint[id] = mark;
    s->taint_by[id] = call;
    if (push_work(s, id))
        return;
    while (s->nwork > base) {
        uint32_t t = s->work[--s->nwork];
        uint32_t pair[2] = {mark, call};
        each_child(s, t, taint_child, pair);
        if (s->oom)
            return;
    }
}

static int taint_child(state *s, uint32_t c, void *arg)
{
    const uint32_t *pair = arg;
    if (s->taint[c])
        return 0;
    s->taint[c] = pair[0];
    s->taint_by[c] = pair[1];
    return push_work(s, c);
}

#define TY_FORM 0x1     /* a typing form: a subscription, a TypeVar */
#define TY_OK 0x2       /* typing_bad found nothing in it */
#define TY_VISITING 0x4
#define SZ_VISITING 0x8
#define TY_BAD 0x10     /* typing_bad found text or an unknown in it */

/* A leaf of typing parameters: 0 when typing keeps it as it is (an
 * import, a typing form, a class by value, a number, None, bytes), 1
 * when it is text or what the scan cannot know (typing would compile a
 * str as a forward reference, and a call may make one), -1 for a tuple
 * or list to look into. */
static int typing_leaf(const state *s, uint32_t id)
{
    int k = kind_of(s->sc, id);
    if (k == K_TUPLE || k == K_LIST)
        return -1;
    if (k == K_STR || k == K_DICT || k == K_SET || k == K_FROZENSET ||
        k == K_BYTEARRAY)
        return 1;
    if (k < K_GLOBAL)
        return 0;
    if (s->typing[id] & TY_FORM || prov(s, id) == P_IMPORT ||
        aux_get(s->an, id, AUX_CLS))
        return 0;
    return 1;
}

/* Whether typing would compile text reachable from `id` (a str in the
 * parameters of a subscription, a TypeVar's bound or constraints), or
 * could (a value made at load time): tuples and lists are looked into,
 * at any depth; with `values`, so are a dict's values (a type
 * parameter's options). Memoized per container (TY_OK): linear. */
static int typing_bad(state *s, uint32_t id, int values)
{
    if (id == NONE_ID)
        return 0;
    if (values && kind_of(s->sc, id) == K_DICT) {
        const node *nd = &s->sc->nodes[id];
        uint32_t e = nd->n ? nd->eh : NONE_ID;
        for (uint32_t i = 0; i < nd->n; i++, e = s->sc->edges[e].next)
            if (i % 2 == 1 && typing_bad(s, s->sc->edges[e].child, 0))
                return 1;
        return 0;
    }
    int leaf = typing_leaf(s, id);
    if (leaf >= 0)
        return leaf;
    if (s->typing[id] & TY_OK)
        return 0;
    if (s->typing[id] & TY_BAD)
        return 1;
    size_t base = s->nwork;
    const node *nd = &s->sc->nodes[id];
    if (push_work(s, id) || push_work(s, nd->n ? nd->eh : NONE_ID))
        return 1;
    s->typing[id] |= TY_VISITING;
    int bad = 0;
    while (!bad && s->nwork > base) {
        uint32_t top = s->work[s->nwork - 2];
        uint32_t e = s->work[s->nwork - 1];
        if (e == NONE_ID) {
            s->typing[top] = (uint8_t)((s->typing[top] & ~TY_VISITING) |
                                       TY_OK);
            s->nwork -= 2;
            continue;
        }
        uint32_t c = s->sc->edges[e].child;
        s->work[s->nwork - 1] = e == s->sc->nodes[top].et
                                    ? NONE_ID : s->sc->edges[e].next;
        int cl = typing_leaf(s, c);
        if (cl > 0) {
            bad = 1;
            break;
        }
        if (cl == 0 || s->typing[c] & (TY_OK | TY_VISITING))
            continue;
        const node *cn = &s->sc->nodes[c];
        if (push_work(s, c) || push_work(s, cn->n ? cn->eh : NONE_ID))
            return 1;
        s->typing[c] |= TY_VISITING;
    }
    while (s->nwork > base) {
        uint32_t t = s->work[s->nwork - 2];
        s->typing[t] = (uint8_t)((s->typing[t] & ~TY_VISITING) |
                                 (bad ? TY_BAD : 0));
        s->nwork -= 2;
    }
    return bad;
}

/* Whether the call `ce` with `args` would compile text of the pickle
 * the scan cannot vouch for: a typing subscription (but Literal's
 * values, which stay values), a TypeVar or type parameter made by value
 * with a text bound, constraint or default, a portable code object
 * whose source is not a literal (a literal one is the calls pass'). */
static int compiles_text(state *s, const callee *ce, uint32_t args)
{
    const resolved *r = ce->r;
    if (r == NULL)
        return 0;
    if (ce->sp == SP_GETITEM ||
        (ce->dunder != NULL && (strcmp(ce->dunder, "__getitem__") == 0 ||
                                strcmp(ce->dunder, "__class_getitem__") ==
                                    0))) {
        const resolved *t = res_get(s->an, item(s->sc, args, 0));
        if (sp_of(t) == SP_LITERAL)
            return 0;
        if (ce->dunder == NULL)
            return typing_bad(s, item(s->sc, args, 1), 0);
        /* X.__getitem__ may be bound (typing.List.__getitem__(params))
         * or not (dict.__getitem__(d, key)): every argument counts */
        if (str_eq(r->m, r->ml, "typing") && r->nl >= 8 &&
            memcmp(r->n, "Literal.", 8) == 0)
            return 0;
        return typing_bad(s, args, 0);
    }
    if (ce->sp == SP_CODE_PORTABLE) {
        /* the source another Python compiles: read only as a literal (a
         * str saying why there is none, or the tuple of text, file
         * name, name and ints), else the scan cannot say whether the
         * load compiles it */
        if (kind_of(s->sc, args) != K_TUPLE)
            return 1;
        uint32_t src = item(s->sc, args, 3);
        int k = kind_of(s->sc, src);
        if (k == K_STR || src == NONE_ID)
            return 0;
        if (!tuple_n(s->sc, src, 6))
            return 1;
        const node *nd = &s->sc->nodes[src];
        uint32_t e = nd->n ? nd->eh : NONE_ID;
        for (uint32_t i = 0; i < nd->n; i++, e = s->sc->edges[e].next)
            if (kind_of(s->sc, s->sc->edges[e].child) >= K_TUPLE)
                return 1;
        return 0;
    }
    if (ce->sp == SP_TYPEVAR)
        return typing_bad(s, item(s->sc, args, 1), 0) ||
               typing_bad(s, item(s->sc, args, 2), 0);
    if (ce->sp == SP_TYPEPARAM)
        return typing_bad(s, item(s->sc, args, 2), 0) ||
               typing_bad(s, item(s->sc, args, 3), 1);
    return 0;
}

/* CPython's default zoneinfo.TZPATH (its configure default, Debian's
 * and pyenv's): where ZoneInfo(key) looks before it imports the tzdata
 * package from sys.path. PYTHONTZPATH replaces it, as in zoneinfo. */
static const char default_tzpath[] =
    "/usr/share/zoneinfo:/usr/lib/zoneinfo:/usr/share/lib/zoneinfo:"
    "/etc/zoneinfo";

/* Whether ZoneInfo(key) finds `key` (a str node) in the time-zone
 * database on this machine, so it imports nothing: a relative key of
 * letters, digits and "_+-./" without empty, "." or ".." components,
 * naming a regular file under an absolute TZPATH entry. */
static int zone_key_found(const state *s, uint32_t key)
{
    const char *p;
    size_t len;
    if (!node_is_str(s->sc, key, &p, &len) || len == 0 || len > 255 ||
        p[0] == '/')
        return 0;
    size_t comp = 0;
    for (size_t i = 0; i <= len; i++) {
        char c = i < len ? p[i] : '/';
        if (c == '/') {
            if (comp == 0 || (comp == 1 && p[i - 1] == '.') ||
                (comp == 2 && p[i - 1] == '.' && p[i - 2] == '.'))
                return 0;
            comp = 0;
            continue;
        }
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '+' || c == '-' ||
              c == '.'))
            return 0;
        comp++;
    }
    const char *tzpath = getenv("PYTHONTZPATH");
    if (tzpath == NULL)
        tzpath = default_tzpath;
    for (const char *d = tzpath; *d;) {
        const char *end = strchr(d, ':');
        size_t dl = end ? (size_t)(end - d) : strlen(d);
        if (dl > 0 && d[0] == '/' && dl + len + 2 < 4096) {
            char path[4096];
            memcpy(path, d, dl);
            path[dl] = '/';
            memcpy(path + dl + 1, p, len);
            path[dl + 1 + len] = '\0';
            struct stat sb;
            if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
                return 1;
        }
        d += dl + (end != NULL);
    }
    return 0;
}

/* ZoneInfo(key), ZoneInfo._unpickle(key, ...) or its new form with a
 * key the database lacks: refused (1), as tzdata would be imported. */
static int zone_trap(state *s, uint32_t id, const callee *ce,
                     uint32_t args)
{
    if (ce->sp != SP_ZONE && ce->sp != SP_ZONE_NEW)
        return 0;
    const resolved *r = ce->r;
    uint32_t key = item(s->sc, args, ce->sp == SP_ZONE_NEW);
    if (zone_key_found(s, key))
        return 0;
    char nm[300];
    name_text(nm, sizeof nm, r);
    add(s, PKSCAN_STATE_TRAP, s->sc->nodes[id].off, off_of(s, key), r,
        "calls %s with a key that is not a literal name in this machine's "
        "time-zone database (byte %zu): zoneinfo would import the tzdata "
        "package from sys.path", nm, off_of(s, key));
    set_prov(s, id, P_OPAQUE, id);
    return 1;
}

/* --- checks ------------------------------------------------------------------ */

/* --- values the cost of a call follows -------------------------------- */

/* What hashing, comparing, iterating or copying `id` walks: 1 per value
 * and per byte of text, through the memo's sharing (a tuple holding the
 * same tuple twice, forty deep, is 2**40), saturating; a call result
 * counts what its call recorded (size_of_call). Memoized per node; a
 * cycle adds 1. */
#define SIZE_MAX_COUNT (UINT64_C(1) << 62)

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > SIZE_MAX_COUNT - b ? SIZE_MAX_COUNT : a + b;
}

static uint64_t own_size(const state *s, uint32_t id)
{
    const node *nd = &s->sc->nodes[id];
    if (nd->kind >= K_GLOBAL)
        return s->size[id] ? s->size[id] : 1;
    uint64_t n = 1 + nsum(nd) + nsum_bytes(nd);
    if (nd->kind == K_STR || nd->kind == K_BYTES || nd->kind == K_BYTEARRAY)
        n += nd->u.s.len;
    return n;
}

static uint64_t tree_size(state *s, uint32_t id)
{
    if (id == NONE_ID)
        return 0;
    const node *nd = &s->sc->nodes[id];
    if (nd->kind >= K_GLOBAL || nd->n == 0)
        return own_size(s, id);
    if (s->size[id])
        return s->size[id];
    size_t base = s->nwork;
    if (push_work(s, id) || push_work(s, nd->eh))
        return SIZE_MAX_COUNT;
    s->typing[id] |= SZ_VISITING;
    s->size[id] = own_size(s, id);
    while (s->nwork > base) {
        uint32_t top = s->work[s->nwork - 2];
        uint32_t e = s->work[s->nwork - 1];
        if (e == NONE_ID) {
            s->typing[top] &= (uint8_t)~SZ_VISITING;
            s->nwork -= 2;
            if (s->nwork > base) {
                uint32_t parent = s->work[s->nwork - 2];
                s->size[parent] = add_sat(s->size[parent], s->size[top]);
            }
            continue;
        }
        uint32_t c = s->sc->edges[e].child;
        s->work[s->nwork - 1] = e == s->sc->nodes[top].et
                                    ? NONE_ID : s->sc->edges[e].next;
        const node *cn = &s->sc->nodes[c];
        if (s->typing[c] & SZ_VISITING) {
            s->size[top] = add_sat(s->size[top], 1);
        } else if (cn->kind >= K_GLOBAL || cn->n == 0 || s->size[c]) {
            s->size[top] = add_sat(s->size[top],
                                   cn->kind < K_GLOBAL && cn->n && s->size[c]
                                       ? s->size[c] : own_size(s, c));
        } else {
            if (push_work(s, c) || push_work(s, cn->eh))
                return SIZE_MAX_COUNT;
            s->typing[c] |= SZ_VISITING;
            s->size[c] = own_size(s, c);
        }
    }
    return s->size[id];
}

/* Whether text `p[0, len)` writes a number with an exponent of more than
 * four digits ("1e999999999"): Fraction and int(Decimal) make it whole. */
static int huge_exponent(const char *p, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (p[i] != 'e' && p[i] != 'E')
            continue;
        size_t j = i + 1, digits = 0;
        if (j < len && (p[j] == '+' || p[j] == '-'))
            j++;
        while (j < len && p[j] == '0')
            j++;
        for (; j < len && p[j] >= '0' && p[j] <= '9'; j++)
            digits++;
        if (digits > 4)
            return 1;
    }
    return 0;
}

/* Codecs that text and bytes constructors use without a lookup: any
 * other name makes the codec registry import encodings.<name>, which
 * may import more (idna: stringprep, unicodedata). */
static const char *const builtin_codecs[] = {
    "utf-8", "utf8", "latin-1", "latin1", "ascii",
};

/* A call or new form of a row with `args` that would import a codec
 * module, or whose cost a literal argument's value decides (an
 * exponent, a size): refused (1), with its entry. */
static int value_trap(state *s, uint32_t id, const callee *ce,
                      uint32_t args, uint32_t c)
{
    const resolved *r = ce->r;
    if (ce->sp != SP_STR && ce->sp != SP_BYTES && ce->sp != SP_NUMBER)
        return 0;
    if (kind_of(s->sc, args) != K_TUPLE)
        return 0;
    char nm[300];
    size_t off = s->sc->nodes[id].off;
    int text = ce->sp == SP_STR || ce->sp == SP_BYTES;
    uint32_t enc = item(s->sc, args, 1);
    const char *p;
    size_t len;
    if (text && enc != NONE_ID &&
        !(node_is_str(s->sc, enc, &p, &len) &&
          pkscan_in_list(p, len, builtin_codecs, NELEM(builtin_codecs)))) {
        name_text(nm, sizeof nm, r);
        add(s, PKSCAN_STATE_TRAP, off, off_of(s, enc), r,
            "calls %s with an encoding other than utf-8, latin-1 or ascii "
            "(byte %zu): the codec registry would import its module",
            nm, off_of(s, enc));
        set_prov(s, id, P_OPAQUE, c);
        return 1;
    }
    int number = ce->sp == SP_NUMBER;
    if (number) {
        for (size_t i = 0; i < 2; i++) {
            uint32_t a = item(s->sc, args, i);
            if (node_is_str(s->sc, a, &p, &len) && huge_exponent(p, len)) {
                name_text(nm, sizeof nm, r);
                add(s, PKSCAN_STATE_UNBOUNDED, off, off_of(s, a), r,
                    "calls %s with a number whose exponent has more than "
                    "four digits (byte %zu): making or converting it costs "
                    "the exponent's value", nm, off_of(s, a));
                set_prov(s, id, P_OPAQUE, c);
                return 1;
            }
        }
    }
    if (ce->sp == SP_BYTES) {
        uint32_t a = item(s->sc, args, 0);
        if (kind_of(s->sc, a) == K_INT && s->sc->nodes[a].u.ival > 0) {
            s->alloc += (uint64_t)s->sc->nodes[a].u.ival;
            if (s->alloc > (UINT64_C(1) << 20)) {
                name_text(nm, sizeof nm, r);
                add(s, PKSCAN_STATE_UNBOUNDED, off, off_of(s, a), r,
                    "calls %s for more than 1 MiB in all the pickle's "
                    "bytes(n) and bytearray(n) calls (byte %zu)", nm,
                    off_of(s, a));
                set_prov(s, id, P_OPAQUE, c);
                return 1;
            }
        }
    }
    return 0;
}

/* A write at `off` (by a state opcode, or by a call writing argument 0)
 * into `t`. */
static void check_write(state *s, uint32_t t, size_t off, int by_call)
{
    int p = prov(s, t);
    uint32_t by = t == NONE_ID ? NONE_ID : s->by[t];
    const resolved *r = res_get(s->an, by);
    char nm[300];
    if (t != NONE_ID && s->built[t] && s->built[t] - 1 < off) {
        /* a BUILD may have pointed the object's storage anywhere (a
         * UserDict's data, a ChainMap's maps): what is stored into it
         * then may land in any object. Picklers give state last. */
        add(s, PKSCAN_STATE_OPAQUE, off, s->built[t] - 1, NULL,
            "stores into an object (made at byte %zu) after a BUILD at "
            "byte %zu gave it state, which may point its storage at any "
            "object", off_of(s, t), (size_t)s->built[t] - 1);
        return;
    }
    switch (p) {
    case P_FRESH:
        if (s->taint[t] && s->taint[t] - 1 < off) {
            uint32_t call = s->taint_by[t];
            const resolved *cr = res_get(s->an, s->by[call]);
            name_text(nm, sizeof nm, cr);
            add(s, PKSCAN_STATE_TAINT, off, s->taint[t] - 1, cr,
                "stores into an object the pickle made at byte %zu after "
                "passing it to %s at byte %zu, which may keep or share it",
                off_of(s, t), nm, (size_t)s->taint[t] - 1);
        }
        return;
    case P_IMPORT:
        /* a state opcode on an import is the import's own verdict */
        if (by_call)
            add(s, PKSCAN_STATE_IMPORT, off, off_of(s, t), res_get(s->an, t),
                "writes into an imported object (byte %zu)", off_of(s, t));
        return;
    case P_VALUE:
        name_text(nm, sizeof nm, r);
        add(s, PKSCAN_STATE_VALUE, off, off_of(s, t), r,
            "gives state to what %s returned at byte %zu, which may be an "
            "existing or shared object, not one the pickle made",
            nm, off_of(s, t));
        return;
    case P_NAMED: {
        name_text(nm, sizeof nm, r);
        add(s, PKSCAN_STATE_NAMED, off, off_of(s, t), r,
            "gives state to what %s returned at byte %zu, which only an "
            "allow rule naming %s can vouch for",
            nm, off_of(s, t), nm);
        /* admitted by an allow rule, the object's own __setstate__ or
         * __setitem__ may keep what it is given: the items it holds
         * (its state included) are tainted from this write on */
        const node *nd = &s->sc->nodes[t];
        uint32_t e = nd->n ? nd->eh : NONE_ID;
        for (uint32_t i = 0; i < nd->n && !s->oom;
             i++, e = s->sc->edges[e].next)
            taint_at(s, s->sc->edges[e].child, t, (uint32_t)off + 1);
        return;
    }
    default:
        add(s, PKSCAN_STATE_OPAQUE, off, off_of(s, t), NULL,
            "gives state to an object made at byte %zu that the pickle did "
            "not provably make (the result of a call the scan cannot "
            "vouch for)",
            off_of(s, t));
        return;
    }
}

/* The provenance of a new form (NEWOBJ, cls.__new__(cls), copyreg's
 * __newobj__) of class node `cls`, for the call `id`. */
static void new_form(state *s, uint32_t id, uint32_t cls, uint32_t args)
{
    callee ce = callee_of(s, cls);
    char nm[300];
    const resolved *nm_r = ce.r;
    size_t off = s->sc->nodes[id].off;
    switch (ce.what) {
    case CE_CLASS:
        set_prov(s, id, P_FRESH, cls);
        s->prov[id] |= P_BYVALUE;
        return;
    case CE_ROW:
        if (zone_trap(s, id, &ce, args) ||
            value_trap(s, id, &ce, args, cls))
            return;
        if (ce.dunder == NULL && ce.row->newf == PKT_NEW) {
            set_prov(s, id, P_FRESH, cls);
            return;
        }
        if (ce.dunder == NULL && ce.row->newf == PKT_VALUE) {
            set_prov(s, id, P_VALUE, cls);
            return;
        }
        add(s, PKSCAN_STATE_CALL, off, off_of(s, cls), ce.r,
            "makes a new %s, a form of it the scan cannot vouch for (its "
            "closed table leaves it out)", NM);
        break;
    case CE_ABSENT:
        add(s, PKSCAN_STATE_CALL, off, off_of(s, cls), ce.r,
            "makes a new %s, which the scan cannot vouch for (its closed "
            "table leaves it out)", NM);
        break;
    case CE_NAMED:
        set_prov(s, id, P_NAMED, cls);
        taint_from(s, args, id);
        return;
    default:
        add(s, PKSCAN_STATE_COMPUTED, off, off_of(s, cls), NULL,
            "makes an instance of a class computed at load time (byte %zu), "
            "which may be any object", off_of(s, cls));
        break;
    }
    set_prov(s, id, P_OPAQUE, cls);
    taint_from(s, args, id);
}

/* copyreg.__newobj__(cls, ...), __newobj_ex__(cls, args, kw),
 * _reconstructor(cls, base, state) and array._array_reconstructor(cls,
 * ...): new forms of their first argument. 1 when `ce` is one. */
static int copyreg_form(state *s, uint32_t id, const callee *ce,
                        uint32_t args)
{
    int nobj = ce->sp == SP_NEWOBJ;
    int recon = ce->sp == SP_RECONSTRUCTOR;
    if (!nobj && !recon)
        return 0;
    uint32_t cls = item(s->sc, args, 0);
    if (recon) {
        /* base.__new__(cls, state) then base.__init__(obj, state): the
         * new form of cls when base is object or a table class with a
         * new form (tuple.__new__(C, t) is a new C; dict.__init__ copies
         * state) */
        callee base = callee_of(s, item(s->sc, args, 1));
        int ok = base.what == CE_ROW && base.dunder == NULL &&
                 (base.sp == SP_OBJECT ||
                  base.row->newf != PKT_OPAQUE);
        if (!ok) {
            char nm[300];
            name_text(nm, sizeof nm, base.r);
            if (base.what == CE_NAMED) {
                set_prov(s, id, P_NAMED, item(s->sc, args, 1));
                taint_from(s, args, id);
                return 1;
            }
            add(s, base.what == CE_COMPUTED ? PKSCAN_STATE_COMPUTED
                                            : PKSCAN_STATE_CALL,
                s->sc->nodes[id].off, off_of(s, item(s->sc, args, 1)),
                base.r,
                "rebuilds an object through the base %s, which the scan "
                "cannot vouch for", nm);
            set_prov(s, id, P_OPAQUE, id);
            taint_from(s, args, id);
            return 1;
        }
    }
    if (cls == NONE_ID) {
        add(s, PKSCAN_STATE_COMPUTED, s->sc->nodes[id].off, 0, NULL,
            "makes an instance of a class computed at load time");
        set_prov(s, id, P_OPAQUE, id);
        taint_from(s, args, id);
        return 1;
    }
    new_form(s, id, cls, args);
    return 1;
}

/* Whether calling `f` on what the load hands it can do nothing the
 * table does not vouch for: a row of the table with a known result that
 * neither writes its argument nor costs what its argument is worth, a
 * function carried by value (the calls pass lists code it runs), or
 * None (filter's identity). */
static int harmless_callable(state *s, uint32_t f)
{
    int k = kind_of(s->sc, f);
    if (k == K_NONE || (f != NONE_ID && aux_get(s->an, f, AUX_FN)))
        return 1;
    callee ce = callee_of(s, f);
    return ce.what == CE_ROW && ce.dunder == NULL &&
           ce.row->call != PKT_OPAQUE &&
           !(ce.row->flags & (PKT_WRITES0 | PKT_BOUNDED | PKT_DISPATCH));
}

/* Whether `x` (a metaclass or a base of a class by value) makes enum
 * members as the class is made: an enum class or metaclass imported, or
 * an enum carried by value. Members run the class's own __init__ and
 * __new__, code by value, which only _make_skeleton_enum's form lets
 * the calls pass see. */
static int enum_maker(state *s, uint32_t x)
{
    if (x == NONE_ID)
        return 0;
    if (sp_of(res_get(s->an, x)) == SP_ENUM_META)
        return 1;
    const node *nd = &s->sc->nodes[x];
    return nd->kind == K_REDUCE &&
           sp_of(res_get(s->an, nd->a)) == SP_SKELETON_ENUM;
}

/* A call `id` of callable `c` with arguments `args`. */
static void call_form(state *s, uint32_t id, uint32_t c, uint32_t args)
{
    size_t off = s->sc->nodes[id].off;
    callee ce = callee_of(s, c);
    char nm[300];
    const resolved *nm_r = ce.r;
    if (ce.what == CE_CLASS) {
        /* an instance of a class carried by value (its own code is the
         * calls pass' concern); an enum's with one argument is a member
         * lookup, with more its functional API, which makes a class and
         * runs the enum's own methods for each member */
        const node *cn = &s->sc->nodes[c];
        if (cn->kind == K_REDUCE &&
            sp_of(res_get(s->an, cn->a)) == SP_SKELETON_ENUM &&
            !tuple_n(s->sc, args, 1)) {
            add(s, PKSCAN_STATE_CALL, off, off_of(s, c), NULL,
                "calls an enum carried by value (byte %zu) with other than "
                "one argument: its functional API makes a new enum and "
                "runs the enum's own code", off_of(s, c));
            set_prov(s, id, P_OPAQUE, c);
            return;
        }
        set_prov(s, id, P_FRESH, c);
        s->prov[id] |= P_BYVALUE;
        return;
    }
    if (ce.what == CE_FUNCTION) {
        /* code carried by value run at load: the calls pass lists it */
        set_prov(s, id, P_OPAQUE, c);
        taint_from(s, args, id);
        return;
    }
    if (ce.what == CE_NAMED) {
        set_prov(s, id, P_NAMED, c);
        taint_from(s, args, id);
        return;
    }
    if (copyreg_form(s, id, &ce, args))
        return;
    if (zone_trap(s, id, &ce, args) || value_trap(s, id, &ce, args, c))
        return;
    if (compiles_text(s, &ce, args)) {
        add(s, PKSCAN_STATE_TEXT, off, off_of(s, c), ce.r,
            "calls %s with text it would compile (a typing forward "
            "reference, or a shipped source not written as a literal): "
            "a load compiles no text of the pickle", NM);
        set_prov(s, id, P_OPAQUE, c);
        return;
    }
    if (ce.sp == SP_GETATTR) {
        /* a constant attribute lookup (the resolve pass keeps getattr
         * dangerous otherwise): an existing object */
        set_prov(s, id, P_VALUE, c);
        return;
    }
    if (ce.sp == SP_GETITEM ||
        (ce.dunder != NULL && strcmp(ce.dunder, "__getitem__") == 0)) {
        /* typing's subscriptions: an item of an import or of a value
         * (no method of an object the pickle made runs) */
        int p0 = prov(s, item(s->sc, args, 0));
        if (p0 == P_IMPORT || p0 == P_VALUE) {
            set_prov(s, id, P_VALUE, c);
            s->typing[id] |= TY_FORM;
            return;
        }
        add(s, PKSCAN_STATE_CALL, off, off_of(s, item(s->sc, args, 0)),
            ce.r,
            "calls %s on an object that is not an import (byte %zu): it "
            "may run that object's own method or return an object the "
            "pickle did not make", NM, off_of(s, item(s->sc, args, 0)));
        set_prov(s, id, P_OPAQUE, c);
        return;
    }
    if (ce.what == CE_COMPUTED) {
        add(s, PKSCAN_STATE_COMPUTED, off, off_of(s, c), NULL,
            "calls a value computed at load time (byte %zu), which may be "
            "any callable", off_of(s, c));
        set_prov(s, id, P_OPAQUE, c);
        taint_from(s, args, id);
        return;
    }
    if (ce.what == CE_ABSENT) {
        add(s, PKSCAN_STATE_CALL, off, off_of(s, c), ce.r,
            "calls %s, which the scan cannot vouch for (its closed table "
            "leaves it out)", NM);
        set_prov(s, id, P_OPAQUE, c);
        taint_from(s, args, id);
        return;
    }
    /* a row, or X.<dunder> of one */
    const pkscan_closed *row = ce.row;
    if (ce.dunder != NULL) {
        if (strcmp(ce.dunder, "__new__") == 0) {
            if (row != NULL && row->newf != PKT_NEW) {
                add(s, PKSCAN_STATE_CALL, off, off_of(s, c), ce.r,
                    "calls %s, which the scan cannot vouch for", NM);
                set_prov(s, id, P_OPAQUE, c);
                return;
            }
            uint32_t cls = item(s->sc, args, 0);
            if (cls == NONE_ID) {
                add(s, PKSCAN_STATE_COMPUTED, off, off_of(s, c), ce.r,
                    "calls %s without a class the scan can name", NM);
                set_prov(s, id, P_OPAQUE, c);
                return;
            }
            new_form(s, id, cls, args);
            return;
        }
        if (strcmp(ce.dunder, "__init__") == 0 && row != NULL &&
            row->call == PKT_NEW) {
            /* re-initialises argument 0 in place */
            set_prov(s, id, P_VALUE, c);
            check_write(s, item(s->sc, args, 0), off, 1);
            return;
        }
        if (strcmp(ce.dunder, "__class_getitem__") == 0) {
            set_prov(s, id, P_VALUE, c);
            s->typing[id] |= TY_FORM;
            return;
        }
        add(s, PKSCAN_STATE_CALL, off, off_of(s, c), ce.r,
            "calls %s, which the scan cannot vouch for", NM);
        set_prov(s, id, P_OPAQUE, c);
        return;
    }
    if (row->call == PKT_OPAQUE) {
        add(s, PKSCAN_STATE_CALL, off, off_of(s, c), ce.r,
            "calls %s, whose result the scan cannot vouch for (it may "
            "return or write through to its arguments)", NM);
        set_prov(s, id, P_OPAQUE, c);
        taint_from(s, args, id);
        return;
    }
    if (row->flags & PKT_BOUNDED) {
        uint32_t bad = unbounded_arg(s, args, 1);
        if (bad != NONE_ID) {
            add(s, PKSCAN_STATE_UNBOUNDED, off, off_of(s, bad), ce.r,
                "calls %s with an argument whose size the scan cannot "
                "bound (byte %zu: a value made at load, or an int above "
                "2**20), and its cost follows that size",
                NM, off_of(s, bad));
            set_prov(s, id, P_OPAQUE, c);
            return;
        }
    }
    int kind = row->call;
    if (ce.sp == SP_SKELETON_CLASS) {
        int bad = enum_maker(s, item(s->sc, args, 0));
        uint32_t bases = item(s->sc, args, 2);
        if (!bad && kind_of(s->sc, bases) == K_TUPLE) {
            const node *bn = &s->sc->nodes[bases];
            uint32_t e = bn->n ? bn->eh : NONE_ID;
            for (uint32_t i = 0; i < bn->n && !bad;
                 i++, e = s->sc->edges[e].next)
                bad = enum_maker(s, s->sc->edges[e].child);
        }
        if (bad) {
            add(s, PKSCAN_STATE_CALL, off, off_of(s, c), NULL,
                "makes a class by value with an enum metaclass or base "
                "(byte %zu): the metaclass makes its members as the class is "
                "made, running the class's own code (enums by value are "
                "made by _make_skeleton_enum)", off_of(s, c));
            set_prov(s, id, P_OPAQUE, c);
            return;
        }
    }
    if (ce.sp == SP_CLASS_SETSTATE) {
        /* _cpk_member_attrs gives an enum's members their attributes:
         * on any other class by value, getattr would reach past it (a
         * base, an inherited function); the reconstructor also refuses
         * a name that is not a member */
        uint32_t cls = item(s->sc, args, 0);
        uint32_t dict = item(s->sc, item(s->sc, args, 1), 0);
        int members = 0;
        if (kind_of(s->sc, dict) == K_DICT) {
            const node *dn = &s->sc->nodes[dict];
            uint32_t e = dn->n ? dn->eh : NONE_ID;
            const char *p;
            size_t len;
            for (uint32_t i = 0; i < dn->n && !members;
                 i++, e = s->sc->edges[e].next)
                members = i % 2 == 0 &&
                          node_is_str(s->sc, s->sc->edges[e].child, &p,
                                      &len) &&
                          str_eq(p, len, "_cpk_member_attrs");
        }
        const node *cn = cls == NONE_ID ? NULL : &s->sc->nodes[cls];
        if (members && !(cn != NULL && cn->kind == K_REDUCE &&
                         sp_of(res_get(s->an, cn->a)) == SP_SKELETON_ENUM)) {
            add(s, PKSCAN_STATE_CALL, off, off_of(s, cls), NULL,
                "gives member attributes (_cpk_member_attrs) to a class "
                "that is not an enum carried by value (byte %zu): they would "
                "be set on whatever the class's attributes reach",
                off_of(s, cls));
            set_prov(s, id, P_OPAQUE, c);
            return;
        }
    }
    if (ce.sp == SP_CALLS0 &&
        (!str_eq(ce.r->n, ce.r->nl, "iter") || tuple_n(s->sc, args, 2)) &&
        !harmless_callable(s, item(s->sc, args, 0))) {
        uint32_t f = item(s->sc, args, 0);
        add(s, PKSCAN_STATE_CALL, off, off_of(s, f), ce.r,
            "calls %s with a function (byte %zu) the closed table does "
            "not vouch for calling on what it is given (it may write into "
            "it, or cost what it is worth)", NM, off_of(s, f));
        set_prov(s, id, P_OPAQUE, c);
        return;
    }
    if (row->flags & PKT_DISPATCH &&
        !(ce.sp == SP_CALLS0 && tuple_n(s->sc, args, 2))) {
        /* the method of a container the pickle built, or of what a
         * table entry made (range, a dict view): the standard library's
         * own, never a class carried by value's */
        uint32_t a0 = item(s->sc, args, 0);
        int k0 = kind_of(s->sc, a0);
        int made = k0 >= K_GLOBAL &&
                   (prov(s, a0) == P_VALUE || prov(s, a0) == P_FRESH) &&
                   !(s->prov[a0] & P_BYVALUE) &&
                   !aux_get(s->an, a0, AUX_FN) &&
                   !aux_get(s->an, a0, AUX_CLS);
        if (!made && (k0 < K_STR || k0 >= K_GLOBAL || !deep_plain(s, a0))) {
            add(s, PKSCAN_STATE_CALL, off, off_of(s, a0), ce.r,
                "calls %s on an object that is not a container the pickle "
                "built (byte %zu): it would run that object's own method",
                NM, off_of(s, a0));
            set_prov(s, id, P_OPAQUE, c);
            return;
        }
    }
    int p = kind == PKT_NEW ? P_FRESH : P_VALUE;
    /* range(n) holds n items without their bytes; networks iterate
     * 2**(bits - prefix) addresses; iter(f, sentinel) runs until f
     * returns the sentinel, if ever; any other result is as plain as its
     * arguments (an iterator over them, or one of them: next(it, d),
     * typing.cast, sum's start) */
    if (ce.sp == SP_RANGE || ce.sp == SP_NET ||
        (ce.sp == SP_CALLS0 && tuple_n(s->sc, args, 2) &&
         str_eq(ce.r->n, ce.r->nl, "iter")) ||
        unbounded_arg(s, args, 0) != NONE_ID)
        s->prov[id] |= P_UNSIZED;
    /* a bounded entry's result holds about what its arguments did
     * (operator.add(x, x) doubles: the next call counts it) */
    if (row->flags & PKT_BOUNDED)
        s->size[id] = tree_size(s, args);
    /* typing forms, and type(x): a class (typing.Optional's NoneType
     * pickles as type(None)) */
    if (ce.sp == SP_TYPEVAR || ce.sp == SP_TYPEPARAM || ce.sp == SP_NEWTYPE ||
        (ce.sp == SP_TYPE && tuple_n(s->sc, args, 1)))
        s->typing[id] |= TY_FORM;
    /* a result that keeps and writes an argument is fresh only while
     * that argument is */
    for (unsigned k = 0; k < 8 && p == P_FRESH; k++)
        if (row->shares & (1u << k)) {
            uint32_t a = item(s->sc, args, k);
            if (prov(s, a) != P_FRESH || (a != NONE_ID && s->taint[a]))
                p = P_OPAQUE;
        }
    set_prov(s, id, p, c);
    if (row->flags & PKT_WRITES0)
        check_write(s, item(s->sc, args, 0), off, 1);
}

static void node_prov(state *s, uint32_t id)
{
    const node *nd = &s->sc->nodes[id];
    if (nd->kind < K_GLOBAL)
        return; /* the pickle's own: P_FRESH, as prov starts */
    const resolved *r = res_get(s->an, id);
    if (r != NULL) {
        set_prov(s, id, P_IMPORT, NONE_ID);
        return;
    }
    switch (nd->kind) {
    case K_GLOBAL:
    case K_DYNAMIC:
    case K_EXT:
        set_prov(s, id, P_IMPORT, NONE_ID);
        return;
    case K_BUFFER:
        set_prov(s, id, P_OPAQUE, NONE_ID);
        return;
    case K_REDUCE:
        if ((aux_get(s->an, id, AUX_FN) || aux_get(s->an, id, AUX_CLS)) &&
            callee_of(s, nd->a).what != CE_ROW) {
            /* a function or class the objects pass recognised (stock
             * cloudpickle's _builtin_type("LambdaType")(code, ...)) */
            set_prov(s, id, P_FRESH, NONE_ID);
            return;
        }
        call_form(s, id, nd->a, nd->b);
        break;
    case K_NEWOBJ:
        new_form(s, id, nd->a, nd->b);
        /* NEWOBJ_EX's keyword arguments (its first item) go to the
         * class as its arguments do */
        if (s->sc->d[nd->off] == CPK_OP_NEWOBJ_EX && nd->n &&
            (prov(s, id) == P_NAMED || prov(s, id) == P_OPAQUE))
            taint_from(s, s->sc->edges[nd->eh].child, id);
        break;
    case K_OBJ:
        if (nd->b == NONE_ID || (kind_of(s->sc, nd->b) == K_TUPLE &&
                                 nitems(&s->sc->nodes[nd->b]) == 0))
            new_form(s, id, nd->a, nd->b);
        else
            call_form(s, id, nd->a, nd->b);
        break;
    default:
        set_prov(s, id, P_FRESH, NONE_ID);
        return;
    }
    /* a function or class carried by value is the pickle's own (their
     * hooks and fills are the calls pass'), unless the globals it
     * shares were not */
    if ((aux_get(s->an, id, AUX_FN) || aux_get(s->an, id, AUX_CLS)) &&
        (prov(s, id) == P_VALUE || prov(s, id) == P_NAMED))
        set_prov(s, id, P_FRESH, NONE_ID);
}

/* Keys a dict or set the load fills hashes: a tuple holding tuples
 * shared through the memo hashes each share again (forty deep is 2**40
 * steps). What all the keys walk is bounded as a bounded entry's
 * arguments are. */
static void keys_pass(state *s)
{
    uint64_t limit = 16 * (uint64_t)s->sc->n + (UINT64_C(1) << 20);
    uint64_t total = 0;
    for (size_t i = 0; i < s->sc->nnodes && !s->oom; i++) {
        const node *nd = &s->sc->nodes[i];
        int k = nd->kind;
        if (k != K_DICT && k != K_SET && k != K_FROZENSET)
            continue;
        uint32_t e = nd->n ? nd->eh : NONE_ID;
        for (uint32_t j = 0; j < nd->n; j++, e = s->sc->edges[e].next) {
            uint32_t key = s->sc->edges[e].child;
            if ((k == K_DICT && j % 2 == 1) ||
                kind_of(s->sc, key) != K_TUPLE)
                continue;
            total = add_sat(total, tree_size(s, key));
            if (total > limit) {
                add(s, PKSCAN_STATE_UNBOUNDED, nd->off, off_of(s, key), NULL,
                    "fills a dict or set with keys that hold more values "
                    "through the memo's sharing (byte %zu) than the input "
                    "bounds: hashing them costs each share again",
                    off_of(s, key));
                return;
            }
        }
    }
}

/* --- the pass -------------------------------------------------------------- */

static int by_offset(const void *x, const void *y)
{
    const pkscan_state_write *a = x, *b = y;
    if (a->offset != b->offset)
        return a->offset < b->offset ? -1 : 1;
    return (a->kind > b->kind) - (a->kind < b->kind);
}

/* Plain data (no call, no write the walk kept, no tuple as a key):
 * nothing to decide. */
int pkscan_state_has_work(const scanner *sc)
{
    if (sc->nwrites > 0)
        return 1;
    for (size_t i = 0; i < sc->nnodes; i++) {
        const node *nd = &sc->nodes[i];
        if (nd->kind == K_REDUCE || nd->kind == K_NEWOBJ || nd->kind == K_OBJ)
            return 1;
        if ((nd->kind == K_DICT || nd->kind == K_SET ||
             nd->kind == K_FROZENSET) && nd->n > 0) {
            uint32_t e = nd->eh;
            for (uint32_t j = 0; j < nd->n; j++, e = sc->edges[e].next)
                if (kind_of(sc, sc->edges[e].child) == K_TUPLE)
                    return 1;
        }
    }
    return 0;
}

void pkscan_state_pass(analysis *an)
{
    scanner *sc = an->sc;
    state s;
    memset(&s, 0, sizeof s);
    s.an = an;
    s.sc = sc;
    size_t n = sc->nnodes ? sc->nnodes : 1;
    memacct *m = sc->acct;
    if (!pkscan_state_has_work(sc))
        return;
    s.prov = scalloc(m, n, 1);
    s.taint = scalloc(m, n, sizeof(uint32_t));
    s.by = scalloc(m, n, sizeof(uint32_t));
    s.taint_by = scalloc(m, n, sizeof(uint32_t));
    s.built = scalloc(m, n, sizeof(uint32_t));
    s.typing = scalloc(m, n, 1);
    s.size = scalloc(m, n, sizeof(uint64_t));
    s.argok = scalloc(m, n, 1);
    s.cache = scalloc(m, CALLEE_CACHE, sizeof *s.cache);
    if (s.cache)
        for (size_t i = 0; i < CALLEE_CACHE; i++)
            s.cache[i].node = NONE_ID;
    if (!s.prov || !s.taint || !s.by || !s.taint_by || !s.built ||
        !s.typing || !s.size || !s.argok || !s.cache) {
        an->oom = 1;
        goto done;
    }
    for (size_t i = 0; i < sc->nwrites; i++)
        if (sc->writes[3 * i + 2] == CPK_OP_BUILD &&
            !s.built[sc->writes[3 * i]])
            s.built[sc->writes[3 * i]] = sc->writes[3 * i + 1] + 1;
    for (size_t i = 0; i < sc->nnodes && !s.oom; i++) {
        s.cur = (uint32_t)i;
        node_prov(&s, (uint32_t)i);
    }
    s.cur = (uint32_t)sc->nnodes;
    keys_pass(&s);
    for (size_t i = 0; i < sc->nwrites && !s.oom; i++)
        check_write(&s, sc->writes[3 * i], sc->writes[3 * i + 1], 0);
    if (s.oom) {
        an->oom = 1;
        goto done;
    }
    pkscan_report *r = &an->rep->pub;
    if (s.nout) {
        r->state_writes = pkscan_arena_alloc(&an->rep->mem,
                                             s.nout * sizeof *s.out,
                                             sizeof(void *));
        if (r->state_writes == NULL) {
            an->oom = 1;
            goto done;
        }
        /* in input order */
        memcpy(r->state_writes, s.out, s.nout * sizeof *s.out);
        qsort(r->state_writes, s.nout, sizeof *s.out, by_offset);
    }
    r->n_state_writes = s.nout;
    r->n_state_total = s.total;
    r->n_state_vouchable = s.vouchable;
done:
    if (s.prov)
        acct_give(m, n);
    if (s.taint)
        acct_give(m, n * sizeof(uint32_t));
    if (s.by)
        acct_give(m, n * sizeof(uint32_t));
    if (s.taint_by)
        acct_give(m, n * sizeof(uint32_t));
    if (s.built)
        acct_give(m, n * sizeof(uint32_t));
    if (s.typing)
        acct_give(m, n);
    if (s.size)
        acct_give(m, n * sizeof(uint64_t));
    if (s.argok)
        acct_give(m, n);
    if (s.cache)
        acct_give(m, CALLEE_CACHE * sizeof *s.cache);
    acct_give(m, s.capseen * sizeof(uint32_t));
    acct_give(m, s.capwork * sizeof(uint32_t) + s.capout * sizeof *s.out);
    free(s.prov);
    free(s.taint);
    free(s.by);
    free(s.taint_by);
    free(s.built);
    free(s.typing);
    free(s.size);
    free(s.argok);
    free(s.cache);
    free(s.seen);
    free(s.work);
    free(s.out);
}
