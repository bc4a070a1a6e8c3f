/* safetext.h - bytes from an untrusted pickle, written so that they cannot
 * act on a terminal or fake a line of a report: the text printer
 * (describe.c) and the JSON printer (describe_json.c) use these, the
 * scan itself is src/scan/pkscan.h's. */
#ifndef CPK_CLI_COMMON_SAFETEXT_H
#define CPK_CLI_COMMON_SAFETEXT_H

#include <stddef.h>
#include <stdio.h>

/* Length of the well-formed UTF-8 sequence at p[0, n) (strict: no
 * surrogates, no overlong forms, at most U+10FFFF), 0 if p[0] starts
 * none. *cp receives the code point. */
size_t cpk_utf8_seq(const unsigned char *p, size_t n, unsigned long *cp);

/* Write p[0, n) for a terminal: valid UTF-8 passes through except control
 * characters (C0, DEL, C1), the line and paragraph separators and the
 * bidirectional controls (U+061C, U+200E/F, U+202A-E, U+2066-9), which
 * are written as \n \t \r or \uXXXX; a byte that is not valid UTF-8 as \xNN; a
 * backslash as \\ (so the escapes are unambiguous). A NULL p writes "?". */
void cpk_put_safe(FILE *out, const char *p, size_t n);

/* Write p[0, n) as a JSON string with its quotes (RFC 8259): ", \ and
 * control characters escaped, valid UTF-8 as itself (U+2028/9 and the
 * bidirectional controls as \uXXXX), each byte that is not part of valid
 * UTF-8 as \udcNN (the lone surrogate of Python's "surrogateescape"). A
 * NULL p writes null. */
void cpk_put_json_str(FILE *out, const char *p, size_t n);

#endif
