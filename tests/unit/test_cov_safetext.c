/* test_cov_safetext.c - cli/common/safetext.c compiled in: untrusted text made
 * safe for a terminal (cpk_put_safe) and for JSON (cpk_put_json_str).
 * UTF-8 of every length passes, including the edges of the 3- and 4-byte
 * ranges; overlong, surrogate, out-of-range and cut-short sequences are
 * escaped byte by byte; backslash, tab, newline, CR and the bidirectional
 * controls are escaped; NULL is '?' or null. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "../../cli/common/safetext.c"

static char *
safe(const char *s, size_t n, int json)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    cr_assert_not_null(m);
    if (json)
        cpk_put_json_str(m, s, n);
    else
        cpk_put_safe(m, s, n);
    cr_assert_eq(fclose(m), 0);
    return buf;
}

static void
check(const char *in, const char *terminal, const char *json)
{
    size_t n = strlen(in);
    char *t = safe(in, n, 0);
    cr_assert_str_eq(t, terminal, "terminal form of '%s'", in);
    free(t);
    char *j = safe(in, n, 1);
    cr_assert_str_eq(j, json, "JSON form of '%s'", in);
    free(j);
}

Test(cov_safetext, valid_utf8_of_every_length_passes)
{
    /* U+00E9, U+0800 (first 3-byte), U+D7FF (before the surrogates),
     * U+10000 (first 4-byte), U+1F600, U+10FFFF (last) */
    const char *s = "\xc3\xa9 \xe0\xa0\x80 \xed\x9f\xbf \xf0\x90\x80\x80 "
                    "\xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf";
    char json[128];
    snprintf(json, sizeof(json), "\"%s\"", s);
    check(s, s, json);
}

Test(cov_safetext, invalid_sequences_are_escaped_byte_by_byte)
{
    /* overlong E0 80 80, surrogate ED A0 80, beyond U+10FFFF F4 90 80 80,
     * F5, a bad continuation E2 28 A1, a 4-byte start cut short */
    check("\xe0\x80\x80", "\\xe0\\x80\\x80", "\"\\udce0\\udc80\\udc80\"");
    check("\xed\xa0\x80", "\\xed\\xa0\\x80", "\"\\udced\\udca0\\udc80\"");
    check("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80",
          "\"\\udcf4\\udc90\\udc80\\udc80\"");
    check("\xf5", "\\xf5", "\"\\udcf5\"");
    check("\xe2\x28\xa1", "\\xe2(\\xa1", "\"\\udce2(\\udca1\"");
    check("\xf0\x9f\x98", "\\xf0\\x9f\\x98", "\"\\udcf0\\udc9f\\udc98\"");
}

Test(cov_safetext, controls_are_escaped)
{
    check("a\\b\tc\nd\re\"f", "a\\\\b\\tc\\nd\\re\"f",
          "\"a\\\\b\\tc\\nd\\re\\\"f\"");
    /* BEL, DEL, U+0085, U+202E, U+2066 */
    check("\x07\x7f\xc2\x85\xe2\x80\xae\xe2\x81\xa6",
          "\\x07\\x7f\\u0085\\u202e\\u2066",
          "\"\\u0007\\u007f\\u0085\\u202e\\u2066\"");
}

Test(cov_safetext, null_text)
{
    char *t = safe(NULL, 0, 0);
    cr_assert_str_eq(t, "?");
    free(t);
    char *j = safe(NULL, 0, 1);
    cr_assert_str_eq(j, "null");
    free(j);
}
