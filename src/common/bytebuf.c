/* bytebuf.c - the growable byte buffer's slow path: growth and release
 * (the contract and the inline put are bytebuf.h's). Plain C, no Python. */
#include "common/bytebuf.h"

#include <stdlib.h>
#include <string.h>

int
cpk_bytebuf_reserve(cpk_bytebuf *b, size_t n)
{
    if (n <= b->cap - b->len)
        return 0;
    if (n > CPK_BYTEBUF_MAX - b->len)
        return -1;
    /* Doubling stays below SIZE_MAX: the need is at most SIZE_MAX / 2. */
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < n)
        cap *= 2;
    /* The caller's array is copied, never reallocated or freed. */
    char *d = b->on_caller ? malloc(cap) : realloc(b->data, cap);
    if (d == NULL)
        return -1;
    if (b->on_caller && b->len > 0)
        memcpy(d, b->data, b->len);
    b->data = d;
    b->cap = cap;
    b->on_caller = 0;
    return 0;
}

int
cpk_bytebuf_grow_put(cpk_bytebuf *b, const void *p, size_t n)
{
    if (cpk_bytebuf_reserve(b, n) < 0)
        return -1;
    if (n > 0)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    return 0;
}

void
cpk_bytebuf_release(cpk_bytebuf *b)
{
    if (!b->on_caller)
        free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
    b->on_caller = 0;
}
