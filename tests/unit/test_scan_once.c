/* test_scan_once.c - cli/common/scancheck.c in-process: a regular file is
 * read, then scanned once, whole (its size is known before the first
 * read); a pipe is scanned early while it arrives, so garbage is refused
 * from its first bytes without reading the rest. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/message.h" /* CPK_EXIT_INPUT */
#include "common/scancheck.h"
#include "support.h"

/* A protocol 2 pickle of a list of `n` small ints and short strs, about
 * 9 bytes an item: plain data, valid, `*len` bytes (malloc'd). */
static unsigned char *
list_pickle(size_t n, size_t *len)
{
    unsigned char *p = malloc(16 + n * 9);
    cr_assert_not_null(p);
    size_t k = 0;
    p[k++] = 0x80; /* PROTO 2 */
    p[k++] = 2;
    p[k++] = ']'; /* EMPTY_LIST */
    for (size_t i = 0; i < n; i++) {
        if (i % 1000 == 0)
            p[k++] = '(';                  /* MARK */
        if (i % 2 == 0) {
            p[k++] = 'J';                  /* BININT */
            memcpy(p + k, &(int){(int)i}, 4);
            k += 4;
        }
        else {
            p[k++] = 'U';                  /* SHORT_BINSTRING */
            p[k++] = 3;
            memcpy(p + k, "abc", 3);
            k += 3;
        }
        if (i % 1000 == 999 || i + 1 == n)
            p[k++] = 'e';                  /* APPENDS */
    }
    p[k++] = '.';
    *len = k;
    return p;
}

static char *
write_temp(const unsigned char *data, size_t len)
{
    char *path = strdup("/tmp/cpk_scan_once_XXXXXX");
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, data, len), (ssize_t)len);
    close(fd);
    return path;
}

/* Read `path` with cpk_scan_read and scan what was read: the number of
 * scans each took. */
static void
read_and_scan(const char *path, size_t *in_read, size_t *in_scan,
              int *read_status)
{
    cpk_input in;
    size_t before = pkscan_scans_started();
    *read_status = cpk_scan_read(path, "input", CPK_INPUT_LIMIT,
                                 PKSCAN_LIMIT_FLOOR, NULL, &in);
    *in_read = pkscan_scans_started() - before;
    *in_scan = 0;
    if (*read_status == 0) {
        pkscan_report *r;
        before = pkscan_scans_started();
        cr_assert_eq(cpk_scan_pickle("input", in.data, in.len,
                                     PKSCAN_LIMIT_FLOOR, &r), 0);
        *in_scan = pkscan_scans_started() - before;
        pkscan_free(r);
    }
    cpk_input_free(&in);
}

Test(scan_once, a_regular_file_is_scanned_once_whole)
{
    /* 800 KB: one read(2) of a regular file, which the early check used
     * to scan in full before the real scan did it again. 5 MB: its
     * prefixes were scanned at 1, 2 and 4 MiB. */
    size_t sizes[] = {1000, 90000, 600000};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        size_t len;
        unsigned char *p = list_pickle(sizes[i], &len);
        char *path = write_temp(p, len);
        size_t in_read, in_scan;
        int status;
        read_and_scan(path, &in_read, &in_scan, &status);
        cr_assert_eq(status, 0, "%zu bytes", len);
        cr_assert_eq(in_read, 0, "%zu bytes: %zu scans while reading",
                     len, in_read);
        cr_assert_eq(in_scan, 1);
        unlink(path);
        free(path);
        free(p);
    }
}

Test(scan_once, garbage_in_a_regular_file_is_still_refused)
{
    unsigned char junk[4096];
    memset(junk, 0xff, sizeof junk);
    char *path = write_temp(junk, sizeof junk);
    cpk_input in;
    cr_assert_eq(cpk_scan_read(path, "input", CPK_INPUT_LIMIT,
                               PKSCAN_LIMIT_FLOOR, NULL, &in), 0);
    pkscan_report *r;
    cr_assert_eq(cpk_scan_pickle("input", in.data, in.len,
                                 PKSCAN_LIMIT_FLOOR, &r),
                 CPK_EXIT_INPUT);
    cr_assert_eq(r->error_offset, 0);
    pkscan_free(r);
    cpk_input_free(&in);
    unlink(path);
    free(path);
}

/* A pipe that would go on for ever after its first bad bytes: refused
 * once the first read is scanned, the writer still blocked. */
Test(scan_once, garbage_in_a_pipe_is_refused_before_its_end)
{
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        unsigned char junk[65536];
        memset(junk, 0xff, sizeof junk);
        for (;;)
            if (write(fds[1], junk, sizeof junk) < 0)
                _exit(0);
    }
    close(fds[1]);
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
    cpk_input in;
    size_t before = pkscan_scans_started();
    int status = cpk_scan_read(path, "input", CPK_INPUT_LIMIT,
                               PKSCAN_LIMIT_FLOOR, NULL, &in);
    cr_assert_eq(status, CPK_EXIT_INPUT);
    cr_assert_geq(pkscan_scans_started() - before, 1);
    cr_assert_lt(in.len, (size_t)16 << 20, "read %zu bytes", in.len);
    cpk_input_free(&in);
    close(fds[0]);
    int ws;
    cr_assert_eq(waitpid(pid, &ws, 0), pid);
}

/* cpk_scan_pickle's refusal of data[0, len), with or without a report:
 * the line written (malloc'd) and the status. */
static char *
refusal(const unsigned char *data, size_t len, int with_report, int *status)
{
    char *text = NULL;
    size_t tlen = 0;
    FILE *m = open_memstream(&text, &tlen);
    cr_assert_not_null(m);
    FILE *was = cpk_message_capture(m);
    pkscan_report *r = NULL;
    *status = cpk_scan_pickle("in", data, len, 0, with_report ? &r : NULL);
    cpk_message_capture(was);
    pkscan_free(r);
    fclose(m);
    return text;
}

/* A load that needs no report (no --strict, no policy) is vouched for by
 * the bounded check alone; what it cannot vouch for, the full scan
 * refuses in the same words. */
Test(scan_once, a_plain_load_needs_no_full_scan)
{
    size_t len;
    unsigned char *p = list_pickle(100000, &len);
    size_t before = pkscan_scans_started();
    int status;
    char *text = refusal(p, len, 0, &status);
    cr_assert_eq(status, 0);
    cr_assert_str_eq(text, "");
    cr_assert_eq(pkscan_scans_started(), before, "the full scan ran");
    free(text);
    text = refusal(p, len, 1, &status);
    cr_assert_eq(status, 0);
    cr_assert_eq(pkscan_scans_started(), before + 1);
    free(text);

    /* cut short, and with a stray opcode: the same line either way */
    size_t cuts[] = {len - 1, len / 2};
    for (int i = 0; i < 3; i++) {
        size_t n = i < 2 ? cuts[i] : len;
        if (i == 2)
            p[4] = 0xff; /* the first BININT */
        int s1, s2;
        char *quick = refusal(p, n, 0, &s1);
        char *full = refusal(p, n, 1, &s2);
        cr_assert_eq(s1, CPK_EXIT_INPUT);
        cr_assert_eq(s2, CPK_EXIT_INPUT);
        cr_assert(strstr(quick, "in: not a valid pickle: ") != NULL, "%s",
                  quick);
        cr_assert_str_eq(quick, full);
        free(quick);
        free(full);
    }
    free(p);
}
