/* test_cov_exception_note.c - the traceback note an exception carries
 * when pickled (src/types/exceptions.c) is written by the traceback module:
 * when that module cannot be imported, or its format_tb raises or gives
 * no lines of text, the dump fails with that error rather than pickling
 * the exception without its note; with it back, the note travels. */
#include "support.h"

TestSuite(cov_exception_note, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_exception_note, format_tb_error_propagates)
{
    cpk_py_raises(cpk_py_text("_raised.py", "format_tb_error_propagates.py"),
                  "RuntimeError", "cannot format");
}

Test(cov_exception_note, format_tb_giving_no_text)
{
    cpk_py_raises(cpk_py_text("_raised.py", "format_tb_giving_no_text.py"),
                  "TypeError", "expected str instance, int found");
}

Test(cov_exception_note, traceback_module_missing)
{
    cpk_py_raises(cpk_py_text("_raised.py", "traceback_module_missing.py"),
                  "ModuleNotFoundError", "import of traceback halted");
}

Test(cov_exception_note, note_travels_once_traceback_is_back)
{
    cpk_py_file("_raised.py", "note_travels_once_traceback_is_back.py");
}
