/* test_cov_reader_read.c - read() of the in-memory file a load under a
 * policy reads from (src/core/memio.c's Reader), called by hand from a
 * function the pickle calls during its load (found through gc), as a
 * file's read() is: None or a negative size reads the rest, a size that
 * is not an int is a TypeError, and a read moves the position. */
#include "support.h"

TestSuite(cov_reader_read, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_reader_read, read_sizes_as_a_file_takes_them)
{
    cpk_py("import ccloudpickle as cp, gc, pickle\n"
           "seen = {}\n"
           "def hook():\n"
           "    rs = [o for o in gc.get_objects()\n"
           "          if type(o).__name__ == '_Reader']\n"
           "    assert len(rs) == 1, rs\n"
           "    r = rs[0]\n"
           "    rest = bytes(r.peek())\n"
           "    try:\n"
           "        r.read('3')\n"
           "    except TypeError:\n"
           "        seen['str'] = True\n"
           "    assert bytes(r.peek()) == rest\n"
           "    assert bytes(r.read(2)) == rest[:2]\n"
           "    assert bytes(r.read(None)) == rest[2:]\n"
           "    assert bytes(r.read(-1)) == b''\n"
           "    assert bytes(r.read()) == b''\n"
           "    seen['rest'] = rest\n"
           "    return 'hooked'\n"
           "class R:\n"
           "    def __reduce__(self):\n"
           "        return (hook, ())\n"
           "data = pickle.dumps([R(), b'tail' * 3], 4)\n"
           "assert cp.loads(data, allow=['__main__.hook']) == \\\n"
           "    ['hooked', b'tail' * 3]\n"
           "assert seen['str'] is True and data.endswith(seen['rest'])\n"
           "assert len(seen['rest']) > 2\n");
}
