/* fuzz-link: src/scan/envelope.c */
/* fuzz-ldflags: -lcrypto */
/* fuzz_envelope.c - libFuzzer target for the signed-envelope parser and
 * verifier (src/scan/envelope.c). Seeds in tests/fuzz/corpus_envelope (made by
 * tests/fuzz/make_corpus_envelope.py with the key below).
 *
 * Built and run by scripts/fuzz (make fuzz), linked as the lines above
 * say (src/scan/envelope.c, OpenSSL's libcrypto).
 *
 * Beyond "no crash, no read outside the input" (ASan/UBSan), it asserts
 * the parser's contract: on success every part lies inside the input and
 * they tile it exactly (header, pickle, 32-byte MAC, nothing after); on
 * failure the error offset is inside the input (or its end); the status is
 * one of the enum; an envelope that verifies re-seals to the same bytes. */
#include "scan/envelope.h"

#include <stdlib.h>
#include <string.h>

/* The key the seeds are signed with: bytes 1..32. */
static const unsigned char fuzz_key[32] = {
    1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16,
    17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cpk_envelope env;
    size_t at = (size_t)-1;
    cpk_env_status s = cpk_envelope_parse(data, size, &env, &at);
    if (s < CPK_ENV_OK || s > CPK_ENV_CRYPTO)
        abort();
    if (cpk_envelope_strerror(s) == NULL)
        abort();
    if ((cpk_envelope_is_signed(data, size) != 0) !=
        (size >= CPK_ENV_MAGIC_LEN &&
         memcmp(data, CPK_ENV_MAGIC, CPK_ENV_MAGIC_LEN) == 0))
        abort();
    if (s != CPK_ENV_OK) {
        if (at > size)
            abort();
        return 0;
    }
    if (!cpk_envelope_is_signed(data, size))
        abort();
    if (env.pickle != data + env.header_len ||
        env.mac != env.pickle + env.pickle_len ||
        env.header_len + env.pickle_len + CPK_ENV_MAC_LEN != size ||
        env.pickle_len == 0 || env.protocol < 0 || env.protocol > 5)
        abort();
    size_t n = strlen(env.tool_version);
    if (n == 0 || n > CPK_ENV_TOOL_MAX || env.header_len != 35 + n)
        abort();
    /* Touch every byte the parser says is ours. */
    volatile unsigned char sink = 0;
    for (size_t i = 0; i < env.pickle_len; i++)
        sink ^= env.pickle[i];
    for (size_t i = 0; i < CPK_ENV_MAC_LEN; i++)
        sink ^= env.mac[i];
    (void)sink;

    s = cpk_envelope_verify(&env, data, fuzz_key, sizeof(fuzz_key));
    if (s != CPK_ENV_OK && s != CPK_ENV_WRONG_KEY && s != CPK_ENV_BAD_MAC)
        abort();
    if (cpk_envelope_verify(&env, data, fuzz_key, 31) != CPK_ENV_KEY_SHORT)
        abort();
    if (s == CPK_ENV_OK) {
        /* Sealing what was parsed gives the input back. */
        size_t len = cpk_envelope_size(env.tool_version, env.pickle_len);
        if (len != size)
            abort();
        unsigned char *out = malloc(len);
        if (out == NULL)
            return 0;
        if (cpk_envelope_seal(&env, env.pickle, env.pickle_len, fuzz_key,
                              sizeof(fuzz_key), out) != CPK_ENV_OK ||
            memcmp(out, data, size) != 0)
            abort();
        free(out);
    }
    return 0;
}
