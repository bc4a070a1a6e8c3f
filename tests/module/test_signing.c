/* test_signing.c - signed pickles through the Python API: dumps/dump
 * (sign_key=) write the envelope of doc/FORMAT.md, loads/load
 * (verify_key=) check it before a single opcode runs. The refusals are
 * proved with a pickle that would run os.system('touch MARKER'): altered
 * at any byte, truncated, unsigned, signed with another key or by another
 * CPython, it raises UnpicklingError and MARKER never appears. */
#include "support.h"

TestSuite(signing, .init = cpk_py_start, .fini = cpk_py_stop);

Test(signing, round_trip_every_protocol)
{
    cpk_py_file("_setup.py", "round_trip_every_protocol.py");
}

/* The header carries this interpreter's version and bytecode magic, the
 * tool version, the key id; the MAC is HMAC-SHA256 over the rest,
 * checked here with Python's hmac module. */
Test(signing, header_and_mac_as_documented)
{
    cpk_py_file("_setup.py", "header_and_mac_as_documented.py");
}

/* An envelope built from the documented layout by Python's hmac module
 * loads, and every option of the call (by position or keyword) applies to
 * the pickle inside: here encoding= on a Python 2 str. */
Test(signing, independent_envelope_and_options_forwarded)
{
    cpk_py_file("_setup.py", "independent_envelope_and_options_forwarded.py");
}

/* The control: the intact envelope does run os.system (so MARKER proves
 * something), with the right key. */
Test(signing, intact_evil_envelope_runs)
{
    cpk_py_file("_setup.py", "intact_evil_envelope_runs.py");
}

Test(signing, every_byte_altered_refused_nothing_runs)
{
    cpk_py_file("_setup.py", "every_byte_altered_refused_nothing_runs.py");
}

Test(signing, every_truncation_refused_nothing_runs)
{
    cpk_py_file("_setup.py", "every_truncation_refused_nothing_runs.py");
}

Test(signing, wrong_key_and_unsigned_refused_nothing_runs)
{
    cpk_py_file("_setup.py", "wrong_key_and_unsigned_refused_nothing_runs.py");
}

Test(signing, signed_without_verify_key_refused_nothing_runs)
{
    cpk_py_file("_setup.py",
                "signed_without_verify_key_refused_nothing_runs.py");
}

Test(signing, other_python_version_refused_naming_both)
{
    cpk_py_file("_setup.py", "other_python_version_refused_naming_both.py");
}

Test(signing, keys_must_be_bytes_of_32_or_more)
{
    cpk_py_file("_setup.py");
    cpk_py_raises("cp.dumps(1, sign_key=b'x' * 31)", "ValueError",
                  "sign_key is too short: 31 bytes");
    cpk_py_raises("cp.dumps(1, sign_key=b'')", "ValueError", "at least 32");
    cpk_py_raises("cp.dumps(1, sign_key='k' * 40)", "TypeError",
                  "sign_key must be a bytes-like object, not str");
    cpk_py_raises("cp.dumps(1, sign_key=12345)", "TypeError",
                  "bytes-like object, not int");
    cpk_py_raises("cp.loads(cp.dumps(1, sign_key=KEY), verify_key=KEY[:31])",
                  "ValueError", "verify_key is too short");
    cpk_py_raises("cp.loads(cp.dumps(1, sign_key=KEY), verify_key='k' * 40)",
                  "TypeError", "verify_key must be a bytes-like object");
    cpk_py_raises("cp.load(io.BytesIO(cp.dumps(1, sign_key=KEY)), "
                  "verify_key=KEY[:31])",
                  "ValueError", "verify_key is too short");
    cpk_py_raises("cp.dump(1, io.BytesIO(), sign_key=b'short')", "ValueError",
                  "sign_key is too short");
}

/* Out-of-band buffers would travel unsigned: refused on both sides. */
Test(signing, buffers_refused)
{
    cpk_py_file("_setup.py");
    cpk_py_raises("cp.dumps(pickle.PickleBuffer(b'abc'), protocol=5, "
                  "buffer_callback=list().append, sign_key=KEY)",
                  "ValueError",
                  "sign_key cannot be combined with buffer_callback");
    cpk_py_raises("cp.loads(cp.dumps(1, sign_key=KEY), verify_key=KEY, "
                  "buffers=[])",
                  "ValueError", "verify_key cannot be combined with buffers");
    cpk_py_raises("cp.load(io.BytesIO(cp.dumps(1, sign_key=KEY)), "
                  "verify_key=KEY, buffers=[])",
                  "ValueError", "verify_key cannot be combined with buffers");
    /* buffer_callback=None is no callback. */
    cpk_py("assert cp.loads(cp.dumps(5, buffer_callback=None, sign_key=KEY),"
           " verify_key=KEY) == 5\n");
}

/* load reads exactly one envelope, with as many read() calls as the file
 * needs, and leaves what follows. */
Test(signing, load_reads_exactly_one_envelope)
{
    cpk_py_file("_setup.py", "load_reads_exactly_one_envelope.py");
}

/* dump(sign_key=) makes the envelope in memory: one write, or none when
 * pickling fails. */
Test(signing, dump_writes_once_or_not_at_all)
{
    cpk_py_file("_setup.py", "dump_writes_once_or_not_at_all.py");
}

Test(signing, docstrings_name_the_keys)
{
    cpk_py_file("docstrings_name_the_keys.py");
}

/* Signed here, verified and loaded by a fresh interpreter with the same
 * key; refused there without it. */
Test(signing, fresh_interpreter_verifies)
{
    size_t len;
    char *env = cpk_py_bytes("__import__('ccloudpickle').dumps("
                             "{'a': (lambda: 5)}, sign_key=bytes(range(1, 33)))",
                             &len);
    cpk_proc p;
    cpk_python(&p, cpk_py_text("fresh_interpreter_verifies.py"), env, len);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    free(env);
}
