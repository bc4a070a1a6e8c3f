/* pkscan_calls.c - the code carried by value that the load itself runs
 * (pkscan_report.load_calls): calls of functions and classes by value,
 * hooks of such classes, code passed to callables. The functions and
 * classes are pkscan_objects.c's. */
#include "scan/pkscan_internal.h"

#include <stdlib.h>

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

/* The object a fill reconstructor writes its state into (its first
 * argument), NONE_ID for any other node. */
static uint32_t fill_target(const analysis *an, const node *nd)
{
    if (nd->kind != K_REDUCE || nd->a == NONE_ID || nd->b == NONE_ID ||
        kind_of(an->sc, nd->b) != K_TUPLE)
        return NONE_ID;
    if (!pkscan_is_fill_recon(res_get(an, nd->a)))
        return NONE_ID;
    return item(an->sc, nd->b, 0);
}

/* A code node's name (co_qualname, else co_name), unknown if unread. */
static pkscan_str code_name(analysis *an, uint32_t o)
{
    pkscan_str none = {NULL, 0};
    const code_info *ci = pkscan_code_get(an, o);
    if (ci == NULL)
        return none;
    return ci->qualname ? pkscan_rstr(an, ci->qualname, ci->qualnamel)
                        : pkscan_rstr(an, ci->name, ci->namel);
}

static pkscan_str origin_name(analysis *an, uint32_t o)
{
    pkscan_str none = {NULL, 0};
    if (aux_get(an, o, AUX_FN))
        return an->fns[aux_get(an, o, AUX_FN) - 1].qualname;
    if (aux_get(an, o, AUX_CLS))
        return an->clss[aux_get(an, o, AUX_CLS) - 1].qualname;
    if (pkscan_makes_code(an, &an->sc->nodes[o]))
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
    if (str_eq(r->m, r->ml, "ccloudpickle") || pkscan_is_cp_module(r->m, r->ml))
        return !str_eq(r->n, r->nl, "_make_dict_keys") &&
               !str_eq(r->n, r->nl, "_make_dict_items");
    static const name_rule keep[] = {
        {"builtins", "classmethod", 0}, {"builtins", "staticmethod", 0},
        {"builtins", "property", 0}, {"builtins", "getattr", 0},
        {"functools", "partial", 0}, {"types", "MethodType", 0},
        {"collections", "defaultdict", 0},
    };
    for (size_t i = 0; i < NELEM(keep); i++)
        if (pkscan_res_is(r, keep[i].module, keep[i].name))
            return 1;
    /* typing.List[C]: a subscription of a typing alias */
    if (pkscan_res_is(r, "operator", "getitem") || pkscan_res_is(r, "_operator", "getitem")) {
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

/* What the steps of calls_pass share. A step returns 0 to go on, 1 when
 * the analysis budget ran out (the pass stops, `truncated` is set) and -1
 * when memory ran out. */
typedef struct {
    analysis *an;
    scanner *sc;
    size_t nnodes;
    uint32_t *code;         /* node -> 1 + the node by value whose code
                               it holds, 0: none */
    uint8_t *class_flags;   /* CF_* of each class by value */
    uint32_t *parent_start; /* node -> its first entry of `parents` (CSR) */
    uint32_t *parents;      /* what holds each node, or calls with it */
    uint32_t *work;         /* the worklist; first the fill cursors */
    size_t parents_cap;     /* entries of `parents`: an upper bound */
} calls_state;

/* CF_* of each class from its own methods, then CF_ALL for a class whose
 * namespace is not known: BUILD or APPEND(S) on it, or a
 * _class_setstate whose state is not a literal dict. */
static int class_flags_init(calls_state *cs)
{
    analysis *an = cs->an;
    scanner *sc = cs->sc;
    if (an->nclss) {
        cs->class_flags = scalloc(sc->acct, an->nclss, 1);
        if (cs->class_flags == NULL)
            return -1;
    }
    for (size_t k = 0; k < an->nclss; k++) {
        if (charge(an, an->clss[k].n_methods + 1))
            return 1;
        cs->class_flags[k] = own_flags(&an->clss[k]);
    }
    if (charge(an, cs->nnodes))
        return 1;
    for (size_t i = 0; i < cs->nnodes && an->nclss; i++) {
        const node *nd = &sc->nodes[i];
        size_t class1 = aux_get(an, (uint32_t)i, AUX_CLS);
        if (class1 && nd->n)
            cs->class_flags[class1 - 1] |= CF_ALL;
        if (nd->kind == K_REDUCE && nd->a != NONE_ID &&
            pkscan_res_recon(res_get(an, nd->a), "_class_setstate")) {
            uint32_t cl = item(sc, nd->b, 0), state = item(sc, nd->b, 1);
            class1 = cl != NONE_ID ? aux_get(an, cl, AUX_CLS) : 0;
            if (class1 && !(tuple_n(sc, state, 2) &&
                            kind_of(sc, item(sc, state, 0)) == K_DICT))
                cs->class_flags[class1 - 1] |= CF_ALL;
        }
    }
    return 0;
}

/* Functions and classes, forwards (a base is older than its class): what
 * holds code by itself, and what creating a class runs of its bases and
 * metaclass by value. */
static int code_of_definitions(calls_state *cs)
{
    analysis *an = cs->an;
    scanner *sc = cs->sc;
    uint8_t *class_flags = cs->class_flags;
    for (size_t i = 0; i < cs->nnodes && !an->oom; i++) {
        const node *nd = &sc->nodes[i];
        uint32_t id = (uint32_t)i;
        if (aux_get(an, id, AUX_FN) || pkscan_makes_code(an, nd)) {
            /* The compiler runs on text the pickle chose, at load time:
             * untrusted input to code written for trusted input (3.9's
             * crashes on deep expressions), so any policy refuses it. */
            const code_info *ci;
            if (nd->kind == K_REDUCE &&
                pkscan_res_recon(res_get(an, nd->a), "_code_portable") &&
                (ci = pkscan_code_get(an, id)) != NULL && ci->portable == 1 &&
                !pkscan_own_bytecode(an, ci->magic))
                add_call(an, id, C_COMPILE, id);
            cs->code[id] = id + 1;
            continue;
        }
        size_t k1 = aux_get(an, id, AUX_CLS);
        if (!k1)
            continue;
        size_t k = k1 - 1;
        const resolved *rc = res_get(an, nd->a);
        int en = pkscan_res_recon(rc, "_make_skeleton_enum");
        uint32_t args = nd->b;
        uint32_t bases = item(sc, args, en ? 0 : 2);
        if (kind_of(sc, bases) == K_TUPLE &&
            charge(an, sc->nodes[bases].n) == 0)
            for (uint32_t e = sc->nodes[bases].eh, j = 0;
                 j < sc->nodes[bases].n; j++, e = sc->edges[e].next) {
                uint32_t b = sc->edges[e].child;
                size_t bk = aux_get(an, b, AUX_CLS);
                if (!bk || !(class_flags[bk - 1] & CF_HAS))
                    continue;
                class_flags[k] |= class_flags[bk - 1];
                if (en)
                    add_call(an, id, C_ENUM, b);
                else if (class_flags[bk - 1] & CF_INITSUB)
                    add_call(an, id, C_SUBCLASS, b);
            }
        uint32_t meta = en ? NONE_ID : item(sc, args, 0);
        if (meta != NONE_ID && aux_get(an, meta, AUX_CLS)) {
            class_flags[k] |= CF_HAS;
            add_call(an, id, C_META, meta);
        }
        if (class_flags[k] & CF_HAS)
            cs->code[id] = id + 1;
    }
    return 0;
}

/* The parents of each node (CSR): what holds it as an edge (item, key,
 * value, BUILD state), and the calls it is the callable or the arguments
 * of. Functions and classes by value are not parents: what they hold is
 * judged by code_of_definitions. Counted in a first round, filled in a
 * second. */
static int parents_build(calls_state *cs)
{
    analysis *an = cs->an;
    scanner *sc = cs->sc;
    size_t nnodes = cs->nnodes;
    if (charge(an, cs->parents_cap))
        return 1;
    cs->parent_start = scalloc(sc->acct, nnodes + 1, sizeof(uint32_t));
    cs->parents = scalloc(sc->acct, cs->parents_cap ? cs->parents_cap : 1,
                          sizeof(uint32_t));
    cs->work = scalloc(sc->acct, nnodes ? nnodes : 1, sizeof(uint32_t));
    if (cs->parent_start == NULL || cs->parents == NULL || cs->work == NULL)
        return -1;
    uint32_t *start = cs->parent_start, *parents = cs->parents;
    uint32_t *cursor = cs->work;
    for (int fill = 0; fill < 2; fill++) {
        if (fill) {
            for (size_t i = 0; i < nnodes; i++)
                start[i + 1] += start[i];
            memcpy(cursor, start, nnodes * sizeof(uint32_t));
        }
        for (size_t i = 0; i < nnodes; i++) {
            const node *nd = &sc->nodes[i];
            uint32_t id = (uint32_t)i;
            if (aux_get(an, id, AUX_FN) || aux_get(an, id, AUX_CLS))
                continue;
            uint32_t kids[2] = {NONE_ID, NONE_ID};
            if (pkscan_call_kind(nd->kind)) {
                kids[0] = nd->a;
                kids[1] = nd->b;
            }
            for (int q = 0; q < 2; q++)
                if (kids[q] != NONE_ID) {
                    if (fill)
                        parents[cursor[kids[q]]++] = id;
                    else
                        start[kids[q] + 1]++;
                }
            /* A fill reconstructor puts its state into its target:
             * _singledispatch_fill(W, ((int, f),)) makes W call f. */
            uint32_t tgt = fill_target(an, nd);
            if (tgt != NONE_ID) {
                if (fill)
                    parents[cursor[nd->b]++] = tgt;
                else
                    start[nd->b + 1]++;
            }
            uint32_t e = nd->eh;
            for (size_t j = 0; j < nd->n; j++, e = sc->edges[e].next) {
                uint32_t ch = sc->edges[e].child;
                if (fill)
                    parents[cursor[ch]++] = id;
                else
                    start[ch + 1]++;
            }
        }
    }
    return 0;
}

/* Code flows from each node to its parents: a worklist, each node in
 * once (when it gets code). */
static void code_propagate(calls_state *cs)
{
    uint32_t *code = cs->code, *work = cs->work;
    size_t wn = 0, head = 0;
    for (size_t i = 0; i < cs->nnodes; i++)
        if (code[i])
            work[wn++] = (uint32_t)i;
    while (head < wn) {
        uint32_t v = work[head++];
        for (uint32_t q = cs->parent_start[v]; q < cs->parent_start[v + 1];
             q++) {
            uint32_t p = cs->parents[q];
            if (code[p] == 0) {
                code[p] = code[v];
                work[wn++] = p;
            }
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
static void fills_of_imported(calls_state *cs)
{
    analysis *an = cs->an;
    scanner *sc = cs->sc;
    for (size_t i = 0; i < cs->nnodes && !an->oom; i++) {
        uint32_t t = fill_target(an, &sc->nodes[i]);
        if (t == NONE_ID || aux_get(an, t, AUX_FN) || aux_get(an, t, AUX_CLS))
            continue;
        const node *tn = &sc->nodes[t];
        const resolved *tc =
            tn->kind == K_REDUCE ? res_get(an, tn->a) : NULL;
        const resolved *fc = res_get(an, sc->nodes[i].a);
        int sd = pkscan_res_recon(fc, "_singledispatch_fill");
        if (sd ? pkscan_res_recon(tc, "_singledispatch_new")
               : pkscan_res_recon(tc, "_module_new") ||
                     pkscan_res_recon(tc, "dynamic_subimport") ||
                     pkscan_res_recon(tc, "_dynamic_module_reconstructor"))
            continue;
        add_call(an, (uint32_t)i, C_FILL, t);
    }
}

/* A BUILD whose state holds code, then any other op on the same
 * object: the state may have set the instance attribute that op
 * calls (__setstate__, extend, append, add). */
static void hooks_after_build(calls_state *cs)
{
    analysis *an = cs->an;
    scanner *sc = cs->sc;
    if (charge(an, sc->nbuilds))
        return;
    for (size_t b = 0; b < sc->nbuilds && !an->oom; b++) {
        uint32_t inst = sc->builds[3 * b], state = sc->builds[3 * b + 1];
        if (cs->code[state] && sc->nodes[inst].n > sc->builds[3 * b + 2] + 1)
            add_call(an, inst, C_HOOK, cs->code[state] - 1);
    }
}

/* An opaque object given state (BUILD, APPEND(S), SETITEM(S): its
 * edges, in order) holding code, then more: BUILD may have set
 * an instance attribute the next one calls (__setstate__,
 * extend, append, add). Not an object of a class by value:
 * C_INST lists those.
 * State given to a function or class by value (BUILD's
 * __setstate__ found in its own namespace), or to an object whose
 * class is by value with methods (an enum member reached by
 * getattr): its own hooks run. What only holds code, a partial
 * of a function, has its type's hooks. */
static void hooks_of_state(calls_state *cs, uint32_t id)
{
    analysis *an = cs->an;
    scanner *sc = cs->sc;
    const node *nd = &sc->nodes[id];
    uint32_t *code = cs->code;
    if (!(nd->kind >= K_GLOBAL && nd->n >= 1 && !pkscan_makes_code(an, nd)))
        return;
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
 * namespace beyond what code_of_definitions listed. A base that is
 * no class carried by value but holds code (its type's
 * __mro_entries__, an instance's); a namespace value holding
 * code that is no function or class (__set_name__). */
static void hooks_of_class(calls_state *cs, uint32_t id)
{
    analysis *an = cs->an;
    scanner *sc = cs->sc;
    const node *nd = &sc->nodes[id];
    uint32_t *code = cs->code;
    if (!(aux_get(an, id, AUX_CLS) && pkscan_call_kind(nd->kind)))
        return;
    /* an enum's members: values, whose holding code would run
     * as each member is made (__init__ among them) */
    int en = pkscan_res_recon(res_get(an, nd->a), "_make_skeleton_enum");
    uint32_t parts[2] = {item(sc, nd->b, en ? 0 : 2), item(sc, nd->b, 3)};
    for (int q = 0; q < 2; q++) {
        uint32_t t = parts[q];
        int tk = kind_of(sc, t);
        if ((tk != K_TUPLE && tk != K_DICT) || charge(an, sc->nodes[t].n))
            continue;
        uint32_t e = sc->nodes[t].eh, hit = NONE_ID;
        for (size_t j = 0; j < sc->nodes[t].n && hit == NONE_ID;
             j++, e = sc->edges[e].next) {
            uint32_t ch = sc->edges[e].child;
            if (code[ch] && (en && q == 1 ? 1
                             : !aux_get(an, ch, AUX_CLS) &&
                                   (q == 0 || !aux_get(an, ch, AUX_FN))))
                hit = ch;
        }
        if (hit != NONE_ID) {
            add_call(an, id, C_HOOK, code[hit] - 1);
            break;
        }
    }
}

/* A call (REDUCE, NEWOBJ, OBJ, INST) whose callable or arguments hold
 * code, unless the callable only stores them. What makes a function or
 * a code object stores its arguments (a code object's co_consts may
 * hold code objects). `top`: the result's node. */
static void call_of_code(calls_state *cs, uint32_t id, uint32_t top)
{
    analysis *an = cs->an;
    scanner *sc = cs->sc;
    const node *nd = &sc->nodes[id];
    uint32_t *code = cs->code;
    if (!pkscan_call_kind(nd->kind) || aux_get(an, id, AUX_FN) ||
        aux_get(an, id, AUX_CLS) || pkscan_makes_code(an, nd))
        return;
    uint32_t c = nd->a, args = nd->b;
    if (c == NONE_ID)
        return;
    int cargs = args != NONE_ID && code[args];
    if (code[c]) {
        uint32_t o = code[c] - 1;
        if (!aux_get(an, o, AUX_FN) && !aux_get(an, o, AUX_CLS)) {
            /* partial(_function_new, code)(...), code(): whatever
             * it makes or does, not seen */
            add_call(an, id, C_CODE, o);
            return;
        }
        int inst = !aux_get(an, o, AUX_FN) && o == c;
        if (inst) {
            size_t k = aux_get(an, o, AUX_CLS) - 1;
            if (an->clss[k].is_enum && nd->kind == K_REDUCE &&
                !(cs->class_flags[k] & CF_MISSING) && !cargs)
                return; /* Color(1): a member looked up by value
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
        return;
    }
    if (!cargs)
        return;
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
        return;
    }
    /* getattr(C, "name") of a class or function by value only looks
     * the name up; of an instance or enum member it may run its
     * class's __getattr__ / __getattribute__ */
    int getattr_inst = pkscan_res_is(r, "builtins", "getattr") &&
                       a0 != NONE_ID && code[a0] && code[a0] - 1 != a0;
    if (!getattr_inst && kind_of(sc, args) == K_TUPLE &&
        stores_only(an, c, args))
        return;
    add_call(an, id, C_PASS, code[args] - 1);
}

/* Dict keys and set items are hashed as they go in: an object whose
 * class by value defines __hash__ or __eq__ (an enum member of an
 * enum by value, getattr(Color, "RED"): its class's state is set
 * before the member is used) runs them; so does a tuple or frozenset
 * holding code (its hash hashes its items). O(1) per key. */
static void hashes_of_keys(calls_state *cs)
{
    analysis *an = cs->an;
    scanner *sc = cs->sc;
    uint32_t *code = cs->code;
    for (size_t i = 0; i < cs->nnodes && !an->oom; i++) {
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
            size_t class1 = aux_get(an, o, AUX_CLS);
            int vk = sc->nodes[v].kind;
            /* a code object's hash runs nothing */
            if ((class1 && (cs->class_flags[class1 - 1] & CF_HASH) &&
                 vk != K_DICT && vk != K_LIST) ||
                (!op && (vk == K_TUPLE || vk == K_FROZENSET) &&
                 !pkscan_makes_code(an, &sc->nodes[o]))) {
                add_call(an, (uint32_t)i, C_HASH, o);
                break;
            }
        }
    }
}

/* Free what the steps allocated; the calls in input order (the hashing
 * step came last), the result's call found again. */
static void calls_finish(calls_state *cs)
{
    analysis *an = cs->an;
    memacct *acct = cs->sc->acct;
    size_t nnodes = cs->nnodes;
    if (cs->class_flags) {
        free(cs->class_flags);
        acct_give(acct, an->nclss);
    }
    if (cs->parent_start) {
        free(cs->parent_start);
        acct_give(acct, (nnodes + 1) * sizeof(uint32_t));
    }
    if (cs->parents) {
        free(cs->parents);
        acct_give(acct, (cs->parents_cap ? cs->parents_cap : 1) *
                            sizeof(uint32_t));
    }
    if (cs->work) {
        free(cs->work);
        acct_give(acct, (nnodes ? nnodes : 1) * sizeof(uint32_t));
    }
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

/* Pass 3: which opcodes run code carried by value (pkscan_load_call).
 * `code` (reusing the `recog` array, done with): node -> 1 + the function
 * or class node whose code it holds, at any depth: a function by value,
 * a class by value with methods, what is made by calling or storing
 * those (instances, enum members, partials), and any container or object
 * holding one of those as an item, key, value or BUILD state (also items
 * added after the container was made, through the memo). Computed by a
 * worklist over the reverse edges: linear. Then any call whose callable
 * or arguments hold code is listed unless the callable only stores them. */
void pkscan_calls_pass(analysis *an)
{
    scanner *sc = an->sc;
    calls_state cs = {0};
    cs.an = an;
    cs.sc = sc;
    cs.nnodes = sc->nnodes;
    cs.code = an->recog;
    memset(cs.code, 0, cs.nnodes * sizeof(uint32_t));
    cs.parents_cap = sc->nedges + 3 * cs.nnodes; /* + fill targets, one
                                                    per call */
    int rc = class_flags_init(&cs);
    if (rc == 0)
        rc = code_of_definitions(&cs);
    if (rc == 0 && !an->oom)
        rc = parents_build(&cs);
    if (rc == 0 && !an->oom) {
        code_propagate(&cs);
        fills_of_imported(&cs);
        hooks_after_build(&cs);
        uint32_t top = sc->nstack ? sc->stack[sc->nstack - 1] : NONE_ID;
        for (size_t i = 0; i < cs.nnodes && !an->oom; i++) {
            hooks_of_state(&cs, (uint32_t)i);
            hooks_of_class(&cs, (uint32_t)i);
            call_of_code(&cs, (uint32_t)i, top);
        }
        hashes_of_keys(&cs);
    }
    if (rc < 0)
        an->oom = 1;
    calls_finish(&cs);
}
