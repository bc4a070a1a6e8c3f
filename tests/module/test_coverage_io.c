/* test_coverage_io.c - behaviour of the in-memory files behind dumps() and
 * loads() (memio.c) with pickles of many frames, bytes-like inputs of odd
 * shapes and protocol 0 line-based pickles, and of the culprit search
 * (_find_unpicklable, diagnose.c) through each kind of container it walks:
 * sets, classes, modules, cells, methods, function fields, reduction
 * states, long or failing key reprs, and its argument checks. */
#include "support.h"

TestSuite(coverage_io, .init = cpk_py_start, .fini = cpk_py_stop);

Test(coverage_io, dumps_of_many_frames_matches_pickle)
{
    /* Several frames, then a large bytes and a large bytearray written out
     * of frame (the latter as a memoryview): one output, byte for byte
     * what pickle writes, and it loads back. */
    cpk_py_file("dumps_of_many_frames_matches_pickle.py");
}

Test(coverage_io, small_dumps_is_one_bytes_object)
{
    cpk_py("import ccloudpickle as cp, pickle\n"
           "for obj in (None, 1, 'a', (), [1, 2]):\n"
           "    d = cp.dumps(obj)\n"
           "    assert d == pickle.dumps(obj, 5) and cp.loads(d) == obj\n");
}

Test(coverage_io, protocol0_pickles_read_line_by_line)
{
    /* Protocol 0 is line based: read from a bytearray (the reader, not
     * pickle.loads), with and without the exact-length check. */
    cpk_py("import ccloudpickle as cp, pickle\n"
           "obj = [1, 'ab', (2.5, None), {'k': b'v'}, 10**30]\n"
           "for proto in (0, 1):\n"
           "    d = pickle.dumps(obj, protocol=proto)\n"
           "    assert cp.loads(bytearray(d)) == obj\n"
           "    assert cp._loads_exact(bytearray(d)) == obj\n"
           "    assert cp.loads(bytearray(d) + b'junk') == obj\n");
    cpk_py_raises("import ccloudpickle as cp, pickle\n"
                  "cp._loads_exact(bytearray(pickle.dumps(5, 0)) + b'xyz')\n",
                  "UnpicklingError", "3 bytes of trailing data");
    cpk_py_raises("import ccloudpickle as cp, pickle\n"
                  "cp._loads_exact(pickle.dumps(5, 0) + b'x')\n",
                  "UnpicklingError", "1 byte of trailing data");
}

Test(coverage_io, truncated_line_pickle_is_refused)
{
    /* A line with no newline at the end of the data. */
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp.loads(bytearray(b\"S'abc'\"))\n",
                  "UnpicklingError", "truncated");
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp.loads(bytearray(b'I12'))\n",
                  "UnpicklingError", "truncated");
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp.loads(bytearray(b''))\n",
                  "EOFError", "");
}

Test(coverage_io, large_bytes_from_a_buffer)
{
    /* A payload larger than what the unpickler buffers itself. */
    cpk_py("import ccloudpickle as cp\n"
           "payload = bytes(range(256)) * 4000\n"
           "for proto in (2, 3, 4, 5):\n"
           "    d = cp.dumps([payload, bytearray(payload)], proto)\n"
           "    out = cp.loads(bytearray(d))\n"
           "    assert out == [payload, bytearray(payload)], proto\n"
           "    assert type(out[1]) is bytearray\n");
}

Test(coverage_io, loads_of_multidimensional_and_strided_buffers)
{
    /* A 2-D view is read as its bytes; a strided one is refused. */
    cpk_py_file("loads_of_multidimensional_and_strided_buffers.py");
    cpk_py_raises("import ccloudpickle as cp\n"
                  "d = cp.dumps([1, 2, 3])\n"
                  "cp.loads(memoryview(bytearray(d * 2))[::2])\n",
                  "BufferError", "pickle data must be contiguous");
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp.loads(12)\n",
                  "TypeError", "");
}

Test(coverage_io, find_unpicklable_in_sets_and_cells)
{
    cpk_py_file("find_unpicklable_in_sets_and_cells.py");
}

Test(coverage_io, find_unpicklable_in_classes_modules_methods)
{
    cpk_py_file("find_unpicklable_in_classes_modules_methods.py");
}

Test(coverage_io, find_unpicklable_in_function_fields)
{
    cpk_py_file("find_unpicklable_in_function_fields.py");
}

Test(coverage_io, find_unpicklable_in_reduction_states)
{
    /* A state dict names attributes; a (dict, slots dict) state too. */
    cpk_py_file("find_unpicklable_in_reduction_states.py");
}

Test(coverage_io, find_unpicklable_key_reprs)
{
    /* Long key reprs are cut to 60 characters; a failing one is '?'. */
    cpk_py_file("find_unpicklable_key_reprs.py");
    cpk_py_raises("import ccloudpickle as cp, threading\n"
                  "class Stop:\n"
                  "    def __repr__(self):\n"
                  "        raise SystemExit('repr exit')\n"
                  "cp._find_unpicklable({Stop(): threading.local()})\n",
                  "SystemExit", "repr exit");
}

Test(coverage_io, find_unpicklable_cycles_and_shared_objects)
{
    /* An object met twice is tried once: a cycle ends, and a culprit
     * shared by two containers is named on the first path. */
    cpk_py_file("find_unpicklable_cycles_and_shared_objects.py");
}

Test(coverage_io, find_unpicklable_depth_and_tries_limits)
{
    /* Deeper than 40 levels the search names the container at the limit;
     * past 2000 tries it stops looking and names the last container. A
     * long list is bisected (a few tries); a function's globals are not. */
    cpk_py_file("find_unpicklable_depth_and_tries_limits.py");
}

Test(coverage_io, find_unpicklable_arguments)
{
    cpk_py("import ccloudpickle as cp, threading\n"
           "lock = threading.local()\n"
           "assert cp._find_unpicklable([lock], 2) == ('[0]', lock)\n"
           "assert cp._find_unpicklable(42, 0) is None\n");
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp._find_unpicklable()\n",
                  "TypeError",
                  "_find_unpicklable(obj, protocol=5, compat=None)");
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp._find_unpicklable(1, 2, None, 4)\n",
                  "TypeError",
                  "_find_unpicklable(obj, protocol=5, compat=None)");
}

/* Unpickler ---------------------------------------------------------------- */

Test(coverage_io, unpickler_find_class_arguments)
{
    cpk_py_file("unpickler_find_class_arguments.py");
}

Test(coverage_io, unpickler_in_a_reference_cycle_is_collected)
{
    /* A cycle through the instance __dict__ is freed by the collector. */
    cpk_py_file("unpickler_in_a_reference_cycle_is_collected.py");
}

Test(coverage_io, gc_threshold_errors_of_large_loads_propagate)
{
    /* Large loads pause the collector through gc.get_threshold (looked
     * up once); its errors are the load's, small loads never call it,
     * and the real threshold is untouched. */
    cpk_py_file("gc_threshold_errors_of_large_loads_propagate.py");
}
