/* test_cov_policy_dynamic.c - an import whose name the pickle computes at
 * load time (STACK_GLOBAL of the result of an allowed call) cannot be
 * checked against an import policy: it is refused, named by its byte
 * offset, whatever names the policy allows. */
#include "support.h"

TestSuite(cov_policy_dynamic, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_policy_dynamic, computed_name_refused)
{
    cpk_py_file("computed_name_refused.py");
}
