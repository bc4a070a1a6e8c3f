/* test_cov_portable_edges.c - portable=True at its edges: code whose
 * constants marshal cannot write travels as _code_new's fields, without a
 * source (and still loads), and _code_portable refuses a shipped source
 * whose numbers are not exactly int (a bool is not a line number). */
#include "support.h"

TestSuite(cov_portable_edges, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_portable_edges, unmarshallable_constants_go_without_source)
{
    cpk_py_file("unmarshallable_constants_go_without_source.py");
}

Test(cov_portable_edges, source_numbers_must_be_exactly_int)
{
    cpk_py_file("source_numbers_must_be_exactly_int.py");
}
