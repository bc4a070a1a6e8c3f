/* test_signing_shared.c - loads(data, verify_key=) on memory another
 * process can write (a shared mmap): what is verified must be what is
 * loaded. The envelope is copied once, then verified and unpacked from
 * the copy; without the copy the MAC was computed over one read of the
 * shared bytes and the pickle copied from a second. A child process
 * flips one byte of the pickle as fast as it can while the parent loads:
 * every load must give the signed object or be refused, never the
 * altered one. (A race: on one idle core it may miss the defect, it
 * can never fail a correct build.) The signature tests proper are
 * tests/module/test_signing.c. */
#include "support.h"

TestSuite(signing_shared, .init = cpk_py_start, .fini = cpk_py_stop);

Test(signing_shared, shared_mapping_verified_bytes_are_loaded,
     .timeout = 120)
{
    cpk_py_file("shared_mapping_verified_bytes_are_loaded.py");
}

/* load(file, verify_key=) with a header that claims far more than the
 * file holds (doc/FORMAT.md, "Reading from a stream"): reads of at most
 * 1 MiB until end of file, memory bounded by what was received, then a
 * SignatureError for the truncation; nothing is loaded. */
Test(signing_shared, claimed_length_is_not_trusted)
{
    cpk_py_file("claimed_length_is_not_trusted.py");
}
