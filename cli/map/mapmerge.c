/* mapmerge.c - merging the outputs of --map shards (mapmerge.h). */
#include "map/mapmerge.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "common/message.h"

typedef struct {
    const char *name;
    FILE *f;
    char *line;       /* the current line (getline's buffer) */
    size_t cap;
    size_t body, len; /* its RESULT: line[body .. body + len) */
    uint64_t num;     /* its record number */
    uint64_t lineno;
} source;

/* Read the next line of s: 1, 0 at its end, or -1 after the message.
 * A line must be [N,RESULT] with N above the file's previous one and
 * RESULT not empty. */
static int
advance(source *s)
{
    errno = 0;
    ssize_t n = getline(&s->line, &s->cap, s->f);
    if (n < 0) {
        if (ferror(s->f)) {
            cpk_error("%s: %s", s->name, strerror(errno ? errno : EIO));
            return -1;
        }
        return 0;
    }
    s->lineno++;
    size_t end = (size_t)n;
    if (end > 0 && s->line[end - 1] == '\n')
        end--;
    const char *p = s->line;
    size_t i = 1;
    uint64_t num = 0;
    int ok = end >= 4 && p[0] == '[' && p[1] >= '1' && p[1] <= '9' &&
             p[end - 1] == ']';
    while (ok && i < end && p[i] >= '0' && p[i] <= '9') {
        if (num > (UINT64_MAX - 9) / 10)
            ok = 0;
        num = num * 10 + (uint64_t)(p[i++] - '0');
    }
    /* RESULT is a JSON value: never empty, never a NUL byte. */
    if (!ok || i + 1 >= end - 1 || p[i] != ',' ||
        memchr(p, '\0', end) != NULL) {
        cpk_error("%s: line %llu: not a line of --with-index output "
                  "([N,RESULT])",
                  s->name, (unsigned long long)s->lineno);
        return -1;
    }
    if (s->lineno > 1 && num <= s->num) {
        cpk_error("%s: line %llu: record %llu after record %llu (not the "
                  "output of one run)",
                  s->name, (unsigned long long)s->lineno,
                  (unsigned long long)num, (unsigned long long)s->num);
        return -1;
    }
    s->num = num;
    s->body = i + 1;
    s->len = end - 1 - s->body;
    return 1;
}

/* Order of the heap: record number, then the order the files were
 * given in (so that messages do not depend on the heap's shape). */
static int
before(const source *a, const source *b)
{
    return a->num < b->num || (a->num == b->num && a < b);
}

/* The heap of sources with a line, smallest record number on top. */
static void
sift_down(source **h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && before(h[l], h[m]))
            m = l;
        if (l + 1 < n && before(h[l + 1], h[m]))
            m = l + 1;
        if (m == i)
            return;
        source *t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

int
cpk_map_merge(const char *const *files, int nfiles, FILE *out)
{
    int status = CPK_EXIT_OK;
    source *src = calloc((size_t)nfiles, sizeof(*src));
    source **heap = calloc((size_t)nfiles, sizeof(*heap));
    size_t n = 0;
    if (src == NULL || heap == NULL) {
        cpk_error("out of memory");
        status = CPK_EXIT_SYSTEM;
        goto done;
    }
    int stdin_used = 0;
    for (int i = 0; i < nfiles; i++) {
        source *s = &src[i];
        if (strcmp(files[i], "-") == 0) {
            if (stdin_used++) {
                cpk_error("standard input given twice");
                status = CPK_EXIT_USAGE;
                goto done;
            }
            s->name = "standard input";
            s->f = stdin;
        }
        else {
            s->name = files[i];
            s->f = fopen(files[i], "re");
            if (s->f == NULL) {
                cpk_error("%s: %s", files[i], strerror(errno));
                status = CPK_EXIT_INPUT;
                goto done;
            }
        }
    }
    for (int i = 0; i < nfiles; i++) {
        int r = advance(&src[i]);
        if (r < 0) {
            status = CPK_EXIT_INPUT;
            goto done;
        }
        if (r > 0)
            heap[n++] = &src[i];
    }
    for (size_t i = n / 2; i-- > 0;)
        sift_down(heap, n, i);
    uint64_t last = 0;
    const char *last_name = NULL;
    while (n > 0) {
        source *s = heap[0];
        if (last_name != NULL && s->num == last) {
            cpk_error("record %llu is in both %s and %s",
                      (unsigned long long)last, last_name, s->name);
            status = CPK_EXIT_INPUT;
            goto done;
        }
        if (fwrite(s->line + s->body, 1, s->len, out) != s->len ||
            putc('\n', out) == EOF) {
            cpk_error("standard output: %s", strerror(errno ? errno : EIO));
            status = CPK_EXIT_SYSTEM;
            goto done;
        }
        last = s->num;
        last_name = s->name;
        int r = advance(s);
        if (r < 0) {
            status = CPK_EXIT_INPUT;
            goto done;
        }
        if (r == 0)
            heap[0] = heap[--n];
        sift_down(heap, n, 0);
    }
done:
    for (int i = 0; src != NULL && i < nfiles; i++) {
        free(src[i].line);
        if (src[i].f != NULL && src[i].f != stdin)
            fclose(src[i].f);
    }
    free(src);
    free(heap);
    return status;
}
