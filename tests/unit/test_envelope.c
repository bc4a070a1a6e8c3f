/* test_envelope.c - the signed envelope's C API (src/scan/envelope.h): a sealed
 * pickle parses and verifies with its key, every field sits where the
 * documented layout puts it, and every alteration is refused with the
 * status that names it: each byte of a small signed file flipped, every
 * truncation, a trailing byte, another key, a short key, lengths that
 * would overflow. No Python involved. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "scan/envelope.h"

TestSuite(envelope);

/* A protocol 5 pickle of 7: PROTO 5, BININT1 7, STOP. */
static const unsigned char small_pickle[] = {0x80, 0x05, 'K', 0x07, '.'};

static unsigned char key_a[32], key_b[32];

static void
make_keys(void)
{
    for (int i = 0; i < 32; i++) {
        key_a[i] = (unsigned char)(i * 7 + 1);
        key_b[i] = (unsigned char)(i * 7 + 2);
    }
}

static cpk_envelope
header(const char *tool, int protocol)
{
    cpk_envelope h;
    memset(&h, 0, sizeof(h));
    strcpy(h.tool_version, tool);
    h.py_major = 3;
    h.py_minor = 11;
    h.py_micro = 2;
    h.bytecode_magic = 3495;
    h.protocol = protocol;
    return h;
}

/* Seal small_pickle with key_a; *len gets the size. Caller frees. */
static unsigned char *
sealed(size_t *len)
{
    make_keys();
    cpk_envelope h = header("0.1.0", 5);
    *len = cpk_envelope_size("0.1.0", sizeof(small_pickle));
    cr_assert_eq(*len, 35 + 5 + sizeof(small_pickle) + 32);
    unsigned char *out = malloc(*len);
    cr_assert_eq(cpk_envelope_seal(&h, small_pickle, sizeof(small_pickle),
                                   key_a, 32, out),
                 CPK_ENV_OK);
    return out;
}

/* Parse, then verify with `key` if the parse succeeded. */
static cpk_env_status
check(const unsigned char *d, size_t len, const unsigned char *key,
      size_t keylen, size_t *at)
{
    cpk_envelope env;
    size_t off = 12345;
    cpk_env_status s = cpk_envelope_parse(d, len, &env, &off);
    if (at != NULL)
        *at = off;
    if (s != CPK_ENV_OK)
        return s;
    return cpk_envelope_verify(&env, d, key, keylen);
}

Test(envelope, round_trip)
{
    size_t len;
    unsigned char *d = sealed(&len);
    cr_assert(cpk_envelope_is_signed(d, len));
    cpk_envelope env;
    size_t at = 99;
    cr_assert_eq(cpk_envelope_parse(d, len, &env, &at), CPK_ENV_OK);
    cr_assert_eq(at, 0);
    cr_assert_eq(env.format_version, 1);
    cr_assert_str_eq(env.tool_version, "0.1.0");
    cr_assert_eq(env.py_major, 3);
    cr_assert_eq(env.py_minor, 11);
    cr_assert_eq(env.py_micro, 2);
    cr_assert_eq(env.bytecode_magic, 3495);
    cr_assert_eq(env.protocol, 5);
    cr_assert_eq(env.header_len, 40);
    cr_assert_eq(env.pickle_len, sizeof(small_pickle));
    cr_assert(env.pickle == d + 40);
    cr_assert_arr_eq(env.pickle, small_pickle, sizeof(small_pickle));
    cr_assert(env.mac == d + 40 + sizeof(small_pickle));
    cr_assert_eq(cpk_envelope_verify(&env, d, key_a, 32), CPK_ENV_OK);
    /* A longer key is a different key, and fine. */
    unsigned char long_key[64];
    memcpy(long_key, key_a, 32);
    memset(long_key + 32, 0x5a, 32);
    cr_assert_eq(cpk_envelope_verify(&env, d, long_key, 64),
                 CPK_ENV_WRONG_KEY);
    free(d);
}

/* The bytes sit where envelope.h and doc/FORMAT.md say, and the key id
 * and MAC are HMAC-SHA256 as documented (computed here independently). */
Test(envelope, layout_as_documented)
{
    size_t len;
    unsigned char *d = sealed(&len);
    cr_assert_arr_eq(d, "\xcf" "CPKSIG\n", 8);
    cr_assert_eq(d[8], 0);
    cr_assert_eq(d[9], 1);
    cr_assert_eq(d[10] << 8 | d[11], 40);
    cr_assert_eq(d[12], 5);
    cr_assert_arr_eq(d + 13, "0.1.0", 5);
    cr_assert_eq(d[18], 3);
    cr_assert_eq(d[19], 11);
    cr_assert_eq(d[20], 2);
    cr_assert_eq(d[21] << 8 | d[22], 3495);
    cr_assert_eq(d[23], 5);
    unsigned char mac[32];
    unsigned int n = 0;
    HMAC(EVP_sha256(), key_a, 32, (const unsigned char *)"ccloudpickle key id",
         19, mac, &n);
    cr_assert_arr_eq(d + 24, mac, 8);
    unsigned char id[8];
    cr_assert_eq(cpk_envelope_key_id(key_a, 32, id), 0);
    cr_assert_arr_eq(id, mac, 8);
    for (int i = 0; i < 7; i++)
        cr_assert_eq(d[32 + i], 0);
    cr_assert_eq(d[39], sizeof(small_pickle));
    cr_assert_arr_eq(d + 40, small_pickle, sizeof(small_pickle));
    HMAC(EVP_sha256(), key_a, 32, d, 40 + sizeof(small_pickle), mac, &n);
    cr_assert_arr_eq(d + 40 + sizeof(small_pickle), mac, 32);
    cr_assert_eq(len, 40 + sizeof(small_pickle) + 32);
    free(d);
}

/* What flipping bits `mask` of byte `i` of the sealed small pickle must
 * give (n = 5, H = 40, P = 5). */
static cpk_env_status
expected_after_flip(const unsigned char *orig, size_t i, unsigned char mask)
{
    unsigned char v = orig[i] ^ mask;
    if (i < 8)
        return CPK_ENV_NOT_SIGNED;
    if (i < 10)
        return CPK_ENV_FORMAT;
    if (i < 13) /* H, n: the two must agree */
        return CPK_ENV_BAD_HEADER;
    if (i < 18) /* tool version: printable ASCII without spaces */
        return v > 0x20 && v < 0x7f ? CPK_ENV_BAD_MAC : CPK_ENV_BAD_HEADER;
    if (i < 23) /* CPython version, bytecode magic */
        return CPK_ENV_BAD_MAC;
    if (i == 23)
        return v <= 5 ? CPK_ENV_BAD_MAC : CPK_ENV_BAD_HEADER;
    if (i < 32)
        return CPK_ENV_WRONG_KEY;
    if (i < 40) {
        uint64_t p = 0;
        for (size_t j = 32; j < 40; j++)
            p = p << 8 | (j == i ? v : orig[j]);
        if (p == 0)
            return CPK_ENV_BAD_HEADER;
        return p > sizeof(small_pickle) ? CPK_ENV_TRUNCATED
                                        : CPK_ENV_TRAILING;
    }
    return CPK_ENV_BAD_MAC; /* the pickle and the MAC itself */
}

Test(envelope, every_byte_altered_is_refused_with_its_status)
{
    size_t len;
    unsigned char *d = sealed(&len);
    unsigned char *t = malloc(len);
    static const unsigned char masks[] = {0x01, 0x02, 0x10, 0x80, 0xff};
    int seen[CPK_ENV_CRYPTO + 1] = {0};
    for (size_t i = 0; i < len; i++) {
        for (size_t m = 0; m < sizeof(masks); m++) {
            memcpy(t, d, len);
            t[i] ^= masks[m];
            cpk_env_status want = expected_after_flip(d, i, masks[m]);
            cpk_env_status got = check(t, len, key_a, 32, NULL);
            cr_assert_neq(got, CPK_ENV_OK, "byte %zu ^ 0x%02x accepted", i,
                          masks[m]);
            cr_assert_eq(got, want, "byte %zu ^ 0x%02x: status %d (%s), "
                         "expected %d (%s)", i, masks[m], got,
                         cpk_envelope_strerror(got), want,
                         cpk_envelope_strerror(want));
            seen[got]++;
        }
    }
    /* Every kind of refusal was exercised. */
    cr_assert(seen[CPK_ENV_NOT_SIGNED] && seen[CPK_ENV_FORMAT] &&
              seen[CPK_ENV_BAD_HEADER] && seen[CPK_ENV_WRONG_KEY] &&
              seen[CPK_ENV_BAD_MAC] && seen[CPK_ENV_TRUNCATED] &&
              seen[CPK_ENV_TRAILING]);
    free(t);
    free(d);
}

Test(envelope, every_truncation_is_refused)
{
    size_t len;
    unsigned char *d = sealed(&len);
    for (size_t n = 0; n < len; n++) {
        /* An exact-size copy, so ASan sees any read past the end. */
        unsigned char *t = malloc(n ? n : 1);
        memcpy(t, d, n);
        size_t at;
        cpk_env_status got = check(t, n, key_a, 32, &at);
        cr_assert_eq(got, n == 0 ? CPK_ENV_NOT_SIGNED : CPK_ENV_TRUNCATED,
                     "truncated to %zu: %s", n, cpk_envelope_strerror(got));
        if (n > 0)
            cr_assert_eq(at, n, "truncated to %zu: offset %zu", n, at);
        free(t);
    }
    free(d);
}

Test(envelope, trailing_byte_refused)
{
    size_t len;
    unsigned char *d = sealed(&len);
    unsigned char *t = malloc(len + 1);
    memcpy(t, d, len);
    t[len] = 0;
    size_t at;
    cr_assert_eq(check(t, len + 1, key_a, 32, &at), CPK_ENV_TRAILING);
    cr_assert_eq(at, len);
    free(t);
    free(d);
}

Test(envelope, wrong_key)
{
    size_t len;
    unsigned char *d = sealed(&len);
    cr_assert_eq(check(d, len, key_b, 32, NULL), CPK_ENV_WRONG_KEY);
    free(d);
}

/* The key id matches (same key) but the pickle was changed: altered. */
Test(envelope, same_key_id_altered_pickle)
{
    size_t len;
    unsigned char *d = sealed(&len);
    d[40 + 3] = 8; /* BININT1 7 -> 8 */
    cr_assert_eq(check(d, len, key_a, 32, NULL), CPK_ENV_BAD_MAC);
    free(d);
}

Test(envelope, short_key_refused)
{
    make_keys();
    cpk_envelope h = header("0.1.0", 5);
    size_t len = cpk_envelope_size("0.1.0", sizeof(small_pickle));
    unsigned char *out = malloc(len);
    cr_assert_eq(cpk_envelope_seal(&h, small_pickle, sizeof(small_pickle),
                                   key_a, 31, out),
                 CPK_ENV_KEY_SHORT);
    cr_assert_eq(cpk_envelope_seal(&h, small_pickle, sizeof(small_pickle),
                                   key_a, 0, out),
                 CPK_ENV_KEY_SHORT);
    free(out);
    unsigned char *d = sealed(&len);
    cr_assert_eq(check(d, len, key_a, 31, NULL), CPK_ENV_KEY_SHORT);
    free(d);
}

Test(envelope, seal_refuses_out_of_range_fields)
{
    make_keys();
    unsigned char out[256];
    cpk_envelope h = header("0.1.0", 6);
    cr_assert_eq(cpk_envelope_seal(&h, small_pickle, 5, key_a, 32, out),
                 CPK_ENV_BAD_HEADER);
    h = header("0.1.0", -1);
    cr_assert_eq(cpk_envelope_seal(&h, small_pickle, 5, key_a, 32, out),
                 CPK_ENV_BAD_HEADER);
    h = header("", 5);
    cr_assert_eq(cpk_envelope_seal(&h, small_pickle, 5, key_a, 32, out),
                 CPK_ENV_BAD_HEADER);
    h = header("0.1 beta", 5);
    cr_assert_eq(cpk_envelope_seal(&h, small_pickle, 5, key_a, 32, out),
                 CPK_ENV_BAD_HEADER);
    h = header("0.1.0", 5);
    h.py_minor = 256;
    cr_assert_eq(cpk_envelope_seal(&h, small_pickle, 5, key_a, 32, out),
                 CPK_ENV_BAD_HEADER);
    h = header("0.1.0", 5);
    h.bytecode_magic = 0x10000;
    cr_assert_eq(cpk_envelope_seal(&h, small_pickle, 5, key_a, 32, out),
                 CPK_ENV_BAD_HEADER);
    h = header("0.1.0", 5);
    cr_assert_eq(cpk_envelope_seal(&h, small_pickle, 0, key_a, 32, out),
                 CPK_ENV_BAD_HEADER);
    /* 31 characters is the longest tool version. */
    h = header("1234567890123456789012345678901", 5);
    cr_assert_eq(cpk_envelope_seal(&h, small_pickle, 5, key_a, 32, out),
                 CPK_ENV_OK);
    cpk_envelope env;
    cr_assert_eq(cpk_envelope_parse(out, 35 + 31 + 5 + 32, &env, NULL),
                 CPK_ENV_OK);
    cr_assert_str_eq(env.tool_version, "1234567890123456789012345678901");
}

Test(envelope, size)
{
    cr_assert_eq(cpk_envelope_size("0.1.0", 5), 35 + 5 + 5 + 32);
    cr_assert_eq(cpk_envelope_size("", 5), 0);
    cr_assert_eq(cpk_envelope_size(NULL, 5), 0);
    cr_assert_eq(cpk_envelope_size("12345678901234567890123456789012", 5), 0);
    cr_assert_eq(cpk_envelope_size("0.1.0", SIZE_MAX - 10), 0);
    cr_assert_eq(cpk_envelope_size("0.1.0", SIZE_MAX - 72), SIZE_MAX);
}

/* Pickle lengths that would overflow a naive H + P + 32 or point far past
 * the data are refused as truncated, reading nothing past the end. */
Test(envelope, huge_pickle_length)
{
    size_t len;
    unsigned char *d = sealed(&len);
    static const uint64_t lens[] = {UINT64_MAX, UINT64_MAX - 39,
                                    UINT64_MAX - 71, (uint64_t)SIZE_MAX - 40,
                                    1ull << 63, 6};
    for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
        for (int i = 0; i < 8; i++)
            d[32 + i] = (unsigned char)(lens[k] >> (56 - 8 * i));
        size_t at;
        cr_assert_eq(check(d, len, key_a, 32, &at), CPK_ENV_TRUNCATED,
                     "P = %llu", (unsigned long long)lens[k]);
        cr_assert_eq(at, len);
    }
    free(d);
}

Test(envelope, other_format_version)
{
    size_t len;
    unsigned char *d = sealed(&len);
    d[9] = 2;
    size_t at;
    cr_assert_eq(check(d, len, key_a, 32, &at), CPK_ENV_FORMAT);
    cr_assert_eq(at, 8);
    free(d);
}

Test(envelope, not_signed)
{
    /* A plain pickle, a prefix of one, nothing. */
    cr_assert_eq(check(small_pickle, sizeof(small_pickle), key_a, 32, NULL),
                 CPK_ENV_NOT_SIGNED);
    cr_assert_eq(check(small_pickle, 1, key_a, 32, NULL), CPK_ENV_NOT_SIGNED);
    cr_assert_eq(check(NULL, 0, key_a, 32, NULL), CPK_ENV_NOT_SIGNED);
    cr_assert(!cpk_envelope_is_signed(small_pickle, sizeof(small_pickle)));
    cr_assert(!cpk_envelope_is_signed("\xcf" "CPKSIG", 7));
    cr_assert(cpk_envelope_is_signed("\xcf" "CPKSIG\n", 8));
    /* A prefix of the magic is a truncated envelope. */
    cr_assert_eq(check((const unsigned char *)"\xcf" "CPK", 4, key_a, 32,
                       NULL),
                 CPK_ENV_TRUNCATED);
}

Test(envelope, strerror_names_every_status)
{
    for (int s = CPK_ENV_OK; s <= CPK_ENV_CRYPTO; s++) {
        const char *m = cpk_envelope_strerror((cpk_env_status)s);
        cr_assert(m != NULL && m[0] != '\0');
        for (int t = CPK_ENV_OK; t < s; t++)
            cr_assert_str_neq(m, cpk_envelope_strerror((cpk_env_status)t));
    }
    cr_assert_str_eq(cpk_envelope_strerror(CPK_ENV_BAD_MAC),
                     "altered or corrupted: the signature does not match");
    cr_assert_str_eq(cpk_envelope_strerror(CPK_ENV_WRONG_KEY),
                     "signed with another key");
}

/* cpk_envelope_extent: the length of an envelope from its header alone,
 * with anything after it, and with the pickle not yet arrived. */
Test(envelope, extent_from_the_header_alone)
{
    size_t len;
    unsigned char *d = sealed(&len);
    unsigned char *two = malloc(2 * len);
    memcpy(two, d, len);
    memcpy(two + len, d, len);
    uint64_t total = 0;
    size_t at = 99;
    /* Whole, followed by another, and cut after the header. */
    cr_assert_eq(cpk_envelope_extent(d, len, &total, &at), CPK_ENV_OK);
    cr_assert_eq(total, len);
    cr_assert_eq(at, 0);
    cr_assert_eq(cpk_envelope_extent(two, 2 * len, &total, NULL),
                 CPK_ENV_OK);
    cr_assert_eq(total, len);
    size_t h = 35 + 5;
    cr_assert_eq(cpk_envelope_extent(d, h, &total, NULL), CPK_ENV_OK);
    cr_assert_eq(total, len);
    /* The whole-envelope parse refuses both of the last two. */
    cpk_envelope env;
    cr_assert_eq(cpk_envelope_parse(two, 2 * len, &env, NULL),
                 CPK_ENV_TRAILING);
    cr_assert_eq(cpk_envelope_parse(d, h, &env, NULL), CPK_ENV_TRUNCATED);
    /* Every cut inside the header is truncated, at its end. */
    for (size_t n = 1; n < h; n++) {
        cr_assert_eq(cpk_envelope_extent(d, n, &total, &at),
                     CPK_ENV_TRUNCATED, "cut at %zu", n);
        cr_assert_eq(total, 0);
        cr_assert_eq(at, n, "cut at %zu", n);
    }
    /* Not an envelope; a bad header field, at its offset. */
    cr_assert_eq(cpk_envelope_extent(small_pickle, sizeof(small_pickle),
                                     &total, NULL),
                 CPK_ENV_NOT_SIGNED);
    d[12] = 0; /* tool version length */
    cr_assert_eq(cpk_envelope_extent(d, len, &total, &at),
                 CPK_ENV_BAD_HEADER);
    cr_assert_eq(at, 12);
    d[12] = 5;
    /* A pickle length whose sum with the header and MAC overflows
     * saturates; the largest that does not is returned as is: the reader
     * compares either with its limit. */
    memset(d + h - 8, 0xff, 8);
    cr_assert_eq(cpk_envelope_extent(d, len, &total, &at), CPK_ENV_OK);
    cr_assert_eq(total, UINT64_MAX);
    memset(d + h - 8, 0xff, 8);
    d[h - 1] = (unsigned char)(0xff - h - 32);
    cr_assert_eq(cpk_envelope_extent(d, len, &total, NULL), CPK_ENV_OK);
    cr_assert_eq(total, UINT64_MAX);
    free(two);
    free(d);
}
