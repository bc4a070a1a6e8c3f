/* test_cov_reader_read.c - read() of the in-memory file a load under a
 * policy reads from (src/core/memio.c's Reader), called by hand from a
 * function the pickle calls during its load (found through gc), as a
 * file's read() is: None or a negative size reads the rest, a size that
 * is not an int is a TypeError, and a read moves the position. */
#include "support.h"

TestSuite(cov_reader_read, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_reader_read, read_sizes_as_a_file_takes_them)
{
    cpk_py_file("read_sizes_as_a_file_takes_them.py");
}
