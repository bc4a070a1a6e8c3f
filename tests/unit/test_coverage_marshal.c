/* test_coverage_marshal.c - the marshal reader (src/scan/marshal_scan.c) on
 * code objects whose constants hold a dict (TYPE_DICT: pairs up to a
 * TYPE_NULL) or a slice (TYPE_SLICE, marshal version 5, CPython 3.14):
 * read through to the code's name and parameters when well formed,
 * refused (nothing reported, nothing leaked) when not. The code objects
 * are this interpreter's marshal of a small function, with one constant
 * replaced by the bytes under test. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "scan/marshal_scan.h"

TestSuite(coverage_marshal, .init = cpk_py_start, .fini = cpk_py_stop);

#define MAGIC_311 3495 /* the layout of 3.11 and later */
#define MAGIC_314 3600

/* code.replace() keywords naming it f: co_qualname from 3.11 on. */
#define NAMED_F                                                              \
    "**{k: 'f' for k in ('co_name', 'co_qualname')"                         \
    " if hasattr((lambda: 0).__code__, k)}"

/* marshal.dumps of f's code, f(a, b, *rest), whose constants are
 * (None, <x>): x's n bytes stand where a marker string was written, with
 * the marker's FLAG_REF bit, so every later back-reference still finds
 * its slot. Malloc'd; its length in *len. */
/* The tests splice into this Python's marshal output and read it as
 * code of 3.11's layout (co_qualname, co_exceptiontable), which 3.9 and
 * 3.10 do not write. */
static void
need_311_layout(void)
{
#if PY_VERSION_HEX < 0x030B0000
    cr_skip_test("marshal of Python %d.%d writes another code layout than "
                 "the 3.11 one these tests read",
                 PY_MAJOR_VERSION, PY_MINOR_VERSION);
#endif
}

static uint8_t *
code_with_const(const char *x, size_t n, size_t *len)
{
    need_311_layout();
    size_t blen;
    char *base = cpk_py_bytes(
        "(lambda: __import__('marshal').dumps("
        "(lambda a, b, *rest: a).__code__.replace("
        "co_consts=(None, 'Qz9Qz9'), " NAMED_F ")))()",
        &blen);
    char *at = memmem(base, blen, "Qz9Qz9", 6);
    cr_assert(at != NULL && at - base >= 2);
    size_t pos = (size_t)(at - base) - 2; /* type byte, 1-byte length */
    uint8_t type = (uint8_t)base[pos];
    cr_assert(((type & 0x7f) == 'z' || (type & 0x7f) == 'Z') &&
                  base[pos + 1] == 6,
              "marker written as type %#x", type);
    size_t tail = blen - (pos + 8);
    uint8_t *out = malloc(pos + n + tail);
    cr_assert(out != NULL);
    memcpy(out, base, pos);
    memcpy(out + pos, x, n);
    out[pos] = (uint8_t)((uint8_t)x[0] | (type & 0x80));
    memcpy(out + pos + n, base + pos + 8, tail);
    *len = pos + n + tail;
    free(base);
    return out;
}

/* The code's name and its parameters "a,b,rest" read back. */
static void
assert_read_code(const uint8_t *code, size_t len, long magic)
{
    cpk_mcode mc;
    cr_assert(cpk_mscan_code(code, len, magic, &mc) == 1,
              "not read (magic %ld)", magic);
    cr_assert_eq(mc.name.len, 1);
    cr_assert(memcmp(mc.name.p, "f", 1) == 0);
    cr_assert_eq(mc.argcount, 2);
    cr_assert_eq(mc.n_params, 3);
    static const char *const names[] = {"a", "b", "rest"};
    for (size_t i = 0; i < 3; i++)
        cr_assert(mc.params[i].len == strlen(names[i]) &&
                      memcmp(mc.params[i].p, names[i], mc.params[i].len) ==
                          0,
                  "parameter %zu", i);
    cpk_mscan_free(&mc);
}

static void
assert_read(const char *x, size_t n, long magic)
{
    size_t len;
    uint8_t *code = code_with_const(x, n, &len);
    assert_read_code(code, len, magic);
    free(code);
}

static void
assert_refused(const char *x, size_t n, long magic)
{
    size_t len;
    uint8_t *code = code_with_const(x, n, &len);
    cpk_mcode mc;
    cr_assert(cpk_mscan_code(code, len, magic, &mc) == 0, "read");
    cr_assert_null(mc.params);
    cr_assert_null(mc.name.p);
    free(code);
}

#define READ(lit, magic) assert_read((lit), sizeof(lit) - 1, (magic))
#define REFUSED(lit, magic) assert_refused((lit), sizeof(lit) - 1, (magic))

/* The splice itself: the marker put back reads as before. */
Test(coverage_marshal, unchanged_code_reads)
{
    READ("z\x06Qz9Qz9", MAGIC_311);
}

Test(coverage_marshal, dict_constant_is_read_through)
{
    /* {} */
    READ("{0", MAGIC_311);
    /* {'k': 1, 2: (None, 'x')} */
    READ("{z\x01ki\x01\x00\x00\x00i\x02\x00\x00\x00)\x02Nz\x01x0",
         MAGIC_311);
    /* {'q': {'r': 1.5}}, nested */
    READ("{z\x01q{z\x01rg\x00\x00\x00\x00\x00\x00\xf8\x3f" "00",
         MAGIC_311);
}

/* A dict met again is a back-reference to its slot, which it holds
 * from its first byte: as marshal.dumps writes it. */
Test(coverage_marshal, dict_met_twice_is_a_back_reference)
{
    need_311_layout();
    size_t len;
    char *code = cpk_py_bytes(
        "(lambda d: __import__('marshal').dumps("
        "(lambda a, b, *rest: a).__code__.replace("
        "co_consts=(None, d, d, (d,)), " NAMED_F ")))"
        "({'k': 1})",
        &len);
    char *first = memchr(code, '{' | 0x80, len);
    cr_assert(first != NULL, "the dict has no FLAG_REF");
    cr_assert(memchr(first + 1, 'r', len - (size_t)(first + 1 - code)));
    assert_read_code((uint8_t *)code, len, MAGIC_311);
    free(code);
}

Test(coverage_marshal, malformed_dict_is_refused)
{
    /* a key without its value: the TYPE_NULL that ends a dict comes
     * where a value must */
    REFUSED("{z\x01k0", MAGIC_311);
    /* a key of an unknown type */
    REFUSED("{?i\x01\x00\x00\x00" "0", MAGIC_311);
}

Test(coverage_marshal, slice_constant_is_read_through)
{
    /* slice(None, 1, None) and slice(0, (1, 2), 'x'), as 3.14 writes
     * them */
    READ(":Ni\x01\x00\x00\x00N", MAGIC_314);
    READ(":i\x00\x00\x00\x00)\x02i\x01\x00\x00\x00i\x02\x00\x00\x00z\x01x",
         MAGIC_314);
    /* a slice inside a tuple, next to a dict */
    READ(")\x02:NNN{0", MAGIC_314);
}

Test(coverage_marshal, malformed_slice_is_refused)
{
    /* TYPE_NULL as a member */
    REFUSED(":N0N", MAGIC_314);
    /* a member of an unknown type */
    REFUSED(":N?N", MAGIC_314);
}
