/* input.c - read a whole file or standard input (input.h). */
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int
cpk_read_input(const char *path, cpk_input *in)
{
    in->data = NULL;
    in->len = 0;
    int fd = STDIN_FILENO;
    if (strcmp(path, "-") != 0) {
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return errno;
    }
    struct stat sb;
    size_t cap = 65536;
    if (fstat(fd, &sb) == 0) {
        if (S_ISDIR(sb.st_mode)) {
            if (fd != STDIN_FILENO)
                close(fd);
            return EISDIR;
        }
        if (S_ISREG(sb.st_mode) && sb.st_size > 0)
            cap = (size_t)sb.st_size + 1; /* +1: see EOF in one read */
    }
    char *buf = malloc(cap);
    int e = 0;
    if (buf == NULL)
        e = ENOMEM;
    while (e == 0) {
        if (in->len == cap) {
            char *bigger = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
            if (bigger == NULL) {
                e = ENOMEM;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
        ssize_t n = read(fd, buf + in->len, cap - in->len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            e = errno;
        }
        else if (n == 0)
            break;
        else
            in->len += (size_t)n;
    }
    if (fd != STDIN_FILENO)
        close(fd);
    if (e != 0) {
        free(buf);
        in->len = 0;
        return e;
    }
    in->data = buf;
    return 0;
}

void
cpk_input_free(cpk_input *in)
{
    free(in->data);
    in->data = NULL;
    in->len = 0;
}
