/* input.h - cloudpickle-load's input: a whole file, or standard input,
 * read once into memory before the interpreter starts (or, a regular file
 * whose bytes need not stay what was checked, mapped: read when touched),
 * never more than a limit, and handed to a check (scancheck.c) as it
 * arrives so that bad input is refused without reading the rest of it. */
#ifndef CPK_CLI_COMMON_INPUT_H
#define CPK_CLI_COMMON_INPUT_H

#include <stddef.h>

typedef struct {
    char *data;
    size_t len;
    size_t size; /* the size of a regular file over the limit, else 0 */
    int regular; /* a regular file: its size is known before the first
                  * read (set before `check` is first called) */
    int mapped;  /* `data` is a read-only private mapping of the file
                  * (cpk_read_input_mapped), not a copy */
    int fd;      /* mapped only: the file, open (ours) until
                  * cpk_input_free, for pread; -1: none */
} cpk_input;

/* The default of --max-size: 1 GiB. */
#define CPK_INPUT_LIMIT ((size_t)1 << 30)

/* Called with all the data read so far after each read, and once more at
 * the end with eof set; a nonzero return stops reading (and is returned
 * by cpk_read_input). */
typedef int (*cpk_input_check)(void *ctx, const char *data, size_t len,
                               int eof);

enum {
    CPK_INPUT_TOO_BIG = -1, /* more than `limit` bytes */
};

/* Read all of `path` ("-": standard input), at most `limit` bytes: a
 * regular file larger than that is refused from its size alone. Returns
 * 0, an errno value (EISDIR for a directory), CPK_INPUT_TOO_BIG, or what
 * `check` returned to stop the read. In every case the caller frees `in`
 * with cpk_input_free. */
int cpk_read_input(const char *path, size_t limit, cpk_input *in,
                   cpk_input_check check, void *ctx);

/* cpk_read_input, but a regular, non-empty file within `limit` is mapped
 * (PROT_READ, MAP_PRIVATE) instead of read, and checked once, whole (one
 * call of `check`, with eof set). Nothing is copied, and the pages are
 * read from the file when touched: the file must not change until
 * cpk_input_free. A mapping is not a snapshot (use cpk_read_input when
 * what is checked must be what is loaded). While it lives, a touch of a
 * page the file no longer has (truncated) does not die by SIGBUS: it
 * writes `prog: NAME: the file changed while it was read` and exits with
 * CPK_EXIT_INPUT. Anything else (a pipe, an empty file, a failed mmap)
 * is read as cpk_read_input reads it. `name` NULL: never map. */
int cpk_read_input_mapped(const char *path, const char *name, size_t limit,
                          cpk_input *in, cpk_input_check check, void *ctx);

/* A mapped input's pages leave memory (read again from the file when
 * touched); a copy stays as it is. */
void cpk_input_release(const cpk_input *in);

/* Free the copy, or unmap the mapping (and drop its guard). */
void cpk_input_free(cpk_input *in);

/* Parse a size: digits with an optional K, M, G or T suffix (powers of
 * 1024; "KiB", "K" and "k" alike). Returns 0, or -1 if malformed. */
int cpk_parse_size(const char *s, size_t *out);

/* A size for messages: "1 GiB", "1.5 MiB", "512 bytes". */
void cpk_format_size(size_t n, char *buf, size_t cap);

#endif
