/* test_format_oldbuild.c - ccloudpickle 0.5.0 itself (commit d86b921,
 * format 4; doc/FORMAT.md), built once from this repository's history
 * into the build directory and kept there, loads what today's
 * dumps(format=4) writes, and fails on today's default format at the
 * marker, with the message doc/FORMAT.md quotes. Runs only where the
 * build is cheap and meaningful: the system Python of `make check`, not
 * under a sanitizer, with git and the commit at hand (not a shallow
 * clone); skipped with the reason otherwise. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define OLD_COMMIT "d86b921"
#define OLD_DIR CPK_BUILD_DIR "/old-0.5.0"

/* The old build's directory, made on first use: its sources by git
 * archive (no worktree to register or remove), then only the extension
 * module and its companions. Skips the test when it cannot be had. */
static const char *
old_build(void)
{
#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test("under a sanitizer: the old build runs in make check only");
#endif
    if (strcmp(CPK_PYTHON, "/usr/bin/python3") != 0)
        cr_skip_test("CPK_PYTHON is %s: the old build runs with "
                     "/usr/bin/python3 (make check) only", CPK_PYTHON);
    const char *pre = getenv("LD_PRELOAD");
    if (pre != NULL && strstr(pre, "asan") != NULL)
        cr_skip_test("ASan is preloaded: the old build runs in make check "
                     "only");
    static const char stamp[] = OLD_DIR "/build/.built";
    struct stat sb;
    if (stat(stamp, &sb) == 0)
        return OLD_DIR "/build";
    cpk_proc p;
    cpk_spawn(&p, (const char *[]){"/usr/bin/env", "git", "-C",
                                   CPK_SOURCE_DIR, "cat-file", "-e",
                                   OLD_COMMIT "^{commit}", NULL},
              NULL, NULL, 0, NULL);
    int have = p.exited && p.status == 0;
    cpk_proc_free(&p);
    if (!have)
        cr_skip_test("git or commit " OLD_COMMIT " (ccloudpickle 0.5.0) is "
                     "not available (a shallow clone?)");
    const char *script =
        "set -e\n"
        "rm -rf \"$1\" && mkdir -p \"$1\"\n"
        "git -C \"$2\" archive \"$3\" | tar -x -C \"$1\"\n"
        "ext=$(/usr/bin/python3 -c 'import sysconfig; "
        "print(sysconfig.get_config_var(\"EXT_SUFFIX\"))')\n"
        "make -s -C \"$1\" BUILD=\"$1/build\" -j2 "
        "\"$1/build/ccloudpickle$ext\" >/dev/null\n"
        "cp \"$1\"/python/*.py \"$1/build/\"\n"
        "touch \"$1/build/.built\"\n";
    cpk_spawn(&p, (const char *[]){"/bin/sh", "-c", script, "sh", OLD_DIR,
                                   CPK_SOURCE_DIR, OLD_COMMIT, NULL},
              NULL, NULL, 0, NULL);
    /* A failed build fails the test, its stderr shown: not a skip. */
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    return OLD_DIR "/build";
}

TestSuite(format_oldbuild, .timeout = 600);

Test(format_oldbuild, release_0_5_0_loads_formats_4_and_5)
{
    const char *old = old_build();
    cpk_proc w;
    cpk_python(&w, cpk_py_text("release_0_5_0_loads_formats_4_and_5.py"), NULL,
               0);
    cpk_assert_exit(&w, 0);
    cpk_proc r;
    cpk_python_path(&r, old,
                    cpk_py_text("release_0_5_0_loads_formats_4_and_5_2.py"),
                    w.out, w.out_len);
    cpk_assert_exit(&r, 0);
    cr_assert_str_eq(r.out, "ok\n");
    cpk_proc_free(&r);
    cpk_proc_free(&w);
}
