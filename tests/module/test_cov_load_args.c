/* test_cov_load_args.c - loads()/load() arguments refused before a
 * byte is read: an unknown keyword, data that is no bytes-like object,
 * an encoding or errors that is not a str (CPython's Unpickler says
 * which), each with CPython's wording. */
#include "support.h"

TestSuite(cov_load_args, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_load_args, refused_arguments)
{
    cpk_py_file("refused_arguments.py");
}
