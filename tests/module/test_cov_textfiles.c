/* test_cov_textfiles.c - text files the pickler refuses, as stock
 * cloudpickle does: a wrapper over a buffer with no file name, a
 * terminal, a pipe (it cannot be read back to its position), and a buffer
 * whose name lookup raises (that error, not a refusal). */
#include "support.h"

TestSuite(cov_textfiles, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_textfiles, wrapper_without_file_name)
{
    cpk_py_raises("import ccloudpickle as cp, io\n"
                  "cp.dumps(io.TextIOWrapper(io.BytesIO(b'abc')))\n",
                  "PicklingError",
                  "Cannot pickle files that do not map to an actual file");
}

Test(cov_textfiles, terminal_refused)
{
    cpk_py_file("terminal_refused.py");
}

Test(cov_textfiles, pipe_cannot_be_read_back)
{
    cpk_py_file("pipe_cannot_be_read_back.py");
}

Test(cov_textfiles, name_lookup_error_propagates)
{
    cpk_py_raises("import ccloudpickle as cp, io\n"
                  "class Buf(io.BytesIO):\n"
                  "    @property\n"
                  "    def name(self):\n"
                  "        raise RuntimeError('which file?')\n"
                  "cp.dumps(io.TextIOWrapper(Buf(b'x')))\n",
                  "RuntimeError", "which file?");
}
