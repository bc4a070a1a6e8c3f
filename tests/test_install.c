/* test_install.c - `make install` with PREFIX and DESTDIR puts the
 * programs, the man pages and the extension module where they belong, and
 * what it installed works. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
}

TestSuite(install, .init = setup);

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
