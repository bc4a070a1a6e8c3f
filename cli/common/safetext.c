/* safetext.c - escaping of untrusted text for terminals and JSON
 * (safetext.h). */
#include "common/safetext.h"

#include <stdio.h>

size_t
cpk_utf8_seq(const unsigned char *p, size_t n, unsigned long *cp)
{
    unsigned char c = p[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t k;
    unsigned char lo = 0x80, hi = 0xbf;
    unsigned long v;
    if (c >= 0xc2 && c <= 0xdf)
        k = 1, v = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef) {
        k = 2, v = c & 0x0f;
        if (c == 0xe0)
            lo = 0xa0;
        else if (c == 0xed)
            hi = 0x9f; /* no surrogates */
    }
    else if (c >= 0xf0 && c <= 0xf4) {
        k = 3, v = c & 0x07;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f;
    }
    else
        return 0;
    if (n <= k || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t j = 1; j <= k; j++) {
        if (p[j] < 0x80 || p[j] > 0xbf)
            return 0;
        v = (v << 6) | (p[j] & 0x3f);
    }
    *cp = v;
    return k + 1;
}

/* Characters that move the cursor, end a line or reorder what a terminal
 * shows, though they are valid text. The bidirectional controls are the
 * whole "Trojan Source" set (CVE-2021-42574): U+061C ARABIC LETTER MARK,
 * U+200E/F, U+202A-E, U+2066-9. */
static int
unsafe_cp(unsigned long cp)
{
    return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x2028 ||
           cp == 0x2029 || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
           (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

void
cpk_put_safe(FILE *out, const char *s, size_t n)
{
    if (s == NULL) {
        fputc('?', out);
        return;
    }
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        unsigned long cp;
        size_t k = cpk_utf8_seq(p + i, n - i, &cp);
        if (k == 0) {
            fprintf(out, "\\x%02x", p[i]);
            i++;
            continue;
        }
        if (cp == '\\')
            fputs("\\\\", out);
        else if (cp == '\n')
            fputs("\\n", out);
        else if (cp == '\t')
            fputs("\\t", out);
        else if (cp == '\r')
            fputs("\\r", out);
        else if (unsafe_cp(cp))
            fprintf(out, cp < 0x80 ? "\\x%02lx" : "\\u%04lx", cp);
        else
            fwrite(p + i, 1, k, out);
        i += k;
    }
}

void
cpk_put_json_str(FILE *out, const char *s, size_t n)
{
    if (s == NULL) {
        fputs("null", out);
        return;
    }
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', out);
    size_t i = 0;
    while (i < n) {
        unsigned long cp;
        size_t k = cpk_utf8_seq(p + i, n - i, &cp);
        if (k == 0) {
            fprintf(out, "\\udc%02x", p[i]);
            i++;
            continue;
        }
        switch (cp) {
        case '"':
            fputs("\\\"", out);
            break;
        case '\\':
            fputs("\\\\", out);
            break;
        case '\n':
            fputs("\\n", out);
            break;
        case '\t':
            fputs("\\t", out);
            break;
        case '\r':
            fputs("\\r", out);
            break;
        default:
            if (unsafe_cp(cp))
                fprintf(out, "\\u%04lx", cp);
            else
                fwrite(p + i, 1, k, out);
        }
        i += k;
    }
    fputc('"', out);
}
