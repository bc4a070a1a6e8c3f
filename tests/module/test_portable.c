/* test_portable.c - dumps(portable=True) within one CPython (the default
 * build only: tests/portable/matrix.py, run by make check-pythons, loads
 * across versions). Same object, same bytes; under the same bytecode magic
 * the bytecode is loaded, not the source compiled (the file edited after
 * the dump changes nothing); the source path, forced by calling
 * _code_portable with another magic, compiles to the same code; an edited
 * file, exec'd code and a missing file are not portable and fail with the
 * message naming both versions and the function; hostile _code_portable
 * arguments raise, never crash; portable=True with compat= is refused. */
#include "support.h"

#include <string.h>

TestSuite(portable, .init = cpk_py_start, .fini = cpk_py_stop);

#define DEFAULT_BUILD_ONLY()                                                 \
    do {                                                                     \
        if (strcmp(CPK_PYTHON, "/usr/bin/python3") != 0)                     \
            cr_skip_test("default build only (matrix.py loads across "       \
                         "versions)");                                       \
    } while (0)

Test(portable, same_object_same_bytes)
{
    DEFAULT_BUILD_ONLY();
    cpk_py("CPK_SOURCE_DIR = '" CPK_SOURCE_DIR "'\n");
    cpk_py_file("_helpers.py", "same_object_same_bytes.py");
    /* Two processes (each its own hash seed): the same bytes for
     * functions (a class by value carries a random tracker id). */
    const char *code =
        "import sys, hashlib\n"
        "sys.path.insert(0, '" CPK_SOURCE_DIR "/tests/portable')\n"
        "import ccloudpickle as cp, fixture_mod as M\n"
        "cp.register_pickle_by_value(M)\n"
        "d = cp.dumps([M.top, M.sq, M.make_adder(2), M.comps],\n"
        "             portable=True)\n"
        "print(hashlib.sha256(d).hexdigest())\n";
    cpk_proc a, b;
    cpk_python(&a, code, NULL, 0);
    cpk_python(&b, code, NULL, 0);
    cpk_assert_exit(&a, 0);
    cpk_assert_exit(&b, 0);
    cr_assert_str_eq(a.out, b.out);
    cpk_proc_free(&a);
    cpk_proc_free(&b);
}

Test(portable, plain_data_and_references_unchanged)
{
    DEFAULT_BUILD_ONLY();
    cpk_py("CPK_SOURCE_DIR = '" CPK_SOURCE_DIR "'\n");
    cpk_py_file("_helpers.py", "plain_data_and_references_unchanged.py");
}

/* The file edited after the dump: the same CPython still loads the
 * bytecode (no compile: the new text would give x + 2). */
Test(portable, same_magic_loads_bytecode)
{
    DEFAULT_BUILD_ONLY();
    cpk_py("CPK_SOURCE_DIR = '" CPK_SOURCE_DIR "'\n");
    cpk_py_file("_helpers.py", "same_magic_loads_bytecode.py");
    cpk_fresh("DATA", "assert obj(1) == 2, obj(1)\n");
    /* Forced onto the source path, the shipped (original) text is what
     * compiles: still x + 1. */
    cpk_py("assert other(DATA)(1) == 2\n");
}

/* The source path compiles the same code as the running one. */
Test(portable, source_path_compiles_the_same_code)
{
    DEFAULT_BUILD_ONLY();
    cpk_py("CPK_SOURCE_DIR = '" CPK_SOURCE_DIR "'\n");
    cpk_py_file("_helpers.py", "source_path_compiles_the_same_code.py");
}

/* Edited file, exec'd code, missing file: not portable, said why; the
 * same magic loads them, another fails naming both versions and the
 * function. */
Test(portable, not_portable_sources)
{
    DEFAULT_BUILD_ONLY();
    cpk_py("CPK_SOURCE_DIR = '" CPK_SOURCE_DIR "'\n");
    cpk_py_file("_helpers.py", "not_portable_sources.py");
}

/* _code_portable is a reconstructor: every malformed argument raises one
 * of its errors. */
Test(portable, hostile_arguments)
{
    DEFAULT_BUILD_ONLY();
    cpk_py("CPK_SOURCE_DIR = '" CPK_SOURCE_DIR "'\n");
    cpk_py_file("_helpers.py", "hostile_arguments.py");
}

Test(portable, compat_refused)
{
    DEFAULT_BUILD_ONLY();
    cpk_py("CPK_SOURCE_DIR = '" CPK_SOURCE_DIR "'\n");
    cpk_py_file("_helpers.py", "compat_refused.py");
}

/* src/types/portable_source.h is src/types/portable_source.py as scripts/embed-py
 * writes it: the library runs the .py a reader sees. */
Test(portable, embedded_helper_matches_its_source)
{
    cpk_proc p;
    const char *argv[] = {"/bin/sh", CPK_SOURCE_DIR "/scripts/embed-py",
                          "portable_source_py",
                          "src/types/portable_source.py", NULL};
    cpk_spawn(&p, argv, CPK_SOURCE_DIR, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    size_t len;
    char *h = cpk_read_file(CPK_SOURCE_DIR "/src/types/portable_source.h", &len);
    cr_assert(h != NULL);
    cr_assert(len == p.out_len && memcmp(h, p.out, len) == 0,
              "src/types/portable_source.h is out of date: run make");
    free(h);
    cpk_proc_free(&p);
}

/* Source shipped for another Python is compiled on load: any policy
 * refuses that (the compiler is not hardened against hostile text: 3.9's
 * crashes on deep expressions), while the same pickle's own-version
 * bytecode loads under allow=[]. */
Test(portable, policies_refuse_compiling_shipped_source)
{
    cpk_py("CPK_SOURCE_DIR = '" CPK_SOURCE_DIR "'\n");
    cpk_py_file("policies_refuse_compiling_shipped_source.py");
}
