/* describe.h - the static report of cloudpickle-load: what a scan
 * (src/scan/pkscan.h) found in a pickle, printed without loading it. Text for
 * people (describe.c), one JSON document for programs (describe_json.c,
 * schema in doc/REPORT-JSON.md). The live report of a loaded object is
 * report.c's. */
#ifndef CPK_CLI_LOAD_DESCRIBE_H
#define CPK_CLI_LOAD_DESCRIBE_H

#include <stdio.h>

#include "map/signed.h"
#include "scan/pkscan.h"

/* Print the report of a scan that succeeded (r->status == PKSCAN_OK) of
 * the input `name` ("standard input" or a path) to `out`; `sig` says
 * whether the pickle came in a signed envelope (its header is shown, and
 * whether it was verified). Every string that came from the pickle is
 * escaped (safetext.h). Write errors are left in ferror(out). */
void cpk_describe_text(FILE *out, const pkscan_report *r, const char *name,
                       const cpk_signed_input *sig);

/* The same as one JSON document and a newline. `file` is the FILE operand
 * as given ("-" for standard input). */
void cpk_describe_json(FILE *out, const pkscan_report *r, const char *file,
                       const cpk_signed_input *sig);

/* The Python signature of a scanned function, "name(a, /, b=..., *args,
 * c, **kw)", as a malloc'd string (NULL when out of memory); names are
 * raw bytes from the pickle: escape them when printing. Defaults are
 * marked "=..." on the last n_defaults positional parameters; which
 * keyword-only parameters have defaults the scan does not know. */
char *cpk_describe_signature(const pkscan_function *f);

/* "3.11": the Python version this program embeds. */
const char *cpk_describe_python(void);

/* 1 if the function's code was made for an exact "3.N" other than this
 * program's Python (loading or calling it here would be refused). */
int cpk_describe_other_python(const pkscan_function *f);

#endif
