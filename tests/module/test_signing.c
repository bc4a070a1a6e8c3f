/* test_signing.c - signed pickles through the Python API: dumps/dump
 * (sign_key=) write the envelope of doc/FORMAT.md, loads/load
 * (verify_key=) check it before a single opcode runs. The refusals are
 * proved with a pickle that would run os.system('touch MARKER'): altered
 * at any byte, truncated, unsigned, signed with another key or by another
 * CPython, it raises UnpicklingError and MARKER never appears. */
#include "support.h"

TestSuite(signing, .init = cpk_py_start, .fini = cpk_py_stop);

/* KEY, OTHER, the malicious object EVIL (its load touches MARKER), and
 * reseal(env, key, **fields) which rewrites header bytes and signs the
 * result properly with `key` (an honest signer on another CPython). */
#define SETUP                                                                 \
    "import ccloudpickle as cp, pickle, os, io, sys, hmac, hashlib\n"         \
    "import importlib.util, tempfile\n"                                       \
    "KEY = bytes(range(1, 33))\n"                                             \
    "OTHER = bytes(range(2, 34))\n"                                           \
    "D = tempfile.mkdtemp()\n"                                                \
    "MARKER = os.path.join(D, 'MARKER')\n"                                    \
    "class Evil:\n"                                                           \
    "    def __reduce__(self):\n"                                             \
    "        return (os.system, ('touch ' + MARKER,))\n"                      \
    "EVIL = Evil()\n"                                                         \
    "def reseal(env, key, **f):\n"                                            \
    "    n = env[12]\n"                                                       \
    "    b = bytearray(env[:-32])\n"                                          \
    "    off = {'major': 13 + n, 'minor': 14 + n, 'micro': 15 + n,\n"         \
    "           'protocol': 18 + n}\n"                                        \
    "    for k, v in f.items():\n"                                            \
    "        if k == 'magic':\n"                                              \
    "            b[16 + n:18 + n] = v.to_bytes(2, 'big')\n"                   \
    "        else:\n"                                                         \
    "            b[off[k]] = v\n"                                             \
    "    return bytes(b) + hmac.new(key, bytes(b), hashlib.sha256).digest()\n" \
    "def refused(f, fragment=''):\n"                                          \
    "    try:\n"                                                              \
    "        f()\n"                                                           \
    "    except cp.UnpicklingError as e:\n"                                   \
    "        assert fragment in str(e), str(e)\n"                             \
    "        return str(e)\n"                                                 \
    "    raise AssertionError('not refused')\n"

Test(signing, round_trip_every_protocol)
{
    cpk_py(SETUP
           "y = 10\n"
           "f = lambda x: x + y\n"
           "for proto in range(6):\n"
           "    env = cp.dumps(f, protocol=proto, sign_key=KEY)\n"
           "    assert env[:8] == b'\\xcfCPKSIG\\n'\n"
           "    n = env[12]\n"
           "    assert env[18 + n] == proto, (proto, env[18 + n])\n"
           "    assert cp.loads(env, verify_key=KEY)(1) == 11\n"
           "env = cp.dumps([1, 'a', {2: 3}], sign_key=KEY)\n"
           "assert env[18 + env[12]] == 5\n"
           "assert cp.loads(env, verify_key=KEY) == [1, 'a', {2: 3}]\n"
           "env = cp.dumps(f, protocol=-1, sign_key=KEY)\n"
           "assert env[18 + env[12]] == 5\n"
           /* bytearray, memoryview, longer keys and data. */
           "k64 = bytearray(os.urandom(64))\n"
           "env = cp.dumps(f, sign_key=memoryview(k64))\n"
           "assert cp.loads(bytearray(env), verify_key=k64)(2) == 12\n"
           "assert cp.loads(memoryview(env), verify_key=bytes(k64))(2) == 12\n"
           /* compat pickles are signed too. */
           "env = cp.dumps(f, compat='cloudpickle', sign_key=KEY)\n"
           "assert cp.loads(env, verify_key=KEY)(3) == 13\n"
           "assert cp._loads_exact(env, verify_key=KEY)(3) == 13\n");
}

/* The header carries this interpreter's version and bytecode magic, the
 * tool version, the key id; the MAC is HMAC-SHA256 over the rest,
 * checked here with Python's hmac module. */
Test(signing, header_and_mac_as_documented)
{
    cpk_py(SETUP
           "env = cp.dumps(42, protocol=4, sign_key=KEY)\n"
           "n = env[12]\n"
           "assert env[13:13 + n] == cp.__version__.encode()\n"
           "assert int.from_bytes(env[10:12], 'big') == 35 + n\n"
           "v = sys.version_info\n"
           "assert tuple(env[13 + n:16 + n]) == (v.major, v.minor, v.micro)\n"
           "magic = int.from_bytes(importlib.util.MAGIC_NUMBER[:2], 'little')\n"
           "assert int.from_bytes(env[16 + n:18 + n], 'big') == magic\n"
           "kid = hmac.new(KEY, b'ccloudpickle key id', hashlib.sha256)\n"
           "assert env[19 + n:27 + n] == kid.digest()[:8]\n"
           "P = int.from_bytes(env[27 + n:35 + n], 'big')\n"
           "assert P == len(env) - 35 - n - 32\n"
           "assert pickle.loads(env[35 + n:35 + n + P]) == 42\n"
           "mac = hmac.new(KEY, env[:-32], hashlib.sha256).digest()\n"
           "assert env[-32:] == mac\n");
}

/* An envelope built from the documented layout by Python's hmac module
 * loads, and every option of the call (by position or keyword) applies to
 * the pickle inside: here encoding= on a Python 2 str. */
Test(signing, independent_envelope_and_options_forwarded)
{
    cpk_py(SETUP
           "def seal(p, key):\n"
           "    v = sys.version_info\n"
           "    magic = importlib.util.MAGIC_NUMBER[:2][::-1]\n"
           "    kid = hmac.new(key, b'ccloudpickle key id', hashlib.sha256)\n"
           "    tool = b'9.9-test'\n"
           "    head = (b'\\xcfCPKSIG\\n' + b'\\0\\1' +\n"
           "            (35 + len(tool)).to_bytes(2, 'big') + bytes([len(tool)])\n"
           "            + tool + bytes([v.major, v.minor, v.micro]) + magic +\n"
           "            b'\\2' + kid.digest()[:8] + len(p).to_bytes(8, 'big'))\n"
           "    body = head + p\n"
           "    return body + hmac.new(key, body, hashlib.sha256).digest()\n"
           "env = seal(b'\\x80\\x02U\\x01\\xe9.', KEY)\n"
           "assert cp.loads(env, verify_key=KEY, encoding='latin1') == '\\xe9'\n"
           "assert cp.loads(data=env, verify_key=KEY, encoding='bytes') == b'\\xe9'\n"
           "assert cp.load(file=io.BytesIO(env), encoding='latin1',\n"
           "               verify_key=KEY) == '\\xe9'\n"
           "assert cp.load(io.BytesIO(env), verify_key=KEY,\n"
           "               encoding='bytes') == b'\\xe9'\n"
           "assert cp._loads_exact(env, encoding='bytes', verify_key=KEY) == b'\\xe9'\n"
           /* _loads_exact applies to the pickle inside: trailing bytes
            * within P are refused (the MAC is fine). */
           "env2 = seal(b'K\\x07.junk', KEY)\n"
           "assert cp.loads(env2, verify_key=KEY) == 7\n"
           "refused(lambda: cp._loads_exact(env2, verify_key=KEY),\n"
           "        '4 bytes of trailing data after the pickle')\n");
}

/* The control: the intact envelope does run os.system (so MARKER proves
 * something), with the right key. */
Test(signing, intact_evil_envelope_runs)
{
    cpk_py(SETUP
           "env = cp.dumps(EVIL, sign_key=KEY)\n"
           "cp.loads(env, verify_key=KEY)\n"
           "assert os.path.exists(MARKER)\n");
}

Test(signing, every_byte_altered_refused_nothing_runs)
{
    cpk_py(SETUP
           "env = cp.dumps(EVIL, sign_key=KEY)\n"
           "msgs = set()\n"
           "for i in range(len(env)):\n"
           /* the lowest set bit too: lowering any length field gives
            * "trailing data" whatever the length (the temp path's) */
           "    for mask in {0x01, 0x80, env[i] & -env[i]} - {0}:\n"
           "        t = bytearray(env)\n"
           "        t[i] ^= mask\n"
           "        msgs.add(refused(lambda: cp.loads(bytes(t), verify_key=KEY)))\n"
           "        refused(lambda: cp.load(io.BytesIO(t), verify_key=KEY))\n"
           "        assert not os.path.exists(MARKER), (i, mask)\n"
           "text = ' | '.join(sorted(msgs))\n"
           "for frag in ('not a signed pickle', 'signed with another key',\n"
           "             'the signature does not match', 'truncated',\n"
           "             'trailing data', 'format version',\n"
           "             'malformed signed-pickle header'):\n"
           "    assert frag in text, (frag, text)\n");
}

Test(signing, every_truncation_refused_nothing_runs)
{
    cpk_py(SETUP
           "env = cp.dumps(EVIL, sign_key=KEY)\n"
           "for n in range(len(env)):\n"
           "    refused(lambda: cp.loads(env[:n], verify_key=KEY))\n"
           "    refused(lambda: cp.load(io.BytesIO(env[:n]), verify_key=KEY))\n"
           "assert not os.path.exists(MARKER)\n"
           "refused(lambda: cp.loads(env + b'\\0', verify_key=KEY),\n"
           "        'trailing data after the signature')\n"
           "assert not os.path.exists(MARKER)\n");
}

Test(signing, wrong_key_and_unsigned_refused_nothing_runs)
{
    cpk_py(SETUP
           "env = cp.dumps(EVIL, sign_key=KEY)\n"
           "refused(lambda: cp.loads(env, verify_key=OTHER),\n"
           "        'signed with another key')\n"
           "refused(lambda: cp.load(io.BytesIO(env), verify_key=OTHER),\n"
           "        'signed with another key')\n"
           "raw = cp.dumps(EVIL)\n"
           "refused(lambda: cp.loads(raw, verify_key=KEY),\n"
           "        'not a signed pickle (verify_key was given)')\n"
           "refused(lambda: cp.load(io.BytesIO(raw), verify_key=KEY),\n"
           "        'not a signed pickle')\n"
           "refused(lambda: cp._loads_exact(raw, verify_key=KEY),\n"
           "        'not a signed pickle')\n"
           "assert not os.path.exists(MARKER)\n");
}

Test(signing, signed_without_verify_key_refused_nothing_runs)
{
    cpk_py(SETUP
           "env = cp.dumps(EVIL, sign_key=KEY)\n"
           "refused(lambda: cp.loads(env), 'signed pickle: pass verify_key')\n"
           "refused(lambda: cp._loads_exact(env), 'pass verify_key')\n"
           "refused(lambda: cp.loads(bytearray(env)), 'pass verify_key')\n"
           "refused(lambda: cp.load(io.BytesIO(env)),\n"
           "        \"invalid load key, '\\\\xcf': a signed pickle\")\n"
           /* Stock pickle refuses it at its first byte too. */
           "try:\n"
           "    pickle.loads(env)\n"
           "    raise AssertionError('pickle.loads accepted it')\n"
           "except pickle.UnpicklingError as e:\n"
           "    assert 'invalid load key' in str(e), e\n"
           "assert not os.path.exists(MARKER)\n");
}

Test(signing, other_python_version_refused_naming_both)
{
    cpk_py(SETUP
           "env = cp.dumps(EVIL, sign_key=KEY)\n"
           "v = sys.version_info\n"
           "magic = int.from_bytes(importlib.util.MAGIC_NUMBER[:2], 'little')\n"
           "this = f'this is Python {v.major}.{v.minor} ({magic})'\n"
           "e = reseal(env, KEY, minor=v.minor + 1)\n"
           "refused(lambda: cp.loads(e, verify_key=KEY),\n"
           "        f'signed by Python {v.major}.{v.minor + 1} '\n"
           "        f'(bytecode magic {magic}); ' + this)\n"
           "e = reseal(env, KEY, magic=magic + 1)\n"
           "refused(lambda: cp.load(io.BytesIO(e), verify_key=KEY),\n"
           "        f'signed by Python {v.major}.{v.minor} '\n"
           "        f'(bytecode magic {magic + 1}); ' + this)\n"
           "e = reseal(env, KEY, major=2)\n"
           "refused(lambda: cp.loads(e, verify_key=KEY), 'signed by Python 2.')\n"
           "assert not os.path.exists(MARKER)\n"
           /* The version is checked after the MAC: a forged version
            * without the key is just an altered file. */
           "e = reseal(env, OTHER, minor=v.minor + 1)\n"
           "refused(lambda: cp.loads(e, verify_key=KEY),\n"
           "        'the signature does not match')\n"
           "assert not os.path.exists(MARKER)\n"
           /* Another micro version is the same CPython. */
           "e = reseal(cp.dumps(7, sign_key=KEY), KEY, micro=(v.micro + 1) % 256)\n"
           "assert cp.loads(e, verify_key=KEY) == 7\n");
}

Test(signing, keys_must_be_bytes_of_32_or_more)
{
    cpk_py(SETUP);
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
    cpk_py(SETUP);
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
    cpk_py(SETUP
           "b = io.BytesIO()\n"
           "cp.dump([1, 2], b, sign_key=KEY)\n"
           "cp.dump(lambda: 3, b, protocol=2, sign_key=KEY)\n"
           "b.write(b'tail')\n"
           "b.seek(0)\n"
           "assert cp.load(b, verify_key=KEY) == [1, 2]\n"
           "assert cp.load(b, verify_key=KEY)() == 3\n"
           "assert b.read() == b'tail'\n"
           "class Trickle:\n"
           "    def __init__(self, data):\n"
           "        self.b = io.BytesIO(data)\n"
           "        self.sizes = []\n"
           "    def read(self, n):\n"
           "        self.sizes.append(n)\n"
           "        return self.b.read(min(n, 3))\n"
           "env = cp.dumps({'k': 'v' * 100}, sign_key=KEY)\n"
           "t = Trickle(env + b'more')\n"
           "assert cp.load(t, verify_key=KEY) == {'k': 'v' * 100}\n"
           "assert t.b.read() == b'more'\n"
           /* Never asked for more than the header says remains. */
           "assert sum(min(n, 3) for n in t.sizes) == len(env), t.sizes\n"
           /* A header claiming a huge pickle: refused as truncated, with
            * reads bounded by what the file holds. */
           "n = env[12]\n"
           "big = env[:27 + n] + (2**62).to_bytes(8, 'big') + env[35 + n:]\n"
           "refused(lambda: cp.load(io.BytesIO(big), verify_key=KEY),\n"
           "        'truncated')\n"
           "refused(lambda: cp.load(io.BytesIO(b''), verify_key=KEY),\n"
           "        'empty input')\n"
           "class Liar:\n"
           "    def read(self, n):\n"
           "        return b'x' * (n + 1)\n"
           "try:\n"
           "    cp.load(Liar(), verify_key=KEY)\n"
           "    raise AssertionError('accepted')\n"
           "except ValueError as e:\n"
           "    assert 'more than' in str(e), e\n");
}

/* dump(sign_key=) makes the envelope in memory: one write, or none when
 * pickling fails. */
Test(signing, dump_writes_once_or_not_at_all)
{
    cpk_py(SETUP
           "import threading\n"
           "class Counting:\n"
           "    def __init__(self):\n"
           "        self.writes = []\n"
           "    def write(self, b):\n"
           "        self.writes.append(bytes(b))\n"
           "f = Counting()\n"
           "cp.dump(lambda: 1, f, sign_key=KEY)\n"
           "assert len(f.writes) == 1\n"
           "assert cp.loads(f.writes[0], verify_key=KEY)() == 1\n"
           "f = Counting()\n"
           "try:\n"
           "    cp.dump(threading.local(), f, sign_key=KEY)\n"
           "    raise AssertionError('pickled a lock')\n"
           "except TypeError:\n"
           "    pass\n"
           "assert f.writes == []\n");
}

Test(signing, docstrings_name_the_keys)
{
    cpk_py("import ccloudpickle as cp, inspect\n"
           "for f, k in ((cp.dumps, 'sign_key'), (cp.dump, 'sign_key'),\n"
           "             (cp.loads, 'verify_key'), (cp.load, 'verify_key')):\n"
           "    p = inspect.signature(f).parameters[k]\n"
           "    assert p.default is None and p.kind == p.KEYWORD_ONLY, (f, p)\n"
           "    assert k in f.__doc__, f\n"
           "assert 'UnpicklingError' in cp.loads.__doc__\n"
           "assert 'buffer_callback' in cp.dumps.__doc__\n");
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
    cpk_python(&p,
               "import sys, ccloudpickle as cp\n"
               "env = sys.stdin.buffer.read()\n"
               "assert cp.loads(env, verify_key=bytes(range(1, 33)))['a']() "
               "== 5\n"
               "try:\n"
               "    cp.loads(env, verify_key=bytes(range(2, 34)))\n"
               "    sys.exit('accepted with another key')\n"
               "except cp.UnpicklingError:\n"
               "    pass\n",
               env, len);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    free(env);
}
