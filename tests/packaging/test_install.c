/* test_install.c - `make install` with PREFIX and DESTDIR puts the
 * programs, the man pages and the extension module where they belong, and
 * what it installed works. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
}

static void
remove_dir(void)
{
    const char *argv[] = {"/bin/rm", "-rf", dir, NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, "/", NULL, 0, NULL);
    cpk_proc_free(&p);
}

TestSuite(install, .init = setup, .fini = remove_dir);

Test(install, destdir_and_prefix)
{
    char destdir[128], prefix_arg[160];
    snprintf(destdir, sizeof(destdir), "DESTDIR=%s", dir);
    snprintf(prefix_arg, sizeof(prefix_arg), "PREFIX=/opt/cpk");
    const char *argv[] = {"/usr/bin/make", "-s", "-C", CPK_SOURCE_DIR,
                          "BUILD=" CPK_BUILD_DIR, "PYTHON=" CPK_PYTHON,
                          destdir, prefix_arg, "install", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, NULL, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);

    static const char *const files[] = {
        "/opt/cpk/bin/cloudpickle-dump",
        "/opt/cpk/bin/cloudpickle-load",
        "/opt/cpk/share/man/man1/cloudpickle-dump.1",
        "/opt/cpk/share/man/man1/cloudpickle-load.1",
    };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char path[300];
        snprintf(path, sizeof(path), "%s%s", dir, files[i]);
        cr_assert(access(path, F_OK) == 0, "%s was not installed", path);
    }
    char prog[300];
    snprintf(prog, sizeof(prog), "%s/opt/cpk/bin/cloudpickle-load", dir);
    cr_assert(access(prog, X_OK) == 0);
    const char *version[] = {prog, "--version", NULL};
    cpk_spawn(&p, version, NULL, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert(strncmp(p.out, "cloudpickle-load (ccloudpickle) ", 32) == 0);
    cpk_proc_free(&p);

    /* The module lands in PREFIX's site-packages and imports from there. */
    char site[300], code[600];
    snprintf(site, sizeof(site), "%s/opt/cpk/lib/python%d.%d/site-packages",
             dir, PY_MAJOR_VERSION, PY_MINOR_VERSION);
    snprintf(code, sizeof(code),
             "import ccloudpickle\n"
             "assert ccloudpickle.__file__.startswith('%s'), "
             "ccloudpickle.__file__\n"
             "assert ccloudpickle.loads(ccloudpickle.dumps(lambda: 7))() == 7\n",
             site);
    cpk_python_path(&p, site, code, NULL, 0);
    cr_assert(p.exited && p.status == 0, "%s", p.err);
    cpk_proc_free(&p);
}

/* The steps of the tests below: tests/packaging/install_check.py MODE
 * PYTHON BUILD DIR. */
static void
install_check(const char *mode, const char *python, const char *build)
{
    const char *argv[] = {"/usr/bin/python3",
                          CPK_SOURCE_DIR "/tests/packaging/install_check.py",
                          mode, python, build, dir, NULL};
    const char *unset[] = {"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "VIRTUAL_ENV",
                           "PYTHONPATH", NULL};
    cpk_spawn_opts o = {.argv = argv, .cwd = dir, .unset = unset};
    cpk_proc p;
    cpk_spawn_ex(&p, &o);
    cr_assert(p.exited && p.status == 0, "install_check %s %s:\n%s%s", mode,
              python, p.out, p.err);
    cr_assert(strstr(p.out, "\nOK\n") != NULL, "%s", p.out);
    cpk_proc_free(&p);
}

TestSuite(make_install, .init = setup, .fini = remove_dir, .timeout = 300);

/* make install PYTHON=venv/bin/python3: PREFIX is the venv; its programs
 * use it without activation; make uninstall removes every file. */
Test(make_install, into_a_venv)
{
    install_check("venv", CPK_PYTHON, CPK_BUILD_DIR);
}

/* The default PREFIX puts the module where the interpreter looks
 * (Debian's /usr/local/lib/python3.X/dist-packages for the system one),
 * under DESTDIR; uninstall removes it all. */
Test(make_install, default_prefix_is_searched)
{
    install_check("destdir", CPK_PYTHON, CPK_BUILD_DIR);
}

Test(make_install, install_strip)
{
    install_check("strip", CPK_PYTHON, CPK_BUILD_DIR);
}

/* A PREFIX the interpreter does not search: a note naming PYTHONPATH. */
Test(make_install, unsearched_prefix_note)
{
    install_check("note", CPK_PYTHON, CPK_BUILD_DIR);
}

#define PYENV_312 "/root/.pyenv/versions/3.12.1/bin/python3"

/* Another interpreter (pyenv's 3.12, when installed): make builds for it in
 * its own build directory, through a venv made from it (whose
 * python3-config is its base's), and installs where it looks: in the venv,
 * and by default in pyenv's own site-packages (under DESTDIR here). */
Test(make_install, pyenv_312, .timeout = 900)
{
    if (access(PYENV_312, X_OK) != 0)
        cr_skip_test("%s not installed", PYENV_312);
    char build[128];
    snprintf(build, sizeof(build), "%s/build-312", dir);
    install_check("venv", PYENV_312, build);
    install_check("destdir", PYENV_312, build);
}

/* make cannot quote paths: one holding a space is refused (exit 2) before
 * anything is installed or removed, instead of being split in two. */
Test(install, white_space_in_a_path_is_refused)
{
    char victim[128], destdir[160];
    snprintf(victim, sizeof(victim), "%s/my", dir);
    FILE *f = fopen(victim, "w");
    cr_assert(f != NULL);
    fputs("not ccloudpickle's\n", f);
    fclose(f);
    snprintf(destdir, sizeof(destdir), "DESTDIR=%s/my stage", dir);
    for (int i = 0; i < 2; i++) {
        const char *argv[] = {"/usr/bin/make", "-s", "-C", CPK_SOURCE_DIR,
                              "BUILD=" CPK_BUILD_DIR, "PYTHON=" CPK_PYTHON,
                              destdir, i ? "uninstall" : "install", NULL};
        cpk_proc p;
        cpk_spawn(&p, argv, NULL, NULL, 0, NULL);
        cpk_assert_exit(&p, 2);
        cr_assert(strstr(p.err, "must not contain white space") != NULL,
                  "%s", p.err);
        cpk_proc_free(&p);
    }
    cr_assert(access(victim, F_OK) == 0, "a file outside DESTDIR was removed");
    char stage[160];
    snprintf(stage, sizeof(stage), "%s/my stage", dir);
    cr_assert(access(stage, F_OK) != 0, "something was installed");
}

/* Files pip installed (it keeps a dist-info record of them) are not make
 * uninstall's to remove. */
Test(install, uninstall_leaves_a_pip_install_alone)
{
    char destdir[128], site[300], distinfo[400], module[400];
    snprintf(destdir, sizeof(destdir), "DESTDIR=%s", dir);
    snprintf(site, sizeof(site), "%s/opt/cpk/lib/python%d.%d/site-packages",
             dir, PY_MAJOR_VERSION, PY_MINOR_VERSION);
    snprintf(distinfo, sizeof(distinfo), "%s/ccloudpickle-0.6.0.dist-info",
             site);
    snprintf(module, sizeof(module), "%s/_ccloudpickle_engines.py", site);
    char mk[1000];
    snprintf(mk, sizeof(mk), "mkdir -p '%s' && touch '%s'", distinfo, module);
    cr_assert(system(mk) == 0);
    const char *argv[] = {"/usr/bin/make", "-s", "-C", CPK_SOURCE_DIR,
                          "BUILD=" CPK_BUILD_DIR, "PYTHON=" CPK_PYTHON,
                          destdir, "PREFIX=/opt/cpk", "uninstall", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, NULL, NULL, 0, NULL);
    cpk_assert_exit(&p, 2);
    cr_assert(strstr(p.err, "installed by pip") != NULL, "%s", p.err);
    cpk_proc_free(&p);
    cr_assert(access(module, F_OK) == 0, "make uninstall removed pip's file");
}
