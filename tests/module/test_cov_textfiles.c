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
    cpk_py("import ccloudpickle as cp, os, pickle\n"
           "master, slave = os.openpty()\n"
           "f = open(slave, 'r')\n"
           "assert f.isatty()\n"
           "try:\n"
           "    cp.dumps(f)\n"
           "except pickle.PicklingError as e:\n"
           "    assert str(e) == 'Cannot pickle files that map to tty '\\\n"
           "        'objects', e\n"
           "else:\n"
           "    raise AssertionError('pickled a terminal')\n"
           "f.close()\n"
           "os.close(master)\n");
}

Test(cov_textfiles, pipe_cannot_be_read_back)
{
    cpk_py("import ccloudpickle as cp, os, pickle\n"
           "r, w = os.pipe()\n"
           "os.write(w, b'data')\n"
           "f = open(r, 'r')\n"
           "try:\n"
           "    cp.dumps(f)\n"
           "except pickle.PicklingError as e:\n"
           "    assert str(e) == 'Cannot pickle file %d as it cannot be '\\\n"
           "        'read' % r, e\n"
           "else:\n"
           "    raise AssertionError('pickled a pipe')\n"
           "# Nothing was consumed.\n"
           "os.close(w)\n"
           "assert f.read() == 'data'\n"
           "f.close()\n");
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
