/* scancheck.c - read, scan and refuse before loading (scancheck.h). */
#include "common/scancheck.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccloudpickle.h"       /* CPK_VERSION */
#include "common/input.h"       /* cpk_read_input, cpk_format_size */
#include "common/message.h"
#include "common/safetext.h"
#include "scan/envelope.h"      /* CPK_ENV_MAGIC */
#include "scan/format.h"        /* cpk_format_sniff: a format newer than ours */
#include "scan/pkcheck.h"       /* the bounded check before a load */
#include "scan/pkscan.h"        /* the scan and its report */
#include "scan/policy.h"        /* --strict: cpk_policy_check */
#include "scan/pycompat_scan.h" /* CPK_PY_SCAN_FLAGS: this CPython */

/* While a stream arrives (a pipe, a terminal, a socket: not a regular
 * file), what was read so far is scanned after the first read and then
 * each time it has doubled, up to EARLY_MAX: an error that later bytes
 * cannot undo refuses it at once, without reading the rest (an endless
 * /dev/zero, a huge pipe of garbage). Garbage shows in its first bytes;
 * past EARLY_MAX the input is read to its end or the --max-size limit,
 * and scanned once (the early scans cost at most twice EARLY_MAX of
 * scanning). A regular file is bounded by its size, checked against
 * --max-size before a byte is read, so it is scanned once, whole. */
#define EARLY_MAX ((size_t)4 << 20)
typedef struct {
    size_t next; /* scan the prefix when it is at least this long */
    pkscan_report *early; /* the refusal, if one was found early */
    int need_signed; /* a key was given: only a signed envelope will do */
    size_t max_scan; /* --max-scan-memory */
    const cpk_input *in; /* what is being read: is it a regular file? */
} early_ctx;

enum { EARLY_REFUSED = -100, EARLY_NOT_SIGNED = -101 };

/* Errors at an opcode that lies wholly in a prefix are the whole input's
 * too: the walk is sequential. Truncation and lengths or memo indices
 * checked against the input size are not (more input may fix them). A
 * prefix that needs more memory than the cap, the whole input does too:
 * the walk holds what it held for the prefix, and the analysis has at
 * least as much to look at. */
static int
prefix_stable(pkscan_status s)
{
    switch (s) {
    case PKSCAN_ERR_OPCODE:
    case PKSCAN_ERR_UNDERFLOW:
    case PKSCAN_ERR_MARK:
    case PKSCAN_ERR_TYPE:
    case PKSCAN_ERR_VALUE:
    case PKSCAN_ERR_PROTOCOL:
    case PKSCAN_ERR_UNSUPPORTED:
    case PKSCAN_ERR_TRAILING:
    case PKSCAN_ERR_LIMIT:
        return 1;
    default:
        return 0;
    }
}

static int
early_check(void *ctx, const char *data, size_t len, int eof)
{
    early_ctx *c = ctx;
    if (c->need_signed && len > 0) {
        /* unsigned input is refused at its first bytes, unscanned */
        size_t k = len < CPK_ENV_MAGIC_LEN ? len : CPK_ENV_MAGIC_LEN;
        if (memcmp(data, CPK_ENV_MAGIC, k) != 0)
            return EARLY_NOT_SIGNED;
        return 0;
    }
    if (eof || c->in->regular || len < c->next || len == 0 ||
        c->next > EARLY_MAX ||
        (unsigned char)data[0] == (unsigned char)CPK_ENV_MAGIC[0])
        return 0; /* a signed envelope: its pickle is checked when open */
    while (c->next <= len)
        c->next = c->next > ((size_t)-1) / 2 ? (size_t)-1 : c->next * 2;
    pkscan_report *r = pkscan_scan_limited(
        data, len, CPK_PY_SCAN_FLAGS, c->max_scan);
    if (r != NULL && prefix_stable(r->status)) {
        c->early = r;
        return EARLY_REFUSED;
    }
    pkscan_free(r);
    return 0;
}

static void
too_large(const char *name, size_t max_scan, size_t at)
{
    char limit[32];
    cpk_format_size(max_scan, limit, sizeof(limit));
    cpk_error("%s: too large to inspect: needs more than %s of memory, at "
              "byte %zu (raise it with --max-scan-memory)",
              name, limit, at);
}

static void
refuse(const char *name, const char *what, size_t at)
{
    /* pkscan's messages are ASCII text of its own (CPython's wording);
     * anything else in them is escaped all the same. A closing period
     * (CPython's "invalid load key, 'x'.") would end the line early. */
    char buf[512];
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)what;
         *p != '\0' && n + 5 < sizeof(buf); p++) {
        if (*p < 0x20 || *p >= 0x7f)
            n += (size_t)snprintf(buf + n, sizeof(buf) - n, "\\x%02x", *p);
        else
            buf[n++] = (char)*p;
    }
    if (n > 0 && buf[n - 1] == '.')
        n--;
    buf[n] = '\0';
    cpk_error("%s: not a valid pickle: %s at byte %zu", name, buf, at);
}

int
cpk_scan_read(const char *path, const char *name, size_t max_size,
              size_t max_scan, const char *key_source, cpk_input *in)
{
    return cpk_scan_read_map(path, name, max_size, max_scan, key_source, 0,
                             in);
}

int
cpk_scan_read_map(const char *path, const char *name, size_t max_size,
                  size_t max_scan, const char *key_source, int map,
                  cpk_input *in)
{
    /* The first read is checked at once, whatever its size. */
    early_ctx c = {1, NULL, key_source != NULL, max_scan, in};
    int e = cpk_read_input_mapped(path, map ? name : NULL, max_size, in,
                                  early_check, &c);
    if (e == EARLY_NOT_SIGNED) {
        cpk_error("%s: not a signed pickle (%s requires one)", name,
                  key_source);
        return CPK_EXIT_INPUT;
    }
    char limit[32], size[32];
    cpk_format_size(max_size, limit, sizeof(limit));
    if (e == EARLY_REFUSED && c.early->status == PKSCAN_ERR_LIMIT) {
        too_large(name, max_scan, c.early->error_offset);
        pkscan_free(c.early);
        return CPK_EXIT_INPUT;
    }
    if (e == EARLY_REFUSED) {
        refuse(name, c.early->error, c.early->error_offset);
        pkscan_free(c.early);
        return CPK_EXIT_INPUT;
    }
    if (e == CPK_INPUT_TOO_BIG && in->size > 0) {
        cpk_format_size(in->size, size, sizeof(size));
        cpk_error("%s: %s, more than the %s limit (raise it with "
                  "--max-size)",
                  name, size, limit);
        return CPK_EXIT_INPUT;
    }
    if (e == CPK_INPUT_TOO_BIG) {
        cpk_error("%s: more than the %s limit (raise it with --max-size)",
                  name, limit);
        return CPK_EXIT_INPUT;
    }
    if (e != 0) {
        cpk_error("%s: %s", name, strerror(e));
        return CPK_EXIT_INPUT;
    }
    if (in->len == 0) {
        cpk_error("%s: empty input, not a pickle", name);
        return CPK_EXIT_INPUT;
    }
    return 0;
}

static int verdict(const char *name, const pkscan_report *r, size_t len,
                   size_t max_scan);

int
cpk_scan_pickle(const char *name, const void *data, size_t len,
                size_t max_scan, pkscan_report **report)
{
    /* A pickle of a newer format: its names may mean what this scan
     * does not know. Refused with the loader's upgrade message. */
    int fmt;
    char writer[48];
    if (cpk_format_sniff(data, len, &fmt, writer, sizeof writer) &&
        fmt > CPK_FORMAT_CURRENT) {
        char msg[256];
        cpk_format_message(msg, sizeof msg, fmt, writer, CPK_VERSION);
        cpk_error("%s: %s", name, msg);
        if (report != NULL)
            *report = NULL;
        return CPK_EXIT_INPUT;
    }
    /* Only to be loaded: the bounded check first. What it cannot vouch
     * for, the full scan decides and words. */
    pkcheck_result quick;
    if (report == NULL &&
        pkcheck_run(data, len, max_scan, CPK_SCAN_MAX_DEPTH, 0, &quick) ==
            PKCHECK_OK)
        return 0;
    pkscan_report *r = pkscan_scan_limited(
        data, len, CPK_PY_SCAN_FLAGS, max_scan);
    if (report == NULL) {
        int status = verdict(name, r, len, max_scan);
        pkscan_free(r);
        return status;
    }
    *report = r;
    return verdict(name, r, len, max_scan);
}

/* The full scan's verdict on `r` (NULL: out of memory), after its
 * message. */
static int
verdict(const char *name, const pkscan_report *r, size_t len,
        size_t max_scan)
{
    int fmt;
    char writer[48];
    if (r == NULL || r->status == PKSCAN_ERR_NOMEM) {
        cpk_error("%s: out of memory scanning %zu bytes", name, len);
        return CPK_EXIT_SYSTEM;
    }
    if (r->status == PKSCAN_ERR_LIMIT) {
        too_large(name, max_scan, r->error_offset);
        return CPK_EXIT_INPUT;
    }
    if (r->status != PKSCAN_OK) {
        refuse(name, r->error, r->error_offset);
        return CPK_EXIT_INPUT;
    }
    /* A newer format's marker that the sniff above did not see: inside
     * a FRAME, memoized, later in the pickle, by INST. The load would
     * refuse it too, but only once it reaches it (what comes before
     * would run) and in other words; the report would call it ours. */
    if (cpk_format_newer_import(r, &fmt, writer, sizeof writer)) {
        char msg[256];
        cpk_format_message(msg, sizeof msg, fmt, writer, CPK_VERSION);
        cpk_error("%s: %s", name, msg);
        return CPK_EXIT_INPUT;
    }
    /* What pickle.loads accepts but no pickler writes, and what would
     * crash or bloat the load. */
    if (r->max_depth > CPK_SCAN_MAX_DEPTH) {
        /* pkscan counts up to 65535 */
        cpk_error("%s: not a valid pickle: nesting %zu%s deep, more than %d, "
                  "at byte %zu",
                  name, r->max_depth, r->max_depth >= 65535 ? " or more" : "",
                  CPK_SCAN_MAX_DEPTH, r->max_depth_offset);
        return CPK_EXIT_INPUT;
    }
    if (r->stop_marks > 0) {
        cpk_error("%s: not a valid pickle: a MARK is still open at STOP (no "
                  "pickler leaves one) at byte %zu",
                  name, r->stop_offset);
        return CPK_EXIT_INPUT;
    }
    if (r->stop_stack != 1) {
        cpk_error("%s: not a valid pickle: %zu items left on the stack at "
                  "STOP (a pickler leaves one) at byte %zu",
                  name, r->stop_stack, r->stop_offset);
        return CPK_EXIT_INPUT;
    }
    return 0;
}

/* One line per load call of `r`: "NAME: WHY: the load REASON: FUNC at
 * byte N", the function's name escaped as an import's is. */
static void
refuse_load_calls(const pkscan_report *r, const char *name, const char *why)
{
    for (size_t i = 0; i < r->n_load_calls; i++) {
        pkscan_import as = {0};
        as.module = r->load_calls[i].name;
        char full[512] = "?";
        if (as.module.s != NULL)
            cpk_scan_import_name(&as, full, sizeof(full));
        cpk_error("%s: %s: the load %s: %s at byte %zu", name, why,
                  r->load_calls[i].reason, full, r->load_calls[i].offset);
    }
}

/* One line per state entry of `r` that `policy` refuses (all of them
 * under NULL: --strict), then one for entries past the list. */
static void
refuse_state(const cpk_policy *policy, const pkscan_report *r,
             const char *name, const char *why)
{
    size_t refused = 0;
    for (size_t i = 0; i < r->n_state_writes; i++) {
        const pkscan_state_write *w = &r->state_writes[i];
        if (policy != NULL && cpk_policy_state_admits(policy, w))
            continue;
        cpk_error("%s: %s: %s", name, why, w->text);
        refused++;
    }
    if (r->n_state_total > r->n_state_writes)
        cpk_error("%s: %s: %zu more writes or calls than the report lists",
                  name, why, r->n_state_total - r->n_state_writes);
}

int
cpk_scan_policy(const cpk_policy *policy, const pkscan_report *r,
                const char *name)
{
    size_t n = cpk_policy_check(policy, r, NULL, 0);
    size_t calls = cpk_policy_load_calls(policy, r);
    size_t state = cpk_policy_state(policy, r);
    if (n == 0 && calls == 0 && state == 0)
        return 0;
    size_t listed = 0;
    for (size_t i = 0; i < r->n_imports; i++) {
        const pkscan_import *im = &r->imports[i];
        if (cpk_policy_permits(policy, im))
            continue;
        char full[512];
        cpk_scan_import_name(im, full, sizeof(full));
        cpk_error("%s: import %s refused by --allow/--deny at byte %zu",
                  name, full, im->offset);
        listed++;
    }
    /* A report cut short cannot show every import: refused all the same. */
    if (n > listed)
        cpk_error("%s: refused: more imports than the report lists", name);
    /* Code carried by value that the load runs: no pattern permits it
     * (policy.h). */
    refuse_load_calls(r, name, "refused by --allow/--deny");
    if (calls > r->n_load_calls)
        cpk_error("%s: refused by --allow/--deny: the report was cut "
                  "short, code the load runs cannot be ruled out",
                  name);
    refuse_state(policy, r, name, "refused by --allow/--deny");
    return CPK_EXIT_INPUT;
}

void
cpk_scan_import_name(const pkscan_import *im, char *buf, size_t cap)
{
    if (im->via == PKSCAN_VIA_EXT) {
        snprintf(buf, cap, "<extension code %ld>", im->ext_code);
        return;
    }
    if (im->via == PKSCAN_VIA_DYNAMIC || im->module.s == NULL) {
        snprintf(buf, cap, "<name computed at load time>");
        return;
    }
    char *out = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&out, &len);
    if (m == NULL) {
        snprintf(buf, cap, "?");
        return;
    }
    cpk_put_safe(m, im->module.s, im->module.len);
    if (im->name.s != NULL && im->name.len > 0) {
        fputc('.', m);
        cpk_put_safe(m, im->name.s, im->name.len);
    }
    fclose(m);
    snprintf(buf, cap, "%s%s", out ? out : "?",
             out && len >= cap ? "..." : "");
    if (out && len >= cap && cap > 4)
        memcpy(buf + cap - 4, "...", 4);
    free(out);
}

int
cpk_scan_strict(const pkscan_report *r, const char *name)
{
    if (!pkscan_strict_violation(r))
        return 0;
    size_t listed = 0;
    for (size_t i = 0; i < r->n_imports; i++) {
        const pkscan_import *im = &r->imports[i];
        if (!im->dangerous && im->category != PKSCAN_CAT_OTHER)
            continue;
        char full[512];
        cpk_scan_import_name(im, full, sizeof(full));
        cpk_error("%s: refused import %s (%s) at byte %zu", name, full,
                  im->dangerous ? im->reason
                                : "not a reconstructor or plain data",
                  im->offset);
        listed++;
    }
    refuse_load_calls(r, name, "refused");
    refuse_state(NULL, r, name, "refused");
    /* The counts are exact even when the list was cut short. */
    size_t total = r->n_dangerous + r->n_other; /* an upper bound */
    if (r->truncated && listed < total)
        cpk_error("%s: refused: more imports than the report lists", name);
    return CPK_EXIT_INPUT;
}
