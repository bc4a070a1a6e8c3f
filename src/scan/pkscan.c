/* pkscan.c - static pickle inspection: a model of CPython's unpickler that
 * builds a value graph without executing anything, then an analysis pass
 * that names imports, functions and classes and, with PKSCAN_SPANS,
 * measures the bytes each part carried by value takes (the walk then
 * also keeps where each stack item's opcodes start, and its calls and
 * BUILDs). Contract: src/pkscan.h. The
 * marshal reader for code objects is src/marshal_scan.c.
 *
 * Walker: Modules/_pickle.c load() opcode by opcode (Pdata stack with its
 * fence, the mark stack, memo, FRAME, readline semantics), failing with
 * CPython's message where CPython fails before calling anything. Each
 * value pushed is a node in an arena; containers keep their items as an
 * edge list, so APPENDS/SETITEMS on a memoised list stay visible to the
 * analysis. The analysis walks the arena forwards (operands are always
 * older than what uses them), so it never recurses. */
#include "scan/pkscan.h"
#include "scan/format.h"       /* cpk_format_parse: the format markers */
#include "scan/marshal_scan.h" /* cpk_mscan_code */
#include "common/marshal_codes.h"  /* CPK_MC_CODE, CPK_MC_TYPE_MASK */
#include "common/pickle_ops.h"     /* CPK_OP_* */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE_ID UINT32_MAX

/* Node kinds. Everything from K_GLOBAL on is "opaque": its runtime type is
 * only known by running the load. */
enum {
    K_NONE = 0, K_BOOL, K_INT, K_FLOAT, K_STR, K_BYTES, K_BYTEARRAY,
    K_TUPLE, K_LIST, K_DICT, K_SET, K_FROZENSET,
    K_GLOBAL, K_DYNAMIC, K_EXT, K_REDUCE, K_NEWOBJ, K_OBJ, K_BUFFER,
    K_NKINDS
};

static const char *const kind_names[K_NKINDS] = {
    "None", "bool", "int", "float", "str", "bytes", "bytearray", "tuple",
    "list", "dict", "set", "frozenset", "global", "global", "ext",
    "instance", "instance", "instance", "buffer",
};

#define NF_BIGINT 0x1 /* K_INT that does not fit int64 */
#define NF_DEC 0x2    /* K_STR/K_BYTES/K_BYTEARRAY: the bytes are in
                         scanner.decbuf, not in the input */
#define NF_MODIFIED 0x4 /* an opaque node BUILD, APPEND(S), SETITEM(S) or
                           ADDITEMS applied to: changed in place */

/* One value of the model: 40 bytes, the scan's main memory cost (one per
 * value-pushing opcode; pkscan.h "Costs"). Offsets and counts are 32-bit:
 * the input is smaller than 4 GiB. */
typedef struct {
    uint8_t kind;
    uint8_t flags;
    uint16_t depth; /* nesting depth opcode by opcode (1: a leaf), saturating */
    uint32_t refs; /* times consumed as an operand (saturating) */
    uint32_t off;  /* offset of the creating opcode */
    uint32_t eh, et, n; /* items (edges): first, last, count. Any node
                           may get them: APPENDS on an opaque object */
    /* K_REDUCE: a = callable, b = args; K_NEWOBJ: a, b = cls, args (the
     * kwargs of NEWOBJ_EX are not kept: nothing reads them); K_OBJ: a =
     * cls, b = args tuple; K_GLOBAL: a = module str node, b = name str
     * node (after fix_imports); K_DYNAMIC: a, b the operands; K_EXT:
     * ival = code. */
    uint32_t a, b;
    /* K_LIST, K_DICT, K_SET, K_FROZENSET: ival = items summarised, not
     * kept as edges (plain scalars; for a dict, whole pairs whose key is
     * one: see `summable`) */
    union {
        struct {
            uint32_t at, len; /* bytes at input + at (decbuf + at with
                                 NF_DEC) */
        } s;
        int64_t ival;
        struct {
            uint32_t wm, wn; /* K_GLOBAL: written names if mapped */
        } w;
    } u;
} node;

typedef char node_is_40_bytes[sizeof(node) == 40 ? 1 : -1];

typedef struct {
    uint32_t child, next;
} edge;

/* Stable-address byte storage (decoded strings, report strings). */
typedef struct blob {
    struct blob *next;
    size_t used, cap;
    char data[];
} blob;

/* Memory charged against the caller's cap (pkscan_scan_limited): every
 * array and arena of a scan, counted at its capacity (a growing array at
 * old and new size while realloc moves it), so what the scan holds never
 * exceeds `limit` by more than the fixed bookkeeping. */
typedef struct {
    size_t used, limit; /* limit 0: none */
    int hit;            /* an allocation was refused by the cap */
} memacct;

static int acct_take(memacct *m, size_t k)
{
    if (m->limit && (m->used > m->limit || k > m->limit - m->used)) {
        m->hit = 1;
        return -1;
    }
    m->used += k;
    return 0;
}

static void acct_give(memacct *m, size_t k)
{
    m->used -= k < m->used ? k : m->used;
}

/* cpk_grow, charged to `m`, growing by half (not doubling) once past
 * 64 Ki elements: the slack of a huge array is a third, not a half. */
static int sgrow(memacct *m, void **arr, size_t *cap, size_t need,
                 size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (ncap > ((size_t)-1) / 4 / elem)
            return -1;
        ncap = ncap < 65536 ? ncap * 2 : ncap + ncap / 2;
    }
    if (acct_take(m, ncap * elem))
        return -1;
    void *p = realloc(*arr, ncap * elem);
    if (p == NULL) {
        acct_give(m, ncap * elem);
        return -1;
    }
    acct_give(m, *cap * elem);
    *arr = p;
    *cap = ncap;
    return 0;
}

/* calloc(n, elem) charged to `m` (release with acct_give). */
static void *scalloc(memacct *m, size_t n, size_t elem)
{
    if (n > ((size_t)-1) / elem || acct_take(m, n * elem))
        return NULL;
    void *p = calloc(n, elem);
    if (p == NULL)
        acct_give(m, n * elem);
    return p;
}

typedef struct {
    blob *head;
    memacct *acct;
} arena;

static void *arena_alloc(arena *ar, size_t n, size_t align)
{
    blob *b = ar->head;
    if (b) {
        size_t at = (b->used + align - 1) & ~(align - 1);
        if (at <= b->cap && n <= b->cap - at) {
            b->used = at + n;
            return b->data + at;
        }
    }
    size_t cap = n + align > 65536 ? n + align : 65536;
    if (cap > ((size_t)-1) / 2 || acct_take(ar->acct, sizeof(blob) + cap))
        return NULL;
    b = malloc(sizeof(blob) + cap);
    if (b == NULL) {
        acct_give(ar->acct, sizeof(blob) + cap);
        return NULL;
    }
    b->next = ar->head;
    b->cap = cap;
    ar->head = b;
    size_t at = ((uintptr_t)b->data % align) ? align - (uintptr_t)b->data % align : 0;
    b->used = at + n;
    return b->data + at;
}

static void arena_free(arena *ar)
{
    blob *b = ar->head;
    while (b) {
        blob *nx = b->next;
        acct_give(ar->acct, sizeof(blob) + b->cap);
        free(b);
        b = nx;
    }
    ar->head = NULL;
}

/* The report and what it owns. */
typedef struct {
    pkscan_report pub;
    memacct acct;   /* what the scan holds, against the cap */
    arena mem;
    size_t budget;  /* analysis work left before `truncated` */
    size_t ibudget; /* bytes of import names left to copy */
} report_impl;

typedef struct {
    const uint8_t *d;
    size_t n;
    unsigned flags;
    report_impl *rep;

    node *nodes;
    size_t nnodes, capnodes;
    edge *edges;
    size_t nedges, capedges;
    uint32_t *stack;
    size_t nstack, capstack;
    uint32_t *marks; /* stack positions (fewer than the input's bytes) */
    size_t nmarks, capmarks;
    size_t fence;
    /* BUILDs on opaque objects, three ids each: the object, its state,
     * and how many ops it had had before (its edges, in order) */
    uint32_t *builds;
    size_t nbuilds, capbuilds;

    uint32_t *memo_dense; /* index -> node id + 1 */
    size_t memo_dense_cap, memo_dense_limit;
    size_t memo_len; /* distinct indices set (MEMOIZE's next index) */

    int proto;
    size_t frame_end; /* end of the current FRAME, 0 outside frames */
    char *decbuf; /* decoded protocol-0 strings and fix_imports names
                     (node offsets into it: it may move while walking) */
    size_t ndec, capdec;
    memacct *acct; /* the report's */
    arena dec; /* the analysis': joined names, parameter lists */
    int failed;
    /* Plain scalars (None, bool, binary ints and floats, binary bytes and
     * bytearrays) are pushed as LAZY | their opcode's offset, without a
     * node: one is made (scalar_node) only when something keeps the
     * value apart (an operand, a tuple item, the memo, DUP, STOP). Those
     * that end up as items of a plain list, dict, set or frozenset are
     * counted there (summarised), never stored: memory follows the
     * memo, the stack and what the analysis reads, not the number of
     * values. Off when the input is 2 GiB or more (node ids use all 32
     * bits then). */
    int lazy;
    size_t first_lazy; /* offset of the first lazy scalar, SIZE_MAX: none */
    /* PKSCAN_SPANS (else all 0): where the expression of each stack item
     * starts (an offset, beside `stack`), the offset of each MARK
     * (beside `marks`), the calls and BUILDs that may make or fill a
     * part, and 1 + the one the memo PUTs that follow extend */
    int spans;
    uint32_t *sstart, *mkoff;
    size_t capsstart, capmkoff;
    struct span_rec *recs;
    size_t nrecs, caprecs;
    size_t pending;
} scanner;

/* A REDUCE, NEWOBJ, OBJ or INST, or a BUILD on what one made (with
 * PKSCAN_SPANS): what may make a part carried by value, or set its
 * state. */
typedef struct span_rec {
    uint32_t node;   /* the call's node; BUILD: the object it sets */
    uint32_t lo, hi; /* from the start of the call's expression (BUILD:
                        of the state's) to the end of the opcode and of
                        the memo PUTs after it */
    uint8_t build;   /* a BUILD */
    uint8_t popped;  /* a POP follows, at `hi` */
} span_rec;

/* A stack entry that is a lazy scalar (scanner.lazy). */
#define LAZY 0x80000000u

/* --- errors -------------------------------------------------------------- */

static char *rep_strdup(report_impl *r, const char *p, size_t n)
{
    char *s = arena_alloc(&r->mem, n + 1, 1);
    if (s == NULL)
        return NULL;
    if (n)
        memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

static int fail(scanner *sc, pkscan_status st, size_t off, const char *fmt,
                ...)
{
    if (sc->failed)
        return -1;
    sc->failed = 1;
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    pkscan_report *r = &sc->rep->pub;
    r->status = st;
    r->error_offset = off;
    r->error_opcode = off < sc->n ? sc->d[off] : -1;
    /* the message itself (at most 256 bytes) is not held to the cap */
    size_t limit = sc->rep->acct.limit;
    sc->rep->acct.limit = 0;
    r->error = rep_strdup(sc->rep, buf, strlen(buf));
    sc->rep->acct.limit = limit;
    if (r->error == NULL)
        r->error = "out of memory";
    return -1;
}

/* An allocation failed: out of memory, or over the cap. */
static int nomem(scanner *sc, size_t off)
{
    if (sc->acct->hit) {
        size_t mib = sc->acct->limit >> 20;
        if (mib > 0)
            return fail(sc, PKSCAN_ERR_LIMIT, off,
                        "needs more than %zu MiB of memory to inspect", mib);
        return fail(sc, PKSCAN_ERR_LIMIT, off,
                    "needs more than %zu bytes of memory to inspect",
                    sc->acct->limit);
    }
    return fail(sc, PKSCAN_ERR_NOMEM, off, "out of memory");
}

/* --- nodes --------------------------------------------------------------- */

static uint32_t new_node(scanner *sc, int kind, size_t off)
{
    if (sc->nnodes >= UINT32_MAX - 1 ||
        sgrow(sc->acct, (void **)&sc->nodes, &sc->capnodes, sc->nnodes + 1,
              sizeof(node))) {
        nomem(sc, off);
        return NONE_ID;
    }
    node *nd = &sc->nodes[sc->nnodes];
    memset(nd, 0, sizeof *nd);
    nd->kind = (uint8_t)kind;
    nd->off = (uint32_t)off;
    nd->a = nd->b = NONE_ID;
    nd->depth = 1;
    return (uint32_t)sc->nnodes++;
}

static uint64_t le(const uint8_t *p, int k);

static int is_lazy(const scanner *sc, uint32_t e)
{
    return sc->lazy && (e & LAZY) && e != NONE_ID;
}

/* The kind of the value a scalar opcode pushes. */
static int scalar_kind(uint8_t op)
{
    switch (op) {
    case CPK_OP_NONE: return K_NONE;
    case CPK_OP_NEWTRUE: case CPK_OP_NEWFALSE: return K_BOOL;
    case CPK_OP_BINFLOAT: return K_FLOAT;
    case CPK_OP_SHORT_BINBYTES: case CPK_OP_BINBYTES: case CPK_OP_BINBYTES8:
        return K_BYTES;
    case CPK_OP_BYTEARRAY8: return K_BYTEARRAY;
    default: return K_INT; /* BININT, BININT1, BININT2, LONG1 */
    }
}

/* The kind of a stack entry or node id, without making a node. */
static int kind_e(const scanner *sc, uint32_t e)
{
    if (!is_lazy(sc, e))
        return sc->nodes[e].kind;
    return scalar_kind(sc->d[e & ~LAZY]);
}

/* The node of the scalar opcode at `off` (its argument already checked
 * by the walk): what step made for it before scalars were lazy. */
static uint32_t scalar_node(scanner *sc, size_t off)
{
    const uint8_t *p = sc->d + off + 1;
    uint8_t op = sc->d[off];
    uint32_t id = new_node(sc, scalar_kind(op), off);
    if (id == NONE_ID)
        return NONE_ID;
    node *nd = &sc->nodes[id];
    int k;
    switch (op) {
    case CPK_OP_NEWTRUE: case CPK_OP_NEWFALSE:
        nd->u.ival = op == CPK_OP_NEWTRUE;
        break;
    case CPK_OP_BININT: case CPK_OP_BININT1: case CPK_OP_BININT2:
        k = op == CPK_OP_BININT ? 4 : op == CPK_OP_BININT1 ? 1 : 2;
        nd->u.ival = k == 4 ? (int64_t)(int32_t)le(p, 4) : (int64_t)le(p, k);
        break;
    case CPK_OP_LONG1:
        k = p[0];
        if (k <= 8) {
            uint64_t v = le(p + 1, k);
            if (k > 0 && k < 8 && (p[k] & 0x80))
                v |= ~(uint64_t)0 << (8 * k);
            nd->u.ival = (int64_t)v;
        } else {
            nd->flags |= NF_BIGINT;
        }
        break;
    case CPK_OP_SHORT_BINBYTES: case CPK_OP_BINBYTES: case CPK_OP_BINBYTES8:
    case CPK_OP_BYTEARRAY8:
        k = op == CPK_OP_SHORT_BINBYTES ? 1 : op == CPK_OP_BINBYTES ? 4 : 8;
        nd->u.s.at = (uint32_t)(off + 1 + (size_t)k);
        nd->u.s.len = (uint32_t)le(p, k);
        break;
    default:
        break;
    }
    return id;
}

/* What a scalar opcode pushes: a lazy entry, or its node. */
static uint32_t scalar(scanner *sc, size_t off)
{
    if (!sc->lazy)
        return scalar_node(sc, off);
    if (off < sc->first_lazy)
        sc->first_lazy = off;
    return LAZY | (uint32_t)off;
}

/* stack[i] as a node id, making the node of a lazy scalar in place.
 * NONE_ID when that fails (the scan has failed). */
static uint32_t at(scanner *sc, size_t i)
{
    uint32_t e = sc->stack[i];
    if (is_lazy(sc, e)) {
        e = scalar_node(sc, e & ~LAZY);
        if (e != NONE_ID)
            sc->stack[i] = e;
    }
    return e;
}

/* Items of a container summarised (node.u.ival) and all its items. */
static uint64_t nsum(const node *nd)
{
    int k = nd->kind;
    return k == K_LIST || k == K_DICT || k == K_SET || k == K_FROZENSET
               ? (uint64_t)nd->u.ival : 0;
}

static uint64_t nitems(const node *nd)
{
    return nd->n + nsum(nd);
}

static void use(scanner *sc, uint32_t id)
{
    if (id != NONE_ID && sc->nodes[id].refs != UINT32_MAX)
        sc->nodes[id].refs++;
}

/* `child` became part of `parent` at the opcode at `off`: parent is at
 * least one level deeper than child. Depths are not carried up to
 * containers that hold `parent` already: this is only where the nesting
 * first reached its depth opcode by opcode (max_depth_offset);
 * depth_pass computes the real depth once the walk is done. An item put
 * into itself (a list appending itself) does not deepen. */
static void deepen(scanner *sc, uint32_t parent, uint32_t child, size_t off)
{
    if (child == NONE_ID || parent == NONE_ID || child == parent)
        return;
    unsigned d = sc->nodes[child].depth + 1u;
    if (d > UINT16_MAX)
        d = UINT16_MAX;
    if (d <= sc->nodes[parent].depth)
        return;
    sc->nodes[parent].depth = (uint16_t)d;
    pkscan_report *r = &sc->rep->pub;
    if (d > r->max_depth) {
        r->max_depth = d;
        r->max_depth_offset = off;
    }
}

/* deepen() for a summarised item (a leaf, depth 1). */
static void deepen1(scanner *sc, uint32_t parent, size_t off)
{
    if (sc->nodes[parent].depth >= 2)
        return;
    sc->nodes[parent].depth = 2;
    pkscan_report *r = &sc->rep->pub;
    if (2 > r->max_depth) {
        r->max_depth = 2;
        r->max_depth_offset = off;
    }
}

static int add_edge(scanner *sc, uint32_t parent, uint32_t child,
                    size_t off);

/* Whether items stack[i] (and, for a dict, its value stack[i + 1]) may
 * be summarised into the plain container `parent` rather than kept: a
 * lazy scalar; of a dict, a pair whose key is one and whose value is a
 * lazy scalar or a scalar node (a str). No analysis reads them: dict
 * lookups and listed keys are str keys, plain_value holds for scalars,
 * and no scalar is code or hashes by a class by value. */
static int summable(const scanner *sc, int k, size_t i)
{
    uint32_t e = sc->stack[i];
    if (!is_lazy(sc, e))
        return 0;
    if (k == K_LIST || k == K_SET || k == K_FROZENSET)
        return 1;
    if (k != K_DICT)
        return 0;
    uint32_t v = sc->stack[i + 1];
    return is_lazy(sc, v) || sc->nodes[v].kind <= K_BYTEARRAY;
}

/* Add stack[start:end] to `parent` as items: summarised where summable,
 * else as edges (step 2 for a dict: pairs). */
static int add_items(scanner *sc, uint32_t parent, size_t start, size_t end,
                     size_t off)
{
    size_t step = sc->nodes[parent].kind == K_DICT ? 2 : 1;
    for (size_t i = start; i < end; i += step) {
        if (step == 2 && i + 1 >= end)
            step = 1; /* an odd tail: only where CPython refuses it later */
        if (summable(sc, sc->nodes[parent].kind, i)) {
            sc->nodes[parent].u.ival += (int64_t)step;
            deepen1(sc, parent, off);
            if (step == 2 && !is_lazy(sc, sc->stack[i + 1])) {
                use(sc, sc->stack[i + 1]);
                deepen(sc, parent, sc->stack[i + 1], off);
            }
            continue;
        }
        for (size_t j = i; j < i + step; j++) {
            uint32_t c = at(sc, j);
            if (c == NONE_ID || add_edge(sc, parent, c, off))
                return -1;
        }
    }
    return 0;
}

static int add_edge(scanner *sc, uint32_t parent, uint32_t child, size_t off)
{
    if (sc->nedges >= UINT32_MAX - 8 || /* depth_pass' cursor: id + 4 */
        sgrow(sc->acct, (void **)&sc->edges, &sc->capedges, sc->nedges + 1,
              sizeof(edge)))
        return nomem(sc, off);
    uint32_t e = (uint32_t)sc->nedges++;
    sc->edges[e].child = child;
    sc->edges[e].next = NONE_ID;
    node *p = &sc->nodes[parent];
    if (p->kind >= K_GLOBAL)
        p->flags |= NF_MODIFIED;
    if (p->n == 0)
        p->eh = e;
    else
        sc->edges[p->et].next = e;
    p->et = e;
    p->n++;
    use(sc, child);
    deepen(sc, parent, child, off);
    return 0;
}

static int push(scanner *sc, uint32_t id, size_t off)
{
    if (id == NONE_ID)
        return -1;
    if (sgrow(sc->acct, (void **)&sc->stack, &sc->capstack, sc->nstack + 1,
              sizeof(uint32_t)))
        return nomem(sc, off);
    sc->stack[sc->nstack++] = id;
    return 0;
}

/* Pdata_stack_underflow: which message depends on a pending MARK. */
static int underflow(scanner *sc, size_t off)
{
    return fail(sc, PKSCAN_ERR_UNDERFLOW, off,
                sc->nmarks ? "unexpected MARK found"
                           : "unpickling stack underflow");
}

static int pop(scanner *sc, size_t off, uint32_t *out)
{
    if (sc->nstack <= sc->fence)
        return underflow(sc, off);
    if (at(sc, sc->nstack - 1) == NONE_ID)
        return -1;
    *out = sc->stack[--sc->nstack];
    return 0;
}

/* marker(): pop the innermost MARK, return the stack position it saved. */
static int marker(scanner *sc, size_t off, size_t *pos)
{
    if (sc->nmarks < 1)
        return fail(sc, PKSCAN_ERR_MARK, off, "could not find MARK");
    *pos = sc->marks[--sc->nmarks];
    sc->fence = sc->nmarks ? sc->marks[sc->nmarks - 1] : 0;
    return 0;
}

/* Pop stack[start:] into a new container node of `kind`. */
static uint32_t pop_into(scanner *sc, int kind, size_t start, size_t off)
{
    if (start < sc->fence) {
        underflow(sc, off);
        return NONE_ID;
    }
    /* the nodes of items kept (a tuple's: they are positional, arguments)
     * made before the container's: operands are older than what uses
     * them */
    size_t step = kind == K_DICT ? 2 : 1;
    for (size_t i = start; i < sc->nstack; i += step)
        if (!(step == 2 && i + 1 < sc->nstack && summable(sc, kind, i)) &&
            !(step == 1 && summable(sc, kind, i)))
            for (size_t j = i; j < i + step && j < sc->nstack; j++)
                if (at(sc, j) == NONE_ID)
                    return NONE_ID;
    uint32_t id = new_node(sc, kind, off);
    if (id == NONE_ID)
        return NONE_ID;
    if (add_items(sc, id, start, sc->nstack, off))
        return NONE_ID;
    sc->nstack = start;
    return id;
}

/* --- reading ------------------------------------------------------------- */

/* Frames as pickle's Python implementation (_Unframer) enforces them: a
 * read that starts inside a frame must end inside it; one that starts at
 * its end leaves the frame. CPython's C unpickler ignores frames when it
 * loads from bytes but not when it reads a file, where an opcode that
 * crosses a frame's end is read differently: such a pickle means two
 * things, so it is refused. */
static int frame_read(scanner *sc, size_t start, size_t k, size_t off)
{
    if (sc->frame_end == 0)
        return 0;
    if (start == sc->frame_end) {
        sc->frame_end = 0;
        return 0;
    }
    if (k > sc->frame_end - start)
        return fail(sc, PKSCAN_ERR_LENGTH, off,
                    "pickle exhausted before end of frame");
    return 0;
}

static int read_n(scanner *sc, size_t *pos, size_t k, size_t off,
                  const uint8_t **p)
{
    if (sc->n - *pos < k)
        return fail(sc, PKSCAN_ERR_TRUNCATED, off,
                    "pickle data was truncated");
    if (frame_read(sc, *pos, k, off))
        return -1;
    *p = sc->d + *pos;
    *pos += k;
    return 0;
}

static uint64_t le(const uint8_t *p, int k)
{
    uint64_t x = 0;
    for (int i = 0; i < k; i++)
        x |= (uint64_t)p[i] << (8 * i);
    return x;
}

/* A declared length: check it against the bytes left. */
static int read_len(scanner *sc, size_t *pos, uint64_t len, size_t off,
                    const char *what, const uint8_t **p)
{
    if (len > (uint64_t)(sc->n - *pos))
        return fail(sc, PKSCAN_ERR_LENGTH, off,
                    "%s length %llu exceeds the %zu bytes left "
                    "(pickle data was truncated)",
                    what, (unsigned long long)len, sc->n - *pos);
    if (frame_read(sc, *pos, (size_t)len, off))
        return -1;
    *p = sc->d + *pos;
    *pos += (size_t)len;
    return 0;
}

/* _Unpickler_Readline: the line including '\n'; no newline before the end
 * of the input is truncation. `minlen` 2 is bad_readline for an empty
 * line. Returns the length without the newline. */
static int read_line(scanner *sc, size_t *pos, size_t off, size_t minlen,
                     const char **p, size_t *len)
{
    const uint8_t *start = sc->d + *pos;
    const uint8_t *nl = memchr(start, '\n', sc->n - *pos);
    if (nl == NULL)
        return fail(sc, PKSCAN_ERR_TRUNCATED, off,
                    "pickle data was truncated");
    size_t l = (size_t)(nl - start) + 1;
    if (frame_read(sc, *pos, l, off))
        return -1;
    *pos += l;
    if (l < minlen)
        return fail(sc, PKSCAN_ERR_TRUNCATED, off,
                    "pickle data was truncated");
    *p = (const char *)start;
    *len = l - 1;
    return 0;
}

/* UTF-8 as CPython decodes it; `surrogates`: accept encoded surrogates
 * (the "surrogatepass" error handler of BINUNICODE). */
static int utf8_ok(const uint8_t *s, size_t n, int surrogates)
{
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t k;
        uint32_t cp;
        if (c >= 0xc2 && c <= 0xdf) {
            k = 1;
            cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            k = 2;
            cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            k = 3;
            cp = c & 0x07;
        } else {
            return 0;
        }
        if (n - i <= k)
            return 0;
        for (size_t j = 1; j <= k; j++) {
            if ((s[i + j] & 0xc0) != 0x80)
                return 0;
            cp = cp << 6 | (s[i + j] & 0x3f);
        }
        if ((k == 2 && cp < 0x800) || (k == 3 && (cp < 0x10000 ||
                                                  cp > 0x10ffff)))
            return 0;
        if (!surrogates && cp >= 0xd800 && cp <= 0xdfff)
            return 0;
        i += k + 1;
    }
    return 1;
}

static int ascii_ok(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((uint8_t)s[i] >= 0x80)
            return 0;
    return 1;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
           c == '\f';
}

static int digit_val(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'z') return c - 'a' + 10;
    if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
    return 99;
}

/* PyLong_FromString(s, NULL, base) with base 0 or 10, on s[0..n) (the
 * text stops at a NUL byte as the C string would). Sets *neg and the
 * magnitude saturated at UINT64_MAX in *mag. */
static int pyint_parse(const char *s, size_t n, int base, int *neg,
                       uint64_t *mag)
{
    const char *nul = memchr(s, '\0', n);
    if (nul)
        n = (size_t)(nul - s);
    size_t i = 0;
    *neg = 0;
    *mag = 0;
    while (i < n && is_space(s[i]))
        i++;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        *neg = s[i++] == '-';
    int b = base;
    int allow_lead_us = 0;
    if (base == 0) {
        if (n - i >= 2 && s[i] == '0' &&
            (s[i + 1] == 'x' || s[i + 1] == 'X' || s[i + 1] == 'o' ||
             s[i + 1] == 'O' || s[i + 1] == 'b' || s[i + 1] == 'B')) {
            char c = s[i + 1] | 0x20;
            b = c == 'x' ? 16 : c == 'o' ? 8 : 2;
            i += 2;
            allow_lead_us = 1;
        } else {
            b = 10;
        }
    }
    size_t start = i, ndig = 0;
    int lead_zero = 0, nonzero = 0;
    for (; i < n; i++) {
        if (s[i] == '_') {
            if (i == start ? !allow_lead_us : s[i - 1] == '_')
                return 0;
            continue;
        }
        int v = digit_val(s[i]);
        if (v >= b)
            break;
        if (ndig == 0 && v == 0)
            lead_zero = 1;
        if (v)
            nonzero = 1;
        ndig++;
        if (*mag > (UINT64_MAX - (uint64_t)v) / (uint64_t)b)
            *mag = UINT64_MAX;
        else
            *mag = *mag * (uint64_t)b + (uint64_t)v;
    }
    if (ndig == 0 || s[i - 1] == '_')
        return 0;
    /* Base 0: "012" is not Python syntax ("00" is). */
    if (base == 0 && b == 10 && lead_zero && nonzero)
        return 0;
    /* int() of more than sys.int_info.default_max_str_digits (4300)
     * decimal digits raises ValueError (CPython 3.11, backported to
     * 3.9.14 and 3.10.7: every version ccloudpickle supports); bases
     * that are powers of two have no limit. */
    if (b == 10 && ndig > 4300)
        return 0;
    while (i < n && is_space(s[i]))
        i++;
    return i == n;
}

/* C strtol(s, &end, 0) accepting the whole line without overflowing a
 * long: INT's fast path, which takes "012" as octal. On overflow CPython
 * falls back to PyLong_FromString (pyint_parse). */
static int strtol_whole(const char *s, size_t n)
{
    size_t i = 0;
    int neg = 0;
    while (i < n && is_space(s[i]) && s[i] != '\n')
        i++;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    int b = 10;
    if (n - i >= 2 && s[i] == '0' && (s[i + 1] | 0x20) == 'x' && n - i > 2 &&
        digit_val(s[i + 2]) < 16) {
        b = 16;
        i += 2;
    } else if (i < n && s[i] == '0') {
        b = 8;
    }
    size_t nd = 0;
    uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    while (i < n && digit_val(s[i]) < b) {
        uint64_t d = (uint64_t)digit_val(s[i]);
        if (v > (lim - d) / (uint64_t)b)
            return 0; /* ERANGE */
        v = v * (uint64_t)b + d;
        i++;
        nd++;
    }
    return nd > 0 && i == n;
}

/* PyOS_string_to_double's syntax (no surrounding spaces, no '_'). */
static int float_ok(const char *s, size_t n)
{
    const char *nul = memchr(s, '\0', n);
    if (nul)
        n = (size_t)(nul - s);
    size_t i = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    static const char *const words[] = {"infinity", "inf", "nan"};
    for (int w = 0; w < 3; w++) {
        size_t wl = strlen(words[w]);
        if (n - i == wl) {
            size_t j = 0;
            while (j < wl && (s[i + j] | 0x20) == words[w][j])
                j++;
            if (j == wl)
                return 1;
        }
    }
    size_t d1 = 0, d2 = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9') {
        i++;
        d1++;
    }
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            i++;
            d2++;
        }
    }
    if (d1 + d2 == 0)
        return 0;
    if (i < n && (s[i] | 0x20) == 'e') {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t d3 = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            i++;
            d3++;
        }
        if (d3 == 0)
            return 0;
    }
    return i == n;
}

/* PyOS_string_to_double(..., OverflowError): a finite literal that rounds
 * to infinity is an error. It does iff its value is at least 2^1024 -
 * 2^970 (half an ulp above DBL_MAX, ties going up); compare digits with
 * that bound exactly instead of relying on strtod and the locale. The
 * syntax was checked by float_ok. */
static int float_overflows(const char *s, size_t n)
{
    static const char bound[] =
        "1797693134862315807937289714053034150799341327100378269361737789"
        "8044496829276475094664901797758720709633028641669288791094655554"
        "7851940402630657488671505820681908902000708383676273854845817711"
        "5317644757302700698555713669596228429148198608349364752927190741"
        "68444365510704342711559699508093042880177904174497792";
    const char *nul = memchr(s, '\0', n);
    if (nul)
        n = (size_t)(nul - s);
    size_t i = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    if (i < n && (s[i] | 0x20) != '.' && (s[i] < '0' || s[i] > '9'))
        return 0; /* inf, nan */
    /* the digits, without the point: value = 0.DIGITS * 10^e10 */
    size_t d0 = i, dend;
    int64_t e10 = 0, exp = 0;
    int seen_nonzero = 0, after_point = 0;
    size_t first = 0;
    for (; i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.'); i++) {
        if (s[i] == '.') {
            after_point = 1;
            continue;
        }
        if (!seen_nonzero && s[i] != '0') {
            seen_nonzero = 1;
            first = i;
        }
        if (seen_nonzero && !after_point)
            e10++;
        if (!seen_nonzero && after_point)
            e10--;
    }
    dend = i;
    (void)d0;
    if (!seen_nonzero)
        return 0;
    if (i < n) { /* exponent */
        i++;
        int neg = 0;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            neg = s[i++] == '-';
        for (; i < n; i++)
            if (exp < 100000)
                exp = exp * 10 + (s[i] - '0');
        exp = neg ? -exp : exp;
    }
    e10 += exp;
    if (e10 != 309)
        return e10 > 309;
    size_t k = 0;
    for (size_t j = first; j < dend; j++) {
        if (s[j] == '.')
            continue;
        if (k == sizeof bound - 1) /* longer than the bound, equal so far */
            return 1;
        if (s[j] != bound[k])
            return s[j] > bound[k];
        k++;
    }
    return k == sizeof bound - 1; /* equal: a tie rounds up */
}

/* --- memo ---------------------------------------------------------------- */

/* The memo is an array indexed like CPython's, but never larger than the
 * input: a pickler numbers memo entries from 0 and each takes an opcode,
 * so an index beyond the input size is refused (CPython would allocate
 * room for it: 2^28 indices cost gigabytes). */
static uint32_t *memo_slot(scanner *sc, uint64_t idx, int create)
{
    if (idx >= sc->memo_dense_limit)
        return NULL;
    if (idx >= sc->memo_dense_cap) {
        if (!create)
            return NULL;
        size_t ncap = sc->memo_dense_cap ? sc->memo_dense_cap : 256;
        while (ncap <= idx)
            ncap *= 2;
        if (ncap > sc->memo_dense_limit)
            ncap = sc->memo_dense_limit;
        if (acct_take(sc->acct, ncap * sizeof(uint32_t)))
            return NULL;
        uint32_t *p = realloc(sc->memo_dense, ncap * sizeof(uint32_t));
        if (p == NULL) {
            acct_give(sc->acct, ncap * sizeof(uint32_t));
            return NULL;
        }
        acct_give(sc->acct, sc->memo_dense_cap * sizeof(uint32_t));
        memset(p + sc->memo_dense_cap, 0,
               (ncap - sc->memo_dense_cap) * sizeof(uint32_t));
        sc->memo_dense = p;
        sc->memo_dense_cap = ncap;
    }
    return &sc->memo_dense[idx];
}

static int memo_put(scanner *sc, uint64_t idx, size_t off)
{
    if (sc->nstack <= sc->fence)
        return underflow(sc, off);
    if (idx >= sc->memo_dense_limit)
        return fail(sc, PKSCAN_ERR_MEMO, off,
                    "memo index %llu out of range for a %zu-byte pickle",
                    (unsigned long long)idx, sc->n);
    uint32_t *slot = memo_slot(sc, idx, 1);
    if (slot == NULL)
        return nomem(sc, off);
    uint32_t id = at(sc, sc->nstack - 1);
    if (id == NONE_ID)
        return -1;
    if (*slot == 0)
        sc->memo_len++;
    *slot = id + 1;
    return 0;
}

static int memo_get(scanner *sc, uint64_t idx, int neg, size_t off)
{
    uint32_t *slot = neg ? NULL : memo_slot(sc, idx, 0);
    if (slot == NULL || *slot == 0)
        return fail(sc, PKSCAN_ERR_MEMO, off,
                    "Memo value not found at index %s%llu", neg ? "-" : "",
                    (unsigned long long)idx);
    return push(sc, *slot - 1, off);
}

/* --- strings ------------------------------------------------------------- */

/* Room for `n` bytes at the end of decbuf (the bytes a decoder writes;
 * dec_keep then keeps what it used). NULL: out of memory, over the cap,
 * or past 32-bit offsets. The pointer is good until the next dec_room. */
static char *dec_room(scanner *sc, size_t n, size_t off)
{
    if (n >= UINT32_MAX - sc->ndec) {
        fail(sc, PKSCAN_ERR_LENGTH, off,
             "decoded strings of more than 4 GiB");
        return NULL;
    }
    if (sgrow(sc->acct, (void **)&sc->decbuf, &sc->capdec, sc->ndec + n, 1)) {
        nomem(sc, off);
        return NULL;
    }
    return sc->decbuf + sc->ndec;
}

/* A string node for `len` bytes at `p`: in the input (dec 0), or (dec 1)
 * just written at the end of decbuf by a decoder (then kept there). */
static uint32_t str_node(scanner *sc, int kind, const char *p, size_t len,
                         int dec, size_t off)
{
    uint32_t id = new_node(sc, kind, off);
    if (id != NONE_ID) {
        node *nd = &sc->nodes[id];
        if (dec) {
            nd->flags |= NF_DEC;
            nd->u.s.at = (uint32_t)sc->ndec;
            sc->ndec += len;
        } else {
            nd->u.s.at = (uint32_t)((const uint8_t *)p - sc->d);
        }
        nd->u.s.len = (uint32_t)len;
    }
    return id;
}

static uint32_t new_str(scanner *sc, int kind, const char *p, size_t len,
                        size_t off)
{
    return str_node(sc, kind, p, len, 0, off);
}

static uint32_t new_dstr(scanner *sc, const char *p, size_t len, size_t off)
{
    return str_node(sc, K_STR, p, len, 1, off);
}

/* A static name (fix_imports' targets) as a string node. */
static uint32_t new_lit(scanner *sc, const char *lit, size_t off)
{
    size_t l = strlen(lit);
    char *o = dec_room(sc, l, off);
    if (o == NULL)
        return NONE_ID;
    memcpy(o, lit, l);
    return new_dstr(sc, o, l, off);
}

/* The bytes of a K_STR, K_BYTES or K_BYTEARRAY node. */
static void node_bytes(const scanner *sc, uint32_t id, const char **p,
                       size_t *len)
{
    const node *nd = &sc->nodes[id];
    *p = (nd->flags & NF_DEC ? sc->decbuf : (const char *)sc->d) +
         nd->u.s.at;
    *len = nd->u.s.len;
}

static int node_is_str(const scanner *sc, uint32_t id, const char **p,
                       size_t *len)
{
    if (id == NONE_ID || sc->nodes[id].kind != K_STR)
        return 0;
    node_bytes(sc, id, p, len);
    return 1;
}

static int str_eq(const char *p, size_t len, const char *lit)
{
    size_t l = strlen(lit);
    return l == len && (l == 0 || memcmp(p, lit, l) == 0);
}

/* PyBytes_DecodeEscape, as STRING's argument goes through. */
static int decode_escape(scanner *sc, const char *s, size_t n, size_t off,
                         const char **out, size_t *outlen)
{
    char *o = dec_room(sc, n + 1, off);
    if (o == NULL)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        if (s[i] != '\\') {
            o[k++] = s[i++];
            continue;
        }
        if (++i >= n)
            return fail(sc, PKSCAN_ERR_VALUE, off, "Trailing \\ in string");
        char c = s[i++];
        switch (c) {
        case '\n': break;
        case '\\': o[k++] = '\\'; break;
        case '\'': o[k++] = '\''; break;
        case '"': o[k++] = '"'; break;
        case 'b': o[k++] = '\b'; break;
        case 'f': o[k++] = '\014'; break;
        case 't': o[k++] = '\t'; break;
        case 'n': o[k++] = '\n'; break;
        case 'r': o[k++] = '\r'; break;
        case 'v': o[k++] = '\013'; break;
        case 'a': o[k++] = '\007'; break;
        case '0': case '1': case '2': case '3':
        case '4': case '5': case '6': case '7': {
            unsigned v = (unsigned)(c - '0');
            for (int j = 0; j < 2 && i < n && s[i] >= '0' && s[i] <= '7'; j++)
                v = v * 8 + (unsigned)(s[i++] - '0');
            o[k++] = (char)(v & 0xff);
            break;
        }
        case 'x':
            if (n - i >= 2 && digit_val(s[i]) < 16 &&
                digit_val(s[i + 1]) < 16) {
                o[k++] = (char)(digit_val(s[i]) * 16 + digit_val(s[i + 1]));
                i += 2;
                break;
            }
            return fail(sc, PKSCAN_ERR_VALUE, off,
                        "invalid \\x escape at position %zu", i - 2);
        default: /* kept as is (a DeprecationWarning in CPython) */
            o[k++] = '\\';
            o[k++] = c;
        }
    }
    *out = o;
    *outlen = k;
    return 0;
}

static size_t put_utf8(char *o, uint32_t cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xc0 | cp >> 6);
        o[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | cp >> 12);
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | cp >> 18);
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* raw-unicode-escape (UNICODE's argument) decoded to UTF-8. */
static int decode_raw_unicode(scanner *sc, const char *s, size_t n,
                              size_t off, const char **out, size_t *outlen)
{
    if (n > ((size_t)-1) / 4) /* never: n is less than the input */
        return nomem(sc, off);
    char *o = dec_room(sc, 2 * n + 1, off);
    if (o == NULL)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        if (s[i] != '\\') {
            k += put_utf8(o + k, (uint8_t)s[i++]);
            continue;
        }
        size_t bs = i;
        while (i < n && s[i] == '\\')
            o[k++] = s[i++];
        /* \u-escapes count only after an odd number of backslashes */
        if (((i - bs) & 1) == 0 || i >= n || (s[i] != 'u' && s[i] != 'U'))
            continue;
        k--;
        int cnt = s[i] == 'u' ? 4 : 8;
        i++;
        uint32_t cp = 0;
        for (int j = 0; j < cnt; j++, i++) {
            if (i >= n || digit_val(s[i]) >= 16)
                return fail(sc, PKSCAN_ERR_VALUE, off,
                            "truncated \\%sXXXX%s escape",
                            cnt == 4 ? "u" : "U", cnt == 4 ? "" : "XXXX");
            cp = cp << 4 | (uint32_t)digit_val(s[i]);
        }
        if (cp > 0x10ffff)
            return fail(sc, PKSCAN_ERR_VALUE, off,
                        "\\Uxxxxxxxx out of range");
        k += put_utf8(o + k, cp);
    }
    *out = o;
    *outlen = k;
    return 0;
}

/* --- find_class ---------------------------------------------------------- */

#include "scan/pkscan_fix_imports.inc"

/* A GLOBAL node for (module, name), applying protocol < 3's fix_imports
 * like find_class does. `m`, `nm` are K_STR nodes. */
static uint32_t new_global(scanner *sc, uint32_t m, uint32_t nm, size_t off)
{
    uint32_t id = new_node(sc, K_GLOBAL, off);
    if (id == NONE_ID)
        return NONE_ID;
    node *g = &sc->nodes[id];
    g->a = m;
    g->b = nm;
    g->u.w.wm = g->u.w.wn = NONE_ID;
    if (sc->proto >= 3 || (sc->flags & PKSCAN_NO_FIX_IMPORTS))
        return id;
    const char *mp = "", *np = "";
    size_t ml = 0, nl = 0;
    node_is_str(sc, m, &mp, &ml);
    node_is_str(sc, nm, &np, &nl);
    const char *tm = NULL, *tn = NULL;
    for (size_t i = 0; i < sizeof fix_names / sizeof *fix_names; i++)
        if (str_eq(mp, ml, fix_names[i].m) && str_eq(np, nl, fix_names[i].n)) {
            tm = fix_names[i].tm;
            tn = fix_names[i].tn;
            break;
        }
    if (tm == NULL)
        for (size_t i = 0; i < sizeof fix_modules / sizeof *fix_modules; i++)
            if (str_eq(mp, ml, fix_modules[i].m) &&
                (fix_modules[i].upto >= 13 || !(sc->flags & PKSCAN_PY313))) {
                tm = fix_modules[i].tm;
                break;
            }
    if (tm == NULL)
        return id;
    uint32_t nm2 = new_lit(sc, tm, off);
    uint32_t nn2 = nm2 == NONE_ID ? NONE_ID : tn ? new_lit(sc, tn, off) : nm;
    if (nm2 == NONE_ID || nn2 == NONE_ID)
        return NONE_ID;
    g = &sc->nodes[id];
    g->u.w.wm = m;
    g->u.w.wn = nm;
    g->a = nm2;
    g->b = nn2;
    return id;
}

/* --- type checks --------------------------------------------------------- */

/* These three take a node id or a stack entry (lazy or not). */
static int opaque(const scanner *sc, uint32_t id)
{
    return kind_e(sc, id) >= K_GLOBAL;
}

static int unhashable(const scanner *sc, uint32_t id)
{
    int k = kind_e(sc, id);
    return k == K_LIST || k == K_DICT || k == K_SET || k == K_BYTEARRAY;
}

static const char *kname(const scanner *sc, uint32_t id)
{
    return kind_names[kind_e(sc, id)];
}

/* --- opcodes ------------------------------------------------------------- */

static const int8_t op_proto[256] = {
    [CPK_OP_MARK] = 1, [CPK_OP_STOP] = 1, [CPK_OP_POP] = 1, [CPK_OP_DUP] = 1,
    [CPK_OP_FLOAT] = 1, [CPK_OP_INT] = 1, [CPK_OP_LONG] = 1, [CPK_OP_NONE] = 1,
    [CPK_OP_PERSID] = 1, [CPK_OP_REDUCE] = 1, [CPK_OP_STRING] = 1,
    [CPK_OP_UNICODE] = 1, [CPK_OP_APPEND] = 1, [CPK_OP_BUILD] = 1,
    [CPK_OP_GLOBAL] = 1, [CPK_OP_DICT] = 1, [CPK_OP_GET] = 1,
    [CPK_OP_INST] = 1, [CPK_OP_LIST] = 1, [CPK_OP_PUT] = 1,
    [CPK_OP_SETITEM] = 1, [CPK_OP_TUPLE] = 1,
    [CPK_OP_POP_MARK] = 2, [CPK_OP_BININT] = 2, [CPK_OP_BININT1] = 2,
    [CPK_OP_BININT2] = 2, [CPK_OP_BINPERSID] = 2, [CPK_OP_BINSTRING] = 2,
    [CPK_OP_SHORT_BINSTRING] = 2, [CPK_OP_BINUNICODE] = 2,
    [CPK_OP_EMPTY_DICT] = 2, [CPK_OP_APPENDS] = 2, [CPK_OP_BINGET] = 2,
    [CPK_OP_LONG_BINGET] = 2, [CPK_OP_EMPTY_LIST] = 2, [CPK_OP_OBJ] = 2,
    [CPK_OP_BINPUT] = 2, [CPK_OP_LONG_BINPUT] = 2, [CPK_OP_EMPTY_TUPLE] = 2,
    [CPK_OP_SETITEMS] = 2, [CPK_OP_BINFLOAT] = 2,
    [CPK_OP_PROTO] = 3, [CPK_OP_NEWOBJ] = 3, [CPK_OP_EXT1] = 3,
    [CPK_OP_EXT2] = 3, [CPK_OP_EXT4] = 3, [CPK_OP_TUPLE1] = 3,
    [CPK_OP_TUPLE2] = 3, [CPK_OP_TUPLE3] = 3, [CPK_OP_NEWTRUE] = 3,
    [CPK_OP_NEWFALSE] = 3, [CPK_OP_LONG1] = 3, [CPK_OP_LONG4] = 3,
    [CPK_OP_BINBYTES] = 4, [CPK_OP_SHORT_BINBYTES] = 4,
    [CPK_OP_SHORT_BINUNICODE] = 5, [CPK_OP_BINUNICODE8] = 5,
    [CPK_OP_BINBYTES8] = 5, [CPK_OP_EMPTY_SET] = 5, [CPK_OP_ADDITEMS] = 5,
    [CPK_OP_FROZENSET] = 5, [CPK_OP_NEWOBJ_EX] = 5, [CPK_OP_STACK_GLOBAL] = 5,
    [CPK_OP_MEMOIZE] = 5, [CPK_OP_FRAME] = 5,
    [CPK_OP_BYTEARRAY8] = 6, [CPK_OP_NEXT_BUFFER] = 6,
    [CPK_OP_READONLY_BUFFER] = 6,
}; /* protocol + 1; 0: not an opcode */

static int do_append(scanner *sc, size_t x, size_t off)
{
    size_t len = sc->nstack;
    if (x > len || x <= sc->fence)
        return underflow(sc, off);
    if (len == x)
        return 0;
    uint32_t list = sc->stack[x - 1];
    int k = kind_e(sc, list);
    if (!opaque(sc, list) && k != K_LIST && k != K_BYTEARRAY)
        return fail(sc, PKSCAN_ERR_TYPE, off,
                    "'%s' object has no attribute 'append'", kname(sc, list));
    list = at(sc, x - 1);
    if (list == NONE_ID || add_items(sc, list, x, len, off))
        return -1;
    sc->nstack = x;
    return 0;
}

static int do_setitems(scanner *sc, size_t x, size_t off)
{
    size_t len = sc->nstack;
    if (x > len || x <= sc->fence)
        return underflow(sc, off);
    if (len == x)
        return 0;
    if ((len - x) % 2 != 0)
        return fail(sc, PKSCAN_ERR_TYPE, off,
                    "odd number of items for SETITEMS");
    uint32_t d = sc->stack[x - 1];
    int k = kind_e(sc, d);
    if (k == K_DICT) {
        for (size_t i = x; i < len; i += 2)
            if (unhashable(sc, sc->stack[i]))
                return fail(sc, PKSCAN_ERR_TYPE, off, "unhashable type: '%s'",
                            kname(sc, sc->stack[i]));
    } else if (!opaque(sc, d) && k != K_LIST && k != K_BYTEARRAY) {
        return fail(sc, PKSCAN_ERR_TYPE, off,
                    "'%s' object has no attribute '__setitem__'",
                    kname(sc, d));
    }
    d = at(sc, x - 1);
    if (d == NONE_ID || add_items(sc, d, x, len, off))
        return -1;
    sc->nstack = x;
    return 0;
}

static int do_newobj(scanner *sc, int ex, size_t off)
{
    const char *nm = ex ? "NEWOBJ_EX" : "NEWOBJ";
    uint32_t kw = NONE_ID, args = NONE_ID, cls = NONE_ID;
    if (ex && pop(sc, off, &kw))
        return -1;
    if (pop(sc, off, &args) || pop(sc, off, &cls))
        return -1;
    if (!opaque(sc, cls))
        return fail(sc, PKSCAN_ERR_TYPE, off,
                    "%s class argument must be a type, not %s", nm,
                    kname(sc, cls));
    if (!opaque(sc, args) && sc->nodes[args].kind != K_TUPLE)
        return fail(sc, PKSCAN_ERR_TYPE, off,
                    "%s args argument must be a tuple, not %s", nm,
                    kname(sc, args));
    if (ex && !opaque(sc, kw) && sc->nodes[kw].kind != K_DICT)
        return fail(sc, PKSCAN_ERR_TYPE, off,
                    "%s kwargs argument must be a dict, not %s", nm,
                    kname(sc, kw));
    uint32_t id = new_node(sc, K_NEWOBJ, off);
    if (id == NONE_ID)
        return -1;
    sc->nodes[id].a = cls;
    sc->nodes[id].b = args;
    deepen(sc, id, cls, off);
    deepen(sc, id, args, off);
    use(sc, cls);
    use(sc, args);
    /* NEWOBJ_EX's keyword arguments are arguments too (partial(sorted,
     * key=f)): kept as an item of the object, so that what they hold
     * counts as what it holds */
    if (ex && !(sc->nodes[kw].kind == K_DICT && nitems(&sc->nodes[kw]) == 0)) {
        if (add_edge(sc, id, kw, off))
            return -1;
    } else if (ex) {
        deepen(sc, id, kw, off);
        use(sc, kw);
    }
    return push(sc, id, off);
}

static int do_build(scanner *sc, size_t off)
{
    if (sc->nstack < 2 || sc->nstack - 2 < sc->fence)
        return underflow(sc, off);
    uint32_t state = at(sc, sc->nstack - 1);
    uint32_t inst = state == NONE_ID ? NONE_ID : at(sc, sc->nstack - 2);
    if (inst == NONE_ID)
        return -1;
    sc->nstack--;
    if (opaque(sc, inst)) {
        /* may have __setstate__; the state is kept as an item of the
         * instance (its nesting, NF_MODIFIED), and the BUILD recorded:
         * a state it sets may be what a later op calls */
        if (sgrow(sc->acct, (void **)&sc->builds, &sc->capbuilds,
                  3 * (sc->nbuilds + 1), sizeof(uint32_t)))
            return nomem(sc, off);
        sc->builds[3 * sc->nbuilds] = inst;
        sc->builds[3 * sc->nbuilds + 1] = state;
        sc->builds[3 * sc->nbuilds + 2] = sc->nodes[inst].n;
        sc->nbuilds++;
        return add_edge(sc, inst, state, off);
    }
    use(sc, state);
    /* Plain data has neither __setstate__ nor a __dict__: only a None
     * state (and an empty or None slot state) goes through. A computed
     * state may be anything: accept it. */
    if (opaque(sc, state))
        return 0;
    uint32_t slot = NONE_ID;
    if (sc->nodes[state].kind == K_TUPLE && sc->nodes[state].n == 2) {
        uint32_t e = sc->nodes[state].eh;
        slot = sc->edges[sc->edges[e].next].child;
        state = sc->edges[e].child;
        if (opaque(sc, state))
            return 0;
    }
    int sk = sc->nodes[state].kind;
    if (sk != K_NONE) {
        if (sk != K_DICT)
            return fail(sc, PKSCAN_ERR_TYPE, off, "state is not a dictionary");
        return fail(sc, PKSCAN_ERR_TYPE, off,
                    "'%s' object has no attribute '__dict__'",
                    kname(sc, inst));
    }
    if (slot == NONE_ID || opaque(sc, slot) || sc->nodes[slot].kind == K_NONE)
        return 0;
    if (sc->nodes[slot].kind != K_DICT)
        return fail(sc, PKSCAN_ERR_TYPE, off, "slot state is not a dictionary");
    if (nitems(&sc->nodes[slot]))
        return fail(sc, PKSCAN_ERR_TYPE, off,
                    "'%s' object attribute is read-only", kname(sc, inst));
    return 0;
}

static int do_global_names(scanner *sc, size_t *pos, size_t off, int ascii,
                           uint32_t *gid)
{
    const char *mp, *np;
    size_t ml, nl;
    if (read_line(sc, pos, off, 2, &mp, &ml))
        return -1;
    if (ascii ? !ascii_ok(mp, ml) : !utf8_ok((const uint8_t *)mp, ml, 0))
        return fail(sc, PKSCAN_ERR_VALUE, off,
                    "module name is not valid %s", ascii ? "ASCII" : "UTF-8");
    if (read_line(sc, pos, off, 2, &np, &nl))
        return -1;
    if (ascii ? !ascii_ok(np, nl) : !utf8_ok((const uint8_t *)np, nl, 0))
        return fail(sc, PKSCAN_ERR_VALUE, off,
                    "global name is not valid %s", ascii ? "ASCII" : "UTF-8");
    uint32_t m = new_str(sc, K_STR, mp, ml, off);
    uint32_t n = m == NONE_ID ? NONE_ID : new_str(sc, K_STR, np, nl, off);
    if (n == NONE_ID)
        return -1;
    *gid = new_global(sc, m, n, off);
    return *gid == NONE_ID ? -1 : 0;
}

/* The opcode at `off`; advances *pos. */
static int step(scanner *sc, size_t *pos, size_t off, int *stop)
{
    uint8_t op = sc->d[off];
    const uint8_t *p = NULL;
    const char *s = NULL;
    size_t len = 0, mk = 0;
    uint32_t id = NONE_ID, a = NONE_ID, b = NONE_ID;
    uint64_t u;
    *pos = off + 1;
    pkscan_report *r = &sc->rep->pub;

    if (op_proto[op] == 0) {
        if (op >= 0x20 && op < 0x7f)
            return fail(sc, PKSCAN_ERR_OPCODE, off,
                        "invalid load key, '%c'.", op);
        return fail(sc, PKSCAN_ERR_OPCODE, off,
                    "invalid load key, '\\x%02x'.", op);
    }
    if (frame_read(sc, off, 1, off))
        return -1;
    if (op_proto[op] - 1 > r->min_protocol)
        r->min_protocol = op_proto[op] - 1;
    r->n_opcodes++;

    switch (op) {
    case CPK_OP_PROTO:
        if (read_n(sc, pos, 1, off, &p))
            return -1;
        if (p[0] > 5)
            return fail(sc, PKSCAN_ERR_PROTOCOL, off,
                        "unsupported pickle protocol: %d", p[0]);
        sc->proto = p[0];
        if (r->protocol < 0)
            r->protocol = p[0];
        return 0;
    case CPK_OP_FRAME:
        if (read_n(sc, pos, 8, off, &p))
            return -1;
        u = le(p, 8);
        if (u > (uint64_t)INT64_MAX)
            return fail(sc, PKSCAN_ERR_LENGTH, off,
                        "FRAME length exceeds system's maximum of %lld bytes",
                        (long long)INT64_MAX);
        if (u > sc->n - *pos)
            return fail(sc, PKSCAN_ERR_LENGTH, off,
                        "FRAME length %llu exceeds the %zu bytes left "
                        "(pickle data was truncated)",
                        (unsigned long long)u, sc->n - *pos);
        if (sc->frame_end && *pos != sc->frame_end)
            return fail(sc, PKSCAN_ERR_LENGTH, off,
                        "beginning of a new frame before end of current "
                        "frame");
        sc->frame_end = *pos + (size_t)u;
        r->n_frames++;
        return 0;
    case CPK_OP_STOP:
        r->stop_stack = sc->nstack;
        r->stop_marks = sc->nmarks;
        if (pop(sc, off, &id))
            return -1;
        use(sc, id);
        r->result_kind = kname(sc, id);
        sc->nstack++; /* keep it for the analysis */
        *stop = 1;
        return 0;
    case CPK_OP_MARK:
        if (sgrow(sc->acct, (void **)&sc->marks, &sc->capmarks,
                  sc->nmarks + 1, sizeof(uint32_t)))
            return nomem(sc, off);
        sc->marks[sc->nmarks++] = (uint32_t)sc->nstack;
        sc->fence = sc->nstack;
        return 0;
    case CPK_OP_POP:
        if (sc->nmarks && sc->marks[sc->nmarks - 1] == sc->nstack) {
            sc->nmarks--;
            sc->fence = sc->nmarks ? sc->marks[sc->nmarks - 1] : 0;
            return 0;
        }
        return pop(sc, off, &id);
    case CPK_OP_POP_MARK:
        if (marker(sc, off, &mk))
            return -1;
        sc->nstack = mk;
        return 0;
    case CPK_OP_DUP:
        if (sc->nstack <= sc->fence)
            return underflow(sc, off);
        return push(sc, at(sc, sc->nstack - 1), off);
    case CPK_OP_NONE:
    case CPK_OP_NEWTRUE: case CPK_OP_NEWFALSE:
        return push(sc, scalar(sc, off), off);
    case CPK_OP_INT: {
        if (read_line(sc, pos, off, 2, &s, &len))
            return -1;
        int neg;
        if (!strtol_whole(s, len) && !pyint_parse(s, len, 0, &neg, &u))
            return fail(sc, PKSCAN_ERR_VALUE, off,
                        "invalid literal for int() with base 0");
        pyint_parse(s, len, 0, &neg, &u);
        /* load_int: a two-character line whose value is 0 or 1 ("00",
         * "01", but also "+1", "-0", " 1") is a bool */
        int isbool = len == 2 &&
                     ((s[0] == '-' && s[1] == '0') ||
                      ((s[0] == '0' || s[0] == '+' || is_space(s[0])) &&
                       (s[1] == '0' || s[1] == '1')));
        id = new_node(sc, isbool ? K_BOOL : K_INT, off);
        if (id != NONE_ID)
            sc->nodes[id].u.ival = u > INT64_MAX ? 0 : neg ? -(int64_t)u
                                                           : (int64_t)u;
        return push(sc, id, off);
    }
    case CPK_OP_LONG: {
        if (read_line(sc, pos, off, 2, &s, &len))
            return -1;
        int neg;
        if (s[len - 1] == 'L')
            len--;
        if (!pyint_parse(s, len, 0, &neg, &u))
            return fail(sc, PKSCAN_ERR_VALUE, off,
                        "invalid literal for int() with base 0");
        id = new_node(sc, K_INT, off);
        if (id != NONE_ID)
            sc->nodes[id].u.ival = u > INT64_MAX ? 0 : neg ? -(int64_t)u
                                                           : (int64_t)u;
        return push(sc, id, off);
    }
    case CPK_OP_BININT: case CPK_OP_BININT1: case CPK_OP_BININT2: {
        int k = op == CPK_OP_BININT ? 4 : op == CPK_OP_BININT1 ? 1 : 2;
        if (read_n(sc, pos, (size_t)k, off, &p))
            return -1;
        return push(sc, scalar(sc, off), off);
    }
    case CPK_OP_LONG1: case CPK_OP_LONG4: {
        if (read_n(sc, pos, op == CPK_OP_LONG1 ? 1 : 4, off, &p))
            return -1;
        int64_t n = op == CPK_OP_LONG1 ? (int64_t)p[0]
                                       : (int64_t)(int32_t)le(p, 4);
        if (n < 0)
            return fail(sc, PKSCAN_ERR_LENGTH, off,
                        "LONG pickle has negative byte count");
        if (read_len(sc, pos, (uint64_t)n, off, "LONG", &p))
            return -1;
        if (op == CPK_OP_LONG1)
            return push(sc, scalar(sc, off), off);
        id = new_node(sc, K_INT, off);
        if (id == NONE_ID)
            return -1;
        if (n <= 8) {
            uint64_t v = le(p, (int)n);
            if (n > 0 && n < 8 && (p[n - 1] & 0x80))
                v |= ~(uint64_t)0 << (8 * n);
            sc->nodes[id].u.ival = (int64_t)v;
        } else {
            sc->nodes[id].flags |= NF_BIGINT;
        }
        return push(sc, id, off);
    }
    case CPK_OP_FLOAT:
        if (read_line(sc, pos, off, 2, &s, &len))
            return -1;
        if (!float_ok(s, len))
            return fail(sc, PKSCAN_ERR_VALUE, off,
                        "could not convert string to float");
        if (float_overflows(s, len))
            return fail(sc, PKSCAN_ERR_VALUE, off,
                        "value too large to convert to float");
        return push(sc, new_node(sc, K_FLOAT, off), off);
    case CPK_OP_BINFLOAT:
        if (read_n(sc, pos, 8, off, &p))
            return -1;
        return push(sc, scalar(sc, off), off);
    case CPK_OP_STRING: {
        if (read_line(sc, pos, off, 1, &s, &len))
            return -1;
        if (!(len >= 2 && s[0] == s[len - 1] && (s[0] == '\'' ||
                                                 s[0] == '"')))
            return fail(sc, PKSCAN_ERR_VALUE, off,
                        "the STRING opcode argument must be quoted");
        const char *o = NULL;
        size_t ol = 0;
        if (decode_escape(sc, s + 1, len - 2, off, &o, &ol))
            return -1;
        if (!ascii_ok(o, ol))
            return fail(sc, PKSCAN_ERR_VALUE, off,
                        "'ascii' codec can't decode STRING bytes");
        return push(sc, new_dstr(sc, o, ol, off), off);
    }
    case CPK_OP_BINSTRING: case CPK_OP_SHORT_BINSTRING: {
        if (read_n(sc, pos, op == CPK_OP_BINSTRING ? 4 : 1, off, &p))
            return -1;
        int64_t n = op == CPK_OP_SHORT_BINSTRING
                        ? (int64_t)p[0]
                        : (int64_t)(int32_t)le(p, 4);
        if (n < 0)
            return fail(sc, PKSCAN_ERR_LENGTH, off,
                        "BINSTRING pickle has negative byte count");
        if (read_len(sc, pos, (uint64_t)n, off, "BINSTRING", &p))
            return -1;
        if (!ascii_ok((const char *)p, (size_t)n))
            return fail(sc, PKSCAN_ERR_VALUE, off,
                        "'ascii' codec can't decode BINSTRING bytes");
        return push(sc, new_str(sc, K_STR, (const char *)p, (size_t)n, off),
                    off);
    }
    case CPK_OP_BINBYTES: case CPK_OP_SHORT_BINBYTES: case CPK_OP_BINBYTES8:
    case CPK_OP_BYTEARRAY8: {
        int k = op == CPK_OP_SHORT_BINBYTES ? 1
              : op == CPK_OP_BINBYTES       ? 4
                                            : 8;
        if (read_n(sc, pos, (size_t)k, off, &p))
            return -1;
        u = le(p, k);
        const char *what = op == CPK_OP_BYTEARRAY8 ? "BYTEARRAY8" : "BINBYTES";
        if (u > (uint64_t)INT64_MAX)
            return fail(sc, PKSCAN_ERR_LENGTH, off,
                        "%s exceeds system's maximum size of %lld bytes",
                        what, (long long)INT64_MAX);
        if (read_len(sc, pos, u, off, what, &p))
            return -1;
        return push(sc, scalar(sc, off), off);
    }
    case CPK_OP_UNICODE: {
        if (read_line(sc, pos, off, 1, &s, &len))
            return -1;
        const char *o = NULL;
        size_t ol = 0;
        if (decode_raw_unicode(sc, s, len, off, &o, &ol))
            return -1;
        return push(sc, new_dstr(sc, o, ol, off), off);
    }
    case CPK_OP_BINUNICODE: case CPK_OP_SHORT_BINUNICODE:
    case CPK_OP_BINUNICODE8: {
        int k = op == CPK_OP_SHORT_BINUNICODE ? 1
              : op == CPK_OP_BINUNICODE       ? 4
                                              : 8;
        if (read_n(sc, pos, (size_t)k, off, &p))
            return -1;
        u = le(p, k);
        if (u > (uint64_t)INT64_MAX)
            return fail(sc, PKSCAN_ERR_LENGTH, off,
                        "BINUNICODE exceeds system's maximum size of %lld "
                        "bytes", (long long)INT64_MAX);
        if (read_len(sc, pos, u, off, "BINUNICODE", &p))
            return -1;
        if (!utf8_ok(p, (size_t)u, 1))
            return fail(sc, PKSCAN_ERR_VALUE, off,
                        "'utf-8' codec can't decode BINUNICODE bytes");
        return push(sc, new_str(sc, K_STR, (const char *)p, (size_t)u, off),
                    off);
    }
    case CPK_OP_EMPTY_TUPLE:
        return push(sc, new_node(sc, K_TUPLE, off), off);
    case CPK_OP_TUPLE1: case CPK_OP_TUPLE2: case CPK_OP_TUPLE3: {
        size_t k = (size_t)(op - CPK_OP_TUPLE1 + 1);
        if (sc->nstack < k)
            return underflow(sc, off);
        return push(sc, pop_into(sc, K_TUPLE, sc->nstack - k, off), off);
    }
    case CPK_OP_TUPLE: case CPK_OP_LIST:
        if (marker(sc, off, &mk))
            return -1;
        return push(sc,
                    pop_into(sc, op == CPK_OP_TUPLE ? K_TUPLE : K_LIST, mk,
                             off),
                    off);
    case CPK_OP_EMPTY_LIST: return push(sc, new_node(sc, K_LIST, off), off);
    case CPK_OP_EMPTY_DICT: return push(sc, new_node(sc, K_DICT, off), off);
    case CPK_OP_EMPTY_SET: return push(sc, new_node(sc, K_SET, off), off);
    case CPK_OP_DICT:
        if (marker(sc, off, &mk))
            return -1;
        if ((sc->nstack - mk) % 2 != 0)
            return fail(sc, PKSCAN_ERR_TYPE, off,
                        "odd number of items for DICT");
        for (size_t i = mk; i < sc->nstack; i += 2)
            if (unhashable(sc, sc->stack[i]))
                return fail(sc, PKSCAN_ERR_TYPE, off, "unhashable type: '%s'",
                            kname(sc, sc->stack[i]));
        return push(sc, pop_into(sc, K_DICT, mk, off), off);
    case CPK_OP_FROZENSET:
        if (marker(sc, off, &mk))
            return -1;
        for (size_t i = mk; i < sc->nstack; i++)
            if (unhashable(sc, sc->stack[i]))
                return fail(sc, PKSCAN_ERR_TYPE, off, "unhashable type: '%s'",
                            kname(sc, sc->stack[i]));
        return push(sc, pop_into(sc, K_FROZENSET, mk, off), off);
    case CPK_OP_APPEND:
        return do_append(sc, sc->nstack ? sc->nstack - 1 : 0, off);
    case CPK_OP_APPENDS:
        if (marker(sc, off, &mk))
            return -1;
        return do_append(sc, mk, off);
    case CPK_OP_SETITEM:
        if (sc->nstack < 2)
            return underflow(sc, off);
        return do_setitems(sc, sc->nstack - 2, off);
    case CPK_OP_SETITEMS:
        if (marker(sc, off, &mk))
            return -1;
        return do_setitems(sc, mk, off);
    case CPK_OP_ADDITEMS: {
        if (marker(sc, off, &mk))
            return -1;
        if (mk > sc->nstack || mk <= sc->fence)
            return underflow(sc, off);
        if (mk == sc->nstack)
            return 0;
        uint32_t set = sc->stack[mk - 1];
        if (kind_e(sc, set) == K_SET) {
            for (size_t i = mk; i < sc->nstack; i++)
                if (unhashable(sc, sc->stack[i]))
                    return fail(sc, PKSCAN_ERR_TYPE, off,
                                "unhashable type: '%s'",
                                kname(sc, sc->stack[i]));
        } else if (!opaque(sc, set)) {
            return fail(sc, PKSCAN_ERR_TYPE, off,
                        "'%s' object has no attribute 'add'", kname(sc, set));
        }
        set = at(sc, mk - 1);
        if (set == NONE_ID || add_items(sc, set, mk, sc->nstack, off))
            return -1;
        sc->nstack = mk;
        return 0;
    }
    case CPK_OP_PUT: {
        int neg;
        if (read_line(sc, pos, off, 2, &s, &len))
            return -1;
        if (sc->nstack <= sc->fence)
            return underflow(sc, off);
        if (!pyint_parse(s, len, 10, &neg, &u))
            return fail(sc, PKSCAN_ERR_MEMO, off,
                        "invalid literal for int() with base 10 (PUT)");
        if (neg && u)
            return fail(sc, PKSCAN_ERR_MEMO, off, "negative PUT argument");
        if (u > (uint64_t)INT64_MAX)
            return fail(sc, PKSCAN_ERR_MEMO, off,
                        "Python int too large to convert to C ssize_t");
        return memo_put(sc, u, off);
    }
    case CPK_OP_BINPUT: case CPK_OP_LONG_BINPUT:
        if (read_n(sc, pos, op == CPK_OP_BINPUT ? 1 : 4, off, &p))
            return -1;
        return memo_put(sc, op == CPK_OP_BINPUT ? p[0] : le(p, 4), off);
    case CPK_OP_MEMOIZE:
        return memo_put(sc, sc->memo_len, off);
    case CPK_OP_GET: {
        int neg;
        if (read_line(sc, pos, off, 2, &s, &len))
            return -1;
        if (!pyint_parse(s, len, 10, &neg, &u))
            return fail(sc, PKSCAN_ERR_MEMO, off,
                        "invalid literal for int() with base 10 (GET)");
        if (u > (uint64_t)INT64_MAX)
            return fail(sc, PKSCAN_ERR_MEMO, off,
                        "Python int too large to convert to C ssize_t");
        return memo_get(sc, u, neg && u, off);
    }
    case CPK_OP_BINGET: case CPK_OP_LONG_BINGET:
        if (read_n(sc, pos, op == CPK_OP_BINGET ? 1 : 4, off, &p))
            return -1;
        return memo_get(sc, op == CPK_OP_BINGET ? p[0] : le(p, 4), 0, off);
    case CPK_OP_GLOBAL:
        if (do_global_names(sc, pos, off, 0, &id))
            return -1;
        return push(sc, id, off);
    case CPK_OP_STACK_GLOBAL:
        if (pop(sc, off, &b) || pop(sc, off, &a))
            return -1;
        if ((!opaque(sc, a) && sc->nodes[a].kind != K_STR) ||
            (!opaque(sc, b) && sc->nodes[b].kind != K_STR))
            return fail(sc, PKSCAN_ERR_TYPE, off, "STACK_GLOBAL requires str");
        use(sc, a);
        use(sc, b);
        if (sc->nodes[a].kind == K_STR && sc->nodes[b].kind == K_STR) {
            id = new_global(sc, a, b, off);
        } else {
            id = new_node(sc, K_DYNAMIC, off);
            if (id != NONE_ID) {
                sc->nodes[id].a = a;
                sc->nodes[id].b = b;
            }
        }
        return push(sc, id, off);
    case CPK_OP_INST:
        if (marker(sc, off, &mk))
            return -1;
        if (do_global_names(sc, pos, off, 1, &a))
            return -1;
        b = pop_into(sc, K_TUPLE, mk, off);
        if (b == NONE_ID)
            return -1;
        id = new_node(sc, K_OBJ, off);
        if (id == NONE_ID)
            return -1;
        sc->nodes[id].a = a;
        sc->nodes[id].b = b;
        deepen(sc, id, a, off);
        deepen(sc, id, b, off);
        use(sc, a);
        use(sc, b);
        return push(sc, id, off);
    case CPK_OP_OBJ:
        if (marker(sc, off, &mk))
            return -1;
        if (sc->nstack < mk + 1)
            return underflow(sc, off);
        b = pop_into(sc, K_TUPLE, mk + 1, off);
        if (b == NONE_ID || pop(sc, off, &a))
            return -1;
        id = new_node(sc, K_OBJ, off);
        if (id == NONE_ID)
            return -1;
        sc->nodes[id].a = a;
        sc->nodes[id].b = b;
        deepen(sc, id, a, off);
        deepen(sc, id, b, off);
        use(sc, a);
        use(sc, b);
        return push(sc, id, off);
    case CPK_OP_REDUCE: /* CPython only finds a bad callable by calling */
        if (pop(sc, off, &b) || pop(sc, off, &a))
            return -1;
        id = new_node(sc, K_REDUCE, off);
        if (id == NONE_ID)
            return -1;
        sc->nodes[id].a = a;
        sc->nodes[id].b = b;
        deepen(sc, id, a, off);
        deepen(sc, id, b, off);
        use(sc, a);
        use(sc, b);
        return push(sc, id, off);
    case CPK_OP_NEWOBJ: return do_newobj(sc, 0, off);
    case CPK_OP_NEWOBJ_EX: return do_newobj(sc, 1, off);
    case CPK_OP_BUILD: return do_build(sc, off);
    case CPK_OP_EXT1: case CPK_OP_EXT2: case CPK_OP_EXT4: {
        int k = op == CPK_OP_EXT1 ? 1 : op == CPK_OP_EXT2 ? 2 : 4;
        if (read_n(sc, pos, (size_t)k, off, &p))
            return -1;
        int64_t code = k == 4 ? (int64_t)(int32_t)le(p, 4) : (int64_t)le(p, k);
        if (code <= 0)
            return fail(sc, PKSCAN_ERR_VALUE, off, "EXT specifies code <= 0");
        id = new_node(sc, K_EXT, off);
        if (id != NONE_ID)
            sc->nodes[id].u.ival = code;
        return push(sc, id, off);
    }
    case CPK_OP_PERSID: case CPK_OP_BINPERSID:
        return fail(sc, PKSCAN_ERR_UNSUPPORTED, off,
                    "A load persistent id instruction was encountered, but "
                    "no persistent_load function was specified.");
    case CPK_OP_NEXT_BUFFER:
        r->n_buffers++;
        return push(sc, new_node(sc, K_BUFFER, off), off);
    case CPK_OP_READONLY_BUFFER:
        if (sc->nstack <= sc->fence)
            return underflow(sc, off);
        id = sc->stack[sc->nstack - 1];
        if (!opaque(sc, id) && kind_e(sc, id) != K_BYTES &&
            kind_e(sc, id) != K_BYTEARRAY)
            return fail(sc, PKSCAN_ERR_TYPE, off,
                        "memoryview: a bytes-like object is required, not "
                        "'%s'", kname(sc, id));
        return 0;
    }
    return fail(sc, PKSCAN_ERR_OPCODE, off, "invalid load key");
}

/* --- where expressions start (PKSCAN_SPANS) ----------------------------- */

/* After the opcode at `off`, ending at `end`, that found `depth0` items
 * on the stack: where the expression of what it pushed starts, and the
 * record of a call or a BUILD (span_rec). An opcode pushes at most one
 * item: one that pops none starts its expression itself (a memo GET, a
 * DUP included); one that pops items leaves its result where the lowest
 * of them was, which is where its expression starts; one that takes the
 * items above a MARK starts at the MARK. */
static int spans_step(scanner *sc, size_t off, size_t end, size_t depth0)
{
    uint8_t op = sc->d[off];
    size_t top = sc->nstack, pend = sc->pending;
    if ((sc->capsstart < sc->capstack &&
         sgrow(sc->acct, (void **)&sc->sstart, &sc->capsstart, sc->capstack,
               sizeof(uint32_t))) ||
        (sc->capmkoff < sc->capmarks &&
         sgrow(sc->acct, (void **)&sc->mkoff, &sc->capmkoff, sc->capmarks,
               sizeof(uint32_t))))
        return nomem(sc, off);
    sc->pending = 0;
    switch (op) {
    case '(': /* MARK */
        sc->mkoff[sc->nmarks - 1] = (uint32_t)off;
        return 0;
    case 'p': case 'q': case 'r': case 0x94: /* the PUTs after a record */
        if (pend) {
            sc->recs[pend - 1].hi = (uint32_t)end;
            sc->pending = pend;
        }
        return 0;
    case '0': /* POP: a setter's None */
        if (pend)
            sc->recs[pend - 1].popped = 1;
        return 0;
    case 't': case 'l': case 'd': case 0x91: case 'o': case 'i':
        sc->sstart[top - 1] = sc->mkoff[sc->nmarks]; /* the MARK taken */
        break;
    default:
        if (top > depth0)
            sc->sstart[top - 1] = (uint32_t)off;
        break;
    }
    if (op != 'R' && op != 0x81 && op != 0x92 && op != 'o' && op != 'i' &&
        op != 'b')
        return 0;
    uint32_t id = sc->stack[top - 1];
    if (is_lazy(sc, id) || (sc->nodes[id].kind != K_REDUCE &&
                            sc->nodes[id].kind != K_NEWOBJ &&
                            sc->nodes[id].kind != K_OBJ))
        return 0;
    if (sgrow(sc->acct, (void **)&sc->recs, &sc->caprecs, sc->nrecs + 1,
              sizeof(span_rec)))
        return nomem(sc, off);
    span_rec *rc = &sc->recs[sc->nrecs++];
    rc->node = id;
    rc->lo = sc->sstart[op == 'b' ? depth0 - 1 : top - 1];
    rc->hi = (uint32_t)end;
    rc->build = op == 'b';
    rc->popped = 0;
    sc->pending = sc->nrecs;
    return 0;
}

/* --- classification of imported names ------------------------------------ */

typedef struct {
    const char *module;
    const char *name; /* NULL: the whole module and its submodules */
    const char *reason;
} name_rule;

#define R_CMD "runs commands"
#define R_EVAL "evaluates code"
#define R_CODE "builds code objects or functions"
#define R_IMPORT "imports modules"
#define R_FILE "opens files"
#define R_NET "network access"
#define R_INTERP "interpreter internals"
#define R_ATTR "attribute access by name"
#define R_TTY "interactive"
#define R_PICKLE "nested unpickling"

static const name_rule danger_rules[] = {
    {"os", NULL, R_CMD}, {"posix", NULL, R_CMD}, {"nt", NULL, R_CMD},
    {"subprocess", NULL, R_CMD}, {"_posixsubprocess", NULL, R_CMD},
    {"pty", NULL, R_CMD}, {"multiprocessing", NULL, R_CMD},
    {"asyncio", "create_subprocess_shell", R_CMD},
    {"asyncio", "create_subprocess_exec", R_CMD},
    {"asyncio.subprocess", NULL, R_CMD},
    {"shutil", NULL, R_FILE}, {"io", "open", R_FILE}, {"_io", "open", R_FILE},
    {"io", "FileIO", R_FILE}, {"_io", "FileIO", R_FILE},
    {"io", "open_code", R_FILE}, {"_io", "open_code", R_FILE},
    {"socket", NULL, R_NET}, {"_socket", NULL, R_NET},
    {"webbrowser", NULL, R_NET},
    {"ctypes", NULL, R_INTERP}, {"_ctypes", NULL, R_INTERP},
    {"sys", NULL, R_INTERP}, {"gc", NULL, R_INTERP},
    {"importlib", NULL, R_IMPORT}, {"imp", NULL, R_IMPORT},
    {"zipimport", NULL, R_IMPORT}, {"pkgutil", NULL, R_IMPORT},
    {"runpy", NULL, R_EVAL}, {"code", NULL, R_EVAL}, {"codeop", NULL, R_EVAL},
    {"timeit", NULL, R_EVAL}, {"pdb", NULL, R_EVAL}, {"bdb", NULL, R_EVAL},
    {"trace", NULL, R_EVAL}, {"cProfile", NULL, R_EVAL},
    {"profile", NULL, R_EVAL},
    {"marshal", NULL, R_CODE}, {"types", "FunctionType", R_CODE},
    {"types", "CodeType", R_CODE}, {"types", "LambdaType", R_CODE},
    {"builtins", "eval", R_EVAL}, {"builtins", "exec", R_EVAL},
    {"builtins", "compile", R_EVAL}, {"builtins", "__import__", R_IMPORT},
    {"builtins", "open", R_FILE}, {"builtins", "getattr", R_ATTR},
    {"builtins", "setattr", R_ATTR}, {"builtins", "delattr", R_ATTR},
    {"builtins", "globals", R_INTERP}, {"builtins", "locals", R_INTERP},
    {"builtins", "vars", R_INTERP}, {"builtins", "breakpoint", R_TTY},
    {"builtins", "input", R_TTY}, {"builtins", "help", R_TTY},
    {"builtins", "exit", R_INTERP}, {"builtins", "quit", R_INTERP},
    {"operator", "attrgetter", R_ATTR}, {"operator", "methodcaller", R_ATTR},
    {"_operator", "attrgetter", R_ATTR},
    {"_operator", "methodcaller", R_ATTR},
    {"pickle", "loads", R_PICKLE}, {"pickle", "load", R_PICKLE},
    {"pickle", "Unpickler", R_PICKLE}, {"pickle", "_loads", R_PICKLE},
    {"pickle", "_load", R_PICKLE}, {"pickle", "_Unpickler", R_PICKLE},
    {"_pickle", NULL, R_PICKLE},
    {"ccloudpickle", "_import", R_IMPORT},
    {"ccloudpickle", "loads", R_PICKLE}, {"ccloudpickle", "load", R_PICKLE},
    {"ccloudpickle", "Unpickler", R_PICKLE},
    /* wrap()'s load side (python/_ccloudpickle_engines.py): loads the
     * bytes it is given */
    {"_ccloudpickle_engines", "_rebuild", R_PICKLE},
    /* helpers of otherwise plain modules that evaluate text or run
     * commands */
    {"typing", "get_type_hints", R_EVAL}, {"typing", "_eval_type", R_EVAL},
    {"typing", "evaluate_forward_ref", R_EVAL},
    {"dataclasses", "dataclass", R_EVAL},
    {"dataclasses", "make_dataclass", R_EVAL},
    {"dataclasses", "_create_fn", R_EVAL},
    {"dataclasses", "_process_class", R_EVAL},
    {"uuid", "getnode", R_CMD}, {"uuid", "uuid1", R_CMD},
    {"uuid", "_get_command_stdout", R_CMD},
    {"uuid", "_find_mac_near_keyword", R_CMD},
    {"uuid", "_find_mac_under_heading", R_CMD},
    {"uuid", "_ifconfig_getnode", R_CMD}, {"uuid", "_ip_getnode", R_CMD},
    {"uuid", "_arp_getnode", R_CMD}, {"uuid", "_lanscan_getnode", R_CMD},
    {"uuid", "_netstat_getnode", R_CMD}, {"uuid", "_unix_getnode", R_CMD},
    {"uuid", "_ipconfig_getnode", R_CMD},
    {"uuid", "_windll_getnode", R_CMD},
    /* import, evaluate or run what their arguments name, or reach files
     * and the network: a deny list of os and subprocess does not stop
     * pydoc.locate("os.system") */
    {"pydoc", NULL, R_IMPORT}, {"site", NULL, R_IMPORT},
    {"unittest", NULL, R_IMPORT}, {"logging.config", NULL, R_EVAL},
    {"doctest", NULL, R_EVAL}, {"idlelib", NULL, R_EVAL},
    {"_xxsubinterpreters", NULL, R_EVAL}, {"_interpreters", NULL, R_EVAL},
    {"_xxinterpchannels", NULL, R_EVAL},
    {"platform", "architecture", R_CMD}, {"platform", "platform", R_CMD},
    {"platform", "_syscmd_file", R_CMD}, {"platform", "_syscmd_ver", R_CMD},
    {"pipes", NULL, R_CMD}, {"mailcap", NULL, R_CMD},
    {"ensurepip", NULL, R_CMD}, {"venv", NULL, R_CMD},
    {"distutils", NULL, R_CMD},
    {"tempfile", NULL, R_FILE}, {"codecs", "open", R_FILE},
    {"fileinput", NULL, R_FILE}, {"zipfile", NULL, R_FILE},
    {"tarfile", NULL, R_FILE}, {"sqlite3", NULL, R_FILE},
    {"mmap", NULL, R_FILE}, {"fcntl", NULL, R_FILE}, {"dbm", NULL, R_FILE},
    {"shelve", NULL, R_PICKLE},
    {"urllib.request", "urlopen", R_NET},
    {"urllib.request", "urlretrieve", R_NET},
    {"http.client", "HTTPConnection", R_NET},
    {"http.client", "HTTPSConnection", R_NET},
    {"ftplib", "FTP", R_NET}, {"ftplib", "FTP_TLS", R_NET},
    {"smtplib", "SMTP", R_NET}, {"smtplib", "SMTP_SSL", R_NET},
    {"atexit", NULL, R_INTERP}, {"faulthandler", NULL, R_INTERP},
    {"_thread", "start_new_thread", R_INTERP},
    {"_thread", "start_new", R_INTERP},
    {"_thread", "start_joinable_thread", R_INTERP},
    {"_thread", "interrupt_main", R_INTERP},
};

/* Attributes a dotted name must not pass through. */
static const char *const danger_attrs[] = {
    "__globals__", "__builtins__", "__subclasses__", "__code__", "__dict__",
    "__class__", "__base__", "__bases__", "__mro__", "__getattribute__",
    "__import__", "__loader__", "__spec__", "__self__", "__func__",
    "__closure__", "__reduce__", "__reduce_ex__", "__init_subclass__",
    "f_globals", "f_locals", "f_builtins", "gi_frame", "tb_frame",
    "cr_frame", "ag_frame",
};

/* Modules whose public names (those not starting with "_") are plain,
 * but for not_plain and the danger table: nothing in them evaluates text,
 * runs commands or opens files. */
static const char *const plain_modules[] = {
    "collections", "datetime", "decimal", "fractions", "enum", "ipaddress",
    "numbers", "math", "cmath", "operator", "_operator",
    /* operator attrgetter, methodcaller: dangerous, above */
};

/* Public names of plain_modules that are not plain: they change state the
 * whole process shares (a decimal context, an object passed in place) or
 * call what they are given. */
static const name_rule not_plain[] = {
    {"decimal", "setcontext", 0}, {"decimal", "getcontext", 0},
    {"decimal", "localcontext", 0},
    {"operator", "call", 0}, {"operator", "setitem", 0},
    {"operator", "delitem", 0}, {"operator", "iadd", 0},
    {"operator", "iand", 0}, {"operator", "iconcat", 0},
    {"operator", "ifloordiv", 0}, {"operator", "ilshift", 0},
    {"operator", "imod", 0}, {"operator", "imul", 0},
    {"operator", "imatmul", 0}, {"operator", "ior", 0},
    {"operator", "ipow", 0}, {"operator", "irshift", 0},
    {"operator", "isub", 0}, {"operator", "itruediv", 0},
    {"operator", "ixor", 0},
};

/* Modules plain name by name only (each has helpers that evaluate text or
 * run commands, or change process-wide state): typing, dataclasses,
 * uuid, zoneinfo. Private names listed are the ones picklers write
 * (a dataclass's __dataclass_params__, dataclasses.MISSING). */
static const char *const plain_typing[] = {
    "Any", "Callable", "ClassVar", "Final", "ForwardRef", "Generic",
    "Literal", "Optional", "ParamSpec", "Protocol", "Tuple", "Type",
    "TypeVar", "TypeVarTuple", "Union", "Concatenate", "TypeAlias",
    "TypeGuard", "TypeIs", "Self", "LiteralString", "Never", "NoReturn",
    "Required", "NotRequired", "ReadOnly", "Unpack", "Annotated",
    "AbstractSet", "ByteString", "Container", "ContextManager", "Hashable",
    "ItemsView", "Iterable", "Iterator", "KeysView", "Mapping",
    "MappingView", "MutableMapping", "MutableSequence", "MutableSet",
    "Sequence", "Sized", "ValuesView", "Awaitable", "AsyncIterator",
    "AsyncIterable", "Coroutine", "Collection", "AsyncGenerator",
    "AsyncContextManager", "Reversible", "SupportsAbs", "SupportsBytes",
    "SupportsComplex", "SupportsFloat", "SupportsIndex", "SupportsInt",
    "SupportsRound", "ChainMap", "Counter", "Deque", "Dict", "DefaultDict",
    "List", "OrderedDict", "Set", "FrozenSet", "NamedTuple", "TypedDict",
    "Generator", "BinaryIO", "IO", "Match", "Pattern", "TextIO", "AnyStr",
    "Text", "NewType", "TypeAliasType", "NoDefault", "ParamSpecArgs",
    "ParamSpecKwargs", "TYPE_CHECKING", "cast", "get_args", "get_origin",
    "is_typeddict", "assert_never", "assert_type",
};
static const char *const plain_dataclasses[] = {
    "Field", "field", "fields", "FrozenInstanceError", "InitVar", "KW_ONLY",
    "MISSING", "asdict", "astuple", "is_dataclass", "replace",
    "_DataclassParams", "_FIELD_BASE", "_HAS_DEFAULT_FACTORY_CLASS",
    "_MISSING_TYPE", "_KW_ONLY_TYPE", "_FIELD", "_FIELD_CLASSVAR",
    "_FIELD_INITVAR",
    /* 3.13: a dataclass's __replace__ is this function (replace()) */
    "_replace",
};
static const char *const plain_uuid[] = {
    "UUID", "SafeUUID", "NAMESPACE_DNS", "NAMESPACE_URL", "NAMESPACE_OID",
    "NAMESPACE_X500", "RESERVED_NCS", "RFC_4122", "RESERVED_MICROSOFT",
    "RESERVED_FUTURE", "NIL", "MAX", "uuid3", "uuid4", "uuid5",
};
static const char *const plain_zoneinfo[] = {
    "ZoneInfo", "ZoneInfoNotFoundError", "InvalidTZPathWarning", "TZPATH",
};
typedef struct {
    const char *module;
    const char *const *names;
    size_t n;
} name_list;
#define NAMES(m, a) {m, a, sizeof(a) / sizeof *(a)}
static const name_list plain_lists[] = {
    NAMES("typing", plain_typing), NAMES("dataclasses", plain_dataclasses),
    NAMES("uuid", plain_uuid), NAMES("zoneinfo", plain_zoneinfo),
};

static const name_rule plain_rules[] = {
    {"copyreg", "_reconstructor", 0}, {"copyreg", "__newobj__", 0},
    {"copyreg", "__newobj_ex__", 0}, {"copy_reg", "_reconstructor", 0},
    {"_codecs", "encode", 0}, {"array", "array", 0},
    {"array", "_array_reconstructor", 0}, {"re", "_compile", 0},
    {"functools", "partial", 0}, {"operator", "itemgetter", 0},
    {"_operator", "itemgetter", 0}, {"types", "SimpleNamespace", 0},
    {"types", "MappingProxyType", 0}, {"types", "MethodType", 0},
    {"types", "CellType", 0}, {"types", "NoneType", 0},
    {"types", "ModuleType", 0}, {"weakref", "WeakSet", 0},
    {"_weakrefset", "WeakSet", 0}, {"logging", "getLogger", 0},
    {"pathlib", "PurePath", 0}, {"pathlib", "PurePosixPath", 0},
    {"pathlib", "PureWindowsPath", 0}, {"pathlib", "Path", 0},
    {"pathlib", "PosixPath", 0}, {"pathlib", "WindowsPath", 0},
    {"io", "StringIO", 0}, {"_io", "StringIO", 0}, {"io", "BytesIO", 0},
    {"_io", "BytesIO", 0},
};

static const char *const plain_builtins[] = {
    "set", "frozenset", "bytearray", "bytes", "complex", "slice", "range",
    "int", "float", "str", "list", "dict", "tuple", "bool", "object", "type",
    "property", "classmethod", "staticmethod", "memoryview",
    "NotImplemented", "Ellipsis", "reversed", "enumerate", "zip", "map",
    "filter", "super", "BaseException", "len", "min", "max", "abs", "sum",
    "sorted", "repr", "hash", "id", "isinstance", "issubclass", "iter",
    "next", "round", "divmod", "pow", "chr", "ord", "format",
    "ascii", "bin", "hex", "oct", "all", "any", "callable",
};

/* Reconstructors: ccloudpickle's (doc/FORMAT.md) and cloudpickle's. */
static const char *const ccp_names[] = {
    "_function_new", "_function_fill", "_function_make", "_empty_cell_value",
    "_code_unmarshal",
    "_code_portable",
    "_code_new", "_make_skeleton_class", "_make_skeleton_enum",
    "_class_setstate", "_make_typevar", "_make_cell", "_make_empty_cell",
    "subimport", "dynamic_subimport", "_module_new", "_module_fill",
    "_builtin_type", "_make_dict_keys",
    "_make_dict_values", "_make_dict_items", "_file_reconstructor",
    "_get_dataclass_field_type_sentinel", "_make_function",
    "_function_setstate", "_import", "_singledispatch_new",
    "_singledispatch_fill", "_lru_cache_new",
    "_make_typeparam", "_make_newtype",
    "_function_setstate", "_import", "_make_lock", "_make_event",
    "_make_condition", "_make_semaphore", "_make_contextvar", "_make_struct",
    "_make_weakdict",
};

static const char *const cp_names[] = {
    "_make_function", "_function_setstate", "_class_setstate",
    "_make_skeleton_class", "_make_skeleton_enum", "_make_typevar",
    "_builtin_type", "_make_cell", "_make_empty_cell", "_empty_cell_value",
    "subimport", "dynamic_subimport", "_make_dict_keys", "_make_dict_values",
    "_make_dict_items", "_file_reconstructor",
    "_get_dataclass_field_type_sentinel", "_builtin_type_reconstructor",
    "_module_reconstructor", "_dynamic_module_reconstructor", "CellType",
};

#define NELEM(a) (sizeof(a) / sizeof *(a))

static int in_list(const char *p, size_t len, const char *const *list,
                   size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (str_eq(p, len, list[i]))
            return 1;
    return 0;
}

/* module == m, or a submodule of m. */
static int module_in(const char *p, size_t len, const char *m)
{
    size_t l = strlen(m);
    return len >= l && memcmp(p, m, l) == 0 && (len == l || p[l] == '.');
}

/* The first component of a dotted name. */
static size_t first_len(const char *p, size_t len)
{
    const char *dot = memchr(p, '.', len);
    return dot ? (size_t)(dot - p) : len;
}

static int is_cp_module(const char *p, size_t len)
{
    return str_eq(p, len, "cloudpickle") ||
           str_eq(p, len, "cloudpickle.cloudpickle") ||
           str_eq(p, len, "cloudpickle.cloudpickle_fast");
}

/* Attributes a dotted name may pass through after its first component
 * and still be plain data or a reconstructor: they lead from a class to
 * its own constructor or call protocol (`object.__new__`, enums'
 * `Enum.__new__`), never to another module. Anything else may leave the
 * module: `dataclasses` + `inspect.os.system` is os.system, reached
 * through the attribute dataclasses.inspect. */
static const char *const harmless_dunders[] = {
    "__new__", "__init__", "__call__", "__getitem__", "__class_getitem__",
};

/* Dotted names that are plain all the same: classmethods of plain
 * classes that picklers write (getattr(cls, "name") from a bound
 * classmethod's __reduce__), whose first component is the class itself,
 * not a module. */
static const name_rule plain_dotted[] = {
    {"zoneinfo", "ZoneInfo._unpickle", 0},
    {"collections", "OrderedDict.fromkeys", 0},
    {"builtins", "dict.fromkeys", 0}, {"builtins", "bytes.fromhex", 0},
    {"builtins", "bytearray.fromhex", 0}, {"builtins", "int.from_bytes", 0},
    {"builtins", "float.fromhex", 0},
};

/* 1 if every component of `n` after the first is a harmless dunder. */
static int dunder_rest(const char *n, size_t nl)
{
    size_t i = first_len(n, nl);
    while (i < nl) {
        size_t j = ++i;
        while (j < nl && n[j] != '.')
            j++;
        if (!in_list(n + i, j - i, harmless_dunders, NELEM(harmless_dunders)))
            return 0;
        i = j;
    }
    return 1;
}

static pkscan_category categorize(const char *m, size_t ml, const char *n,
                                  size_t nl)
{
    int fmt;
    if (str_eq(m, ml, "ccloudpickle") &&
        (in_list(n, nl, ccp_names, NELEM(ccp_names)) ||
         cpk_format_parse(n, nl, &fmt, NULL, 0)))
        return PKSCAN_CAT_CCLOUDPICKLE;
    if (is_cp_module(m, ml) && in_list(n, nl, cp_names, NELEM(cp_names)))
        return PKSCAN_CAT_CLOUDPICKLE;
    for (size_t i = 0; i < NELEM(plain_dotted); i++)
        if (str_eq(m, ml, plain_dotted[i].module) &&
            str_eq(n, nl, plain_dotted[i].name))
            return PKSCAN_CAT_PLAIN;
    /* an attribute path may leave the module (see harmless_dunders) */
    if (!dunder_rest(n, nl))
        return PKSCAN_CAT_OTHER;
    size_t fl = first_len(n, nl);
    if (str_eq(m, ml, "builtins")) {
        if (in_list(n, fl, plain_builtins, NELEM(plain_builtins)))
            return PKSCAN_CAT_PLAIN;
        static const char *const sfx[] = {"Error", "Exception", "Warning"};
        for (size_t i = 0; i < NELEM(sfx); i++) {
            size_t sl = strlen(sfx[i]);
            if (fl >= sl && memcmp(n + fl - sl, sfx[i], sl) == 0)
                return PKSCAN_CAT_PLAIN;
        }
    }
    for (size_t i = 0; i < NELEM(plain_rules); i++)
        if (str_eq(m, ml, plain_rules[i].module) &&
            str_eq(n, fl, plain_rules[i].name))
            return PKSCAN_CAT_PLAIN;
    for (size_t i = 0; i < NELEM(plain_lists); i++)
        if (str_eq(m, ml, plain_lists[i].module))
            /* the module itself (subimport("typing"), a function's
             * global) is plain: what its helpers do, only code does */
            return fl == 0 || in_list(n, fl, plain_lists[i].names,
                                      plain_lists[i].n)
                       ? PKSCAN_CAT_PLAIN
                       : PKSCAN_CAT_OTHER;
    /* private names of plain modules are plain only where listed
     * (copyreg._reconstructor, re._compile, ... above) */
    if (fl > 0 && n[0] == '_')
        return PKSCAN_CAT_OTHER;
    for (size_t i = 0; i < NELEM(not_plain); i++)
        if ((str_eq(m, ml, not_plain[i].module) ||
             (ml > 1 && m[0] == '_' &&
              str_eq(m + 1, ml - 1, not_plain[i].module))) &&
            str_eq(n, fl, not_plain[i].name))
            return PKSCAN_CAT_OTHER;
    for (size_t i = 0; i < NELEM(plain_modules); i++)
        if (module_in(m, ml, plain_modules[i]))
            return PKSCAN_CAT_PLAIN;
    return PKSCAN_CAT_OTHER;
}

/* A module some of whose names are plain (typing + sys: a module object
 * through an attribute of a module otherwise plain). */
static int plain_module(const char *m, size_t ml)
{
    if (str_eq(m, ml, "builtins"))
        return 1;
    for (size_t i = 0; i < NELEM(plain_lists); i++)
        if (str_eq(m, ml, plain_lists[i].module))
            return 1;
    for (size_t i = 0; i < NELEM(plain_modules); i++)
        if (module_in(m, ml, plain_modules[i]))
            return 1;
    return 0;
}

/* `s` (a dotted path) is `pre` or starts with `pre` and a dot. */
static int path_starts(const char *s, size_t sl, const char *pre, size_t pl)
{
    return sl >= pl && memcmp(s, pre, pl) == 0 && (sl == pl || s[pl] == '.');
}

/* The danger table applied to the dotted path `s` read as "module.name...":
 * whole-module rules match its start (a module object itself only when
 * `whole`), named rules "module.name" followed by the end or a dot. */
static const char *path_reason(const char *s, size_t sl, int whole)
{
    for (size_t i = 0; i < NELEM(danger_rules); i++) {
        const name_rule *r = &danger_rules[i];
        size_t ml = strlen(r->module);
        if (r->name == NULL) {
            if (path_starts(s, sl, r->module, ml) && (whole || sl > ml))
                return r->reason;
        } else if (sl > ml + 1 && memcmp(s, r->module, ml) == 0 &&
                   s[ml] == '.' &&
                   path_starts(s + ml + 1, sl - ml - 1, r->name,
                               strlen(r->name))) {
            return r->reason;
        }
    }
    /* the builtins module itself, reached through an attribute
     * (dataclasses.builtins): its namespace is every module's */
    if (whole && str_eq(s, sl, "builtins"))
        return R_INTERP;
    return NULL;
}

/* Why importing (m, n) is dangerous, or NULL. `plain`: (m, n) is
 * otherwise a reconstructor or plain data. */
static const char *danger_reason(const char *m, size_t ml, const char *n,
                                 size_t nl, int plain)
{
    size_t fl = first_len(n, nl);
    for (size_t i = 0; i < NELEM(danger_rules); i++) {
        const name_rule *r = &danger_rules[i];
        if (r->name == NULL ? module_in(m, ml, r->module)
                            : (str_eq(m, ml, r->module) &&
                               str_eq(n, fl, r->name)))
            return r->reason;
    }
    /* Dotted protocol-4 names (and getattr chains) walk attributes. */
    for (size_t i = 0; i < nl;) {
        size_t j = i;
        while (j < nl && n[j] != '.')
            j++;
        if (in_list(n + i, j - i, danger_attrs, NELEM(danger_attrs)))
            return "attribute path through interpreter internals";
        i = j + 1;
    }
    /* ... and may reach another module through an attribute holding it:
     * every suffix of the path from a component on is matched against
     * the table (`inspect.os.system` is os.system). A path that ends
     * at a module's name counts only where it would otherwise be plain
     * (typing.sys, a module object that BUILD could rewrite): elsewhere
     * it is "other" anyway, and mymod.profile or Config.code is more
     * likely a function or attribute named like a module. */
    int whole = plain;
    for (size_t i = 0; i < nl;) {
        const char *why = path_reason(n + i, nl - i, whole);
        if (why != NULL)
            return why;
        i += first_len(n + i, nl - i) + 1;
    }
    return NULL;
}

/* --- analysis ------------------------------------------------------------ */

/* A name a node stands for: an import, getattr(import, "x"), a module from
 * __import__/subimport, types.X from _builtin_type. */
typedef struct {
    const char *m, *n;
    size_t ml, nl;
    int is_module;
} resolved;

typedef struct {
    const char *m, *n, *wm, *wn;
    size_t ml, nl, wml, wnl;
    size_t off;
    pkscan_via via;
    long ext;
    uint32_t node;    /* the node that imports it */
    pkscan_category cat; /* PKSCAN_VIA_BUILTIN_TYPE: the reconstructor's */
    int unrecognised; /* getattr/__import__ used in a way not resolved */
    int modified;     /* what it imports is changed in place (NF_MODIFIED) */
} raw_import;

typedef struct {
    int known;
    const char *name, *qualname, *filename, *version;
    size_t namel, qualnamel, filenamel, versionl;
    long firstlineno, magic;
    int portable;         /* pkscan_function.portable */
    const char *why;      /* its portable_why, in scan memory */
    size_t whyl;
    pkscan_param *params; /* strings point into scan memory */
    size_t n_params;
    pkscan_str *freevars;
    size_t n_freevars;
} code_info;

/* Dict keys the analysis asks about, found once per dict. */
enum {
    DK_GLOBALS, DK_CLOSURE, DK_DEFAULTS, DK_KWDEFAULTS, DK_NAME, DK_QUALNAME,
    DK_MODULE, DK_NKEYS
};
static const char *const dict_keys[DK_NKEYS] = {
    "__globals__", "__closure__", "__defaults__", "__kwdefaults__",
    "__name__", "__qualname__", "__module__",
};

typedef struct {
    uint32_t v[DK_NKEYS];
} dict_summary;

typedef struct {
    scanner *sc;
    report_impl *rep;
    uint32_t *res_of; /* node -> index + 1 into res */
    resolved *res;
    size_t nres, capres;
    uint32_t *recog;  /* node -> uses recognised as constant lookups */
    raw_import *raw;
    size_t nraw, capraw;
    uint32_t *aux_of; /* node -> (AUX_* tag << AUX_BITS) | index + 1 into
                         codes, dsums, fns or clss: the kinds of node
                         these describe never overlap (a code object is a
                         REDUCE of a code reconstructor, a function of
                         _function_new, ...), so one array serves all */
    code_info *codes;
    size_t ncodes, capcodes;
    dict_summary *dsums;
    size_t ndsums, capdsums;
    pkscan_function *fns;
    size_t nfns, capfns;
    pkscan_class *clss;
    size_t nclss, capclss;
    int for_imports;     /* rstr copies an import name */
    pkscan_load_call *calls;
    size_t ncalls, capcalls;
    size_t result_call;
    uint32_t *imp_nodes; /* __import__ REDUCE nodes */
    size_t nimp, capimp;
    int oom;
} analysis;

static int charge(analysis *an, size_t k)
{
    if (an->rep->budget < k) {
        an->rep->budget = 0;
        an->rep->pub.truncated = 1;
        return -1;
    }
    an->rep->budget -= k;
    return 0;
}

enum { AUX_CODE = 0, AUX_DSUM, AUX_FN, AUX_CLS };
#define AUX_BITS 30

/* The index + 1 of node `id`'s entry of kind `tag`, 0 if none. */
static uint32_t aux_get(const analysis *an, uint32_t id, int tag)
{
    uint32_t v = an->aux_of[id];
    return v != 0 && v >> AUX_BITS == (uint32_t)tag
               ? v & ((UINT32_C(1) << AUX_BITS) - 1)
               : 0;
}

static int aux_set(analysis *an, uint32_t id, int tag, size_t index1)
{
    if (index1 >= (UINT32_C(1) << AUX_BITS))
        return -1;
    an->aux_of[id] = (uint32_t)tag << AUX_BITS | (uint32_t)index1;
    return 0;
}

static const resolved *res_get(const analysis *an, uint32_t id)
{
    if (id == NONE_ID || an->res_of[id] == 0)
        return NULL;
    return &an->res[an->res_of[id] - 1];
}

static int res_is(const resolved *r, const char *m, const char *n)
{
    return r && !r->is_module && str_eq(r->m, r->ml, m) &&
           str_eq(r->n, r->nl, n);
}

/* A reconstructor of ccloudpickle or cloudpickle named `n`. */
static int res_recon(const resolved *r, const char *n)
{
    return r && !r->is_module &&
           (str_eq(r->m, r->ml, "ccloudpickle") || is_cp_module(r->m, r->ml)) &&
           str_eq(r->n, r->nl, n);
}

static int set_res(analysis *an, uint32_t id, resolved v)
{
    if (sgrow(an->sc->acct, (void **)&an->res, &an->capres, an->nres + 1, sizeof(resolved)))
        return -1;
    an->res[an->nres++] = v;
    an->res_of[id] = (uint32_t)an->nres;
    return 0;
}

static int add_raw(analysis *an, raw_import v)
{
    if (sgrow(an->sc->acct, (void **)&an->raw, &an->capraw, an->nraw + 1,
             sizeof(raw_import)))
        return -1;
    an->raw[an->nraw++] = v;
    return 0;
}

/* Item k of a tuple/list node, NONE_ID if absent. */
static uint32_t item(const scanner *sc, uint32_t id, size_t k)
{
    if (id == NONE_ID)
        return NONE_ID;
    const node *nd = &sc->nodes[id];
    if ((nd->kind != K_TUPLE && nd->kind != K_LIST) || k >= nd->n)
        return NONE_ID;
    uint32_t e = nd->eh;
    while (k--)
        e = sc->edges[e].next;
    return sc->edges[e].child;
}

static int kind_of(const scanner *sc, uint32_t id)
{
    return id == NONE_ID ? -1 : sc->nodes[id].kind;
}

static int tuple_n(const scanner *sc, uint32_t id, size_t n)
{
    return kind_of(sc, id) == K_TUPLE && sc->nodes[id].n == n;
}

static const dict_summary *dict_sum(analysis *an, uint32_t id)
{
    scanner *sc = an->sc;
    if (kind_of(sc, id) != K_DICT)
        return NULL;
    if (aux_get(an, id, AUX_DSUM))
        return &an->dsums[aux_get(an, id, AUX_DSUM) - 1];
    if (charge(an, sc->nodes[id].n))
        return NULL;
    if (sgrow(an->sc->acct, (void **)&an->dsums, &an->capdsums, an->ndsums + 1,
             sizeof(dict_summary))) {
        an->oom = 1;
        return NULL;
    }
    dict_summary *ds = &an->dsums[an->ndsums++];
    for (int k = 0; k < DK_NKEYS; k++)
        ds->v[k] = NONE_ID;
    for (uint32_t e = sc->nodes[id].eh, i = 0; i + 1 < sc->nodes[id].n;
         i += 2, e = sc->edges[sc->edges[e].next].next) {
        uint32_t key = sc->edges[e].child;
        uint32_t v = sc->edges[sc->edges[e].next].child;
        const char *p;
        size_t l;
        if (!node_is_str(sc, key, &p, &l))
            continue;
        for (int k = 0; k < DK_NKEYS; k++)
            if (str_eq(p, l, dict_keys[k]))
                ds->v[k] = v; /* the last assignment wins */
    }
    if (aux_set(an, id, AUX_DSUM, an->ndsums)) {
        an->oom = 1;
        return NULL;
    }
    return ds;
}

static uint32_t dict_get(analysis *an, uint32_t id, int key)
{
    const dict_summary *ds = dict_sum(an, id);
    return ds ? ds->v[key] : NONE_ID;
}

/* Joined "a.b" in scan memory. */
static const char *join(analysis *an, const char *a, size_t al, const char *b,
                        size_t bl, size_t *len)
{
    char *o = arena_alloc(&an->sc->dec, al + bl + 2, 1);
    if (o == NULL)
        return NULL;
    if (al)
        memcpy(o, a, al);
    size_t k = al;
    if (al && bl)
        o[k++] = '.';
    if (bl)
        memcpy(o + k, b, bl);
    k += bl;
    *len = k;
    return o;
}

/* Bases whose class attributes a getattr on a class carried by value
 * may reach: nothing there reads files, imports or evaluates (the
 * attributes that reflect are danger_attrs). */
static const char *const lookup_safe_bases[] = {
    "object", "int", "str", "float", "bytes", "tuple", "frozenset",
    "Enum", "IntEnum", "Flag", "IntFlag", "StrEnum", "ReprEnum",
};

static int lookup_class_ok(analysis *an, uint32_t id, const char *n,
                           size_t nl, int depth);

/* An object getattr may read a constant attribute `n` of: plain data, or
 * a class carried by value (the skeleton reconstructors' result) whose
 * bases are classes carried by value or harmless builtins, or an enum's
 * member. A class by value inheriting from pathlib.Path would hand out
 * write_text, which no import names. */
static int lookup_target_ok(analysis *an, uint32_t id, const char *n,
                            size_t nl)
{
    const scanner *sc = an->sc;
    if (id == NONE_ID)
        return 0;
    if (sc->nodes[id].kind < K_GLOBAL)
        return 1;
    return lookup_class_ok(an, id, n, nl, 0);
}

static int lookup_class_ok(analysis *an, uint32_t id, const char *n,
                           size_t nl, int depth)
{
    const scanner *sc = an->sc;
    if (id == NONE_ID || depth > 16 || sc->nodes[id].kind != K_REDUCE)
        return 0;
    const resolved *c = res_get(an, sc->nodes[id].a);
    int en = res_recon(c, "_make_skeleton_enum");
    if (!en && !res_recon(c, "_make_skeleton_class"))
        return 0;
    uint32_t args = sc->nodes[id].b;
    if (en && kind_of(sc, item(sc, args, 3)) == K_DICT) {
        /* a member: the enum's classdict of members, str keys */
        const node *md = &sc->nodes[item(sc, args, 3)];
        if (charge(an, md->n))
            return 0;
        uint32_t e = md->eh;
        for (size_t j = 0; j < md->n; j++, e = sc->edges[e].next) {
            const char *kp;
            size_t kl;
            if (j % 2 == 0 && node_is_str(sc, sc->edges[e].child, &kp, &kl) &&
                kl == nl && memcmp(kp, n, nl) == 0)
                return 1;
        }
    }
    /* Public names only: the bases' private and special ones include
     * Enum's _convert_, which rewrites a module's globals. */
    if (nl == 0 || n[0] == '_')
        return 0;
    uint32_t bases = item(sc, args, en ? 0 : 2);
    if (kind_of(sc, bases) != K_TUPLE || charge(an, sc->nodes[bases].n))
        return 0;
    uint32_t e = sc->nodes[bases].eh;
    for (size_t j = 0; j < sc->nodes[bases].n; j++, e = sc->edges[e].next) {
        uint32_t b = sc->edges[e].child;
        const resolved *r = res_get(an, b);
        if (kind_of(sc, b) == K_REDUCE) {
            if (!lookup_class_ok(an, b, n, nl, depth + 1))
                return 0;
            continue;
        }
        if (r == NULL || r->is_module ||
            !(str_eq(r->m, r->ml, "builtins") || str_eq(r->m, r->ml, "enum")) ||
            !in_list(r->n, r->nl, lookup_safe_bases,
                     NELEM(lookup_safe_bases)))
            return 0;
    }
    return 1;
}

/* Codecs that are always loaded: naming one imports nothing. */
static const char *const loaded_codecs[] = {
    "latin1", "latin-1", "iso-8859-1", "iso8859-1", "utf-8", "utf8",
    "ascii", "us-ascii",
};

/* A codec function (_codecs.encode, codecs.decode...): the encoding it is
 * given is looked up as a module, encodings.<name>. */
static int is_codec_call(const resolved *c)
{
    return c != NULL && !c->is_module &&
           (str_eq(c->m, c->ml, "_codecs") || str_eq(c->m, c->ml, "codecs")) &&
           (str_eq(c->n, c->nl, "encode") || str_eq(c->n, c->nl, "decode"));
}

/* A fill reconstructor: writes its state into its first argument, which
 * the load-calls pass checks (C_FILL) only where it sees both, in a
 * REDUCE with a literal argument tuple. */
static int is_fill_recon(const resolved *c)
{
    return res_recon(c, "_function_fill") ||
           res_recon(c, "_function_setstate") ||
           res_recon(c, "_class_setstate") || res_recon(c, "_module_fill") ||
           res_recon(c, "_singledispatch_fill");
}

/* The name a raw import lists, as a resolution. */
static resolved raw_name(const raw_import *ri)
{
    resolved r = {0};
    r.m = ri->m;
    r.ml = ri->ml;
    r.n = ri->n;
    r.nl = ri->nl;
    return r;
}

/* A reconstructor that imports, or looks up, what its argument names:
 * safe to list only when the pickle gives that name as a str. */
static int imports_by_argument(const raw_import *ri)
{
    resolved r = raw_name(ri);
    return ri->via != PKSCAN_VIA_SUBIMPORT &&
           ri->via != PKSCAN_VIA_BUILTIN_TYPE && r.m != NULL &&
           r.n != NULL &&
           (res_recon(&r, "subimport") ||
            res_recon(&r, "_module_reconstructor") ||
            res_recon(&r, "_builtin_type") ||
            res_recon(&r, "_builtin_type_reconstructor") ||
            res_recon(&r, "_function_make") || is_codec_call(&r) ||
            is_fill_recon(&r));
}

/* `_function_make`'s modules, argument 5: (name, module name, ...), each
 * module imported as subimport imports it. Listed, each as a subimport of
 * that name, only when every item is a str the pickle holds; 1 if so (or
 * no such argument), 0 if not, -1 out of memory. */
static int function_make_modules(analysis *an, uint32_t args)
{
    scanner *sc = an->sc;
    size_t n = sc->nodes[args].n;
    if (n <= 4)
        return 1;
    uint32_t pairs = item(sc, args, 4);
    if (n != 5 || kind_of(sc, pairs) != K_TUPLE || sc->nodes[pairs].n % 2 ||
        charge(an, sc->nodes[pairs].n))
        return 0;
    uint32_t e = sc->nodes[pairs].eh;
    for (uint32_t i = 0; i < sc->nodes[pairs].n; i++, e = sc->edges[e].next)
        if (kind_of(sc, sc->edges[e].child) != K_STR)
            return 0;
    e = sc->nodes[pairs].eh;
    for (uint32_t i = 0; i < sc->nodes[pairs].n; i++, e = sc->edges[e].next) {
        uint32_t name = sc->edges[e].child;
        raw_import ri;
        if (i % 2 == 0)
            continue;
        memset(&ri, 0, sizeof ri);
        node_is_str(sc, name, &ri.m, &ri.ml);
        ri.n = "";
        ri.off = sc->nodes[name].off;
        ri.node = name;
        ri.via = PKSCAN_VIA_SUBIMPORT;
        if (add_raw(an, ri))
            return -1;
    }
    return 1;
}

/* Pass 1: what each node names; the raw import list. */
static int resolve_pass(analysis *an)
{
    scanner *sc = an->sc;
    for (size_t i = 0; i < sc->nnodes; i++) {
        node *nd = &sc->nodes[i];
        uint32_t id = (uint32_t)i;
        raw_import ri;
        memset(&ri, 0, sizeof ri);
        ri.off = nd->off;
        ri.node = id;
        if (nd->kind == K_GLOBAL) {
            resolved r = {0};
            node_is_str(sc, nd->a, &r.m, &r.ml);
            node_is_str(sc, nd->b, &r.n, &r.nl);
            if (set_res(an, id, r))
                return -1;
            ri.m = r.m; ri.ml = r.ml; ri.n = r.n; ri.nl = r.nl;
            if (nd->u.w.wm != NONE_ID) {
                node_is_str(sc, nd->u.w.wm, &ri.wm, &ri.wml);
                node_is_str(sc, nd->u.w.wn, &ri.wn, &ri.wnl);
            }
            uint8_t op = sc->d[nd->off];
            ri.via = op == CPK_OP_GLOBAL ? PKSCAN_VIA_GLOBAL
                   : op == CPK_OP_INST   ? PKSCAN_VIA_INST
                                         : PKSCAN_VIA_STACK_GLOBAL;
            if (add_raw(an, ri))
                return -1;
        } else if (nd->kind == K_DYNAMIC) {
            ri.via = PKSCAN_VIA_DYNAMIC;
            if (add_raw(an, ri))
                return -1;
        } else if (nd->kind == K_EXT) {
            ri.via = PKSCAN_VIA_EXT;
            ri.ext = (long)nd->u.ival;
            if (add_raw(an, ri))
                return -1;
        } else if (nd->kind == K_REDUCE) {
            const resolved *c = res_get(an, nd->a);
            uint32_t args = nd->b;
            const char *p, *q;
            size_t l, ql;
            if (c == NULL || kind_of(sc, args) != K_TUPLE)
                continue;
            resolved r = {0};
            if (res_recon(c, "_function_make")) {
                /* its modules, listed here; used otherwise (computed
                 * names) it stays dangerous, as subimport does */
                int ok = function_make_modules(an, args);
                if (ok < 0)
                    return -1;
                an->recog[nd->a] += ok;
                continue;
            }
            if (is_fill_recon(c)) {
                /* seen with its target and state: C_FILL judges it */
                an->recog[nd->a]++;
                continue;
            }
            if (is_codec_call(c)) {
                /* protocol 2's bytes: _codecs.encode(s, "latin1") */
                uint32_t enc = item(sc, args, 1);
                if (tuple_n(sc, args, 1) ||
                    (node_is_str(sc, enc, &p, &l) &&
                     in_list(p, l, loaded_codecs, NELEM(loaded_codecs))))
                    an->recog[nd->a]++;
                continue;
            }
            if (res_is(c, "builtins", "__import__") &&
                node_is_str(sc, item(sc, args, 0), &p, &l)) {
                uint32_t from = item(sc, args, 3);
                int kf = kind_of(sc, from);
                r.m = p;
                r.ml = (kf == K_TUPLE || kf == K_LIST) &&
                               nitems(&sc->nodes[from])
                           ? l : first_len(p, l);
                r.n = "";
                r.is_module = 1;
                an->recog[nd->a]++;
                if (set_res(an, id, r) ||
                    sgrow(an->sc->acct, (void **)&an->imp_nodes, &an->capimp, an->nimp + 1,
                         sizeof(uint32_t)))
                    return -1;
                an->imp_nodes[an->nimp++] = id;
                continue; /* listed through the getattr that uses it */
            } else if (res_is(c, "builtins", "getattr") && tuple_n(sc, args, 2) &&
                       res_get(an, item(sc, args, 0)) &&
                       node_is_str(sc, item(sc, args, 1), &q, &ql)) {
                const resolved *o = res_get(an, item(sc, args, 0));
                r.m = o->m;
                r.ml = o->ml;
                if (o->is_module) {
                    r.n = q;
                    r.nl = ql;
                } else {
                    /* chains of getattr build ever longer names: paid
                     * from the budget, unresolved (so getattr stays
                     * dangerous) when it runs out */
                    if (charge(an, o->nl + ql + 2))
                        continue;
                    r.n = join(an, o->n, o->nl, q, ql, &r.nl);
                    if (r.n == NULL)
                        return -1;
                }
                an->recog[nd->a]++;
                an->recog[item(sc, args, 0)]++;
                ri.via = PKSCAN_VIA_GETATTR;
            } else if (res_is(c, "builtins", "getattr") &&
                       tuple_n(sc, args, 2) &&
                       node_is_str(sc, item(sc, args, 1), &q, &ql) &&
                       !in_list(q, ql, danger_attrs, NELEM(danger_attrs)) &&
                       lookup_target_ok(an, item(sc, args, 0), q, ql)) {
                /* getattr(<class carried by value>, "RED") (a member of
                 * an enum by value), getattr([], "append"): a constant,
                 * harmless attribute of something whose type is known:
                 * nothing to import, and getattr is used harmlessly */
                an->recog[nd->a]++;
                an->recog[item(sc, args, 0)]++;
                continue;
            } else if ((res_recon(c, "subimport") ||
                        res_recon(c, "_module_reconstructor")) &&
                       node_is_str(sc, item(sc, args, 0), &p, &l)) {
                an->recog[nd->a]++;
                r.m = p;
                r.ml = l;
                r.n = "";
                r.is_module = 1;
                ri.via = PKSCAN_VIA_SUBIMPORT;
            } else if ((res_recon(c, "_builtin_type") ||
                        res_recon(c, "_builtin_type_reconstructor")) &&
                       node_is_str(sc, item(sc, args, 0), &p, &l)) {
                an->recog[nd->a]++;
                int ct = str_eq(p, l, "ClassType");
                r.m = ct ? "builtins" : "types";
                r.ml = strlen(r.m);
                r.n = ct ? "type" : p;
                r.nl = ct ? 4 : l;
                ri.via = PKSCAN_VIA_BUILTIN_TYPE;
                ri.cat = categorize(c->m, c->ml, c->n, c->nl);
            } else {
                continue;
            }
            if (set_res(an, id, r))
                return -1;
            ri.m = r.m; ri.ml = r.ml; ri.n = r.n; ri.nl = r.nl;
            if (add_raw(an, ri))
                return -1;
        }
    }
    /* A shared object changed in place: an import (a module, a class,
     * a function), a getattr of one, or what logging.getLogger or
     * __import__ return (NF_MODIFIED): the import that yields it. */
    for (size_t i = 0; i < sc->nnodes; i++) {
        node *nd = &sc->nodes[i];
        if (nd->kind != K_REDUCE || !(nd->flags & NF_MODIFIED) ||
            nd->a == NONE_ID)
            continue;
        const resolved *c = res_get(an, nd->a);
        if (res_is(c, "logging", "getLogger") ||
            res_is(c, "builtins", "__import__"))
            sc->nodes[nd->a].flags |= NF_MODIFIED;
    }
    for (size_t i = 0; i < an->nraw; i++)
        if (sc->nodes[an->raw[i].node].flags & NF_MODIFIED)
            an->raw[i].modified = 1;
    /* __import__(...) counts as a constant lookup only if its module is
     * used by nothing but constant getattr lookups. */
    for (size_t i = 0; i < an->nimp; i++) {
        uint32_t id = an->imp_nodes[i];
        if (sc->nodes[id].refs != an->recog[id])
            an->recog[sc->nodes[id].a]--;
    }
    /* getattr / __import__ imports used otherwise stay dangerous; so do
     * the reconstructors that import what their argument names, used
     * otherwise than called with a str the pickle holds:
     * subimport(str("os")) imports what the scan never sees. */
    for (size_t i = 0; i < an->nraw; i++) {
        raw_import *ri = &an->raw[i];
        if (ri->via == PKSCAN_VIA_DYNAMIC || ri->via == PKSCAN_VIA_EXT)
            continue;
        if ((str_eq(ri->m, ri->ml, "builtins") &&
             (str_eq(ri->n, ri->nl, "getattr") ||
              str_eq(ri->n, ri->nl, "__import__"))) ||
            imports_by_argument(ri))
            ri->unrecognised = 1; /* cleared below per node */
    }
    for (size_t i = 0; i < an->nraw; i++) {
        raw_import *ri = &an->raw[i];
        if (ri->unrecognised &&
            sc->nodes[ri->node].refs == an->recog[ri->node])
            ri->unrecognised = 0;
    }
    return 0;
}

static int str_tuple_count(analysis *an, uint32_t id)
{
    const scanner *sc = an->sc;
    if (kind_of(sc, id) != K_TUPLE || charge(an, sc->nodes[id].n))
        return -1;
    for (uint32_t e = sc->nodes[id].eh, i = 0; i < sc->nodes[id].n;
         i++, e = sc->edges[e].next)
        if (kind_of(sc, sc->edges[e].child) != K_STR)
            return -1;
    return (int)sc->nodes[id].n;
}

static int names_from_tuple(analysis *an, uint32_t id, size_t count,
                            pkscan_str **out, size_t *nout)
{
    scanner *sc = an->sc;
    if (count == 0)
        return 0;
    if (charge(an, count))
        return 0;
    pkscan_str *a = arena_alloc(&sc->dec, count * sizeof *a, sizeof(void *));
    if (a == NULL)
        return -1;
    uint32_t e = sc->nodes[id].eh;
    for (size_t i = 0; i < count; i++, e = sc->edges[e].next)
        node_is_str(sc, sc->edges[e].child, &a[i].s, &a[i].len);
    *out = a;
    *nout = count;
    return 0;
}

static int make_params(analysis *an, code_info *ci, const pkscan_str *names,
                       size_t nnames, long argc, long posonly, long kwonly,
                       long flags)
{
    size_t np = (size_t)argc + (size_t)kwonly + ((flags & 4) != 0) +
                ((flags & 8) != 0);
    if (argc < 0 || kwonly < 0 || posonly < 0 || posonly > argc ||
        np > nnames)
        return 0;
    if (np == 0) {
        ci->known = 1;
        return 0;
    }
    pkscan_param *pp = arena_alloc(&an->sc->dec, np * sizeof *pp,
                                   sizeof(void *));
    if (pp == NULL)
        return -1;
    size_t k = 0;
    for (long i = 0; i < argc; i++, k++) {
        pp[k].name = names[k];
        pp[k].kind = i < posonly ? PKSCAN_PARAM_POSONLY : PKSCAN_PARAM_REGULAR;
    }
    /* co_varnames: positional, keyword-only, *args, **kwargs */
    size_t kw0 = k;
    for (long i = 0; i < kwonly; i++, k++) {
        pp[k].name = names[k];
        pp[k].kind = PKSCAN_PARAM_KWONLY;
    }
    if (flags & 4) {
        /* *args sits between the positional and keyword-only ones in a
         * signature: move it there. */
        pkscan_str va = names[k];
        memmove(pp + kw0 + 1, pp + kw0, (size_t)kwonly * sizeof *pp);
        pp[kw0].name = va;
        pp[kw0].kind = PKSCAN_PARAM_VARARGS;
        k++;
    }
    if (flags & 8) {
        pp[k].name = names[k];
        pp[k].kind = PKSCAN_PARAM_VARKW;
        k++;
    }
    ci->params = pp;
    ci->n_params = k;
    ci->known = 1;
    return 0;
}

/* types.CodeType(*fields): the layout follows from the field count. */
static int code_from_fields(analysis *an, uint32_t fields, code_info *ci)
{
    scanner *sc = an->sc;
    if (kind_of(sc, fields) != K_TUPLE)
        return 0;
    size_t n = sc->nodes[fields].n;
    int iarg, ipos, ikw, iflags, ivn, ifile, iname, iqual, iline, ifree;
    const char *ver;
    if (n == 18) { /* 3.11+: + qualname, exceptiontable */
        iarg = 0; ipos = 1; ikw = 2; iflags = 5; ivn = 9; ifile = 10;
        iname = 11; iqual = 12; iline = 13; ifree = 16; ver = "3.11+";
    } else if (n == 16) { /* 3.8-3.10: + posonlyargcount */
        iarg = 0; ipos = 1; ikw = 2; iflags = 5; ivn = 9; ifile = 10;
        iname = 11; iqual = -1; iline = 12; ifree = 14; ver = "3.8-3.10";
    } else if (n == 15) { /* 3.7 and before */
        iarg = 0; ipos = -1; ikw = 1; iflags = 4; ivn = 8; ifile = 9;
        iname = 10; iqual = -1; iline = 11; ifree = 13; ver = "3.7 or older";
    } else {
        return 0;
    }
    uint32_t f[18];
    uint32_t e = sc->nodes[fields].eh;
    for (size_t i = 0; i < n; i++, e = sc->edges[e].next)
        f[i] = sc->edges[e].child;
    if (!ci->version) {
        ci->version = ver;
        ci->versionl = strlen(ver);
    }
    node_is_str(sc, f[ifile], &ci->filename, &ci->filenamel);
    node_is_str(sc, f[iname], &ci->name, &ci->namel);
    if (iqual >= 0)
        node_is_str(sc, f[iqual], &ci->qualname, &ci->qualnamel);
    if (kind_of(sc, f[iline]) == K_INT)
        ci->firstlineno = (long)sc->nodes[f[iline]].u.ival;
    int nfree = str_tuple_count(an, f[ifree]);
    if (nfree > 0 &&
        names_from_tuple(an, f[ifree], (size_t)nfree, &ci->freevars,
                         &ci->n_freevars))
        return -1;
    int nvn = str_tuple_count(an, f[ivn]);
    long v[4];
    int idx[4] = {iarg, ipos, ikw, iflags};
    for (int i = 0; i < 4; i++) {
        v[i] = 0;
        if (idx[i] < 0)
            continue;
        if (kind_of(sc, f[idx[i]]) != K_INT)
            return 0;
        v[i] = (long)sc->nodes[f[idx[i]]].u.ival;
    }
    if (nvn < 0)
        return 0;
    pkscan_str *names = NULL;
    size_t nn = 0;
    if (names_from_tuple(an, f[ivn], (size_t)nvn, &names, &nn))
        return -1;
    return make_params(an, ci, names, nn, v[0], v[1], v[2], v[3]);
}

static int code_from_marshal(analysis *an, const char *data, size_t len,
                             long magic, code_info *ci)
{
    cpk_mcode mc;
    if (charge(an, len + 1)) /* the reader's work is linear in len */
        return 0;
    if (!cpk_mscan_code((const uint8_t *)data, len, magic, &mc))
        return 0;
    int rc = -1;
    ci->name = (const char *)mc.name.p;
    ci->namel = mc.name.len;
    ci->qualname = (const char *)mc.qualname.p;
    ci->qualnamel = mc.qualname.len;
    ci->filename = (const char *)mc.filename.p;
    ci->filenamel = mc.filename.len;
    ci->firstlineno = mc.firstlineno;
    size_t nn = mc.n_params, nf = mc.n_freevars;
    pkscan_str *names = NULL;
    if (nn + nf) {
        names = arena_alloc(&an->sc->dec, (nn + nf) * sizeof *names,
                            sizeof(void *));
        if (names == NULL)
            goto done;
        for (size_t i = 0; i < nn; i++) {
            names[i].s = (const char *)mc.params[i].p;
            names[i].len = mc.params[i].len;
        }
        for (size_t i = 0; i < nf; i++) {
            names[nn + i].s = (const char *)mc.freevars[i].p;
            names[nn + i].len = mc.freevars[i].len;
        }
    }
    ci->freevars = nf ? names + nn : NULL;
    ci->n_freevars = nf;
    rc = make_params(an, ci, names, nn, mc.argcount, mc.posonlyargcount,
                     mc.kwonlyargcount, mc.flags);
done:
    cpk_mscan_free(&mc);
    return rc;
}

/* How a code object is made: the reconstructor of a REDUCE node, or
 * _code_unmarshal's arguments inline (`_function_make`'s first argument). */
enum { MADE_OTHER, MADE_UNMARSHAL, MADE_PORTABLE, MADE_NEW, MADE_FIELDS };

static const code_info *code_read(analysis *an, uint32_t id, int made,
                                  uint32_t args);

/* What the code object at node `id` says (cached per node). */
static const code_info *code_get(analysis *an, uint32_t id)
{
    scanner *sc = an->sc;
    if (kind_of(sc, id) != K_REDUCE)
        return NULL;
    if (aux_get(an, id, AUX_CODE))
        return &an->codes[aux_get(an, id, AUX_CODE) - 1];
    const resolved *c = res_get(an, sc->nodes[id].a);
    int made = res_recon(c, "_code_unmarshal")  ? MADE_UNMARSHAL
               : res_recon(c, "_code_portable") ? MADE_PORTABLE
               : res_recon(c, "_code_new")      ? MADE_NEW
               : res_is(c, "types", "CodeType") ? MADE_FIELDS
                                                : MADE_OTHER;
    return code_read(an, id, made, sc->nodes[id].b);
}

/* `_function_make`'s code: a code node, or the tuple (python_version,
 * magic, data) the reconstructor unmarshals as _code_unmarshal does. */
static const code_info *code_get_inline(analysis *an, uint32_t id)
{
    if (kind_of(an->sc, id) != K_TUPLE)
        return code_get(an, id);
    if (aux_get(an, id, AUX_CODE))
        return &an->codes[aux_get(an, id, AUX_CODE) - 1];
    return code_read(an, id, MADE_UNMARSHAL, id);
}

/* Read the code that `args` make (`made`), kept as node `id`'s. */
static const code_info *code_read(analysis *an, uint32_t id, int made,
                                  uint32_t args)
{
    scanner *sc = an->sc;
    code_info ci;
    memset(&ci, 0, sizeof ci);
    ci.firstlineno = -1;
    ci.magic = -1;
    ci.portable = -1;
    int rc = 0;
    /* _code_portable(python_version, magic, data, source): the first
     * three as _code_unmarshal's; source a tuple (text, filename, name,
     * line, flags, shift) another Python compiles, or a str saying why the
     * function has none (src/types/portable.c). Anything else there is
     * refused by the reconstructor: portable unknown. */
    int portable = made == MADE_PORTABLE;
    if (portable && tuple_n(sc, args, 4)) {
        uint32_t src = item(sc, args, 3);
        if (node_is_str(sc, src, &ci.why, &ci.whyl))
            ci.portable = 0;
        else if (kind_of(sc, src) == K_TUPLE && tuple_n(sc, src, 6))
            ci.portable = 1;
    }
    if ((portable ? tuple_n(sc, args, 4)
                  : (made == MADE_UNMARSHAL || made == MADE_NEW) &&
                        tuple_n(sc, args, 3))) {
        uint32_t ver = item(sc, args, 0), mg = item(sc, args, 1);
        uint32_t data = item(sc, args, 2);
        node_is_str(sc, ver, &ci.version, &ci.versionl);
        if (kind_of(sc, mg) == K_INT && !(sc->nodes[mg].flags & NF_BIGINT))
            ci.magic = (long)(sc->nodes[mg].u.ival & 0xffff);
        if (made == MADE_NEW) {
            rc = code_from_fields(an, data, &ci);
        } else if (kind_of(sc, data) == K_BYTES) {
            if (ci.version == NULL && cpk_mscan_version(ci.magic)) {
                ci.version = cpk_mscan_version(ci.magic);
                ci.versionl = strlen(ci.version);
            }
            const char *mp;
            size_t ml;
            node_bytes(sc, data, &mp, &ml);
            rc = code_from_marshal(an, mp, ml, ci.magic, &ci);
        }
    } else if (made == MADE_FIELDS && kind_of(sc, args) == K_TUPLE) {
        rc = code_from_fields(an, args, &ci);
    } else {
        return NULL;
    }
    /* Bytecode this scan cannot read (a magic it does not know: a newer
     * Python's): a shipped source still says the function's name, file
     * and first line, which the loader compiles it with. */
    if (rc == 0 && !ci.known && ci.portable == 1) {
        uint32_t src = item(sc, args, 3), line = item(sc, src, 3);
        node_is_str(sc, item(sc, src, 1), &ci.filename, &ci.filenamel);
        node_is_str(sc, item(sc, src, 2), &ci.name, &ci.namel);
        if (kind_of(sc, line) == K_INT && !(sc->nodes[line].flags & NF_BIGINT))
            ci.firstlineno = (long)sc->nodes[line].u.ival;
    }
    if (rc < 0 || sgrow(an->sc->acct, (void **)&an->codes, &an->capcodes, an->ncodes + 1,
                       sizeof(code_info))) {
        an->oom = 1;
        return NULL;
    }
    an->codes[an->ncodes++] = ci;
    if (aux_set(an, id, AUX_CODE, an->ncodes)) {
        an->oom = 1;
        return NULL;
    }
    return &an->codes[an->ncodes - 1];
}

/* --- report strings ------------------------------------------------------ */

static pkscan_str rstr(analysis *an, const char *p, size_t len)
{
    pkscan_str s = {NULL, 0};
    if (p == NULL)
        return s;
    if (an->for_imports) {
        /* import names have their own budget, so that work spent on
         * the rest of the analysis never costs the import list */
        if (an->rep->ibudget < len + 1) {
            an->rep->pub.truncated = 1;
            return s;
        }
        an->rep->ibudget -= len + 1;
    } else if (charge(an, len + 1)) {
        return s;
    }
    char *c = rep_strdup(an->rep, p, len);
    if (c == NULL) {
        an->oom = 1;
        return s;
    }
    s.s = c;
    s.len = len;
    return s;
}

static pkscan_str rnode(analysis *an, uint32_t id)
{
    const char *p = NULL;
    size_t l = 0;
    node_is_str(an->sc, id, &p, &l);
    return rstr(an, p, l);
}

/* Keys (str) of dict `id` into a report array. */
static void dict_keys_list(analysis *an, uint32_t id, pkscan_str **out,
                           size_t *nout)
{
    scanner *sc = an->sc;
    if (kind_of(sc, id) != K_DICT)
        return;
    size_t n = sc->nodes[id].n / 2;
    if (n == 0)
        return;
    if (n > PKSCAN_MAX_ITEMS) {
        n = PKSCAN_MAX_ITEMS;
        an->rep->pub.truncated = 1;
    }
    if (charge(an, 2 * n))
        return;
    pkscan_str *a = arena_alloc(&an->rep->mem, n * sizeof *a, sizeof(void *));
    if (a == NULL) {
        an->oom = 1;
        return;
    }
    size_t k = 0;
    uint32_t e = sc->nodes[id].eh;
    for (size_t i = 0; i < n; i++) {
        uint32_t key = sc->edges[e].child;
        e = sc->edges[sc->edges[e].next].next;
        if (kind_of(sc, key) == K_STR)
            a[k++] = rnode(an, key);
    }
    *out = a;
    *nout = k;
}

static pkscan_str *copy_strs(analysis *an, const pkscan_str *src, size_t n)
{
    if (n == 0)
        return NULL;
    if (charge(an, n))
        return NULL;
    pkscan_str *a = arena_alloc(&an->rep->mem, n * sizeof *a, sizeof(void *));
    if (a == NULL) {
        an->oom = 1;
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        a[i] = rstr(an, src[i].s, src[i].len);
    return a;
}

/* --- functions and classes ----------------------------------------------- */

static pkscan_function *new_fn(analysis *an, uint32_t id, int layout)
{
    if (an->nfns >= PKSCAN_MAX_ITEMS) {
        an->rep->pub.truncated = 1;
        return NULL;
    }
    if (sgrow(an->sc->acct, (void **)&an->fns, &an->capfns, an->nfns + 1,
             sizeof(pkscan_function))) {
        an->oom = 1;
        return NULL;
    }
    pkscan_function *f = &an->fns[an->nfns++];
    memset(f, 0, sizeof *f);
    f->layout = (pkscan_fn_layout)layout;
    f->offset = an->sc->nodes[id].off;
    f->firstlineno = -1;
    f->magic = -1;
    f->portable = -1;
    f->n_defaults = 0;
    f->n_kwdefaults = 0;
    aux_set(an, id, AUX_FN, an->nfns); /* fewer than PKSCAN_MAX_ITEMS */
    return f;
}

/* The function's details from its code; `inline_ok`: _function_make's,
 * which may be the tuple _code_unmarshal reads. */
static void fn_code(analysis *an, pkscan_function *f, uint32_t code,
                    int inline_ok)
{
    const code_info *ci = inline_ok ? code_get_inline(an, code)
                                    : code_get(an, code);
    if (ci == NULL)
        return;
    f->name = rstr(an, ci->name, ci->namel);
    f->qualname = rstr(an, ci->qualname, ci->qualnamel);
    f->filename = rstr(an, ci->filename, ci->filenamel);
    f->firstlineno = ci->firstlineno;
    f->python_version = rstr(an, ci->version, ci->versionl);
    f->magic = ci->magic;
    f->code_known = ci->known;
    f->portable = ci->portable;
    f->portable_why = rstr(an, ci->why, ci->whyl);
    if (ci->n_params && charge(an, ci->n_params) == 0) {
        f->params = arena_alloc(&an->rep->mem,
                                ci->n_params * sizeof(pkscan_param),
                                sizeof(void *));
        if (f->params == NULL) {
            an->oom = 1;
        } else {
            for (size_t i = 0; i < ci->n_params; i++) {
                f->params[i].name = rstr(an, ci->params[i].name.s,
                                         ci->params[i].name.len);
                f->params[i].kind = ci->params[i].kind;
            }
            f->n_params = ci->n_params;
        }
    }
    f->freevars = copy_strs(an, ci->freevars, ci->n_freevars);
    if (f->freevars)
        f->n_freevars = ci->n_freevars;
}

static long seq_len(const scanner *sc, uint32_t id, int kind)
{
    int k = kind_of(sc, id);
    if (k == K_NONE)
        return 0;
    if (k == kind)
        return (long)(kind == K_DICT ? nitems(&sc->nodes[id]) / 2
                                     : nitems(&sc->nodes[id]));
    return -1;
}

/* The function state dict (ccloudpickle's state, cloudpickle's slotstate). */
static void fn_state(analysis *an, pkscan_function *f, uint32_t st)
{
    scanner *sc = an->sc;
    uint32_t v;
    if (kind_of(sc, st) != K_DICT)
        return;
    if ((v = dict_get(an, st, DK_NAME)) != NONE_ID && kind_of(sc, v) == K_STR)
        f->name = rnode(an, v);
    if ((v = dict_get(an, st, DK_QUALNAME)) != NONE_ID &&
        kind_of(sc, v) == K_STR)
        f->qualname = rnode(an, v);
    if ((v = dict_get(an, st, DK_MODULE)) != NONE_ID &&
        kind_of(sc, v) == K_STR)
        f->module = rnode(an, v);
    if ((v = dict_get(an, st, DK_DEFAULTS)) != NONE_ID)
        f->n_defaults = seq_len(sc, v, K_TUPLE);
    if ((v = dict_get(an, st, DK_KWDEFAULTS)) != NONE_ID)
        f->n_kwdefaults = seq_len(sc, v, K_DICT);
    if ((v = dict_get(an, st, DK_GLOBALS)) != NONE_ID && f->globals == NULL)
        dict_keys_list(an, v, &f->globals, &f->n_globals);
}

/* `_function_make`'s modules (name, module name, ...): the names join
 * the function's globals, after its state's, in the pickle's order. */
static void fn_module_globals(analysis *an, pkscan_function *f, uint32_t t)
{
    scanner *sc = an->sc;
    if (kind_of(sc, t) != K_TUPLE || sc->nodes[t].n < 2)
        return;
    size_t n = sc->nodes[t].n / 2, have = f->globals ? f->n_globals : 0;
    if (have + n > PKSCAN_MAX_ITEMS) {
        n = have < PKSCAN_MAX_ITEMS ? PKSCAN_MAX_ITEMS - have : 0;
        an->rep->pub.truncated = 1;
    }
    if (n == 0 || charge(an, 2 * n))
        return;
    pkscan_str *a = arena_alloc(&an->rep->mem, (have + n) * sizeof *a,
                                sizeof(void *));
    if (a == NULL) {
        an->oom = 1;
        return;
    }
    size_t k = 0;
    for (size_t i = 0; i < have; i++)
        a[k++] = f->globals[i];
    uint32_t e = sc->nodes[t].eh;
    for (size_t i = 0; i < n; i++) {
        uint32_t name = sc->edges[e].child;
        e = sc->edges[sc->edges[e].next].next;
        if (kind_of(sc, name) == K_STR)
            a[k++] = rnode(an, name);
    }
    f->globals = a;
    f->n_globals = k;
}

static pkscan_str base_name(analysis *an, uint32_t b)
{
    const resolved *r = res_get(an, b);
    if (r && charge(an, r->ml + r->nl + 2) == 0) {
        size_t l;
        const char *j = join(an, r->m, r->ml, r->n, r->nl, &l);
        if (j)
            return rstr(an, j, l);
    }
    if (b != NONE_ID && aux_get(an, b, AUX_CLS))
        return an->clss[aux_get(an, b, AUX_CLS) - 1].name;
    return rstr(an, "?", 1);
}

static pkscan_class *new_cls(analysis *an, uint32_t id)
{
    if (an->nclss >= PKSCAN_MAX_ITEMS) {
        an->rep->pub.truncated = 1;
        return NULL;
    }
    if (sgrow(an->sc->acct, (void **)&an->clss, &an->capclss, an->nclss + 1,
             sizeof(pkscan_class))) {
        an->oom = 1;
        return NULL;
    }
    pkscan_class *c = &an->clss[an->nclss++];
    memset(c, 0, sizeof *c);
    c->offset = an->sc->nodes[id].off;
    aux_set(an, id, AUX_CLS, an->nclss); /* fewer than PKSCAN_MAX_ITEMS */
    return c;
}

static void cls_bases(analysis *an, pkscan_class *c, uint32_t bases)
{
    scanner *sc = an->sc;
    if (kind_of(sc, bases) != K_TUPLE || sc->nodes[bases].n == 0)
        return;
    size_t n = sc->nodes[bases].n;
    if (charge(an, n))
        return;
    c->bases = arena_alloc(&an->rep->mem, n * sizeof(pkscan_str),
                           sizeof(void *));
    if (c->bases == NULL) {
        an->oom = 1;
        return;
    }
    uint32_t e = sc->nodes[bases].eh;
    for (size_t i = 0; i < n; i++, e = sc->edges[e].next)
        c->bases[i] = base_name(an, sc->edges[e].child);
    c->n_bases = n;
}

/* Plain data in a class's namespace: literals, names imported by the
 * pickle, and containers (tuple, list, dict, set, frozenset) of those,
 * and getattr(name, "attr") of those. Anything else (a function or class
 * carried by value, a partial, a REDUCE result, a descriptor...) may be
 * called when the class is used: a method. Depth capped: deeper counts
 * as a method. */
static int makes_code(const analysis *an, const node *nd);

static int plain_value(analysis *an, uint32_t v, int depth)
{
    scanner *sc = an->sc;
    if (v == NONE_ID)
        return 1;
    if (depth > 8 || aux_get(an, v, AUX_FN) || aux_get(an, v, AUX_CLS) ||
        makes_code(an, &sc->nodes[v]))
        return 0;
    const node *nd = &sc->nodes[v];
    switch (nd->kind) {
    case K_NONE: case K_BOOL: case K_INT: case K_FLOAT: case K_STR:
    case K_BYTES: case K_BYTEARRAY:
        return 1;
    case K_TUPLE: case K_LIST: case K_DICT: case K_SET: case K_FROZENSET: {
        if (charge(an, nd->n))
            return 0;
        uint32_t e = nd->eh;
        for (size_t j = 0; j < nd->n; j++, e = sc->edges[e].next)
            if (!plain_value(an, sc->edges[e].child, depth + 1))
                return 0;
        return 1;
    }
    case K_GLOBAL:
        return nd->n == 0 && res_get(an, v) != NULL;
    case K_REDUCE: {
        if (nd->n == 0 && res_get(an, v) != NULL)
            return 1; /* a constant lookup, getattr(module, "name") */
        const resolved *r = res_get(an, nd->a);
        return nd->n == 0 && res_is(r, "builtins", "getattr") &&
               tuple_n(sc, nd->b, 2) &&
               plain_value(an, item(sc, nd->b, 0), depth + 1) &&
               kind_of(sc, item(sc, nd->b, 1)) == K_STR;
    }
    default:
        return 0;
    }
}

static int is_method_value(analysis *an, uint32_t v)
{
    return v != NONE_ID && !plain_value(an, v, 0);
}

/* Every state applied to a class adds to its methods (a later
 * _class_setstate may add __init__). */
static void cls_state(analysis *an, pkscan_class *c, uint32_t st)
{
    scanner *sc = an->sc;
    if (kind_of(sc, st) != K_DICT)
        return;
    int first = c->methods == NULL;
    uint32_t v = dict_get(an, st, DK_QUALNAME);
    if (first && v != NONE_ID && kind_of(sc, v) == K_STR)
        c->qualname = rnode(an, v);
    /* cloudpickle 2.2 keeps __module__ in the state, not type_kwargs */
    v = dict_get(an, st, DK_MODULE);
    if (c->module.s == NULL && v != NONE_ID && kind_of(sc, v) == K_STR)
        c->module = rnode(an, v);
    size_t n = sc->nodes[st].n / 2;
    if (n == 0 || charge(an, 2 * n + c->n_methods))
        return;
    if (c->n_methods + n > PKSCAN_MAX_ITEMS) {
        if (c->n_methods >= PKSCAN_MAX_ITEMS)
            return;
        n = PKSCAN_MAX_ITEMS - c->n_methods;
        an->rep->pub.truncated = 1;
    }
    pkscan_str *m = arena_alloc(&an->rep->mem,
                                (c->n_methods + n) * sizeof(pkscan_str),
                                sizeof(void *));
    if (m == NULL) {
        an->oom = 1;
        return;
    }
    if (c->n_methods)
        memcpy(m, c->methods, c->n_methods * sizeof(pkscan_str));
    c->methods = m;
    uint32_t e = sc->nodes[st].eh;
    for (size_t i = 0; i < n; i++) {
        uint32_t key = sc->edges[e].child;
        uint32_t val = sc->edges[sc->edges[e].next].child;
        e = sc->edges[sc->edges[e].next].next;
        if (kind_of(sc, key) == K_STR && is_method_value(an, val))
            c->methods[c->n_methods++] = rnode(an, key);
    }
}

/* A node made by calling its `a` with the tuple `b`. */
static int call_kind(int k)
{
    return k == K_REDUCE || k == K_NEWOBJ || k == K_OBJ;
}

/* The function details _make_function(code, globals, name, argdefs,
 * closure) and types.FunctionType(code, globals[, name[, argdefs[,
 * closure[, kwdefaults]]]]) share: `args` holds `n` of them, and with
 * `kw` (NEWOBJ_EX) keyword arguments not kept may give the rest. */
static void fn_from_args(analysis *an, pkscan_function *f, uint32_t args,
                         size_t n, int kw)
{
    scanner *sc = an->sc;
    fn_code(an, f, item(sc, args, 0), 0);
    uint32_t nm = item(sc, args, 2);
    if (kind_of(sc, nm) == K_STR)
        f->name = rnode(an, nm);
    /* an argdefs or kwdefaults not given is None: none */
    f->n_defaults = n > 3 ? seq_len(sc, item(sc, args, 3), K_TUPLE)
                    : kw  ? -1
                          : 0;
    if (n > 5)
        f->n_kwdefaults = seq_len(sc, item(sc, args, 5), K_DICT);
    else if (kw)
        f->n_kwdefaults = -1;
    uint32_t g = dict_get(an, item(sc, args, 1), DK_NAME);
    if (kind_of(sc, g) == K_STR)
        f->module = rnode(an, g);
}

/* types.FunctionType (alias types.LambdaType) called with a positional
 * argument count it accepts: 2 to 6, kwdefaults being 3.13's (fail
 * closed: a function on every version). cloudpickle 2.0, and
 * ccloudpickle's compat="cloudpickle2", write _make_function's call
 * this way, the class reached as _builtin_type("LambdaType"); it is
 * what _make_function itself calls. Through REDUCE, NEWOBJ, NEWOBJ_EX
 * (its kwargs are not kept: any count up to 6 then), OBJ or INST. Fewer
 * or more arguments raise TypeError in the load: no function is made. */
static int function_type_call(analysis *an, const node *nd, size_t *nargs,
                              int *kw)
{
    const scanner *sc = an->sc;
    if (!call_kind(nd->kind) || kind_of(sc, nd->b) != K_TUPLE)
        return 0;
    const resolved *c = res_get(an, nd->a);
    if (!res_is(c, "types", "FunctionType") &&
        !res_is(c, "types", "LambdaType"))
        return 0;
    size_t n = sc->nodes[nd->b].n;
    int ex = nd->kind == K_NEWOBJ && sc->d[nd->off] == CPK_OP_NEWOBJ_EX;
    if (n > 6 || (n < 2 && !ex))
        return 0;
    *nargs = n;
    *kw = ex;
    return 1;
}

static void objects_pass(analysis *an)
{
    scanner *sc = an->sc;
    for (size_t i = 0; i < sc->nnodes && !an->oom; i++) {
        node *nd = &sc->nodes[i];
        size_t nargs;
        int exkw;
        if (function_type_call(an, nd, &nargs, &exkw)) {
            pkscan_function *f = new_fn(an, (uint32_t)i,
                                        PKSCAN_FN_CLOUDPICKLE);
            if (f != NULL)
                fn_from_args(an, f, nd->b, nargs, exkw);
            continue;
        }
        if (nd->kind != K_REDUCE)
            continue;
        const resolved *c = res_get(an, nd->a);
        if (c == NULL || c->is_module)
            continue;
        int ccp = str_eq(c->m, c->ml, "ccloudpickle");
        if (!ccp && !is_cp_module(c->m, c->ml))
            continue;
        uint32_t args = nd->b, id = (uint32_t)i;
        int make = str_eq(c->n, c->nl, "_function_make") &&
                   (tuple_n(sc, args, 4) || tuple_n(sc, args, 5));
        if (make ||
            (str_eq(c->n, c->nl, "_function_new") && tuple_n(sc, args, 3))) {
            pkscan_function *f = new_fn(an, id, PKSCAN_FN_CCLOUDPICKLE);
            if (f == NULL)
                continue;
            fn_code(an, f, item(sc, args, 0), make);
            uint32_t g = dict_get(an, item(sc, args, 1), DK_NAME);
            if (kind_of(sc, g) == K_STR)
                f->module = rnode(an, g);
            /* _function_make: _function_new's three, then
             * _function_fill's state, then its modules */
            if (make) {
                fn_state(an, f, item(sc, args, 3));
                fn_module_globals(an, f, item(sc, args, 4));
            }
        } else if (str_eq(c->n, c->nl, "_make_function") &&
                   tuple_n(sc, args, 5)) {
            pkscan_function *f = new_fn(an, id, PKSCAN_FN_CLOUDPICKLE);
            if (f == NULL)
                continue;
            fn_from_args(an, f, args, 5, 0);
        } else if (str_eq(c->n, c->nl, "_function_fill") &&
                   tuple_n(sc, args, 2)) {
            uint32_t fn = item(sc, args, 0);
            if (aux_get(an, fn, AUX_FN))
                fn_state(an, &an->fns[aux_get(an, fn, AUX_FN) - 1],
                         item(sc, args, 1));
        } else if (str_eq(c->n, c->nl, "_function_setstate") &&
                   tuple_n(sc, args, 2)) {
            uint32_t fn = item(sc, args, 0), st = item(sc, args, 1);
            if (aux_get(an, fn, AUX_FN) && tuple_n(sc, st, 2)) {
                pkscan_function *f = &an->fns[aux_get(an, fn, AUX_FN) - 1];
                fn_state(an, f, item(sc, st, 1));
                fn_state(an, f, item(sc, st, 0));
            }
        } else if (str_eq(c->n, c->nl, "_make_skeleton_class") &&
                   tuple_n(sc, args, 6)) {
            pkscan_class *k = new_cls(an, id);
            if (k == NULL)
                continue;
            k->from_cloudpickle = !ccp;
            k->name = rnode(an, item(sc, args, 1));
            cls_bases(an, k, item(sc, args, 2));
            uint32_t kw = item(sc, args, 3);
            uint32_t v = dict_get(an, kw, DK_MODULE);
            if (kind_of(sc, v) == K_STR)
                k->module = rnode(an, v);
            v = dict_get(an, kw, DK_QUALNAME);
            if (kind_of(sc, v) == K_STR)
                k->qualname = rnode(an, v);
            /* the namespace the class is made with holds methods too
             * (__init__, __init_subclass__), as a later state does */
            cls_state(an, k, kw);
        } else if (str_eq(c->n, c->nl, "_make_skeleton_enum") &&
                   tuple_n(sc, args, 7)) {
            pkscan_class *k = new_cls(an, id);
            if (k == NULL)
                continue;
            k->is_enum = 1;
            k->from_cloudpickle = !ccp;
            cls_bases(an, k, item(sc, args, 0));
            k->name = rnode(an, item(sc, args, 1));
            k->qualname = rnode(an, item(sc, args, 2));
            k->module = rnode(an, item(sc, args, 4));
            dict_keys_list(an, item(sc, args, 3), &k->members, &k->n_members);
        } else if (str_eq(c->n, c->nl, "_class_setstate") &&
                   tuple_n(sc, args, 2)) {
            uint32_t cl = item(sc, args, 0), st = item(sc, args, 1);
            if (aux_get(an, cl, AUX_CLS) && tuple_n(sc, st, 2))
                cls_state(an, &an->clss[aux_get(an, cl, AUX_CLS) - 1],
                          item(sc, st, 0));
        }
    }
    for (size_t i = 0; i < an->nclss; i++)
        if (an->clss[i].qualname.s == NULL)
            an->clss[i].qualname = an->clss[i].name;
    for (size_t i = 0; i < an->nfns; i++)
        if (an->fns[i].qualname.s == NULL)
            an->fns[i].qualname = an->fns[i].name;
}

/* Is `magic` (its low 16 bits) bytecode of the CPython this is built for?
 * Code of another is compiled from its shipped source on load. The scan
 * may run before the interpreter does (cloudpickle-load reads ahead), so
 * the answer comes from marshal_scan.c's table and the scan's flags. */
static int own_bytecode(const analysis *an, long magic)
{
    unsigned minor = PKSCAN_PY_MINOR(an->sc->flags);
    char mine[16];
    snprintf(mine, sizeof mine, "3.%u", minor);
    const char *v = magic >= 0 ? cpk_mscan_version(magic) : NULL;
    return minor != 0 && v != NULL && strcmp(v, mine) == 0;
}

/* --- code by value the load runs ---------------------------------------- */

#define C_FN "calls a function carried by value"
#define C_METHOD "calls a method of a class carried by value"
#define C_INST "creates an instance of a class carried by value (its " \
               "methods may run: __new__, __init__, __setstate__, "      \
               "__setattr__, __hash__...)"
#define C_META "creates a class whose metaclass is carried by value"
#define C_SUBCLASS "creates a class whose base carried by value defines " \
                   "__init_subclass__"
#define C_ENUM "creates an enum whose base carried by value has methods " \
               "(they run for each member)"
#define C_PASS "passes code carried by value to a callable that may call it"
#define C_COMPILE "compiles source text shipped for another Python version " \
                  "(portable=True)"
#define C_HASH "hashes an object of a class carried by value that defines " \
               "__hash__ or __eq__ (a dict key or set item)"
#define C_CODE "calls what holds a code object carried by value (it may " \
               "make a function of it and run it)"
#define C_FILL "fills what the pickle did not make by value (an imported " \
               "function, class or module: patched for the whole process)"
#define C_HOOK "gives code carried by value to an object whose hooks the " \
               "load calls (BUILD's __setstate__, APPENDS' extend, a " \
               "class base's __mro_entries__, a namespace value's " \
               "__set_name__)"

/* A code object the pickle builds: a call of types.CodeType or of a code
 * reconstructor, whatever its arguments. Outside the argument list of a
 * function the pickle is seen to make (_function_new, _make_function,
 * types.FunctionType: pkscan_function), a code object may become a
 * function the analysis does not see, through functools.partial or
 * map: partial(_function_new, code)({}, 0)() runs it. _function_make
 * takes its code as plain data, the tuple (python_version, magic, data):
 * both count as code, the reconstructor (partial(_function_make, t)) and
 * any tuple of a str, an int and bytes (getattr(K, "f")(t, ...), K a
 * class by value holding _function_make), whoever gets it. */
static int makes_code(const analysis *an, const node *nd)
{
    const scanner *sc = an->sc;
    if (res_recon(res_get(an, (uint32_t)(nd - sc->nodes)), "_function_make"))
        return 1;
    if (nd->kind == K_TUPLE && nd->n == 3) {
        /* what _code_unmarshal runs: a magic number (its bytecode
         * version, then "\r\n") and marshal data of a code object (type
         * byte 'c', maybe with FLAG_REF); plain records of a str, an int
         * and bytes stay plain data */
        uint32_t e = nd->eh, it[3];
        for (int j = 0; j < 3; j++, e = sc->edges[e].next)
            it[j] = sc->edges[e].child;
        const node *mg = &sc->nodes[it[1]];
        const char *b;
        size_t bl = 0;
        if (kind_of(sc, it[0]) != K_STR || mg->kind != K_INT ||
            (mg->flags & NF_BIGINT) || (mg->u.ival >> 16) != 0x0a0d ||
            kind_of(sc, it[2]) != K_BYTES)
            return 0;
        node_bytes(sc, it[2], &b, &bl);
        return bl > 0 && (b[0] & CPK_MC_TYPE_MASK) == CPK_MC_CODE;
    }
    if (!call_kind(nd->kind))
        return 0;
    const resolved *c = res_get(an, nd->a);
    return res_is(c, "types", "CodeType") || res_recon(c, "_code_unmarshal") ||
           res_recon(c, "_code_portable") || res_recon(c, "_code_new");
}

/* The object a fill reconstructor writes its state into (its first
 * argument), NONE_ID for any other node. */
static uint32_t fill_target(const analysis *an, const node *nd)
{
    if (nd->kind != K_REDUCE || nd->a == NONE_ID || nd->b == NONE_ID ||
        kind_of(an->sc, nd->b) != K_TUPLE)
        return NONE_ID;
    if (!is_fill_recon(res_get(an, nd->a)))
        return NONE_ID;
    return item(an->sc, nd->b, 0);
}

/* A code node's name (co_qualname, else co_name), unknown if unread. */
static pkscan_str code_name(analysis *an, uint32_t o)
{
    pkscan_str none = {NULL, 0};
    const code_info *ci = code_get(an, o);
    if (ci == NULL)
        return none;
    return ci->qualname ? rstr(an, ci->qualname, ci->qualnamel)
                        : rstr(an, ci->name, ci->namel);
}

static pkscan_str origin_name(analysis *an, uint32_t o)
{
    pkscan_str none = {NULL, 0};
    if (aux_get(an, o, AUX_FN))
        return an->fns[aux_get(an, o, AUX_FN) - 1].qualname;
    if (aux_get(an, o, AUX_CLS))
        return an->clss[aux_get(an, o, AUX_CLS) - 1].qualname;
    if (makes_code(an, &an->sc->nodes[o]))
        return code_name(an, o);
    return none;
}

static void add_call(analysis *an, uint32_t id, const char *why, uint32_t o)
{
    if (an->ncalls >= PKSCAN_MAX_ITEMS) {
        an->rep->pub.truncated = 1;
        return;
    }
    if (sgrow(an->sc->acct, (void **)&an->calls, &an->capcalls,
              an->ncalls + 1, sizeof(pkscan_load_call))) {
        an->oom = 1;
        return;
    }
    pkscan_load_call *c = &an->calls[an->ncalls++];
    c->offset = an->sc->nodes[id].off;
    c->reason = why;
    c->name = origin_name(an, o);
}

static int call_cmp(const void *x, const void *y)
{
    const pkscan_load_call *a = x, *b = y;
    if (a->offset != b->offset)
        return a->offset < b->offset ? -1 : 1;
    return strcmp(a->reason, b->reason);
}

/* A callable known to store its arguments without calling them. */
static int stores_only(analysis *an, uint32_t callable, uint32_t args)
{
    const resolved *r = res_get(an, callable);
    if (r == NULL || r->is_module)
        return 0;
    /* reconstructors: the calls they make are listed; but those that
     * hash what they are given (dict views' items) */
    if (str_eq(r->m, r->ml, "ccloudpickle") || is_cp_module(r->m, r->ml))
        return !str_eq(r->n, r->nl, "_make_dict_keys") &&
               !str_eq(r->n, r->nl, "_make_dict_items");
    static const name_rule keep[] = {
        {"builtins", "classmethod", 0}, {"builtins", "staticmethod", 0},
        {"builtins", "property", 0}, {"builtins", "getattr", 0},
        {"functools", "partial", 0}, {"types", "MethodType", 0},
        {"collections", "defaultdict", 0},
    };
    for (size_t i = 0; i < NELEM(keep); i++)
        if (res_is(r, keep[i].module, keep[i].name))
            return 1;
    /* typing.List[C]: a subscription of a typing alias */
    if (res_is(r, "operator", "getitem") || res_is(r, "_operator", "getitem")) {
        const resolved *t = res_get(an, item(an->sc, args, 0));
        return t && str_eq(t->m, t->ml, "typing");
    }
    return 0;
}

/* Per class, computed once (linear in its methods): */
#define CF_HAS 0x1     /* has methods, or a base / metaclass by value does */
#define CF_HASH 0x2    /* defines __hash__ or __eq__, or a base by value does */
#define CF_INITSUB 0x4 /* defines __init_subclass__, or a base by value does */
#define CF_MISSING 0x8 /* defines _missing_, or a base by value does */
#define CF_ALL 0xf     /* its namespace is not known statically */

static uint8_t own_flags(const pkscan_class *c)
{
    uint8_t f = c->n_methods ? CF_HAS : 0;
    for (size_t i = 0; i < c->n_methods; i++) {
        const char *s = c->methods[i].s;
        size_t l = c->methods[i].len;
        if (str_eq(s, l, "__hash__") || str_eq(s, l, "__eq__"))
            f |= CF_HASH;
        else if (str_eq(s, l, "__init_subclass__"))
            f |= CF_INITSUB;
        else if (str_eq(s, l, "_missing_"))
            f |= CF_MISSING;
    }
    return f;
}

/* Pass 3: which opcodes run code carried by value (pkscan_load_call).
 * `code` (reusing the `recog` array, done with): node -> 1 + the function
 * or class node whose code it holds, at any depth: a function by value,
 * a class by value with methods, what is made by calling or storing
 * those (instances, enum members, partials), and any container or object
 * holding one of those as an item, key, value or BUILD state (also items
 * added after the container was made, through the memo). Computed by a
 * worklist over the reverse edges: linear. Then any call whose callable
 * or arguments hold code is listed unless the callable only stores them. */
static void calls_pass(analysis *an)
{
    scanner *sc = an->sc;
    size_t nn = sc->nnodes;
    uint32_t *code = an->recog;
    memset(code, 0, nn * sizeof(uint32_t));
    uint8_t *cf = NULL;
    uint32_t *poff = NULL, *par = NULL, *work = NULL;
    size_t tot = sc->nedges + 3 * nn; /* + fill targets, one per call */
    if (an->nclss) {
        cf = scalloc(sc->acct, an->nclss, 1);
        if (cf == NULL)
            goto oom;
    }
    for (size_t k = 0; k < an->nclss; k++) {
        if (charge(an, an->clss[k].n_methods + 1))
            goto done;
        cf[k] = own_flags(&an->clss[k]);
    }
    /* A class whose namespace is not known: BUILD or APPEND(S) on it, or
     * a _class_setstate whose state is not a literal dict. */
    if (charge(an, nn))
        goto done;
    for (size_t i = 0; i < nn && an->nclss; i++) {
        const node *nd = &sc->nodes[i];
        size_t ck = aux_get(an, (uint32_t)i, AUX_CLS);
        if (ck && nd->n)
            cf[ck - 1] |= CF_ALL;
        if (nd->kind == K_REDUCE && nd->a != NONE_ID &&
            res_recon(res_get(an, nd->a), "_class_setstate")) {
            uint32_t cl = item(sc, nd->b, 0), st = item(sc, nd->b, 1);
            ck = cl != NONE_ID ? aux_get(an, cl, AUX_CLS) : 0;
            if (ck && !(tuple_n(sc, st, 2) &&
                        kind_of(sc, item(sc, st, 0)) == K_DICT))
                cf[ck - 1] |= CF_ALL;
        }
    }
    /* Functions and classes, forwards: a base is older than its class. */
    for (size_t i = 0; i < nn && !an->oom; i++) {
        const node *nd = &sc->nodes[i];
        uint32_t id = (uint32_t)i;
        if (aux_get(an, id, AUX_FN) || makes_code(an, nd)) {
            /* The compiler runs on text the pickle chose, at load time:
             * untrusted input to code written for trusted input (3.9's
             * crashes on deep expressions), so any policy refuses it. */
            const code_info *ci;
            if (nd->kind == K_REDUCE &&
                res_recon(res_get(an, nd->a), "_code_portable") &&
                (ci = code_get(an, id)) != NULL && ci->portable == 1 &&
                !own_bytecode(an, ci->magic))
                add_call(an, id, C_COMPILE, id);
            code[id] = id + 1;
            continue;
        }
        size_t k1 = aux_get(an, id, AUX_CLS);
        if (!k1)
            continue;
        size_t k = k1 - 1;
        const resolved *rc = res_get(an, nd->a);
        int en = res_recon(rc, "_make_skeleton_enum");
        uint32_t args = nd->b;
        uint32_t bases = item(sc, args, en ? 0 : 2);
        if (kind_of(sc, bases) == K_TUPLE &&
            charge(an, sc->nodes[bases].n) == 0)
            for (uint32_t e = sc->nodes[bases].eh, j = 0;
                 j < sc->nodes[bases].n; j++, e = sc->edges[e].next) {
                uint32_t b = sc->edges[e].child;
                size_t bk = aux_get(an, b, AUX_CLS);
                if (!bk || !(cf[bk - 1] & CF_HAS))
                    continue;
                cf[k] |= cf[bk - 1];
                if (en)
                    add_call(an, id, C_ENUM, b);
                else if (cf[bk - 1] & CF_INITSUB)
                    add_call(an, id, C_SUBCLASS, b);
            }
        uint32_t meta = en ? NONE_ID : item(sc, args, 0);
        if (meta != NONE_ID && aux_get(an, meta, AUX_CLS)) {
            cf[k] |= CF_HAS;
            add_call(an, id, C_META, meta);
        }
        if (cf[k] & CF_HAS)
            code[id] = id + 1;
    }
    if (an->oom)
        goto done;
    /* The parents of each node (CSR): what holds it as an edge (item,
     * key, value, BUILD state), and the calls it is the callable or the
     * arguments of. Functions and classes by value are not parents: what
     * they hold is judged above. */
    if (charge(an, tot))
        goto done;
    poff = scalloc(sc->acct, nn + 1, sizeof(uint32_t));
    par = scalloc(sc->acct, tot ? tot : 1, sizeof(uint32_t));
    work = scalloc(sc->acct, nn ? nn : 1, sizeof(uint32_t));
    if (poff == NULL || par == NULL || work == NULL)
        goto oom;
    for (int fill = 0; fill < 2; fill++) {
        if (fill) {
            for (size_t i = 0; i < nn; i++)
                poff[i + 1] += poff[i];
            memcpy(work, poff, nn * sizeof(uint32_t));
        }
        for (size_t i = 0; i < nn; i++) {
            const node *nd = &sc->nodes[i];
            uint32_t id = (uint32_t)i;
            if (aux_get(an, id, AUX_FN) || aux_get(an, id, AUX_CLS))
                continue;
            uint32_t kids[2] = {NONE_ID, NONE_ID};
            if (call_kind(nd->kind)) {
                kids[0] = nd->a;
                kids[1] = nd->b;
            }
            for (int q = 0; q < 2; q++)
                if (kids[q] != NONE_ID) {
                    if (fill)
                        par[work[kids[q]]++] = id;
                    else
                        poff[kids[q] + 1]++;
                }
            /* A fill reconstructor puts its state into its target:
             * _singledispatch_fill(W, ((int, f),)) makes W call f. */
            uint32_t tgt = fill_target(an, nd);
            if (tgt != NONE_ID) {
                if (fill)
                    par[work[nd->b]++] = tgt;
                else
                    poff[nd->b + 1]++;
            }
            uint32_t e = nd->eh;
            for (size_t j = 0; j < nd->n; j++, e = sc->edges[e].next) {
                uint32_t ch = sc->edges[e].child;
                if (fill)
                    par[work[ch]++] = id;
                else
                    poff[ch + 1]++;
            }
        }
    }
    size_t wn = 0, head = 0;
    for (size_t i = 0; i < nn; i++)
        if (code[i])
            work[wn++] = (uint32_t)i;
    while (head < wn) { /* each node goes in once: when it gets code */
        uint32_t v = work[head++];
        for (uint32_t q = poff[v]; q < poff[v + 1]; q++) {
            uint32_t p = par[q];
            if (code[p] == 0) {
                code[p] = code[v];
                work[wn++] = p;
            }
        }
    }
    /* A fill reconstructor writes into its target: only something the
     * pickle made by value (a function or class it rebuilds, a module of
     * _module_new or dynamic_subimport, a dispatcher of
     * _singledispatch_new). Anything else is imported: filling
     * decimal.DecimalTuple.__new__'s globals, collections.UserDict's
     * namespace or functools' singledispatch functions would patch the
     * process with what the pickle carries. */
    for (size_t i = 0; i < nn && !an->oom; i++) {
        uint32_t t = fill_target(an, &sc->nodes[i]);
        if (t == NONE_ID || aux_get(an, t, AUX_FN) || aux_get(an, t, AUX_CLS))
            continue;
        const node *tn = &sc->nodes[t];
        const resolved *tc =
            tn->kind == K_REDUCE ? res_get(an, tn->a) : NULL;
        const resolved *fc = res_get(an, sc->nodes[i].a);
        int sd = res_recon(fc, "_singledispatch_fill");
        if (sd ? res_recon(tc, "_singledispatch_new")
               : res_recon(tc, "_module_new") ||
                     res_recon(tc, "dynamic_subimport") ||
                     res_recon(tc, "_dynamic_module_reconstructor"))
            continue;
        add_call(an, (uint32_t)i, C_FILL, t);
    }
    /* A BUILD whose state holds code, then any other op on the same
     * object: the state may have set the instance attribute that op
     * calls (__setstate__, extend, append, add). */
    if (charge(an, sc->nbuilds) == 0)
        for (size_t b = 0; b < sc->nbuilds && !an->oom; b++) {
            uint32_t inst = sc->builds[3 * b], state = sc->builds[3 * b + 1];
            if (code[state] && sc->nodes[inst].n > sc->builds[3 * b + 2] + 1)
                add_call(an, inst, C_HOOK, code[state] - 1);
        }
    uint32_t top = sc->nstack ? sc->stack[sc->nstack - 1] : NONE_ID;
    for (size_t i = 0; i < nn && !an->oom; i++) {
        const node *nd = &sc->nodes[i];
        uint32_t id = (uint32_t)i;
        /* An opaque object given state (BUILD, APPEND(S), SETITEM(S): its
         * edges, in order) holding code, then more: BUILD may have set
         * an instance attribute the next one calls (__setstate__,
         * extend, append, add). Not an object of a class by value:
         * C_INST lists those. */
        /* State given to a function or class by value (BUILD's
         * __setstate__ found in its own namespace), or to an object whose
         * class is by value with methods (an enum member reached by
         * getattr): its own hooks run. What only holds code, a partial
         * of a function, has its type's hooks. */
        if (nd->kind >= K_GLOBAL && nd->n >= 1 && !makes_code(an, nd)) {
            uint32_t o = NONE_ID;
            /* an instance the load creates by calling its class is
             * listed as that (C_INST) already */
            const resolved *cr = res_get(an, nd->a);
            uint32_t a0 = item(sc, nd->b, 0);
            int created =
                (nd->a != NONE_ID && aux_get(an, nd->a, AUX_CLS)) ||
                (a0 != NONE_ID && aux_get(an, a0, AUX_CLS) && cr &&
                 !cr->is_module &&
                 (str_eq(cr->m, cr->ml, "copyreg") ||
                  str_eq(cr->m, cr->ml, "copy_reg")));
            if (aux_get(an, id, AUX_FN) || aux_get(an, id, AUX_CLS))
                o = id;
            else if (created)
                o = NONE_ID;
            else if (nd->a != NONE_ID && code[nd->a] &&
                     aux_get(an, code[nd->a] - 1, AUX_CLS))
                o = code[nd->a] - 1;
            else if (nd->b != NONE_ID && code[nd->b] &&
                     aux_get(an, code[nd->b] - 1, AUX_CLS))
                o = code[nd->b] - 1;
            if (o != NONE_ID)
                add_call(an, id, C_HOOK, o);
        }
        /* A class made by the pickle: what it runs for its bases and its
         * namespace beyond what the forward pass listed. A base that is
         * no class carried by value but holds code (its type's
         * __mro_entries__, an instance's); a namespace value holding
         * code that is no function or class (__set_name__). */
        if (aux_get(an, id, AUX_CLS) && call_kind(nd->kind)) {
            /* an enum's members: values, whose holding code would run
             * as each member is made (__init__ among them) */
            int en = res_recon(res_get(an, nd->a), "_make_skeleton_enum");
            uint32_t parts[2] = {item(sc, nd->b, en ? 0 : 2),
                                 item(sc, nd->b, 3)};
            for (int q = 0; q < 2; q++) {
                uint32_t t = parts[q];
                int tk = kind_of(sc, t);
                if ((tk != K_TUPLE && tk != K_DICT) ||
                    charge(an, sc->nodes[t].n))
                    continue;
                uint32_t e = sc->nodes[t].eh, hit = NONE_ID;
                for (size_t j = 0; j < sc->nodes[t].n && hit == NONE_ID;
                     j++, e = sc->edges[e].next) {
                    uint32_t ch = sc->edges[e].child;
                    if (code[ch] && (en && q == 1 ? 1
                                     : !aux_get(an, ch, AUX_CLS) &&
                                           (q == 0 ||
                                            !aux_get(an, ch, AUX_FN))))
                        hit = ch;
                }
                if (hit != NONE_ID) {
                    add_call(an, id, C_HOOK, code[hit] - 1);
                    break;
                }
            }
        }
        /* what makes a function or a code object stores its arguments
         * (a code object's co_consts may hold code objects) */
        if (!call_kind(nd->kind) || aux_get(an, id, AUX_FN) ||
            aux_get(an, id, AUX_CLS) || makes_code(an, nd))
            continue;
        uint32_t c = nd->a, args = nd->b;
        if (c == NONE_ID)
            continue;
        int cargs = args != NONE_ID && code[args];
        if (code[c]) {
            uint32_t o = code[c] - 1;
            if (!aux_get(an, o, AUX_FN) && !aux_get(an, o, AUX_CLS)) {
                /* partial(_function_new, code)(...), code(): whatever
                 * it makes or does, not seen */
                add_call(an, id, C_CODE, o);
                continue;
            }
            int inst = !aux_get(an, o, AUX_FN) && o == c;
            if (inst) {
                size_t k = aux_get(an, o, AUX_CLS) - 1;
                if (an->clss[k].is_enum && nd->kind == K_REDUCE &&
                    !(cf[k] & CF_MISSING) && !cargs)
                    continue; /* Color(1): a member looked up by value
                                 (3.12+ pickles members so); only
                                 _missing_ of the enum runs, for a value
                                 not found; a value holding code is
                                 hashed and compared */
            }
            add_call(an, id,
                     aux_get(an, o, AUX_FN) ? C_FN : inst ? C_INST : C_METHOD,
                     o);
            if (id == top && !inst && an->ncalls &&
                an->calls[an->ncalls - 1].offset == nd->off)
                an->result_call = an->ncalls;
            continue;
        }
        if (!cargs)
            continue;
        const resolved *r = res_get(an, c);
        uint32_t a0 = item(sc, args, 0);
        if (nd->kind == K_REDUCE && r && !r->is_module && a0 != NONE_ID &&
            code[a0] &&
            (str_eq(r->m, r->ml, "copyreg") || str_eq(r->m, r->ml, "copy_reg")) &&
            (str_eq(r->n, r->nl, "_reconstructor") ||
             str_eq(r->n, r->nl, "__newobj__") ||
             str_eq(r->n, r->nl, "__newobj_ex__"))) {
            uint32_t o = code[a0] - 1;
            add_call(an, id,
                     aux_get(an, o, AUX_FN)    ? C_FN
                     : aux_get(an, o, AUX_CLS) ? C_INST
                                               : C_PASS,
                     o);
            continue;
        }
        /* getattr(C, "name") of a class or function by value only looks
         * the name up; of an instance or enum member it may run its
         * class's __getattr__ / __getattribute__ */
        int getattr_inst = res_is(r, "builtins", "getattr") &&
                           a0 != NONE_ID && code[a0] && code[a0] - 1 != a0;
        if (!getattr_inst && kind_of(sc, args) == K_TUPLE &&
            stores_only(an, c, args))
            continue;
        add_call(an, id, C_PASS, code[args] - 1);
    }
    /* Dict keys and set items are hashed as they go in: an object whose
     * class by value defines __hash__ or __eq__ (an enum member of an
     * enum by value, getattr(Color, "RED"): its class's state is set
     * before the member is used) runs them; so does a tuple or frozenset
     * holding code (its hash hashes its items). O(1) per key. */
    for (size_t i = 0; i < nn && !an->oom; i++) {
        const node *nd = &sc->nodes[i];
        int k = nd->kind;
        /* an opaque object (OrderedDict(), set()) filled by SETITEMS,
         * ADDITEMS: its items are edges, like its BUILD state */
        int op = k >= K_GLOBAL && nd->n && !aux_get(an, (uint32_t)i, AUX_FN) &&
                 !aux_get(an, (uint32_t)i, AUX_CLS);
        if (k != K_DICT && k != K_SET && k != K_FROZENSET && !op)
            continue;
        if (charge(an, nd->n))
            break;
        size_t j = 0;
        for (uint32_t e = nd->eh; j < nd->n; j++, e = sc->edges[e].next) {
            if (k == K_DICT && j % 2)
                continue; /* a value */
            uint32_t v = sc->edges[e].child;
            if (!code[v])
                continue;
            uint32_t o = code[v] - 1;
            size_t ck = aux_get(an, o, AUX_CLS);
            int vk = sc->nodes[v].kind;
            /* a code object's hash runs nothing */
            if ((ck && (cf[ck - 1] & CF_HASH) && vk != K_DICT &&
                 vk != K_LIST) ||
                (!op && (vk == K_TUPLE || vk == K_FROZENSET) &&
                 !makes_code(an, &sc->nodes[o]))) {
                add_call(an, (uint32_t)i, C_HASH, o);
                break;
            }
        }
    }
    goto done;
oom:
    an->oom = 1;
done:
    if (cf) {
        free(cf);
        acct_give(sc->acct, an->nclss);
    }
    if (poff) {
        free(poff);
        acct_give(sc->acct, (nn + 1) * sizeof(uint32_t));
    }
    if (par) {
        free(par);
        acct_give(sc->acct, (tot ? tot : 1) * sizeof(uint32_t));
    }
    if (work) {
        free(work);
        acct_give(sc->acct, (nn ? nn : 1) * sizeof(uint32_t));
    }
    /* input order (the hashing loop came last) */
    if (an->ncalls > 1) {
        pkscan_load_call res = {0, NULL, {NULL, 0}};
        if (an->result_call)
            res = an->calls[an->result_call - 1];
        qsort(an->calls, an->ncalls, sizeof *an->calls, call_cmp);
        for (size_t i = 0; i < an->ncalls && res.reason; i++)
            if (an->calls[i].offset == res.offset &&
                an->calls[i].reason == res.reason)
                an->result_call = i + 1;
    }
}

/* --- imports, deduplicated ----------------------------------------------- */

static int cmp_span(const char *a, size_t al, const char *b, size_t bl)
{
    size_t m = al < bl ? al : bl;
    int c = m ? memcmp(a, b, m) : 0;
    return c ? c : (al > bl) - (al < bl);
}

static int raw_key_cmp(const void *x, const void *y)
{
    const raw_import *a = x, *b = y;
    if (a->via == PKSCAN_VIA_EXT || b->via == PKSCAN_VIA_EXT ||
        a->via == PKSCAN_VIA_DYNAMIC || b->via == PKSCAN_VIA_DYNAMIC) {
        int ka = a->via == PKSCAN_VIA_EXT ? 1 : a->via == PKSCAN_VIA_DYNAMIC ? 2 : 0;
        int kb = b->via == PKSCAN_VIA_EXT ? 1 : b->via == PKSCAN_VIA_DYNAMIC ? 2 : 0;
        if (ka != kb)
            return ka - kb;
        if (ka == 1 && a->ext != b->ext)
            return a->ext < b->ext ? -1 : 1;
        if (ka == 2)
            return (a->off > b->off) - (a->off < b->off); /* each listed */
    } else {
        int c = cmp_span(a->m, a->ml, b->m, b->ml);
        if (c)
            return c;
        c = cmp_span(a->n, a->nl, b->n, b->nl);
        if (c)
            return c;
        /* a reconstructor's own lookup is listed apart from the pickle's
         * import of the same name (each with its own via and verdict) */
        int ba = a->via == PKSCAN_VIA_BUILTIN_TYPE;
        int bb = b->via == PKSCAN_VIA_BUILTIN_TYPE;
        if (ba != bb)
            return ba - bb;
    }
    return (a->off > b->off) - (a->off < b->off);
}

static int same_import(const raw_import *a, const raw_import *b)
{
    if (a->via == PKSCAN_VIA_DYNAMIC || b->via == PKSCAN_VIA_DYNAMIC)
        return 0;
    if ((a->via == PKSCAN_VIA_EXT) != (b->via == PKSCAN_VIA_EXT))
        return 0;
    if (a->via == PKSCAN_VIA_EXT)
        return a->ext == b->ext;
    return cmp_span(a->m, a->ml, b->m, b->ml) == 0 &&
           cmp_span(a->n, a->nl, b->n, b->nl) == 0 &&
           (a->via == PKSCAN_VIA_BUILTIN_TYPE) ==
               (b->via == PKSCAN_VIA_BUILTIN_TYPE);
}

/* The spelling an occurrence writes: its written names, each falling
 * back on the mapped one. */
static void spelling_of(const raw_import *ri, const char **m, size_t *ml,
                        const char **n, size_t *nl)
{
    *m = ri->wm ? ri->wm : ri->m;
    *ml = ri->wm ? ri->wml : ri->ml;
    *n = ri->wn ? ri->wn : ri->n;
    *nl = ri->wn ? ri->wnl : ri->nl;
}

/* pkscan_import.alt_written: the distinct spellings of raw[i..j) other
 * than the mapped name and the first occurrence's (a handful at most:
 * _compat_pickle maps few spellings to one name; capped at 8). */
static void alt_spellings(analysis *an, size_t i, size_t j, pkscan_import *im)
{
    enum { MAXALT = 8 };
    size_t idx[MAXALT], n = 0;
    const char *fm, *fn;
    size_t fml, fnl;
    spelling_of(&an->raw[i], &fm, &fml, &fn, &fnl);
    for (size_t k = i + 1; k < j && n < MAXALT; k++) {
        const raw_import *ri = &an->raw[k];
        if (ri->via != PKSCAN_VIA_GLOBAL && ri->via != PKSCAN_VIA_INST &&
            ri->via != PKSCAN_VIA_STACK_GLOBAL)
            continue;
        const char *m, *nm;
        size_t ml, nml;
        spelling_of(ri, &m, &ml, &nm, &nml);
        if ((cmp_span(m, ml, ri->m, ri->ml) == 0 &&
             cmp_span(nm, nml, ri->n, ri->nl) == 0) ||
            (cmp_span(m, ml, fm, fml) == 0 && cmp_span(nm, nml, fn, fnl) == 0))
            continue;
        int seen = 0;
        for (size_t q = 0; q < n && !seen; q++) {
            const char *qm, *qn;
            size_t qml, qnl;
            spelling_of(&an->raw[idx[q]], &qm, &qml, &qn, &qnl);
            seen = cmp_span(m, ml, qm, qml) == 0 &&
                   cmp_span(nm, nml, qn, qnl) == 0;
        }
        if (!seen)
            idx[n++] = k;
    }
    if (n == 0)
        return;
    im->alt_written = arena_alloc(&an->rep->mem, 2 * n * sizeof(pkscan_str),
                                  sizeof(void *));
    if (im->alt_written == NULL) {
        an->oom = 1;
        return;
    }
    for (size_t q = 0; q < n; q++) {
        const char *m, *nm;
        size_t ml, nml;
        spelling_of(&an->raw[idx[q]], &m, &ml, &nm, &nml);
        im->alt_written[2 * q] = rstr(an, m, ml);
        im->alt_written[2 * q + 1] = rstr(an, nm, nml);
        if (im->alt_written[2 * q].s == NULL ||
            im->alt_written[2 * q + 1].s == NULL)
            break; /* out of the import-name budget: truncated */
        im->n_alt_written = q + 1;
    }
}

static int imp_off_cmp(const void *x, const void *y)
{
    const pkscan_import *a = x, *b = y;
    return (a->offset > b->offset) - (a->offset < b->offset);
}

/* Verdict on one occurrence: its danger reason (NULL: none) and category.
 * `unrec`: getattr/__import__ used other than for constant lookups. */
static const char *raw_verdict(const raw_import *ri, int unrec,
                               pkscan_category *cat)
{
    *cat = PKSCAN_CAT_OTHER;
    if (ri->via == PKSCAN_VIA_EXT)
        return "extension registry lookup: unknown name";
    if (ri->via == PKSCAN_VIA_DYNAMIC)
        return "name computed at load time";
    *cat = categorize(ri->m, ri->ml, ri->n, ri->nl);
    /* "os\0": no rule names it, and the import system reads it as a C
     * string, up to the NUL (CPython's frozen os). */
    if ((ri->m != NULL && memchr(ri->m, '\0', ri->ml) != NULL) ||
        (ri->n != NULL && memchr(ri->n, '\0', ri->nl) != NULL)) {
        *cat = PKSCAN_CAT_OTHER;
        return "a name holding a NUL byte (imports what the name before "
               "it names)";
    }
    if (ri->modified) {
        /* BUILD (or APPENDS, SETITEMS) on a module, class, function or
         * shared logger: math.pi = 3 for the whole process */
        if (*cat == PKSCAN_CAT_PLAIN)
            *cat = PKSCAN_CAT_OTHER;
        return "modifies an imported object";
    }
    /* A reconstructor's own lookup of a type (code through
     * _builtin_type("CodeType")) is listed and classified, but what the
     * pickle itself imports is the reconstructor. subimport("os") imports
     * the module it names, and is classified as any import of it. */
    if (ri->via == PKSCAN_VIA_BUILTIN_TYPE) {
        *cat = ri->cat;
        return NULL;
    }
    if (unrec && imports_by_argument(ri)) {
        int codec = str_eq(ri->m, ri->ml, "_codecs") ||
                    str_eq(ri->m, ri->ml, "codecs");
        *cat = PKSCAN_CAT_OTHER;
        resolved fr = raw_name(ri);
        if (is_fill_recon(&fr))
            return "fills an object the scan cannot name (a fill "
                   "reconstructor used otherwise than called on a "
                   "literal argument tuple)";
        return codec ? "imports the codec module its argument names"
                     : "imports a name computed at load time";
    }
    int gi = str_eq(ri->m, ri->ml, "builtins") &&
             (str_eq(ri->n, ri->nl, "getattr") ||
              str_eq(ri->n, ri->nl, "__import__"));
    if (gi && !unrec && ri->via != PKSCAN_VIA_GETATTR) {
        /* only constant lookups, each listed on its own */
        *cat = PKSCAN_CAT_PLAIN;
        return NULL;
    }
    const char *why = danger_reason(ri->m, ri->ml, ri->n, ri->nl,
                                    *cat != PKSCAN_CAT_OTHER ||
                                        plain_module(ri->m, ri->ml));
    if (why != NULL && *cat == PKSCAN_CAT_PLAIN)
        *cat = PKSCAN_CAT_OTHER; /* operator.attrgetter, object.__subclasses__ */
    return why;
}

static void imports_pass(analysis *an)
{
    pkscan_report *r = &an->rep->pub;
    if (an->nraw == 0)
        return;
    qsort(an->raw, an->nraw, sizeof(raw_import), raw_key_cmp);
    size_t cap = an->nraw < PKSCAN_MAX_ITEMS ? an->nraw : PKSCAN_MAX_ITEMS;
    pkscan_import *out = arena_alloc(&an->rep->mem, cap * sizeof *out,
                                     sizeof(void *));
    if (out == NULL) {
        an->oom = 1;
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < an->nraw;) {
        size_t j = i + 1;
        int unrec = an->raw[i].unrecognised;
        while (j < an->nraw && same_import(&an->raw[i], &an->raw[j]))
            unrec |= an->raw[j++].unrecognised;
        /* one name, several ways in: dangerous if any way is, "other"
         * if any way is */
        const char *reason = NULL;
        pkscan_category cat = PKSCAN_CAT_OTHER;
        for (size_t k = i; k < j; k++) {
            pkscan_category c;
            const char *why = raw_verdict(&an->raw[k], unrec, &c);
            if (reason == NULL)
                reason = why;
            if (k == i || c == PKSCAN_CAT_OTHER)
                cat = c;
        }
        /* the counts stay exact when the list is cut short */
        r->n_dangerous += reason != NULL;
        r->n_other += cat == PKSCAN_CAT_OTHER;
        if (n == cap) {
            r->truncated = 1;
            i = j;
            continue;
        }
        const raw_import *ri = &an->raw[i]; /* the first occurrence */
        pkscan_import *im = &out[n++];
        memset(im, 0, sizeof *im);
        im->offset = ri->off;
        im->count = j - i;
        im->via = ri->via;
        im->ext_code = ri->ext;
        im->category = cat;
        im->reason = reason;
        im->dangerous = reason != NULL;
        if (ri->via != PKSCAN_VIA_EXT && ri->via != PKSCAN_VIA_DYNAMIC) {
            im->module = rstr(an, ri->m, ri->ml);
            im->name = rstr(an, ri->n, ri->nl);
            im->written_module = rstr(an, ri->wm, ri->wml);
            im->written_name = rstr(an, ri->wn, ri->wnl);
            alt_spellings(an, i, j, im);
        }
        i = j;
    }
    /* input order of first occurrence */
    qsort(out, n, sizeof *out, imp_off_cmp);
    r->imports = out;
    r->n_imports = n;
}

/* pkscan_report.max_depth: the longest chain of nodes each holding the
 * next (container items, REDUCE/NEWOBJ/OBJ callable and arguments, the
 * state BUILD gives an opaque object), found once the walk is done, so
 * that a chain linked top-down through the memo (d1 appended to d0 after
 * both exist) counts in full. Iterative depth-first search, linear in
 * nodes and edges; an edge back to a node being visited (a cycle) adds
 * nothing. 16 bytes per node while it runs. */
#define GRAY UINT32_MAX
static int depth_pass(scanner *sc)
{
    pkscan_report *r = &sc->rep->pub;
    size_t nn = sc->nnodes;
    if (nn == 0)
        return 0;
    typedef struct {
        uint32_t id, cur, maxc; /* cur: 0 a, 1 b, 2 items, 3 done, e + 4 */
    } frame;
    uint32_t *depth = scalloc(sc->acct, nn, sizeof(uint32_t));
    frame *st = depth ? scalloc(sc->acct, nn, sizeof(frame)) : NULL;
    if (st == NULL) {
        if (depth) {
            free(depth);
            acct_give(sc->acct, nn * sizeof(uint32_t));
        }
        nomem(sc, 0);
        return -1;
    }
    uint32_t best = 0;
    size_t best_off = 0;
    for (size_t root = 0; root < nn; root++) {
        if (depth[root])
            continue;
        size_t sp = 0;
        st[sp++] = (frame){(uint32_t)root, 0,
                           nsum(&sc->nodes[root]) ? 1 : 0};
        depth[root] = GRAY;
        while (sp) {
            frame *f = &st[sp - 1];
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
                    st[sp++] = (frame){child, 0,
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
            if (sp && d > st[sp - 1].maxc)
                st[sp - 1].maxc = d;
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
    free(st);
    acct_give(sc->acct, nn * (sizeof(uint32_t) + sizeof(frame)));
    return 0;
}

/* --- the bytes of each part carried by value (PKSCAN_SPANS) ------------- */

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
    return res_recon(c, "dynamic_subimport") || res_recon(c, "_module_new");
}

/* A reconstructor that sets the state of the part it is given first. */
static int spans_setter(const resolved *c)
{
    return res_recon(c, "_function_fill") ||
           res_recon(c, "_function_setstate") ||
           res_recon(c, "_class_setstate") || res_recon(c, "_module_fill");
}

/* The parts (the functions and classes found, the modules made on the
 * fly) and their spans from the walk's records (pkscan.h, pkscan_part).
 * Spans nest as the expressions do: sorted by start, the longer first
 * on a tie, each lies in the innermost open one that has not ended
 * before it starts; its bytes count for its part and come out of the
 * `own` bytes of the part it lies in. */
static void spans_pass(analysis *an)
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
    pkscan_part *parts = arena_alloc(&an->rep->mem, np * sizeof *parts,
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
                p->name = rnode(an, nm);
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

static void analyse(scanner *sc)
{
    analysis an;
    memset(&an, 0, sizeof an);
    an.sc = sc;
    an.rep = sc->rep;
    size_t nn = sc->nnodes ? sc->nnodes : 1;
    memacct *m = sc->acct;
    an.res_of = scalloc(m, nn, sizeof(uint32_t));
    an.recog = scalloc(m, nn, sizeof(uint32_t));
    an.aux_of = scalloc(m, nn, sizeof(uint32_t));
    if (!an.res_of || !an.recog || !an.aux_of || resolve_pass(&an))
        an.oom = 1;
    /* imports first: when the budget runs out, what is cut is the
     * description of functions and classes, not the import list */
    if (!an.oom) {
        an.for_imports = 1;
        imports_pass(&an);
        an.for_imports = 0;
    }
    if (!an.oom)
        objects_pass(&an);
    if (!an.oom)
        calls_pass(&an);
    pkscan_report *r = &sc->rep->pub;
    if (!an.oom && sc->spans && r->status == PKSCAN_OK)
        spans_pass(&an);
    if (!an.oom && an.ncalls) {
        r->load_calls = arena_alloc(&sc->rep->mem,
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
        r->functions = arena_alloc(&sc->rep->mem, an.nfns * sizeof *an.fns,
                                   sizeof(void *));
        if (r->functions) {
            memcpy(r->functions, an.fns, an.nfns * sizeof *an.fns);
            r->n_functions = an.nfns;
        } else {
            an.oom = 1;
        }
    }
    if (!an.oom && an.nclss) {
        r->classes = arena_alloc(&sc->rep->mem, an.nclss * sizeof *an.clss,
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
        nomem(sc, 0);
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
            acct_give(m, nn * sizeof(uint32_t));
        }
    acct_give(m, an.capres * sizeof(resolved) + an.capraw * sizeof(raw_import) +
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

pkscan_report *pkscan_scan(const void *data, size_t len, unsigned flags)
{
    return pkscan_scan_limited(data, len, flags, 0);
}

pkscan_report *pkscan_scan_limited(const void *data, size_t len,
                                   unsigned flags, size_t max_bytes)
{
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

    if (len >= UINT32_MAX - 1) {
        fail(&sc, PKSCAN_ERR_LENGTH, 0, "input of %zu bytes is too large to "
             "scan", len);
    } else if (sc.n == 0) {
        fail(&sc, PKSCAN_ERR_TRUNCATED, 0, "Ran out of input");
    } else {
        size_t pos = 0, off = 0;
        int stop = 0, err = 0;
        /* the same loop twice: without PKSCAN_SPANS (the scan before
         * every load) nothing runs per opcode but the walk itself */
        if (!sc.spans) {
            while (!stop && pos < sc.n) {
                off = pos;
                if (step(&sc, &pos, off, &stop)) {
                    err = 1;
                    break;
                }
            }
        } else {
            while (!stop && pos < sc.n) {
                size_t depth0 = sc.nstack;
                off = pos;
                if (step(&sc, &pos, off, &stop) ||
                    spans_step(&sc, off, pos, depth0)) {
                    err = 1;
                    break;
                }
            }
        }
        if (!err && !stop) {
            fail(&sc, PKSCAN_ERR_TRUNCATED, sc.n,
                 "pickle data was truncated (no STOP opcode)");
        } else if (!err) {
            r->stop_offset = off;
            if (pos < sc.n)
                fail(&sc, PKSCAN_ERR_TRAILING, pos,
                     "%zu bytes of data after the STOP opcode", sc.n - pos);
        }
    }
    if (r->status != PKSCAN_OK && r->status != PKSCAN_ERR_TRAILING)
        r->result_kind = NULL;
    /* the analysis reads node ids only (the result at the top) */
    for (size_t i = 0; i < sc.nstack; i++)
        if (is_lazy(&sc, sc.stack[i]))
            sc.stack[i] = NONE_ID;
    sc.lazy = 0;
    /* (the room a node's depth would take, as depth_pass needs it) */
    int hit = rep->acct.hit;
    int depth_ok = depth_pass(&sc) == 0 && acct_take(&rep->acct, 16) == 0;
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
    free(sc.marks);
    free(sc.builds);
    free(sc.memo_dense);
    free(sc.decbuf);
    free(sc.sstart);
    free(sc.mkoff);
    free(sc.recs);
    acct_give(&rep->acct, sc.capnodes * sizeof(node) +
                              sc.capedges * sizeof(edge) +
                              (sc.capstack + sc.capmarks + sc.capbuilds +
                               sc.memo_dense_cap + sc.capsstart +
                               sc.capmkoff) * sizeof(uint32_t) +
                              sc.caprecs * sizeof(span_rec) + sc.capdec);
    /* strings the report shows were copied; decoded ones die here */
    arena_free(&sc.dec);
    return r;
}

void pkscan_free(pkscan_report *r)
{
    if (r == NULL)
        return;
    report_impl *rep = (report_impl *)r;
    arena_free(&rep->mem);
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

int pkscan_strict_violation(const pkscan_report *r)
{
    return r->n_dangerous > 0 || r->n_other > 0 || r->n_load_calls > 0;
}
