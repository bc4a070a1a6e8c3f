/* test_policy_bypass.c - ways around loads/load(allow=, deny=) that the
 * hostile review of issue 8 found, each refused now: reflective imports
 * and nested unpicklers under a deny list (importlib, a computed getattr,
 * operator.attrgetter, pickle.loads, `import os as _os` aliases), a
 * fix_imports whose truth changes between the scan and the load, a
 * load(file) that ran before finding it could not seek back, terminal
 * escapes from the pickle in the refusal message, and the exception class
 * of the module's own refusals (PolicyError, SignatureError). The rules
 * themselves are tests/unit/test_policy.c; the API, tests/module/test_load_policy.c. */
#include "support.h"

TestSuite(policy_bypass, .init = cpk_py_start, .fini = cpk_py_stop);

/* marker/exists(); G/S/SG/call1 build hand-written pickles (GLOBAL,
 * BINUNICODE, STACK_GLOBAL, a call with a tuple of arguments); touch is
 * the string argument of a command that creates the marker;
 * refused(data, fragment, **kw) asserts a PolicyError before anything
 * ran. */
#define SETUP                                                                \
    "import ccloudpickle as cp, pickle, os, tempfile\n"                      \
    "marker = os.path.join(tempfile.mkdtemp(), 'marker')\n"                  \
    "def exists():\n"                                                        \
    "    return os.path.exists(marker)\n"                                    \
    "def G(m, n): return b'c' + m.encode() + b'\\n' + n.encode() + b'\\n'\n" \
    "def S(s):\n"                                                            \
    "    b = s.encode('utf-8', 'surrogatepass')\n"                           \
    "    return b'X' + len(b).to_bytes(4, 'little') + b\n"                   \
    "def SG(m, n): return S(m) + S(n) + b'\\x93'\n"                          \
    "def call1(fn, *args): return fn + b'(' + b''.join(args) + b'tR'\n"     \
    "touch = S('touch ' + marker)\n"                                         \
    "def refused(data, fragment, **kw):\n"                                   \
    "    try:\n"                                                             \
    "        cp.loads(data, **kw)\n"                                         \
    "    except cp.PolicyError as e:\n"                                      \
    "        assert fragment in str(e), (fragment, str(e))\n"                \
    "        assert not exists(), 'the refused pickle ran'\n"                \
    "        return str(e)\n"                                                \
    "    raise AssertionError('not refused: %r' % (kw,))\n"

/* Deny lists name modules; these reach os.system without naming it. */
Test(policy_bypass, reflection_and_nested_unpicklers_refused_by_deny_lists)
{
    cpk_py(SETUP
           "ga = G('builtins', 'getattr')\n"
           "def P(body, proto=2): return bytes([0x80, proto]) + body + b'.'\n"
           /* importlib.import_module('os').system(...) */
           "im = P(call1(call1(ga, call1(G('importlib', 'import_module'),\n"
           "                              S('os')), S('system')), touch))\n"
           /* attrgetter('system')(import_module('os'))(...) */
           "ag = P(call1(call1(call1(G('operator', 'attrgetter'),\n"
           "     S('system')), call1(G('importlib', 'import_module'),\n"
           "     S('os'))), touch))\n"
           /* getattr(__import__('os'), ''.join(['sys', 'tem']))(...) */
           "name = call1(call1(ga, S(''), S('join')),\n"
           "             b'(' + S('sys') + S('tem') + b'l')\n"
           "dyn = P(call1(call1(ga, call1(G('builtins', '__import__'),\n"
           "                               S('os')), name), touch))\n"
           /* pickle.loads / _pickle.loads of an inner pickle */
           "inner = b'cos\\nsystem\\n(X' + touch[1:] + b'tR.'\n"
           "def B(b): return b'C' + bytes([len(b)]) + b\n"
           "nest = {m: P(call1(G(m, 'loads'), B(inner)), 3)\n"
           "        for m in ('pickle', '_pickle')}\n"
           /* `import os as _os` in tempfile, protocol 4 */
           "alias = P(call1(SG('tempfile', '_os.system'), touch), 4)\n"
           "cases = [(im, 'importlib.import_module'),\n"
           "         (ag, 'operator.attrgetter'),\n"
           "         (dyn, 'builtins.getattr'),\n"
           "         (nest['pickle'], 'pickle.loads'),\n"
           "         (nest['_pickle'], '_pickle.loads'),\n"
           "         (alias, 'tempfile._os.system')]\n"
           "for data, what in cases:\n"
           "    for deny in (['os', 'posix'], ['os', 'posix', 'subprocess',\n"
           "                 'builtins.eval'], ['nothing_here']):\n"
           "        refused(data, what, deny=deny)\n"
           "    refused(data, what, allow=['*'])\n"
           "    refused(data, what, allow=['*'], deny=['os', 'posix'])\n"
           /* the pickles are live: without a policy they run */
           "for data, what in cases:\n"
           "    cp.loads(data)\n"
           "    assert exists(), what\n"
           "    os.unlink(marker)\n"
           /* an allow rule naming them lets them through */
           "cp.loads(im, allow=['importlib.import_module', 'builtins',\n"
           "                    'posix.system'])\n"
           "assert exists()\n"
           "os.unlink(marker)\n"
           "cp.loads(alias, allow=['tempfile'])\n"
           "assert exists()\n");
}

/* fix_imports is read once: the scan and the load map names alike. */
Test(policy_bypass, fix_imports_evaluated_once)
{
    cpk_py(SETUP
           "class Flip:\n"
           "    n = 0\n"
           "    def __bool__(self):\n"
           "        Flip.n += 1\n"
           "        return Flip.n > 1\n"
           "d = b'\\x80\\x02' + call1(G('__builtin__', 'eval'),\n"
           "    S('__import__(\"os\").system(\"touch %s\") or 5' % marker))"
           " + b'.'\n"
           "refused(d, 'builtins.eval', deny=['builtins'])\n"
           /* False for the scan (unmapped __builtin__.set, not denied),
            * True for a second look (builtins.set, denied) */
           "d2 = b'\\x80\\x02' + G('__builtin__', 'set') + b')\\x85R.'\n"
           "try:\n"
           "    r = cp.loads(d2, deny=['builtins.set'], fix_imports=Flip())\n"
           "except ImportError as e:\n"
           "    r = e\n"
           "assert Flip.n == 1 and isinstance(r, ImportError), (Flip.n, r)\n"
           "Flip.n = 0\n"
           "f = Flip()\n"
           "try:\n"
           "    r = cp.loads(d, deny=['builtins'], fix_imports=f)\n"
           "except (pickle.UnpicklingError, ImportError) as e:\n"
           "    r = e\n"
           "assert not exists(), 'the scan and the load disagreed'\n"
           "assert Flip.n == 1, Flip.n\n"
           "assert isinstance(r, (pickle.UnpicklingError, ImportError)), r\n"
           /* and the same through load(file) */
           "import io\n"
           "Flip.n = 0\n"
           "try:\n"
           "    r = cp.load(io.BytesIO(d), deny=['builtins'], fix_imports=f)\n"
           "except (pickle.UnpicklingError, ImportError) as e:\n"
           "    r = e\n"
           "assert not exists() and Flip.n == 1, Flip.n\n"
           /* an honest False: the names stay unmapped in both passes */
           "try:\n"
           "    cp.loads(d2, allow=['__builtin__'], fix_imports=False)\n"
           "except ImportError:\n"
           "    pass\n"
           "else:\n"
           "    raise AssertionError('__builtin__ imported')\n"
           "assert cp.loads(d2, allow=[], fix_imports=True) == set()\n");
}

/* load(file, allow=) with data after the pickle: a file that cannot be
 * put back after the pickle is refused before the pickle runs. */
Test(policy_bypass, load_file_seek_decided_before_loading)
{
    cpk_py(SETUP
           "import io\n"
           "evil = b'\\x80\\x02' + call1(G('os', 'system'), touch) + b'.'\n"
           "class NoSeek(io.BytesIO):\n"
           "    def seek(self, *a):\n"
           "        raise OSError('no seeking here')\n"
           "class StrTell(io.BytesIO):\n"
           "    def tell(self):\n"
           "        return 'zero'\n"
           "for cls, exc in ((NoSeek, OSError),\n"
           "                 (StrTell, pickle.UnpicklingError)):\n"
           "    f = cls(evil + b'next')\n"
           "    try:\n"
           "        cp.load(f, allow=['os.system'])\n"
           "    except exc as e:\n"
           "        pass\n"
           "    else:\n"
           "        raise AssertionError(cls)\n"
           "    assert not exists(), cls.__name__ + ': loaded, then failed'\n"
           /* nothing after the pickle: no seek needed, the load runs */
           "cp.load(NoSeek(evil), allow=['os.system'])\n"
           "assert exists()\n"
           "os.unlink(marker)\n"
           /* a plain file is left just after the pickle */
           "f = io.BytesIO(b'xx' + evil + b'next')\n"
           "f.seek(2)\n"
           "cp.load(f, allow=['os.system'])\n"
           "assert exists() and f.read() == b'next'\n");
}

/* The refusal lists the pickle's names; those that would act on a
 * terminal are shown as ascii(). */
Test(policy_bypass, refusal_message_escapes_control_and_bidi)
{
    cpk_py(SETUP
           "import unicodedata\n"
           "bad = ['\\x1b]0;owned\\x07\\x1b[2J', 'x\\u202ey', 'a\\u061cb',\n"
           "       'a\\u2066b', 'a\\u200fb', 'a\\x00b', 'a\\u2028b',\n"
           "       'a\\x85b']\n"
           "for m in bad:\n"
           "    d = b'\\x80\\x04' + SG(m, 'f') + b'.'\n"
           "    msg = refused(d, 'import policy refuses 1 import: ',\n"
           "                  allow=[])\n"
           "    text = msg.split(': ', 1)[1]\n"
           "    assert text.isprintable() and text.isascii(), repr(msg)\n"
           "    assert ascii(m + '.f') in text, (m, msg)\n"
           /* printable names are shown as they are, non-ASCII included */
           "d = b'\\x80\\x04' + SG('m\\u00f3dulo', 'f') + b'.'\n"
           "refused(d, ': m\\u00f3dulo.f (byte ', allow=[])\n");
}

/* The module's refusals have their own classes, both UnpicklingErrors;
 * nothing else raises them. */
Test(policy_bypass, policy_and_signature_errors_have_their_own_classes)
{
    cpk_py(SETUP
           "assert issubclass(cp.PolicyError, pickle.UnpicklingError)\n"
           "assert issubclass(cp.SignatureError, pickle.UnpicklingError)\n"
           "assert cp.PolicyError.__module__ == 'ccloudpickle'\n"
           "assert cp.PolicyError.__doc__ and cp.SignatureError.__doc__\n"
           "evil = b'\\x80\\x02' + call1(G('os', 'system'), touch) + b'.'\n"
           "refused(evil, 'os.system', allow=[])\n"
           /* a malformed pickle is no policy matter */
           "try:\n"
           "    cp.loads(b'\\x80\\x02(', allow=[])\n"
           "except pickle.UnpicklingError as e:\n"
           "    assert not isinstance(e, (cp.PolicyError, cp.SignatureError))\n"
           "else:\n"
           "    raise AssertionError('truncated pickle loaded')\n"
           /* signature refusals */
           "key = bytes(range(32))\n"
           "env = cp.dumps(1, sign_key=key)\n"
           "for f in (lambda: cp.loads(env[:-1], verify_key=key),\n"
           "          lambda: cp.loads(b'\\x80\\x04K\\x01.', verify_key=key),\n"
           "          lambda: cp.loads(env, verify_key=bytes(32)),\n"
           "          lambda: cp.loads(env),\n"
           "          lambda: cp.load(__import__('io').BytesIO(env)),\n"
           "          lambda: cp.load(__import__('io').BytesIO(b''),\n"
           "                          verify_key=key)):\n"
           "    try:\n"
           "        f()\n"
           "    except cp.SignatureError:\n"
           "        pass\n"
           "    else:\n"
           "        raise AssertionError('not refused')\n"
           "assert cp.loads(env, verify_key=key) == 1\n");
}

/* The reconstructors that import or look up what their argument names,
 * given a name the pickle computes at load time (str("os"), a join):
 * the scan cannot list that import, so it calls the reconstructor
 * dangerous and every policy refuses the pickle, allow=[] as deny=.
 * _builtin_type(str("CodeType")) and (str("FunctionType")) made and ran
 * a function under allow=[] and `cloudpickle-load --strict` before. The
 * same calls with a plain str still load. */
Test(policy_bypass, names_computed_for_name_taking_reconstructors)
{
    cpk_py(SETUP
           "import sys, types\n"
           "class R:\n"
           "    def __init__(s, f, a): s.f, s.a = f, a\n"
           "    def __reduce__(s): return (s.f, s.a)\n"
           "    def __call__(s, *a): pass\n"
           "def evil():\n"
           "    open(marker, 'w').close()\n"
           "c = evil.__code__\n"
           "def BT(n): return R(cp._builtin_type, (R(str, (n,)),))\n"
           "code = R(BT('CodeType'), (c.co_argcount, c.co_posonlyargcount,\n"
           "    c.co_kwonlyargcount, c.co_nlocals, c.co_stacksize,\n"
           "    c.co_flags, c.co_code, c.co_consts, c.co_names,\n"
           "    c.co_varnames, c.co_filename, c.co_name)\n"
           "    + ((c.co_qualname,) if sys.version_info >= (3, 11) else ())\n"
           "    + (c.co_firstlineno,\n"
           "       c.co_linetable if sys.version_info >= (3, 10)\n"
           "       else c.co_lnotab)\n"
           "    + ((c.co_exceptiontable,) if sys.version_info >= (3, 11)\n"
           "       else ()) + (c.co_freevars, c.co_cellvars))\n"
           "run = cp.dumps(R(R(BT('FunctionType'),\n"
           "                   (code, {'open': open, 'marker': marker})), ()))\n"
           "imp = cp.dumps(R(cp.subimport, (R(''.join, (['wa', 've'],)),)))\n"
           "for data, name in ((run, 'ccloudpickle._builtin_type'),\n"
           "                   (imp, 'ccloudpickle.subimport')):\n"
           "    for kw in ({'allow': []}, {'allow': ['math']},\n"
           "               {'deny': ['os']}):\n"
           "        refused(data, name, **kw)\n"
           "sys.modules.pop('wave', None)\n"
           "refused(imp, 'subimport', allow=['wave'])\n"
           "assert 'wave' not in sys.modules\n"
           "ok = cp.dumps([R(cp.subimport, ('math',)),\n"
           "               R(cp._builtin_type, ('CodeType',))])\n"
           "import math\n"
           "assert cp.loads(ok, allow=['math']) == [math, types.CodeType]\n"
           "assert cp.loads(ok, deny=['os']) == [math, types.CodeType]\n"
           "cp.loads(run)\n"
           "assert exists(), 'the pickle does not run without a policy'\n");
}
