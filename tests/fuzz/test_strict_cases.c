/* test_strict_cases.c - the closed world's regression pickles
 * (tests/fuzz/strict_cases, made by make_strict_cases.py; its found/
 * folder, found by strict_diff.py; its review/ folder, made by hand in a
 * hostile review, each with a .txt saying how it worked): aliases, write-through wrappers,
 * calls the table leaves out, unbounded cost, compiled text and trap
 * imports. Each is refused by `--strict`, by `--deny os --load`, by
 * loads(allow=[]) and loads(deny=['os']); strict_diff.py's replay finds
 * none that a real load shows to break the promise; and a short
 * differential fuzz run with a fixed seed finds nothing. */
#include "support.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CASES CPK_SOURCE_DIR "/tests/fuzz/strict_cases"
#define STRICT_DIFF CPK_SOURCE_DIR "/tests/fuzz/strict_diff.py"

/* Calls `fn` on each .pkl of `dir`; returns how many. */
static size_t
each_case(const char *dir, void (*fn)(const char *path))
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".pkl") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        fn(path);
        n++;
    }
    closedir(d);
    return n;
}

static void
refused_by_the_programs(const char *path)
{
    cpk_proc p;
    const char *strict[] = {CPK_LOAD, "--strict", path, NULL};
    cpk_spawn(&p, strict, NULL, NULL, 0, NULL);
    cr_expect(p.exited && p.status == 3, "%s --strict: exit %d\n%s", path,
              p.status, p.err);
    cr_expect(strstr(p.err, "refused") != NULL, "%s: %s", path, p.err);
    cr_expect_eq(p.out_len, 0, "%s: %s", path, p.out);
    cpk_proc_free(&p);
    const char *deny[] = {CPK_LOAD, "--deny", "os", "--load", path, NULL};
    cpk_spawn(&p, deny, NULL, NULL, 0, NULL);
    cr_expect(p.exited && p.status == 3, "%s --deny os --load: exit %d\n%s",
              path, p.status, p.err);
    cr_expect_eq(p.out_len, 0, "%s: %s", path, p.out);
    cpk_proc_free(&p);
}

Test(strict_cases, refused_by_strict_and_a_deny_list, .timeout = 300)
{
    size_t n = each_case(CASES, refused_by_the_programs);
    n += each_case(CASES "/found", refused_by_the_programs);
    n += each_case(CASES "/review", refused_by_the_programs);
    cr_assert_geq(n, 60, "%zu cases", n);
}

Test(strict_cases, refused_by_loads_policies, .timeout = 300)
{
    cpk_proc p;
    const char *argv[] = {
        CPK_PYTHON, CPK_SOURCE_DIR
        "/tests/fuzz/py/strict_cases/refused_by_policies.py", CASES, NULL};
    const char *env[] = {"PYTHONPATH=" CPK_BUILD_DIR, NULL};
    cpk_spawn(&p, argv, NULL, NULL, 0, env);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

static void
replay(const char *dir)
{
    cpk_proc p;
    const char *argv[] = {CPK_PYTHON, STRICT_DIFF, "--build", CPK_BUILD_DIR,
                          "--replay", dir, NULL};
    const char *env[] = {"PYTHONPATH=" CPK_BUILD_DIR, NULL};
    cpk_spawn(&p, argv, NULL, NULL, 0, env);
    cr_expect(p.exited && p.status == 0, "replay %s: exit %d\n%s\n%s", dir,
              p.status, p.out, p.err);
    cr_expect(strstr(p.out, " 0 findings") != NULL, "%s", p.out);
    cpk_proc_free(&p);
}

Test(strict_cases, a_real_load_finds_no_break, .timeout = 600)
{
    /* The oracle loads what is accepted in a child under time and
     * address-space limits, which ASan's and valgrind's runtimes (make
     * sanitize, make memcheck: both set PYTHONMALLOC) do not fit. */
    if (getenv("PYTHONMALLOC") != NULL || getenv("CPK_SAN_PRELOAD") != NULL)
        cr_skip_test("the oracle's limits do not fit a sanitizer runtime");
    replay(CASES);
    replay(CASES "/found");
    replay(CASES "/review");
}
