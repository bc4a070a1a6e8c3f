/* test_reader_window.c - loads() reads through a window of the data
 * (core/memio.c: peek() hands over at most 1 MiB unless asked for more,
 * readinto() copies in steps): pickles much bigger than the window, of
 * every protocol (frames, big payloads, protocol 0's lines), load from
 * bytes, bytearray and memoryview as pickle.loads loads them, and
 * _loads_exact still counts the bytes after STOP. */
#include "support.h"

TestSuite(reader_window, .init = cpk_py_start, .fini = cpk_py_stop);

Test(reader_window, big_pickles_load_through_the_window)
{
    cpk_py("import pickle, ccloudpickle as c\n"
           "objs = [{i: str(i) for i in range(200_000)},\n"
           "        [bytes(3 << 20), bytearray(5 << 20), 'x' * (3 << 20)],\n"
           "        [list(range(100_000)), b'y' * ((1 << 20) - 7)]]\n"
           "for o in objs:\n"
           "    for p in range(6):\n"
           "        d = pickle.dumps(o, p)\n"
           "        for data in (d, bytearray(d), memoryview(d)):\n"
           "            assert c.loads(data) == o, p\n"
           "            assert c._loads_exact(data) == o, p\n"
           "        assert c.loads(d + b'zz') == o\n"
           "        try:\n"
           "            c._loads_exact(memoryview(d + b'ab'))\n"
           "        except pickle.UnpicklingError as e:\n"
           "            assert str(e) == '2 bytes of trailing data after "
           "the pickle', e\n"
           "        else:\n"
           "            raise AssertionError('trailing data loaded')\n");
}
