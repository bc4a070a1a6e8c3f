/* pkscan_analyze.c - the base of the analysis: the name each node stands
 * for (resolve_pass), dict lookups, code objects read from their fields
 * or their marshal bytes, and the strings the report keeps. The passes
 * over functions and classes (pkscan_objects.c), the code the load runs
 * (pkscan_calls.c), the imports (pkscan_imports.c) and the spans
 * (pkscan_spans.c) build on it. */
#include "scan/pkscan_internal.h"
#include "scan/marshal_scan.h" /* cpk_mscan_code */
#include "common/pickle_ops.h"     /* CPK_OP_* */

/* The most attributes a getattr chain's name may hold and still be
 * resolved (`Outer.Inner.method` holds 3). */
#define MAX_ATTR_PATH 16

static const char *const dict_keys[DK_NKEYS] = {
    "__globals__", "__closure__", "__defaults__", "__kwdefaults__",
    "__name__", "__qualname__", "__module__",
};

int pkscan_aux_set(analysis *an, uint32_t id, int tag, size_t index1)
{
    if (index1 >= (UINT32_C(1) << AUX_BITS))
        return -1;
    an->aux_of[id] = (uint32_t)tag << AUX_BITS | (uint32_t)index1;
    return 0;
}

int pkscan_res_is(const resolved *r, const char *m, const char *n)
{
    return r && !r->is_module && str_eq(r->m, r->ml, m) &&
           str_eq(r->n, r->nl, n);
}

/* A reconstructor of ccloudpickle or cloudpickle named `n`. */
int pkscan_res_recon(const resolved *r, const char *n)
{
    return r && !r->is_module &&
           (str_eq(r->m, r->ml, "ccloudpickle") || pkscan_is_cp_module(r->m, r->ml)) &&
           str_eq(r->n, r->nl, n);
}

static int set_res(analysis *an, uint32_t id, resolved v)
{
    if (sgrow(an->sc->acct, (void **)&an->res, &an->capres, an->nres + 1,
              sizeof(resolved)))
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
    if (pkscan_aux_set(an, id, AUX_DSUM, an->ndsums)) {
        an->oom = 1;
        return NULL;
    }
    return ds;
}

uint32_t pkscan_dict_get(analysis *an, uint32_t id, int key)
{
    const dict_summary *ds = dict_sum(an, id);
    return ds ? ds->v[key] : NONE_ID;
}

/* Joined "a.b" in scan memory. */
const char *pkscan_join(analysis *an, const char *a, size_t al, const char *b,
                        size_t bl, size_t *len)
{
    char *o = pkscan_arena_alloc(&an->sc->dec, al + bl + 2, 1);
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
    int en = pkscan_res_recon(c, "_make_skeleton_enum");
    if (!en && !pkscan_res_recon(c, "_make_skeleton_class"))
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
            !(str_eq(r->m, r->ml, "builtins") || str_eq(r->m, r->ml,
                                                        "enum")) ||
            !pkscan_in_list(r->n, r->nl, lookup_safe_bases,
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
int pkscan_is_fill_recon(const resolved *c)
{
    return pkscan_res_recon(c, "_function_fill") ||
           pkscan_res_recon(c, "_function_setstate") ||
           pkscan_res_recon(c, "_class_setstate") || pkscan_res_recon(c, "_module_fill") ||
           pkscan_res_recon(c, "_singledispatch_fill");
}

/* The name a raw import lists, as a resolution. */
resolved pkscan_raw_name(const raw_import *ri)
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
int pkscan_imports_by_argument(const raw_import *ri)
{
    resolved r = pkscan_raw_name(ri);
    return ri->via != PKSCAN_VIA_SUBIMPORT &&
           ri->via != PKSCAN_VIA_BUILTIN_TYPE && r.m != NULL &&
           r.n != NULL &&
           (pkscan_res_recon(&r, "subimport") ||
            pkscan_res_recon(&r, "_module_reconstructor") ||
            pkscan_res_recon(&r, "_builtin_type") ||
            pkscan_res_recon(&r, "_builtin_type_reconstructor") ||
            pkscan_res_recon(&r, "_function_make") || is_codec_call(&r) ||
            pkscan_is_fill_recon(&r));
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

/* A raw import of node `id`, where and how made still to fill. */
static raw_import raw_of(const node *nd, uint32_t id)
{
    raw_import ri;
    memset(&ri, 0, sizeof ri);
    ri.off = nd->off;
    ri.node = id;
    return ri;
}

/* A GLOBAL, STACK_GLOBAL or INST: the name it imports, as written. */
static int resolve_global(analysis *an, uint32_t id, const node *nd)
{
    scanner *sc = an->sc;
    raw_import ri = raw_of(nd, id);
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
    return 0;
}

/* A REDUCE whose callable is named: what it imports or looks up
 * (__import__, getattr, subimport, _builtin_type), and the uses of its
 * callable recognised as harmless (an->recog). */
static int resolve_call(analysis *an, uint32_t id, const node *nd)
{
    scanner *sc = an->sc;
    raw_import ri = raw_of(nd, id);
    const resolved *c = res_get(an, nd->a);
    uint32_t args = nd->b;
    const char *p, *q;
    size_t l, ql;
    if (c == NULL || kind_of(sc, args) != K_TUPLE)
        return 0;
    resolved r = {0};
    if (pkscan_res_recon(c, "_function_make")) {
        /* its modules, listed here; used otherwise (computed
         * names) it stays dangerous, as subimport does */
        int ok = function_make_modules(an, args);
        if (ok < 0)
            return -1;
        an->recog[nd->a] += ok;
        return 0;
    }
    if (pkscan_is_fill_recon(c)) {
        /* seen with its target and state: C_FILL judges it */
        an->recog[nd->a]++;
        return 0;
    }
    if (is_codec_call(c)) {
        /* protocol 2's bytes: _codecs.encode(s, "latin1") */
        uint32_t enc = item(sc, args, 1);
        if (tuple_n(sc, args, 1) ||
            (node_is_str(sc, enc, &p, &l) &&
             pkscan_in_list(p, l, loaded_codecs, NELEM(loaded_codecs))))
            an->recog[nd->a]++;
        return 0;
    }
    if (pkscan_res_is(c, "builtins", "__import__") &&
        node_is_str(sc, item(sc, args, 0), &p, &l)) {
        uint32_t from = item(sc, args, 3);
        int kf = kind_of(sc, from);
        r.m = p;
        r.ml = (kf == K_TUPLE || kf == K_LIST) &&
                       nitems(&sc->nodes[from])
                   ? l : pkscan_first_len(p, l);
        r.n = "";
        r.is_module = 1;
        an->recog[nd->a]++;
        if (set_res(an, id, r) ||
            sgrow(an->sc->acct, (void **)&an->imp_nodes, &an->capimp,
                  an->nimp + 1,
                 sizeof(uint32_t)))
            return -1;
        an->imp_nodes[an->nimp++] = id;
        return 0; /* listed through the getattr that uses it */
    } else if (pkscan_res_is(c, "builtins", "getattr") && tuple_n(sc, args, 2) &&
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
             * dangerous) when it runs out, or past MAX_ATTR_PATH
             * attributes (each name's check looks at each suffix:
             * without a bound, a long chain costs its square) */
            size_t dots = 0;
            for (size_t i = 0; i < o->nl; i++)
                dots += o->n[i] == '.';
            if (dots + 1 >= MAX_ATTR_PATH || charge(an, o->nl + ql + 2))
                return 0;
            r.n = pkscan_join(an, o->n, o->nl, q, ql, &r.nl);
            if (r.n == NULL)
                return -1;
        }
        an->recog[nd->a]++;
        an->recog[item(sc, args, 0)]++;
        ri.via = PKSCAN_VIA_GETATTR;
    } else if (pkscan_res_is(c, "builtins", "getattr") &&
               tuple_n(sc, args, 2) &&
               node_is_str(sc, item(sc, args, 1), &q, &ql) &&
               !pkscan_danger_attr(q, ql) &&
               lookup_target_ok(an, item(sc, args, 0), q, ql)) {
        /* getattr(<class carried by value>, "RED") (a member of
         * an enum by value), getattr([], "append"): a constant,
         * harmless attribute of something whose type is known:
         * nothing to import, and getattr is used harmlessly */
        an->recog[nd->a]++;
        an->recog[item(sc, args, 0)]++;
        return 0;
    } else if (pkscan_res_is(c, "ccloudpickle", "__getattr__") &&
               tuple_n(sc, args, 1) &&
               node_is_str(sc, item(sc, args, 0), &q, &ql)) {
        /* the module's __getattr__ (PEP 562) called on a literal name:
         * getattr(ccloudpickle, name), a format marker included */
        an->recog[nd->a]++;
        r.m = "ccloudpickle";
        r.ml = sizeof "ccloudpickle" - 1;
        r.n = q;
        r.nl = ql;
        ri.via = PKSCAN_VIA_GETATTR;
    } else if ((pkscan_res_recon(c, "subimport") ||
                pkscan_res_recon(c, "_module_reconstructor")) &&
               node_is_str(sc, item(sc, args, 0), &p, &l)) {
        an->recog[nd->a]++;
        r.m = p;
        r.ml = l;
        r.n = "";
        r.is_module = 1;
        ri.via = PKSCAN_VIA_SUBIMPORT;
    } else if ((pkscan_res_recon(c, "_builtin_type") ||
                pkscan_res_recon(c, "_builtin_type_reconstructor")) &&
               node_is_str(sc, item(sc, args, 0), &p, &l)) {
        an->recog[nd->a]++;
        int ct = str_eq(p, l, "ClassType");
        r.m = ct ? "builtins" : "types";
        r.ml = strlen(r.m);
        r.n = ct ? "type" : p;
        r.nl = ct ? 4 : l;
        ri.via = PKSCAN_VIA_BUILTIN_TYPE;
        ri.cat = pkscan_categorize(c->m, c->ml, c->n, c->nl);
    } else {
        return 0;
    }
    if (set_res(an, id, r))
        return -1;
    ri.m = r.m; ri.ml = r.ml; ri.n = r.n; ri.nl = r.nl;
    if (add_raw(an, ri))
        return -1;
    return 0;
}

/* A shared object changed in place: an import (a module, a class,
 * a function), a getattr of one, or what logging.getLogger or
 * __import__ return (NF_MODIFIED): the import that yields it. */
static void resolve_modified(analysis *an)
{
    scanner *sc = an->sc;
    for (size_t i = 0; i < sc->nnodes; i++) {
        node *nd = &sc->nodes[i];
        if (nd->kind != K_REDUCE || !(nd->flags & NF_MODIFIED) ||
            nd->a == NONE_ID)
            continue;
        const resolved *c = res_get(an, nd->a);
        if (pkscan_res_is(c, "logging", "getLogger") ||
            pkscan_res_is(c, "builtins", "__import__"))
            sc->nodes[nd->a].flags |= NF_MODIFIED;
    }
    for (size_t i = 0; i < an->nraw; i++)
        if (sc->nodes[an->raw[i].node].flags & NF_MODIFIED)
            an->raw[i].modified = 1;
}

/* Which imports stay dangerous for a use the scan did not recognise. */
static void resolve_unrecognised(analysis *an)
{
    scanner *sc = an->sc;
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
            pkscan_imports_by_argument(ri))
            ri->unrecognised = 1; /* cleared below per node */
    }
    for (size_t i = 0; i < an->nraw; i++) {
        raw_import *ri = &an->raw[i];
        if (ri->unrecognised &&
            sc->nodes[ri->node].refs == an->recog[ri->node])
            ri->unrecognised = 0;
    }
}

/* Pass 1: what each node names; the raw import list. */
int pkscan_resolve_pass(analysis *an)
{
    scanner *sc = an->sc;
    for (size_t i = 0; i < sc->nnodes; i++) {
        const node *nd = &sc->nodes[i];
        uint32_t id = (uint32_t)i;
        raw_import ri = raw_of(nd, id);
        if (nd->kind == K_GLOBAL) {
            if (resolve_global(an, id, nd))
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
            if (resolve_call(an, id, nd))
                return -1;
        }
    }
    resolve_modified(an);
    resolve_unrecognised(an);
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
    pkscan_str *a = pkscan_arena_alloc(&sc->dec, count * sizeof *a,
                                       sizeof(void *));
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
    pkscan_param *pp = pkscan_arena_alloc(&an->sc->dec, np * sizeof *pp,
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
    size_t nnames = 0;
    if (names_from_tuple(an, f[ivn], (size_t)nvn, &names, &nnames))
        return -1;
    return make_params(an, ci, names, nnames, v[0], v[1], v[2], v[3]);
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
    size_t nparams = mc.n_params, nf = mc.n_freevars;
    pkscan_str *names = NULL;
    if (nparams + nf) {
        names = pkscan_arena_alloc(&an->sc->dec,
                                   (nparams + nf) * sizeof *names,
                                   sizeof(void *));
        if (names == NULL)
            goto done;
        for (size_t i = 0; i < nparams; i++) {
            names[i].s = (const char *)mc.params[i].p;
            names[i].len = mc.params[i].len;
        }
        for (size_t i = 0; i < nf; i++) {
            names[nparams + i].s = (const char *)mc.freevars[i].p;
            names[nparams + i].len = mc.freevars[i].len;
        }
    }
    ci->freevars = nf ? names + nparams : NULL;
    ci->n_freevars = nf;
    rc = make_params(an, ci, names, nparams, mc.argcount, mc.posonlyargcount,
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
const code_info *pkscan_code_get(analysis *an, uint32_t id)
{
    scanner *sc = an->sc;
    if (kind_of(sc, id) != K_REDUCE)
        return NULL;
    if (aux_get(an, id, AUX_CODE))
        return &an->codes[aux_get(an, id, AUX_CODE) - 1];
    const resolved *c = res_get(an, sc->nodes[id].a);
    int made = pkscan_res_recon(c, "_code_unmarshal")  ? MADE_UNMARSHAL
               : pkscan_res_recon(c, "_code_portable") ? MADE_PORTABLE
               : pkscan_res_recon(c, "_code_new")      ? MADE_NEW
               : pkscan_res_is(c, "types", "CodeType") ? MADE_FIELDS
                                                : MADE_OTHER;
    return code_read(an, id, made, sc->nodes[id].b);
}

/* `_function_make`'s code: a code node, or the tuple (python_version,
 * magic, data) the reconstructor unmarshals as _code_unmarshal does. */
const code_info *pkscan_code_get_inline(analysis *an, uint32_t id)
{
    if (kind_of(an->sc, id) != K_TUPLE)
        return pkscan_code_get(an, id);
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
    if (rc < 0 || sgrow(an->sc->acct, (void **)&an->codes, &an->capcodes,
                        an->ncodes + 1,
                       sizeof(code_info))) {
        an->oom = 1;
        return NULL;
    }
    an->codes[an->ncodes++] = ci;
    if (pkscan_aux_set(an, id, AUX_CODE, an->ncodes)) {
        an->oom = 1;
        return NULL;
    }
    return &an->codes[an->ncodes - 1];
}

/* --- report strings ------------------------------------------------------ */

pkscan_str pkscan_rstr(analysis *an, const char *p, size_t len)
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
    char *c = pkscan_rep_strdup(an->rep, p, len);
    if (c == NULL) {
        an->oom = 1;
        return s;
    }
    s.s = c;
    s.len = len;
    return s;
}

pkscan_str pkscan_rnode(analysis *an, uint32_t id)
{
    const char *p = NULL;
    size_t l = 0;
    node_is_str(an->sc, id, &p, &l);
    return pkscan_rstr(an, p, l);
}

/* Keys (str) of dict `id` into a report array. */
void pkscan_dict_keys_list(analysis *an, uint32_t id, pkscan_str **out,
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
    pkscan_str *a = pkscan_arena_alloc(&an->rep->mem, n * sizeof *a,
                                       sizeof(void *));
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
            a[k++] = pkscan_rnode(an, key);
    }
    *out = a;
    *nout = k;
}

pkscan_str *pkscan_copy_strs(analysis *an, const pkscan_str *src, size_t n)
{
    if (n == 0)
        return NULL;
    if (charge(an, n))
        return NULL;
    pkscan_str *a = pkscan_arena_alloc(&an->rep->mem, n * sizeof *a,
                                       sizeof(void *));
    if (a == NULL) {
        an->oom = 1;
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        a[i] = pkscan_rstr(an, src[i].s, src[i].len);
    return a;
}
