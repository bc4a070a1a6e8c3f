/* growarray.h - the growable arrays of the static scanners (pkscan.c,
 * marshal_scan.c, policy.c): plain C, no Python. Only the capacity is
 * here; the caller keeps the count and indexes the array. Bytes appended
 * one run after another go to a cpk_bytebuf (bytebuf.h). */
#ifndef CPK_COMMON_GROWARRAY_H
#define CPK_COMMON_GROWARRAY_H

#include <stddef.h>
#include <stdlib.h>

/* Make *arr (of *cap elements of `elem` bytes) hold at least `need`,
 * doubling from 16. Returns 0, or -1 (out of memory, or a size that would
 * overflow) with *arr and *cap unchanged. */
static inline int
cpk_grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (ncap > ((size_t)-1) / 4 / elem)
            return -1;
        ncap *= 2;
    }
    void *p = realloc(*arr, ncap * elem);
    if (p == NULL)
        return -1;
    *arr = p;
    *cap = ncap;
    return 0;
}

#endif
