/* test_bytebuf.c - the growable byte buffer (src/common/bytebuf.h): growth
 * by doubling with the bytes kept, a size past the limit refused with the
 * buffer left as it was, a caller's first array copied and never freed,
 * release leaving it zeroed and reusable, reserve then a write in place,
 * and put_le32's bytes. No Python: the buffer is plain C. */
#include <stdint.h>
#include <string.h>

#include "common/bytebuf.h"

#include <criterion/criterion.h>

/* b's fields are all zero: empty, owning nothing. */
static void
assert_zeroed(const cpk_bytebuf *b)
{
    cr_assert_null(b->data);
    cr_assert_eq(b->len, 0);
    cr_assert_eq(b->cap, 0);
    cr_assert_eq(b->on_caller, 0);
}

Test(bytebuf, zero_initialised_is_empty_and_takes_nothing)
{
    cpk_bytebuf b = {0};
    /* Nothing to copy from: no allocation, no memcpy of a NULL. */
    cr_assert_eq(cpk_bytebuf_put(&b, NULL, 0), 0);
    assert_zeroed(&b);
    cpk_bytebuf_release(&b);
    assert_zeroed(&b);
}

Test(bytebuf, grows_by_doubling_from_256_and_keeps_the_bytes)
{
    cpk_bytebuf b = {0};
    cr_assert_eq(cpk_bytebuf_put(&b, "x", 1), 0);
    cr_assert_eq(b.cap, 256);
    cr_assert_eq(b.len, 1);
    char block[300];
    memset(block, 'y', sizeof(block));
    cr_assert_eq(cpk_bytebuf_put(&b, block, sizeof(block)), 0);
    cr_assert_eq(b.cap, 512);
    cr_assert_eq(b.len, 301);
    /* A byte at a time, as the writers put them. */
    for (size_t i = b.len; i < 100000; i++) {
        char c = (char)(i % 251);
        cr_assert_eq(cpk_bytebuf_put(&b, &c, 1), 0);
    }
    cr_assert_eq(b.len, 100000);
    cr_assert_eq(b.cap, 131072);
    cr_assert_eq(b.data[0], 'x');
    for (size_t i = 1; i < 301; i++)
        cr_assert_eq(b.data[i], 'y', "byte %zu", i);
    for (size_t i = 301; i < b.len; i++)
        cr_assert_eq(b.data[i], (char)(i % 251), "byte %zu", i);
    cpk_bytebuf_release(&b);
    assert_zeroed(&b);
}

Test(bytebuf, a_size_past_the_limit_is_refused_and_changes_nothing)
{
    cpk_bytebuf b = {0};
    cr_assert_eq(cpk_bytebuf_put(&b, "abc", 3), 0);
    char *data = b.data;
    size_t cap = b.cap;
    static const char src[1];
    /* Sizes known only at run time, as a caller's are (a constant one
     * would have the compiler warn about the inline memcpy it guards). */
    volatile size_t huge = SIZE_MAX, past = CPK_BYTEBUF_MAX - 2;
    /* None is allocated: each is refused before malloc. */
    cr_assert_eq(cpk_bytebuf_put(&b, src, huge), -1);
    cr_assert_eq(cpk_bytebuf_put(&b, src, past), -1);
    cr_assert_eq(cpk_bytebuf_reserve(&b, huge), -1);
    cr_assert_eq(cpk_bytebuf_reserve(&b, past), -1);
    cr_assert_eq(b.data, data);
    cr_assert_eq(b.len, 3);
    cr_assert_eq(b.cap, cap);
    cr_assert_eq(memcmp(b.data, "abc", 3), 0);
    /* And it still works. */
    cr_assert_eq(cpk_bytebuf_put(&b, "d", 1), 0);
    cr_assert_eq(memcmp(b.data, "abcd", 4), 0);
    cpk_bytebuf_release(&b);
}

Test(bytebuf, release_leaves_it_zeroed_and_reusable)
{
    cpk_bytebuf b = {0};
    for (int round = 0; round < 3; round++) {
        char block[1000];
        memset(block, 'a' + round, sizeof(block));
        cr_assert_eq(cpk_bytebuf_put(&b, block, sizeof(block)), 0);
        cr_assert_eq(b.len, sizeof(block));
        cr_assert_eq(b.cap, 1024);
        cr_assert_eq(memcmp(b.data, block, sizeof(block)), 0);
        cpk_bytebuf_release(&b);
        assert_zeroed(&b);
    }
}

Test(bytebuf, a_callers_array_is_used_then_copied_and_never_freed)
{
    char first[8];
    memset(first, '-', sizeof(first));
    cpk_bytebuf b;
    cpk_bytebuf_init_on(&b, first, sizeof(first));
    cr_assert_eq(cpk_bytebuf_put(&b, "12345", 5), 0);
    cr_assert_eq(b.data, first);
    cr_assert_eq(b.on_caller, 1);
    cr_assert_eq(cpk_bytebuf_put(&b, "6789", 4), 0);
    cr_assert_neq(b.data, first);
    cr_assert_eq(b.on_caller, 0);
    cr_assert_eq(b.cap, 16); /* doubled from the array's size */
    cr_assert_eq(memcmp(b.data, "123456789", 9), 0);
    /* What fitted stays in the array; the rest never went there. */
    cr_assert_eq(memcmp(first, "12345---", 8), 0);
    cpk_bytebuf_release(&b);
    assert_zeroed(&b);

    /* Released while still on the array: the array is not freed (a
     * free() of a stack array would abort the test). */
    cpk_bytebuf_init_on(&b, first, sizeof(first));
    cr_assert_eq(cpk_bytebuf_put(&b, "ab", 2), 0);
    cpk_bytebuf_release(&b);
    assert_zeroed(&b);
}

Test(bytebuf, reserve_then_write_in_place_and_truncate_to_a_mark)
{
    cpk_bytebuf b = {0};
    cr_assert_eq(cpk_bytebuf_put(&b, "head:", 5), 0);
    cr_assert_eq(cpk_bytebuf_reserve(&b, 600), 0);
    cr_assert_geq(b.cap - b.len, 600);
    cr_assert_eq(b.cap, 1024);
    char *data = b.data;
    memset(b.data + b.len, 'z', 600);
    b.len += 600;
    /* Room already there: nothing moves. */
    cr_assert_eq(cpk_bytebuf_reserve(&b, b.cap - b.len), 0);
    cr_assert_eq(b.data, data);
    cr_assert_eq(memcmp(b.data, "head:zz", 7), 0);
    size_t mark = 5;
    b.len = mark;
    cr_assert_eq(cpk_bytebuf_put(&b, "tail", 4), 0);
    cr_assert_eq(b.len, 9);
    cr_assert_eq(memcmp(b.data, "head:tail", 9), 0);
    cpk_bytebuf_release(&b);
}

Test(bytebuf, put_le32_writes_the_low_32_bits_least_significant_first)
{
    cpk_bytebuf b = {0};
    cr_assert_eq(cpk_bytebuf_put_le32(&b, 0x12345678L), 0);
    cr_assert_eq(cpk_bytebuf_put_le32(&b, -2L), 0);
    cr_assert_eq(cpk_bytebuf_put_le32(&b, 0), 0);
    cr_assert_eq(cpk_bytebuf_put_le32(&b, INT32_MIN), 0);
    static const unsigned char want[16] = {
        0x78, 0x56, 0x34, 0x12, 0xfe, 0xff, 0xff, 0xff,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80,
    };
    cr_assert_eq(b.len, sizeof(want));
    cr_assert_eq(memcmp(b.data, want, sizeof(want)), 0);
    cpk_bytebuf_release(&b);
}
