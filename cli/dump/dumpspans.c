/* dumpspans.c - the bytes of each part carried by value in a pickle
 * (dumpspans.h): a walk of the opcodes with a model of the unpickler's
 * stack that keeps, for each value, where the opcodes that built it start
 * and what little is needed to recognise the reconstructors (strings,
 * imported names, the first two items of a tuple, which part a value is).
 * The full static model of a pickle, for untrusted input, is
 * src/scan/pkscan.c; this one only measures what this program wrote. */
#include "dump/dumpspans.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/pickle_ops.h" /* CPK_OP_* */

enum {
    A_OTHER,
    A_STR,    /* s: the text (str operands of STACK_GLOBAL, names) */
    A_GLOBAL, /* s.n: an imported name */
    A_MODULE, /* s: what __import__(s, ...) returns */
    A_PART,   /* part: an object carried by value */
};

typedef struct {
    int kind;
    const unsigned char *s, *n;
    size_t sl, nl;
    long part;
} atom;

typedef struct {
    size_t start; /* first byte of the opcodes that built it */
    atom a;
    atom item[2]; /* a tuple's first two items */
    size_t nitems;
    int is_tuple;
} slot;

typedef struct {
    long part;
    size_t lo, hi;
    int create; /* the part's creating call */
} range;

typedef struct {
    const unsigned char *d;
    size_t n, pos;
    slot *stack;
    size_t nstack, capstack;
    size_t *marks;    /* stack depth at each MARK */
    size_t *mark_off; /* ... and the MARK's offset */
    size_t nmarks, capmarks, capmarkoff;
    slot *memo;
    unsigned char *memo_set;
    size_t capmemo, capmemoset;
    size_t memo_next; /* MEMOIZE's index */
    range *ranges;
    size_t nranges, capranges;
    cpk_spans *out;
    size_t capparts;
    const char *err;
    size_t err_off;
    int nomem;
} walker;

static int
grow(walker *w, void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2 / elem) {
            w->nomem = 1;
            return -1;
        }
        ncap *= 2;
    }
    void *p = realloc(*arr, ncap * elem);
    if (p == NULL) {
        w->nomem = 1;
        return -1;
    }
    memset((char *)p + *cap * elem, 0, (ncap - *cap) * elem);
    *arr = p;
    *cap = ncap;
    return 0;
}

static int
bad(walker *w, size_t at, const char *why)
{
    if (w->err == NULL) {
        w->err = why;
        w->err_off = at;
    }
    return -1;
}

static int
push(walker *w, const slot *s)
{
    if (grow(w, (void **)&w->stack, &w->capstack, w->nstack + 1,
             sizeof(slot)) < 0)
        return -1;
    w->stack[w->nstack++] = *s;
    return 0;
}

static int
push_other(walker *w, size_t start)
{
    slot s = {.start = start, .a = {.kind = A_OTHER, .part = -1}};
    return push(w, &s);
}

/* The depth below which the innermost MARK fences the stack. */
static size_t
fence(const walker *w)
{
    return w->nmarks ? w->marks[w->nmarks - 1] : 0;
}

static int
pop(walker *w, size_t at, slot *s)
{
    if (w->nstack <= fence(w))
        return bad(w, at, "stack underflow");
    *s = w->stack[--w->nstack];
    return 0;
}

/* Pop to the innermost MARK: the items are stack[*first .. nstack), still
 * readable until the next push; *mark_at is the MARK's offset. */
static int
pop_mark(walker *w, size_t at, size_t *first, size_t *mark_at)
{
    if (w->nmarks == 0)
        return bad(w, at, "no MARK");
    w->nmarks--;
    *first = w->marks[w->nmarks];
    *mark_at = w->mark_off[w->nmarks];
    w->nstack = *first;
    return 0;
}

/* Read n bytes of argument. */
static int
take(walker *w, size_t at, size_t n, const unsigned char **p)
{
    if (n > w->n - w->pos)
        return bad(w, at, "truncated");
    *p = w->d + w->pos;
    w->pos += n;
    return 0;
}

static uint64_t
le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* A length-prefixed argument: `lenbytes` little-endian bytes, then the
 * data. */
static int
take_counted(walker *w, size_t at, int lenbytes, const unsigned char **p,
             size_t *len)
{
    const unsigned char *q;
    if (take(w, at, (size_t)lenbytes, &q) < 0)
        return -1;
    uint64_t v = le(q, lenbytes);
    if (lenbytes == 4 && (v & 0x80000000u))
        return bad(w, at, "negative length");
    if (v > w->n - w->pos)
        return bad(w, at, "truncated");
    *len = (size_t)v;
    return take(w, at, *len, p);
}

/* A newline-terminated argument, without the newline. */
static int
take_line(walker *w, size_t at, const unsigned char **p, size_t *len)
{
    const unsigned char *nl = memchr(w->d + w->pos, '\n', w->n - w->pos);
    if (nl == NULL)
        return bad(w, at, "truncated");
    *p = w->d + w->pos;
    *len = (size_t)(nl - *p);
    w->pos += *len + 1;
    return 0;
}

static int
eq(const unsigned char *s, size_t len, const char *lit)
{
    return s != NULL && strlen(lit) == len && memcmp(s, lit, len) == 0;
}

static int
is_global(const atom *a, const char *mod, const char *name)
{
    return a->kind == A_GLOBAL && eq(a->s, a->sl, mod) &&
           eq(a->n, a->nl, name);
}

/* A reconstructor of ccloudpickle or of stock cloudpickle named `name`. */
static int
is_recon(const atom *a, const char *name)
{
    if (a->kind != A_GLOBAL || !eq(a->n, a->nl, name))
        return 0;
    return eq(a->s, a->sl, "ccloudpickle") ||
           eq(a->s, a->sl, "cloudpickle") ||
           eq(a->s, a->sl, "cloudpickle.cloudpickle") ||
           eq(a->s, a->sl, "cloudpickle.cloudpickle_fast");
}

static int
is_builtin(const atom *a, const char *name)
{
    /* protocols 0-2 write builtins as __builtin__ (fix_imports) */
    return is_global(a, "builtins", name) ||
           is_global(a, "__builtin__", name);
}

static long
add_range(walker *w, long part, size_t lo, size_t hi, int create)
{
    if (grow(w, (void **)&w->ranges, &w->capranges, w->nranges + 1,
             sizeof(range)) < 0)
        return -1;
    w->ranges[w->nranges] = (range){part, lo, hi, create};
    return (long)w->nranges++;
}

static long
add_part(walker *w, cpk_part_kind kind, size_t create)
{
    cpk_spans *o = w->out;
    if (grow(w, (void **)&o->parts, &w->capparts, o->nparts + 1,
             sizeof(cpk_span_part)) < 0)
        return -1;
    o->parts[o->nparts] = (cpk_span_part){.kind = kind, .create = create,
                                           .parent = -1};
    return (long)o->nparts++;
}

/* REDUCE at `at` of callable c with arguments t: what it gives (*r), and
 * the range it opens for a part (*pending, else -1; *then_pop: a POP may
 * follow that belongs to it). */
static int
reduce(walker *w, size_t at, const slot *c, const slot *t, slot *r,
       long *pending, int *then_pop)
{
    memset(r, 0, sizeof(*r));
    r->start = c->start;
    r->a.kind = A_OTHER;
    r->a.part = -1;
    const atom *f = &c->a;
    const atom *a0 = t->is_tuple && t->nitems >= 1 ? &t->item[0] : NULL;
    const atom *a1 = t->is_tuple && t->nitems >= 2 ? &t->item[1] : NULL;
    long kind = -1;
    if (is_recon(f, "_function_new") || is_recon(f, "_function_make") ||
        is_recon(f, "_make_function") ||
        is_global(f, "types", "FunctionType") ||
        is_global(f, "types", "LambdaType"))
        kind = CPK_PART_FUNCTION;
    else if (is_recon(f, "_make_skeleton_class"))
        kind = CPK_PART_CLASS;
    else if (is_recon(f, "_make_skeleton_enum"))
        kind = CPK_PART_ENUM;
    else if (is_recon(f, "dynamic_subimport") || is_recon(f, "_module_new"))
        kind = CPK_PART_MODULE;
    if (kind >= 0) {
        long p = add_part(w, (cpk_part_kind)kind, at);
        if (p < 0)
            return -1;
        if (kind == CPK_PART_MODULE && a0 != NULL && a0->kind == A_STR) {
            w->out->parts[p].name = (const char *)a0->s;
            w->out->parts[p].name_len = a0->sl;
        }
        *pending = add_range(w, p, c->start, at + 1, 1);
        if (*pending < 0)
            return -1;
        r->a.kind = A_PART;
        r->a.part = p;
        return 0;
    }
    if ((is_recon(f, "_function_fill") || is_recon(f, "_function_setstate") ||
         is_recon(f, "_class_setstate") || is_recon(f, "_module_fill")) &&
        a0 != NULL && a0->kind == A_PART) {
        *pending = add_range(w, a0->part, c->start, at + 1, 0);
        *then_pop = 1;
        return *pending < 0 ? -1 : 0;
    }
    /* --compat names reconstructors getattr(__import__(MOD, ...), NAME),
     * and types through _builtin_type(NAME). */
    if (is_builtin(f, "getattr") && a0 != NULL && a1 != NULL &&
        a0->kind == A_MODULE && a1->kind == A_STR) {
        r->a = (atom){A_GLOBAL, a0->s, a1->s, a0->sl, a1->sl, -1};
    }
    else if (is_builtin(f, "__import__") && a0 != NULL &&
             a0->kind == A_STR) {
        r->a = (atom){A_MODULE, a0->s, NULL, a0->sl, 0, -1};
    }
    else if (is_recon(f, "_builtin_type") && a0 != NULL &&
             a0->kind == A_STR) {
        r->a = (atom){A_GLOBAL, (const unsigned char *)"types", a0->s, 5,
                      a0->sl, -1};
    }
    return 0;
}

/* A tuple of the items stack[first .. first+n), starting at `start`. */
static void
make_tuple(walker *w, size_t first, size_t n, size_t start, slot *r)
{
    memset(r, 0, sizeof(*r));
    r->start = start;
    r->a.kind = A_OTHER;
    r->a.part = -1;
    r->is_tuple = 1;
    r->nitems = n;
    for (size_t i = 0; i < n && i < 2; i++)
        r->item[i] = w->stack[first + i].a;
}

static int
memo_put(walker *w, size_t at, uint64_t idx)
{
    if (w->nstack <= fence(w))
        return bad(w, at, "memo PUT of nothing");
    if (idx > w->n)
        return bad(w, at, "memo index out of range");
    if (grow(w, (void **)&w->memo, &w->capmemo, (size_t)idx + 1,
             sizeof(slot)) < 0 ||
        grow(w, (void **)&w->memo_set, &w->capmemoset, (size_t)idx + 1, 1) <
            0)
        return -1;
    w->memo[idx] = w->stack[w->nstack - 1];
    w->memo_set[idx] = 1;
    return 0;
}

static int
memo_get(walker *w, size_t at, uint64_t idx)
{
    if (idx >= w->capmemo || !w->memo_set[idx])
        return bad(w, at, "memo GET of an index never PUT");
    slot s = w->memo[idx];
    s.start = at;
    return push(w, &s);
}

static int
parse_index(walker *w, size_t at, const unsigned char *p, size_t len,
            uint64_t *v)
{
    *v = 0;
    if (len == 0 || len > 18)
        return bad(w, at, "bad memo index");
    for (size_t i = 0; i < len; i++) {
        if (p[i] < '0' || p[i] > '9')
            return bad(w, at, "bad memo index");
        *v = *v * 10 + (uint64_t)(p[i] - '0');
    }
    return 0;
}

static int
is_memo_put(unsigned char op)
{
    return op == CPK_OP_PUT || op == CPK_OP_BINPUT ||
           op == CPK_OP_LONG_BINPUT || op == CPK_OP_MEMOIZE;
}

/* One opcode at `at` (w->pos is past the opcode byte). 1 at STOP, 0 to go
 * on, -1 on error. */
static int
step(walker *w, size_t at, unsigned char op, long *pending, int *then_pop)
{
    const unsigned char *p;
    size_t len, first, mark_at;
    slot a, b, c, r;
    switch (op) {
    case CPK_OP_STOP:
        return 1;
    case CPK_OP_PROTO:
        return take(w, at, 1, &p);
    case CPK_OP_FRAME:
        return take(w, at, 8, &p);
    case CPK_OP_MARK:
        if (grow(w, (void **)&w->marks, &w->capmarks, w->nmarks + 1,
                 sizeof(size_t)) < 0 ||
            grow(w, (void **)&w->mark_off, &w->capmarkoff, w->nmarks + 1,
                 sizeof(size_t)) < 0)
            return -1;
        w->marks[w->nmarks] = w->nstack;
        w->mark_off[w->nmarks++] = at;
        return 0;
    case CPK_OP_POP: /* an item, or the MARK when none is above it */
        if (w->nstack > fence(w)) {
            w->nstack--;
            return 0;
        }
        return pop_mark(w, at, &first, &mark_at);
    case CPK_OP_POP_MARK:
        return pop_mark(w, at, &first, &mark_at);
    case CPK_OP_DUP:
        if (w->nstack <= fence(w))
            return bad(w, at, "stack underflow");
        a = w->stack[w->nstack - 1];
        a.start = at;
        return push(w, &a);
    case CPK_OP_NONE: case CPK_OP_NEWTRUE: case CPK_OP_NEWFALSE:
    case CPK_OP_EMPTY_DICT: case CPK_OP_EMPTY_LIST: case CPK_OP_EMPTY_SET:
    case CPK_OP_NEXT_BUFFER:
        return push_other(w, at);
    case CPK_OP_EMPTY_TUPLE:
        make_tuple(w, 0, 0, at, &r);
        return push(w, &r);
    case CPK_OP_BININT1: case CPK_OP_EXT1:
        return take(w, at, 1, &p) < 0 ? -1 : push_other(w, at);
    case CPK_OP_BININT2: case CPK_OP_EXT2:
        return take(w, at, 2, &p) < 0 ? -1 : push_other(w, at);
    case CPK_OP_BININT: case CPK_OP_EXT4:
        return take(w, at, 4, &p) < 0 ? -1 : push_other(w, at);
    case CPK_OP_BINFLOAT:
        return take(w, at, 8, &p) < 0 ? -1 : push_other(w, at);
    case CPK_OP_LONG1:
        return take_counted(w, at, 1, &p, &len) < 0 ? -1
                                                   : push_other(w, at);
    case CPK_OP_LONG4: case CPK_OP_BINSTRING: case CPK_OP_BINBYTES:
        return take_counted(w, at, 4, &p, &len) < 0 ? -1
                                                   : push_other(w, at);
    case CPK_OP_SHORT_BINSTRING: case CPK_OP_SHORT_BINBYTES:
        return take_counted(w, at, 1, &p, &len) < 0 ? -1
                                                   : push_other(w, at);
    case CPK_OP_BINBYTES8: case CPK_OP_BYTEARRAY8:
        return take_counted(w, at, 8, &p, &len) < 0 ? -1
                                                   : push_other(w, at);
    case CPK_OP_INT: case CPK_OP_LONG: case CPK_OP_FLOAT: case CPK_OP_STRING:
    case CPK_OP_PERSID:
        return take_line(w, at, &p, &len) < 0 ? -1 : push_other(w, at);
    case CPK_OP_SHORT_BINUNICODE: case CPK_OP_BINUNICODE:
    case CPK_OP_BINUNICODE8: case CPK_OP_UNICODE: {
        /* UNICODE is protocol 0's raw-unicode-escape: names are ASCII,
         * verbatim */
        int rc = op == CPK_OP_UNICODE ? take_line(w, at, &p, &len)
                 : op == CPK_OP_SHORT_BINUNICODE
                     ? take_counted(w, at, 1, &p, &len)
                 : op == CPK_OP_BINUNICODE ? take_counted(w, at, 4, &p, &len)
                                           : take_counted(w, at, 8, &p, &len);
        if (rc < 0)
            return -1;
        slot s = {.start = at, .a = {A_STR, p, NULL, len, 0, -1}};
        return push(w, &s);
    }
    case CPK_OP_GLOBAL: /* "module\nname\n" */
    case CPK_OP_INST: { /* the same, applied to the items since MARK */
        const unsigned char *m, *nm;
        size_t ml, nml;
        if (take_line(w, at, &m, &ml) < 0 || take_line(w, at, &nm, &nml) < 0)
            return -1;
        if (op == CPK_OP_INST) {
            if (pop_mark(w, at, &first, &mark_at) < 0)
                return -1;
            return push_other(w, mark_at);
        }
        slot s = {.start = at, .a = {A_GLOBAL, m, nm, ml, nml, -1}};
        return push(w, &s);
    }
    case CPK_OP_STACK_GLOBAL:
        if (pop(w, at, &b) < 0 || pop(w, at, &a) < 0)
            return -1;
        memset(&r, 0, sizeof(r));
        r.start = a.start;
        r.a.part = -1;
        if (a.a.kind == A_STR && b.a.kind == A_STR)
            r.a = (atom){A_GLOBAL, a.a.s, b.a.s, a.a.sl, b.a.sl, -1};
        return push(w, &r);
    case CPK_OP_REDUCE:
        if (pop(w, at, &b) < 0 || pop(w, at, &a) < 0 ||
            reduce(w, at, &a, &b, &r, pending, then_pop) < 0)
            return -1;
        return push(w, &r);
    case CPK_OP_BUILD: /* the state is set on the object below it */
        if (pop(w, at, &b) < 0)
            return -1;
        if (w->nstack <= fence(w))
            return bad(w, at, "stack underflow");
        a = w->stack[w->nstack - 1];
        if (a.a.kind == A_PART) {
            *pending = add_range(w, a.a.part, b.start, at + 1, 0);
            if (*pending < 0)
                return -1;
        }
        return 0;
    case CPK_OP_APPEND:
        if (pop(w, at, &a) < 0)
            return -1;
        return w->nstack > fence(w) ? 0 : bad(w, at, "stack underflow");
    case CPK_OP_SETITEM:
        if (pop(w, at, &b) < 0 || pop(w, at, &a) < 0)
            return -1;
        return w->nstack > fence(w) ? 0 : bad(w, at, "stack underflow");
    case CPK_OP_APPENDS: case CPK_OP_SETITEMS: case CPK_OP_ADDITEMS:
        if (pop_mark(w, at, &first, &mark_at) < 0)
            return -1;
        return w->nstack > fence(w) ? 0 : bad(w, at, "stack underflow");
    case CPK_OP_TUPLE: case CPK_OP_LIST: case CPK_OP_DICT:
    case CPK_OP_FROZENSET: case CPK_OP_OBJ: {
        /* the items since MARK, still in the array above the new top
         * until the next push */
        size_t old = w->nstack;
        if (pop_mark(w, at, &first, &mark_at) < 0)
            return -1;
        make_tuple(w, first, op == CPK_OP_TUPLE ? old - first : 0, mark_at,
                   &r);
        r.is_tuple = op == CPK_OP_TUPLE;
        return push(w, &r);
    }
    case CPK_OP_TUPLE1: case CPK_OP_TUPLE2: case CPK_OP_TUPLE3: {
        size_t k = (size_t)(op - CPK_OP_TUPLE1 + 1);
        if (w->nstack < fence(w) + k)
            return bad(w, at, "stack underflow");
        first = w->nstack - k;
        make_tuple(w, first, k, w->stack[first].start, &r);
        w->nstack = first;
        return push(w, &r);
    }
    case CPK_OP_NEWOBJ:
        if (pop(w, at, &b) < 0 || pop(w, at, &a) < 0)
            return -1;
        return push_other(w, a.start);
    case CPK_OP_NEWOBJ_EX:
        if (pop(w, at, &c) < 0 || pop(w, at, &b) < 0 || pop(w, at, &a) < 0)
            return -1;
        return push_other(w, a.start);
    case CPK_OP_BINPERSID:
        if (pop(w, at, &a) < 0)
            return -1;
        return push_other(w, a.start);
    case CPK_OP_READONLY_BUFFER:
        return w->nstack > fence(w) ? 0 : bad(w, at, "stack underflow");
    case CPK_OP_MEMOIZE:
        return memo_put(w, at, w->memo_next++);
    case CPK_OP_BINPUT:
        return take(w, at, 1, &p) < 0 ? -1 : memo_put(w, at, p[0]);
    case CPK_OP_LONG_BINPUT:
        return take(w, at, 4, &p) < 0 ? -1 : memo_put(w, at, le(p, 4));
    case CPK_OP_BINGET:
        return take(w, at, 1, &p) < 0 ? -1 : memo_get(w, at, p[0]);
    case CPK_OP_LONG_BINGET:
        return take(w, at, 4, &p) < 0 ? -1 : memo_get(w, at, le(p, 4));
    case CPK_OP_PUT: case CPK_OP_GET: {
        uint64_t idx;
        if (take_line(w, at, &p, &len) < 0 ||
            parse_index(w, at, p, len, &idx) < 0)
            return -1;
        return op == CPK_OP_PUT ? memo_put(w, at, idx) : memo_get(w, at, idx);
    }
    default:
        return bad(w, at, "unknown opcode");
    }
}

static int
by_lo(const void *x, const void *y)
{
    const range *a = x, *b = y;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi)
        return a->hi > b->hi ? -1 : 1; /* the enclosing one first */
    return 0;
}

/* Ranges nest as the pickle's expressions do: sorted by start (the longer
 * first on a tie), each lies in the innermost open range that has not
 * ended before it starts. A range's bytes count for its part and are
 * taken out of the `own` bytes of the part it lies in. */
static int
sweep(walker *w)
{
    cpk_spans *o = w->out;
    if (w->nranges == 0)
        return 0;
    qsort(w->ranges, w->nranges, sizeof(range), by_lo);
    size_t *open = malloc(w->nranges * sizeof(size_t));
    long long *own = calloc(o->nparts, sizeof(long long));
    if (open == NULL || own == NULL) {
        free(open);
        free(own);
        w->nomem = 1;
        return -1;
    }
    size_t sp = 0;
    for (size_t i = 0; i < w->nranges; i++) {
        const range *r = &w->ranges[i];
        while (sp > 0 && (w->ranges[open[sp - 1]].hi <= r->lo ||
                          w->ranges[open[sp - 1]].hi < r->hi))
            sp--; /* ended before it (or, never here, overlaps it) */
        size_t len = r->hi - r->lo;
        long in = sp > 0 ? w->ranges[open[sp - 1]].part : -1;
        if (in == r->part)
            continue; /* already counted */
        o->parts[r->part].bytes += len;
        own[r->part] += (long long)len;
        if (in >= 0)
            own[in] -= (long long)len;
        else
            o->by_value += len;
        if (r->create)
            o->parts[r->part].parent = in;
        open[sp++] = i;
    }
    for (size_t p = 0; p < o->nparts; p++)
        o->parts[p].own = own[p] > 0 ? (size_t)own[p] : 0;
    free(open);
    free(own);
    return 0;
}

int
cpk_spans_measure(const unsigned char *data, size_t len, cpk_spans *out)
{
    memset(out, 0, sizeof(*out));
    walker w = {.d = data, .n = len, .out = out};
    long pending = -1; /* the range the memo opcodes after it extend */
    int pending_pop = 0;
    int rc = 0;
    while (rc == 0) {
        if (w.pos >= w.n) {
            bad(&w, w.pos, "no STOP");
            rc = -1;
            break;
        }
        size_t at = w.pos;
        unsigned char op = w.d[w.pos++];
        long opened = -1;
        int then_pop = 0;
        rc = step(&w, at, op, &opened, &then_pop);
        if (opened >= 0) {
            pending = opened;
            pending_pop = then_pop;
        }
        else if (pending >= 0 && is_memo_put(op))
            w.ranges[pending].hi = w.pos;
        else if (pending >= 0 && op == CPK_OP_POP && pending_pop) {
            w.ranges[pending].hi = w.pos; /* the setter's None */
            pending = -1;
        }
        else
            pending = -1;
    }
    if (rc > 0)
        rc = sweep(&w);
    free(w.stack);
    free(w.marks);
    free(w.mark_off);
    free(w.memo);
    free(w.memo_set);
    free(w.ranges);
    if (rc < 0) {
        cpk_spans_free(out);
        out->by_value = 0;
        out->error = w.nomem ? "out of memory" : w.err;
        out->error_offset = w.err_off;
        return -1;
    }
    return 0;
}

void
cpk_spans_free(cpk_spans *s)
{
    free(s->parts);
    s->parts = NULL;
    s->nparts = 0;
}
