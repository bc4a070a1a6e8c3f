/* test_cov_signed_stream.c - loading a signed pickle from a file that
 * gives one byte per read (a pipe, a socket): the envelope is read to
 * its end and not a byte further, so what follows in the stream is left
 * for the next reader; a read that fails or gives no bytes-like object
 * fails the load with its error. */
#include "support.h"

TestSuite(cov_signed_stream, .init = cpk_py_start, .fini = cpk_py_stop);

#define SHORT                                                                 \
    "import ccloudpickle as cp\n"                                             \
    "key = b'k' * 32\n"                                                       \
    "class Short:\n"                                                          \
    "    def __init__(self, d):\n"                                            \
    "        self.d, self.pos = d, 0\n"                                       \
    "    def read(self, n=-1):\n"                                             \
    "        b = self.d[self.pos:self.pos + 1]\n"                             \
    "        self.pos += len(b)\n"                                            \
    "        return b\n"

Test(cov_signed_stream, one_byte_reads_stop_at_the_envelope_end)
{
    cpk_py(SHORT
           "first = cp.dumps({'a': [1, 2, 3]}, sign_key=key)\n"
           "second = cp.dumps('next', sign_key=key)\n"
           "s = Short(first + second + b'TAIL')\n"
           "assert cp.load(s, verify_key=key) == {'a': [1, 2, 3]}\n"
           "assert s.pos == len(first), (s.pos, len(first))\n"
           "assert cp.load(s, verify_key=key) == 'next'\n"
           "assert s.pos == len(first) + len(second)\n"
           "assert s.d[s.pos:] == b'TAIL'\n");
}

Test(cov_signed_stream, read_errors_propagate)
{
    cpk_py_raises(SHORT "class Boom:\n"
                        "    def read(self, n=-1):\n"
                        "        raise OSError('disk gone')\n"
                        "cp.load(Boom(), verify_key=key)\n",
                  "OSError", "disk gone");
    cpk_py_raises(SHORT "class Bad:\n"
                        "    def read(self, n=-1):\n"
                        "        return 5\n"
                        "cp.load(Bad(), verify_key=key)\n",
                  "TypeError", "a bytes-like object is required");
}
