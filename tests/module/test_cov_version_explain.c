/* test_cov_version_explain.c - the message of a load that meets code
 * compiled by another Python (src/engine/versionerror.c): each function named
 * with its file and first line, a name longer than the message keeps cut
 * short with "...", a function whose code could not be read named by its
 * byte offset. The pickles are this Python's, with the bytecode magic and
 * version of their code rewritten to another release's. */
#include "support.h"

TestSuite(cov_version_explain, .init = cpk_py_start, .fini = cpk_py_stop);

static void need_311(void)
{
    if (PY_VERSION_HEX < 0x030B0000 || PY_VERSION_HEX >= 0x030C0000)
        cr_skip_test("the pickles are rewritten from 3.11's bytes");
}

Test(cov_version_explain, function_named_with_file_and_line)
{
    need_311();
    cpk_py_file("_setup.py", "function_named_with_file_and_line.py");
}

Test(cov_version_explain, long_name_cut_short)
{
    need_311();
    cpk_py_file("_setup.py", "long_name_cut_short.py");
}

Test(cov_version_explain, unreadable_code_named_by_offset)
{
    need_311();
    /* Magic 1 is no release's: the scan cannot read the code. */
    cpk_py_file("_setup.py", "unreadable_code_named_by_offset.py");
}
