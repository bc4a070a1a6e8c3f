/* pkscan_imports.c - the names a pickle imports (pkscan_report.imports),
 * deduplicated, each with its category and verdict from
 * pkscan_classify.c. */
#include "scan/pkscan_internal.h"

#include <stdlib.h>

#include "scan/format.h" /* cpk_format_newer_name */

/* An import cpk_format_newer_import finds a newer format's marker in:
 * listed before any other, so that neither the import-name budget nor
 * PKSCAN_MAX_ITEMS can cut it from the list that function reads. */
static int newer_marker(const raw_import *a)
{
    int fmt = 0;
    char v[48];
    return a->via != PKSCAN_VIA_EXT && a->via != PKSCAN_VIA_DYNAMIC &&
           a->n != NULL && cpk_format_newer_name(a->n, a->nl, &fmt, v,
                                                 sizeof v);
}

static int cmp_span(const char *a, size_t al, const char *b, size_t bl)
{
    size_t m = al < bl ? al : bl;
    int c = m ? memcmp(a, b, m) : 0;
    return c ? c : (al > bl) - (al < bl);
}

static int raw_key_cmp(const void *x, const void *y)
{
    const raw_import *a = x, *b = y;
    int na = newer_marker(a), nb = newer_marker(b);
    if (na != nb)
        return nb - na;
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
    im->alt_written = pkscan_arena_alloc(&an->rep->mem,
                                         2 * n * sizeof(pkscan_str),
                                         sizeof(void *));
    if (im->alt_written == NULL) {
        an->oom = 1;
        return;
    }
    for (size_t q = 0; q < n; q++) {
        const char *m, *nm;
        size_t ml, nml;
        spelling_of(&an->raw[idx[q]], &m, &ml, &nm, &nml);
        im->alt_written[2 * q] = pkscan_rstr(an, m, ml);
        im->alt_written[2 * q + 1] = pkscan_rstr(an, nm, nml);
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
    *cat = pkscan_categorize(ri->m, ri->ml, ri->n, ri->nl);
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
    if (unrec && pkscan_imports_by_argument(ri)) {
        int codec = str_eq(ri->m, ri->ml, "_codecs") ||
                    str_eq(ri->m, ri->ml, "codecs");
        *cat = PKSCAN_CAT_OTHER;
        resolved fr = pkscan_raw_name(ri);
        if (pkscan_is_fill_recon(&fr))
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
    const char *why = pkscan_danger_reason(ri->m, ri->ml, ri->n, ri->nl,
                                           *cat != PKSCAN_CAT_OTHER ||
                                        pkscan_plain_module(ri->m, ri->ml));
    if (why != NULL && *cat == PKSCAN_CAT_PLAIN)
        *cat = PKSCAN_CAT_OTHER; /* operator.attrgetter, object.__subclasses__ */
    return why;
}

void pkscan_imports_pass(analysis *an)
{
    pkscan_report *r = &an->rep->pub;
    if (an->nraw == 0)
        return;
    qsort(an->raw, an->nraw, sizeof(raw_import), raw_key_cmp);
    size_t cap = an->nraw < PKSCAN_MAX_ITEMS ? an->nraw : PKSCAN_MAX_ITEMS;
    pkscan_import *out = pkscan_arena_alloc(&an->rep->mem, cap * sizeof *out,
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
            im->module = pkscan_rstr(an, ri->m, ri->ml);
            im->name = pkscan_rstr(an, ri->n, ri->nl);
            im->written_module = pkscan_rstr(an, ri->wm, ri->wml);
            im->written_name = pkscan_rstr(an, ri->wn, ri->wnl);
            alt_spellings(an, i, j, im);
        }
        i = j;
    }
    /* input order of first occurrence */
    qsort(out, n, sizeof *out, imp_off_cmp);
    r->imports = out;
    r->n_imports = n;
}
