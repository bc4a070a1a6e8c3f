/* test_policy_import_cap.c - a pickle naming more imports than the static
 * report lists (PKSCAN_MAX_ITEMS) is refused up front by --allow/--deny
 * and by loads(allow=, deny=): the names left out cannot be checked
 * against the patterns. Up to the cap, the same pickle is checked name by
 * name and loads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan/pkscan.h"
#include "support.h"

/* A protocol 2 pickle that prints LOADED, then imports `names` distinct
 * names collections.n0, n1, ... (which do not exist: a load that gets
 * that far fails with exit 4). Written to `path`. */
static void
write_pickle(const char *path, size_t names)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f != NULL);
    fputs("\x80\x02" "cbuiltins\nprint\n(VLOADED\ntR0", f);
    for (size_t i = 0; i < names; i++)
        fprintf(f, "ccollections\nn%zu\n0", i);
    fputs("N.", f);
    cr_assert(fclose(f) == 0);
}

static char dir[64], path[128];

static void
over_cap(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/many.pkl", dir);
    /* print and PKSCAN_MAX_ITEMS names: one import past the list */
    write_pickle(path, PKSCAN_MAX_ITEMS);
}

#define CUT_SHORT                                                              \
    "cloudpickle-load: %s: refused: more imports than the report lists\n"    \
    "cloudpickle-load: %s: refused by --allow/--deny: the report was cut "   \
    "short, code the load runs cannot be ruled out\n"

static void
assert_refused_cut_short(const char *const argv[])
{
    cpk_proc p;
    cpk_spawn(&p, argv, NULL, NULL, 0, NULL);
    cpk_assert_exit(&p, 3);
    char want[512];
    snprintf(want, sizeof(want), CUT_SHORT, path, path);
    cr_assert_str_eq(p.err, want);
    cpk_proc_free(&p);
}

TestSuite(policy_import_cap, .timeout = 60);

Test(policy_import_cap, allow_refuses_before_load)
{
    over_cap();
    const char *argv[] = {CPK_LOAD, "--allow", "collections", "--allow",
                          "builtins.print", "--load", path, NULL};
    assert_refused_cut_short(argv);
}

Test(policy_import_cap, deny_refuses_before_call)
{
    over_cap();
    const char *argv[] = {CPK_LOAD, "--deny", "os", "--call", path, NULL};
    assert_refused_cut_short(argv);
}

Test(policy_import_cap, loads_policy_refuses_before_load)
{
    over_cap();
    char code[1024];
    snprintf(code, sizeof(code),
             "import ccloudpickle as cp\n"
             "data = open(%s%s%s, 'rb').read()\n"
             "beyond = \"imports beyond the scanner's limit, which cannot be "
             "checked\"\n"
             "cases = [({'allow': ['collections', 'builtins.print']},\n"
             "          'import policy refuses 1 import: ' + beyond),\n"
             "         ({'deny': ['os']},\n"
             "          'import policy refuses 1 import: ' + beyond),\n"
             "         ({'allow': []}, 'import policy refuses 2 imports: '\n"
             "          'builtins.print (byte 2), ' + beyond)]\n"
             "for kw, message in cases:\n"
             "    try:\n"
             "        cp.loads(data, **kw)\n"
             "    except cp.PolicyError as e:\n"
             "        assert str(e) == message, (kw, str(e))\n"
             "    else:\n"
             "        raise AssertionError(f'loaded under {kw}')\n",
             "'", path, "'");
    cpk_proc p;
    cpk_python(&p, code, NULL, 0);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "", "the load ran: %s", p.out);
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
}

/* At the cap every name is listed and checked: the load starts (and fails
 * on the first name that does not exist). */
Test(policy_import_cap, at_the_cap_names_are_checked_one_by_one)
{
    cpk_tmpdir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/cap.pkl", dir);
    write_pickle(path, PKSCAN_MAX_ITEMS - 1);
    const char *argv[] = {CPK_LOAD, "--allow", "collections", "--allow",
                          "builtins.print", "--load", path, NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, NULL, NULL, 0, NULL);
    cpk_assert_exit(&p, 4);
    /* what the load prints goes to standard error (stdout is the
     * program's) */
    cr_assert(strncmp(p.err, "LOADED\n", 7) == 0, "%s", p.err);
    cpk_proc_free(&p);
    const char *deny[] = {CPK_LOAD, "--deny", "collections.n99998", "--load",
                          path, NULL};
    cpk_spawn(&p, deny, NULL, NULL, 0, NULL);
    cpk_assert_exit(&p, 3);
    char want[256];
    snprintf(want, sizeof(want),
             "cloudpickle-load: %s: import collections.n99998 refused by "
             "--allow/--deny at byte ", path);
    cr_assert(strncmp(p.err, want, strlen(want)) == 0, "%s", p.err);
    cpk_proc_free(&p);
}
