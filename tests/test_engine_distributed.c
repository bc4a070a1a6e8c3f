/* test_engine_distributed.c - Dask distributed through the cloudpickle
 * alias: a real LocalCluster of two worker processes on loopback, started
 * by tests/engines/distributed_alias.py under CCLOUDPICKLE_ALIAS=1 in a
 * virtual environment where the build is installed with its .pth hook
 * and Debian's python3-distributed is visible. The script asserts what
 * travels and how; here we check it ran to the end and that no process of
 * that environment is left behind. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

TestSuite(engine_distributed);

/* Processes whose command line mentions `needle`. */
static int
processes_mentioning(const char *needle)
{
    DIR *d = opendir("/proc");
    cr_assert(d != NULL);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[300];
        snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
        size_t len;
        char *cmd = cpk_read_file(path, &len);
        if (cmd == NULL)
            continue;
        for (size_t i = 0; i + 1 < len; i++)
            if (cmd[i] == '\0')
                cmd[i] = ' ';
        if (strstr(cmd, needle) != NULL)
            n++;
        free(cmd);
    }
    closedir(d);
    return n;
}

/* A venv in a new directory `dir` (64 bytes) at `venv` (128), where the
 * build is installed with its .pth hook and Debian's packages are
 * visible; its python in `python` (256). */
static void
make_venv(char *dir, char *venv, char *python)
{
    cpk_tmpdir(dir, 64);
    snprintf(venv, 128, "%s/venv", dir);
    const char *mk[] = {CPK_PYTHON,
                        CPK_SOURCE_DIR "/tests/engines/alias_venv.py",
                        CPK_BUILD_DIR,
                        CPK_SOURCE_DIR,
                        venv,
                        "--system-site-packages",
                        NULL};
    cpk_proc p;
    cpk_spawn(&p, mk, "/", NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    snprintf(python, 256, "%.*s", (int)strcspn(p.out, "\n"), p.out);
    cpk_proc_free(&p);
}

static void
remove_dir(const char *dir)
{
    const char *rm[] = {"/bin/rm", "-rf", dir, NULL};
    cpk_proc p;
    cpk_spawn(&p, rm, "/", NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

Test(engine_distributed, local_cluster_through_alias, .timeout = 300)
{
    cpk_require("distributed");
    char dir[64], venv[128], python[256];
    make_venv(dir, venv, python);
    cpk_proc p;

    /* The client script and, through the variable, every worker. */
    const char *argv[] = {python,
                          CPK_SOURCE_DIR "/tests/engines/distributed_alias.py",
                          NULL};
    const char *env[] = {"CCLOUDPICKLE_ALIAS=1", NULL};
    const char *unset[] = {"PYTHONPATH", NULL};
    cpk_spawn_opts o = {.argv = argv, .cwd = dir, .env = env, .unset = unset};
    cpk_spawn_ex(&p, &o);
    cr_assert(p.exited && p.status == 0,
              "the distributed script failed (%d):\nstdout:\n%s\nstderr:\n%s",
              p.status, p.out, p.err);
    cr_assert_str_eq(p.out, "ok\n");
    cpk_proc_free(&p);
    cr_assert_eq(processes_mentioning(venv), 0,
                 "processes of %s are still running", venv);

    remove_dir(dir);
}

/* Without the variable the same environment gives stock cloudpickle to
 * the engine: the alias is opt-in. */
Test(engine_distributed, without_the_variable_distributed_gets_stock,
     .timeout = 120)
{
    cpk_require("distributed");
    char dir[64], venv[128], python[256];
    make_venv(dir, venv, python);
    cpk_proc p;
    const char *argv[] = {python, "-c",
                          "import distributed.protocol.pickle as dpp, ccloudpickle\n"
                          "assert dpp.cloudpickle.dumps is not ccloudpickle.dumps\n"
                          "assert dpp.cloudpickle.__version__.startswith('2.')\n",
                          NULL};
    const char *unset[] = {"PYTHONPATH", "CCLOUDPICKLE_ALIAS", NULL};
    cpk_spawn_opts o = {.argv = argv, .cwd = dir, .unset = unset};
    cpk_spawn_ex(&p, &o);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    remove_dir(dir);
}
