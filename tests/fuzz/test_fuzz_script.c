/* test_fuzz_script.c - scripts/fuzz, which make fuzz, make fuzz-smoke and
 * make check run: it finds every fuzz_*.c target, builds each from its
 * fuzz-link line (a target without one is skipped, with a message), runs
 * each for the given time, and ends with a table (target, seconds,
 * executions, crashes) and a non-zero exit status when a target found a
 * crash. Needs clang's fuzzer runtime: skipped where it is missing. */
#include "support.h"

#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_SCRIPT CPK_SOURCE_DIR "/scripts/fuzz"

/* A child without the sanitizer run's preload and options: clang and the
 * targets it builds bring their own runtime. */
static const char *const clean_env[] = {
    "LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS", "PYTHONMALLOC", NULL,
};

static void
run_script(cpk_proc *p, const char *const *argv, const char *const *env)
{
    cpk_spawn_opts o = {0};
    o.argv = argv;
    o.env = env;
    o.unset = clean_env;
    cpk_spawn_ex(p, &o);
}

static int
can_build(void)
{
    cpk_proc p;
    const char *argv[] = {FUZZ_SCRIPT, "--can-build", NULL};
    run_script(&p, argv, NULL);
    int ok = p.exited && p.status == 0;
    cpk_proc_free(&p);
    return ok;
}

static void
write_target(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/fuzz_%s.c", dir, name);
    cpk_write_file(path, text);
}

#define TARGET_HEAD                                                          \
    "#include <stddef.h>\n"                                                  \
    "#include <stdint.h>\n"                                                  \
    "#include <stdlib.h>\n"                                                  \
    "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\n"

Test(fuzz_script, can_build_says_whether_the_fuzzer_runtime_links)
{
    cpk_proc p;
    const char *argv[] = {FUZZ_SCRIPT, "--can-build", NULL};
    const char *env[] = {"CLANG=/nonexistent/clang", NULL};
    run_script(&p, argv, env);
    cpk_assert_exit(&p, 1);
    cr_assert_eq(p.out_len + p.err_len, 0, "--can-build is silent: %s%s",
                 p.out, p.err);
    cpk_proc_free(&p);
    /* gcc has no libFuzzer: a compiler without the runtime is refused. */
    const char *env_gcc[] = {"CLANG=gcc", NULL};
    run_script(&p, argv, env_gcc);
    cpk_assert_exit(&p, 1);
    cpk_proc_free(&p);
}

Test(fuzz_script, runs_each_target_and_reports_crashes_in_a_table)
{
    if (!can_build())
        cr_skip("clang's fuzzer runtime is not installed");
    char dir[256], build[300], path[400];
    cpk_tmpdir(dir, sizeof(dir));
    snprintf(build, sizeof(build), "%s/build", dir);
    /* Runs cleanly. */
    write_target(dir, "fine", "/* fuzz-link: - */\n" TARGET_HEAD
                 "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)\n"
                 "{ (void)d; (void)n; return 0; }\n");
    /* Crashes on its seed, an input starting with "X". */
    write_target(dir, "crashy", "/* fuzz-link: - */\n" TARGET_HEAD
                 "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)\n"
                 "{ if (n > 0 && d[0] == 'X') abort(); return 0; }\n");
    snprintf(path, sizeof(path), "%s/corpus_crashy", dir);
    cr_assert(mkdir(path, 0755) == 0);
    snprintf(path, sizeof(path), "%s/corpus_crashy/seed", dir);
    cpk_write_file(path, "X marks the spot");
    /* No fuzz-link line: skipped, not failed. */
    write_target(dir, "nolink", TARGET_HEAD
                 "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)\n"
                 "{ (void)d; (void)n; return 0; }\n");
    char fuzz_dir[300];
    snprintf(fuzz_dir, sizeof(fuzz_dir), "FUZZ_DIR=%s", dir);
    const char *env[] = {fuzz_dir, "FUZZ_NICE=0", NULL};

    cpk_proc p;
    const char *argv[] = {FUZZ_SCRIPT, "1", build, NULL};
    run_script(&p, argv, env);
    cpk_assert_exit(&p, 1);
    cr_assert(strstr(p.out, "nolink: skipped") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "crashy: FOUND 1") != NULL, "%s", p.out);
    const char *table = strstr(p.out, "target ");
    cr_assert(table != NULL && strstr(table, "executions") != NULL &&
                  strstr(table, "crashes") != NULL,
              "no summary table: %s", p.out);
    char crashes[64];
    long execs = 0;
    const char *row = strstr(table, "\nfine ");
    cr_assert(row != NULL && sscanf(row, " fine %*s %ld %63s", &execs,
                                    crashes) == 2,
              "%s", table);
    cr_assert(execs > 0 && strcmp(crashes, "0") == 0, "%s", table);
    row = strstr(table, "\ncrashy ");
    cr_assert(row != NULL && sscanf(row, " crashy %*s %*s %63s",
                                    crashes) == 1 &&
                  strcmp(crashes, "1") == 0,
              "%s", table);
    cr_assert(strstr(table, "\nnolink ") != NULL &&
                  strstr(strstr(table, "\nnolink "), "skipped") != NULL,
              "%s", table);
    cpk_proc_free(&p);

    /* The artifact is kept in BUILD_DIR/fuzz/<name>/. */
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "ls %s/fuzz/crashy/crash-* >/dev/null 2>&1",
             build);
    cr_assert(system(cmd) == 0, "no crash artifact in %s/fuzz/crashy", build);

    /* Named targets only: the clean one alone succeeds. */
    const char *argv_fine[] = {FUZZ_SCRIPT, "1", build, "fine", NULL};
    run_script(&p, argv_fine, env);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "crashy") == NULL, "%s", p.out);
    cpk_proc_free(&p);

    /* A target that does not build fails the run. */
    write_target(dir, "broken", "/* fuzz-link: - */\nnot C at all\n");
    const char *argv_broken[] = {FUZZ_SCRIPT, "1", build, "broken", NULL};
    run_script(&p, argv_broken, env);
    cpk_assert_exit(&p, 1);
    cr_assert(strstr(p.out, "build failed") != NULL, "%s", p.out);
    cpk_proc_free(&p);
}
