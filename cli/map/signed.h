/* signed.h - the programs' side of signed pickles (src/scan/envelope.h):
 * the key of --verify or CLOUDPICKLE_VERIFY_KEY (read with keyfile.h),
 * the envelope checked before a single opcode of the pickle inside is
 * scanned or loaded, and what the static report shows of its header
 * (describe.c, describe_json.c). */
#ifndef CPK_CLI_MAP_SIGNED_H
#define CPK_CLI_MAP_SIGNED_H

#include <stddef.h>

#include "scan/envelope.h"
#include "scan/pkscan.h" /* pkscan_report */
#include "scan/policy.h" /* cpk_policy */

/* What the input is, once opened. */
typedef struct {
    int is_signed;                /* it starts with the envelope's magic */
    int verified;                 /* ... and its MAC matched the key */
    cpk_envelope env;             /* the header, when is_signed */
    const unsigned char *pickle;  /* the pickle: the input itself when not
                                     signed, else inside the envelope */
    size_t pickle_len;
} cpk_signed_input;

/* Open `len` bytes at `data` read from the input `name`. `key` (keylen
 * bytes; NULL: none) is the key of `key_source` ("--verify" or
 * "CLOUDPICKLE_VERIFY_KEY"). With a key the input must be signed with it;
 * without one a signed input is opened unverified (the caller refuses to
 * load it). Returns 0, or CPK_EXIT_INPUT after one line on stderr:
 *   prog: NAME: not a signed pickle (KEY_SOURCE requires one)
 *   prog: NAME: signed pickle refused: WHY [at byte N]
 */
int cpk_signed_open(const char *name, const unsigned char *data, size_t len,
                    const unsigned char *key, size_t keylen,
                    const char *key_source, cpk_signed_input *out);

/* For --load and --call: 0 if the opened input may be loaded by this
 * Python, else CPK_EXIT_INPUT after one line (signed but not verified;
 * signed by another CPython major.minor, naming both versions). The
 * module checks the signature and the bytecode magic again when it
 * loads. */
int cpk_signed_loadable(const char *name, const cpk_signed_input *in);

/* Everything checked before a pickle the programs read is loaded: the
 * key (NULL: none) and its source, whether it is to be loaded (then
 * cpk_signed_loadable applies), --strict, the import policy (NULL or
 * inactive: none), the scan's memory cap. */
typedef struct {
    const unsigned char *key;
    size_t keylen;
    const char *key_source;
    int loadable;
    int strict;
    const cpk_policy *policy;
    size_t max_scan;
} cpk_load_checks;

/* The checks, in order: the envelope (cpk_signed_open), for a load
 * cpk_signed_loadable, then the pickle inside: malformed
 * (cpk_scan_pickle), --strict (cpk_scan_strict), the policy
 * (cpk_scan_policy). 0 with the report in *scan, or an exit status after
 * the message (scancheck.h); the caller frees *scan either way. A load
 * with neither --strict nor an active policy gets no report (*scan
 * NULL): the bounded check vouched for it, or the full scan did. Used for
 * the pickle, --args-pickle and each record of --map --in pickle. */
int cpk_signed_check(const char *name, const unsigned char *data, size_t len,
                     const cpk_load_checks *c, cpk_signed_input *sig,
                     pkscan_report **scan);

/* The key id as 16 lower-case hex digits and a NUL. */
void cpk_signed_key_id(const cpk_envelope *env, char out[17]);

#endif
