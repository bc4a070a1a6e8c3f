/* test_cli_usage.c - option errors name what was wrong: the bad character
 * of a short-option cluster, wherever it sits, not the element before it;
 * long options by their name. Exit 2 and the pointer to --help. */
#include <stdio.h>
#include <string.h>

#include "support.h"

typedef struct {
    int dump;           /* 1: cloudpickle-dump, 0: cloudpickle-load */
    const char *args[5];
    const char *err;    /* the first line, without "prog: " */
} usage_case;

static const usage_case cases[] = {
    {0, {"--call", "-Zx", "f.pkl"}, "invalid option -- 'Z'"},
    {0, {"--call", "-xZ", "f.pkl"}, "invalid option -- 'x'"},
    {0, {"-hZ"}, NULL}, /* -h acts first: help, exit 0 */
    {0, {"-P", "/", "-Z", "f.pkl"}, "invalid option -- 'Z'"},
    {0, {"--nope", "f.pkl"}, "unrecognized option '--nope'"},
    {0, {"--call", "--Zx", "f.pkl"}, "unrecognized option '--Zx'"},
    {0, {"--call=1", "f.pkl"}, "option '--call' doesn't allow an argument"},
    {0, {"--ca=1", "f.pkl"}, "option '--call' doesn't allow an argument"},
    {0, {"--help=x", "-h"}, "option '--help' doesn't allow an argument"},
    {0, {"--max-size"}, "option '--max-size' requires an argument"},
    {0, {"-P"}, "option requires an argument -- 'P'"},
    {1, {"-f", "-Zx", "m:f"}, "invalid option -- 'Z'"},
    {1, {"--by-ref", "-fZo", "x", "m:f"}, "invalid option -- 'Z'"},
    {1, {"--force", "-o", "x", "-Z"}, "invalid option -- 'Z'"},
    {1, {"-fP"}, "option requires an argument -- 'P'"},
    {1, {"--output"}, "option '--output' requires an argument"},
    {1, {"--by-ref=1", "m:f"}, "option '--by-ref' doesn't allow an argument"},
    {1, {"--force=yes", "-f", "m:f"},
     "option '--force' doesn't allow an argument"},
};

Test(cli_usage, bad_options_are_named)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const usage_case *c = &cases[i];
        const char *prog = c->dump ? "cloudpickle-dump" : "cloudpickle-load";
        const char *argv[8] = {c->dump ? CPK_DUMP : CPK_LOAD};
        for (int j = 0; j < 5 && c->args[j] != NULL; j++)
            argv[j + 1] = c->args[j];
        cpk_proc p;
        cpk_spawn(&p, argv, "/", NULL, 0, NULL);
        if (c->err == NULL) {
            cpk_assert_exit(&p, 0);
            cpk_proc_free(&p);
            continue;
        }
        cr_assert(p.exited && p.status == 2, "case %zu: %d\n%s", i, p.status,
                  p.err);
        char expected[300];
        snprintf(expected, sizeof(expected),
                 "%s: %s\nTry '%s --help' for more information.\n", prog,
                 c->err, prog);
        cr_assert_str_eq(p.err, expected, "case %zu", i);
        cpk_proc_free(&p);
    }
}
