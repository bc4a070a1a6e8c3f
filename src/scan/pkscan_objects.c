/* pkscan_objects.c - the functions and classes a pickle carries by value
 * (pkscan_report.functions, .classes): their code, globals, defaults,
 * closure, bases and methods. What the load calls of them is
 * pkscan_calls.c. */
#include "scan/pkscan_internal.h"
#include "scan/marshal_scan.h" /* cpk_mscan_version */
#include "common/marshal_codes.h"  /* CPK_MC_CODE, CPK_MC_TYPE_MASK */
#include "common/pickle_ops.h"     /* CPK_OP_* */

#include <stdio.h>

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
    pkscan_aux_set(an, id, AUX_FN, an->nfns); /* fewer than PKSCAN_MAX_ITEMS */
    return f;
}

/* The function's details from its code; `inline_ok`: _function_make's,
 * which may be the tuple _code_unmarshal reads. */
static void fn_code(analysis *an, pkscan_function *f, uint32_t code,
                    int inline_ok)
{
    const code_info *ci = inline_ok ? pkscan_code_get_inline(an, code)
                                    : pkscan_code_get(an, code);
    if (ci == NULL)
        return;
    f->name = pkscan_rstr(an, ci->name, ci->namel);
    f->qualname = pkscan_rstr(an, ci->qualname, ci->qualnamel);
    f->filename = pkscan_rstr(an, ci->filename, ci->filenamel);
    f->firstlineno = ci->firstlineno;
    f->python_version = pkscan_rstr(an, ci->version, ci->versionl);
    f->magic = ci->magic;
    f->code_known = ci->known;
    f->portable = ci->portable;
    f->portable_why = pkscan_rstr(an, ci->why, ci->whyl);
    if (ci->n_params && charge(an, ci->n_params) == 0) {
        f->params = pkscan_arena_alloc(&an->rep->mem,
                                       ci->n_params * sizeof(pkscan_param),
                                       sizeof(void *));
        if (f->params == NULL) {
            an->oom = 1;
        } else {
            for (size_t i = 0; i < ci->n_params; i++) {
                f->params[i].name = pkscan_rstr(an, ci->params[i].name.s,
                                                ci->params[i].name.len);
                f->params[i].kind = ci->params[i].kind;
            }
            f->n_params = ci->n_params;
        }
    }
    f->freevars = pkscan_copy_strs(an, ci->freevars, ci->n_freevars);
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
static void fn_state(analysis *an, pkscan_function *f, uint32_t state)
{
    scanner *sc = an->sc;
    uint32_t v;
    if (kind_of(sc, state) != K_DICT)
        return;
    if ((v = pkscan_dict_get(an, state, DK_NAME)) != NONE_ID && kind_of(sc, v) == K_STR)
        f->name = pkscan_rnode(an, v);
    if ((v = pkscan_dict_get(an, state, DK_QUALNAME)) != NONE_ID &&
        kind_of(sc, v) == K_STR)
        f->qualname = pkscan_rnode(an, v);
    if ((v = pkscan_dict_get(an, state, DK_MODULE)) != NONE_ID &&
        kind_of(sc, v) == K_STR)
        f->module = pkscan_rnode(an, v);
    if ((v = pkscan_dict_get(an, state, DK_DEFAULTS)) != NONE_ID)
        f->n_defaults = seq_len(sc, v, K_TUPLE);
    if ((v = pkscan_dict_get(an, state, DK_KWDEFAULTS)) != NONE_ID)
        f->n_kwdefaults = seq_len(sc, v, K_DICT);
    if ((v = pkscan_dict_get(an, state, DK_GLOBALS)) != NONE_ID
        && f->globals == NULL)
        pkscan_dict_keys_list(an, v, &f->globals, &f->n_globals);
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
    pkscan_str *a = pkscan_arena_alloc(&an->rep->mem, (have + n) * sizeof *a,
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
            a[k++] = pkscan_rnode(an, name);
    }
    f->globals = a;
    f->n_globals = k;
}

static pkscan_str base_name(analysis *an, uint32_t b)
{
    const resolved *r = res_get(an, b);
    if (r && charge(an, r->ml + r->nl + 2) == 0) {
        size_t l;
        const char *j = pkscan_join(an, r->m, r->ml, r->n, r->nl, &l);
        if (j)
            return pkscan_rstr(an, j, l);
    }
    if (b != NONE_ID && aux_get(an, b, AUX_CLS))
        return an->clss[aux_get(an, b, AUX_CLS) - 1].name;
    return pkscan_rstr(an, "?", 1);
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
    pkscan_aux_set(an, id, AUX_CLS, an->nclss); /* fewer than PKSCAN_MAX_ITEMS */
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
    c->bases = pkscan_arena_alloc(&an->rep->mem, n * sizeof(pkscan_str),
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
static int plain_value(analysis *an, uint32_t v, int depth)
{
    scanner *sc = an->sc;
    if (v == NONE_ID)
        return 1;
    if (depth > 8 || aux_get(an, v, AUX_FN) || aux_get(an, v, AUX_CLS) ||
        pkscan_makes_code(an, &sc->nodes[v]))
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
        return nd->n == 0 && pkscan_res_is(r, "builtins", "getattr") &&
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
static void cls_state(analysis *an, pkscan_class *c, uint32_t state)
{
    scanner *sc = an->sc;
    if (kind_of(sc, state) != K_DICT)
        return;
    int first = c->methods == NULL;
    uint32_t v = pkscan_dict_get(an, state, DK_QUALNAME);
    if (first && v != NONE_ID && kind_of(sc, v) == K_STR)
        c->qualname = pkscan_rnode(an, v);
    /* cloudpickle 2.2 keeps __module__ in the state, not type_kwargs */
    v = pkscan_dict_get(an, state, DK_MODULE);
    if (c->module.s == NULL && v != NONE_ID && kind_of(sc, v) == K_STR)
        c->module = pkscan_rnode(an, v);
    size_t n = sc->nodes[state].n / 2;
    if (n == 0 || charge(an, 2 * n + c->n_methods))
        return;
    if (c->n_methods + n > PKSCAN_MAX_ITEMS) {
        if (c->n_methods >= PKSCAN_MAX_ITEMS)
            return;
        n = PKSCAN_MAX_ITEMS - c->n_methods;
        an->rep->pub.truncated = 1;
    }
    pkscan_str *m = pkscan_arena_alloc(&an->rep->mem,
                                       (c->n_methods + n) * sizeof(pkscan_str),
                                       sizeof(void *));
    if (m == NULL) {
        an->oom = 1;
        return;
    }
    if (c->n_methods)
        memcpy(m, c->methods, c->n_methods * sizeof(pkscan_str));
    c->methods = m;
    uint32_t e = sc->nodes[state].eh;
    for (size_t i = 0; i < n; i++) {
        uint32_t key = sc->edges[e].child;
        uint32_t val = sc->edges[sc->edges[e].next].child;
        e = sc->edges[sc->edges[e].next].next;
        if (kind_of(sc, key) == K_STR && is_method_value(an, val))
            c->methods[c->n_methods++] = pkscan_rnode(an, key);
    }
}

/* A node made by calling its `a` with the tuple `b`. */
int pkscan_call_kind(int k)
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
        f->name = pkscan_rnode(an, nm);
    /* an argdefs or kwdefaults not given is None: none */
    f->n_defaults = n > 3 ? seq_len(sc, item(sc, args, 3), K_TUPLE)
                    : kw  ? -1
                          : 0;
    if (n > 5)
        f->n_kwdefaults = seq_len(sc, item(sc, args, 5), K_DICT);
    else if (kw)
        f->n_kwdefaults = -1;
    uint32_t g = pkscan_dict_get(an, item(sc, args, 1), DK_NAME);
    if (kind_of(sc, g) == K_STR)
        f->module = pkscan_rnode(an, g);
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
    if (!pkscan_call_kind(nd->kind) || kind_of(sc, nd->b) != K_TUPLE)
        return 0;
    const resolved *c = res_get(an, nd->a);
    if (!pkscan_res_is(c, "types", "FunctionType") &&
        !pkscan_res_is(c, "types", "LambdaType"))
        return 0;
    size_t n = sc->nodes[nd->b].n;
    int ex = nd->kind == K_NEWOBJ && sc->d[nd->off] == CPK_OP_NEWOBJ_EX;
    if (n > 6 || (n < 2 && !ex))
        return 0;
    *nargs = n;
    *kw = ex;
    return 1;
}

void pkscan_objects_pass(analysis *an)
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
        if (!ccp && !pkscan_is_cp_module(c->m, c->ml))
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
            uint32_t g = pkscan_dict_get(an, item(sc, args, 1), DK_NAME);
            if (kind_of(sc, g) == K_STR)
                f->module = pkscan_rnode(an, g);
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
            uint32_t fn = item(sc, args, 0), state = item(sc, args, 1);
            if (aux_get(an, fn, AUX_FN) && tuple_n(sc, state, 2)) {
                pkscan_function *f = &an->fns[aux_get(an, fn, AUX_FN) - 1];
                fn_state(an, f, item(sc, state, 1));
                fn_state(an, f, item(sc, state, 0));
            }
        } else if (str_eq(c->n, c->nl, "_make_skeleton_class") &&
                   tuple_n(sc, args, 6)) {
            pkscan_class *k = new_cls(an, id);
            if (k == NULL)
                continue;
            k->from_cloudpickle = !ccp;
            k->name = pkscan_rnode(an, item(sc, args, 1));
            cls_bases(an, k, item(sc, args, 2));
            uint32_t kw = item(sc, args, 3);
            uint32_t v = pkscan_dict_get(an, kw, DK_MODULE);
            if (kind_of(sc, v) == K_STR)
                k->module = pkscan_rnode(an, v);
            v = pkscan_dict_get(an, kw, DK_QUALNAME);
            if (kind_of(sc, v) == K_STR)
                k->qualname = pkscan_rnode(an, v);
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
            k->name = pkscan_rnode(an, item(sc, args, 1));
            k->qualname = pkscan_rnode(an, item(sc, args, 2));
            k->module = pkscan_rnode(an, item(sc, args, 4));
            pkscan_dict_keys_list(an, item(sc, args, 3), &k->members,
                                  &k->n_members);
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
int pkscan_own_bytecode(const analysis *an, long magic)
{
    unsigned minor = PKSCAN_PY_MINOR(an->sc->flags);
    char mine[16];
    snprintf(mine, sizeof mine, "3.%u", minor);
    const char *v = magic >= 0 ? cpk_mscan_version(magic) : NULL;
    return minor != 0 && v != NULL && strcmp(v, mine) == 0;
}

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
int pkscan_makes_code(const analysis *an, const node *nd)
{
    const scanner *sc = an->sc;
    if (pkscan_res_recon(res_get(an, (uint32_t)(nd - sc->nodes)),
                         "_function_make"))
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
    if (!pkscan_call_kind(nd->kind))
        return 0;
    const resolved *c = res_get(an, nd->a);
    return pkscan_res_is(c, "types", "CodeType") || pkscan_res_recon(c, "_code_unmarshal") ||
           pkscan_res_recon(c, "_code_portable") || pkscan_res_recon(c, "_code_new");
}
