/* input.c - read a whole file or standard input, bounded (input.h). */
#include "common/input.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The most one read(2) asks for. */
#define CPK_INPUT_CHUNK ((size_t)1 << 20)

int
cpk_read_input(const char *path, size_t limit, cpk_input *in,
               cpk_input_check check, void *ctx)
{
    memset(in, 0, sizeof(*in));
    int fd = STDIN_FILENO;
    if (strcmp(path, "-") != 0) {
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return errno;
    }
    struct stat sb;
    size_t cap = 65536;
    int e = 0;
    if (fstat(fd, &sb) == 0) {
        in->regular = S_ISREG(sb.st_mode);
        if (S_ISDIR(sb.st_mode))
            e = EISDIR;
        else if (S_ISREG(sb.st_mode) && (uintmax_t)sb.st_size > limit) {
            /* Refused before reading a byte (a sparse file is no
             * cheaper to read than a real one). */
            in->size = (size_t)sb.st_size;
            e = CPK_INPUT_TOO_BIG;
        }
        else if (S_ISREG(sb.st_mode) && sb.st_size > 0)
            cap = (size_t)sb.st_size + 1; /* +1: see EOF in one read */
    }
    if (cap > limit + 1)
        cap = limit + 1;
    char *buf = e == 0 ? malloc(cap) : NULL;
    if (e == 0 && buf == NULL)
        e = ENOMEM;
    while (e == 0) {
        if (in->len == cap) {
            if (cap > limit) {
                e = CPK_INPUT_TOO_BIG;
                break;
            }
            size_t bigger_cap = cap > limit / 2 ? limit + 1 : cap * 2;
            char *bigger = realloc(buf, bigger_cap);
            if (bigger == NULL) {
                e = ENOMEM;
                break;
            }
            buf = bigger;
            cap = bigger_cap;
        }
        /* A bounded read at a time, so that the check refuses garbage
         * at the start of a big file without reading the rest (the buffer
         * of a regular file is its size, but untouched pages cost
         * nothing). */
        size_t want = cap - in->len;
        if (want > CPK_INPUT_CHUNK)
            want = CPK_INPUT_CHUNK;
        ssize_t n = read(fd, buf + in->len, want);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            e = errno;
        }
        else if (n == 0) {
            if (check != NULL)
                e = check(ctx, buf, in->len, 1);
            break;
        }
        else {
            in->len += (size_t)n;
            /* Bad bytes are refused as such, even past the limit. */
            if (check != NULL)
                e = check(ctx, buf, in->len, 0);
            if (e == 0 && in->len > limit)
                e = CPK_INPUT_TOO_BIG;
        }
    }
    if (fd != STDIN_FILENO)
        close(fd);
    in->data = buf; /* the caller frees it, whatever the outcome */
    return e;
}

void
cpk_input_free(cpk_input *in)
{
    free(in->data);
    in->data = NULL;
    in->len = 0;
}

int
cpk_parse_size(const char *s, size_t *out)
{
    if (!isdigit((unsigned char)*s))
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0)
        return -1;
    int shift = 0;
    switch (*end) {
    case '\0':
        break;
    case 'k':
    case 'K':
        shift = 10;
        break;
    case 'm':
    case 'M':
        shift = 20;
        break;
    case 'g':
    case 'G':
        shift = 30;
        break;
    case 't':
    case 'T':
        shift = 40;
        break;
    default:
        return -1;
    }
    if (*end != '\0') {
        end++;
        if (strcmp(end, "iB") != 0 && strcmp(end, "B") != 0 && *end != '\0')
            return -1;
    }
    if (v > (SIZE_MAX >> shift) || (v << shift) >= SIZE_MAX)
        return -1;
    *out = (size_t)(v << shift);
    return 0;
}

void
cpk_format_size(size_t n, char *buf, size_t cap)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
    if (n < 1024) {
        snprintf(buf, cap, "%zu byte%s", n, n == 1 ? "" : "s");
        return;
    }
    double v = (double)n;
    int u = -1;
    while (v >= 1024 && u < 3) {
        v /= 1024;
        u++;
    }
    if (v == (double)(long long)v)
        snprintf(buf, cap, "%lld %s", (long long)v, units[u]);
    else
        snprintf(buf, cap, "%.1f %s", v, units[u]);
}
