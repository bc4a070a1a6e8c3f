/* test_scan_loadcalls.c - pkscan_report.load_calls after the second
 * hostile review of issue 8 (R1-R4, R6): code carried by value inside a
 * container handed to a plain callable (sorted, str, frozenset, bytes,
 * type), class attributes that are callables but not functions
 * (functools.partial as __init__ / __hash__), a second _class_setstate
 * adding __init__, the hashing-hook check in linear time, builtins.print.
 * Each refused pickle is live: without a policy it does write its
 * marker. And the other side: functions, classes and enums by value, alone
 * or in plain containers, still load under allow=[]. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scan/pkscan.h"
#include "support.h"

TestSuite(scan_loadcalls, .init = cpk_py_start, .fini = cpk_py_stop);

Test(scan_loadcalls, r1_code_in_containers_given_to_plain_callables)
{
    cpk_py_file("_setup.py",
                "r1_code_in_containers_given_to_plain_callables.py");
}

Test(scan_loadcalls, r1_container_filled_through_the_memo)
{
    /* the list is made (and memoised) before its item, which APPENDS
     * adds later: the list is older than the member it holds */
    cpk_py_file("_setup.py", "r1_container_filled_through_the_memo.py");
}

Test(scan_loadcalls, member_hashed_by_setitems_on_an_opaque_dict)
{
    /* OrderedDict() then SETITEMS: the keys are edges of an opaque node */
    cpk_py_file("_setup.py", "member_hashed_by_setitems_on_an_opaque_dict.py");
}

/* getattr is not plain under allow=[] when it is not a constant lookup:
 * the report itself must list the call (what --strict refuses). */
Test(scan_loadcalls, getattr_of_a_member_runs_its_getattr)
{
    cpk_py_file("_setup.py", "getattr_of_a_member_runs_its_getattr.py");
    size_t n;
    char *data = cpk_py_bytes("ga", &n);
    pkscan_report *r = pkscan_scan(data, n, 0);
    free(data);
    cr_assert(r != NULL && r->status == PKSCAN_OK);
    cr_assert(r->n_load_calls > 0, "getattr(member, name) not listed");
    pkscan_free(r);
}

Test(scan_loadcalls, r2_partial_as_init_or_hash)
{
    cpk_py_file("_setup.py", "r2_partial_as_init_or_hash.py");
}

Test(scan_loadcalls, r3_second_class_setstate)
{
    cpk_py_file("_setup.py", "r3_second_class_setstate.py");
    /* (live in a fresh process only: here K is the class already
     * defined, which the load reuses without setting its state) */
}

Test(scan_loadcalls, r6_print_is_not_plain)
{
    cpk_py("import ccloudpickle as cp, pickle\n"
           "data = pickle.dumps(print, protocol=4)\n"
           "try:\n"
           "    cp.loads(data, allow=[])\n"
           "    raise AssertionError('print passed allow=[]')\n"
           "except cp.PolicyError as e:\n"
           "    assert 'builtins.print' in str(e), str(e)\n");
}

Test(scan_loadcalls, still_loads_restricted)
{
    cpk_py_file("_setup.py", "still_loads_restricted.py");
}

/* R4: a class by value with 50 000 method names (one function memoised
 * under each) and a dict of 800 000 keys, each the same instance: the
 * hashing-hook check used to cost keys x methods (76 s here; the test's
 * timeout catches that, no time is measured), now linear and charged to
 * the work budget, which it must not exhaust. */
Test(scan_loadcalls, r4_hash_hook_check_is_linear, .timeout = 60)
{
    cpk_py_file("r4_hash_hook_check_is_linear.py");
    size_t n;
    char *data = cpk_py_bytes("slow", &n);
    pkscan_report *r = pkscan_scan(data, n, 0);
    free(data);
    cr_assert(r != NULL);
    int ok = r->status == PKSCAN_OK, truncated = r->truncated;
    size_t calls = r->n_load_calls;
    pkscan_free(r);
    cr_assert(ok);
    cr_assert(!truncated, "the linear check exhausted the work budget");
    cr_assert(calls > 0); /* the instance is created */
}
