/* test_cov_portable_edges.c - portable=True at its edges: code whose
 * constants marshal cannot write travels as _code_new's fields, without a
 * source (and still loads), and _code_portable refuses a shipped source
 * whose numbers are not exactly int (a bool is not a line number). */
#include "support.h"

TestSuite(cov_portable_edges, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_portable_edges, unmarshallable_constants_go_without_source)
{
    cpk_py("import ccloudpickle as cp, pickletools\n"
           "def g():\n"
           "    return 2\n"
           "g.__code__ = g.__code__.replace(co_consts=(None, 7))\n"
           "plain = cp.dumps(g, portable=True)\n"
           "assert b'_code_portable' in plain\n"
           "class K:\n"
           "    pass\n"
           "h = type(g)(g.__code__.replace(co_consts=(None, K())), {})\n"
           "data = cp.dumps(h, portable=True)\n"
           "names = {a for op, a, _ in pickletools.genops(data)\n"
           "         if isinstance(a, str)}\n"
           "assert '_code_new' in names, names\n"
           "assert '_code_portable' not in names, names\n"
           "# The constant travels with the code: g's 2 is now K().\n"
           "assert type(cp.loads(data)()).__name__ == 'K'\n");
}

Test(cov_portable_edges, source_numbers_must_be_exactly_int)
{
    cpk_py("import ccloudpickle as cp\n"
           "for i, src in ((4, ('x', 'f', 'n', True, 0, 0)),\n"
           "               (5, ('x', 'f', 'n', 1, False, 0)),\n"
           "               (6, ('x', 'f', 'n', 1, 0, True))):\n"
           "    try:\n"
           "        cp._code_portable('3.0.0', 1, b'', src)\n"
           "    except cp.ReconstructorTypeError as e:\n"
           "        assert str(e) == '_code_portable() argument 4 (source) '\\\n"
           "            'item %d must be exactly int, not bool' % i, str(e)\n"
           "    else:\n"
           "        raise AssertionError(src)\n");
}
