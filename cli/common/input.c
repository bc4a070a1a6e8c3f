/* input.c - read a whole file or standard input, bounded, or map a
 * regular file, with the SIGBUS guard of its mapping (input.h). */
#include "common/input.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/message.h" /* cpk_prog, CPK_EXIT_INPUT */

/* The most one read(2) asks for. */
#define CPK_INPUT_CHUNK ((size_t)1 << 20)

/* The mappings alive (cpk_read_input_mapped), for the SIGBUS handler:
 * a page of one that is gone (the file was truncated) faults with SIGBUS
 * when touched. Set up before the mapping is touched, read by the
 * handler only. */
#define CPK_MAPS 4
static struct {
    volatile sig_atomic_t live;
    const char *addr;
    size_t len;
    char msg[512]; /* the whole line, written by the handler */
    size_t msglen;
} maps[CPK_MAPS];
static struct sigaction old_bus;
static int bus_installed;

static void
on_sigbus(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    const char *at = si->si_addr;
    for (int i = 0; i < CPK_MAPS; i++) {
        if (maps[i].live && at >= maps[i].addr &&
            at < maps[i].addr + maps[i].len) {
            ssize_t w = write(STDERR_FILENO, maps[i].msg, maps[i].msglen);
            (void)w;
            _exit(CPK_EXIT_INPUT);
        }
    }
    /* Not ours: as if we had no handler (a fault faults again). */
    sigaction(SIGBUS, &old_bus, NULL);
    raise(sig);
}

/* Guard the mapping of `len` bytes at `addr` for `name`. 0, or -1 if no
 * slot is free or the handler cannot be set (then it is not mapped). */
static int
guard_map(const char *addr, size_t len, const char *name)
{
    for (int i = 0; i < CPK_MAPS; i++) {
        if (maps[i].live)
            continue;
        if (!bus_installed) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_sigaction = on_sigbus;
            sa.sa_flags = SA_SIGINFO;
            sigemptyset(&sa.sa_mask);
            if (sigaction(SIGBUS, &sa, &old_bus) != 0)
                return -1;
            bus_installed = 1;
        }
        int n = snprintf(maps[i].msg, sizeof maps[i].msg,
                         "%s: %s: the file changed while it was read\n",
                         cpk_prog, name);
        if (n < 0 || (size_t)n >= sizeof maps[i].msg) {
            n = (int)sizeof maps[i].msg - 1;
            maps[i].msg[n - 1] = '\n';
        }
        maps[i].msglen = (size_t)n;
        /* the whole pages: the tail of the last one is mapped too */
        long page = sysconf(_SC_PAGESIZE);
        if (page > 0 && len % (size_t)page != 0)
            len += (size_t)page - len % (size_t)page;
        maps[i].addr = addr;
        maps[i].len = len;
        maps[i].live = 1;
        return 0;
    }
    return -1;
}

static void
unguard_map(const char *addr)
{
    for (int i = 0; i < CPK_MAPS; i++)
        if (maps[i].live && maps[i].addr == addr)
            maps[i].live = 0;
}

static int read_fd(int fd, int have_stat, const struct stat *sb,
                   size_t limit, cpk_input *in, cpk_input_check check,
                   void *ctx);

int
cpk_read_input(const char *path, size_t limit, cpk_input *in,
               cpk_input_check check, void *ctx)
{
    return cpk_read_input_mapped(path, NULL, limit, in, check, ctx);
}

int
cpk_read_input_mapped(const char *path, const char *name, size_t limit,
                      cpk_input *in, cpk_input_check check, void *ctx)
{
    memset(in, 0, sizeof(*in));
    int fd = STDIN_FILENO;
    if (strcmp(path, "-") != 0) {
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return errno;
    }
    struct stat sb;
    int have_stat = fstat(fd, &sb) == 0;
    int e = 0, done = 0;
    if (name != NULL && have_stat && S_ISREG(sb.st_mode) && sb.st_size > 0 &&
        (uintmax_t)sb.st_size <= limit && (uintmax_t)sb.st_size <= SIZE_MAX) {
        size_t len = (size_t)sb.st_size;
        void *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED && guard_map(p, len, name) != 0) {
            munmap(p, len);
            p = MAP_FAILED;
        }
        if (p != MAP_FAILED) {
            (void)madvise(p, len, MADV_SEQUENTIAL);
            in->regular = 1;
            in->mapped = 1;
            /* Kept for the load's pread of large payloads (memio.c),
             * above the standard descriptors: a copy of standard
             * input's, which is not ours to close, or of a file opened
             * in the place of a closed one, which must stay closed (an
             * output to a closed stdout fails as such). */
            if (fd > STDERR_FILENO) {
                in->fd = fd;
                fd = -1;
            }
            else
                in->fd = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
            in->data = p;
            in->len = len;
            /* The bytes are all there: checked once, whole. */
            e = check != NULL ? check(ctx, in->data, in->len, 1) : 0;
            done = 1;
        }
        /* else read it as any file */
    }
    if (!done)
        e = read_fd(fd, have_stat, &sb, limit, in, check, ctx);
    if (fd >= 0 && fd != STDIN_FILENO)
        close(fd);
    return e;
}

/* cpk_read_input of the open `fd` (fstat'ed into *sb if have_stat). */
static int
read_fd(int fd, int have_stat, const struct stat *sb, size_t limit,
        cpk_input *in, cpk_input_check check, void *ctx)
{
    size_t cap = 65536;
    int e = 0;
    if (have_stat) {
        in->regular = S_ISREG(sb->st_mode);
        if (S_ISDIR(sb->st_mode))
            e = EISDIR;
        else if (S_ISREG(sb->st_mode) && (uintmax_t)sb->st_size > limit) {
            /* Refused before reading a byte (a sparse file is no
             * cheaper to read than a real one). */
            in->size = (size_t)sb->st_size;
            e = CPK_INPUT_TOO_BIG;
        }
        else if (S_ISREG(sb->st_mode) && sb->st_size > 0)
            cap = (size_t)sb->st_size + 1; /* +1: see EOF in one read */
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
    in->data = buf; /* the caller frees it, whatever the outcome */
    return e;
}

void
cpk_input_release(const cpk_input *in)
{
    if (in->mapped)
        (void)madvise(in->data, in->len, MADV_DONTNEED);
}

void
cpk_input_free(cpk_input *in)
{
    if (in->mapped) {
        unguard_map(in->data);
        munmap(in->data, in->len);
        if (in->fd >= 0)
            close(in->fd);
        in->fd = -1;
    }
    else
        free(in->data);
    in->data = NULL;
    in->len = 0;
    in->mapped = 0;
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
