/* test_cov_output_unit.c - cli/common/output.c compiled in, for what neither
 * program reaches from its command line: the umask read from
 * /proc/self/status when cpk_output_init was not called (a new file is
 * 0666 less it), names too long for the temp file or for a link's
 * target (ENAMETOOLONG, nothing created), a target ending in '/'
 * (EISDIR), a file in the root directory, an abort after the commit
 * (the file stays), and the writer given what is no buffer or writing
 * to a closed descriptor (the errno kept for the message). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

#include "../../cli/common/message.c"
#include "../../cli/common/output.c"

static char dir[64];

static void
setup(void)
{
    cpk_py_start();
    cpk_tmpdir(dir, sizeof(dir));
}

TestSuite(cov_output_unit, .init = setup, .fini = cpk_py_stop);

Test(cov_output_unit, umask_learned_from_proc_without_init)
{
    umask(027);
    char target[128];
    snprintf(target, sizeof(target), "%s/new.bin", dir);
    cpk_output out;
    cr_assert_eq(cpk_output_open(&out, target), 0);
    cr_assert_eq(cpk_write_all(out.fd, "abc", 3), 0);
    const char *what = NULL;
    cr_assert_eq(cpk_output_commit(&out, &what), 0, "%s", what);
    struct stat sb;
    cr_assert_eq(stat(target, &sb), 0);
    cr_assert_eq(sb.st_mode & 0777, 0640, "mode %o", sb.st_mode & 0777);
    cr_assert_eq(sb.st_size, 3);
    /* an abort after the commit leaves the file */
    cpk_output_abort(&out);
    cr_assert_eq(stat(target, &sb), 0);
}

Test(cov_output_unit, temp_name_too_long)
{
    /* a directory part so long that ".NAME.XXXXXX" no longer fits */
    char target[PATH_MAX];
    size_t n = 0;
    n += (size_t)snprintf(target, sizeof(target), "%s", dir);
    while (n < PATH_MAX - 10)
        n += (size_t)snprintf(target + n, sizeof(target) - n, "/d");
    snprintf(target + n, sizeof(target) - n, "/name");
    cpk_output out;
    cr_assert_eq(cpk_output_open(&out, target), ENAMETOOLONG);
    cr_assert_eq(out.fd, -1);
}

Test(cov_output_unit, name_longer_than_path_max)
{
    char *target = malloc(PATH_MAX + 16);
    cr_assert_not_null(target);
    memset(target, 'a', PATH_MAX + 8);
    target[PATH_MAX + 8] = '\0';
    cr_assert_eq(cpk_output_check(target), ENAMETOOLONG);
    cpk_output out;
    cr_assert_eq(cpk_output_open(&out, target), ENAMETOOLONG);
    free(target);
}

Test(cov_output_unit, link_target_too_long_to_resolve)
{
    /* a relative link whose text, after its directory, passes PATH_MAX */
    char link[128];
    snprintf(link, sizeof(link), "%s/l", dir);
    char text[4096];
    size_t n = 0;
    while (n < sizeof(text) - 8)
        n += (size_t)snprintf(text + n, sizeof(text) - n, "a/");
    text[n - 1] = 'x';
    cr_assert_eq(symlink(text, link), 0, "%s", strerror(errno));
    cr_assert_eq(cpk_output_check(link), ENAMETOOLONG);
    cpk_output out;
    cr_assert_eq(cpk_output_open(&out, link), ENAMETOOLONG);
}

Test(cov_output_unit, target_ending_in_a_slash)
{
    char target[128];
    snprintf(target, sizeof(target), "%s/newdir/", dir);
    cpk_output out;
    cr_assert_eq(cpk_output_open(&out, target), EISDIR);
    cr_assert_eq(out.fd, -1);
}

Test(cov_output_unit, file_in_the_root_directory)
{
    /* the directory of "/name" is "/", which exists */
    cr_assert_eq(cpk_output_check("/cpk-cov-no-such-file"), 0);
}

Test(cov_output_unit, writer_of_what_is_no_buffer)
{
    char target[128];
    snprintf(target, sizeof(target), "%s/w.bin", dir);
    cpk_output out;
    cr_assert_eq(cpk_output_open(&out, target), 0);
    PyObject *w = cpk_output_writer(&out);
    cr_assert_not_null(w);
    PyObject *r = PyObject_CallMethod(w, "write", "s", "text");
    cr_assert_null(r);
    cr_assert(PyErr_ExceptionMatches(PyExc_TypeError));
    PyErr_Clear();
    /* a closed descriptor: OSError, and the errno kept */
    close(out.fd);
    r = PyObject_CallMethod(w, "write", "y", "data");
    cr_assert_null(r);
    cr_assert(PyErr_ExceptionMatches(PyExc_OSError));
    PyErr_Clear();
    cr_assert_eq(out.write_errno, EBADF);
    out.fd = -1;
    Py_DECREF(w);
    cpk_output_abort(&out);
    /* the temp file is gone, the target never made */
    struct stat sb;
    cr_assert_neq(stat(target, &sb), 0);
}
