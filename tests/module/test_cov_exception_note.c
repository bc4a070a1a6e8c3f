/* test_cov_exception_note.c - the traceback note an exception carries
 * when pickled (src/types/exceptions.c) is written by the traceback module:
 * when that module cannot be imported, or its format_tb raises or gives
 * no lines of text, the dump fails with that error rather than pickling
 * the exception without its note; with it back, the note travels. */
#include "support.h"

TestSuite(cov_exception_note, .init = cpk_py_start, .fini = cpk_py_stop);

#define RAISED                                                                \
    "import ccloudpickle as cp, sys, traceback\n"                             \
    "def fail():\n"                                                           \
    "    1 / 0\n"                                                             \
    "try:\n"                                                                  \
    "    fail()\n"                                                            \
    "except ZeroDivisionError as e:\n"                                        \
    "    exc = e\n"

Test(cov_exception_note, format_tb_error_propagates)
{
    cpk_py_raises(RAISED "def boom(tb):\n"
                         "    raise RuntimeError('cannot format')\n"
                         "traceback.format_tb = boom\n"
                         "cp.dumps(exc)\n",
                  "RuntimeError", "cannot format");
}

Test(cov_exception_note, format_tb_giving_no_text)
{
    cpk_py_raises(RAISED "traceback.format_tb = lambda tb: [5]\n"
                         "cp.dumps(exc)\n",
                  "TypeError", "expected str instance, int found");
}

Test(cov_exception_note, traceback_module_missing)
{
    cpk_py_raises(RAISED "sys.modules['traceback'] = None\n"
                         "cp.dumps(exc)\n",
                  "ModuleNotFoundError", "import of traceback halted");
}

Test(cov_exception_note, note_travels_once_traceback_is_back)
{
    cpk_py(RAISED
           "saved = traceback.format_tb\n"
           "traceback.format_tb = lambda tb: 1 / 0\n"
           "try:\n"
           "    cp.dumps(exc)\n"
           "except ZeroDivisionError:\n"
           "    pass\n"
           "else:\n"
           "    raise AssertionError('pickled without its note')\n"
           "traceback.format_tb = saved\n"
           "back = cp.loads(cp.dumps(exc))\n"
           "assert type(back) is ZeroDivisionError\n"
           "note = back.__notes__[-1]\n"
           "assert note.startswith('Traceback (most recent call last, '\n"
           "                       'before pickling):\\n'), note\n"
           "assert 'in fail' in note and not note.endswith('\\n'), note\n"
           "assert not hasattr(exc, '__notes__')\n");
}
