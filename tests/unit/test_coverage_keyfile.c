/* test_coverage_keyfile.c - cpk_keyfile_generate (cli/common/keyfile.c, behind
 * cloudpickle-dump --gen-key) when the kernel's random source fails: no
 * getrandom(2) (ENOSYS on an old kernel, or a seccomp filter), then
 * /dev/urandom missing, unreadable, cut short or interrupted, and when
 * writing the new key fails. keyfile.c is compiled into this test with
 * its system calls renamed to the stand-ins below, which fail on request
 * and otherwise call the real ones: the program itself has no test hook.
 * (This file includes cli/common/keyfile.c: after editing that file, rebuild
 * this test's object too.) */
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

#include <criterion/criterion.h>

#include "support.h"

/* What the stand-ins do, set by each test. */
static struct {
    int getrandom_errno;   /* getrandom fails with this (0: works) */
    int getrandom_eintr;   /* fail this many calls with EINTR first */
    int getrandom_calls;
    size_t getrandom_max;  /* at most this many bytes a call (0: all) */
    int urandom_open_errno; /* open("/dev/urandom") fails with this */
    int urandom_opened;
    int urandom_fd;
    int read_eintr;        /* on the urandom fd: EINTR this many times */
    size_t read_max;       /* at most this many bytes a read (0: all) */
    size_t read_total_max; /* then end of file (0: never) */
    int read_errno;        /* after read_total_max: this error, not EOF */
    size_t read_total;
    int write_errno;       /* write fails with this after write_max bytes */
    size_t write_max;
    size_t written;
    int fsync_errno;       /* fsync of the key file fails with this */
} fake;

static ssize_t
fake_getrandom(void *buf, size_t n, unsigned flags)
{
    fake.getrandom_calls++;
    if (fake.getrandom_eintr > 0) {
        fake.getrandom_eintr--;
        errno = EINTR;
        return -1;
    }
    if (fake.getrandom_errno != 0) {
        errno = fake.getrandom_errno;
        return -1;
    }
    if (fake.getrandom_max != 0 && n > fake.getrandom_max)
        n = fake.getrandom_max;
    return getrandom(buf, n, flags);
}

static int
fake_open(const char *path, int flags, ...)
{
    mode_t mode = 0;
    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    if (strcmp(path, "/dev/urandom") == 0) {
        fake.urandom_opened++;
        if (fake.urandom_open_errno != 0) {
            errno = fake.urandom_open_errno;
            return -1;
        }
        fake.urandom_fd = open(path, flags, mode);
        return fake.urandom_fd;
    }
    return open(path, flags, mode);
}

static ssize_t
fake_read(int fd, void *buf, size_t n)
{
    if (fd != fake.urandom_fd)
        return read(fd, buf, n);
    if (fake.read_eintr > 0) {
        fake.read_eintr--;
        errno = EINTR;
        return -1;
    }
    if (fake.read_total_max != 0) {
        if (fake.read_total >= fake.read_total_max) {
            if (fake.read_errno != 0) {
                errno = fake.read_errno;
                return -1;
            }
            return 0;
        }
        if (n > fake.read_total_max - fake.read_total)
            n = fake.read_total_max - fake.read_total;
    }
    if (fake.read_max != 0 && n > fake.read_max)
        n = fake.read_max;
    ssize_t r = read(fd, buf, n);
    if (r > 0)
        fake.read_total += (size_t)r;
    return r;
}

static ssize_t
fake_write(int fd, const void *buf, size_t n)
{
    if (fake.write_errno != 0) {
        if (fake.written >= fake.write_max) {
            errno = fake.write_errno;
            return -1;
        }
        if (n > fake.write_max - fake.written)
            n = fake.write_max - fake.written;
    }
    ssize_t w = write(fd, buf, n);
    if (w > 0)
        fake.written += (size_t)w;
    return w;
}

static int
fake_fsync(int fd)
{
    if (fake.fsync_errno != 0 && fd != fake.urandom_fd) {
        errno = fake.fsync_errno;
        return -1;
    }
    return fsync(fd);
}

#define getrandom fake_getrandom
#define open fake_open
#define read fake_read
#define write fake_write
#define fsync fake_fsync
#include "../../cli/common/keyfile.c"
#undef getrandom
#undef open
#undef read
#undef write
#undef fsync

static char dir[64];

static void
setup(void)
{
    memset(&fake, 0, sizeof(fake));
    fake.urandom_fd = -1;
    cpk_tmpdir(dir, sizeof(dir));
}

static void
teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    cr_assert(system(cmd) == 0);
}

TestSuite(coverage_keyfile, .init = setup, .fini = teardown);

/* A key made: the file is CPK_KEYFILE_GEN_LEN bytes, mode 0600, and
 * reads back as a key. */
static void
assert_key(const char *path)
{
    struct stat sb;
    cr_assert(stat(path, &sb) == 0, "%s: %s", path, strerror(errno));
    cr_assert_eq(sb.st_size, CPK_KEYFILE_GEN_LEN);
    cr_assert_eq(sb.st_mode & 0777, 0600);
    unsigned char *key;
    size_t len;
    char why[256];
    cr_assert(cpk_keyfile_read(path, &key, &len, why, sizeof(why)) == 0,
              "%s", why);
    cr_assert_eq(len, CPK_KEYFILE_GEN_LEN);
    size_t zeros = 0;
    for (size_t i = 0; i < len; i++)
        zeros += key[i] == 0;
    cr_assert(zeros < len, "an all-zero key");
    cpk_keyfile_free(key, len);
}

static void
assert_refused(const char *path, const char *want)
{
    char why[256] = "";
    cr_assert_eq(cpk_keyfile_generate(path, why, sizeof(why)), -1);
    cr_assert_str_eq(why, want);
    cr_assert(access(path, F_OK) != 0 && errno == ENOENT,
              "%s was left behind", path);
}

Test(coverage_keyfile, getrandom_interrupted_or_short_still_makes_a_key)
{
    char path[128], why[256];
    snprintf(path, sizeof(path), "%s/k.key", dir);
    fake.getrandom_eintr = 2;
    fake.getrandom_max = 5;
    cr_assert(cpk_keyfile_generate(path, why, sizeof(why)) == 0, "%s", why);
    assert_key(path);
    /* two interruptions, then ceil(32 / 5) short reads */
    cr_assert_eq(fake.getrandom_calls, 2 + 7);
    cr_assert_eq(fake.urandom_opened, 0);
}

Test(coverage_keyfile, without_getrandom_reads_dev_urandom)
{
    char path[128], why[256];
    snprintf(path, sizeof(path), "%s/k.key", dir);
    fake.getrandom_errno = ENOSYS;
    fake.read_eintr = 1;
    fake.read_max = 10;
    cr_assert(cpk_keyfile_generate(path, why, sizeof(why)) == 0, "%s", why);
    cr_assert_eq(fake.urandom_opened, 1);
    cr_assert_eq(fake.read_total, CPK_KEYFILE_GEN_LEN);
    fake.urandom_fd = -1; /* closed: its number may come again */
    assert_key(path);
}

Test(coverage_keyfile, no_random_source_is_refused_and_makes_no_file)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/k.key", dir);
    fake.getrandom_errno = ENOSYS;
    fake.urandom_open_errno = ENOENT;
    assert_refused(path, "cannot get random bytes: No such file or directory");
    fake.urandom_open_errno = EACCES;
    assert_refused(path, "cannot get random bytes: Permission denied");
    cr_assert_eq(fake.urandom_opened, 2);
}

Test(coverage_keyfile, dev_urandom_cut_short_or_failing_is_refused)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/k.key", dir);
    fake.getrandom_errno = EPERM; /* a seccomp filter's answer */
    fake.read_total_max = 20;     /* then end of file */
    assert_refused(path, "cannot get random bytes: Input/output error");
    fake.read_total = 0;
    fake.read_errno = EIO;
    assert_refused(path, "cannot get random bytes: Input/output error");
    fake.read_total = 0;
    fake.read_errno = EAGAIN;
    assert_refused(path, "cannot get random bytes: "
                         "Resource temporarily unavailable");
}

Test(coverage_keyfile, failed_write_or_fsync_removes_the_partial_file)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/k.key", dir);
    fake.write_errno = ENOSPC;
    fake.write_max = 7;
    assert_refused(path, "No space left on device");
    cr_assert_eq(fake.written, 7);
    fake.write_errno = 0;
    fake.fsync_errno = EIO;
    assert_refused(path, "Input/output error");
}
