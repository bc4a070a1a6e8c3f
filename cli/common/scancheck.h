/* scancheck.h - cloudpickle-load's input check, before the interpreter
 * starts: read the input (input.c), refuse garbage early while a stream
 * arrives, scan it whole with the static inspector (src/scan/pkscan.h), refuse
 * what is malformed or what no pickler writes, and the --strict verdict.
 * The report printers are describe.c and describe_json.c. */
#ifndef CPK_CLI_COMMON_SCANCHECK_H
#define CPK_CLI_COMMON_SCANCHECK_H

#include <stddef.h>

#include "common/input.h"
#include "scan/pkscan.h"
#include "scan/policy.h"

/* Deepest nesting accepted (pkscan_report.max_depth): the pickler refuses
 * to write anything deeper than the recursion limit (1000 by default), and
 * CPython hashes nested tuples recursively in C: 300,000 levels overflow
 * the C stack, 10,000 take well under 1 MB of it. */
#define CPK_SCAN_MAX_DEPTH 10000

/* The default of --max-scan-memory, the most memory the static scan may
 * hold, is pkscan_default_limit(): what this machine has available when
 * the program starts, at least 2 GiB. The model of a data pickle costs
 * far less than the objects a load makes (pkscan.h, "Costs"), so what
 * pickle.load can load here is inspected; a hostile pickle of one-byte
 * opcodes that would need more than the machine has is refused instead
 * of waking the OOM killer. */

/* Read `path` ("-": standard input; `name` for messages) bounded by
 * `max_size`, refusing garbage early while it arrives (not a signed
 * envelope, whose pickle starts after its header). With `key_source`
 * ("--verify", "CLOUDPICKLE_VERIFY_KEY"; NULL: no key) the input must be
 * a signed envelope: anything else is refused at its first bytes, not
 * one opcode of it read. Returns 0 with the bytes in *in (the caller's to
 * free, even on failure), or an exit status after one `prog: NAME: ...`
 * line on stderr: CPK_EXIT_INPUT for empty, too big, unsigned (with a
 * key) or malformed input (`not a valid pickle: <what> at byte N`), or a
 * file that cannot be read. */
int cpk_scan_read(const char *path, const char *name, size_t max_size,
                  size_t max_scan, const char *key_source, cpk_input *in);

/* cpk_scan_read, but with `map` a regular file is mapped, not copied
 * (cpk_read_input_mapped: only for input whose verdict does not depend
 * on its bytes staying what was checked). */
int cpk_scan_read_map(const char *path, const char *name, size_t max_size,
                      size_t max_scan, const char *key_source, int map,
                      cpk_input *in);

/* Scan the pickle of `len` bytes at `data`, holding at most `max_scan`
 * bytes of memory (--max-scan-memory; the early scans of cpk_scan_read
 * too). Returns 0 with the report in
 * *report (the caller frees it, even on failure). With `report` NULL
 * (a load with no policy and no --strict: no report is needed) the
 * bounded check (src/scan/pkcheck.h) runs first, and the full scan only
 * when it cannot vouch for the pickle; the verdict and its message are
 * the same. Or CPK_EXIT_INPUT after
 * one line: malformed (`not a valid pickle: <what> at byte N`), too big
 * for `max_scan` (`too large to inspect: needs more than SIZE of memory,
 * at byte N (raise it with --max-scan-memory)`), nesting
 * deeper than CPK_SCAN_MAX_DEPTH, or a STOP that leaves more than the
 * result on the stack; CPK_EXIT_SYSTEM out of memory. */
int cpk_scan_pickle(const char *name, const void *data, size_t len,
                    size_t max_scan, pkscan_report **report);

/* The --strict check: 0 if pkscan_strict_violation(r) is false, else
 * CPK_EXIT_INPUT after one line per offending import:
 * `prog: NAME: refused import module.name (reason) at byte N`. */
int cpk_scan_strict(const pkscan_report *r, const char *name);

/* The --allow/--deny check: 0 if `policy` permits every import of `r`,
 * else CPK_EXIT_INPUT after one line per refused import:
 * `prog: NAME: import module.name refused by --allow/--deny at byte N`. */
int cpk_scan_policy(const cpk_policy *policy, const pkscan_report *r,
                    const char *name);

/* "module.name" of an import into buf, escaped for a terminal
 * (safetext.h) and cut to `cap`, "<extension code N>" or "<name computed
 * at load time>" when the pickle does not say. */
void cpk_scan_import_name(const pkscan_import *im, char *buf, size_t cap);

#endif
