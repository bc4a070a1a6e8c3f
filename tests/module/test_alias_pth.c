/* test_alias_pth.c - the ccloudpickle-alias.pth hook when things are not
 * as installed: an off value ("0") imports nothing; the hook outliving
 * its module (a partial uninstall, a copied site-packages) prints
 * nothing at start-up, whatever the variable says; a broken ccloudpickle
 * leaves `import cloudpickle` to stock cloudpickle with a warning that
 * `-W error` cannot turn into an import failure. In a real virtual
 * environment (tests/engines/alias_venv.py), removed at exit unless
 * CPK_KEEP_TMP is set. */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

TestSuite(alias_pth);

static char venv_dir[64];
static char venv_python[256];
static char venv_site[512];

static int
remove_entry(const char *path, const struct stat *sb, int flag,
             struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* At exit of the test's process, passed or failed. */
static void
drop_venv(void)
{
    if (venv_dir[0] == '\0')
        return;
    const char *keep = getenv("CPK_KEEP_TMP");
    if (keep != NULL && *keep != '\0') {
        fprintf(stderr, "CPK_KEEP_TMP: kept %s\n", venv_dir);
        return;
    }
    nftw(venv_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A venv seeing Debian's packages (stock cloudpickle 2.2), with the build
 * installed as the packaging installs it; its site-packages in
 * venv_site. */
static void
make_venv(void)
{
    cpk_require("cloudpickle");
    cpk_tmpdir(venv_dir, sizeof(venv_dir));
    atexit(drop_venv);
    char target[128];
    snprintf(target, sizeof(target), "%s/venv", venv_dir);
    const char *argv[] = {CPK_PYTHON,
                          CPK_SOURCE_DIR "/tests/engines/alias_venv.py",
                          CPK_BUILD_DIR,
                          CPK_SOURCE_DIR,
                          target,
                          "--system-site-packages",
                          NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, "/", NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    snprintf(venv_python, sizeof(venv_python), "%.*s",
             (int)strcspn(p.out, "\n"), p.out);
    cpk_proc_free(&p);
    const char *site[] = {venv_python, "-c",
                          "import sysconfig\n"
                          "print(sysconfig.get_path('platlib'))\n",
                          NULL};
    cpk_spawn(&p, site, "/", NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    snprintf(venv_site, sizeof(venv_site), "%.*s", (int)strcspn(p.out, "\n"),
             p.out);
    cpk_proc_free(&p);
}

/* The venv's python with `args`, CCLOUDPICKLE_ALIAS=`value` (NULL: unset)
 * and no PYTHONPATH. */
static void
venv_run(cpk_proc *p, const char *value, const char *const *args)
{
    const char *argv[8] = {venv_python};
    size_t n = 1;
    for (size_t i = 0; args[i] != NULL && n < 7; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    char var[128];
    snprintf(var, sizeof(var), "CCLOUDPICKLE_ALIAS=%s", value ? value : "");
    const char *env[] = {var, NULL};
    const char *unset_all[] = {"PYTHONPATH", "CCLOUDPICKLE_ALIAS", NULL};
    const char *unset_path[] = {"PYTHONPATH", NULL};
    cpk_spawn_opts o = {
        .argv = argv,
        .cwd = "/",
        .env = value ? env : NULL,
        .unset = value ? unset_path : unset_all,
    };
    cpk_spawn_ex(p, &o);
}

/* Runs `code`, asserts exit 0 and an empty stderr. */
static void
venv_quiet(const char *value, const char *code)
{
    const char *args[] = {"-c", code, NULL};
    cpk_proc p;
    venv_run(&p, value, args);
    cr_assert(p.exited && p.status == 0, "CCLOUDPICKLE_ALIAS=%s:\n%s",
              value ? value : "(unset)", p.err);
    cr_assert_str_eq(p.err, "", "CCLOUDPICKLE_ALIAS=%s printed:\n%s",
                     value ? value : "(unset)", p.err);
    cpk_proc_free(&p);
}

static void
remove_from_site(const char *pattern_code)
{
    char code[1024];
    snprintf(code, sizeof(code),
             "import glob, os\n"
             "for f in glob.glob(os.path.join(%s)):\n"
             "    os.remove(f)\n",
             pattern_code);
    const char *argv[] = {venv_python, "-c", code, NULL};
    char site_var[600];
    snprintf(site_var, sizeof(site_var), "SITE=%s", venv_site);
    const char *env[] = {site_var, NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, "/", NULL, 0, env);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

Test(alias_pth, off_values_and_missing_module_are_silent, .timeout = 120)
{
    make_venv();
    /* Installed, off: the hook imports nothing at all. */
    static const char *const off[] = {"0", "", " off ", "False", NULL};
    for (int i = 0; off[i] != NULL; i++)
        venv_quiet(off[i], "import sys\n"
                           "assert '_ccloudpickle_alias' not in sys.modules\n"
                           "import cloudpickle\n"
                           "assert cloudpickle.__version__.startswith('2.')\n");
    venv_quiet("1", "import sys\n"
                    "assert '_ccloudpickle_alias' in sys.modules\n"
                    "import cloudpickle\n"
                    "assert cloudpickle.__ccloudpickle_version__\n");
    /* The hook outlives its modules: start-up says nothing when the
     * variable is off or unset; stock cloudpickle is what `import
     * cloudpickle` gets. */
    remove_from_site("os.environ['SITE'], '*ccloudpickle*.*[oy]'");
    char pth[600];
    snprintf(pth, sizeof(pth), "%s/ccloudpickle-alias.pth", venv_site);
    cr_assert(access(pth, F_OK) == 0, "%s is gone too", pth);
    const char *code = "import sys, cloudpickle\n"
                       "assert '_ccloudpickle_alias' not in sys.modules\n"
                       "assert cloudpickle.__version__.startswith('2.')\n";
    venv_quiet("0", code);
    venv_quiet(NULL, "print('hello')\n");
}

/* The variable asks for the alias and it cannot be installed (the hook
 * outlives its modules): one line on stderr says what failed and how to
 * fix it; start-up goes on with stock cloudpickle. */
Test(alias_pth, missing_module_with_variable_set_says_so, .timeout = 120)
{
    make_venv();
    remove_from_site("os.environ['SITE'], '*ccloudpickle*.*[oy]'");
    const char *code = "import sys, cloudpickle\n"
                       "assert '_ccloudpickle_alias' not in sys.modules\n"
                       "assert cloudpickle.__version__.startswith('2.')\n"
                       "print('stock')\n";
    static const char *const on[] = {"1", "cloudpickle3", NULL};
    for (int i = 0; on[i] != NULL; i++) {
        const char *args[] = {"-c", code, NULL};
        cpk_proc p;
        venv_run(&p, on[i], args);
        cpk_assert_exit(&p, 0);
        cr_assert_str_eq(p.out, "stock\n");
        char want[256];
        snprintf(want, sizeof(want),
                 "ccloudpickle-alias.pth: CCLOUDPICKLE_ALIAS=%s is set but "
                 "the alias cannot be installed (ModuleNotFoundError: No "
                 "module named '_ccloudpickle_alias'): reinstall "
                 "ccloudpickle for ", on[i]);
        cr_assert(strncmp(p.err, want, strlen(want)) == 0,
                  "stderr:\n%s", p.err);
        const char *tail = ", or unset CCLOUDPICKLE_ALIAS\n";
        cr_assert(strlen(p.err) > strlen(tail) &&
                      strcmp(p.err + strlen(p.err) - strlen(tail), tail) == 0 &&
                      strchr(p.err, '\n') == p.err + strlen(p.err) - 1,
                  "not one line ending in the fix:\n%s", p.err);
        cpk_proc_free(&p);
    }
}

/* A value that is neither on nor a compat= target: the first import of
 * cloudpickle says so, and gets stock cloudpickle. */
Test(alias_pth, unknown_value_says_so, .timeout = 120)
{
    make_venv();
    const char *code = "import sys, cloudpickle\n"
                       "assert cloudpickle.__version__.startswith('2.')\n"
                       "print('stock')\n";
    const char *args[] = {"-c", code, NULL};
    cpk_proc p;
    venv_run(&p, "cloudpickle9", args);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "stock\n");
    cr_assert(strstr(p.err, "CCLOUDPICKLE_ALIAS=cloudpickle9: compat must be") &&
                  strstr(p.err, "cloudpickle is not aliased: set it to 1, "
                                "cloudpickle3 or cloudpickle2, or unset it"),
              "stderr:\n%s", p.err);
    cpk_proc_free(&p);
}

/* ccloudpickle itself broken (here: its import raises ImportError): the
 * alias steps aside with a warning, also under -W error, where the
 * warning must not become the import's failure. */
Test(alias_pth, broken_ccloudpickle_under_w_error, .timeout = 120)
{
    make_venv();
    remove_from_site("os.environ['SITE'], 'ccloudpickle*.so'");
    char mod[600];
    snprintf(mod, sizeof(mod), "%s/ccloudpickle.py", venv_site);
    cpk_write_file(mod, "raise ImportError('broken on purpose')\n");
    const char *code = "import sys, cloudpickle\n"
                       "assert '_ccloudpickle_alias' in sys.modules\n"
                       "assert cloudpickle.__version__.startswith('2.')\n"
                       "assert not hasattr(cloudpickle, '__ccloudpickle_version__')\n"
                       "print('stock')\n";
    const char *w_error[] = {"-W", "error", "-c", code, NULL};
    const char *plain[] = {"-c", code, NULL};
    const char *const *runs[] = {w_error, plain};
    for (int i = 0; i < 2; i++) {
        cpk_proc p;
        venv_run(&p, "1", runs[i]);
        cr_assert(p.exited && p.status == 0, "%s:\n%s",
                  i == 0 ? "-W error" : "default warnings", p.err);
        cr_assert_str_eq(p.out, "stock\n");
        cr_assert(strstr(p.err, "RuntimeWarning") != NULL &&
                      strstr(p.err, "broken on purpose") != NULL &&
                      strstr(p.err, "cloudpickle is not aliased: reinstall "
                                    "ccloudpickle for ") != NULL &&
                      strstr(p.err, "or unset CCLOUDPICKLE_ALIAS") != NULL,
                  "no warning:\n%s", p.err);
        cpk_proc_free(&p);
    }
}
