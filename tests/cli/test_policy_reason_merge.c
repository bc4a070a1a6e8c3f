/* test_policy_reason_merge.c - a name a pickle imports twice, once
 * harmlessly and once dangerously (here: BUILD on the imported class,
 * which patches it for the whole process), is dangerous, whichever of
 * the two comes first: in the report, in --json, under --strict, under
 * --deny, and under loads(allow=[]) and loads(deny=[...]). */
#include <stdio.h>
#include <string.h>

#include "support.h"

/* collections.OrderedDict patched by BUILD, then called (and the other
 * way round); the same name both times. */
#define PATCH_FIRST "\x80\x02" "ccollections\nOrderedDict\n}b0" \
                    "ccollections\nOrderedDict\n)R."
#define CALL_FIRST  "\x80\x02" "ccollections\nOrderedDict\n)R0" \
                    "ccollections\nOrderedDict\n}b."
/* The same bytes as Python literals. */
#define PATCH_FIRST_PY "b'\\x80\\x02ccollections\\nOrderedDict\\n}b0" \
                       "ccollections\\nOrderedDict\\n)R.'"
#define CALL_FIRST_PY  "b'\\x80\\x02ccollections\\nOrderedDict\\n)R0" \
                       "ccollections\\nOrderedDict\\n}b.'"

static void
load(cpk_proc *p, const char *data, const char *a1, const char *a2,
     const char *a3)
{
    const char *argv[] = {CPK_LOAD, a1, a2, a3, NULL, NULL};
    size_t n = 1;
    while (argv[n] != NULL)
        n++;
    argv[n] = "-";
    cpk_spawn(p, argv, NULL, data, strlen(data), NULL);
}

static void
check_report(const char *data)
{
    cpk_proc p;
    load(&p, data, NULL, NULL, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "! collections.OrderedDict  DANGEROUS: modifies "
                            "an imported object (byte 2, 2 times)") != NULL,
              "report:\n%s", p.out);
    cr_assert(strstr(p.out, "verdict    DANGEROUS") != NULL, "%s", p.out);
    cpk_proc_free(&p);

    load(&p, data, "--json", NULL, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "\"n_dangerous\": 1,") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "\"strict_violation\": true") != NULL, "%s",
              p.out);
    cr_assert(strstr(p.out, "\"dangerous\": true, \"reason\": \"modifies "
                            "an imported object\"") != NULL,
              "%s", p.out);
    cpk_proc_free(&p);
}

static void
check_refused(const char *data)
{
    cpk_proc p;
    load(&p, data, "--strict", NULL, NULL);
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.err, "cloudpickle-load: standard input: refused import "
                            "collections.OrderedDict (modifies an imported "
                            "object) at byte 2\n");
    cpk_proc_free(&p);

    load(&p, data, "--deny", "os", "--load");
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.err, "cloudpickle-load: standard input: import "
                            "collections.OrderedDict refused by "
                            "--allow/--deny at byte 2\n");
    cr_assert_str_eq(p.out, "");
    cpk_proc_free(&p);
}

static void
check_api(const char *data_py)
{
    char code[2048];
    snprintf(code, sizeof(code),
             "import ccloudpickle as cp, collections\n"
             "data = %s\n"
             "for kw in ({'allow': []}, {'deny': ['os']}):\n"
             "    try:\n"
             "        cp.loads(data, **kw)\n"
             "    except cp.PolicyError as e:\n"
             "        assert 'collections.OrderedDict (byte 2)' in str(e), e\n"
             "    else:\n"
             "        raise AssertionError(f'loaded under {kw}')\n"
             "assert not hasattr(collections.OrderedDict, '__setstate__')\n",
             data_py);
    cpk_proc p;
    cpk_python(&p, code, NULL, 0);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

TestSuite(policy_reason_merge);

Test(policy_reason_merge, dangerous_first_wins_in_reports)
{
    check_report(PATCH_FIRST);
}

Test(policy_reason_merge, dangerous_last_wins_in_reports)
{
    check_report(CALL_FIRST);
}

Test(policy_reason_merge, dangerous_first_refused_by_policies)
{
    check_refused(PATCH_FIRST);
    check_api(PATCH_FIRST_PY);
}

Test(policy_reason_merge, dangerous_last_refused_by_policies)
{
    check_refused(CALL_FIRST);
    check_api(CALL_FIRST_PY);
}
