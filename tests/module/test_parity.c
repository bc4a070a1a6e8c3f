/* test_parity.c - cloudpickle 3.x's Pickler API as engines use it: the
 * class-level dispatch_table (a ChainMap over copyreg's), replaced by a
 * subclass, by an instance, or through CPython's member descriptor (as loky
 * does), winning over our reducers; reducer_override through super(). */
#include "support.h"

TestSuite(parity, .init = cpk_py_start, .fini = cpk_py_stop);

Test(parity, class_dispatch_table_is_a_chainmap_over_copyreg)
{
    cpk_py_file("class_dispatch_table_is_a_chainmap_over_copyreg.py");
}

Test(parity, subclass_chainmap_wins_over_our_reducers)
{
    cpk_py_file("subclass_chainmap_wins_over_our_reducers.py");
}

Test(parity, subclass_plain_dict_keeps_our_reducers_for_the_rest)
{
    cpk_py_file("subclass_plain_dict_keeps_our_reducers_for_the_rest.py");
}

Test(parity, instance_dispatch_table_assignment)
{
    cpk_py_file("instance_dispatch_table_assignment.py");
}

Test(parity, loky_sets_the_table_through_the_c_member)
{
    /* What loky's _LokyPickler does: copy our table, add its reducers and
     * set it through _pickle.Pickler's member descriptor. */
    cpk_py_file("loky_sets_the_table_through_the_c_member.py");
}

Test(parity, user_table_entry_for_functions_wins)
{
    cpk_py_file("user_table_entry_for_functions_wins.py");
}

Test(parity, reducer_override_through_super)
{
    cpk_py_file("reducer_override_through_super.py");
}

Test(parity, pickler_reuse_and_clear_memo)
{
    cpk_py_file("pickler_reuse_and_clear_memo.py");
}

Test(parity, persistent_id_and_persistent_load)
{
    cpk_py_file("persistent_id_and_persistent_load.py");
}
