/* test_coverage_spans.c - the bytes each part carried by value takes
 * (pkscan_scan with PKSCAN_SPANS: pkscan_report.parts, what
 * cloudpickle-dump --report prints) for pickles of every protocol, 0 to
 * 5. A pickle built here opcode by opcode checks the figures exactly
 * against the offsets it was built with: a creating call spans its
 * callable's first opcode to the memo PUT after its REDUCE, a later
 * state-setting call or BUILD adds its own span, a part made inside
 * another's span counts in the other's `bytes` but not in its `own`.
 * Pickles ccloudpickle writes check that the figures add up (the parts'
 * own bytes are the by-value total, a part's bytes hold its own), that
 * each part is the function or class the scan names at that offset, and
 * that a lone function takes all of its pickle but the PROTO, FRAME and
 * STOP opcodes. */
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "scan/pkscan.h"

TestSuite(coverage_spans, .init = cpk_py_start, .fini = cpk_py_stop);

#define SCAN_FLAGS (PKSCAN_PY_FLAGS(PY_VERSION_HEX) | PKSCAN_SPANS)

/* The objects measured: a class and functions carried by value, with
 * data of every kind in their defaults and globals. */
static const char *const SETUP =
    "import ccloudpickle as cp, pickle, sys, types\n"
    "m = types.ModuleType('spans_mod')\n"
    "exec('''\n"
    "import enum\n"
    "DATA = [None, True, False, 0, 1, 300, 70000, -5, 2**40, 2**70,\n"
    "        -2**70, 1.5, 'text', 'ü€', b'raw', bytearray(b'ba'), (), (1,),\n"
    "        (1, 2), (1, 2, 3), (1, 2, 3, 4), {'k': [1, {2}]},\n"
    "        frozenset({3}), set(), {}, [], 'x' * 300, b'y' * 300]\n"
    "class Color(enum.Enum):\n"
    "    RED = 1\n"
    "class K:\n"
    "    scale = 2.5\n"
    "    def m(self, x=DATA):\n"
    "        return len(x) * self.scale\n"
    "def f(a, b=DATA, *, c=(K, Color.RED)):\n"
    "    def inner(y):\n"
    "        return y + a\n"
    "    return inner, K, DATA\n"
    "def lone(x):\n"
    "    return x * 3\n"
    "''', m.__dict__)\n"
    "sys.modules['spans_mod'] = m\n"
    "cp.register_pickle_by_value(m)\n";

/* The invariants of a measured pickle; its report (free it). */
static pkscan_report *
assert_measured(const char *expr, const char *data, size_t len,
                size_t want_parts)
{
    pkscan_report *r = pkscan_scan(data, len, SCAN_FLAGS);
    cr_assert(r != NULL);
    cr_assert(r->status == PKSCAN_OK, "%s: %s at byte %zu", expr,
              r->error ? r->error : "?", r->error_offset);
    cr_assert(r->n_parts >= want_parts, "%s: %zu parts", expr, r->n_parts);
    cr_assert(!r->truncated, "%s", expr);
    size_t own = 0;
    for (size_t i = 0; i < r->n_parts; i++) {
        const pkscan_part *p = &r->parts[i];
        cr_assert(p->own <= p->bytes && p->bytes <= len, "%s: part %zu",
                  expr, i);
        cr_assert(p->create < len);
        cr_assert(i == 0 || r->parts[i - 1].create < p->create,
                  "%s: part %zu out of order", expr, i);
        cr_assert(p->parent < (long)r->n_parts && p->parent != (long)i,
                  "%s: part %zu's parent", expr, i);
        /* each part is what the scan lists at that offset */
        switch (p->kind) {
        case PKSCAN_PART_FUNCTION:
            cr_assert(p->index < r->n_functions, "%s", expr);
            cr_assert_eq(r->functions[p->index].offset, p->create, "%s",
                         expr);
            break;
        case PKSCAN_PART_CLASS:
        case PKSCAN_PART_ENUM:
            cr_assert(p->index < r->n_classes, "%s", expr);
            cr_assert_eq(r->classes[p->index].offset, p->create, "%s", expr);
            cr_assert_eq(r->classes[p->index].is_enum,
                         p->kind == PKSCAN_PART_ENUM, "%s", expr);
            break;
        case PKSCAN_PART_MODULE:
            cr_assert_eq(p->index, (size_t)-1, "%s", expr);
            cr_assert(p->name.s != NULL && p->name.s[p->name.len] == '\0',
                      "%s", expr);
            break;
        }
        own += p->own;
    }
    cr_assert_eq(own, r->by_value, "%s", expr);
    cr_assert(r->by_value <= len && r->by_value > 0, "%s", expr);
    /* every function and class is a part, once */
    size_t fns = 0, cls = 0;
    for (size_t i = 0; i < r->n_parts; i++) {
        fns += r->parts[i].kind == PKSCAN_PART_FUNCTION;
        cls += r->parts[i].kind == PKSCAN_PART_CLASS ||
               r->parts[i].kind == PKSCAN_PART_ENUM;
    }
    cr_assert_eq(fns, r->n_functions, "%s", expr);
    cr_assert_eq(cls, r->n_classes, "%s", expr);
    return r;
}

static pkscan_report *
measure(const char *expr, size_t want_parts, size_t *len)
{
    char *data = cpk_py_bytes(expr, len);
    pkscan_report *r = assert_measured(expr, data, *len, want_parts);
    free(data);
    return r;
}

Test(coverage_spans, every_protocol)
{
    cpk_py(SETUP);
    char expr[128];
    size_t len;
    for (int proto = 0; proto <= 5; proto++) {
        snprintf(expr, sizeof(expr), "cp.dumps(m.f, protocol=%d)", proto);
        pkscan_free(measure(expr, 1, &len));
        snprintf(expr, sizeof(expr), "cp.dumps([m.K, m.Color, m.f(1)[0]], "
                                     "protocol=%d)",
                 proto);
        pkscan_report *r = measure(expr, 3, &len);
        /* in the order they are made: the class first (its method
         * inside it), the enum, then the closure */
        cr_assert_eq(r->parts[0].kind, PKSCAN_PART_CLASS, "%s", expr);
        cr_assert_eq(r->parts[0].parent, -1, "%s", expr);
        size_t enums = 0, nested = 0;
        for (size_t i = 0; i < r->n_parts; i++) {
            enums += r->parts[i].kind == PKSCAN_PART_ENUM;
            nested += r->parts[i].parent >= 0;
        }
        cr_assert_eq(enums, 1, "%s", expr);
        cr_assert(nested >= 1, "%s: the method lies in its class", expr);
        pkscan_free(r);
        snprintf(expr, sizeof(expr), "cp.dumps(m, protocol=%d)", proto);
        r = measure(expr, 1, &len);
        /* the module is made first and holds all the rest */
        cr_assert_eq(r->parts[0].kind, PKSCAN_PART_MODULE, "%s", expr);
        cr_assert(r->parts[0].name.len == 9 &&
                      memcmp(r->parts[0].name.s, "spans_mod", 9) == 0,
                  "%s", expr);
        for (size_t i = 1; i < r->n_parts; i++)
            cr_assert(r->parts[i].parent >= 0, "%s: part %zu", expr, i);
        cr_assert_eq(r->parts[0].bytes, r->by_value, "%s", expr);
        pkscan_free(r);
    }
}

/* A lone function takes its whole pickle but STOP, PROTO (protocol 2
 * on) and the FRAME (protocol 4 on: one frame, the pickle is small). */
Test(coverage_spans, lone_function_is_its_pickle_less_framing)
{
    cpk_py(SETUP);
    static const size_t other[6] = {1, 1, 3, 3, 12, 12};
    char expr[128];
    size_t len;
    for (int proto = 0; proto <= 5; proto++) {
        snprintf(expr, sizeof(expr), "cp.dumps(m.lone, protocol=%d)", proto);
        pkscan_report *r = measure(expr, 1, &len);
        cr_assert_eq(r->n_parts, 1, "%s", expr);
        cr_assert_eq(r->by_value, len - other[proto], "%s: %zu of %zu",
                     expr, r->by_value, len);
        cr_assert_eq(r->parts[0].bytes, r->by_value);
        cr_assert_eq(r->parts[0].own, r->by_value);
        pkscan_free(r);
    }
}

/* Data alone has no part. */
Test(coverage_spans, plain_data_has_no_part)
{
    cpk_py(SETUP);
    size_t len;
    char expr[128];
    for (int proto = 0; proto <= 5; proto++) {
        snprintf(expr, sizeof(expr), "pickle.dumps(m.DATA, protocol=%d)",
                 proto);
        char *data = cpk_py_bytes(expr, &len);
        pkscan_report *r = pkscan_scan(data, len, SCAN_FLAGS);
        cr_assert(r != NULL && r->status == PKSCAN_OK, "%s", expr);
        cr_assert_eq(r->n_parts, 0);
        cr_assert(r->parts == NULL);
        cr_assert_eq(r->by_value, 0);
        pkscan_free(r);
        free(data);
    }
}

/* Without PKSCAN_SPANS the scan measures nothing. */
Test(coverage_spans, only_when_asked)
{
    cpk_py(SETUP);
    size_t len;
    char *data = cpk_py_bytes("cp.dumps(m.f)", &len);
    pkscan_report *r = pkscan_scan(data, len, 0);
    cr_assert(r != NULL && r->status == PKSCAN_OK);
    cr_assert(r->n_functions >= 1);
    cr_assert(r->parts == NULL && r->n_parts == 0 && r->by_value == 0);
    pkscan_free(r);
    free(data);
}

/* --- a pickle built opcode by opcode ------------------------------------ */

typedef struct {
    char b[1024];
    size_t n;
} pk;

static size_t
put(pk *p, const char *s, size_t n)
{
    cr_assert(n <= sizeof(p->b) - p->n);
    size_t at = p->n;
    memcpy(p->b + p->n, s, n);
    p->n += n;
    return at;
}

#define PUT(p, lit) put((p), (lit), sizeof(lit) - 1)

/* ccloudpickle.NAME: GLOBAL (protocol 2) or two strings and
 * STACK_GLOBAL (protocol 4); where its expression starts. */
static size_t
recon(pk *p, int p4, const char *name)
{
    char op[64];
    size_t at = p->n;
    if (!p4) {
        snprintf(op, sizeof(op), "cccloudpickle\n%s\n", name);
        put(p, op, strlen(op));
        return at;
    }
    PUT(p, "\x8c\x0c"
           "ccloudpickle");
    op[0] = (char)0x8c;
    op[1] = (char)strlen(name);
    memcpy(op + 2, name, strlen(name));
    put(p, op, 2 + strlen(name));
    PUT(p, "\x93");
    return at;
}

/* The memo PUT after a part's REDUCE: BINPUT i or MEMOIZE. */
static void
memo(pk *p, int p4, int i)
{
    char op[2] = {'q', (char)i};
    if (p4)
        PUT(p, "\x94");
    else
        put(p, op, 2);
}

/* A class K (its method f made inside its state, set by a later
 * _class_setstate), f's later _function_fill and a BUILD on f, and a
 * module made on the fly:
 *
 *   [K, f, mod] with
 *   K = _make_skeleton_class(None x 6)                      c0 .. c1
 *   _class_setstate(K, ({'m': f}, None))                    s0 .. s1
 *      f = _function_new(None, {}, 0)  (inside the state)  f0 .. f1
 *   _function_fill(f, {})                                   ff0 .. ff1
 *   f BUILD {}                                              b0 .. b1
 *   mod = dynamic_subimport('mymod', {})                    m0 .. m1
 *
 * The figures follow from those offsets alone. */
static void
built_pickle(int p4)
{
    pk p = {.n = 0};
    size_t frame = 0;
    if (p4) {
        PUT(&p, "\x80\x04");
        frame = PUT(&p, "\x95\0\0\0\0\0\0\0\0");
    } else {
        PUT(&p, "\x80\x02");
    }
    PUT(&p, "](");
    size_t c0 = recon(&p, p4, "_make_skeleton_class");
    PUT(&p, "(NNNNNNt");
    size_t kc = PUT(&p, "R");
    memo(&p, p4, 0);
    size_t c1 = p.n;
    size_t s0 = recon(&p, p4, "_class_setstate");
    PUT(&p, "h\x00}(X\x01\x00\x00\x00m");
    size_t f0 = recon(&p, p4, "_function_new");
    PUT(&p, "N}K\x00\x87");
    size_t kf = PUT(&p, "R");
    memo(&p, p4, 1);
    size_t f1 = p.n;
    PUT(&p, "uN\x86\x86R0");
    size_t s1 = p.n;
    size_t ff0 = recon(&p, p4, "_function_fill");
    PUT(&p, "h\x01}\x86R0");
    size_t ff1 = p.n;
    PUT(&p, "h\x01");
    size_t b0 = PUT(&p, "}b");
    size_t b1 = p.n;
    size_t m0 = recon(&p, p4, "dynamic_subimport");
    PUT(&p, "X\x05\x00\x00\x00mymod}\x86");
    size_t km = PUT(&p, "R");
    memo(&p, p4, 2);
    size_t m1 = p.n;
    PUT(&p, "e.");
    if (p4) {
        size_t flen = p.n - frame - 9;
        for (int i = 0; i < 8; i++)
            p.b[frame + 1 + i] = (char)((flen >> (8 * i)) & 0xff);
    }

    pkscan_report *r = assert_measured(p4 ? "protocol 4" : "protocol 2",
                                       p.b, p.n, 3);
    cr_assert_eq(r->n_parts, 3);
    const pkscan_part *k = &r->parts[0], *f = &r->parts[1],
                      *mod = &r->parts[2];
    cr_assert_eq(k->kind, PKSCAN_PART_CLASS);
    cr_assert_eq(k->create, kc);
    cr_assert_eq(k->bytes, (c1 - c0) + (s1 - s0));
    cr_assert_eq(k->own, (c1 - c0) + (s1 - s0) - (f1 - f0));
    cr_assert_eq(k->parent, -1);
    cr_assert_eq(f->kind, PKSCAN_PART_FUNCTION);
    cr_assert_eq(f->create, kf);
    cr_assert_eq(f->bytes, (f1 - f0) + (ff1 - ff0) + (b1 - b0));
    cr_assert_eq(f->own, f->bytes);
    cr_assert_eq(f->parent, 0);
    cr_assert_eq(mod->kind, PKSCAN_PART_MODULE);
    cr_assert_eq(mod->create, km);
    cr_assert_eq(mod->bytes, m1 - m0);
    cr_assert_eq(mod->own, m1 - m0);
    cr_assert_eq(mod->parent, -1);
    cr_assert(mod->name.len == 5 && strcmp(mod->name.s, "mymod") == 0);
    cr_assert_eq(r->by_value, (c1 - c0) + (s1 - s0) + (ff1 - ff0) +
                                  (b1 - b0) + (m1 - m0));
    pkscan_free(r);
}

Test(coverage_spans, built_pickle_protocol_2)
{
    built_pickle(0);
}

Test(coverage_spans, built_pickle_protocol_4)
{
    built_pickle(1);
}
