/* test_cov_load_args.c - loads()/load() arguments refused before a
 * byte is read: an unknown keyword, data that is no bytes-like object,
 * an encoding or errors that is not a str (CPython's Unpickler says
 * which), each with CPython's wording. */
#include "support.h"

TestSuite(cov_load_args, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_load_args, refused_arguments)
{
    cpk_py("import ccloudpickle as cp, io\n"
           "f = io.BytesIO(b'N.')\n"
           "cases = [\n"
           "    (lambda: cp.loads(b'N.', bogus=1),\n"
           "     \"loads() got an unexpected keyword argument 'bogus'\"),\n"
           "    (lambda: cp.load(f, bogus=1),\n"
           "     \"load() got an unexpected keyword argument 'bogus'\"),\n"
           "    (lambda: cp.loads(5),\n"
           "     \"memoryview: a bytes-like object is required, not 'int'\"),\n"
           "    (lambda: cp.loads(b'\\x80\\x04N.', encoding=5),\n"
           "     \"loads() argument 'encoding' must be str, not int\"),\n"
           "    (lambda: cp.loads(b'\\x80\\x04N.', errors=5),\n"
           "     \"loads() argument 'errors' must be str, not int\"),\n"
           "]\n"
           "for call, want in cases:\n"
           "    try:\n"
           "        call()\n"
           "    except TypeError as e:\n"
           "        assert str(e) == want, (str(e), want)\n"
           "    else:\n"
           "        raise AssertionError(want)\n"
           "assert f.tell() == 0 and cp.load(f) is None\n");
}
