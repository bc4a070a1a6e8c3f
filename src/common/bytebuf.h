/* bytebuf.h - the growable byte buffer of src/ and cli/ (bytebuf.c):
 * plain C, no Python. The code writer (types/codewrite.c) and the result
 * encoder and record batches of --map (cli/map/) append to one. Arrays of
 * other elements grow with growarray.h; the pickler's output is a Python
 * bytes object grown in place (core/memio.c).
 *
 * The contract:
 *
 * - A zero-initialised cpk_bytebuf is empty and owns nothing:
 *   `cpk_bytebuf b = {0};`. The bytes are data[0 .. len); data is NULL
 *   until the first byte arrives.
 * - cpk_bytebuf_init_on() starts it on an array of the caller's (on the
 *   stack, say): the bytes go there until they outgrow it, then into a
 *   block of the buffer's own, and the array is never freed.
 * - The buffer's own block comes from malloc and grows by doubling, from
 *   256 bytes. len never passes CPK_BYTEBUF_MAX, so that it fits a
 *   ssize_t (a Py_ssize_t) as well.
 * - A call that fails (out of memory, or a length past CPK_BYTEBUF_MAX)
 *   returns -1 and leaves the buffer as it was. Nothing here sets a
 *   Python exception: a caller under the interpreter raises MemoryError
 *   itself.
 * - The caller may shorten len (back to a mark, or to 0 to reuse the
 *   buffer), and may write up to cap - len bytes at data + len after
 *   cpk_bytebuf_reserve(), then add what it wrote to len.
 * - cpk_bytebuf_release() frees the buffer's own block and leaves the
 *   buffer empty and zeroed, ready for use again.
 */
#ifndef CPK_COMMON_BYTEBUF_H
#define CPK_COMMON_BYTEBUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The longest a buffer gets (SSIZE_MAX where size_t and ssize_t are of
 * one width, as on every platform CPython supports). */
#define CPK_BYTEBUF_MAX (SIZE_MAX / 2)

typedef struct {
    char *data;
    size_t len;  /* bytes held */
    size_t cap;  /* bytes data has room for */
    int on_caller; /* data is the caller's array (cpk_bytebuf_init_on) */
} cpk_bytebuf;

/* Start b empty on the caller's array of `size` bytes, which must outlive
 * b's use of it. */
static inline void
cpk_bytebuf_init_on(cpk_bytebuf *b, char *array, size_t size)
{
    b->data = array;
    b->len = 0;
    b->cap = size;
    b->on_caller = 1;
}

/* Room for n more bytes at data + len: 0, or -1 (buffer unchanged). */
int cpk_bytebuf_reserve(cpk_bytebuf *b, size_t n);

/* cpk_bytebuf_put when the bytes do not fit: grows, then appends. */
int cpk_bytebuf_grow_put(cpk_bytebuf *b, const void *p, size_t n);

/* Append the n bytes at p (p may be NULL when n is 0): 0, or -1 (buffer
 * unchanged). Inline: the writers put a byte or two at a time. */
static inline int
cpk_bytebuf_put(cpk_bytebuf *b, const void *p, size_t n)
{
    if (n <= b->cap - b->len) {
        if (n > 0)
            memcpy(b->data + b->len, p, n);
        b->len += n;
        return 0;
    }
    return cpk_bytebuf_grow_put(b, p, n);
}

/* Append the low 32 bits of v, least significant byte first (marshal's
 * 4-byte integers and lengths): 0, or -1 (buffer unchanged). */
static inline int
cpk_bytebuf_put_le32(cpk_bytebuf *b, long v)
{
    unsigned char le[4] = {(unsigned char)(v & 0xff),
                           (unsigned char)((v >> 8) & 0xff),
                           (unsigned char)((v >> 16) & 0xff),
                           (unsigned char)((v >> 24) & 0xff)};
    return cpk_bytebuf_put(b, le, sizeof(le));
}

/* Free what b owns; b is then empty and zeroed. */
void cpk_bytebuf_release(cpk_bytebuf *b);

#endif
