/* keyfile.c - read and make key files of signed pickles (keyfile.h). */
#include "common/keyfile.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scan/envelope.h"

static int fail(char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Format the reason into why; returns -1. */
static int
fail(char *why, size_t whylen, const char *fmt, ...)
{
    if (whylen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int
cpk_keyfile_read(const char *path, unsigned char **key, size_t *len,
                 char *why, size_t whylen)
{
    *key = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return fail(why, whylen, "%s", strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return fail(why, whylen, "%s", strerror(e));
    }
    if (S_ISDIR(sb.st_mode)) {
        close(fd);
        return fail(why, whylen, "is a directory");
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return fail(why, whylen, "not a regular file");
    }
    if ((sb.st_mode & 077) != 0) {
        close(fd);
        char mode[8];
        snprintf(mode, sizeof(mode), "%04o", (unsigned)(sb.st_mode & 07777));
        return fail(why, whylen,
                    "permissions %s are too open; the key must be readable "
                    "by its owner only (chmod 600)",
                    mode);
    }
    if (sb.st_size < CPK_ENV_KEY_MIN) {
        close(fd);
        return fail(why, whylen, "key too short: %lld bytes (at least %d)",
                    (long long)sb.st_size, CPK_ENV_KEY_MIN);
    }
    if (sb.st_size > CPK_KEYFILE_MAX) {
        close(fd);
        return fail(why, whylen,
                    "key file too large: %lld bytes (at most %d)",
                    (long long)sb.st_size, CPK_KEYFILE_MAX);
    }
    size_t n = (size_t)sb.st_size;
    /* One byte more than the size: a file that grew is noticed. */
    unsigned char *buf = malloc(n + 1);
    if (buf == NULL) {
        close(fd);
        return fail(why, whylen, "%s", strerror(ENOMEM));
    }
    size_t got = 0;
    while (got < n + 1) {
        ssize_t r = read(fd, buf + got, n + 1 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            close(fd);
            cpk_keyfile_free(buf, n + 1);
            return fail(why, whylen, "read error: %s", strerror(e));
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (got != n) {
        cpk_keyfile_free(buf, n + 1);
        return fail(why, whylen, "file changed while being read");
    }
    *key = buf;
    *len = n;
    return 0;
}

void
cpk_keyfile_free(unsigned char *key, size_t len)
{
    if (key == NULL)
        return;
    explicit_bzero(key, len);
    free(key);
}

/* n random bytes from the kernel; 0 or an errno value. */
static int
random_bytes(unsigned char *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = getrandom(buf + got, n - got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            break; /* ENOSYS on an old kernel: /dev/urandom */
        got += (size_t)r;
    }
    if (got == n)
        return 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return errno;
    got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            int e = r < 0 ? errno : EIO;
            close(fd);
            return e;
        }
        got += (size_t)r;
    }
    close(fd);
    return 0;
}

int
cpk_keyfile_generate(const char *path, char *why, size_t whylen)
{
    unsigned char key[CPK_KEYFILE_GEN_LEN];
    int e = random_bytes(key, sizeof(key));
    if (e != 0)
        return fail(why, whylen, "cannot get random bytes: %s", strerror(e));
    /* O_EXCL: never an existing file, nor through a symbolic link. */
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY,
                  0600);
    if (fd < 0) {
        e = errno;
        explicit_bzero(key, sizeof(key));
        if (e == EEXIST)
            return fail(why, whylen,
                        "already exists; refusing to overwrite it");
        return fail(why, whylen, "%s", strerror(e));
    }
    size_t done = 0;
    e = 0;
    while (done < sizeof(key)) {
        ssize_t w = write(fd, key + done, sizeof(key) - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            e = w < 0 ? errno : EIO;
            break;
        }
        done += (size_t)w;
    }
    explicit_bzero(key, sizeof(key));
    if (e == 0 && fsync(fd) != 0)
        e = errno;
    if (close(fd) != 0 && e == 0)
        e = errno;
    if (e != 0) {
        unlink(path);
        return fail(why, whylen, "%s", strerror(e));
    }
    /* The new name too survives a crash. */
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", path);
    int dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
    return 0;
}
