/* test_cov_rename.c - the commit's rename failing: the user's code makes
 * a directory where the output goes (at import for cloudpickle-dump, in
 * the called function for --call and --map --result-file). Status 5,
 * `prog: FILE: rename: Is a directory`, the directory left as the code
 * made it (empty) and no temporary file left beside it. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    char path[128];
    snprintf(path, sizeof(path), "%s/mk.py", dir);
    cpk_write_file(path, "import os\n"
                         "os.mkdir('out.pkl')\n"
                         "def f(): return 1\n");
    const char *argv[] = {CPK_DUMP, "-e",
                          "import os\n"
                          "def f(x):\n"
                          "    os.mkdir('res.txt')\n"
                          "    return x\n"
                          "f",
                          "-o", "mk.pkl", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

TestSuite(cov_rename, .init = setup);

/* `name` is an empty directory, and no temporary file is left. */
static void
assert_left(const char *name)
{
    char path[160];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    struct stat sb;
    cr_assert(stat(path, &sb) == 0 && S_ISDIR(sb.st_mode), "%s", path);
    DIR *d = opendir(path);
    cr_assert_not_null(d);
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL)
        cr_assert(ent->d_name[0] == '.', "%s holds %s", name, ent->d_name);
    closedir(d);
    d = opendir(dir);
    cr_assert_not_null(d);
    while ((ent = readdir(d)) != NULL)
        cr_assert(strcmp(ent->d_name, ".") == 0 ||
                      strcmp(ent->d_name, "..") == 0 || ent->d_name[0] != '.',
                  "left behind: %s", ent->d_name);
    closedir(d);
}

static void
fails(const char *const *argv, const char *in, const char *err,
      const char *name)
{
    cpk_proc p;
    cpk_spawn(&p, argv, dir, in, in ? strlen(in) : 0, NULL);
    cpk_assert_exit(&p, 5);
    cr_assert_str_eq(p.err, err);
    cr_assert_eq(p.out_len, 0, "stdout: %s", p.out);
    assert_left(name);
    cpk_proc_free(&p);
}

Test(cov_rename, dump_streamed)
{
    const char *argv[] = {CPK_DUMP, "-o", "out.pkl", "mk:f", NULL};
    fails(argv, NULL, "cloudpickle-dump: out.pkl: rename: Is a directory\n",
          "out.pkl");
}

Test(cov_rename, dump_in_memory)
{
    const char *argv[] = {CPK_DUMP, "--hash", "-o", "out.pkl", "mk:f", NULL};
    fails(argv, NULL, "cloudpickle-dump: out.pkl: rename: Is a directory\n",
          "out.pkl");
}

Test(cov_rename, call_result_file)
{
    const char *argv[] = {CPK_LOAD, "--call", "mk.pkl", "--result-file",
                          "res.txt", "--", "1", NULL};
    fails(argv, NULL, "cloudpickle-load: res.txt: rename: Is a directory\n",
          "res.txt");
}

Test(cov_rename, map_result_file)
{
    const char *argv[] = {CPK_LOAD, "--map", "mk.pkl", "--result-file",
                          "res.txt", NULL};
    fails(argv, "1\n", "cloudpickle-load: res.txt: rename: Is a directory\n",
          "res.txt");
}
