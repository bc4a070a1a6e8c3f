/* format.c - the pickle format's numbers (format.h): the releases, the
 * marker a pickle opens with, the names each older format lacks, and the
 * message of a loader too old for a pickle. Pure C (no Python.h): the
 * static scan uses it too. */
#include "scan/format.h"
#include "scan/pkscan.h"

#include <stdio.h>
#include <string.h>

#include "common/pickle_ops.h" /* CPK_OP_PROTO, CPK_OP_STACK_GLOBAL */

/* Format n was first written by releases[n - 1] (doc/FORMAT.md). */
static const char *const releases[] = {
    "0.1.0", /* 1: the first reconstructors */
    "0.2.0", /* 2: _function_make(code object, ...), modules by value,
              *    portable code, locks, functools, typing forms */
    "0.4.0", /* 3: _function_make's code inline (_code_unmarshal's args) */
    "0.5.0", /* 4: _function_make's fifth argument, modules */
    "0.6.0", /* 5: the marker */
};

/* The names format 1 lacks: added in format 2. Formats 2 to 5 have the
 * same names (they changed _function_make's arguments only). */
static const char *const since2[] = {
    "_code_portable",   "_function_make",      "_lru_cache_new",
    "_make_condition",  "_make_contextvar",    "_make_event",
    "_make_lock",       "_make_newtype",       "_make_semaphore",
    "_make_struct",     "_make_typeparam",     "_make_weakdict",
    "_module_fill",     "_module_new",         "_singledispatch_fill",
    "_singledispatch_new",
};

const char *
cpk_format_release(int n)
{
    if (n < CPK_FORMAT_OLDEST || n > CPK_FORMAT_CURRENT)
        return NULL;
    return releases[n - 1];
}

/* Reads a decimal number at *p (up to end), moving *p past all its
 * digits. -1 when there is none. A value above CPK_FORMAT_NUMBER_MAX
 * reads as CPK_FORMAT_NUMBER_MAX: a format number that long is newer
 * than any loader, and must be refused as one, not taken for an
 * ordinary (unknown) name. */
static long
number(const char **p, const char *end)
{
    long v = 0;
    int digits = 0;
    while (*p < end && **p >= '0' && **p <= '9') {
        int d = **p - '0';
        digits = 1;
        v = v > (CPK_FORMAT_NUMBER_MAX - d) / 10 ? CPK_FORMAT_NUMBER_MAX
                                                 : v * 10 + d;
        (*p)++;
    }
    return digits ? v : -1;
}

int
cpk_format_parse(const char *name, size_t len, int *format, char *version,
                 size_t vsize)
{
    size_t pl = sizeof CPK_FORMAT_MARKER_PREFIX - 1;
    if (len <= pl || memcmp(name, CPK_FORMAT_MARKER_PREFIX, pl) != 0)
        return 0;
    const char *p = name + pl, *end = name + len;
    long v[4];
    for (int i = 0; i < 4; i++) {
        if (i > 0) {
            if (p >= end || *p != '_')
                return 0;
            p++;
        }
        if ((v[i] = number(&p, end)) < 0)
            return 0;
    }
    if (p != end || v[0] < 1)
        return 0;
    *format = (int)v[0];
    if (vsize > 0)
        snprintf(version, vsize, "%ld.%ld.%ld", v[1], v[2], v[3]);
    return 1;
}

int
cpk_format_sniff(const void *data, size_t len, int *format, char *version,
                 size_t vsize)
{
    static const char text[] = "cccloudpickle\n";
    static const char bin[] = "\x8c\x0c" "ccloudpickle\x8c";
    const unsigned char *p = data;
    if (len >= 2 && p[0] == CPK_OP_PROTO) { /* skip it and its argument */
        p += 2;
        len -= 2;
    }
    size_t tl = sizeof text - 1, bl = sizeof bin - 1;
    if (len > tl && memcmp(p, text, tl) == 0) {
        /* GLOBAL: the name ends with a newline */
        const char *name = (const char *)p + tl;
        const char *nl = memchr(name, '\n', len - tl);
        return nl != NULL && cpk_format_parse(name, (size_t)(nl - name),
                                              format, version, vsize);
    }
    if (len > bl && memcmp(p, bin, bl) == 0) {
        /* SHORT_BINUNICODE module, SHORT_BINUNICODE name, STACK_GLOBAL */
        size_t nl = p[bl];
        const char *name = (const char *)p + bl + 1;
        return len > bl + 1 + nl && p[bl + 1 + nl] == CPK_OP_STACK_GLOBAL &&
               cpk_format_parse(name, nl, format, version, vsize);
    }
    return 0;
}

int
cpk_format_marker(char *out, size_t size, int n, const char *version)
{
    char v[32];
    size_t i = 0;
    for (; version[i] != '\0' && i < sizeof v - 1; i++)
        v[i] = version[i] == '.' ? '_' : version[i];
    v[i] = '\0';
    int r = snprintf(out, size, "%s%d_%s", CPK_FORMAT_MARKER_PREFIX, n, v);
    return r < 0 || (size_t)r >= size ? -1 : r;
}

int
cpk_format_has_name(int n, const char *name)
{
    if (n >= 2)
        return 1;
    for (size_t i = 0; i < sizeof since2 / sizeof since2[0]; i++)
        if (strcmp(name, since2[i]) == 0)
            return 0;
    return 1;
}

void
cpk_format_message(char *out, size_t size, int n, const char *writer,
                   const char *self_version)
{
    snprintf(out, size,
             "written by ccloudpickle %s for format %d; this is "
             "ccloudpickle %s (format %d): upgrade the loading side, or "
             "write with format=%d",
             writer, n, self_version, CPK_FORMAT_CURRENT, CPK_FORMAT_CURRENT);
}

int
cpk_format_newer_name(const char *name, size_t len, int *format,
                      char *version, size_t vsize)
{
    const char *p = name, *end = name + len;
    for (;;) {
        const char *dot = memchr(p, '.', (size_t)(end - p));
        const char *e = dot ? dot : end;
        if (cpk_format_parse(p, (size_t)(e - p), format, version, vsize) &&
            *format > CPK_FORMAT_CURRENT)
            return 1;
        if (dot == NULL)
            return 0;
        p = dot + 1;
    }
}

int
cpk_format_newer_import(const pkscan_report *r, int *format, char *version,
                        size_t vsize)
{
    /* Any part of the name, under any module: no other module has such
     * a name (cpk_format_newer_name). */
    for (size_t i = 0; i < r->n_imports; i++) {
        const pkscan_import *im = &r->imports[i];
        if (im->name.s != NULL &&
            cpk_format_newer_name(im->name.s, im->name.len, format, version,
                                  vsize))
            return 1;
    }
    return 0;
}
