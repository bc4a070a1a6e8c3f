/* test_cli_output_target.c - what -o FILE names, checked before Python
 * starts: the original standard output under another name (/dev/stdout,
 * /dev/fd/1, /proc/self/fd/1) is standard output, a directory is refused
 * before anything is imported, names up to NAME_MAX bytes work; and a
 * signal after the commit ends the program at once with status 0. */
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    char path[256];
    snprintf(path, sizeof(path), "%s/mod.py", dir);
    cpk_write_file(path, "import os\n"
                         "open('imported', 'w').close()\n"
                         "print('hello from mod')\n"
                         "def add(a, b=1):\n"
                         "    return a + b\n");
    snprintf(path, sizeof(path), "%s/lingers.py", dir);
    cpk_write_file(path, "import atexit, time\n"
                         "atexit.register(time.sleep, 6)\n"
                         "def add(a, b=1):\n"
                         "    return a + b\n");
}

TestSuite(cli_output_target, .init = setup);

/* The pickle of mod:add is in `data`: load it and call it. */
static void
assert_adds(const char *data, size_t len)
{
    cr_assert(len > 2 && (unsigned char)data[0] == 0x80, "not a pickle: %zu "
              "bytes", len);
    const char *argv[] = {CPK_LOAD, "--call", "-", "--", "2", "3", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, "/", data, len, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "5\n");
    cpk_proc_free(&p);
}

Test(cli_output_target, names_of_standard_output_are_standard_output)
{
    const char *names[] = {"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"};
    for (int i = 0; i < 3; i++) {
        const char *argv[] = {CPK_DUMP, "-o", names[i], "mod:add", NULL};
        cpk_proc p;
        cpk_spawn(&p, argv, dir, NULL, 0, NULL);
        cpk_assert_exit(&p, 0);
        cr_assert_str_eq(p.err, "hello from mod\n", "%s", names[i]);
        assert_adds(p.out, p.out_len);
        cpk_proc_free(&p);
    }
}

Test(cli_output_target, dev_stdout_redirected_to_a_file)
{
    const char *argv[] = {"/bin/sh", "-c",
                          CPK_DUMP " -o /dev/stdout mod:add >out.pkl", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "hello from mod\n");
    char path[128];
    snprintf(path, sizeof(path), "%s/out.pkl", dir);
    size_t len = 0;
    char *data = cpk_read_file(path, &len);
    cr_assert_not_null(data);
    assert_adds(data, len);
    free(data);
    cpk_proc_free(&p);
}

Test(cli_output_target, dev_stdout_on_a_terminal_is_refused)
{
    const char *argv[] = {CPK_DUMP, "-o", "/dev/stdout", "mod:add", NULL};
    cpk_spawn_opts o = {.argv = argv, .cwd = dir, .stdout_tty = 1};
    cpk_proc p;
    cpk_spawn_ex(&p, &o);
    cpk_assert_exit(&p, 2);
    cr_assert(strstr(p.err, "refusing to write a pickle to a terminal"),
              "%s", p.err);
    cpk_proc_free(&p);
}

Test(cli_output_target, directory_is_refused_before_importing)
{
    char target[128], mark[128];
    snprintf(target, sizeof(target), "%s/adir", dir);
    snprintf(mark, sizeof(mark), "%s/imported", dir);
    cr_assert(mkdir(target, 0755) == 0);
    unlink(mark);
    const char *argv[] = {CPK_DUMP, "-o", "adir", "mod:add", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 5);
    cr_assert_str_eq(p.err, "cloudpickle-dump: adir: is a directory\n");
    cr_assert(access(mark, F_OK) != 0, "the module was imported");
    cpk_proc_free(&p);
}

Test(cli_output_target, missing_directory_is_refused_before_importing)
{
    char mark[128];
    snprintf(mark, sizeof(mark), "%s/imported", dir);
    unlink(mark);
    const char *argv[] = {CPK_DUMP, "-o", "no/such/x.pkl", "mod:add", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 5);
    cr_assert_str_eq(p.err, "cloudpickle-dump: no/such/x.pkl: cannot create "
                            "a file next to it: No such file or directory\n");
    cr_assert(access(mark, F_OK) != 0, "the module was imported");
    cpk_proc_free(&p);
}

Test(cli_output_target, names_up_to_name_max_bytes)
{
    for (int n = 248; n <= NAME_MAX; n++) {
        char name[NAME_MAX + 1];
        memset(name, 'n', (size_t)n);
        name[n] = '\0';
        const char *argv[] = {CPK_DUMP, "-o", name, "mod:add", NULL};
        cpk_proc p;
        cpk_spawn(&p, argv, dir, NULL, 0, NULL);
        cpk_assert_exit(&p, 0);
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        size_t len = 0;
        char *data = cpk_read_file(path, &len);
        cr_assert_not_null(data, "%d bytes", n);
        assert_adds(data, len);
        free(data);
        unlink(path);
        cpk_proc_free(&p);
    }
    /* No temp file stays behind. */
    DIR *d = opendir(dir);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        cr_assert(strncmp(e->d_name, ".n", 2) != 0, "left %s", e->d_name);
    closedir(d);
}

/* After the rename, SIGTERM, SIGHUP and SIGINT end the program at once
 * with status 0, even while an atexit handler of the module runs. */
static void
signal_after_commit(int sig)
{
    char out[128];
    snprintf(out, sizeof(out), "%s/late%d.pkl", dir, sig);
    unlink(out);
    const char *argv[] = {CPK_DUMP, "-o", out, "lingers:add", NULL};
    cpk_spawn_opts o = {.argv = argv, .cwd = dir, .signal = sig,
                        .signal_when_exists = out};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cpk_proc p;
    cpk_spawn_ex(&p, &o);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    cpk_assert_exit(&p, 0);
    double took = (double)(t1.tv_sec - t0.tv_sec) +
                  (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    cr_assert(took < 4.0, "signal %d ignored after the commit: %.1f s", sig,
              took);
    size_t len = 0;
    char *data = cpk_read_file(out, &len);
    cr_assert_not_null(data);
    assert_adds(data, len);
    free(data);
    cpk_proc_free(&p);
}

Test(cli_output_target, sigterm_after_commit_exits_0_at_once)
{
    signal_after_commit(SIGTERM);
}
Test(cli_output_target, sighup_after_commit_exits_0_at_once)
{
    signal_after_commit(SIGHUP);
}
Test(cli_output_target, sigint_after_commit_exits_0_at_once)
{
    signal_after_commit(SIGINT);
}
