/* envelope.c - signed pickles: parse, verify and seal the envelope of
 * envelope.h (layout there and in doc/FORMAT.md, "Signed envelope").
 *
 * Pure C + libcrypto: no Python.h, no global mutable state. Every input is
 * untrusted: each field is checked against the bytes that remain before it
 * is read, and no length is added to a pointer or to another length before
 * it is known to fit.
 */
#include "scan/envelope.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

/* Fixed part of the header around the tool version string: 13 bytes
 * before it, 22 after it (versions 3, bytecode magic 2, protocol 1, key id
 * 8, pickle length 8). */
#define HDR_BEFORE_TOOL 13
#define HDR_AFTER_TOOL 22
#define HIGHEST_PROTOCOL 5

static const char key_id_label[] = "ccloudpickle key id";

static unsigned
get16(const unsigned char *p)
{
    return (unsigned)p[0] << 8 | p[1];
}

static uint64_t
get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

static void
put16(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)(v >> 8);
    p[1] = (unsigned char)v;
}

static void
put64(unsigned char *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (unsigned char)v;
}

/* A tool version character: printable ASCII, no space. */
static int
tool_char_ok(unsigned char c)
{
    return c > 0x20 && c < 0x7f;
}

int
cpk_envelope_is_signed(const void *data, size_t len)
{
    return data != NULL && len >= CPK_ENV_MAGIC_LEN &&
           memcmp(data, CPK_ENV_MAGIC, CPK_ENV_MAGIC_LEN) == 0;
}

/* The header of an envelope at the start of `len` bytes at `d`, checked
 * field by field, into `out` (pickle and mac not set) with the pickle's
 * length in *plen: CPK_ENV_OK, or the status with *bad the offending
 * offset. Nothing after the header is looked at. */
static cpk_env_status
parse_header(const unsigned char *d, size_t len, cpk_envelope *out,
             uint64_t *plen, size_t *bad)
{
    memset(out, 0, sizeof(*out));
    *bad = 0;
    if (d == NULL || len == 0)
        return CPK_ENV_NOT_SIGNED;
    if (len < CPK_ENV_MAGIC_LEN) {
        /* A prefix of the magic is a truncated envelope; anything else is
         * not one. */
        if (memcmp(d, CPK_ENV_MAGIC, len) != 0)
            return CPK_ENV_NOT_SIGNED;
        *bad = len;
        return CPK_ENV_TRUNCATED;
    }
    if (memcmp(d, CPK_ENV_MAGIC, CPK_ENV_MAGIC_LEN) != 0)
        return CPK_ENV_NOT_SIGNED;
    /* Format version, header length, tool version length: 5 bytes. */
    if (len < HDR_BEFORE_TOOL) {
        *bad = len;
        return CPK_ENV_TRUNCATED;
    }
    out->format_version = get16(d + 8);
    if (out->format_version != CPK_ENV_FORMAT_VERSION) {
        *bad = 8;
        return CPK_ENV_FORMAT;
    }
    size_t h = get16(d + 10);
    size_t n = d[12];
    if (n == 0 || n > CPK_ENV_TOOL_MAX) {
        *bad = 12;
        return CPK_ENV_BAD_HEADER;
    }
    if (h != HDR_BEFORE_TOOL + n + HDR_AFTER_TOOL) {
        *bad = 10;
        return CPK_ENV_BAD_HEADER;
    }
    /* h <= 13 + 31 + 22: no overflow. */
    if (len < h) {
        *bad = len;
        return CPK_ENV_TRUNCATED;
    }
    for (size_t i = 0; i < n; i++) {
        if (!tool_char_ok(d[HDR_BEFORE_TOOL + i])) {
            *bad = HDR_BEFORE_TOOL + i;
            return CPK_ENV_BAD_HEADER;
        }
        out->tool_version[i] = (char)d[HDR_BEFORE_TOOL + i];
    }
    out->tool_version[n] = '\0';
    const unsigned char *p = d + HDR_BEFORE_TOOL + n;
    out->py_major = p[0];
    out->py_minor = p[1];
    out->py_micro = p[2];
    out->bytecode_magic = get16(p + 3);
    out->protocol = p[5];
    if (out->protocol > HIGHEST_PROTOCOL) {
        *bad = (size_t)(p + 5 - d);
        return CPK_ENV_BAD_HEADER;
    }
    memcpy(out->key_id, p + 6, CPK_ENV_KEYID_LEN);
    *plen = get64(p + 14);
    if (*plen == 0) {
        /* Not even a STOP opcode. */
        *bad = (size_t)(p + 14 - d);
        return CPK_ENV_BAD_HEADER;
    }
    out->header_len = h;
    return CPK_ENV_OK;
}

cpk_env_status
cpk_envelope_parse(const void *data, size_t len, cpk_envelope *out,
                   size_t *err_offset)
{
    const unsigned char *d = data;
    size_t bad = 0;
    uint64_t plen = 0;
    cpk_env_status s = parse_header(d, len, out, &plen, &bad);
    if (s == CPK_ENV_OK) {
        size_t h = out->header_len;
        size_t rest = len - h; /* len >= h */
        if (rest < CPK_ENV_MAC_LEN || plen > rest - CPK_ENV_MAC_LEN) {
            bad = len;
            s = CPK_ENV_TRUNCATED;
        }
        else if (plen < rest - CPK_ENV_MAC_LEN) {
            bad = h + (size_t)plen + CPK_ENV_MAC_LEN;
            s = CPK_ENV_TRAILING;
        }
        else {
            out->pickle = d + h;
            out->pickle_len = (size_t)plen;
            out->mac = d + h + (size_t)plen;
        }
    }
    if (s != CPK_ENV_OK)
        out->header_len = 0; /* set only for a whole envelope */
    if (err_offset != NULL)
        *err_offset = s == CPK_ENV_OK ? 0 : bad;
    return s;
}

cpk_env_status
cpk_envelope_extent(const void *data, size_t len, uint64_t *total,
                    size_t *err_offset)
{
    cpk_envelope hdr;
    size_t bad = 0;
    uint64_t plen = 0;
    cpk_env_status s = parse_header(data, len, &hdr, &plen, &bad);
    *total = 0;
    if (s == CPK_ENV_OK)
        *total = plen > UINT64_MAX - hdr.header_len - CPK_ENV_MAC_LEN
                     ? UINT64_MAX /* longer than any input */
                     : hdr.header_len + plen + CPK_ENV_MAC_LEN;
    if (err_offset != NULL)
        *err_offset = s == CPK_ENV_OK ? 0 : bad;
    return s;
}

/* HMAC-SHA256(key, data) into mac; 0 or -1. */
static int
hmac256(const unsigned char *key, size_t keylen, const void *data,
        size_t len, unsigned char mac[CPK_ENV_MAC_LEN])
{
    unsigned int maclen = 0;
    if (keylen > INT_MAX)
        return -1;
    if (HMAC(EVP_sha256(), key, (int)keylen, data, len, mac, &maclen) ==
            NULL ||
        maclen != CPK_ENV_MAC_LEN)
        return -1;
    return 0;
}

int
cpk_envelope_key_id(const unsigned char *key, size_t keylen,
                    unsigned char out[CPK_ENV_KEYID_LEN])
{
    unsigned char mac[CPK_ENV_MAC_LEN];
    if (hmac256(key, keylen, key_id_label, sizeof(key_id_label) - 1, mac) < 0)
        return -1;
    memcpy(out, mac, CPK_ENV_KEYID_LEN);
    return 0;
}

cpk_env_status
cpk_envelope_verify(const cpk_envelope *env, const void *data,
                    const unsigned char *key, size_t keylen)
{
    if (keylen < CPK_ENV_KEY_MIN)
        return CPK_ENV_KEY_SHORT;
    if (env->pickle == NULL || env->mac == NULL || data == NULL)
        return CPK_ENV_BAD_HEADER;
    unsigned char id[CPK_ENV_KEYID_LEN];
    if (cpk_envelope_key_id(key, keylen, id) < 0)
        return CPK_ENV_CRYPTO;
    if (CRYPTO_memcmp(id, env->key_id, CPK_ENV_KEYID_LEN) != 0)
        return CPK_ENV_WRONG_KEY;
    unsigned char mac[CPK_ENV_MAC_LEN];
    if (hmac256(key, keylen, data, env->header_len + env->pickle_len, mac) <
        0)
        return CPK_ENV_CRYPTO;
    int differ = CRYPTO_memcmp(mac, env->mac, CPK_ENV_MAC_LEN) != 0;
    OPENSSL_cleanse(mac, sizeof(mac));
    return differ ? CPK_ENV_BAD_MAC : CPK_ENV_OK;
}

size_t
cpk_envelope_size(const char *tool_version, size_t pickle_len)
{
    if (tool_version == NULL)
        return 0;
    size_t n = strlen(tool_version);
    if (n == 0 || n > CPK_ENV_TOOL_MAX)
        return 0;
    size_t fixed = HDR_BEFORE_TOOL + n + HDR_AFTER_TOOL + CPK_ENV_MAC_LEN;
    if (pickle_len > SIZE_MAX - fixed)
        return 0;
    return fixed + pickle_len;
}

cpk_env_status
cpk_envelope_seal(const cpk_envelope *hdr, const void *pickle,
                  size_t pickle_len, const unsigned char *key, size_t keylen,
                  unsigned char *out)
{
    if (keylen < CPK_ENV_KEY_MIN)
        return CPK_ENV_KEY_SHORT;
    size_t n = 0;
    while (n < sizeof(hdr->tool_version) && hdr->tool_version[n] != '\0')
        n++;
    if (n == 0 || n > CPK_ENV_TOOL_MAX || pickle_len == 0 ||
        cpk_envelope_size(hdr->tool_version, pickle_len) == 0 ||
        hdr->py_major > 255 || hdr->py_minor > 255 || hdr->py_micro > 255 ||
        hdr->bytecode_magic > 0xffff || hdr->protocol < 0 ||
        hdr->protocol > HIGHEST_PROTOCOL)
        return CPK_ENV_BAD_HEADER;
    for (size_t i = 0; i < n; i++)
        if (!tool_char_ok((unsigned char)hdr->tool_version[i]))
            return CPK_ENV_BAD_HEADER;
    size_t h = HDR_BEFORE_TOOL + n + HDR_AFTER_TOOL;
    unsigned char *p = out;
    memcpy(p, CPK_ENV_MAGIC, CPK_ENV_MAGIC_LEN);
    put16(p + 8, CPK_ENV_FORMAT_VERSION);
    put16(p + 10, (unsigned)h);
    p[12] = (unsigned char)n;
    memcpy(p + HDR_BEFORE_TOOL, hdr->tool_version, n);
    p += HDR_BEFORE_TOOL + n;
    p[0] = (unsigned char)hdr->py_major;
    p[1] = (unsigned char)hdr->py_minor;
    p[2] = (unsigned char)hdr->py_micro;
    put16(p + 3, hdr->bytecode_magic);
    p[5] = (unsigned char)hdr->protocol;
    if (cpk_envelope_key_id(key, keylen, p + 6) < 0)
        return CPK_ENV_CRYPTO;
    put64(p + 14, (uint64_t)pickle_len);
    memcpy(out + h, pickle, pickle_len);
    if (hmac256(key, keylen, out, h + pickle_len, out + h + pickle_len) < 0)
        return CPK_ENV_CRYPTO;
    return CPK_ENV_OK;
}

const char *
cpk_envelope_strerror(cpk_env_status s)
{
    switch (s) {
    case CPK_ENV_OK:
        return "signature verified";
    case CPK_ENV_NOT_SIGNED:
        return "not a signed pickle";
    case CPK_ENV_TRUNCATED:
        return "truncated signed pickle";
    case CPK_ENV_BAD_HEADER:
        return "malformed signed-pickle header";
    case CPK_ENV_FORMAT:
        return "unknown signed-pickle format version";
    case CPK_ENV_TRAILING:
        return "trailing data after the signature";
    case CPK_ENV_WRONG_KEY:
        return "signed with another key";
    case CPK_ENV_BAD_MAC:
        return "altered or corrupted: the signature does not match";
    case CPK_ENV_KEY_SHORT:
        return "key too short (at least 32 bytes)";
    case CPK_ENV_CRYPTO:
        return "libcrypto failed";
    }
    return "unknown envelope status";
}
