/* test_cov_dump_args.c - dumps()/dump() arguments that cannot work
 * together or cannot be read: a signature with out-of-band buffers (they
 * would travel unsigned), a key that is no key, a format no release
 * wrote, a diagnose or portable flag whose truth raises; and a signed
 * dump to a file whose write() fails, which writes nothing else. */
#include "support.h"

TestSuite(cov_dump_args, .init = cpk_py_start, .fini = cpk_py_stop);

#define KEY "import ccloudpickle as cp, io\nkey = b'k' * 32\n"

Test(cov_dump_args, signing_with_out_of_band_buffers)
{
    cpk_py(KEY
           "seen = []\n"
           "try:\n"
           "    cp.dumps([1], sign_key=key, buffer_callback=seen.append)\n"
           "except ValueError as e:\n"
           "    assert str(e) == 'sign_key cannot be combined with '\\\n"
           "        'buffer_callback: out-of-band buffers would not be '\\\n"
           "        'signed', e\n"
           "else:\n"
           "    raise AssertionError('signed with buffers')\n"
           "assert seen == []\n");
}

Test(cov_dump_args, sign_key_not_bytes)
{
    cpk_py_raises(KEY "cp.dumps([1], sign_key=5)\n", "TypeError",
                  "sign_key must be a bytes-like object, not int");
}

Test(cov_dump_args, dump_format_out_of_range)
{
    cpk_py_raises(KEY "f = io.BytesIO()\n"
                      "try:\n"
                      "    cp.dump([1], f, format=99)\n"
                      "finally:\n"
                      "    assert f.getvalue() == b''\n",
                  "ValueError", "format must be 1 to 5");
}

Test(cov_dump_args, flag_truth_errors_propagate)
{
    cpk_py("import ccloudpickle as cp, io\n"
           "class Flag:\n"
           "    def __bool__(self):\n"
           "        raise RuntimeError('true or false?')\n"
           "for kw in ('diagnose', 'portable'):\n"
           "    f = io.BytesIO()\n"
           "    try:\n"
           "        cp.dump([1], f, **{kw: Flag()})\n"
           "    except RuntimeError as e:\n"
           "        assert str(e) == 'true or false?', e\n"
           "    else:\n"
           "        raise AssertionError(kw)\n"
           "    assert f.getvalue() == b''\n");
}

Test(cov_dump_args, signed_dump_write_error)
{
    cpk_py(KEY
           "class Full:\n"
           "    calls = 0\n"
           "    def write(self, b):\n"
           "        Full.calls += 1\n"
           "        raise OSError('disk full')\n"
           "try:\n"
           "    cp.dump({'a': 1}, Full(), sign_key=key)\n"
           "except OSError as e:\n"
           "    assert str(e) == 'disk full', e\n"
           "else:\n"
           "    raise AssertionError('written')\n"
           "# One write, of the whole envelope.\n"
           "assert Full.calls == 1\n");
}
