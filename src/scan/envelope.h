/* envelope.h - signed pickles: a short documented header, the pickle, and
 * an HMAC-SHA256 over both (doc/FORMAT.md, "Signed envelope").
 *
 * Pure C11 + OpenSSL's libcrypto, no Python.h, no global mutable state.
 * Used by the module (dumps(sign_key=), loads(verify_key=)), by
 * cloudpickle-dump --sign and cloudpickle-load --verify, and fuzzed by
 * tests/fuzz/fuzz_envelope.c. Every envelope is untrusted input: the parser
 * never reads outside [data, data+len) and checks every length before use.
 *
 * Layout (all integers big-endian):
 *
 *   offset size
 *        0    8  magic "\xcfCPKSIG\n" (0xcf is no pickle opcode: protocols
 *                0-5 use printable ASCII and 0x80-0x98, so every
 *                unpickler refuses a signed file at its first byte, and
 *                no pickle is mistaken for one. 0x89, first chosen, is
 *                NEWFALSE.)
 *        8    2  format version, 1
 *       10    2  header length H (bytes from offset 0 to the pickle)
 *       12    1  n = length of the tool version string (1..31)
 *       13    n  tool version, printable ASCII without spaces
 *                (0x21..0x7e), e.g. "0.5.0"
 *     13+n    1  CPython major version
 *     14+n    1  CPython minor version
 *     15+n    1  CPython micro version
 *     16+n    2  bytecode magic (importlib.util.MAGIC_NUMBER's first two
 *                bytes read little-endian, e.g. 3495 for 3.11), written
 *                big-endian like every field here
 *     18+n    1  pickle protocol (0..5)
 *     19+n    8  key id: the first 8 bytes of
 *                HMAC-SHA256(key, "ccloudpickle key id")
 *     27+n    8  pickle length P
 *     35+n       (= H) the pickle, P bytes
 *      H+P   32  HMAC-SHA256(key, bytes 0 .. H+P-1)
 *
 * Nothing may follow the MAC. Format version 1 readers refuse any other
 * version (a newer layout is a new version), and H must equal 35+n.
 */
#ifndef CPK_SCAN_ENVELOPE_H
#define CPK_SCAN_ENVELOPE_H

#include <stddef.h>
#include <stdint.h>

#define CPK_ENV_MAGIC "\xcf" "CPKSIG\n"
#define CPK_ENV_MAGIC_LEN 8
#define CPK_ENV_FORMAT_VERSION 1
#define CPK_ENV_KEY_MIN 32     /* shortest key accepted, in bytes */
#define CPK_ENV_MAC_LEN 32
#define CPK_ENV_KEYID_LEN 8
#define CPK_ENV_TOOL_MAX 31

typedef enum {
    CPK_ENV_OK = 0,
    CPK_ENV_NOT_SIGNED,   /* does not start with the magic */
    CPK_ENV_TRUNCATED,    /* ends inside the header, pickle or MAC */
    CPK_ENV_BAD_HEADER,   /* a field out of range (H, n, protocol...) */
    CPK_ENV_FORMAT,       /* a format version this reader does not know */
    CPK_ENV_TRAILING,     /* bytes after the MAC */
    CPK_ENV_WRONG_KEY,    /* key id differs: signed with another key */
    CPK_ENV_BAD_MAC,      /* same key id, MAC differs: altered */
    CPK_ENV_KEY_SHORT,    /* key shorter than CPK_ENV_KEY_MIN */
    CPK_ENV_CRYPTO        /* libcrypto failed */
} cpk_env_status;

/* What the header says, and where the parts are. */
typedef struct {
    unsigned format_version;
    char tool_version[CPK_ENV_TOOL_MAX + 1]; /* NUL-terminated */
    unsigned py_major, py_minor, py_micro;
    unsigned bytecode_magic;
    int protocol;
    unsigned char key_id[CPK_ENV_KEYID_LEN];
    size_t header_len;              /* H */
    const unsigned char *pickle;    /* points into the parsed data */
    size_t pickle_len;              /* P */
    const unsigned char *mac;       /* points into the parsed data */
} cpk_envelope;

/* 1 if data starts with the magic (the rest unchecked). */
int cpk_envelope_is_signed(const void *data, size_t len);

/* Parse the structure (no key needed). On failure, *err_offset (if not
 * NULL) is the byte offset of the offending field. */
cpk_env_status cpk_envelope_parse(const void *data, size_t len,
                                  cpk_envelope *out, size_t *err_offset);

/* Where an envelope at the start of `data` ends, from its header alone
 * (what follows it is not looked at, and the pickle and MAC need not have
 * arrived): CPK_ENV_OK with *total = header + pickle + MAC bytes;
 * CPK_ENV_TRUNCATED while the header itself is incomplete; or the
 * header's fault as cpk_envelope_parse reports it. A pickle length too
 * large to add up saturates *total at UINT64_MAX. For a stream of
 * envelopes (cloudpickle-load --map --in pickle). */
cpk_env_status cpk_envelope_extent(const void *data, size_t len,
                                   uint64_t *total, size_t *err_offset);

/* Check a parsed envelope's MAC with `key` (constant-time compare):
 * CPK_ENV_OK, CPK_ENV_WRONG_KEY, CPK_ENV_BAD_MAC, CPK_ENV_KEY_SHORT or
 * CPK_ENV_CRYPTO. `data` is what was given to cpk_envelope_parse. */
cpk_env_status cpk_envelope_verify(const cpk_envelope *env, const void *data,
                                   const unsigned char *key, size_t keylen);

/* Size of the envelope of a pickle of `pickle_len` bytes written by tool
 * version `tool_version`; 0 if the version string is empty or too long. */
size_t cpk_envelope_size(const char *tool_version, size_t pickle_len);

/* Write the envelope of `pickle` to `out` (cpk_envelope_size bytes). The
 * header fields come from `hdr` (format_version, header_len, pickle, mac
 * and key_id are ignored: computed here). CPK_ENV_OK, CPK_ENV_KEY_SHORT,
 * CPK_ENV_BAD_HEADER (a field out of range) or CPK_ENV_CRYPTO. */
cpk_env_status cpk_envelope_seal(const cpk_envelope *hdr, const void *pickle,
                                 size_t pickle_len, const unsigned char *key,
                                 size_t keylen, unsigned char *out);

/* The key id of `key` (CPK_ENV_KEYID_LEN bytes); -1 on a libcrypto
 * failure. */
int cpk_envelope_key_id(const unsigned char *key, size_t keylen,
                        unsigned char out[CPK_ENV_KEYID_LEN]);

/* One short lower-case phrase for a status ("altered or corrupted: the
 * signature does not match", "signed with another key", ...). */
const char *cpk_envelope_strerror(cpk_env_status s);

#endif
