/* scancheck.h - cloudpickle-load's input check, before the interpreter
 * starts: read the input (input.c), refuse garbage early while a stream
 * arrives, scan it whole with the static inspector (src/pkscan.h), refuse
 * what is malformed or what no pickler writes, and the --strict verdict.
 * The report printers are describe.c and describe_json.c. */
#ifndef CPK_SCANCHECK_H
#define CPK_SCANCHECK_H

#include <stddef.h>

#include "input.h"
#include "pkscan.h"

/* Deepest nesting accepted (pkscan_report.max_depth): the pickler refuses
 * to write anything deeper than the recursion limit (1000 by default), and
 * CPython hashes nested tuples recursively in C: 300,000 levels overflow
 * the C stack, 10,000 take well under 1 MB of it. */
#define CPK_SCAN_MAX_DEPTH 10000

/* Read `path` ("-": standard input; `name` for messages) bounded by
 * `max_size`, and scan it. Returns 0 with the bytes in *in and the report
 * in *report (both the caller's to free, even on failure), or an exit
 * status after one `prog: NAME: ...` line on stderr: CPK_EXIT_INPUT for
 * empty, too big, malformed input (`not a valid pickle: <what> at byte
 * N`), nesting deeper than CPK_SCAN_MAX_DEPTH, or a STOP that leaves more
 * than the result on the stack; an errno message for a file that cannot
 * be read. */
int cpk_scan_input(const char *path, const char *name, size_t max_size,
                   cpk_input *in, pkscan_report **report);

/* The --strict check: 0 if pkscan_strict_violation(r) is false, else
 * CPK_EXIT_INPUT after one line per offending import:
 * `prog: NAME: refused import module.name (reason) at byte N`. */
int cpk_scan_strict(const pkscan_report *r, const char *name);

/* "module.name" of an import into buf, escaped for a terminal
 * (safetext.h) and cut to `cap`, "<extension code N>" or "<name computed
 * at load time>" when the pickle does not say. */
void cpk_scan_import_name(const pkscan_import *im, char *buf, size_t cap);

#endif
