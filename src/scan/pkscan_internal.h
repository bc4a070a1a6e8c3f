/* pkscan_internal.h - what the files of the static pickle model share
 * (src/scan/pkscan*.c): the value graph (node, edge), the scanner's state,
 * the analysis' state, memory charged to the caller's cap, the small
 * accessors every pass uses (inline), and each file's entry points, in
 * layer order: a file calls only the files listed before it. The public
 * contract is scan/pkscan.h. Pure C: never Python's headers. */
#ifndef CPK_SCAN_PKSCAN_INTERNAL_H
#define CPK_SCAN_PKSCAN_INTERNAL_H

#include "scan/pkscan.h"

#include <stdint.h>
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
    /* K_LIST, K_DICT, K_SET, K_FROZENSET: sum.count = items summarised,
     * not kept as edges (plain scalars; for a dict, whole pairs whose key
     * is one: see `summable`), sum.bytes = the lengths of the strs and
     * bytes among them (each from its own opcode, so both fit the
     * input's 32 bits) */
    union {
        struct {
            uint32_t at, len; /* bytes at input + at (decbuf + at with
                                 NF_DEC) */
        } s;
        struct {
            uint32_t count, bytes;
        } sum;
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

static inline int acct_take(memacct *m, size_t k)
{
    if (m->limit && (m->used > m->limit || k > m->limit - m->used)) {
        m->hit = 1;
        return -1;
    }
    m->used += k;
    return 0;
}

static inline void acct_give(memacct *m, size_t k)
{
    m->used -= k < m->used ? k : m->used;
}

/* cpk_grow, charged to `m`, growing by half (not doubling) once past
 * 64 Ki elements: the slack of a huge array is a third, not a half. */
static inline int sgrow(memacct *m, void **arr, size_t *cap, size_t need,
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
static inline void *scalloc(memacct *m, size_t n, size_t elem)
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
    /* beside `stack`: 1 + the memo index a lazy entry was stored at or
     * fetched from, | SMEMO_GET for a GET's copy (0: none; may be stale:
     * checked against the memo), so that the node made for it later is
     * the memo's too; zeroed as it grows */
    uint32_t *smemo;
    size_t capsmemo;
    size_t op_off; /* the opcode being walked: where a failure is */
    uint32_t *marks; /* stack positions (fewer than the input's bytes) */
    size_t nmarks, capmarks;
    size_t fence;
    /* BUILDs on opaque objects, three ids each: the object, its state,
     * and how many ops it had had before (its edges, in order) */
    uint32_t *builds;
    size_t nbuilds, capbuilds;
    /* writes the state pass checks, three each: the target, the
     * opcode's offset and its byte (pkscan_walk.c note_write) */
    uint32_t *writes;
    size_t nwrites, capwrites;

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
     * bytearrays, UTF-8 strs) are pushed as LAZY | their opcode's
     * offset, without a node, and stay lazy in the memo: a node is made
     * (scalar_node) only when something keeps the value apart (an
     * operand, a tuple item, DUP, STOP; a str as a container's item or
     * a dict's key). Those that end up as items of a plain list, dict,
     * set or frozenset (a str: as a dict's value) are counted there
     * (summarised), never stored: memory follows the memo, the stack and
     * what the analysis reads, not the number of values. Off when the
     * input is 2 GiB or more (node ids use all 32 bits then). */
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
/* scanner.smemo: the entry is a memo GET's copy of the value */
#define SMEMO_GET 0x80000000u

static inline int is_lazy(const scanner *sc, uint32_t e)
{
    return sc->lazy && (e & LAZY) && e != NONE_ID;
}

/* Items of a container summarised (node.u.sum) and all its items. */
static inline uint64_t nsum(const node *nd)
{
    int k = nd->kind;
    return k == K_LIST || k == K_DICT || k == K_SET || k == K_FROZENSET
               ? nd->u.sum.count : 0;
}

/* The bytes of the strs and bytes summarised in a container. */
static inline uint64_t nsum_bytes(const node *nd)
{
    int k = nd->kind;
    return k == K_LIST || k == K_DICT || k == K_SET || k == K_FROZENSET
               ? nd->u.sum.bytes : 0;
}

static inline uint64_t nitems(const node *nd)
{
    return nd->n + nsum(nd);
}

/* The bytes of a K_STR, K_BYTES or K_BYTEARRAY node. */
static inline void node_bytes(const scanner *sc, uint32_t id, const char **p,
                       size_t *len)
{
    const node *nd = &sc->nodes[id];
    *p = (nd->flags & NF_DEC ? sc->decbuf : (const char *)sc->d) +
         nd->u.s.at;
    *len = nd->u.s.len;
}

static inline int node_is_str(const scanner *sc, uint32_t id, const char **p,
                       size_t *len)
{
    if (id == NONE_ID || sc->nodes[id].kind != K_STR)
        return 0;
    node_bytes(sc, id, p, len);
    return 1;
}

static inline int str_eq(const char *p, size_t len, const char *lit)
{
    size_t l = strlen(lit);
    return l == len && (l == 0 || memcmp(p, lit, l) == 0);
}

typedef struct {
    const char *module;
    const char *name; /* NULL: the whole module and its submodules */
    const char *reason;
} name_rule;

#define NELEM(a) (sizeof(a) / sizeof *(a))

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

static inline int charge(analysis *an, size_t k)
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
static inline uint32_t aux_get(const analysis *an, uint32_t id, int tag)
{
    uint32_t v = an->aux_of[id];
    return v != 0 && v >> AUX_BITS == (uint32_t)tag
               ? v & ((UINT32_C(1) << AUX_BITS) - 1)
               : 0;
}

static inline const resolved *res_get(const analysis *an, uint32_t id)
{
    if (id == NONE_ID || an->res_of[id] == 0)
        return NULL;
    return &an->res[an->res_of[id] - 1];
}

/* Item k of a tuple/list node, NONE_ID if absent. */
static inline uint32_t item(const scanner *sc, uint32_t id, size_t k)
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

static inline int kind_of(const scanner *sc, uint32_t id)
{
    return id == NONE_ID ? -1 : sc->nodes[id].kind;
}

static inline int tuple_n(const scanner *sc, uint32_t id, size_t n)
{
    return kind_of(sc, id) == K_TUPLE && sc->nodes[id].n == n;
}

/* pkscan_mem.c */
void *pkscan_arena_alloc(arena *ar, size_t n, size_t align);
void pkscan_arena_free(arena *ar);
int pkscan_fail(scanner *sc, pkscan_status st, size_t off, const char *fmt,
    ...);
int pkscan_nomem(scanner *sc, size_t off);
char *pkscan_rep_strdup(report_impl *r, const char *p, size_t n);

/* pkscan_walk.c */
void pkscan_walk(scanner *sc, size_t len);
const char *pkscan_op_name(uint8_t op);
/* Whether `m` is a Python 2 module name fix_imports maps (below protocol
 * 3) that is no Python 3 module: unmapped, it is imported from sys.path. */
int pkscan_py2_module(const char *m, size_t ml);

/* pkscan_depth.c */
int pkscan_depth_pass(scanner *sc);

/* pkscan_table.c: the closed table (its head comment defines the
 * kinds and flags) */
enum { PKT_OPAQUE = 0, PKT_NEW, PKT_VALUE };
#define PKT_WRITES0 0x1  /* the call writes into argument 0 */
#define PKT_BOUNDED 0x2  /* cost grows with the arguments' sizes */
#define PKT_DISPATCH 0x4 /* the result is argument 0's method's */

typedef struct {
    const char *module;
    const char *name;  /* dotted for a class's classmethod */
    uint8_t call;      /* what calling it returns: PKT_* */
    uint8_t newf;      /* what its new form returns: PKT_* */
    uint8_t shares;    /* bit k: the result keeps and writes argument k */
    uint8_t flags;     /* PKT_WRITES0 | PKT_BOUNDED | PKT_DISPATCH */
} pkscan_closed;

/* The row of (m, n), NULL when the name is not in the table (opaque). */
const pkscan_closed *pkscan_table_find(const char *m, size_t ml,
    const char *n, size_t nl);
/* All rows, sorted by module then name; *n is their count. */
const pkscan_closed *pkscan_table_rows(size_t *n);

/* pkscan_classify.c */
pkscan_category pkscan_categorize(const char *m, size_t ml, const char *n,
    size_t nl);
int pkscan_danger_attr(const char *p, size_t len);
const char *pkscan_danger_reason(const char *m, size_t ml, const char *n,
    size_t nl, int plain);
size_t pkscan_first_len(const char *p, size_t len);
int pkscan_in_list(const char *p, size_t len, const char *const *list,
    size_t n);
int pkscan_is_cp_module(const char *p, size_t len);
int pkscan_plain_module(const char *m, size_t ml);

/* pkscan_analyze.c */
int pkscan_aux_set(analysis *an, uint32_t id, int tag, size_t index1);
const code_info *pkscan_code_get(analysis *an, uint32_t id);
const code_info *pkscan_code_get_inline(analysis *an, uint32_t id);
pkscan_str *pkscan_copy_strs(analysis *an, const pkscan_str *src, size_t n);
uint32_t pkscan_dict_get(analysis *an, uint32_t id, int key);
void pkscan_dict_keys_list(analysis *an, uint32_t id, pkscan_str **out,
    size_t *nout);
int pkscan_imports_by_argument(const raw_import *ri);
int pkscan_is_fill_recon(const resolved *c);
const char *pkscan_join(analysis *an, const char *a, size_t al, const char *b,
    size_t bl, size_t *len);
resolved pkscan_raw_name(const raw_import *ri);
int pkscan_res_is(const resolved *r, const char *m, const char *n);
int pkscan_res_recon(const resolved *r, const char *n);
int pkscan_resolve_pass(analysis *an);
pkscan_str pkscan_rnode(analysis *an, uint32_t id);
pkscan_str pkscan_rstr(analysis *an, const char *p, size_t len);

/* pkscan_objects.c */
int pkscan_call_kind(int k);
int pkscan_makes_code(const analysis *an, const node *nd);
void pkscan_objects_pass(analysis *an);
int pkscan_own_bytecode(const analysis *an, long magic);

/* pkscan_state.c */
void pkscan_state_pass(analysis *an);
/* Whether the state pass has anything to decide: a call, a write the
 * walk kept, or a tuple used as a dict or set key. */
int pkscan_state_has_work(const scanner *sc);

/* pkscan_calls.c */
void pkscan_calls_pass(analysis *an);

/* pkscan_imports.c */
void pkscan_imports_pass(analysis *an);

/* pkscan_spans.c */
void pkscan_spans_pass(analysis *an);

#endif
