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
    cpk_py("import ccloudpickle as cp, gc, pickle\n"
           "seen = {}\n"
           "def hook():\n"
           "    rs = [o for o in gc.get_objects()\n"
           "          if type(o).__name__ == '_Reader']\n"
           "    assert len(rs) == 1, rs\n"
           "    r = rs[0]\n"
           "    rest = bytes(r.peek())\n"
           "    buf = bytearray(5)\n"
           "    assert r.readinto(buf) == 5\n"
           "    assert buf == rest[:5]\n"
           "    assert bytes(r.peek()) == rest[5:]\n"
           "    big = bytearray(len(rest) + 10)\n"
           "    n = r.readinto(memoryview(big))\n"
           "    assert n == len(rest) - 5, n\n"
           "    assert big[:n] == rest[5:] and big[n:] == bytes(15)\n"
           "    assert bytes(r.peek()) == b''\n"
           "    assert r.readinto(bytearray(3)) == 0\n"
           "    try:\n"
           "        r.readinto(b'read-only')\n"
           "    except BufferError:\n"
           "        seen['ro'] = True\n"
           "    try:\n"
           "        r.readinto(memoryview(bytearray(8))[::2])\n"
           "    except BufferError:\n"
           "        seen['strided'] = True\n"
           "    try:\n"
           "        r.readinto(None)\n"
           "    except TypeError:\n"
           "        seen['none'] = True\n"
           "    seen['rest'] = rest\n"
           "    return 'hooked'\n"
           "class R:\n"
           "    def __reduce__(self):\n"
           "        return (hook, ())\n"
           "data = pickle.dumps([R(), b'tail' * 3], 4)\n"
           "# the unpickler reads from what peek() gave it: the load ends\n"
           "# as if readinto() had not run\n"
           "assert cp.loads(data, allow=['__main__.hook']) == \\\n"
           "    ['hooked', b'tail' * 3]\n"
           "assert seen == {'ro': True, 'strided': True, 'none': True,\n"
           "                'rest': data}, seen\n");
}
