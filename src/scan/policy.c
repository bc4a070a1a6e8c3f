/* policy.c - the import policy (contract: src/scan/policy.h): pattern rules,
 * the verdict on one import of a pkscan report, the static check of a
 * whole report, and the set of find_class lookups a policed load may make.
 * Pure C; the Python side (loads' allow=/deny=, the Unpickler's
 * find_class) is src/engine/loadpolicy.c and src/unpickler.c. */
#include "scan/policy.h"
#include "common/growarray.h" /* cpk_grow */
#include "scan/pkscan.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    char *text;    /* the pattern without its `*` */
    size_t len;
    int wildcard;  /* it ended in `*` */
} rule;

struct cpk_policy {
    rule *allow, *deny;
    size_t n_allow, cap_allow, n_deny, cap_deny;
    int restricted;
};

cpk_policy *
cpk_policy_new(void)
{
    return calloc(1, sizeof(cpk_policy));
}

void
cpk_policy_free(cpk_policy *p)
{
    if (p == NULL)
        return;
    for (size_t i = 0; i < p->n_allow; i++)
        free(p->allow[i].text);
    for (size_t i = 0; i < p->n_deny; i++)
        free(p->deny[i].text);
    free(p->allow);
    free(p->deny);
    free(p);
}

static int
ident_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
}

/* Length of the well-formed UTF-8 sequence at s[0..n) whose first byte
 * is >= 0x80, or 0 if it is ill-formed (a stray continuation byte, a
 * truncated or overlong sequence, a surrogate, beyond U+10FFFF): names
 * are str, and a pattern no str can spell is a mistake. */
static size_t
utf8_seq(const unsigned char *s, size_t n)
{
    size_t k;
    unsigned lo = 0x80, hi = 0xbf; /* range of the second byte */
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        k = 2;
    else if (s[0] >= 0xe0 && s[0] <= 0xef) {
        k = 3;
        if (s[0] == 0xe0)
            lo = 0xa0;
        else if (s[0] == 0xed)
            hi = 0x9f;
    }
    else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
        k = 4;
        if (s[0] == 0xf0)
            lo = 0x90;
        else if (s[0] == 0xf4)
            hi = 0x8f;
    }
    else
        return 0;
    if (n < k || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < k; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return k;
}

/* NULL if `s` is a well-formed pattern, else why not. */
static const char *
pattern_error(const char *s)
{
    size_t len = strlen(s);
    if (len == 0)
        return "empty pattern";
    if (len == 1 && s[0] == '*')
        return NULL;
    size_t end = s[len - 1] == '*' ? len - 1 : len;
    /* after a `*` prefix the last component may be partial (`mypkg*`,
     * `numpy.*`): only `Q.*` may end in a dot */
    int dot_wild = end < len && s[end - 1] == '.';
    size_t comp = 0; /* length of the current component */
    for (size_t i = 0; i < end; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '*')
            return "'*' is only allowed at the end";
        if (c == '.') {
            if (comp == 0)
                return "empty component (two dots, or a dot at an end)";
            comp = 0;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
            c == '\v')
            return "whitespace in pattern";
        if (!ident_char(c))
            return "not a dotted name (letters, digits and '_' only)";
        if (comp == 0 && c >= '0' && c <= '9')
            return "a component starts with a digit";
        if (c >= 0x80) {
            size_t k = utf8_seq((const unsigned char *)s + i, end - i);
            if (k == 0)
                return "not valid UTF-8";
            i += k - 1;
            comp += k;
            continue;
        }
        comp++;
    }
    if (comp == 0 && !dot_wild)
        return "empty component (two dots, or a dot at an end)";
    return NULL;
}

int
cpk_policy_add(cpk_policy *p, int allow, const char *pattern,
               const char **why)
{
    const char *err = pattern_error(pattern);
    if (err != NULL) {
        *why = err;
        return -1;
    }
    rule **arr = allow ? &p->allow : &p->deny;
    size_t *n = allow ? &p->n_allow : &p->n_deny;
    size_t *cap = allow ? &p->cap_allow : &p->cap_deny;
    if (cpk_grow((void **)arr, cap, *n + 1, sizeof(rule)) < 0) {
        *why = "out of memory";
        return -1;
    }
    size_t len = strlen(pattern);
    int wild = pattern[len - 1] == '*';
    if (wild)
        len--;
    char *text = malloc(len + 1);
    if (text == NULL) {
        *why = "out of memory";
        return -1;
    }
    memcpy(text, pattern, len);
    text[len] = '\0';
    (*arr)[(*n)++] = (rule){text, len, wild};
    if (allow)
        p->restricted = 1;
    return 0;
}

void
cpk_policy_restrict(cpk_policy *p)
{
    p->restricted = 1;
}

int
cpk_policy_active(const cpk_policy *p)
{
    return p->restricted || p->n_allow > 0 || p->n_deny > 0;
}

/* The dotted path of an import, "module.name" ("module" when the name is
 * empty), seen as two spans without building it. */
typedef struct {
    const char *m, *n;
    size_t ml, nl;
} path;

static size_t
path_len(const path *d)
{
    return d->nl ? d->ml + 1 + d->nl : d->ml;
}

/* Byte i of the dotted path. */
static char
path_at(const path *d, size_t i)
{
    if (i < d->ml)
        return d->m[i];
    return i == d->ml ? '.' : d->n[i - d->ml - 1];
}

/* 1 if the path starts with text[0..len). */
static int
path_starts(const path *d, const char *text, size_t len)
{
    if (path_len(d) < len)
        return 0;
    size_t head = len < d->ml ? len : d->ml;
    if (memcmp(d->m, text, head) != 0)
        return 0;
    for (size_t i = head; i < len; i++)
        if (path_at(d, i) != text[i])
            return 0;
    return 1;
}

static int
rule_matches(const rule *r, const path *d)
{
    size_t dl = path_len(d);
    if (r->wildcard) {
        if (path_starts(d, r->text, r->len))
            return 1;
        /* `numpy.*` also covers the module numpy itself */
        return r->len > 0 && r->text[r->len - 1] == '.' && dl == r->len - 1 &&
               path_starts(d, r->text, r->len - 1);
    }
    /* P itself, or a path through P: P followed by a dot */
    return path_starts(d, r->text, r->len) &&
           (dl == r->len || path_at(d, r->len) == '.');
}

static int
any_match(const rule *rules, size_t n, const path *d)
{
    for (size_t i = 0; i < n; i++)
        if (rule_matches(&rules[i], d))
            return 1;
    return 0;
}

/* A deny rule matches the path, or the tail of its name from any
 * component that is not the last: `uuid` + `os.system` reaches os.system
 * through uuid's attribute os, so `os` denies it (`system` does not: the
 * last component is looked up, not looked into). */
static int
deny_match(const cpk_policy *p, const path *d)
{
    if (any_match(p->deny, p->n_deny, d))
        return 1;
    size_t last = 0; /* the last dot of the name, 0: none */
    for (size_t i = 0; i < d->nl; i++)
        if (d->n[i] == '.')
            last = i;
    for (size_t i = 0; i < last; i++) {
        if (i > 0 && d->n[i - 1] != '.')
            continue;
        path tail = {d->n + i, "", d->nl - i, 0};
        if (any_match(p->deny, p->n_deny, &tail))
            return 1;
    }
    return 0;
}

static int
is_dunder(const char *s, size_t len)
{
    return len > 4 && s[0] == '_' && s[1] == '_' && s[len - 1] == '_' &&
           s[len - 2] == '_';
}

/* 1 if every component of the dotted `name` after the first is a dunder
 * (`Enum.__new__`), 0 for an attribute path such as `inspect.os.system`,
 * which may leave the module through an attribute holding another
 * module. */
static int
dunder_path_only(const char *name, size_t len)
{
    size_t start = 0;
    int first = 1;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && name[i] != '.')
            continue;
        if (!first && !is_dunder(name + start, i - start))
            return 0;
        first = 0;
        start = i + 1;
    }
    return 1;
}

/* 1 if a component of the dotted `name` other than the last starts with
 * `_` and is no dunder (`tempfile` + `_os.system`): a private attribute,
 * typically a module imported under another name (`import os as _os`),
 * which deny rules cannot see through. */
static int
private_hop(const char *name, size_t len)
{
    size_t start = 0;
    for (size_t i = 0; i < len; i++) {
        if (name[i] != '.')
            continue;
        if (name[start] == '_' && !is_dunder(name + start, i - start))
            return 1;
        start = i + 1;
    }
    return 0;
}

/* 1 if `a` (la bytes) is `word` or starts with `word` and a dot. */
static int
is_or_under(const char *a, size_t la, const char *word)
{
    size_t lw = strlen(word);
    return la >= lw && memcmp(a, word, lw) == 0 && (la == lw || a[lw] == '.');
}

/* Unpicklers that pkscan's table (pickle, _pickle, ccloudpickle.loads,
 * load, Unpickler) does not list: ccloudpickle._loads_exact, and the
 * load functions of stock cloudpickle (pickle's, re-exported) and dill.
 * A nested pickle is never scanned, so no deny rule applies to it. */
static int
nested_unpickler(const path *d)
{
    if (is_or_under(d->m, d->ml, "ccloudpickle") &&
        is_or_under(d->n, d->nl, "_loads_exact"))
        return 1;
    if (!is_or_under(d->m, d->ml, "cloudpickle") &&
        !is_or_under(d->m, d->ml, "dill"))
        return 0;
    static const char *const names[] = {"loads", "load", "Unpickler",
                                        "_loads", "_load", "_Unpickler"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (is_or_under(d->n, d->nl, names[i]))
            return 1;
    return 0;
}

/* 1 if an allow rule names the import: a rule without `*` that matches
 * it, or a wildcard rule that matches it and spells at least the first
 * component of its module in full (`os*`, `os.*`, `importlib.*`,
 * `builtins.ev*`; not `*` nor `o*`). */
static int
allow_names(const cpk_policy *p, const path *d)
{
    size_t top = 0; /* length of the module's first component */
    while (top < d->ml && d->m[top] != '.')
        top++;
    for (size_t i = 0; i < p->n_allow; i++) {
        const rule *r = &p->allow[i];
        if (rule_matches(r, d) && (!r->wildcard || r->len >= top))
            return 1;
    }
    return 0;
}

int
cpk_policy_permits(const cpk_policy *p, const pkscan_import *imp)
{
    if (!cpk_policy_active(p))
        return 1;
    if (imp->via == PKSCAN_VIA_EXT || imp->via == PKSCAN_VIA_DYNAMIC ||
        imp->module.s == NULL || imp->name.s == NULL)
        return 0;
    path d = {imp->module.s, imp->name.s, imp->module.len, imp->name.len};
    if (deny_match(p, &d))
        return 0;
    /* What pkscan calls dangerous (commands, code, reflection, nested
     * unpicklers: names a deny rule cannot foresee) and private attribute
     * paths need an allow rule naming them, in every active policy. */
    if (imp->dangerous || private_hop(imp->name.s, imp->name.len) ||
        nested_unpickler(&d))
        return allow_names(p, &d);
    if (!p->restricted)
        return 1;
    if (any_match(p->allow, p->n_allow, &d))
        return 1;
    return !imp->dangerous && (imp->category == PKSCAN_CAT_CCLOUDPICKLE ||
                               imp->category == PKSCAN_CAT_CLOUDPICKLE ||
                               imp->category == PKSCAN_CAT_PLAIN) &&
           dunder_path_only(imp->name.s, imp->name.len);
}

size_t
cpk_policy_check(const cpk_policy *p, const pkscan_report *r,
                 size_t *refused, size_t cap)
{
    size_t count = 0;
    if (!cpk_policy_active(p))
        return 0;
    for (size_t i = 0; i < r->n_imports; i++) {
        if (cpk_policy_permits(p, &r->imports[i]))
            continue;
        if (refused != NULL && count < cap)
            refused[count] = i;
        count++;
    }
    if (r->truncated && r->n_imports >= PKSCAN_MAX_ITEMS) {
        if (refused != NULL && count < cap)
            refused[count] = r->n_imports; /* past the list: unlisted */
        count++;
    }
    return count;
}

/* The runtime set ------------------------------------------------------- */

typedef struct {
    const char *m, *n; /* into the set's own copy */
    size_t ml, nl;
} spelling;

struct cpk_policy_names {
    spelling *items;
    size_t n;
    char *text;
};

static int
span_cmp(const char *a, size_t al, const char *b, size_t bl)
{
    size_t m = al < bl ? al : bl;
    int c = m ? memcmp(a, b, m) : 0;
    return c ? c : (al > bl) - (al < bl);
}

static int
spelling_cmp(const void *x, const void *y)
{
    const spelling *a = x, *b = y;
    int c = span_cmp(a->m, a->ml, b->m, b->ml);
    return c ? c : span_cmp(a->n, a->nl, b->n, b->nl);
}

size_t
cpk_policy_load_calls(const cpk_policy *p, const pkscan_report *r)
{
    if (!cpk_policy_active(p))
        return 0;
    return r->n_load_calls + (r->truncated ? 1 : 0);
}

int
cpk_policy_state_admits(const cpk_policy *p, const pkscan_state_write *w)
{
    if (!cpk_policy_active(p))
        return 1;
    if ((w->kind != PKSCAN_STATE_NAMED && w->kind != PKSCAN_STATE_CALL) ||
        w->module.s == NULL || w->name.s == NULL)
        return 0;
    path d = {w->module.s, w->name.s, w->module.len, w->name.len};
    return !deny_match(p, &d) && any_match(p->allow, p->n_allow, &d);
}

size_t
cpk_policy_state(const cpk_policy *p, const pkscan_report *r)
{
    if (!cpk_policy_active(p))
        return 0;
    size_t count = r->n_state_total - r->n_state_writes;
    for (size_t i = 0; i < r->n_state_writes; i++)
        if (!cpk_policy_state_admits(p, &r->state_writes[i]))
            count++;
    return count;
}

cpk_policy_names *
cpk_policy_names_new(const cpk_policy *p, const pkscan_report *r)
{
    cpk_policy_names *set = calloc(1, sizeof *set);
    if (set == NULL)
        return NULL;
    /* First the sizes, then the copies: every spelling of each permitted
     * import. */
    size_t nsp = 0, bytes = 1;
    for (size_t pass = 0; pass < 2; pass++) {
        char *out = set->text;
        for (size_t i = 0; i < r->n_imports; i++) {
            const pkscan_import *imp = &r->imports[i];
            if (imp->via == PKSCAN_VIA_EXT || imp->via == PKSCAN_VIA_DYNAMIC ||
                imp->module.s == NULL || imp->name.s == NULL ||
                !cpk_policy_permits(p, imp))
                continue;
            /* every spelling find_class may get: the mapped one, as
             * written (each part falling back on the mapped one), and
             * each further written spelling */
            size_t nw = 1 + (imp->written_module.s != NULL ||
                             imp->written_name.s != NULL);
            size_t total = nw + imp->n_alt_written;
            for (size_t k = 0; k < total; k++) {
                pkscan_str m = imp->module, n = imp->name;
                if (k == 1) {
                    if (imp->written_module.s != NULL)
                        m = imp->written_module;
                    if (imp->written_name.s != NULL)
                        n = imp->written_name;
                }
                else if (k >= nw) {
                    m = imp->alt_written[2 * (k - nw)];
                    n = imp->alt_written[2 * (k - nw) + 1];
                    if (m.s == NULL || n.s == NULL)
                        continue;
                }
                if (pass == 0) {
                    /* bytes <= SIZE_MAX/2 before the sum: no wrap */
                    if (bytes > ((size_t)-1) / 2 ||
                        m.len > ((size_t)-1) / 4 ||
                        n.len > ((size_t)-1) / 4) {
                        free(set);
                        return NULL;
                    }
                    nsp++;
                    bytes += m.len + n.len;
                    continue;
                }
                spelling *sp = &set->items[set->n++];
                memcpy(out, m.s, m.len);
                sp->m = out;
                sp->ml = m.len;
                out += m.len;
                memcpy(out, n.s, n.len);
                sp->n = out;
                sp->nl = n.len;
                out += n.len;
            }
        }
        if (pass == 0) {
            set->items = malloc((nsp ? nsp : 1) * sizeof(spelling));
            set->text = malloc(bytes);
            if (set->items == NULL || set->text == NULL) {
                cpk_policy_names_free(set);
                return NULL;
            }
        }
    }
    if (set->n > 1)
        qsort(set->items, set->n, sizeof(spelling), spelling_cmp);
    return set;
}

void
cpk_policy_names_free(cpk_policy_names *n)
{
    if (n == NULL)
        return;
    free(n->items);
    free(n->text);
    free(n);
}

int
cpk_policy_names_has(const cpk_policy_names *n, const char *module,
                     size_t module_len, const char *name, size_t name_len)
{
    spelling key = {module, name, module_len, name_len};
    return n->n > 0 && bsearch(&key, n->items, n->n, sizeof(spelling),
                               spelling_cmp) != NULL;
}
