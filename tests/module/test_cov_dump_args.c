/* test_cov_dump_args.c - dumps()/dump() arguments that cannot work
 * together or cannot be read: a signature with out-of-band buffers (they
 * would travel unsigned), a key that is no key, a format no release
 * wrote, a diagnose or portable flag whose truth raises; and a signed
 * dump to a file whose write() fails, which writes nothing else. */
#include "support.h"

TestSuite(cov_dump_args, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_dump_args, signing_with_out_of_band_buffers)
{
    cpk_py_file("_key.py", "signing_with_out_of_band_buffers.py");
}

Test(cov_dump_args, sign_key_not_bytes)
{
    cpk_py_raises(cpk_py_text("_key.py", "sign_key_not_bytes.py"), "TypeError",
                  "sign_key must be a bytes-like object, not int");
}

Test(cov_dump_args, dump_format_out_of_range)
{
    cpk_py_raises(cpk_py_text("_key.py", "dump_format_out_of_range.py"),
                  "ValueError", "format must be 1 to 5");
}

Test(cov_dump_args, flag_truth_errors_propagate)
{
    cpk_py_file("flag_truth_errors_propagate.py");
}

Test(cov_dump_args, signed_dump_write_error)
{
    cpk_py_file("_key.py", "signed_dump_write_error.py");
}
