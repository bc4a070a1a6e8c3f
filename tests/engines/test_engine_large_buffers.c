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
    cpk_py_file("roundtrip_sizes.py");
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
    cpk_py_file("repeated_dumps_reuse_memory.py");
}
