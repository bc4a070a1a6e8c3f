/* test_check_layers.c - scripts/check-layers (make check-layers) on a
 * small tree of its own: a call or an include from a lower layer to a
 * higher one, a bare include of another folder's header, src/internal.h
 * included in src/, a cycle inside one folder, Python's headers in scan/,
 * a file outside the layer folders and an object a program links but
 * never reaches each fail, naming the file; the same tree without them
 * passes, and so does this checkout's own build. */
#include <stdio.h>
#include <string.h>

#include "support.h"

#define CHECK CPK_SOURCE_DIR "/scripts/check-layers"

static char dir[64];

/* Write `text` to dir/rel, making its folders. */
static void
put(const char *rel, const char *text)
{
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s/%s')\"", dir, rel);
    cr_assert(system(cmd) == 0);
    char path[192];
    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    cpk_write_file(path, text);
}

/* A tree that keeps the rule: engine calls core, core calls scan, the
 * dump program's main calls cli/common. */
static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    put("src/scan/s.h", "int cpk_s(void);\n");
    put("src/scan/s.c", "#include \"scan/s.h\"\n"
                        "int cpk_s(void) { return 1; }\n");
    put("src/core/c.c", "#include \"scan/s.h\"\n"
                        "int cpk_c(void) { return cpk_s(); }\n");
    put("src/engine/e.c", "int cpk_c(void);\n"
                          "int cpk_e(void) { return cpk_c(); }\n");
    put("cli/common/m.c", "int cpk_m(void) { return 2; }\n");
    put("cli/dump/cloudpickle-dump.c", "int cpk_m(void);\n"
                                       "int main(void) { return cpk_m(); }\n");
}

TestSuite(check_layers, .init = setup);

/* Compile every .c of the tree into dir/build, with the Makefile's -I
 * flags, and run the check. */
static void
check(cpk_proc *p)
{
    char cmd[512];
    snprintf(cmd, sizeof(cmd),
             "cd '%s' && rm -rf build && for f in $(find src cli -name "
             "'*.c'); do mkdir -p build/$(dirname $f) && cc -std=c11 "
             "-Isrc -Icli -c $f -o build/${f%%.c}.o || exit 1; done",
             dir);
    cr_assert(system(cmd) == 0, "compiling the test tree failed");
    const char *argv[] = {CHECK, "--root", dir, "build", "cc", NULL};
    cpk_spawn(p, argv, dir, NULL, 0, NULL);
}

static void
refused(const char *message)
{
    cpk_proc p;
    check(&p);
    cpk_assert_exit(&p, 1);
    cr_assert(strstr(p.out, message) != NULL, "stdout: %s\nstderr: %s",
              p.out, p.err);
    cpk_proc_free(&p);
}

Test(check_layers, clean_tree_passes)
{
    cpk_proc p;
    check(&p);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "every dependency points down") != NULL,
              "stdout: %s", p.out);
    cpk_proc_free(&p);
}

Test(check_layers, upward_call_fails)
{
    put("src/scan/up.c", "int cpk_e(void);\n"
                         "int cpk_up(void) { return cpk_e(); }\n");
    refused("check-layers: src/scan/up.c: calls cpk_e of src/engine/e: "
            "src/scan may not use src/engine");
}

Test(check_layers, upward_include_fails)
{
    put("src/core/core.h", "int cpk_c(void);\n");
    put("src/scan/inc.c", "#include \"core/core.h\"\nint cpk_inc;\n");
    refused("check-layers: src/scan/inc.c:1: includes \"core/core.h\" "
            "(src/core/core.h): src/scan may not use src/core");
}

/* A bare name finds a header of the layer folders next to the file only:
 * from another folder the compiler takes the system's (here), or
 * Python's (code.h, import.h, ...), header of that name. */
Test(check_layers, bare_include_of_another_folder_fails)
{
    put("src/scan/limits.h", "int cpk_limits;\n");
    put("src/engine/bare.c", "int cpk_bare;\n#include \"limits.h\"\n");
    refused("check-layers: src/engine/bare.c:2: includes \"limits.h\" by "
            "its bare name, which is not next to it: include "
            "\"scan/limits.h\"");
}

/* src/internal.h includes every header: for tests, never for src/ or
 * cli/, whose files include the headers they use. */
Test(check_layers, internal_header_in_src_fails)
{
    put("src/internal.h", "#include \"scan/s.h\"\n");
    put("src/engine/all.c", "#include \"internal.h\"\n"
                            "int cpk_all(void) { return cpk_s(); }\n");
    refused("check-layers: src/engine/all.c:1: includes \"internal.h\" "
            "(src/internal.h): only tests may; include the headers it "
            "uses");
}

Test(check_layers, cli_calling_the_library_inside_fails)
{
    put("cli/common/deep.c", "int cpk_c(void);\n"
                             "int cpk_deep(void) { return cpk_c(); }\n");
    refused("check-layers: cli/common/deep.c: calls cpk_c of src/core/c: "
            "cli/common may not use src/core");
}

Test(check_layers, cycle_in_one_folder_fails)
{
    put("src/core/a.c", "int cpk_b(void);\n"
                        "int cpk_a(int n) { return n ? cpk_b() : 0; }\n");
    put("src/core/b.c", "int cpk_a(int);\n"
                        "int cpk_b(void) { return cpk_a(0); }\n");
    refused("call cycle between src/core/a, src/core/b: "
            "src/core/a -> src/core/b (cpk_b); "
            "src/core/b -> src/core/a (cpk_a)");
}

Test(check_layers, python_in_scan_fails)
{
    put("src/scan/py.h", "#include <Python.h>\n");
    refused("check-layers: src/scan/py.h: does not compile without "
            "Python's headers");
}

Test(check_layers, file_outside_the_layers_fails)
{
    put("src/loose.h", "int cpk_loose;\n");
    refused("check-layers: src/loose.h: not in a layer folder");
}

Test(check_layers, unreached_object_in_a_program_fails)
{
    put("cli/dump/orphan.c", "int cpk_orphan(void) { return 3; }\n");
    refused("links cli/dump/orphan.o, which cloudpickle-dump's main never "
            "reaches");
}

/* This checkout, as make check-layers runs it. */
Test(check_layers, this_tree_passes)
{
    const char *argv[] = {CHECK, CPK_BUILD_DIR, "cc", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, CPK_SOURCE_DIR, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

Test(check_layers, upward_include_in_angle_brackets_fails)
{
    put("src/engine/eng.h", "int cpk_e(void);\n");
    put("src/scan/angle.c", "#include <engine/eng.h>\nint cpk_angle;\n");
    refused("check-layers: src/scan/angle.c:1: includes \"engine/eng.h\" "
            "(src/engine/eng.h): src/scan may not use src/engine");
}

Test(check_layers, weak_upward_call_fails)
{
    put("src/scan/weak.c", "extern int cpk_e(void) __attribute__((weak));\n"
                           "int cpk_weak(void) { return cpk_e ? cpk_e() : 0; }\n");
    refused("check-layers: src/scan/weak.c: calls cpk_e of src/engine/e: "
            "src/scan may not use src/engine");
}

Test(check_layers, python_symbol_in_scan_fails)
{
    put("src/scan/pyuse.c", "extern int Py_IsInitialized(void);\n"
                            "int cpk_pyuse(void) { return Py_IsInitialized(); }\n");
    refused("check-layers: src/scan/pyuse.c: uses Python (Py_IsInitialized): "
            "src/common and src/scan are pure C");
}
