/* test_cov_marshal_fields.c - the marshal reader (src/scan/marshal_scan.h) on
 * code objects written field by field: both layouts (3.9/3.10 and 3.11+)
 * give back the name, parameters and free variables they were written
 * with, a field of the wrong type or a count its names do not cover is
 * refused, and every constant kind (text floats and complexes of marshal
 * version 0, longs, binary floats, lists, sets) is read through, while a
 * truncated or out-of-range one is refused. */
#include <stdlib.h>
#include <string.h>

#include "scan/marshal_scan.h"
#include "support.h"

TestSuite(cov_marshal_fields, .init = cpk_py_start, .fini = cpk_py_stop);

#define MAGIC_310 3439
#define MAGIC_311 3495

static uint8_t *make(const char *expr, size_t *len)
{
    static int defined;
    if (!defined) {
        cpk_py_file("make.py");
        defined = 1;
    }
    return (uint8_t *)cpk_py_bytes(expr, len);
}

/* The names in *mc point into the bytes read: they stay until the next
 * call. */
static int read_code(const char *expr, long magic, cpk_mcode *mc)
{
    static uint8_t *data;
    size_t len;
    free(data);
    data = make(expr, &len);
    return cpk_mscan_code(data, len, magic, mc);
}

static int mstr_is(cpk_mstr s, const char *lit)
{
    return s.p != NULL && s.len == strlen(lit) &&
           memcmp(s.p, lit, s.len) == 0;
}

static void assert_names(const cpk_mstr *got, size_t n,
                         const char *const *want, size_t nwant,
                         const char *what)
{
    cr_assert(n == nwant, "%s: %zu names, want %zu", what, n, nwant);
    for (size_t i = 0; i < n; i++)
        cr_assert(mstr_is(got[i], want[i]), "%s %zu: %.*s, want %s", what, i,
                  (int)got[i].len, (const char *)got[i].p, want[i]);
}

static void assert_refused(const char *expr, long magic)
{
    cpk_mcode mc;
    cr_assert(read_code(expr, magic, &mc) == 0, "read: %s", expr);
    cr_assert_null(mc.params, "%s", expr);
    cr_assert_null(mc.freevars, "%s", expr);
    cr_assert_null(mc.name.p, "%s", expr);
}

Test(cov_marshal_fields, layout_311_parameters_and_free_variables)
{
    cpk_mcode mc;
    cr_assert(read_code("mk(311, argc=2, posonly=1, kwonly=1, flags=0x0c,\n"
                        "   lpnames=('a', 'b', 'k', 'args', 'kw', 'loc',\n"
                        "            'x', 'y'),\n"
                        "   lpkinds=bytes([0x20] * 6 + [0x80, 0x80]),\n"
                        "   filename='where.py', name='g',\n"
                        "   qualname='outer.<locals>.g', firstlineno=42)",
                        MAGIC_311, &mc) == 1);
    cr_assert_eq(mc.layout, 311);
    cr_assert_eq(mc.argcount, 2);
    cr_assert_eq(mc.posonlyargcount, 1);
    cr_assert_eq(mc.kwonlyargcount, 1);
    cr_assert_eq(mc.flags, 0x0c);
    cr_assert_eq(mc.firstlineno, 42);
    cr_assert(mstr_is(mc.name, "g"));
    cr_assert(mstr_is(mc.qualname, "outer.<locals>.g"));
    cr_assert(mstr_is(mc.filename, "where.py"));
    static const char *const params[] = {"a", "b", "k", "args", "kw"};
    static const char *const free_[] = {"x", "y"};
    assert_names(mc.params, mc.n_params, params, 5, "param");
    assert_names(mc.freevars, mc.n_freevars, free_, 2, "freevar");
    cpk_mscan_free(&mc);
    cpk_mscan_free(&mc); /* safe twice */
    cr_assert_null(mc.params);
}

Test(cov_marshal_fields, layout_310_parameters_and_free_variables)
{
    cpk_mcode mc;
    cr_assert(read_code("mk(310, argc=1, flags=0x04,\n"
                        "   varnames=('a', 'rest', 'tmp'),\n"
                        "   freevars=('z',), cellvars=('c',), name='h')",
                        MAGIC_310, &mc) == 1);
    cr_assert_eq(mc.layout, 310);
    cr_assert(mstr_is(mc.name, "h"));
    cr_assert_null(mc.qualname.p);
    static const char *const params[] = {"a", "rest"};
    static const char *const free_[] = {"z"};
    assert_names(mc.params, mc.n_params, params, 2, "param");
    assert_names(mc.freevars, mc.n_freevars, free_, 1, "freevar");
    cpk_mscan_free(&mc);
    /* No parameters, no free variables: nothing allocated. */
    cr_assert(read_code("mk(310, argc=0, varnames=())", MAGIC_310, &mc) ==
              1);
    cr_assert(mc.n_params == 0 && mc.params == NULL);
    cr_assert(mc.n_freevars == 0 && mc.freevars == NULL);
    cpk_mscan_free(&mc);
}

Test(cov_marshal_fields, fields_of_the_wrong_type_are_refused)
{
    assert_refused("mk(311, name=5)", MAGIC_311);
    assert_refused("mk(311, filename=b'file.py')", MAGIC_311);
    assert_refused("mk(311, qualname=None)", MAGIC_311);
    assert_refused("mk(311, lpnames=('a', 7))", MAGIC_311);
    assert_refused("mk(311, lpnames=['a', 'b'])", MAGIC_311);
    assert_refused("mk(311, lpkinds=b'\\x20')", MAGIC_311);
    assert_refused("mk(311, lpkinds='  ')", MAGIC_311);
    assert_refused("mk(310, varnames=('a', b'b'))", MAGIC_310);
    assert_refused("mk(310, freevars=(1,))", MAGIC_310);
    assert_refused("mk(310, name=5)", MAGIC_310);
}

Test(cov_marshal_fields, counts_the_names_do_not_cover_are_refused)
{
    /* Three parameters, two names. */
    assert_refused("mk(311, argc=2, flags=0x08)", MAGIC_311);
    assert_refused("mk(310, argc=2, kwonly=1)", MAGIC_310);
    /* Nonsense counts, as the code constructor refuses them. */
    assert_refused("mk(311, argc=-1)", MAGIC_311);
    assert_refused("mk(311, kwonly=-1)", MAGIC_311);
    assert_refused("mk(311, argc=1, posonly=2)", MAGIC_311);
    assert_refused("mk(310, posonly=-1)", MAGIC_310);
}

Test(cov_marshal_fields, every_constant_kind_is_read_through)
{
    cpk_mcode mc;
    /* Version 0: a float and a complex as text, a long of 15-bit digits. */
    cr_assert(read_code("mk(311, consts=Raw(marshal.dumps((1.5, 2j, -2**100,\n"
                        "   [1, 'a'], {1}, frozenset({2}), b'x', 'y', 2.5,\n"
                        "   3j, True, Ellipsis, StopIteration), 0)))",
                        MAGIC_311, &mc) == 1);
    cr_assert(mstr_is(mc.name, "f"));
    cpk_mscan_free(&mc);
    /* Version 4 of the same: binary floats, back-references. */
    cr_assert(read_code("mk(311, consts=Raw(marshal.dumps(('s', 's', 1.5,\n"
                        "   1.5, 2j, 10**30), 4)))",
                        MAGIC_311, &mc) == 1);
    cpk_mscan_free(&mc);
}

Test(cov_marshal_fields, malformed_constants_are_refused)
{
    /* A text float longer than the data left. */
    assert_refused("mk(311, consts=Raw(b'f\\xffab'))", MAGIC_311);
    /* A complex whose imaginary part is longer than the data left. */
    assert_refused("mk(311, consts=Raw(b'x\\x011\\xff'))", MAGIC_311);
    /* A long digit of 16 bits ("digit out of range in long"). */
    assert_refused("mk(311, consts=Raw(b'l\\x01\\x00\\x00\\x00\\x00\\x80'))",
                   MAGIC_311);
    /* A long of more digits than the data holds, and of 2**30 + 1. */
    assert_refused("mk(311, consts=Raw(b'l\\x03\\x00\\x00\\x00\\x01\\x00'))",
                   MAGIC_311);
    assert_refused("mk(311, consts=Raw(b'l' + struct.pack('<i', -(1 << 30)"
                   " - 1)))",
                   MAGIC_311);
    /* A binary float or complex cut short. */
    assert_refused("mk(311, consts=Raw(b'g\\x00\\x00'))", MAGIC_311);
    assert_refused("mk(311, consts=Raw(b'y' + bytes(8)))", MAGIC_311);
    /* A back-reference to a slot never filled. */
    assert_refused("mk(311, consts=Raw(b'r\\x05\\x00\\x00\\x00'))", MAGIC_311);
    assert_refused("mk(311, consts=Raw(b'r\\xff\\xff\\xff\\xff'))", MAGIC_311);
    /* A tuple with a TYPE_NULL item. */
    assert_refused("mk(311, consts=Raw(b')\\x02N0'))", MAGIC_311);
}

Test(cov_marshal_fields, whole_input_checks)
{
    cpk_mcode mc;
    size_t len;
    uint8_t *data = make("mk(311)", &len);
    cr_assert(cpk_mscan_code(data, len, MAGIC_311, &mc) == 1);
    cpk_mscan_free(&mc);
    /* A magic no release had. */
    cr_assert(cpk_mscan_code(data, len, 3000, &mc) == 0);
    cr_assert(cpk_mscan_code(data, len, 3496, &mc) == 0);
    /* Bytes after the code object; the object cut short. */
    uint8_t *longer = malloc(len + 1);
    cr_assert(longer != NULL);
    memcpy(longer, data, len);
    longer[len] = 'N';
    cr_assert(cpk_mscan_code(longer, len + 1, MAGIC_311, &mc) == 0);
    cr_assert(cpk_mscan_code(data, len - 1, MAGIC_311, &mc) == 0);
    free(longer);
    /* Not a code object at the top. */
    cr_assert(cpk_mscan_code((const uint8_t *)"N", 1, MAGIC_311, &mc) == 0);
    cr_assert(cpk_mscan_code(NULL, 0, MAGIC_311, &mc) == 0);
    cr_assert(cpk_mscan_code(NULL, 4, MAGIC_311, &mc) == 0);
    free(data);
    /* Every proper prefix of code holding every constant kind. */
    static const char *const full[] = {
        "mk(311, consts=Raw(marshal.dumps((1.5, 2j, -2**100, [1, 'a'],\n"
        "   {1}, frozenset({2}), b'x', 'y', {'k': 1}), 0)))",
        "mk(311, consts=Raw(marshal.dumps(('s', 's', 1.5, 2j), 4)))",
        "mk(310, flags=0x04, varnames=('a', 'b', 'c'), freevars=('z',))",
    };
    for (size_t k = 0; k < sizeof full / sizeof full[0]; k++) {
        long magic = k == 2 ? MAGIC_310 : MAGIC_311;
        data = make(full[k], &len);
        cr_assert(cpk_mscan_code(data, len, magic, &mc) == 1, "%zu", k);
        cpk_mscan_free(&mc);
        for (size_t n = 1; n < len; n++)
            cr_assert(cpk_mscan_code(data, n, magic, &mc) == 0,
                      "%zu: prefix of %zu bytes read", k, n);
        free(data);
    }
    /* A code object whose constants refer back to itself while it is
     * being read (FLAG_REF on the code, then reference 0). */
    data = make("(lambda b: bytes([b[0] | 0x80]) + b[1:])(\n"
                "    mk(311, consts=Raw(b'r\\x00\\x00\\x00\\x00')))",
                &len);
    cr_assert(cpk_mscan_code(data, len, MAGIC_311, &mc) == 0);
    free(data);
}

Test(cov_marshal_fields, versions_of_magic_numbers)
{
    static const struct {
        long magic;
        const char *v;
    } known[] = {{3400, "3.9"},  {3425, "3.9"},  {3430, "3.10"},
                 {3439, "3.10"}, {3450, "3.11"}, {3495, "3.11"},
                 {3500, "3.12"}, {3531, "3.12"}, {3550, "3.13"},
                 {3571, "3.13"}, {3600, "3.14"}, {3699, "3.14"}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        const char *v = cpk_mscan_version(known[i].magic);
        cr_assert(v != NULL && strcmp(v, known[i].v) == 0, "%ld: %s",
                  known[i].magic, v ? v : "(null)");
    }
    static const long unknown[] = {3399, 3426, 3440, 3496, 3532, 3572, 3700};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
        cr_assert_null(cpk_mscan_version(unknown[i]), "%ld", unknown[i]);
}
