/* test_buffers.c - protocol 5 out-of-band buffers through buffer_callback:
 * pickle.PickleBuffer and numpy arrays travel beside the pickle, without a
 * copy of their data on the dumping side; in-band they stay in the pickle.
 * Also the in-memory loads path with large payloads. */
#include "support.h"

TestSuite(buffers, .init = cpk_py_start, .fini = cpk_py_stop);

Test(buffers, numpy_array_out_of_band_without_copy)
{
    cpk_require("numpy");
    cpk_py("import ccloudpickle as cp, numpy as np, pickle\n"
           "a = np.arange(1 << 18, dtype=np.float64)\n"
           "bufs = []\n"
           "data = cp.dumps(a, protocol=5, buffer_callback=bufs.append)\n"
           "assert len(data) < 1000 and len(bufs) == 1\n"
           "raw = bufs[0].raw()\n"
           "view = np.frombuffer(raw, dtype=np.float64)\n"
           "assert view.ctypes.data == a.ctypes.data, 'the buffer was copied'\n"
           "b = cp.loads(data, buffers=bufs)\n"
           "assert (b == a).all()\n"
           /* Without the buffers, loading refuses. */
           "try:\n"
           "    cp.loads(data)\n"
           "    raise AssertionError('loaded without its buffers')\n"
           "except pickle.UnpicklingError:\n"
           "    pass\n");
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
    cpk_py("import ccloudpickle as cp, pickle\n"
           "payload = bytearray(b'xy' * 100000)\n"
           "bufs = []\n"
           "data = cp.dumps(pickle.PickleBuffer(payload), protocol=5,\n"
           "                buffer_callback=bufs.append)\n"
           "assert len(bufs) == 1 and len(data) < 100\n"
           "assert bytes(cp.loads(data, buffers=bufs)) == bytes(payload)\n"
           /* A callback returning True keeps that buffer in band. */
           "data = cp.dumps(pickle.PickleBuffer(payload), protocol=5,\n"
           "                buffer_callback=lambda b: True)\n"
           "assert len(data) > len(payload)\n"
           "assert cp.loads(data) == payload\n");
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
    cpk_py("import ccloudpickle as cp\n"
           "big = b'z' * (20 << 20)\n"
           "for proto in (2, 4, 5):\n"
           "    data = cp.dumps([big, big[:10]], protocol=proto)\n"
           "    out = cp.loads(data)\n"
           "    assert out[0] == big and out[1] == b'z' * 10\n"
           "    out = cp.loads(memoryview(data))\n"
           "    assert out[0] == big\n");
}
