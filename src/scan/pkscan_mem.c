/* pkscan_mem.c - the static pickle model's arenas (memory charged to the
 * caller's cap, pkscan_internal.h), the default cap, and its one failure
 * record: the first error of a scan with CPython's message. */
#include "scan/pkscan_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

size_t pkscan_default_limit(void)
{
    size_t floor = PKSCAN_LIMIT_FLOOR, avail = 0;
    FILE *f = fopen("/proc/meminfo", "re");
    if (f == NULL)
        return floor;
    char line[128];
    unsigned long long kb;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
            avail = kb > (unsigned long long)(SIZE_MAX >> 10)
                        ? SIZE_MAX
                        : (size_t)kb << 10;
            break;
        }
    fclose(f);
    return avail > floor ? avail : floor;
}

void *pkscan_arena_alloc(arena *ar, size_t n, size_t align)
{
    blob *b = ar->head;
    if (b) {
        size_t at = (b->used + align - 1) & ~(align - 1);
        if (at <= b->cap && n <= b->cap - at) {
            b->used = at + n;
            return b->data + at;
        }
    }
    size_t cap = n + align > 65536 ? n + align : 65536;
    if (cap > ((size_t)-1) / 2 || acct_take(ar->acct, sizeof(blob) + cap))
        return NULL;
    b = malloc(sizeof(blob) + cap);
    if (b == NULL) {
        acct_give(ar->acct, sizeof(blob) + cap);
        return NULL;
    }
    b->next = ar->head;
    b->cap = cap;
    ar->head = b;
    size_t at = ((uintptr_t)b->data % align) ? align - (uintptr_t)b->data % align : 0;
    b->used = at + n;
    return b->data + at;
}

void pkscan_arena_free(arena *ar)
{
    blob *b = ar->head;
    while (b) {
        blob *nx = b->next;
        acct_give(ar->acct, sizeof(blob) + b->cap);
        free(b);
        b = nx;
    }
    ar->head = NULL;
}

/* --- errors -------------------------------------------------------------- */

char *pkscan_rep_strdup(report_impl *r, const char *p, size_t n)
{
    char *s = pkscan_arena_alloc(&r->mem, n + 1, 1);
    if (s == NULL)
        return NULL;
    if (n)
        memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

int pkscan_fail(scanner *sc, pkscan_status status, size_t off, const char *fmt,
                ...)
{
    if (sc->failed)
        return -1;
    sc->failed = 1;
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    pkscan_report *r = &sc->rep->pub;
    r->status = status;
    r->error_offset = off;
    r->error_opcode = off < sc->n ? sc->d[off] : -1;
    /* the message itself (at most 256 bytes) is not held to the cap */
    size_t limit = sc->rep->acct.limit;
    sc->rep->acct.limit = 0;
    r->error = pkscan_rep_strdup(sc->rep, buf, strlen(buf));
    sc->rep->acct.limit = limit;
    if (r->error == NULL)
        r->error = "out of memory";
    return -1;
}

/* An allocation failed: out of memory, or over the cap. */
int pkscan_nomem(scanner *sc, size_t off)
{
    if (sc->acct->hit) {
        size_t mib = sc->acct->limit >> 20;
        if (mib > 0)
            return pkscan_fail(sc, PKSCAN_ERR_LIMIT, off,
                               "needs more than %zu MiB of memory to inspect",
                               mib);
        return pkscan_fail(sc, PKSCAN_ERR_LIMIT, off,
                           "needs more than %zu bytes of memory to inspect",
                           sc->acct->limit);
    }
    return pkscan_fail(sc, PKSCAN_ERR_NOMEM, off, "out of memory");
}
