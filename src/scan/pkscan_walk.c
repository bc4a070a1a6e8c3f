/* pkscan_walk.c - the walk of the static pickle model: Modules/_pickle.c
 * load() opcode by opcode (Pdata stack with its fence, the mark stack,
 * memo, FRAME, readline semantics), failing with CPython's message where
 * CPython fails before calling anything. Each value pushed is a node in
 * an arena; containers keep their items as an edge list, so
 * APPENDS/SETITEMS on a memoised list stay visible to the analysis
 * (pkscan_analyze.c and the passes above it). With PKSCAN_SPANS it also
 * keeps where each stack item's opcodes start, and its calls and BUILDs
 * (pkscan_spans.c measures the parts from them). */
#include "scan/pkscan_internal.h"
#include "common/pickle_ops.h"     /* CPK_OP_* */
#include "scan/utf8.h"            /* cpk_utf8_ok */

#include <stdio.h>
#include <stdlib.h>

static const char *const kind_names[K_NKINDS] = {
    "None", "bool", "int", "float", "str", "bytes", "bytearray", "tuple",
    "list", "dict", "set", "frozenset", "global", "global", "ext",
    "instance", "instance", "instance", "buffer",
};

/* --- nodes --------------------------------------------------------------- */

static uint32_t new_node(scanner *sc, int kind, size_t off)
{
    /* (with lazy entries, a node id must not look like one) */
    if (sc->nnodes >= (sc->lazy ? LAZY - 1 : UINT32_MAX - 1) ||
        sgrow(sc->acct, (void **)&sc->nodes, &sc->capnodes, sc->nnodes + 1,
              sizeof(node))) {
        /* (a lazy scalar's node is made by the opcode that reads it) */
        pkscan_nomem(sc, sc->op_off > off ? sc->op_off : off);
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
    case CPK_OP_BINUNICODE: case CPK_OP_SHORT_BINUNICODE:
    case CPK_OP_BINUNICODE8:
        return K_STR;
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
    case CPK_OP_SHORT_BINUNICODE: case CPK_OP_BINUNICODE:
    case CPK_OP_BINUNICODE8: /* UTF-8 in the input, checked by the walk */
        k = op == CPK_OP_SHORT_BINUNICODE ? 1 : op == CPK_OP_BINUNICODE ? 4
                                                                        : 8;
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

static uint32_t *memo_slot(scanner *sc, uint64_t idx, int create);

/* The memo slot that holds (or held) the value of lazy entry stack[i],
 * or NULL. */
static uint32_t *smemo_slot(scanner *sc, size_t i)
{
    if (i >= sc->capsmemo || sc->smemo[i] == 0)
        return NULL;
    return memo_slot(sc, (sc->smemo[i] & ~SMEMO_GET) - 1, 0);
}

/* stack[i] as a node id, making the node of a lazy scalar in place. A
 * value from the memo has one node: the first made for it goes into the
 * memo slot that holds it, so that every later GET, and every copy
 * still on the stack, gives that node. NONE_ID when that fails (the
 * scan has failed). */
static uint32_t at(scanner *sc, size_t i)
{
    uint32_t e = sc->stack[i];
    if (!is_lazy(sc, e))
        return e;
    uint32_t *slot = smemo_slot(sc, i);
    uint32_t id;
    if (slot != NULL && *slot != 0 && !is_lazy(sc, *slot) &&
        sc->nodes[*slot - 1].off == (e & ~LAZY) &&
        sc->nodes[*slot - 1].kind == kind_e(sc, e)) {
        id = *slot - 1; /* made already, from another copy */
    } else {
        id = scalar_node(sc, e & ~LAZY);
        if (id == NONE_ID)
            return NONE_ID;
        if (slot != NULL && *slot == e)
            *slot = id + 1;
    }
    sc->stack[i] = id;
    return id;
}

/* Room in smemo for the stack's entries up to `n`, the new part zeroed. */
static int smemo_room(scanner *sc, size_t n)
{
    size_t was = sc->capsmemo;
    if (sgrow(sc->acct, (void **)&sc->smemo, &sc->capsmemo, n,
              sizeof(uint32_t)))
        return -1;
    if (sc->capsmemo > was)
        memset(sc->smemo + was, 0, (sc->capsmemo - was) * sizeof(uint32_t));
    return 0;
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

/* Whether the lazy entry `e` is a str (kind_e, without the switch). */
static inline int lazy_str(const scanner *sc, uint32_t e)
{
    uint8_t op = sc->d[e & ~LAZY];
    return op == CPK_OP_SHORT_BINUNICODE || op == CPK_OP_BINUNICODE ||
           op == CPK_OP_BINUNICODE8;
}

/* Whether lazy entry stack[i] is a memo GET's copy of a value: kept
 * (one node, shared through the memo), not counted, so that the sizes
 * of what holds it count it at every place it is in. */
static inline int memo_copy(const scanner *sc, size_t i)
{
    return i < sc->capsmemo && (sc->smemo[i] & SMEMO_GET) != 0;
}

/* Whether items stack[i] (and, for a dict, its value stack[i + 1]) may
 * be summarised into the plain container `parent` rather than kept: a
 * lazy scalar; of a dict, a pair whose key is one and whose value is a
 * lazy scalar or a scalar node (a str). No analysis reads them: dict
 * lookups and listed keys are str keys, plain_value holds for scalars,
 * and no scalar is code or hashes by a class by value. */
static inline int summable(const scanner *sc, int k, size_t i)
{
    uint32_t e = sc->stack[i];
    /* a str is kept as an item or key: analyses read those (fromlist,
     * __slots__, dict lookups, keys); as a dict's value it is counted */
    if (!is_lazy(sc, e) || lazy_str(sc, e) || memo_copy(sc, i))
        return 0;
    if (k == K_LIST || k == K_SET || k == K_FROZENSET)
        return 1;
    if (k != K_DICT)
        return 0;
    uint32_t v = sc->stack[i + 1];
    if (is_lazy(sc, v))
        return !memo_copy(sc, i + 1);
    /* a node: only the first time it is used (a shared one counts for
     * every place it is in: what hashing or repr walks) */
    return sc->nodes[v].kind <= K_BYTEARRAY && sc->nodes[v].refs == 0;
}

/* The size of the length field of the opcodes that push a str or
 * bytes the walk may leave lazy (0: none). */
static const uint8_t len_field[256] = {
    [CPK_OP_SHORT_BINBYTES] = 1, [CPK_OP_SHORT_BINUNICODE] = 1,
    [CPK_OP_BINBYTES] = 4,       [CPK_OP_BINUNICODE] = 4,
    [CPK_OP_BINBYTES8] = 8,      [CPK_OP_BYTEARRAY8] = 8,
    [CPK_OP_BINUNICODE8] = 8,
};

/* The length of what a stack entry holds, if it is a str or bytes: of a
 * lazy entry, from its opcode's length field; of a node, its own. */
static inline uint64_t entry_len(const scanner *sc, uint32_t e)
{
    if (!is_lazy(sc, e)) {
        const node *nd = &sc->nodes[e];
        return nd->kind == K_STR || nd->kind == K_BYTES ||
                       nd->kind == K_BYTEARRAY
                   ? nd->u.s.len
                   : 0;
    }
    const uint8_t *p = sc->d + (e & ~LAZY);
    int k = len_field[p[0]];
    return k == 0 ? 0 : le(p + 1, k);
}

/* Count `items` summarised items holding `bytes` of strs and bytes into
 * the container `parent` (saturating: the input bounds both). */
static void add_sum(scanner *sc, uint32_t parent, uint64_t items,
                    uint64_t bytes, size_t off)
{
    node *p = &sc->nodes[parent];
    uint64_t c = p->u.sum.count + items, b = p->u.sum.bytes + bytes;
    p->u.sum.count = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
    p->u.sum.bytes = b > UINT32_MAX ? UINT32_MAX : (uint32_t)b;
    deepen1(sc, parent, off);
}

/* Add stack[start:end] to `parent` as items: summarised where summable,
 * else as edges (step 2 for a dict: pairs). Summarised items are counted
 * in runs (one deepen1 for a run: all at the same opcode's offset), with
 * the lengths of the strs and bytes among them: what hashing or repr of
 * the container walks. */
static int add_items(scanner *sc, uint32_t parent, size_t start, size_t end,
                     size_t off)
{
    int k = sc->nodes[parent].kind;
    size_t step = k == K_DICT ? 2 : 1;
    uint64_t run = 0, bytes = 0;
    for (size_t i = start; i < end; i += step) {
        if (step == 2 && i + 1 >= end)
            step = 1; /* an odd tail: only where CPython refuses it later */
        if (summable(sc, k, i)) {
            run += step;
            for (size_t j = i; j < i + step; j++)
                bytes += entry_len(sc, sc->stack[j]);
            if (step == 2 && !is_lazy(sc, sc->stack[i + 1])) {
                use(sc, sc->stack[i + 1]);
                deepen(sc, parent, sc->stack[i + 1], off);
            }
            continue;
        }
        if (run) {
            add_sum(sc, parent, run, bytes, off);
            run = bytes = 0;
        }
        for (size_t j = i; j < i + step; j++) {
            uint32_t c = at(sc, j);
            if (c == NONE_ID || add_edge(sc, parent, c, off))
                return -1;
        }
    }
    if (run)
        add_sum(sc, parent, run, bytes, off);
    return 0;
}

static int add_edge(scanner *sc, uint32_t parent, uint32_t child, size_t off)
{
    if (sc->nedges >= UINT32_MAX - 8 || /* depth_pass' cursor: id + 4 */
        sgrow(sc->acct, (void **)&sc->edges, &sc->capedges, sc->nedges + 1,
              sizeof(edge)))
        return pkscan_nomem(sc, off);
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
        return pkscan_nomem(sc, off);
    if (sc->nstack < sc->capsmemo)
        sc->smemo[sc->nstack] = 0; /* not from the memo (yet) */
    sc->stack[sc->nstack++] = id;
    return 0;
}

/* Pdata_stack_underflow: which message depends on a pending MARK. */
static int underflow(scanner *sc, size_t off)
{
    return pkscan_fail(sc, PKSCAN_ERR_UNDERFLOW, off,
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
        return pkscan_fail(sc, PKSCAN_ERR_MARK, off, "could not find MARK");
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
        return pkscan_fail(sc, PKSCAN_ERR_LENGTH, off,
                           "pickle exhausted before end of frame");
    return 0;
}

static int read_n(scanner *sc, size_t *pos, size_t k, size_t off,
                  const uint8_t **p)
{
    if (sc->n - *pos < k)
        return pkscan_fail(sc, PKSCAN_ERR_TRUNCATED, off,
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
        return pkscan_fail(sc, PKSCAN_ERR_LENGTH, off,
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
        return pkscan_fail(sc, PKSCAN_ERR_TRUNCATED, off,
                           "pickle data was truncated");
    size_t l = (size_t)(nl - start) + 1;
    if (frame_read(sc, *pos, l, off))
        return -1;
    *pos += l;
    if (l < minlen)
        return pkscan_fail(sc, PKSCAN_ERR_TRUNCATED, off,
                           "pickle data was truncated");
    *p = (const char *)start;
    *len = l - 1;
    return 0;
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
        return pkscan_fail(sc, PKSCAN_ERR_MEMO, off,
                           "memo index %llu out of range for a %zu-byte pickle",
                           (unsigned long long)idx, sc->n);
    uint32_t *slot = memo_slot(sc, idx, 1);
    if (slot == NULL)
        return pkscan_nomem(sc, off);
    /* An immutable lazy scalar stays lazy in the memo: a GET pushes it
     * lazy again, and the first node made for it, from the stack or a
     * GET, becomes the memo's (at). A bytearray gets its node now: a
     * write through a GET must reach the object wherever it went. So
     * does a value already in the memo at another index. */
    size_t top = sc->nstack - 1;
    uint32_t e = sc->stack[top];
    int keep_lazy = is_lazy(sc, e) && kind_e(sc, e) != K_BYTEARRAY &&
                    idx + 1 < SMEMO_GET;
    if (keep_lazy) {
        uint32_t *other = smemo_slot(sc, top);
        keep_lazy = other == NULL || *other != e;
    }
    if (keep_lazy) {
        if (smemo_room(sc, top + 1))
            return pkscan_nomem(sc, off);
        sc->smemo[top] = (uint32_t)idx + 1;
    } else {
        e = at(sc, top);
        if (e == NONE_ID)
            return -1;
        e++;
    }
    if (*slot == 0)
        sc->memo_len++;
    *slot = e;
    return 0;
}

static int memo_get(scanner *sc, uint64_t idx, int neg, size_t off)
{
    uint32_t *slot = neg ? NULL : memo_slot(sc, idx, 0);
    if (slot == NULL || *slot == 0)
        return pkscan_fail(sc, PKSCAN_ERR_MEMO, off,
                           "Memo value not found at index %s%llu",
                           neg ? "-" : "",
                           (unsigned long long)idx);
    if (!is_lazy(sc, *slot))
        return push(sc, *slot - 1, off);
    if (push(sc, *slot, off))
        return -1;
    if (smemo_room(sc, sc->nstack))
        return pkscan_nomem(sc, off);
    sc->smemo[sc->nstack - 1] = ((uint32_t)idx + 1) | SMEMO_GET;
    return 0;
}

/* --- strings ------------------------------------------------------------- */

/* Room for `n` bytes at the end of decbuf (the bytes a decoder writes;
 * dec_keep then keeps what it used). NULL: out of memory, over the cap,
 * or past 32-bit offsets. The pointer is good until the next dec_room. */
static char *dec_room(scanner *sc, size_t n, size_t off)
{
    if (n >= UINT32_MAX - sc->ndec) {
        pkscan_fail(sc, PKSCAN_ERR_LENGTH, off,
                    "decoded strings of more than 4 GiB");
        return NULL;
    }
    if (sgrow(sc->acct, (void **)&sc->decbuf, &sc->capdec, sc->ndec + n, 1)) {
        pkscan_nomem(sc, off);
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
            return pkscan_fail(sc, PKSCAN_ERR_VALUE, off,
                               "Trailing \\ in string");
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
            return pkscan_fail(sc, PKSCAN_ERR_VALUE, off,
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
        return pkscan_nomem(sc, off);
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
                return pkscan_fail(sc, PKSCAN_ERR_VALUE, off,
                                   "truncated \\%sXXXX%s escape",
                                   cnt == 4 ? "u" : "U", cnt == 4 ? "" : "XXXX");
            cp = cp << 4 | (uint32_t)digit_val(s[i]);
        }
        if (cp > 0x10ffff)
            return pkscan_fail(sc, PKSCAN_ERR_VALUE, off,
                               "\\Uxxxxxxxx out of range");
        k += put_utf8(o + k, cp);
    }
    *out = o;
    *outlen = k;
    return 0;
}

/* --- find_class ---------------------------------------------------------- */

#include "scan/pkscan_fix_imports.inc"

/* Python 3 modules among fix_imports' Python 2 names: importing one
 * unmapped is an ordinary import. */
static const char *const py3_too[] = {
    "_elementtree", "_multiprocessing", "_socket", "dbm", "itertools",
    "multiprocessing", "multiprocessing.forking", "multiprocessing.process",
    "socket", "test.test_support", "urllib",
};

int pkscan_py2_module(const char *m, size_t ml)
{
    for (size_t i = 0; i < NELEM(py3_too); i++)
        if (str_eq(m, ml, py3_too[i]))
            return 0;
    for (size_t i = 0; i < NELEM(fix_modules); i++)
        if (str_eq(m, ml, fix_modules[i].m))
            return 1;
    for (size_t i = 0; i < NELEM(fix_names); i++)
        if (str_eq(m, ml, fix_names[i].m))
            return 1;
    return 0;
}

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

/* A write into `target` (BUILD, APPEND(S), SETITEM(S), ADDITEMS) at
 * `off`, for the state pass: kept when the target is opaque or already
 * an operand of something (a call may hold it); a container the pickle
 * fills before anything uses it cannot have been given to a call. */
static int note_write(scanner *sc, uint32_t target, size_t off)
{
    if (!opaque(sc, target) && sc->nodes[target].refs == 0)
        return 0;
    if (sgrow(sc->acct, (void **)&sc->writes, &sc->capwrites,
              3 * (sc->nwrites + 1), sizeof(uint32_t)))
        return pkscan_nomem(sc, off);
    sc->writes[3 * sc->nwrites] = target;
    sc->writes[3 * sc->nwrites + 1] = (uint32_t)off;
    sc->writes[3 * sc->nwrites + 2] = sc->d[off];
    sc->nwrites++;
    return 0;
}

/* --- opcodes ------------------------------------------------------------- */

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
        return pkscan_fail(sc, PKSCAN_ERR_TYPE, off,
                           "'%s' object has no attribute 'append'",
                           kname(sc, list));
    list = at(sc, x - 1);
    if (list == NONE_ID || note_write(sc, list, off) ||
        add_items(sc, list, x, len, off))
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
        return pkscan_fail(sc, PKSCAN_ERR_TYPE, off,
                           "odd number of items for SETITEMS");
    uint32_t d = sc->stack[x - 1];
    int k = kind_e(sc, d);
    if (k == K_DICT) {
        for (size_t i = x; i < len; i += 2)
            if (unhashable(sc, sc->stack[i]))
                return pkscan_fail(sc, PKSCAN_ERR_TYPE, off,
                                   "unhashable type: '%s'",
                                   kname(sc, sc->stack[i]));
    } else if (!opaque(sc, d) && k != K_LIST && k != K_BYTEARRAY) {
        return pkscan_fail(sc, PKSCAN_ERR_TYPE, off,
                           "'%s' object has no attribute '__setitem__'",
                           kname(sc, d));
    }
    d = at(sc, x - 1);
    if (d == NONE_ID || note_write(sc, d, off) ||
        add_items(sc, d, x, len, off))
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
        return pkscan_fail(sc, PKSCAN_ERR_TYPE, off,
                           "%s class argument must be a type, not %s", nm,
                           kname(sc, cls));
    if (!opaque(sc, args) && sc->nodes[args].kind != K_TUPLE)
        return pkscan_fail(sc, PKSCAN_ERR_TYPE, off,
                           "%s args argument must be a tuple, not %s", nm,
                           kname(sc, args));
    if (ex && !opaque(sc, kw) && sc->nodes[kw].kind != K_DICT)
        return pkscan_fail(sc, PKSCAN_ERR_TYPE, off,
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
            return pkscan_nomem(sc, off);
        sc->builds[3 * sc->nbuilds] = inst;
        sc->builds[3 * sc->nbuilds + 1] = state;
        sc->builds[3 * sc->nbuilds + 2] = sc->nodes[inst].n;
        sc->nbuilds++;
        if (note_write(sc, inst, off))
            return -1;
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
            return pkscan_fail(sc, PKSCAN_ERR_TYPE, off,
                               "state is not a dictionary");
        return pkscan_fail(sc, PKSCAN_ERR_TYPE, off,
                           "'%s' object has no attribute '__dict__'",
                           kname(sc, inst));
    }
    if (slot == NONE_ID || opaque(sc, slot) || sc->nodes[slot].kind == K_NONE)
        return 0;
    if (sc->nodes[slot].kind != K_DICT)
        return pkscan_fail(sc, PKSCAN_ERR_TYPE, off,
                           "slot state is not a dictionary");
    if (nitems(&sc->nodes[slot]))
        return pkscan_fail(sc, PKSCAN_ERR_TYPE, off,
                           "'%s' object attribute is read-only",
                           kname(sc, inst));
    return 0;
}

static int do_global_names(scanner *sc, size_t *pos, size_t off, int ascii,
                           uint32_t *gid)
{
    const char *mp, *np;
    size_t ml, nl;
    if (read_line(sc, pos, off, 2, &mp, &ml))
        return -1;
    if (ascii ? !ascii_ok(mp, ml) : !cpk_utf8_ok((const uint8_t *)mp, ml, 0))
        return pkscan_fail(sc, PKSCAN_ERR_VALUE, off,
                           "module name is not valid %s",
                           ascii ? "ASCII" : "UTF-8");
    if (read_line(sc, pos, off, 2, &np, &nl))
        return -1;
    if (ascii ? !ascii_ok(np, nl) : !cpk_utf8_ok((const uint8_t *)np, nl, 0))
        return pkscan_fail(sc, PKSCAN_ERR_VALUE, off,
                           "global name is not valid %s",
                           ascii ? "ASCII" : "UTF-8");
    uint32_t m = new_str(sc, K_STR, mp, ml, off);
    uint32_t n = m == NONE_ID ? NONE_ID : new_str(sc, K_STR, np, nl, off);
    if (n == NONE_ID)
        return -1;
    *gid = new_global(sc, m, n, off);
    return *gid == NONE_ID ? -1 : 0;
}

/* One row per opcode (op_rows): its handler, the protocol that added it
 * and what the handler is told besides the opcode's offset: the width of
 * its fixed-size argument, or the kind of node it makes. A handler reads
 * its argument from *pos on (advancing it) and returns 0, -1 when the
 * scan failed (the report says why), or 1 at STOP. */
typedef struct op_row op_row;
typedef int (*op_handler)(scanner *sc, size_t *pos, size_t off,
                          const op_row *row);
struct op_row {
    op_handler fn;  /* NULL: not an opcode */
    uint8_t proto;  /* the protocol that added it */
    uint8_t arg;    /* argument width in bytes, or a node kind (K_*) */
    const char *name;
};

/* NONE, NEWTRUE, NEWFALSE, BININT, BININT1, BININT2, BINFLOAT: a lazy
 * scalar (scalar()) after an argument of `row->arg` bytes. */
static int op_scalar(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    const uint8_t *p = NULL;
    if (row->arg && read_n(sc, pos, row->arg, off, &p))
        return -1;
    return push(sc, scalar(sc, off), off);
}

static int op_proto(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    pkscan_report *r = &sc->rep->pub;
    const uint8_t *p = NULL;
    if (read_n(sc, pos, 1, off, &p))
        return -1;
    if (p[0] > 5)
        return pkscan_fail(sc, PKSCAN_ERR_PROTOCOL, off,
                           "unsupported pickle protocol: %d", p[0]);
    sc->proto = p[0];
    if (r->protocol < 0)
        r->protocol = p[0];
    return 0;
}

static int op_frame(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    pkscan_report *r = &sc->rep->pub;
    const uint8_t *p = NULL;
    if (read_n(sc, pos, 8, off, &p))
        return -1;
    uint64_t u = le(p, 8);
    if (u > (uint64_t)INT64_MAX)
        return pkscan_fail(sc, PKSCAN_ERR_LENGTH, off,
                           "FRAME length exceeds system's maximum of %lld "
                           "bytes", (long long)INT64_MAX);
    if (u > sc->n - *pos)
        return pkscan_fail(sc, PKSCAN_ERR_LENGTH, off,
                           "FRAME length %llu exceeds the %zu bytes left "
                           "(pickle data was truncated)",
                           (unsigned long long)u, sc->n - *pos);
    if (sc->frame_end && *pos != sc->frame_end)
        return pkscan_fail(sc, PKSCAN_ERR_LENGTH, off,
                           "beginning of a new frame before end of current "
                           "frame");
    sc->frame_end = *pos + (size_t)u;
    r->n_frames++;
    return 0;
}

static int op_stop(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    pkscan_report *r = &sc->rep->pub;
    uint32_t id = NONE_ID;
    r->stop_stack = sc->nstack;
    r->stop_marks = sc->nmarks;
    if (pop(sc, off, &id))
        return -1;
    use(sc, id);
    r->result_kind = kname(sc, id);
    sc->nstack++; /* keep it for the analysis */
    return 1;
}

static int op_mark(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    if (sgrow(sc->acct, (void **)&sc->marks, &sc->capmarks,
              sc->nmarks + 1, sizeof(uint32_t)))
        return pkscan_nomem(sc, off);
    sc->marks[sc->nmarks++] = (uint32_t)sc->nstack;
    sc->fence = sc->nstack;
    return 0;
}

static int op_pop(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    uint32_t id = NONE_ID;
    if (sc->nmarks && sc->marks[sc->nmarks - 1] == sc->nstack) {
        sc->nmarks--;
        sc->fence = sc->nmarks ? sc->marks[sc->nmarks - 1] : 0;
        return 0;
    }
    return pop(sc, off, &id);
}

static int op_pop_mark(scanner *sc, size_t *pos, size_t off,
                       const op_row *row)
{
    size_t mk = 0;
    if (marker(sc, off, &mk))
        return -1;
    sc->nstack = mk;
    return 0;
}

static int op_dup(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    if (sc->nstack <= sc->fence)
        return underflow(sc, off);
    return push(sc, at(sc, sc->nstack - 1), off);
}

/* INT and LONG's value: 0 when it does not fit int64 (not kept). */
static int64_t text_int(uint64_t u, int neg)
{
    return u > INT64_MAX ? 0 : neg ? -(int64_t)u : (int64_t)u;
}

static int op_int(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    const char *s = NULL;
    size_t len = 0;
    uint64_t u;
    if (read_line(sc, pos, off, 2, &s, &len))
        return -1;
    int neg;
    if (!strtol_whole(s, len) && !pyint_parse(s, len, 0, &neg, &u))
        return pkscan_fail(sc, PKSCAN_ERR_VALUE, off,
                           "invalid literal for int() with base 0");
    pyint_parse(s, len, 0, &neg, &u);
    /* load_int: a two-character line whose value is 0 or 1 ("00",
     * "01", but also "+1", "-0", " 1") is a bool */
    int isbool = len == 2 &&
                 ((s[0] == '-' && s[1] == '0') ||
                  ((s[0] == '0' || s[0] == '+' || is_space(s[0])) &&
                   (s[1] == '0' || s[1] == '1')));
    uint32_t id = new_node(sc, isbool ? K_BOOL : K_INT, off);
    if (id != NONE_ID)
        sc->nodes[id].u.ival = text_int(u, neg);
    return push(sc, id, off);
}

static int op_long(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    const char *s = NULL;
    size_t len = 0;
    uint64_t u;
    if (read_line(sc, pos, off, 2, &s, &len))
        return -1;
    int neg;
    if (s[len - 1] == 'L')
        len--;
    if (!pyint_parse(s, len, 0, &neg, &u))
        return pkscan_fail(sc, PKSCAN_ERR_VALUE, off,
                           "invalid literal for int() with base 0");
    uint32_t id = new_node(sc, K_INT, off);
    if (id != NONE_ID)
        sc->nodes[id].u.ival = text_int(u, neg);
    return push(sc, id, off);
}

/* LONG1 (a lazy scalar) and LONG4 (a node): a byte count of `row->arg`
 * bytes, then the little-endian two's complement bytes. */
static int op_long_bin(scanner *sc, size_t *pos, size_t off,
                       const op_row *row)
{
    const uint8_t *p = NULL;
    if (read_n(sc, pos, row->arg, off, &p))
        return -1;
    int64_t n = row->arg == 1 ? (int64_t)p[0] : (int64_t)(int32_t)le(p, 4);
    if (n < 0)
        return pkscan_fail(sc, PKSCAN_ERR_LENGTH, off,
                           "LONG pickle has negative byte count");
    if (read_len(sc, pos, (uint64_t)n, off, "LONG", &p))
        return -1;
    if (row->arg == 1)
        return push(sc, scalar(sc, off), off);
    uint32_t id = new_node(sc, K_INT, off);
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

static int op_float(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    const char *s = NULL;
    size_t len = 0;
    if (read_line(sc, pos, off, 2, &s, &len))
        return -1;
    if (!float_ok(s, len))
        return pkscan_fail(sc, PKSCAN_ERR_VALUE, off,
                           "could not convert string to float");
    if (float_overflows(s, len))
        return pkscan_fail(sc, PKSCAN_ERR_VALUE, off,
                           "value too large to convert to float");
    return push(sc, new_node(sc, K_FLOAT, off), off);
}

static int op_string(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    const char *s = NULL;
    size_t len = 0;
    if (read_line(sc, pos, off, 1, &s, &len))
        return -1;
    if (!(len >= 2 && s[0] == s[len - 1] && (s[0] == '\'' || s[0] == '"')))
        return pkscan_fail(sc, PKSCAN_ERR_VALUE, off,
                           "the STRING opcode argument must be quoted");
    const char *o = NULL;
    size_t ol = 0;
    if (decode_escape(sc, s + 1, len - 2, off, &o, &ol))
        return -1;
    if (!ascii_ok(o, ol))
        return pkscan_fail(sc, PKSCAN_ERR_VALUE, off,
                           "'ascii' codec can't decode STRING bytes");
    return push(sc, new_dstr(sc, o, ol, off), off);
}

static int op_binstring(scanner *sc, size_t *pos, size_t off,
                        const op_row *row)
{
    const uint8_t *p = NULL;
    if (read_n(sc, pos, row->arg, off, &p))
        return -1;
    int64_t n = row->arg == 1 ? (int64_t)p[0] : (int64_t)(int32_t)le(p, 4);
    if (n < 0)
        return pkscan_fail(sc, PKSCAN_ERR_LENGTH, off,
                           "BINSTRING pickle has negative byte count");
    if (read_len(sc, pos, (uint64_t)n, off, "BINSTRING", &p))
        return -1;
    if (!ascii_ok((const char *)p, (size_t)n))
        return pkscan_fail(sc, PKSCAN_ERR_VALUE, off,
                           "'ascii' codec can't decode BINSTRING bytes");
    return push(sc, new_str(sc, K_STR, (const char *)p, (size_t)n, off),
                off);
}

/* BINBYTES, SHORT_BINBYTES, BINBYTES8, BYTEARRAY8: a lazy scalar. */
static int op_binbytes(scanner *sc, size_t *pos, size_t off,
                       const op_row *row)
{
    const uint8_t *p = NULL;
    if (read_n(sc, pos, row->arg, off, &p))
        return -1;
    uint64_t u = le(p, row->arg);
    const char *what =
        sc->d[off] == CPK_OP_BYTEARRAY8 ? "BYTEARRAY8" : "BINBYTES";
    if (u > (uint64_t)INT64_MAX)
        return pkscan_fail(sc, PKSCAN_ERR_LENGTH, off,
                           "%s exceeds system's maximum size of %lld bytes",
                           what, (long long)INT64_MAX);
    if (read_len(sc, pos, u, off, what, &p))
        return -1;
    return push(sc, scalar(sc, off), off);
}

static int op_unicode(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    const char *s = NULL;
    size_t len = 0;
    if (read_line(sc, pos, off, 1, &s, &len))
        return -1;
    const char *o = NULL;
    size_t ol = 0;
    if (decode_raw_unicode(sc, s, len, off, &o, &ol))
        return -1;
    return push(sc, new_dstr(sc, o, ol, off), off);
}

static int op_binunicode(scanner *sc, size_t *pos, size_t off,
                         const op_row *row)
{
    const uint8_t *p = NULL;
    if (read_n(sc, pos, row->arg, off, &p))
        return -1;
    uint64_t u = le(p, row->arg);
    if (u > (uint64_t)INT64_MAX)
        return pkscan_fail(sc, PKSCAN_ERR_LENGTH, off,
                           "BINUNICODE exceeds system's maximum size of "
                           "%lld bytes", (long long)INT64_MAX);
    if (read_len(sc, pos, u, off, "BINUNICODE", &p))
        return -1;
    if (!cpk_utf8_ok(p, (size_t)u, 1))
        return pkscan_fail(sc, PKSCAN_ERR_VALUE, off,
                           "'utf-8' codec can't decode BINUNICODE bytes");
    /* lazy: its bytes are in the input (scalar_node finds them) */
    return push(sc, scalar(sc, off), off);
}

/* EMPTY_TUPLE, EMPTY_LIST, EMPTY_DICT, EMPTY_SET, NEXT_BUFFER: a new
 * node of kind `row->arg`, nothing read. */
static int op_new(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    if (row->arg == K_BUFFER)
        sc->rep->pub.n_buffers++;
    return push(sc, new_node(sc, row->arg, off), off);
}

/* TUPLE1, TUPLE2, TUPLE3: the top `row->arg` items. */
static int op_tuple_n(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    size_t k = row->arg;
    if (sc->nstack < k)
        return underflow(sc, off);
    return push(sc, pop_into(sc, K_TUPLE, sc->nstack - k, off), off);
}

/* TUPLE, LIST: the items above the innermost MARK. */
static int op_marked(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    size_t mk = 0;
    if (marker(sc, off, &mk))
        return -1;
    return push(sc, pop_into(sc, row->arg, mk, off), off);
}

/* DICT, FROZENSET: the items above the innermost MARK, hashable. */
static int op_marked_hashed(scanner *sc, size_t *pos, size_t off,
                            const op_row *row)
{
    size_t mk = 0;
    int dict = row->arg == K_DICT;
    if (marker(sc, off, &mk))
        return -1;
    if (dict && (sc->nstack - mk) % 2 != 0)
        return pkscan_fail(sc, PKSCAN_ERR_TYPE, off,
                           "odd number of items for DICT");
    for (size_t i = mk; i < sc->nstack; i += dict ? 2 : 1)
        if (unhashable(sc, sc->stack[i]))
            return pkscan_fail(sc, PKSCAN_ERR_TYPE, off,
                               "unhashable type: '%s'",
                               kname(sc, sc->stack[i]));
    return push(sc, pop_into(sc, row->arg, mk, off), off);
}

static int op_append(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    return do_append(sc, sc->nstack ? sc->nstack - 1 : 0, off);
}

static int op_appends(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    size_t mk = 0;
    if (marker(sc, off, &mk))
        return -1;
    return do_append(sc, mk, off);
}

static int op_setitem(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    if (sc->nstack < 2)
        return underflow(sc, off);
    return do_setitems(sc, sc->nstack - 2, off);
}

static int op_setitems(scanner *sc, size_t *pos, size_t off,
                       const op_row *row)
{
    size_t mk = 0;
    if (marker(sc, off, &mk))
        return -1;
    return do_setitems(sc, mk, off);
}

static int op_additems(scanner *sc, size_t *pos, size_t off,
                       const op_row *row)
{
    size_t mk = 0;
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
                return pkscan_fail(sc, PKSCAN_ERR_TYPE, off,
                                   "unhashable type: '%s'",
                                   kname(sc, sc->stack[i]));
    } else if (!opaque(sc, set)) {
        return pkscan_fail(sc, PKSCAN_ERR_TYPE, off,
                           "'%s' object has no attribute 'add'",
                           kname(sc, set));
    }
    set = at(sc, mk - 1);
    if (set == NONE_ID || note_write(sc, set, off) ||
        add_items(sc, set, mk, sc->nstack, off))
        return -1;
    sc->nstack = mk;
    return 0;
}

static int op_put(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    const char *s = NULL;
    size_t len = 0;
    uint64_t u;
    int neg;
    if (read_line(sc, pos, off, 2, &s, &len))
        return -1;
    if (sc->nstack <= sc->fence)
        return underflow(sc, off);
    if (!pyint_parse(s, len, 10, &neg, &u))
        return pkscan_fail(sc, PKSCAN_ERR_MEMO, off,
                           "invalid literal for int() with base 10 (PUT)");
    if (neg && u)
        return pkscan_fail(sc, PKSCAN_ERR_MEMO, off,
                           "negative PUT argument");
    if (u > (uint64_t)INT64_MAX)
        return pkscan_fail(sc, PKSCAN_ERR_MEMO, off,
                           "Python int too large to convert to C ssize_t");
    return memo_put(sc, u, off);
}

/* BINPUT, LONG_BINPUT: an index of `row->arg` bytes. */
static int op_binput(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    const uint8_t *p = NULL;
    if (read_n(sc, pos, row->arg, off, &p))
        return -1;
    return memo_put(sc, row->arg == 1 ? p[0] : le(p, 4), off);
}

static int op_memoize(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    return memo_put(sc, sc->memo_len, off);
}

static int op_get(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    const char *s = NULL;
    size_t len = 0;
    uint64_t u;
    int neg;
    if (read_line(sc, pos, off, 2, &s, &len))
        return -1;
    if (!pyint_parse(s, len, 10, &neg, &u))
        return pkscan_fail(sc, PKSCAN_ERR_MEMO, off,
                           "invalid literal for int() with base 10 (GET)");
    if (u > (uint64_t)INT64_MAX)
        return pkscan_fail(sc, PKSCAN_ERR_MEMO, off,
                           "Python int too large to convert to C ssize_t");
    return memo_get(sc, u, neg && u, off);
}

/* BINGET, LONG_BINGET: an index of `row->arg` bytes. */
static int op_binget(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    const uint8_t *p = NULL;
    if (read_n(sc, pos, row->arg, off, &p))
        return -1;
    return memo_get(sc, row->arg == 1 ? p[0] : le(p, 4), 0, off);
}

static int op_global(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    uint32_t id = NONE_ID;
    if (do_global_names(sc, pos, off, 0, &id))
        return -1;
    return push(sc, id, off);
}

static int op_stack_global(scanner *sc, size_t *pos, size_t off,
                           const op_row *row)
{
    uint32_t id, a = NONE_ID, b = NONE_ID;
    if (pop(sc, off, &b) || pop(sc, off, &a))
        return -1;
    if ((!opaque(sc, a) && sc->nodes[a].kind != K_STR) ||
        (!opaque(sc, b) && sc->nodes[b].kind != K_STR))
        return pkscan_fail(sc, PKSCAN_ERR_TYPE, off,
                           "STACK_GLOBAL requires str");
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
}

/* A call node of `kind` (K_OBJ, K_REDUCE) of callable `a` with the
 * arguments `b`, pushed. */
static int push_call(scanner *sc, int kind, uint32_t a, uint32_t b,
                     size_t off)
{
    uint32_t id = new_node(sc, kind, off);
    if (id == NONE_ID)
        return -1;
    sc->nodes[id].a = a;
    sc->nodes[id].b = b;
    deepen(sc, id, a, off);
    deepen(sc, id, b, off);
    use(sc, a);
    use(sc, b);
    return push(sc, id, off);
}

static int op_inst(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    size_t mk = 0;
    uint32_t a = NONE_ID, b;
    if (marker(sc, off, &mk))
        return -1;
    if (do_global_names(sc, pos, off, 1, &a))
        return -1;
    b = pop_into(sc, K_TUPLE, mk, off);
    if (b == NONE_ID)
        return -1;
    return push_call(sc, K_OBJ, a, b, off);
}

static int op_obj(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    size_t mk = 0;
    uint32_t a = NONE_ID, b;
    if (marker(sc, off, &mk))
        return -1;
    if (sc->nstack < mk + 1)
        return underflow(sc, off);
    b = pop_into(sc, K_TUPLE, mk + 1, off);
    if (b == NONE_ID || pop(sc, off, &a))
        return -1;
    return push_call(sc, K_OBJ, a, b, off);
}

/* CPython only finds a bad callable by calling it. */
static int op_reduce(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    uint32_t a = NONE_ID, b = NONE_ID;
    if (pop(sc, off, &b) || pop(sc, off, &a))
        return -1;
    return push_call(sc, K_REDUCE, a, b, off);
}

/* NEWOBJ, NEWOBJ_EX (`row->arg` 1: with keyword arguments). */
static int op_newobj(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    return do_newobj(sc, row->arg, off);
}

static int op_build(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    return do_build(sc, off);
}

/* EXT1, EXT2, EXT4: a registry code of `row->arg` bytes. */
static int op_ext(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    const uint8_t *p = NULL;
    int k = row->arg;
    if (read_n(sc, pos, (size_t)k, off, &p))
        return -1;
    int64_t code = k == 4 ? (int64_t)(int32_t)le(p, 4) : (int64_t)le(p, k);
    if (code <= 0)
        return pkscan_fail(sc, PKSCAN_ERR_VALUE, off,
                           "EXT specifies code <= 0");
    uint32_t id = new_node(sc, K_EXT, off);
    if (id != NONE_ID)
        sc->nodes[id].u.ival = code;
    return push(sc, id, off);
}

static int op_persid(scanner *sc, size_t *pos, size_t off, const op_row *row)
{
    return pkscan_fail(sc, PKSCAN_ERR_UNSUPPORTED, off,
                       "A load persistent id instruction was encountered, "
                       "but no persistent_load function was specified.");
}

static int op_readonly_buffer(scanner *sc, size_t *pos, size_t off,
                              const op_row *row)
{
    if (sc->nstack <= sc->fence)
        return underflow(sc, off);
    uint32_t id = sc->stack[sc->nstack - 1];
    if (!opaque(sc, id) && kind_e(sc, id) != K_BYTES &&
        kind_e(sc, id) != K_BYTEARRAY)
        return pkscan_fail(sc, PKSCAN_ERR_TYPE, off,
                           "memoryview: a bytes-like object is required, "
                           "not '%s'", kname(sc, id));
    return 0;
}

/* Every opcode of protocols 0 to 5, as Lib/pickletools.py lists them:
 * name, handler, the protocol that added it, and the handler's
 * argument. */
#define OP(name, fn, proto, arg) \
    [CPK_OP_##name] = {fn, proto, arg, #name}
static const op_row op_rows[256] = {
    OP(MARK,             op_mark,            0, 0),
    OP(STOP,             op_stop,            0, 0),
    OP(POP,              op_pop,             0, 0),
    OP(POP_MARK,         op_pop_mark,        1, 0),
    OP(DUP,              op_dup,             0, 0),
    OP(NONE,             op_scalar,          0, 0),
    OP(NEWTRUE,          op_scalar,          2, 0),
    OP(NEWFALSE,         op_scalar,          2, 0),
    OP(INT,              op_int,             0, 0),
    OP(BININT,           op_scalar,          1, 4),
    OP(BININT1,          op_scalar,          1, 1),
    OP(BININT2,          op_scalar,          1, 2),
    OP(LONG,             op_long,            0, 0),
    OP(LONG1,            op_long_bin,        2, 1),
    OP(LONG4,            op_long_bin,        2, 4),
    OP(FLOAT,            op_float,           0, 0),
    OP(BINFLOAT,         op_scalar,          1, 8),
    OP(STRING,           op_string,          0, 0),
    OP(BINSTRING,        op_binstring,       1, 4),
    OP(SHORT_BINSTRING,  op_binstring,       1, 1),
    OP(BINBYTES,         op_binbytes,        3, 4),
    OP(SHORT_BINBYTES,   op_binbytes,        3, 1),
    OP(BINBYTES8,        op_binbytes,        4, 8),
    OP(BYTEARRAY8,       op_binbytes,        5, 8),
    OP(UNICODE,          op_unicode,         0, 0),
    OP(BINUNICODE,       op_binunicode,      1, 4),
    OP(SHORT_BINUNICODE, op_binunicode,      4, 1),
    OP(BINUNICODE8,      op_binunicode,      4, 8),
    OP(EMPTY_TUPLE,      op_new,             1, K_TUPLE),
    OP(TUPLE1,           op_tuple_n,         2, 1),
    OP(TUPLE2,           op_tuple_n,         2, 2),
    OP(TUPLE3,           op_tuple_n,         2, 3),
    OP(TUPLE,            op_marked,          0, K_TUPLE),
    OP(EMPTY_LIST,       op_new,             1, K_LIST),
    OP(LIST,             op_marked,          0, K_LIST),
    OP(APPEND,           op_append,          0, 0),
    OP(APPENDS,          op_appends,         1, 0),
    OP(EMPTY_DICT,       op_new,             1, K_DICT),
    OP(DICT,             op_marked_hashed,   0, K_DICT),
    OP(SETITEM,          op_setitem,         0, 0),
    OP(SETITEMS,         op_setitems,        1, 0),
    OP(EMPTY_SET,        op_new,             4, K_SET),
    OP(ADDITEMS,         op_additems,        4, 0),
    OP(FROZENSET,        op_marked_hashed,   4, K_FROZENSET),
    OP(PUT,              op_put,             0, 0),
    OP(BINPUT,           op_binput,          1, 1),
    OP(LONG_BINPUT,      op_binput,          1, 4),
    OP(MEMOIZE,          op_memoize,         4, 0),
    OP(GET,              op_get,             0, 0),
    OP(BINGET,           op_binget,          1, 1),
    OP(LONG_BINGET,      op_binget,          1, 4),
    OP(GLOBAL,           op_global,          0, 0),
    OP(STACK_GLOBAL,     op_stack_global,    4, 0),
    OP(INST,             op_inst,            0, 0),
    OP(OBJ,              op_obj,             1, 0),
    OP(REDUCE,           op_reduce,          0, 0),
    OP(NEWOBJ,           op_newobj,          2, 0),
    OP(NEWOBJ_EX,        op_newobj,          4, 1),
    OP(BUILD,            op_build,           0, 0),
    OP(EXT1,             op_ext,             2, 1),
    OP(EXT2,             op_ext,             2, 2),
    OP(EXT4,             op_ext,             2, 4),
    OP(PERSID,           op_persid,          0, 0),
    OP(BINPERSID,        op_persid,          1, 0),
    OP(PROTO,            op_proto,           2, 0),
    OP(FRAME,            op_frame,           4, 0),
    OP(NEXT_BUFFER,      op_new,             5, K_BUFFER),
    OP(READONLY_BUFFER,  op_readonly_buffer, 5, 0),
};
#undef OP

/* The opcode at `off`: its checks, then its row's handler. Advances
 * *pos; returns 0, -1 when the scan failed, 1 at STOP. */
static int step(scanner *sc, size_t *pos, size_t off)
{
    uint8_t op = sc->d[off];
    const op_row *row = &op_rows[op];
    *pos = off + 1;
    pkscan_report *r = &sc->rep->pub;

    if (row->fn == NULL) {
        if (op >= 0x20 && op < 0x7f)
            return pkscan_fail(sc, PKSCAN_ERR_OPCODE, off,
                               "invalid load key, '%c'.", op);
        return pkscan_fail(sc, PKSCAN_ERR_OPCODE, off,
                           "invalid load key, '\\x%02x'.", op);
    }
    if (frame_read(sc, off, 1, off))
        return -1;
    if (row->proto > r->min_protocol)
        r->min_protocol = row->proto;
    r->n_opcodes++;
    return row->fn(sc, pos, off, row);
}

/* step() for the bulk of a data pickle, the binary scalars and short
 * strs, when all their bytes are there, inside the frame, valid, and
 * the stack has room: what step() and their handlers would do, inline.
 * 0: not such a case, step() decides (and reports what is wrong). */
static inline int fast_scalar(scanner *sc, size_t *pos, size_t off)
{
    uint8_t op = sc->d[off];
    const op_row *row = &op_rows[op];
    size_t end;
    if (row->fn == op_scalar)
        end = off + 1 + row->arg;
    else if (op == CPK_OP_SHORT_BINUNICODE && off + 1 < sc->n)
        end = off + 2 + sc->d[off + 1];
    else
        return 0;
    if (end > sc->n || (sc->frame_end != 0 && end > sc->frame_end) ||
        sc->nstack >= sc->capstack)
        return 0;
    if (op == CPK_OP_SHORT_BINUNICODE &&
        !cpk_utf8_ok(sc->d + off + 2, sc->d[off + 1], 1))
        return 0;
    pkscan_report *r = &sc->rep->pub;
    if (row->proto > r->min_protocol)
        r->min_protocol = row->proto;
    r->n_opcodes++;
    if (off < sc->first_lazy)
        sc->first_lazy = off;
    if (sc->nstack < sc->capsmemo)
        sc->smemo[sc->nstack] = 0;
    sc->stack[sc->nstack++] = LAZY | (uint32_t)off;
    *pos = end;
    return 1;
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
        return pkscan_nomem(sc, off);
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
        return pkscan_nomem(sc, off);
    span_rec *rc = &sc->recs[sc->nrecs++];
    rc->node = id;
    rc->lo = sc->sstart[op == 'b' ? depth0 - 1 : top - 1];
    rc->hi = (uint32_t)end;
    rc->build = op == 'b';
    rc->popped = 0;
    sc->pending = sc->nrecs;
    return 0;
}

/* Walk the whole input (sc set up by pkscan_scan_limited; `len` is the
 * caller's): the opcodes up to STOP, then what is left after it; the
 * failure, if any, is in the report. Lazy scalars left on the stack
 * become NONE_ID, for the analysis reads node ids only. */
void pkscan_walk(scanner *sc, size_t len)
{
    pkscan_report *r = &sc->rep->pub;
    if (len >= UINT32_MAX - 1) {
        pkscan_fail(sc, PKSCAN_ERR_LENGTH, 0,
                    "input of %zu bytes is too large to scan", len);
    } else if (sc->n == 0) {
        pkscan_fail(sc, PKSCAN_ERR_TRUNCATED, 0, "Ran out of input");
    } else {
        size_t pos = 0, off = 0;
        int stop = 0, err = 0;
        /* the same loop twice: without PKSCAN_SPANS (the scan before
         * every load) nothing runs per opcode but the walk itself */
        if (!sc->spans) {
            while (!stop && pos < sc->n) {
                off = pos;
                if (sc->lazy && fast_scalar(sc, &pos, off))
                    continue;
                sc->op_off = off;
                int rc = step(sc, &pos, off);
                if (rc < 0) {
                    err = 1;
                    break;
                }
                stop = rc;
            }
        } else {
            while (!stop && pos < sc->n) {
                size_t depth0 = sc->nstack;
                off = pos;
                sc->op_off = off;
                int rc = step(sc, &pos, off);
                if (rc < 0 || spans_step(sc, off, pos, depth0)) {
                    err = 1;
                    break;
                }
                stop = rc;
            }
        }
        if (!err && !stop) {
            pkscan_fail(sc, PKSCAN_ERR_TRUNCATED, sc->n,
                        "pickle data was truncated (no STOP opcode)");
        } else if (!err) {
            r->stop_offset = off;
            if (pos < sc->n)
                pkscan_fail(sc, PKSCAN_ERR_TRAILING, pos,
                            "%zu bytes of data after the STOP opcode",
                            sc->n - pos);
        }
    }
    if (r->status != PKSCAN_OK && r->status != PKSCAN_ERR_TRAILING)
        r->result_kind = NULL;
    /* the analysis reads node ids only (the result at the top) */
    for (size_t i = 0; i < sc->nstack; i++)
        if (is_lazy(sc, sc->stack[i]))
            sc->stack[i] = NONE_ID;
    sc->lazy = 0;
}

const char *pkscan_op_name(uint8_t op)
{
    return op_rows[op].name ? op_rows[op].name : "?";
}
