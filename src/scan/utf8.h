/* utf8.h - UTF-8 validity as CPython's decoder judges it, for the scans
 * (pkscan_walk.c, pkcheck.c). Pure C. */
#ifndef CPK_SCAN_UTF8_H
#define CPK_SCAN_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* 1 if s[0, n) decodes as UTF-8; `surrogates`: accept encoded surrogates
 * (the "surrogatepass" error handler of BINUNICODE). */
static inline int cpk_utf8_ok(const uint8_t *s, size_t n, int surrogates)
{
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t k;
        uint32_t cp;
        if (c >= 0xc2 && c <= 0xdf) {
            k = 1;
            cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            k = 2;
            cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            k = 3;
            cp = c & 0x07;
        } else {
            return 0;
        }
        if (n - i <= k)
            return 0;
        for (size_t j = 1; j <= k; j++) {
            if ((s[i + j] & 0xc0) != 0x80)
                return 0;
            cp = cp << 6 | (s[i + j] & 0x3f);
        }
        if ((k == 2 && cp < 0x800) ||
            (k == 3 && (cp < 0x10000 || cp > 0x10ffff)))
            return 0;
        if (!surrogates && cp >= 0xd800 && cp <= 0xdfff)
            return 0;
        i += k + 1;
    }
    return 1;
}

#endif
