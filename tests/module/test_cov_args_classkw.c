/* test_cov_args_classkw.c - an argument given both by position and by
 * keyword is refused, naming it, as CPython's own argument parsing
 * does; and the helper that reads a class statement's keywords
 * (_ccloudpickle_classkw) answering with something other than a dict
 * fails the dump instead of pickling the class without them. */
#include "support.h"

TestSuite(cov_args_classkw, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_args_classkw, argument_given_twice)
{
    cpk_py("import ccloudpickle as cp, io\n"
           "for name, call in (('dumps', lambda: cp.dumps(1, 5, protocol=4)),\n"
           "                   ('dump', lambda: cp.dump(1, io.BytesIO(), 4,\n"
           "                                             protocol=4))):\n"
           "    try:\n"
           "        call()\n"
           "    except TypeError as e:\n"
           "        assert str(e) == '%s() got multiple values for argument '\\\n"
           "            \"'protocol'\" % name, e\n"
           "    else:\n"
           "        raise AssertionError(name)\n"
           "assert cp.loads(cp.dumps(1, 4)) == 1\n");
}

Test(cov_args_classkw, class_keywords_helper_not_a_dict)
{
    cpk_py("import ccloudpickle as cp\n"
           "import _ccloudpickle_classkw as ck\n"
           "class Base:\n"
           "    def __init_subclass__(cls, flag=False, **kw):\n"
           "        super().__init_subclass__(**kw)\n"
           "        cls.flag = flag\n"
           "class Sub(Base, flag=True):\n"
           "    pass\n"
           "assert cp.loads(cp.dumps(Sub)).flag is True\n"
           "ck.class_keywords = lambda cls: [('flag', True)]\n"
           "try:\n"
           "    cp.dumps(Sub)\n"
           "except TypeError as e:\n"
           "    assert str(e) == '_ccloudpickle_classkw.class_keywords() '\\\n"
           "        'returned list', e\n"
           "else:\n"
           "    raise AssertionError('pickled without its keywords')\n");
}
