/* test_cov_args_classkw.c - an argument given both by position and by
 * keyword is refused, naming it, as CPython's own argument parsing
 * does; and the helper that reads a class statement's keywords
 * (_ccloudpickle_classkw) answering with something other than a dict
 * fails the dump instead of pickling the class without them. */
#include "support.h"

TestSuite(cov_args_classkw, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_args_classkw, argument_given_twice)
{
    cpk_py_file("argument_given_twice.py");
}

Test(cov_args_classkw, class_keywords_helper_not_a_dict)
{
    cpk_py_file("class_keywords_helper_not_a_dict.py");
}
