/* records.h - the input of cloudpickle-load --map, cut into records:
 * JSON Lines (one record per line) or a stream of pickles (one record per
 * pickle, its end found by the static scanner, src/scan/pkscan.h), read from a
 * descriptor in large blocks and handed out in batches. What the records
 * mean is mapwork.c's; the loop that feeds batches to the function or to
 * worker processes is map.c's and pool.c's.
 *
 * Nothing here calls Python: the reader runs in the parent before the
 * records reach a worker, and never executes anything.
 */
#ifndef CPK_CLI_MAP_RECORDS_H
#define CPK_CLI_MAP_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "common/bytebuf.h" /* cpk_bytebuf */

typedef enum {
    CPK_IN_JSON,   /* JSON Lines */
    CPK_IN_PICKLE, /* concatenated pickles */
} cpk_in_format;

/* Records in input order, numbered from 1 (a line, or a pickle, of the
 * input): record num[i] is cpk_batch_record(b, i), len[i] bytes: in
 * data, or for a batch of one borrowed record in the reader's buffer
 * (`borrowed`). The numbers rise, with gaps where the reader skipped
 * records (blank lines, other shards). */
typedef struct {
    uint64_t first;  /* the number the next cpk_batch_add gives, if n = 0 */
    size_t n;
    size_t cap;      /* of off, len and num */
    size_t *off;
    size_t *len;
    uint64_t *num;
    cpk_bytebuf data;
    const char *borrowed; /* the one record, not copied; NULL: in data */
    uint64_t end;    /* input bytes consumed up to the end of the last */
} cpk_batch;

/* Where record i of `b` starts. */
static inline const char *
cpk_batch_record(const cpk_batch *b, size_t i)
{
    return b->borrowed ? b->borrowed : b->data.data + b->off[i];
}

/* Empty the batch for records starting at number `first`. */
void cpk_batch_reset(cpk_batch *b, uint64_t first);
/* Append record number `num`: 0, or -1 out of memory. */
int cpk_batch_add_num(cpk_batch *b, const char *p, size_t n, uint64_t num);
/* Append the record numbered one after the last (or `first`). */
int cpk_batch_add(cpk_batch *b, const char *p, size_t n);
/* Make an empty batch one of record `num`, the n bytes at p, not copied:
 * they must stay where they are until the batch is reset (a reader's
 * record, until its next cpk_records_next). 0, or -1 out of memory. */
int cpk_batch_borrow(cpk_batch *b, const char *p, size_t n, uint64_t num);
void cpk_batch_free(cpk_batch *b);

typedef struct {
    int fd;
    cpk_in_format format;
    size_t max_record;   /* a longer record is refused (--max-size) */
    size_t max_scan;     /* pkscan memory cap (--max-scan-memory) */
    int eof;
    char *buf;
    size_t start, end, cap;  /* unread data: buf[start .. end) */
    size_t scan_next;    /* pickles: rescan a partial record once it is at
                          * least this long (doubling keeps it linear) */
    size_t no_newline;   /* lines: bytes from buf[start] known to hold no
                          * '\n' (a long line is searched once, not once
                          * per read) */
    uint64_t offset;     /* input bytes before buf[start] */
    uint64_t count;      /* records read: handed out or skipped */
    uint64_t number;     /* of the last record handed out (from 1) */
    uint64_t shard_i, shard_n; /* hand out only the records whose number
                          * minus 1 is shard_i modulo shard_n (n > 1) */
    int signed_only;     /* pickles: every record must be a signed
                          * envelope (a key is in force); anything else
                          * ends the input as CPK_READ_BAD, unscanned */
} cpk_records;

/* 0, or -1 out of memory. Every record is handed out; set shard_i and
 * shard_n after this for a shard. */
int cpk_records_init(cpk_records *r, int fd, cpk_in_format format,
                    size_t max_record, size_t max_scan);
void cpk_records_free(cpk_records *r);

enum {
    CPK_READ_RECORD = 1,  /* *rec, *len: the next record (valid until the
                             next cpk_records_fill) */
    CPK_READ_MORE = 0,    /* no complete record buffered: fill */
    CPK_READ_END = -1,    /* end of input, every record handed out */
    CPK_READ_TOO_BIG = -2,/* the next record is over max_record */
    CPK_READ_BAD = -3,    /* pickles: the next record is malformed or cut
                             short at the end (a scan, or for an
                             envelope cpk_signed_open, would say why);
                             nothing after it is read */
};

/* The next record from what is buffered, without reading; its number
 * in r->number. JSON Lines: lines of nothing but white space (space,
 * tab, CR) are no records: skipped, as JSON Lines readers do, their
 * numbers unused. Records of other shards are skipped too. errno is 0
 * after it, or ENOMEM when CPK_READ_BAD means the scan had no memory. */
int cpk_records_next(cpk_records *r, const char **rec, size_t *len);

/* Read once more (blocking unless the descriptor is not): the number of
 * bytes read, 0 at the end of input (eof set), or -1 with errno (EINTR
 * included: the caller checks for signals and calls again; EAGAIN for a
 * non-blocking descriptor with nothing to read). */
long cpk_records_fill(cpk_records *r);

/* Input bytes consumed up to the last record handed out. */
uint64_t cpk_records_consumed(const cpk_records *r);

#endif
