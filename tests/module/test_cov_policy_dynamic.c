/* test_cov_policy_dynamic.c - an import whose name the pickle computes at
 * load time (STACK_GLOBAL of the result of an allowed call) cannot be
 * checked against an import policy: it is refused, named by its byte
 * offset, whatever names the policy allows. */
#include "support.h"

TestSuite(cov_policy_dynamic, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_policy_dynamic, computed_name_refused)
{
    cpk_py("import ccloudpickle as cp, os, pickle, pickletools\n"
           "# str('os') . 'getcwd' -> STACK_GLOBAL -> call\n"
           "data = (b'\\x80\\x04cbuiltins\\nstr\\n(Vos\\ntR'\n"
           "        b'Vgetcwd\\n\\x93)R.')\n"
           "at = [pos for op, arg, pos in pickletools.genops(data)\n"
           "      if op.name == 'STACK_GLOBAL']\n"
           "assert len(at) == 1\n"
           "# Plain pickle runs it: the policy is what stops it.\n"
           "assert pickle.loads(data) == os.getcwd()\n"
           "for allow in (['builtins.str'], ['builtins.str', 'os.getcwd'],\n"
           "              ['builtins.*', 'os.*']):\n"
           "    try:\n"
           "        cp.loads(data, allow=allow)\n"
           "    except cp.PolicyError as e:\n"
           "        assert str(e) == 'import policy refuses 1 import: a '\\\n"
           "            'name computed at load time (byte %d)' % at[0], e\n"
           "    else:\n"
           "        raise AssertionError(allow)\n");
}
