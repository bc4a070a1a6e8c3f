/* test_closed_world.c - the closed world of loads' policies (issue 25;
 * the scanner's side is src/scan/pkscan_state.c): ordinary objects the
 * standard library pickles keep loading under allow=[], and state given
 * to what a class by reference returned needs an allow rule naming that
 * class. The known bypasses are tests/fuzz/test_strict_cases.c. */
#include "support.h"

TestSuite(closed_world, .init = cpk_py_start, .fini = cpk_py_stop);

Test(closed_world, ordinary_objects_load_restricted)
{
    cpk_py_file("ordinary_objects_load_restricted.py");
}

Test(closed_world, member_attrs_reach_only_members)
{
    cpk_py("CASES = '" CPK_SOURCE_DIR "/tests/fuzz/strict_cases/review'");
    cpk_py_file("member_attrs_reach_only_members.py");
}

Test(closed_world, user_class_state_needs_an_allow_rule)
{
    cpk_py_file("user_class_state_needs_an_allow_rule.py");
}
