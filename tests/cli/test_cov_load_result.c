/* test_cov_load_result.c - where cloudpickle-load --call puts the result
 * when the usual place is missing or refuses it: sys.stdout set to None
 * or replaced by the function (a writer with no .buffer, one whose write
 * raises), a --result-file that is a directory or in no directory, a
 * pickled result on a full standard output; and results that cannot be
 * encoded, or a callee that is no callable. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
}

TestSuite(cov_load_result, .init = setup);

/* Pickle the value of `expr` (cloudpickle-dump -e) into dir/name. */
static void
dump(const char *name, const char *expr)
{
    char path[160];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    const char *argv[] = {CPK_DUMP, "-e", expr, "-o", path, NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

/* Run cloudpickle-load with `args` (NULL-ended, at most 8) in dir. */
static void
load(cpk_proc *p, const char *const *args)
{
    const char *argv[12] = {CPK_LOAD};
    size_t n = 1;
    for (; args[n - 1] != NULL && n < 11; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    cpk_spawn(p, argv, dir, NULL, 0, NULL);
}

/* The directory holds exactly `count` entries besides . and .. */
static void
assert_entries(size_t count)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    size_t n = 0;
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL)
        if (strcmp(ent->d_name, ".") != 0 && strcmp(ent->d_name, "..") != 0)
            n++;
    closedir(d);
    cr_assert_eq(n, count, "%zu entries, expected %zu", n, count);
}

Test(cov_load_result, stdout_set_to_none_by_the_function)
{
    dump("f.pkl", "import sys\n"
                  "def f(x):\n"
                  "    sys.stdout = None\n"
                  "    return x\n"
                  "f");
    const char *args[] = {"--call", "f.pkl", "--", "1", NULL};
    cpk_proc p;
    load(&p, args);
    cpk_assert_exit(&p, 5);
    cr_assert_str_eq(p.err, "cloudpickle-load: no sys.stdout to print the "
                            "result to\n");
    cr_assert_eq(p.out_len, 0);
    cpk_proc_free(&p);
}

Test(cov_load_result, stdout_without_buffer_gets_the_result_as_text)
{
    dump("f.pkl", "import sys\n"
                  "class W:\n"
                  "    def write(self, s):\n"
                  "        return sys.stderr.write('W:' + s)\n"
                  "    def flush(self): sys.stderr.flush()\n"
                  "def f(x):\n"
                  "    sys.stdout = W()\n"
                  "    return [x, 'é']\n"
                  "f");
    const char *args[] = {"--call", "f.pkl", "--", "1", NULL};
    cpk_proc p;
    load(&p, args);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "W:[1, 'é']\n");
    cr_assert_eq(p.out_len, 0);
    cpk_proc_free(&p);
}

Test(cov_load_result, stdout_whose_write_raises)
{
    dump("f.pkl", "import sys\n"
                  "class W:\n"
                  "    def write(self, s): raise OSError(5, 'nope')\n"
                  "    def flush(self): pass\n"
                  "def f(x):\n"
                  "    sys.stdout = W()\n"
                  "    return x\n"
                  "f");
    const char *args[] = {"--call", "f.pkl", "--", "1", NULL};
    cpk_proc p;
    load(&p, args);
    cpk_assert_exit(&p, 5);
    cr_assert_str_eq(p.err, "cloudpickle-load: standard output: OSError: "
                            "[Errno 5] nope\n");
    cpk_proc_free(&p);
}

Test(cov_load_result, result_file_that_is_a_directory)
{
    dump("f.pkl", "lambda x: x");
    const char *args[] = {"--call", "f.pkl", "--result-file", "/tmp", "--",
                          "1", NULL};
    cpk_proc p;
    load(&p, args);
    cpk_assert_exit(&p, 5);
    cr_assert_str_eq(p.err, "cloudpickle-load: /tmp: is a directory\n");
    cr_assert_eq(p.out_len, 0);
    cpk_proc_free(&p);
}

Test(cov_load_result, result_file_in_a_missing_directory)
{
    dump("f.pkl", "lambda x: x");
    const char *args[] = {"--call", "f.pkl", "--result-file", "nonex/out",
                          "--", "1", NULL};
    cpk_proc p;
    load(&p, args);
    cpk_assert_exit(&p, 5);
    cr_assert_str_eq(p.err, "cloudpickle-load: nonex/out: cannot create a "
                            "file next to it: No such file or directory\n");
    assert_entries(1);
    cpk_proc_free(&p);
}

Test(cov_load_result, pickled_result_to_a_full_standard_output)
{
    dump("f.pkl", "lambda x: x");
    char cmd[256];
    snprintf(cmd, sizeof(cmd),
             "%s --call f.pkl --result pickle -- 1 >/dev/full", CPK_LOAD);
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 5);
    cr_assert_str_eq(p.err, "cloudpickle-load: standard output: No space "
                            "left on device\n");
    cpk_proc_free(&p);
}

Test(cov_load_result, calling_what_is_not_callable)
{
    dump("int.pkl", "42");
    const char *args[] = {"--call", "int.pkl", NULL};
    cpk_proc p;
    load(&p, args);
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.err, "cloudpickle-load: int.pkl: cannot call an "
                            "object of type int\n");
    cr_assert_eq(p.out_len, 0);
    cpk_proc_free(&p);
}

Test(cov_load_result, repr_that_raises_leaves_no_result_file)
{
    dump("f.pkl", "class R:\n"
                  "    def __repr__(self): raise ValueError('no repr')\n"
                  "def f(): return R()\n"
                  "f");
    const char *args[] = {"--call", "f.pkl", "--result", "repr",
                          "--result-file", "out.txt", NULL};
    cpk_proc p;
    load(&p, args);
    cpk_assert_exit(&p, 4);
    cr_assert_str_eq(p.err, "cloudpickle-load: f.pkl: cannot encode a "
                            "result of type 'R' with repr(): ValueError: "
                            "no repr\n");
    cr_assert_eq(p.out_len, 0);
    assert_entries(1); /* f.pkl alone: no out.txt, no temp file */
    cpk_proc_free(&p);
}

Test(cov_load_result, repr_that_exits_is_the_exit_of_the_call)
{
    dump("f.pkl", "import sys\n"
                  "class R:\n"
                  "    def __repr__(self): sys.exit(3)\n"
                  "def f(): return R()\n"
                  "f");
    const char *args[] = {"--call", "f.pkl", "--result", "repr", NULL};
    cpk_proc p;
    load(&p, args);
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.err, "");
    cr_assert_eq(p.out_len, 0);
    cpk_proc_free(&p);
}
