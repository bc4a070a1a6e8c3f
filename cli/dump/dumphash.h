/* dumphash.h - cloudpickle-dump --hash: the SHA-256 of the bytes written
 * (the signed envelope with --sign), printed as sha256sum prints it so
 * that `sha256sum -c` checks the file. The pickle's determinism, which
 * makes the hash worth comparing between runs, is documented in
 * man/cloudpickle-dump.1 under --hash. */
#ifndef CPK_CLI_DUMP_DUMPHASH_H
#define CPK_CLI_DUMP_DUMPHASH_H

#include <stddef.h>
#include <stdio.h>

/* The SHA-256 of `len` bytes at `data` as 64 lower-case hex digits and a
 * NUL. Returns 0, or -1 when libcrypto failed. */
int cpk_sha256_hex(const void *data, size_t len, char hex[65]);

/* Write "<hex>  <name>\n" to `out` as sha256sum does: a name holding a
 * backslash, newline or carriage return is escaped (\\, \n, \r) and the
 * line starts with a backslash. `name` is "-" for standard output. */
void cpk_hash_line(FILE *out, const char hex[65], const char *name);

#endif
