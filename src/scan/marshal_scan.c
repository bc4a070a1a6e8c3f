/* marshal_scan.c - bounded reader of marshal data (format versions 4 and
 * 5, CPython 3.9-3.14) that extracts what a code object says about itself.
 * The pickle walker that calls it is src/scan/pkscan.c; the contract is in
 * src/marshal_scan.h.
 *
 * Model: Python/marshal.c r_object(). Each object becomes a small value in
 * an arena; containers keep their items in one shared array; FLAG_REF
 * slots are numbered in the order r_object assigns them (containers and
 * code objects reserve their slot before their items). Nothing is trusted:
 * every count is checked against the bytes left before anything is
 * allocated for it, recursion is limited to CPK_MSCAN_MAX_DEPTH. */
#include "scan/marshal_scan.h"
#include "common/growarray.h"
#include "common/marshal_codes.h" /* CPK_MC_* */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
    MV_INVALID = 0, /* a reserved ref slot not filled yet */
    MV_NULL, MV_NONE, MV_SCALAR, MV_INT, MV_STR, MV_BYTES, MV_TUPLE,
    MV_OTHER, MV_CODE
};

typedef struct {
    uint8_t kind;
    long ival;       /* MV_INT */
    size_t off, len; /* MV_STR/MV_BYTES: bytes in the input; MV_TUPLE:
                        items[off .. off+len) */
} mval;

typedef struct {
    const uint8_t *d;
    size_t n, pos;
    int layout;
    mval *vals;
    size_t nvals, capvals;
    uint32_t *refs; /* ref slot -> value id */
    size_t nrefs, caprefs;
    uint32_t *items; /* container items, appended when a container ends */
    size_t nitems, capitems;
    uint32_t *work;  /* items of the containers being read */
    size_t nwork, capwork;
    int top_done;    /* the first (outermost) code object was captured */
    cpk_mcode *out;
} mreader;


static long new_val(mreader *r, uint8_t kind)
{
    if (r->nvals >= UINT32_MAX - 1)
        return -1;
    if (cpk_grow((void **)&r->vals, &r->capvals, r->nvals + 1, sizeof(mval)))
        return -1;
    mval *v = &r->vals[r->nvals];
    memset(v, 0, sizeof *v);
    v->kind = kind;
    return (long)r->nvals++;
}

static int need(mreader *r, size_t k)
{
    return r->n - r->pos >= k ? 0 : -1;
}

static int r_u8(mreader *r, uint8_t *b)
{
    if (need(r, 1))
        return -1;
    *b = r->d[r->pos++];
    return 0;
}

static int r_i32(mreader *r, long *x)
{
    if (need(r, 4))
        return -1;
    const uint8_t *p = r->d + r->pos;
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                 (uint32_t)p[3] << 24;
    r->pos += 4;
    *x = (long)(int32_t)u;
    return 0;
}

/* A length prefix: non-negative and no more than the bytes left times
 * `unit` can justify (an object takes at least one byte). */
static int r_count(mreader *r, size_t *n, int width)
{
    long x;
    if (width == 1) {
        uint8_t b;
        if (r_u8(r, &b))
            return -1;
        x = b;
    } else if (r_i32(r, &x)) {
        return -1;
    }
    if (x < 0 || (size_t)x > r->n - r->pos)
        return -1;
    *n = (size_t)x;
    return 0;
}

static long r_object(mreader *r, int depth);

/* Read `n` objects, then store them as the items of tuple value `id`. */
static int r_items(mreader *r, long id, size_t n, int depth)
{
    size_t base = r->nwork;
    for (size_t i = 0; i < n; i++) {
        long v = r_object(r, depth + 1);
        if (v < 0 || r->vals[v].kind == MV_NULL)
            return -1;
        if (cpk_grow((void **)&r->work, &r->capwork, r->nwork + 1,
                 sizeof(uint32_t)))
            return -1;
        r->work[r->nwork++] = (uint32_t)v;
    }
    if (cpk_grow((void **)&r->items, &r->capitems, r->nitems + n,
             sizeof(uint32_t)))
        return -1;
    if (n)
        memcpy(r->items + r->nitems, r->work + base, n * sizeof(uint32_t));
    r->vals[id].off = r->nitems;
    r->vals[id].len = n;
    r->nitems += n;
    r->nwork = base;
    return 0;
}

static long reserve_ref(mreader *r, int flag, long id)
{
    if (!flag)
        return 0;
    if (cpk_grow((void **)&r->refs, &r->caprefs, r->nrefs + 1, sizeof(uint32_t)))
        return -1;
    r->refs[r->nrefs++] = (uint32_t)id;
    return 0;
}

static const mval *val(mreader *r, long id)
{
    return id >= 0 ? &r->vals[id] : NULL;
}

static int get_str(mreader *r, long id, cpk_mstr *s)
{
    const mval *v = val(r, id);
    if (v == NULL || v->kind != MV_STR)
        return -1;
    s->p = r->d + v->off;
    s->len = v->len;
    return 0;
}

/* A tuple of str: its items (value ids) at *items, count at *n. */
static int get_str_tuple(mreader *r, long id, const uint32_t **items,
                         size_t *n)
{
    const mval *v = val(r, id);
    if (v == NULL || v->kind != MV_TUPLE)
        return -1;
    for (size_t i = 0; i < v->len; i++)
        if (r->vals[r->items[v->off + i]].kind != MV_STR)
            return -1;
    *items = r->items + v->off;
    *n = v->len;
    return 0;
}

static int copy_names(mreader *r, const uint32_t *ids, size_t n,
                      cpk_mstr **out, size_t *nout)
{
    if (n == 0)
        return 0;
    cpk_mstr *a = calloc(n, sizeof *a);
    if (a == NULL)
        return -1;
    for (size_t i = 0; i < n; i++)
        get_str(r, (long)ids[i], &a[i]);
    *out = a;
    *nout = n;
    return 0;
}

/* The fields of a code object (after its type byte). The outermost one's
 * are copied to r->out. */
static int r_code(mreader *r, long id, int depth)
{
    long argc, posonly, kwonly, nlocals, stacksize, flags, firstlineno;
    long code, consts, names, varnames = -1, freevars = -1, cellvars = -1;
    long lpnames = -1, lpkinds = -1, filename, name, qualname = -1;
    long linetable, exctable = -1;
    int top = !r->top_done;
    r->top_done = 1;

    if (r_i32(r, &argc) || r_i32(r, &posonly) || r_i32(r, &kwonly))
        return -1;
    if (r->layout == 310 && r_i32(r, &nlocals))
        return -1;
    if (r_i32(r, &stacksize) || r_i32(r, &flags))
        return -1;
    (void)nlocals;
    (void)stacksize;
    if ((code = r_object(r, depth + 1)) < 0 ||
        (consts = r_object(r, depth + 1)) < 0 ||
        (names = r_object(r, depth + 1)) < 0)
        return -1;
    if (r->layout == 310) {
        if ((varnames = r_object(r, depth + 1)) < 0 ||
            (freevars = r_object(r, depth + 1)) < 0 ||
            (cellvars = r_object(r, depth + 1)) < 0)
            return -1;
    } else {
        if ((lpnames = r_object(r, depth + 1)) < 0 ||
            (lpkinds = r_object(r, depth + 1)) < 0)
            return -1;
    }
    if ((filename = r_object(r, depth + 1)) < 0 ||
        (name = r_object(r, depth + 1)) < 0)
        return -1;
    if (r->layout != 310 && (qualname = r_object(r, depth + 1)) < 0)
        return -1;
    if (r_i32(r, &firstlineno))
        return -1;
    if ((linetable = r_object(r, depth + 1)) < 0)
        return -1;
    if (r->layout != 310 && (exctable = r_object(r, depth + 1)) < 0)
        return -1;
    (void)code; (void)consts; (void)names; (void)cellvars;
    (void)linetable; (void)exctable;
    r->vals[id].kind = MV_CODE;
    if (!top)
        return 0;

    /* Like CPython's code constructor, refuse nonsense counts. */
    if (argc < 0 || posonly < 0 || kwonly < 0 || posonly > argc)
        return -1;
    cpk_mcode *o = r->out;
    o->layout = r->layout;
    o->argcount = argc;
    o->posonlyargcount = posonly;
    o->kwonlyargcount = kwonly;
    o->flags = flags;
    o->firstlineno = firstlineno;
    if (get_str(r, name, &o->name) || get_str(r, filename, &o->filename))
        return -1;
    if (qualname >= 0 && get_str(r, qualname, &o->qualname))
        return -1;
    size_t nparams = (size_t)argc + (size_t)kwonly + ((flags & 0x04) != 0) +
                     ((flags & 0x08) != 0);
    const uint32_t *vn;
    size_t nvn;
    if (r->layout == 310) {
        const uint32_t *fv;
        size_t nfv;
        if (get_str_tuple(r, varnames, &vn, &nvn) ||
            get_str_tuple(r, freevars, &fv, &nfv))
            return -1;
        if (nparams > nvn)
            return -1;
        if (copy_names(r, vn, nparams, &o->params, &o->n_params) ||
            copy_names(r, fv, nfv, &o->freevars, &o->n_freevars))
            return -1;
    } else {
        const mval *k = val(r, lpkinds);
        if (get_str_tuple(r, lpnames, &vn, &nvn) || k == NULL ||
            k->kind != MV_BYTES || k->len != nvn || nparams > nvn)
            return -1;
        if (copy_names(r, vn, nparams, &o->params, &o->n_params))
            return -1;
        size_t nfree = 0;
        const uint8_t *kinds = r->d + k->off;
        for (size_t i = 0; i < nvn; i++)
            nfree += (kinds[i] & 0x80) != 0; /* CO_FAST_FREE */
        if (nfree) {
            o->freevars = calloc(nfree, sizeof(cpk_mstr));
            if (o->freevars == NULL)
                return -1;
            for (size_t i = 0; i < nvn; i++)
                if (kinds[i] & 0x80)
                    get_str(r, (long)vn[i], &o->freevars[o->n_freevars++]);
        }
    }
    return 0;
}

/* One object: a value id (>= 0), or -1 on malformed data. TYPE_NULL gives
 * a MV_NULL value (a dict terminator; an error anywhere else). */
static long r_object(mreader *r, int depth)
{
    uint8_t code;
    if (depth > CPK_MSCAN_MAX_DEPTH || r_u8(r, &code))
        return -1;
    int flag = (code & CPK_MC_FLAG_REF) != 0;
    uint8_t type = code & CPK_MC_TYPE_MASK;
    long id;
    size_t n;
    long x;

    switch (type) {
    case CPK_MC_NULL: /* no value, no ref slot */
        return new_val(r, MV_NULL);
    case CPK_MC_NONE:
        if ((id = new_val(r, MV_NONE)) < 0 || reserve_ref(r, flag, id))
            return -1;
        return id;
    case CPK_MC_FALSE: case CPK_MC_TRUE: case CPK_MC_STOPITER:
    case CPK_MC_ELLIPSIS:
        if ((id = new_val(r, MV_SCALAR)) < 0 || reserve_ref(r, flag, id))
            return -1;
        return id;
    case CPK_MC_INT:
        if (r_i32(r, &x) || (id = new_val(r, MV_INT)) < 0)
            return -1;
        r->vals[id].ival = x;
        return reserve_ref(r, flag, id) ? -1 : id;
    case CPK_MC_LONG: { /* count of 15-bit digits, sign in the count */
        if (r_i32(r, &x) || x < -(1L << 30) || x > (1L << 30))
            return -1;
        size_t nd = (size_t)(x < 0 ? -x : x);
        if (need(r, nd * 2))
            return -1;
        for (size_t i = 0; i < nd; i++) {
            unsigned dg = r->d[r->pos + 2 * i] | r->d[r->pos + 2 * i + 1] << 8;
            if (dg >= 0x8000) /* "digit out of range in long" */
                return -1;
        }
        r->pos += nd * 2;
        if ((id = new_val(r, MV_SCALAR)) < 0)
            return -1;
        return reserve_ref(r, flag, id) ? -1 : id;
    }
    case CPK_MC_FLOAT: case CPK_MC_COMPLEX: {
        /* text float; complex is two of them */
        for (int k = 0; k < (type == CPK_MC_COMPLEX ? 2 : 1); k++) {
            if (r_count(r, &n, 1) || need(r, n))
                return -1;
            r->pos += n;
        }
        if ((id = new_val(r, MV_SCALAR)) < 0)
            return -1;
        return reserve_ref(r, flag, id) ? -1 : id;
    }
    case CPK_MC_BINARY_FLOAT: case CPK_MC_BINARY_COMPLEX:
        if (need(r, type == CPK_MC_BINARY_FLOAT ? 8 : 16))
            return -1;
        r->pos += type == CPK_MC_BINARY_FLOAT ? 8 : 16;
        if ((id = new_val(r, MV_SCALAR)) < 0)
            return -1;
        return reserve_ref(r, flag, id) ? -1 : id;
    case CPK_MC_STRING: case CPK_MC_UNICODE: case CPK_MC_INTERNED:
    case CPK_MC_ASCII: case CPK_MC_ASCII_INTERNED: case CPK_MC_SHORT_ASCII:
    case CPK_MC_SHORT_ASCII_INTERNED: {
        int width = (type == CPK_MC_SHORT_ASCII ||
                     type == CPK_MC_SHORT_ASCII_INTERNED) ? 1 : 4;
        if (r_count(r, &n, width) || need(r, n))
            return -1;
        if ((id = new_val(r, type == CPK_MC_STRING ? MV_BYTES : MV_STR)) < 0)
            return -1;
        r->vals[id].off = r->pos;
        r->vals[id].len = n;
        r->pos += n;
        return reserve_ref(r, flag, id) ? -1 : id;
    }
    case CPK_MC_REF:
        if (r_i32(r, &x) || x < 0 || (size_t)x >= r->nrefs)
            return -1;
        id = (long)r->refs[x];
        if (r->vals[id].kind == MV_INVALID) /* a code object being read */
            return -1;
        return id;
    case CPK_MC_TUPLE: case CPK_MC_SMALL_TUPLE: case CPK_MC_LIST:
    case CPK_MC_SET: case CPK_MC_FROZENSET: {
        if (r_count(r, &n, type == CPK_MC_SMALL_TUPLE ? 1 : 4))
            return -1;
        /* A tuple is readable (through a ref) while its items are read;
         * a frozenset's slot is only filled at the end. */
        if ((id = new_val(r, type == CPK_MC_FROZENSET ? MV_INVALID
                                                      : MV_TUPLE)) < 0 ||
            reserve_ref(r, flag, id))
            return -1;
        if (r_items(r, id, n, depth))
            return -1;
        r->vals[id].kind = (type == CPK_MC_TUPLE || type == CPK_MC_SMALL_TUPLE)
                               ? MV_TUPLE
                               : MV_OTHER;
        return id;
    }
    case CPK_MC_DICT: /* key/value pairs up to TYPE_NULL */
        if ((id = new_val(r, MV_OTHER)) < 0 || reserve_ref(r, flag, id))
            return -1;
        for (;;) {
            long k = r_object(r, depth + 1);
            if (k < 0)
                return -1;
            if (r->vals[k].kind == MV_NULL)
                break;
            long v = r_object(r, depth + 1);
            if (v < 0 || r->vals[v].kind == MV_NULL)
                return -1;
        }
        return id;
    case CPK_MC_SLICE: { /* marshal version 5, 3.14 */
        if ((id = new_val(r, MV_INVALID)) < 0 || reserve_ref(r, flag, id))
            return -1;
        for (int k = 0; k < 3; k++) {
            long v = r_object(r, depth + 1);
            if (v < 0 || r->vals[v].kind == MV_NULL)
                return -1;
        }
        r->vals[id].kind = MV_OTHER;
        return id;
    }
    case CPK_MC_CODE:
        if ((id = new_val(r, MV_INVALID)) < 0 || reserve_ref(r, flag, id))
            return -1;
        if (r_code(r, id, depth))
            return -1;
        return id;
    default: /* includes CPK_MC_UNKNOWN */
        return -1;
    }
}

const char *cpk_mscan_version(long magic)
{
    /* Ranges of Lib/importlib/_bootstrap_external.py's magic history. */
    if (magic >= 3400 && magic <= 3425) return "3.9";
    if (magic >= 3430 && magic <= 3439) return "3.10";
    if (magic >= 3450 && magic <= 3495) return "3.11";
    if (magic >= 3500 && magic <= 3531) return "3.12";
    if (magic >= 3550 && magic <= 3571) return "3.13";
    if (magic >= 3600 && magic <= 3699) return "3.14";
    return NULL;
}

void cpk_mscan_free(cpk_mcode *c)
{
    free(c->params);
    free(c->freevars);
    memset(c, 0, sizeof *c);
}

int cpk_mscan_code(const uint8_t *data, size_t len, long magic,
                   cpk_mcode *out)
{
    memset(out, 0, sizeof *out);
    const char *v = cpk_mscan_version(magic);
    if (v == NULL || (data == NULL && len))
        return 0;
    mreader r;
    memset(&r, 0, sizeof r);
    r.d = data;
    r.n = len;
    r.layout = (strcmp(v, "3.9") == 0 || strcmp(v, "3.10") == 0) ? 310 : 311;
    r.out = out;
    int ok = 0;
    if (len > 0 && (data[0] & CPK_MC_TYPE_MASK) == CPK_MC_CODE) {
        long id = r_object(&r, 0);
        ok = id >= 0 && r.vals[id].kind == MV_CODE && r.pos == r.n;
    }
    free(r.vals);
    free(r.refs);
    free(r.items);
    free(r.work);
    if (!ok)
        cpk_mscan_free(out);
    return ok;
}
