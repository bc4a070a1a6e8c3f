/* keyfile.h - key files of signed pickles (cloudpickle-dump --sign and
 * --gen-key, cloudpickle-load --verify).
 *
 * A key file holds the raw key: all its bytes, at least CPK_ENV_KEY_MIN
 * (32) and at most CPK_KEYFILE_MAX (4096). Like ssh with a private key, a
 * key file that its group or others may read or write (any of the mode
 * bits 077) is refused; so is anything but a regular file. Pure C, no
 * Python: read it before the interpreter starts.
 */
#ifndef CPK_CLI_COMMON_KEYFILE_H
#define CPK_CLI_COMMON_KEYFILE_H

#include <stddef.h>

#define CPK_KEYFILE_MAX 4096
#define CPK_KEYFILE_GEN_LEN 32 /* bytes --gen-key writes */

/* Read the key in `path`. On success returns 0, *key is a malloc'd copy
 * of the file's bytes (free it with cpk_keyfile_free) and *len their
 * count. On failure returns -1, *key is NULL, and `why` (whylen bytes,
 * NUL-terminated) says what is wrong, without the path, for a caller's
 * "prog: PATH: why" line:
 *   "No such file or directory" (any open(2) error: strerror)
 *   "is a directory", "not a regular file"
 *   "permissions 0644 are too open; the key must be readable by its owner
 *    only (chmod 600)"
 *   "key too short: 5 bytes (at least 32)"
 *   "key file too large: 9000 bytes (at most 4096)"
 *   "read error: ..." / "file changed while being read"
 * The file is opened once (O_NOFOLLOW is not used: a symbolic link to a
 * good key file is fine) and checked with fstat on that descriptor, so
 * what is checked is what is read. A FIFO or device never blocks the
 * open (O_NONBLOCK) and is refused. */
int cpk_keyfile_read(const char *path, unsigned char **key, size_t *len,
                     char *why, size_t whylen);

/* Overwrite the key with zeros and free it (NULL is fine). */
void cpk_keyfile_free(unsigned char *key, size_t len);

/* Create a new key file `path`: CPK_KEYFILE_GEN_LEN bytes from the
 * kernel's random source (getrandom(2), else /dev/urandom), created with
 * O_CREAT|O_EXCL mode 0600 (an existing file, or a symbolic link, is never
 * overwritten or followed), written fully and fsync'd, then its directory
 * fsync'd. Returns 0, or -1 with `why` as above ("already exists; refusing
 * to overwrite it", strerror text); a partial file is removed. */
int cpk_keyfile_generate(const char *path, char *why, size_t whylen);

#endif
