/* test_signing_shared.c - loads(data, verify_key=) on memory another
 * process can write (a shared mmap): what is verified must be what is
 * loaded. The envelope is copied once, then verified and unpacked from
 * the copy; without the copy the MAC was computed over one read of the
 * shared bytes and the pickle copied from a second. A child process
 * flips one byte of the pickle as fast as it can while the parent loads:
 * every load must give the signed object or be refused, never the
 * altered one. (A race: on one idle core it may miss the defect, it
 * can never fail a correct build.) The signature tests proper are
 * tests/module/test_signing.c. */
#include "support.h"

TestSuite(signing_shared, .init = cpk_py_start, .fini = cpk_py_stop);

Test(signing_shared, shared_mapping_verified_bytes_are_loaded,
     .timeout = 120)
{
    cpk_py("import ccloudpickle as cp, mmap, os, time, signal\n"
           "key = bytes(range(1, 33))\n"
           /* big enough that a load spans scheduler slices, so both
            * processes run at once on a busy machine */
           "obj = b'A' * (1 << 24)\n"
           "env = cp.dumps(obj, sign_key=key)\n"
           "mm = mmap.mmap(-1, len(env))\n"
           "mm[:] = env\n"
           "i = env.rindex(b'A')\n"
           "pid = os.fork()\n"
           "if pid == 0:\n"
           "    try:\n"
           "        end = time.monotonic() + 60\n"
           "        while time.monotonic() < end:\n"
           "            for _ in range(1000):\n"
           "                mm[i] = 66\n"
           "                mm[i] = 65\n"
           "    finally:\n"
           "        os._exit(0)\n"
           "loaded = refused = 0\n"
           "t0 = time.monotonic()\n"
           "try:\n"
           "    while loaded + refused < 40 and (\n"
           "            loaded + refused < 4 or time.monotonic() - t0 < 4):\n"
           "        try:\n"
           "            r = cp.loads(mm, verify_key=key)\n"
           "        except cp.SignatureError:\n"
           "            refused += 1\n"
           "            continue\n"
           "        assert r == obj, 'an altered pickle passed verification'\n"
           "        loaded += 1\n"
           "finally:\n"
           "    os.kill(pid, signal.SIGKILL)\n"
           "    os.waitpid(pid, 0)\n"
           /* the same envelope, unshared, loads */
           "mm[i] = 65\n"
           "assert cp.loads(mm, verify_key=key) == obj\n"
           "assert cp.loads(bytearray(env), verify_key=key) == obj\n"
           "assert cp.loads(memoryview(env), verify_key=key) == obj\n");
}

/* load(file, verify_key=) with a header that claims far more than the
 * file holds (doc/FORMAT.md, "Reading from a stream"): reads of at most
 * 1 MiB until end of file, memory bounded by what was received, then a
 * SignatureError for the truncation; nothing is loaded. */
Test(signing_shared, claimed_length_is_not_trusted)
{
    cpk_py("import ccloudpickle as cp, io\n"
           "key = bytes(range(1, 33))\n"
           "env = bytearray(cp.dumps(1, sign_key=key))\n"
           "h = env[10] << 8 | env[11]\n"
           "env[h - 8:h] = (1 << 62).to_bytes(8, 'big')\n"
           "data = bytes(env) + b'x' * (3 << 20)\n"
           "class F(io.BytesIO):\n"
           "    sizes = []\n"
           "    def read(self, n=-1):\n"
           "        self.sizes.append(n)\n"
           "        return super().read(n)\n"
           "f = F(data)\n"
           "try:\n"
           "    cp.load(f, verify_key=key)\n"
           "except cp.SignatureError as e:\n"
           "    assert 'truncated' in str(e), str(e)\n"
           "else:\n"
           "    raise AssertionError('loaded')\n"
           "assert all(0 < n <= 1 << 20 for n in F.sizes), F.sizes\n"
           "assert f.tell() == len(data)\n");
}
