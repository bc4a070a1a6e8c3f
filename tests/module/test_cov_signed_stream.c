/* test_cov_signed_stream.c - loading a signed pickle from a file that
 * gives one byte per read (a pipe, a socket): the envelope is read to
 * its end and not a byte further, so what follows in the stream is left
 * for the next reader; a read that fails or gives no bytes-like object
 * fails the load with its error. */
#include "support.h"

TestSuite(cov_signed_stream, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_signed_stream, one_byte_reads_stop_at_the_envelope_end)
{
    cpk_py_file("_short.py", "one_byte_reads_stop_at_the_envelope_end.py");
}

Test(cov_signed_stream, read_errors_propagate)
{
    cpk_py_raises(cpk_py_text("_short.py", "read_errors_propagate.py"),
                  "OSError", "disk gone");
    cpk_py_raises(cpk_py_text("_short.py", "read_errors_propagate_2.py"),
                  "TypeError", "a bytes-like object is required");
}
