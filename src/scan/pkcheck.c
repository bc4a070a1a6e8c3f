/* pkcheck.c - the check before a plain load (pkcheck.h). It follows the
 * full scan's walk (pkscan_walk.c) opcode by opcode, keeping for each
 * stack item and memo entry only its kind and a bound on its depth, and
 * gives up (PKCHECK_MODEL) wherever that walk would fail or would need
 * more than a kind to decide. */
#include "scan/pkcheck.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/pickle_ops.h" /* CPK_OP_* */
#include "scan/format.h"       /* cpk_format_parse: a newer format */
#include "scan/utf8.h"         /* cpk_utf8_ok */

/* What the walk's type checks look at: the kind of a value. Everything
 * from C_OPAQUE on may be anything at load time. */
enum {
    C_UNSET = 0, /* a memo index not set */
    C_NONE, C_BOOL, C_INT, C_FLOAT, C_STR, C_BYTES, /* scalars */
    C_BYTEARRAY, C_LIST, C_DICT, C_SET, C_FROZENSET, C_TUPLE,
    C_OPAQUE,
};

#define SCALAR(k) ((k) <= C_BYTES)
#define UNHASHABLE(k) \
    ((k) == C_LIST || (k) == C_DICT || (k) == C_SET || (k) == C_BYTEARRAY)

/* A stack item or a memo entry, in 64 bits: its kind (0: a memo index
 * not set); unless a scalar, a bound on its depth and, once put in the
 * memo (shared), `oid`: 1 + the memo index it was first put at, whose
 * entry then holds its bound and whether something holds it (E_HELD).
 * Scalars never change: their depth is 1, their memo entries need
 * nothing more. */
typedef uint64_t ent;
#define E_KIND(e) ((int)((e) & 0xf))
#define E_HELD ((uint64_t)1 << 4)
#define E_H(e) ((uint32_t)(((e) >> 5) & H_MAX))
#define E_OID(e) ((uint32_t)((e) >> 32))
#define H_MAX 0x7ffffffu /* 27 bits */
#define SCALAR_E(kind) ((uint64_t)(kind))
#define HOLDER_E(kind, h, oid) \
    ((uint64_t)(oid) << 32 | (uint64_t)(h) << 5 | (uint64_t)(kind))

typedef struct {
    const uint8_t *d;
    size_t n;
    ent *stack;
    size_t nstack, capstack;
    size_t *marks;
    size_t nmarks, capmarks;
    size_t fence; /* the innermost MARK's stack position, else 0 */
    ent *memo;
    size_t capmemo, memo_len;
    size_t frame_end; /* 0: not in a frame */
    size_t lim;       /* fast_scalars' bound: the frame's end, else n */
    /* Depth: every value's real depth is at most its bound plus `slack`,
     * the growth of shared values after something came to hold them
     * (a holder's bound was taken before). */
    uint32_t hmax;
    uint64_t slack;
    size_t held, peak, max_bytes;
} checker;

enum { GO = 0, STOPPED = 1, MODEL = -1, MORE = -2 };

static int grow(checker *c, void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return GO;
    size_t ncap = *cap ? *cap : 64;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2 / size)
            return MODEL;
        ncap *= 2;
    }
    size_t more = (ncap - *cap) * size;
    if (c->max_bytes && (c->held + more > c->max_bytes || c->held + more <
                                                             c->held))
        return MODEL;
    void *q = realloc(*p, ncap * size);
    if (q == NULL)
        return MODEL;
    memset((char *)q + *cap * size, 0, more);
    *p = q;
    *cap = ncap;
    c->held += more;
    if (c->held > c->peak)
        c->peak = c->held;
    return GO;
}

static uint64_t le(const uint8_t *p, int k)
{
    uint64_t x = 0;
    for (int i = 0; i < k; i++)
        x |= (uint64_t)p[i] << (8 * i);
    return x;
}

/* The walk's frame rule (frame_read): a read that starts inside a frame
 * ends inside it; one that starts at its end leaves it. */
static void set_frame(checker *c, size_t end)
{
    c->frame_end = end;
    c->lim = end ? end : c->n;
}

static int frame_read(checker *c, size_t start, size_t k)
{
    if (c->frame_end == 0)
        return GO;
    if (start == c->frame_end) {
        set_frame(c, 0);
        return GO;
    }
    return k > c->frame_end - start ? MODEL : GO;
}

/* The next `k` bytes at *pos, inside the frame. */
static int take(checker *c, size_t *pos, uint64_t k, const uint8_t **p)
{
    if (k > (uint64_t)(c->n - *pos))
        return MORE;
    if (frame_read(c, *pos, (size_t)k))
        return MODEL;
    *p = c->d + *pos;
    *pos += (size_t)k;
    return GO;
}

/* A line ending in '\n', not empty (GLOBAL's names). */
static int line(checker *c, size_t *pos, const uint8_t **p, size_t *len)
{
    const uint8_t *start = c->d + *pos;
    const uint8_t *nl = memchr(start, '\n', c->n - *pos);
    if (nl == NULL)
        return MORE;
    size_t l = (size_t)(nl - start) + 1;
    if (frame_read(c, *pos, l) || l < 2)
        return MODEL;
    *pos += l;
    *p = start;
    *len = l - 1;
    return GO;
}

/* 1 if stack[from, nstack) are all scalars (what a batch of data is):
 * depth 1, hashable, nothing shared to mark. */
static int all_scalars(const checker *c, size_t from)
{
    const ent *e = c->stack + from;
    size_t n = c->nstack - from;
    /* a kind past C_BYTES sets bit 4 of kind + 15 - C_BYTES (< 32) */
    uint64_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad |= (e[i] & 0xf) + (15 - C_BYTES);
    return (bad & 0x10) == 0;
}

/* The items stack[from, nstack) go into something: mark the shared ones
 * held, and return the deepest bound among them (0: none). */
static uint32_t hold(checker *c, size_t from)
{
    if (from == c->nstack)
        return 0;
    if (all_scalars(c, from))
        return 1;
    uint32_t m = 0;
    for (size_t i = from; i < c->nstack; i++) {
        ent e = c->stack[i];
        if (SCALAR(E_KIND(e))) {
            if (m < 1)
                m = 1;
            continue;
        }
        uint32_t h = E_H(e);
        if (E_OID(e)) {
            c->memo[E_OID(e) - 1] |= E_HELD;
            h = E_H(c->memo[E_OID(e) - 1]);
        }
        if (h > m)
            m = h;
    }
    return m;
}

static uint32_t above(uint32_t m)
{
    return m < H_MAX ? m + 1 : H_MAX;
}

static int room(checker *c)
{
    if (c->nstack < c->capstack)
        return GO;
    return grow(c, (void **)&c->stack, &c->capstack, c->nstack + 1,
                sizeof(ent));
}

static int push_scalar(checker *c, int kind)
{
    if (room(c))
        return MODEL;
    c->stack[c->nstack++] = SCALAR_E(kind);
    return GO;
}

/* An empty container, or a value holding others of depth `h` - 1. */
static int push_holder(checker *c, int kind, uint32_t h)
{
    if (room(c))
        return MODEL;
    c->stack[c->nstack++] = HOLDER_E(kind, h, 0);
    if (h > c->hmax)
        c->hmax = h;
    return GO;
}

/* Replace stack[from, nstack) by one value of `kind` holding them. */
static int collapse(checker *c, size_t from, int kind)
{
    uint32_t h = above(hold(c, from));
    c->nstack = from;
    return push_holder(c, kind, h);
}

/* stack[t] takes the items stack[from, nstack) (APPENDS, SETITEMS,
 * ADDITEMS, BUILD): its bound grows to hold them. A shared value that
 * something already holds makes that holder's bound stale by as much:
 * added to the slack. */
static void fill_to(checker *c, size_t t, size_t from, uint32_t h)
{
    ent *e = &c->stack[t];
    uint32_t oid = E_OID(*e);
    ent *rec = oid ? &c->memo[oid - 1] : e;
    uint32_t was = E_H(*rec);
    if (h > was) {
        if (oid && (*rec & E_HELD))
            c->slack += h - was;
        *rec = (*rec & ~((uint64_t)H_MAX << 5)) | (uint64_t)h << 5;
        if (h > c->hmax)
            c->hmax = h;
    }
    c->nstack = from;
}

static void fill(checker *c, size_t t, size_t from)
{
    fill_to(c, t, from, above(hold(c, from)));
}

static int marker(checker *c, size_t *mk)
{
    if (c->nmarks == 0)
        return MODEL;
    *mk = c->marks[--c->nmarks];
    c->fence = c->nmarks ? c->marks[c->nmarks - 1] : 0;
    return GO;
}

/* A name that is, or holds between dots, a newer format's marker than
 * ours: the full scan's to refuse (format.h), with the loader's upgrade
 * message. */
static int newer_format(const uint8_t *name, size_t len)
{
    int fmt = 0;
    char version[48];
    return cpk_format_newer_name((const char *)name, len, &fmt, version,
                                 sizeof version);
}

/* APPEND(S), SETITEM(S), ADDITEMS: stack[x - 1] takes stack[x, nstack),
 * when the walk's type checks surely pass. */
static int add_items(checker *c, size_t x, uint8_t op)
{
    size_t len = c->nstack;
    if (x > len || x <= c->fence)
        return MODEL;
    if (len == x)
        return GO;
    int k = E_KIND(c->stack[x - 1]);
    int plain = all_scalars(c, x); /* hashable, depth 1, none shared */
    if (op == CPK_OP_APPEND || op == CPK_OP_APPENDS) {
        if (k != C_LIST && k != C_OPAQUE)
            return MODEL;
    } else if (op == CPK_OP_ADDITEMS) {
        if (k != C_SET && k != C_OPAQUE)
            return MODEL;
        if (k == C_SET && !plain)
            for (size_t i = x; i < len; i++)
                if (UNHASHABLE(E_KIND(c->stack[i])))
                    return MODEL;
    } else {
        if ((len - x) % 2 != 0 || (k != C_DICT && k != C_OPAQUE))
            return MODEL;
        if (k == C_DICT && !plain)
            for (size_t i = x; i < len; i += 2)
                if (UNHASHABLE(E_KIND(c->stack[i])))
                    return MODEL;
    }
    if (plain)
        fill_to(c, x - 1, x, 2);
    else
        fill(c, x - 1, x);
    return GO;
}

static int memo_put(checker *c, uint64_t idx)
{
    if (c->nstack <= c->fence || idx >= (uint64_t)c->n + 1 ||
        idx >= UINT32_MAX - 1)
        return MODEL;
    if (idx >= c->capmemo && grow(c, (void **)&c->memo, &c->capmemo,
                                  (size_t)idx + 1, sizeof(ent)))
        return MODEL;
    if (E_KIND(c->memo[idx]) != C_UNSET)
        return MODEL; /* no pickler sets an index twice */
    ent *e = &c->stack[c->nstack - 1];
    if (!SCALAR(E_KIND(*e)) && E_OID(*e) == 0)
        *e = (*e & ~E_HELD) | (uint64_t)(idx + 1) << 32;
    /* a value already shared: its first entry decides */
    c->memo[idx] = *e;
    c->memo_len++;
    return GO;
}

static int memo_get(checker *c, uint64_t idx)
{
    if (idx >= c->capmemo || E_KIND(c->memo[idx]) == C_UNSET || room(c))
        return MODEL;
    c->stack[c->nstack++] = c->memo[idx];
    return GO;
}

/* A str of a `k`-byte length: BINUNICODE's UTF-8 (surrogates allowed),
 * or with `ascii` BINSTRING's bytes, which a load decodes as ASCII. */
static int op_str(checker *c, size_t *pos, int k, int ascii)
{
    const uint8_t *p;
    int rc = take(c, pos, (uint64_t)k, &p);
    if (rc)
        return rc;
    uint64_t u = le(p, k);
    if (u > (uint64_t)INT64_MAX || (ascii && k == 4 && (u & 0x80000000u)))
        return MODEL;
    if ((rc = take(c, pos, u, &p)))
        return rc;
    for (size_t i = 0; ascii && i < (size_t)u; i++)
        if (p[i] >= 0x80)
            return MODEL;
    if (!ascii && !cpk_utf8_ok(p, (size_t)u, 1))
        return MODEL;
    /* A newer format's marker, however the pickle looks it up
     * (STACK_GLOBAL, getattr of an import): every way there names it in
     * one str. */
    if (newer_format(p, (size_t)u))
        return MODEL;
    return push_scalar(c, C_STR);
}

/* BINBYTES and the like, LONG1/LONG4: a length of `k` bytes (`sign`: a
 * signed one), then that many bytes. */
static int op_sized(checker *c, size_t *pos, int k, int sign,
                    int kind)
{
    const uint8_t *p;
    int rc = take(c, pos, (uint64_t)k, &p);
    if (rc)
        return rc;
    uint64_t u = le(p, k);
    if (sign && k == 4 && (u & 0x80000000u))
        return MODEL;
    if (u > (uint64_t)INT64_MAX)
        return MODEL;
    if ((rc = take(c, pos, u, &p)))
        return rc;
    return SCALAR(kind) ? push_scalar(c, kind)
                        : push_holder(c, kind, 1);
}

static int op_global(checker *c, size_t *pos)
{
    const uint8_t *m, *nm;
    size_t ml, nl;
    int rc = line(c, pos, &m, &ml);
    if (rc)
        return rc;
    if (!cpk_utf8_ok(m, ml, 0))
        return MODEL;
    if ((rc = line(c, pos, &nm, &nl)))
        return rc;
    if (!cpk_utf8_ok(nm, nl, 0) || newer_format(nm, nl))
        return MODEL;
    return push_holder(c, C_OPAQUE, 1);
}

static int op_stack_global(checker *c)
{
    if (c->nstack < 2 || c->nstack - 2 < c->fence)
        return MODEL;
    ent a = c->stack[c->nstack - 2], b = c->stack[c->nstack - 1];
    int ka = E_KIND(a), kb = E_KIND(b);
    if ((ka != C_STR && ka != C_OPAQUE) || (kb != C_STR && kb != C_OPAQUE))
        return MODEL;
    return collapse(c, c->nstack - 2, C_OPAQUE);
}

static int op_newobj(checker *c, int ex)
{
    size_t k = ex ? 3 : 2;
    if (c->nstack < k || c->nstack - k < c->fence)
        return MODEL;
    const ent *s = &c->stack[c->nstack - k];
    int cls = E_KIND(s[0]), args = E_KIND(s[1]);
    int kw = ex ? E_KIND(s[2]) : C_DICT;
    if (cls != C_OPAQUE || (args != C_TUPLE && args != C_OPAQUE) ||
        (kw != C_DICT && kw != C_OPAQUE))
        return MODEL;
    return collapse(c, c->nstack - k, C_OPAQUE);
}

/* BUILD: an opaque value takes the state; plain data's BUILD is the full
 * scan's to judge. */
static int op_build(checker *c)
{
    if (c->nstack < 2 || c->nstack - 2 < c->fence ||
        E_KIND(c->stack[c->nstack - 2]) != C_OPAQUE)
        return MODEL;
    fill(c, c->nstack - 2, c->nstack - 1);
    return GO;
}

static int op_stop(checker *c)
{
    return c->nmarks == 0 && c->nstack == 1 ? STOPPED : MODEL;
}

static int step(checker *c, size_t *pos, size_t off)
{
    const uint8_t *p;
    uint8_t op = c->d[off];
    size_t mk = 0;
    int rc;
    *pos = off + 1;
    if (frame_read(c, off, 1))
        return MODEL;
    switch (op) {
    case CPK_OP_NONE:
        return push_scalar(c, C_NONE);
    case CPK_OP_NEWTRUE:
    case CPK_OP_NEWFALSE:
        return push_scalar(c, C_BOOL);
    case CPK_OP_BININT:
    case CPK_OP_BININT1:
    case CPK_OP_BININT2:
        rc = take(c, pos, op == CPK_OP_BININT ? 4 : op == CPK_OP_BININT1
                                                        ? 1 : 2, &p);
        return rc ? rc : push_scalar(c, C_INT);
    case CPK_OP_BINFLOAT:
        rc = take(c, pos, 8, &p);
        return rc ? rc : push_scalar(c, C_FLOAT);
    case CPK_OP_LONG1:
        return op_sized(c, pos, 1, 1, C_INT);
    case CPK_OP_LONG4:
        return op_sized(c, pos, 4, 1, C_INT);
    case CPK_OP_SHORT_BINUNICODE:
        return op_str(c, pos, 1, 0);
    case CPK_OP_BINUNICODE:
        return op_str(c, pos, 4, 0);
    case CPK_OP_BINUNICODE8:
        return op_str(c, pos, 8, 0);
    case CPK_OP_SHORT_BINSTRING:
        return op_str(c, pos, 1, 1);
    case CPK_OP_BINSTRING:
        return op_str(c, pos, 4, 1);
    case CPK_OP_SHORT_BINBYTES:
        return op_sized(c, pos, 1, 0, C_BYTES);
    case CPK_OP_BINBYTES:
        return op_sized(c, pos, 4, 0, C_BYTES);
    case CPK_OP_BINBYTES8:
        return op_sized(c, pos, 8, 0, C_BYTES);
    case CPK_OP_BYTEARRAY8:
        return op_sized(c, pos, 8, 0, C_BYTEARRAY);
    case CPK_OP_EMPTY_TUPLE:
        return push_holder(c, C_TUPLE, 1);
    case CPK_OP_EMPTY_LIST:
        return push_holder(c, C_LIST, 1);
    case CPK_OP_EMPTY_DICT:
        return push_holder(c, C_DICT, 1);
    case CPK_OP_EMPTY_SET:
        return push_holder(c, C_SET, 1);
    case CPK_OP_TUPLE1:
    case CPK_OP_TUPLE2:
    case CPK_OP_TUPLE3: {
        size_t k = (size_t)(op - CPK_OP_TUPLE1) + 1;
        if (c->nstack < k || c->nstack - k < c->fence)
            return MODEL;
        return collapse(c, c->nstack - k, C_TUPLE);
    }
    case CPK_OP_TUPLE:
    case CPK_OP_LIST:
        if (marker(c, &mk))
            return MODEL;
        return collapse(c, mk, op == CPK_OP_TUPLE ? C_TUPLE : C_LIST);
    case CPK_OP_DICT:
    case CPK_OP_FROZENSET: {
        int dict = op == CPK_OP_DICT;
        if (marker(c, &mk) || (dict && (c->nstack - mk) % 2 != 0))
            return MODEL;
        for (size_t i = mk; i < c->nstack; i += dict ? 2 : 1)
            if (UNHASHABLE(E_KIND(c->stack[i])))
                return MODEL;
        return collapse(c, mk, dict ? C_DICT : C_FROZENSET);
    }
    case CPK_OP_APPEND:
        return add_items(c, c->nstack ? c->nstack - 1 : 0, op);
    case CPK_OP_SETITEM:
        if (c->nstack < 2)
            return MODEL;
        return add_items(c, c->nstack - 2, op);
    case CPK_OP_APPENDS:
    case CPK_OP_SETITEMS:
    case CPK_OP_ADDITEMS:
        if (marker(c, &mk))
            return MODEL;
        return add_items(c, mk, op);
    case CPK_OP_MARK:
        if (grow(c, (void **)&c->marks, &c->capmarks, c->nmarks + 1,
                 sizeof(size_t)))
            return MODEL;
        c->marks[c->nmarks++] = c->nstack;
        c->fence = c->nstack;
        return GO;
    case CPK_OP_POP:
        if (c->nmarks && c->marks[c->nmarks - 1] == c->nstack) {
            c->nmarks--;
            c->fence = c->nmarks ? c->marks[c->nmarks - 1] : 0;
            return GO;
        }
        if (c->nstack <= c->fence)
            return MODEL;
        c->nstack--;
        return GO;
    case CPK_OP_POP_MARK:
        if (marker(c, &mk))
            return MODEL;
        c->nstack = mk;
        return GO;
    case CPK_OP_BINPUT:
    case CPK_OP_LONG_BINPUT:
        rc = take(c, pos, op == CPK_OP_BINPUT ? 1 : 4, &p);
        return rc ? rc : memo_put(c, le(p, op == CPK_OP_BINPUT ? 1 : 4));
    case CPK_OP_MEMOIZE:
        return memo_put(c, c->memo_len);
    case CPK_OP_BINGET:
    case CPK_OP_LONG_BINGET:
        rc = take(c, pos, op == CPK_OP_BINGET ? 1 : 4, &p);
        return rc ? rc : memo_get(c, le(p, op == CPK_OP_BINGET ? 1 : 4));
    case CPK_OP_GLOBAL:
        return op_global(c, pos);
    case CPK_OP_STACK_GLOBAL:
        return op_stack_global(c);
    case CPK_OP_REDUCE:
        if (c->nstack < 2 || c->nstack - 2 < c->fence)
            return MODEL;
        return collapse(c, c->nstack - 2, C_OPAQUE);
    case CPK_OP_NEWOBJ:
        return op_newobj(c, 0);
    case CPK_OP_NEWOBJ_EX:
        return op_newobj(c, 1);
    case CPK_OP_BUILD:
        return op_build(c);
    case CPK_OP_PROTO:
        rc = take(c, pos, 1, &p);
        return rc ? rc : p[0] > 5 ? MODEL : GO;
    case CPK_OP_FRAME: {
        if ((rc = take(c, pos, 8, &p)))
            return rc;
        uint64_t u = le(p, 8);
        if (u > (uint64_t)INT64_MAX)
            return MODEL;
        if (u > (uint64_t)(c->n - *pos))
            return MORE;
        if (c->frame_end && *pos != c->frame_end)
            return MODEL;
        set_frame(c, *pos + (size_t)u);
        return GO;
    }
    case CPK_OP_STOP:
        return op_stop(c);
    default:
        return MODEL;
    }
}

/* The bulk of a data pickle, scalars whose bytes are all there and
 * inside the frame, with room on the stack (and MEMOIZE of one): pushed
 * by fast_scalars, what
 * step() would do, from `pos` on; it returns where it stopped, for
 * step() to decide (an opcode at the frame's end, `lim`, leaves it). */
static const struct {
    uint8_t width, kind; /* the opcode and its argument; 0: not here */
} scalar_ops[256] = {
    [CPK_OP_NONE] = {1, C_NONE},      [CPK_OP_NEWTRUE] = {1, C_BOOL},
    [CPK_OP_NEWFALSE] = {1, C_BOOL},  [CPK_OP_BININT] = {5, C_INT},
    [CPK_OP_BININT1] = {2, C_INT},    [CPK_OP_BININT2] = {3, C_INT},
    [CPK_OP_BINFLOAT] = {9, C_FLOAT}, [CPK_OP_SHORT_BINUNICODE] = {2, C_STR},
};

static size_t fast_scalars(checker *c, size_t pos)
{
    const uint8_t *d = c->d;
    size_t lim = c->lim, n = c->nstack, cap = c->capstack;
    ent *stack = c->stack;
    while (pos < lim && n < cap) {
        uint8_t op = d[pos];
        size_t end = pos + scalar_ops[op].width;
        if (op == CPK_OP_MEMOIZE && n > c->fence &&
            SCALAR(E_KIND(stack[n - 1])) && c->memo_len < c->capmemo &&
            c->memo_len < UINT32_MAX - 1 &&
            E_KIND(c->memo[c->memo_len]) == C_UNSET) {
            c->memo[c->memo_len++] = stack[n - 1]; /* memo_put's */
            pos++;
            continue;
        }
        if (end == pos || end > lim)
            break;
        if (op == CPK_OP_SHORT_BINUNICODE) {
            /* what may be a format's marker goes through op_str */
            end += d[pos + 1];
            if (end > lim || !cpk_utf8_ok(d + pos + 2, d[pos + 1], 1) ||
                (d[pos + 1] > 0 &&
                 (d[pos + 2] == CPK_FORMAT_MARKER_PREFIX[0] ||
                  memchr(d + pos + 2, '.', d[pos + 1]) != NULL)))
                break;
        }
        stack[n++] = SCALAR_E(scalar_ops[op].kind);
        pos = end;
    }
    c->nstack = n;
    return pos;
}

pkcheck_status pkcheck_run(const void *data, size_t len, size_t max_bytes,
                           size_t max_depth, int trailing_ok,
                           pkcheck_result *res)
{
    checker c;
    memset(&c, 0, sizeof c);
    c.d = data;
    c.n = data ? len : 0;
    c.max_bytes = max_bytes;
    c.lim = c.n;
    size_t pos = 0, off = 0;
    /* the full scan refuses input past 32-bit offsets (pkscan_walk.c) */
    int rc = c.n == 0 ? MORE : c.n >= UINT32_MAX - 1 ? MODEL : GO;
    while (rc == GO) {
        if (pos >= c.n) {
            rc = MORE;
            break;
        }
        pos = fast_scalars(&c, pos);
        if (pos >= c.n) {
            rc = MORE;
            break;
        }
        off = pos;
        rc = step(&c, &pos, off);
    }
    pkcheck_status st = PKCHECK_MODEL;
    if (rc == STOPPED) {
        /* the walk's depth is at most the deepest bound plus the slack */
        uint64_t depth = (uint64_t)c.hmax + c.slack;
        if (depth <= max_depth && (trailing_ok || pos == c.n))
            st = PKCHECK_OK;
    } else if (rc == MORE) {
        st = PKCHECK_MORE;
    }
    res->end = st == PKCHECK_OK ? pos : 0;
    res->at = off;
    res->peak = c.peak;
    free(c.stack);
    free(c.marks);
    free(c.memo);
    return st;
}
