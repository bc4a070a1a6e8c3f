/* test_engine_large_buffers.c - dumps() of pickles carrying large buffers,
 * as mpi4py sends them (MPI.pickle calls ccloudpickle.dumps(obj) and
 * sends the bytes): the in-memory sink (src/core/memio.c) keeps them whole and
 * asks the allocator for one block a little above their size, which glibc
 * serves again from the same memory at the next dump of the same size.
 * Page faults are counted, not time: a block doubled past the result's
 * size came from a fresh mmap at every dump (256 faults per 1 MB dump). */
#include <stdlib.h>

#include "support.h"

TestSuite(engine_large_buffers, .init = cpk_py_start, .fini = cpk_py_stop);

/* Pickles written in several large writes, of sizes around the sink's
 * slack and its growth, load back as they were. */
Test(engine_large_buffers, roundtrip_sizes)
{
    cpk_py("import ccloudpickle, pickle\n"
           "for n in (65535, 65536, 65537, (1 << 20) - 1, 1 << 20,\n"
           "          (1 << 20) + 4095, (1 << 20) + 4096, 3 << 20):\n"
           "    ba = bytearray(i % 251 for i in range(n))\n"
           "    for obj in (ba, bytes(ba), [ba, b'tail' * 1000],\n"
           "                [bytes(ba), ba, bytes(ba)],\n"
           "                (ba, lambda: len(ba))):\n"
           "        for proto in (2, 4, 5):\n"
           "            out = pickle.loads(ccloudpickle.dumps(obj, proto))\n"
           "            if callable(obj[-1]):\n"
           "                assert out[0] == ba and out[1]() == n\n"
           "            else:\n"
           "                assert out == obj, (n, proto)\n"
           "big = [bytearray(b'%d' % i) * 70000 for i in range(40)]\n"
           "assert pickle.loads(ccloudpickle.dumps(big)) == big\n");
}

/* Dumping the same 1 MB buffer again and again, each result dropped at
 * once or kept until the next is made, touches few new pages per dump. */
Test(engine_large_buffers, repeated_dumps_reuse_memory)
{
    /* What is counted is glibc malloc's behaviour: not under make
     * sanitize or make memcheck, whose allocators differ (both set
     * PYTHONMALLOC). */
    if (getenv("PYTHONMALLOC") != NULL || getenv("CPK_SAN_PRELOAD") != NULL)
        cr_skip_test("another allocator than glibc's malloc (PYTHONMALLOC)");
    cpk_py("import ccloudpickle, pickle, resource\n"
           "payload = bytearray(b'x' * (1 << 20))\n"
           "def faults(keep):\n"
           "    d = None\n"
           "    for _ in range(3):\n"
           "        d = ccloudpickle.dumps(payload)\n"
           "    f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt\n"
           "    for _ in range(20):\n"
           "        if keep:\n"
           "            d = ccloudpickle.dumps(payload)\n"
           "        else:\n"
           "            ccloudpickle.dumps(payload)\n"
           "    f1 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt\n"
           "    assert pickle.loads(d) == payload\n"
           "    return (f1 - f0) / 20\n"
           "dropped = faults(False)\n"
           "kept = faults(True)\n"
           "assert dropped < 64, ('page faults per dump, dropped', dropped)\n"
           "assert kept < 160, ('page faults per dump, kept', kept)\n");
}
