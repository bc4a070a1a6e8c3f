/* test_coverage_spans.c - the byte counts of cloudpickle-dump --report
 * (cli/dump/dumpspans.c) for pickles of every protocol, 0 to 5: the walk
 * models each opcode a pickler writes (protocols 0 and 1 use the line
 * based and memo forms that the default protocol never does), finds each
 * part carried by value, and its figures add up (the parts' own bytes
 * are the by-value total, a part's bytes hold its nested parts'). A
 * pickle it cannot walk is refused with a reason and an offset. The
 * walker is pure C; this test compiles it in (after editing
 * cli/dump/dumpspans.c, rebuild this test's object too). */
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "../../cli/dump/dumpspans.c"

TestSuite(coverage_spans, .init = cpk_py_start, .fini = cpk_py_stop);

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
    "''', m.__dict__)\n"
    "sys.modules['spans_mod'] = m\n"
    "cp.register_pickle_by_value(m)\n";

static void
assert_measured(const char *expr, size_t want_parts)
{
    size_t len;
    char *data = cpk_py_bytes(expr, &len);
    cpk_spans sp;
    int rc = cpk_spans_measure((const unsigned char *)data, len, &sp);
    cr_assert(rc == 0, "%s: %s at byte %zu", expr, sp.error ? sp.error : "?",
              sp.error_offset);
    cr_assert(sp.nparts >= want_parts, "%s: %zu parts", expr, sp.nparts);
    size_t own = 0;
    for (size_t i = 0; i < sp.nparts; i++) {
        const cpk_span_part *p = &sp.parts[i];
        cr_assert(p->own <= p->bytes && p->bytes <= len, "%s: part %zu",
                  expr, i);
        cr_assert(p->create < len);
        cr_assert(p->parent < (long)i, "%s: part %zu's parent", expr, i);
        own += p->own;
    }
    cr_assert_eq(own, sp.by_value, "%s", expr);
    cr_assert(sp.by_value <= len && sp.by_value > 0, "%s", expr);
    cpk_spans_free(&sp);
    free(data);
}

Test(coverage_spans, every_protocol)
{
    cpk_py(SETUP);
    char expr[128];
    for (int proto = 0; proto <= 5; proto++) {
        snprintf(expr, sizeof(expr), "cp.dumps(m.f, protocol=%d)", proto);
        assert_measured(expr, 1);
        snprintf(expr, sizeof(expr), "cp.dumps([m.K, m.Color, m.f(1)[0]], "
                                     "protocol=%d)",
                 proto);
        assert_measured(expr, 3);
        snprintf(expr, sizeof(expr), "cp.dumps(m, protocol=%d)", proto);
        assert_measured(expr, 1);
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
        cpk_spans sp;
        cr_assert(cpk_spans_measure((unsigned char *)data, len, &sp) == 0,
                  "%s: %s", expr, sp.error);
        cr_assert_eq(sp.nparts, 0);
        cr_assert_eq(sp.by_value, 0);
        cpk_spans_free(&sp);
        free(data);
    }
}

Test(coverage_spans, unwalkable_pickles_are_refused)
{
    static const struct {
        const char *data;
        size_t len;
    } bad[] = {
        {"\x80\x02" "0.", 4},        /* POP of nothing */
        {"\x80\x02" "2.", 4},        /* DUP of nothing */
        {"\x80\x02" "1.", 4},        /* POP_MARK without a MARK */
        {"\x80\x02" "X\x05\x00\x00\x00ab.", 11}, /* cut short */
        {"\x80\x02" "Iabc", 6},      /* a line without its end */
        {"\x80\x02" "\xff.", 4},     /* no such opcode */
        {"\x80\x02" "N", 3},         /* no STOP */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cpk_spans sp;
        memset(&sp, 0, sizeof(sp));
        int rc = cpk_spans_measure((const unsigned char *)bad[i].data,
                                   bad[i].len, &sp);
        cr_assert(rc == -1, "case %zu walked", i);
        cr_assert(sp.error != NULL && *sp.error != '\0', "case %zu", i);
        cr_assert(sp.error_offset <= bad[i].len, "case %zu", i);
    }
}
