/* records.c - cutting --map's input into records (records.h). */
#include "map/records.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bytebuf.h"         /* cpk_batch's data */
#include "common/scancheck.h"     /* CPK_SCAN_MAX_DEPTH */
#include "scan/envelope.h"        /* signed records */
#include "scan/pkcheck.h"       /* the bounded check */
#include "scan/pkscan.h"
#include "scan/pycompat_scan.h" /* CPK_PY_SCAN_FLAGS: this CPython */

#define READ_BLOCK ((size_t)64 << 10)

void
cpk_batch_reset(cpk_batch *b, uint64_t first)
{
    b->first = first;
    b->n = 0;
    b->data.len = 0;
    b->borrowed = NULL;
    b->end = 0;
}

int
cpk_batch_borrow(cpk_batch *b, const char *p, size_t n, uint64_t num)
{
    if (b->n != 0 || cpk_batch_add_num(b, "", 0, num) < 0)
        return -1;
    b->len[0] = n;
    b->borrowed = p;
    return 0;
}

int
cpk_batch_add_num(cpk_batch *b, const char *p, size_t n, uint64_t num)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        size_t *off = realloc(b->off, cap * sizeof(*off));
        if (off == NULL)
            return -1;
        b->off = off;
        size_t *len = realloc(b->len, cap * sizeof(*len));
        if (len == NULL)
            return -1;
        b->len = len;
        uint64_t *nums = realloc(b->num, cap * sizeof(*nums));
        if (nums == NULL)
            return -1;
        b->num = nums;
        b->cap = cap;
    }
    size_t at = b->data.len;
    if (cpk_bytebuf_put(&b->data, p, n) < 0)
        return -1;
    b->off[b->n] = at;
    b->len[b->n] = n;
    b->num[b->n] = num;
    b->n++;
    return 0;
}

int
cpk_batch_add(cpk_batch *b, const char *p, size_t n)
{
    return cpk_batch_add_num(b, p, n,
                             b->n > 0 ? b->num[b->n - 1] + 1 : b->first);
}

void
cpk_batch_free(cpk_batch *b)
{
    free(b->off);
    free(b->len);
    free(b->num);
    cpk_bytebuf_release(&b->data);
    memset(b, 0, sizeof(*b));
}

int
cpk_records_init(cpk_records *r, int fd, cpk_in_format format,
                size_t max_record, size_t max_scan)
{
    memset(r, 0, sizeof(*r));
    r->fd = fd;
    r->format = format;
    r->max_record = max_record;
    r->max_scan = max_scan;
    r->cap = 2 * READ_BLOCK;
    r->buf = malloc(r->cap);
    return r->buf ? 0 : -1;
}

void
cpk_records_free(cpk_records *r)
{
    free(r->buf);
    r->buf = NULL;
}

uint64_t
cpk_records_consumed(const cpk_records *r)
{
    return r->offset;
}

/* Hand out buf[start .. start + n) as the next record, consuming `used`
 * bytes (the record and its terminator). */
static int
take(cpk_records *r, const char **rec, size_t *len, size_t n, size_t used)
{
    *rec = r->buf + r->start;
    *len = n;
    r->start += used;
    r->offset += used;
    r->count++;
    r->number = r->count;
    r->scan_next = 0;
    r->no_newline = 0;
    return CPK_READ_RECORD;
}

/* A line: up to a newline, or the rest at the end of input. */
static int
next_line(cpk_records *r, const char **rec, size_t *len)
{
    size_t avail = r->end - r->start;
    const char *p = r->buf + r->start;
    const char *nl = memchr(p + r->no_newline, '\n', avail - r->no_newline);
    if (nl == NULL)
        r->no_newline = avail;
    if (nl != NULL) {
        size_t n = (size_t)(nl - p);
        if (n > r->max_record)
            return CPK_READ_TOO_BIG;
        return take(r, rec, len, n, n + 1);
    }
    if (avail > r->max_record)
        return CPK_READ_TOO_BIG;
    if (!r->eof)
        return CPK_READ_MORE;
    if (avail == 0)
        return CPK_READ_END;
    return take(r, rec, len, avail, avail);
}

/* Scan errors that more input cannot undo (scancheck.c's prefix_stable
 * has the reasoning): the rest may be lengths or memo indices checked
 * against the size of what has arrived so far. */
static int
settled(pkscan_status s)
{
    switch (s) {
    case PKSCAN_ERR_OPCODE:
    case PKSCAN_ERR_UNDERFLOW:
    case PKSCAN_ERR_MARK:
    case PKSCAN_ERR_TYPE:
    case PKSCAN_ERR_VALUE:
    case PKSCAN_ERR_PROTOCOL:
    case PKSCAN_ERR_UNSUPPORTED:
    case PKSCAN_ERR_LIMIT:
        return 1;
    default:
        return 0;
    }
}

/* A signed pickle (envelope.h): as long as its header says. Where its
 * header is malformed, or the input ends inside it, nothing says where
 * the next record would start: the input ends there (CPK_READ_BAD). */
static int
next_envelope(cpk_records *r, const char **rec, size_t *len)
{
    size_t avail = r->end - r->start;
    uint64_t total = 0;
    cpk_env_status st =
        cpk_envelope_extent(r->buf + r->start, avail, &total, NULL);
    if (st == CPK_ENV_OK && total > r->max_record)
        return CPK_READ_TOO_BIG;
    if (st == CPK_ENV_OK && total <= avail)
        return take(r, rec, len, (size_t)total, (size_t)total);
    if ((st == CPK_ENV_OK || st == CPK_ENV_TRUNCATED) && !r->eof)
        return CPK_READ_MORE; /* the header bounds what is buffered */
    return CPK_READ_BAD;
}

/* A pickle: from here to just past its STOP, found by scanning what is
 * buffered. A partial pickle is rescanned only once twice as much of it
 * has arrived, so a large one costs a few scans, not one per read. */
static int
next_pickle(cpk_records *r, const char **rec, size_t *len)
{
    size_t avail = r->end - r->start;
    if (avail == 0)
        return r->eof ? CPK_READ_END : CPK_READ_MORE;
    /* The envelope's first byte is no pickle opcode. */
    if (r->signed_only ||
        (unsigned char)r->buf[r->start] == (unsigned char)CPK_ENV_MAGIC[0])
        return next_envelope(r, rec, len);
    if (!r->eof && avail < r->scan_next)
        return CPK_READ_MORE;
    /* The bounded check finds where a well-formed pickle ends; what it
     * cannot vouch for, the full scan decides. */
    pkcheck_result quick;
    pkcheck_status q = pkcheck_run(r->buf + r->start, avail, r->max_scan,
                                   CPK_SCAN_MAX_DEPTH, 1, &quick);
    if (q == PKCHECK_OK) {
        if (quick.end > r->max_record)
            return CPK_READ_TOO_BIG;
        return take(r, rec, len, quick.end, quick.end);
    }
    if (q == PKCHECK_MORE && !r->eof) {
        if (avail > r->max_record)
            return CPK_READ_TOO_BIG;
        r->scan_next = avail * 2;
        return CPK_READ_MORE;
    }
    pkscan_report *s =
        pkscan_scan_limited(r->buf + r->start, avail,
                            CPK_PY_SCAN_FLAGS, r->max_scan);
    if (s == NULL) {
        errno = ENOMEM;
        return CPK_READ_BAD;
    }
    pkscan_status st = s->status;
    size_t stop = s->stop_offset;
    pkscan_free(s);
    if (st == PKSCAN_ERR_TRAILING || st == PKSCAN_OK) {
        size_t n = st == PKSCAN_OK ? avail : stop + 1;
        if (n > r->max_record)
            return CPK_READ_TOO_BIG;
        return take(r, rec, len, n, n);
    }
    if (settled(st) || r->eof)
        return CPK_READ_BAD;
    if (avail > r->max_record)
        return CPK_READ_TOO_BIG;
    r->scan_next = avail * 2;
    return CPK_READ_MORE;
}

/* 1 if the line holds nothing but JSON white space (no value). */
static int
blank(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
            return 0;
    return 1;
}

int
cpk_records_next(cpk_records *r, const char **rec, size_t *len)
{
    for (;;) {
        errno = 0; /* set only by a failure of the reader's own */
        int rc = r->format == CPK_IN_JSON ? next_line(r, rec, len)
                                          : next_pickle(r, rec, len);
        if (rc != CPK_READ_RECORD)
            return rc;
        if (r->format == CPK_IN_JSON && blank(*rec, *len))
            continue;
        if (r->shard_n > 1 && (r->number - 1) % r->shard_n != r->shard_i)
            continue;
        return rc;
    }
}

long
cpk_records_fill(cpk_records *r)
{
    if (r->eof)
        return 0;
    /* Keep the unread rest at the front, and room for a block after it. */
    if (r->start > 0) {
        memmove(r->buf, r->buf + r->start, r->end - r->start);
        r->end -= r->start;
        r->start = 0;
    }
    if (r->cap - r->end < READ_BLOCK) {
        size_t cap = r->cap * 2;
        char *buf = realloc(r->buf, cap);
        if (buf == NULL) {
            errno = ENOMEM;
            return -1;
        }
        r->buf = buf;
        r->cap = cap;
    }
    ssize_t got = read(r->fd, r->buf + r->end, r->cap - r->end);
    if (got < 0)
        return -1;
    if (got == 0)
        r->eof = 1;
    r->end += (size_t)got;
    return (long)got;
}
