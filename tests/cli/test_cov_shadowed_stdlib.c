/* test_cov_shadowed_stdlib.c - cloudpickle-dump -e with a file in the
 * current directory shadowing a standard module the program relies on
 * (the current directory comes first, as for python -m): linecache
 * without its cache, an ast whose parse gives no tree, an ast without
 * Expr or without Module; and a functools that cannot be imported,
 * which protocols 2 and 3 need. Each is status 5 with one line naming
 * what is missing, and nothing on standard output. */
#include <stdio.h>
#include <string.h>

#include "support.h"

static const char REAL_AST[] =
    "import importlib.util, os, sysconfig\n"
    "_spec = importlib.util.spec_from_file_location(\n"
    "    '_real_ast', os.path.join(sysconfig.get_paths()['stdlib'], "
    "'ast.py'))\n"
    "_real = importlib.util.module_from_spec(_spec)\n"
    "_spec.loader.exec_module(_real)\n"
    "parse = _real.parse\n";

static void
shadowed_args(const char *name, const char *text, const char *const *args,
              const char *err)
{
    char dir[64], path[128];
    cpk_tmpdir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    cpk_write_file(path, text);
    const char *argv[8] = {CPK_DUMP};
    int n = 1;
    for (; args[n - 1] != NULL && n < 7; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 5);
    cr_assert_str_eq(p.err, err);
    cr_assert_eq(p.out_len, 0);
    cpk_proc_free(&p);
}

static void
shadowed(const char *name, const char *text, const char *err)
{
    char dir[64], path[128];
    cpk_tmpdir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    cpk_write_file(path, text);
    const char *argv[] = {CPK_DUMP, "-e", "1", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 5);
    cr_assert_str_eq(p.err, err);
    cr_assert_eq(p.out_len, 0);
    cpk_proc_free(&p);
}

Test(cov_shadowed_stdlib, linecache_without_cache)
{
    shadowed("linecache.py", "x = 1\n",
             "cloudpickle-dump: -e: AttributeError: module 'linecache' has "
             "no attribute 'cache'\n");
}

Test(cov_shadowed_stdlib, ast_parse_without_a_tree)
{
    shadowed("ast.py", "def parse(source, filename): return 1\n",
             "cloudpickle-dump: -e: AttributeError: 'int' object has no "
             "attribute 'body'\n");
}

Test(cov_shadowed_stdlib, ast_without_expr)
{
    shadowed("ast.py", REAL_AST,
             "cloudpickle-dump: -e: AttributeError: module 'ast' has no "
             "attribute 'Expr'\n");
}

Test(cov_shadowed_stdlib, ast_without_module)
{
    char text[1024];
    snprintf(text, sizeof(text), "%sExpr = _real.Expr\n", REAL_AST);
    shadowed("ast.py", text,
             "cloudpickle-dump: -e: AttributeError: module 'ast' has no "
             "attribute 'Module'\n");
}

Test(cov_shadowed_stdlib, functools_for_protocol_2)
{
    const char *args[] = {"-p", "2", "os:getcwd", NULL};
    shadowed_args("functools.py", "raise ImportError('no functools here')\n",
                  args,
                  "cloudpickle-dump: cannot import functools: ImportError: no "
                  "functools here\n");
}

/* An ast that cannot be imported: its own error is the one reported. */
Test(cov_shadowed_stdlib, ast_that_cannot_be_imported)
{
    shadowed("ast.py", "raise ImportError('no ast here')\n",
             "cloudpickle-dump: -e: ImportError: no ast here\n");
}
