/* test_buffers.c - protocol 5 out-of-band buffers through buffer_callback:
 * pickle.PickleBuffer and numpy arrays travel beside the pickle, without a
 * copy of their data on the dumping side; in-band they stay in the pickle.
 * Also the in-memory loads path with large payloads. */
#include "support.h"

TestSuite(buffers, .init = cpk_py_start, .fini = cpk_py_stop);

Test(buffers, numpy_array_out_of_band_without_copy)
{
    cpk_require("numpy");
    cpk_py_file("numpy_array_out_of_band_without_copy.py");
}

Test(buffers, numpy_array_in_band)
{
    cpk_require("numpy");
    cpk_py("import ccloudpickle as cp, numpy as np\n"
           "a = np.arange(100000, dtype=np.int32).reshape(100, 1000)\n"
           "for proto in (2, 5):\n"
           "    data = cp.dumps(a, protocol=proto)\n"
           "    assert len(data) > a.nbytes\n"
           "    b = cp.loads(data)\n"
           "    assert b.shape == (100, 1000) and (b == a).all()\n");
}

Test(buffers, pickle_buffer_out_of_band_and_in_band)
{
    cpk_py_file("pickle_buffer_out_of_band_and_in_band.py");
}

Test(buffers, functions_closing_over_arrays)
{
    cpk_require("numpy");
    cpk_py("import ccloudpickle as cp, numpy as np\n"
           "weights = np.linspace(0, 1, 1000)\n"
           "def score(x):\n"
           "    return float((weights * x).sum())\n"
           "data = cp.dumps(score)\n");
    cpk_fresh("data", "assert abs(obj(2) - 1000.0) < 1e-9\n");
}

Test(buffers, large_bytes_through_loads)
{
    cpk_py_file("large_bytes_through_loads.py");
}
