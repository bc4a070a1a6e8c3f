/* test_coverage_reader.c - readinto() of the in-memory file that loads
 * under a policy read from (src/core/memio.c's Reader). CPython's unpickler
 * calls it only for bytes past what peek() gave it, and peek() gives it
 * the whole rest of the pickle: a load reaches readinto() only for data
 * that is not there, which the static check refuses first. So the test
 * calls it by hand, from a function the pickle calls during its load
 * (found through gc), and checks what CPython's unpickler relies on:
 * the bytes at the position copied into a writable buffer, the position
 * moved by the count returned, 0 at the end, a read-only or
 * non-contiguous buffer refused. */
#include "support.h"

TestSuite(coverage_reader, .init = cpk_py_start, .fini = cpk_py_stop);

Test(coverage_reader, readinto_copies_and_advances)
{
    cpk_py_file("readinto_copies_and_advances.py");
}
