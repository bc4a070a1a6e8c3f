/* signed.c - open and check a signed pickle before anything reads its
 * opcodes (signed.h); the envelope itself is src/scan/envelope.c's. */
#include "map/signed.h"

#include <patchlevel.h> /* PY_MAJOR_VERSION, PY_MINOR_VERSION */
#include <stdio.h>
#include <string.h>

#include "common/message.h"
#include "common/scancheck.h" /* cpk_scan_pickle, _strict, _policy */
#include "scan/envelope.h" /* cpk_envelope_parse */

int
cpk_signed_open(const char *name, const unsigned char *data, size_t len,
                const unsigned char *key, size_t keylen,
                const char *key_source, cpk_signed_input *out)
{
    memset(out, 0, sizeof(*out));
    out->pickle = data;
    out->pickle_len = len;
    /* A start of the magic cut short is a truncated envelope. */
    int partial = len < CPK_ENV_MAGIC_LEN &&
                  memcmp(data, CPK_ENV_MAGIC, len) == 0;
    if (!cpk_envelope_is_signed(data, len) && !(key != NULL && partial)) {
        if (key == NULL)
            return 0;
        cpk_error("%s: not a signed pickle (%s requires one)", name,
                  key_source);
        return CPK_EXIT_INPUT;
    }
    out->is_signed = 1;
    size_t at = 0;
    cpk_env_status s = cpk_envelope_parse(data, len, &out->env, &at);
    if (s != CPK_ENV_OK) {
        cpk_error("%s: signed pickle refused: %s at byte %zu", name,
                  cpk_envelope_strerror(s), at);
        return CPK_EXIT_INPUT;
    }
    out->pickle = out->env.pickle;
    out->pickle_len = out->env.pickle_len;
    if (key == NULL)
        return 0;
    s = cpk_envelope_verify(&out->env, data, key, keylen);
    if (s != CPK_ENV_OK) {
        cpk_error("%s: signed pickle refused: %s", name,
                  cpk_envelope_strerror(s));
        return CPK_EXIT_INPUT;
    }
    out->verified = 1;
    return 0;
}

int
cpk_signed_loadable(const char *name, const cpk_signed_input *in)
{
    if (!in->is_signed)
        return 0;
    if (!in->verified) {
        cpk_error("%s: signed pickle: give --verify KEYFILE (or "
                  "CLOUDPICKLE_VERIFY_KEY) to check its signature and load "
                  "it",
                  name);
        return CPK_EXIT_INPUT;
    }
    if (in->env.py_major != PY_MAJOR_VERSION ||
        in->env.py_minor != PY_MINOR_VERSION) {
        cpk_error("%s: signed pickle refused: signed by Python %u.%u; this "
                  "is Python %d.%d",
                  name, in->env.py_major, in->env.py_minor, PY_MAJOR_VERSION,
                  PY_MINOR_VERSION);
        return CPK_EXIT_INPUT;
    }
    return 0;
}

int
cpk_signed_check(const char *name, const unsigned char *data, size_t len,
                 const cpk_load_checks *c, cpk_signed_input *sig,
                 pkscan_report **scan)
{
    *scan = NULL;
    int status = cpk_signed_open(name, data, len, c->key, c->keylen,
                                 c->key_source, sig);
    if (status == 0 && c->loadable)
        status = cpk_signed_loadable(name, sig);
    /* A load that no verdict depends on needs no report: the bounded
     * check (cpk_scan_pickle with no report) */
    int active = c->policy != NULL && cpk_policy_active(c->policy);
    int report = !c->loadable || c->strict || active;
    if (status == 0)
        status = cpk_scan_pickle(name, sig->pickle, sig->pickle_len,
                                 c->max_scan, report ? scan : NULL);
    if (status == 0 && c->strict)
        status = cpk_scan_strict(*scan, name);
    if (status == 0 && active)
        status = cpk_scan_policy(c->policy, *scan, name);
    return status;
}

void
cpk_signed_key_id(const cpk_envelope *env, char out[17])
{
    for (int i = 0; i < CPK_ENV_KEYID_LEN; i++)
        snprintf(out + 2 * i, 3, "%02x", env->key_id[i]);
}
