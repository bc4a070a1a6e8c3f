/* test_policy_hooks.c - code carried by value that the load would run
 * through a hook rather than a call the pickle writes, and names looked
 * up through what the scan took for plain lookups; each refused by every
 * import policy (allow=[], an allow list, a deny list) before anything
 * runs, found by the second hostile review of the policy:
 * BUILD's __setstate__ and APPENDS' extend set on an instance by an
 * earlier BUILD, a class base's __mro_entries__, _class_setstate's
 * `register`, getattr on a class by value reaching an imported base's
 * methods (pathlib's write_text), a codec named by the pickle (imports
 * encodings.<name>), pydoc.locate under a deny list. And the other side:
 * what ordinary pickles hold there still loads. */
#include "support.h"

TestSuite(policy_hooks, .init = cpk_py_start, .fini = cpk_py_stop);

/* A small opcode assembler (protocol 4), a function carried by value
 * that creates the marker, and refused(data, **kw): PolicyError under
 * every policy, the marker never created. */
#define SETUP                                                                \
    "import ccloudpickle as cp, os, struct, sys, tempfile, marshal\n"       \
    "import importlib.util, pickle, types\n"                                 \
    "marker = os.path.join(tempfile.mkdtemp(), 'marker')\n"                  \
    "def s(x):\n"                                                            \
    "    b = x.encode()\n"                                                   \
    "    return b'X' + struct.pack('<I', len(b)) + b\n"                      \
    "def g(m, n): return s(m) + s(n) + b'\\x93'\n"                          \
    "def i(n): return b'J' + struct.pack('<i', n)\n"                         \
    "PROTO, STOP, R, B = b'\\x80\\x04', b'.', b'R', b'b'\n"                 \
    "ns = {'marker': marker}\n"                                              \
    "exec('def evil(*a):\\n    open(marker, \"w\").close()\\n', ns)\n"      \
    "code = ns['evil'].__code__\n"                                           \
    "ver = '%d.%d' % sys.version_info[:2]\n"                                 \
    "magic = int.from_bytes(importlib.util.MAGIC_NUMBER, 'little')\n"        \
    "blob = marshal.dumps(code)\n"                                           \
    "FN = (g('ccloudpickle', '_function_new') +\n"                           \
    "      g('ccloudpickle', '_code_unmarshal') + s(ver) + i(magic) +\n"     \
    "      b'B' + struct.pack('<I', len(blob)) + blob + b'\\x87' + R +\n"   \
    "      b'}' + s('marker') + s(marker) + b's' + b'N' + b'\\x87' + R)\n"  \
    "POLICIES = ({'allow': []}, {'allow': ['math']},\n"                      \
    "            {'deny': ['os', 'subprocess']})\n"                          \
    "def refused(data, what):\n"                                             \
    "    for kw in POLICIES:\n"                                              \
    "        try:\n"                                                         \
    "            cp.loads(data, **kw)\n"                                     \
    "        except cp.PolicyError:\n"                                       \
    "            pass\n"                                                     \
    "        else:\n"                                                        \
    "            raise AssertionError('not refused: %s %r' % (what, kw))\n" \
    "        assert not os.path.exists(marker), (what, kw)\n"

/* _pickle's BUILD calls inst.__setstate__, APPENDS inst.extend: instance
 * attributes, which an earlier BUILD sets. One BUILD giving an object a
 * function (a callback attribute) is no call and still loads. */
Test(policy_hooks, build_sets_what_the_next_op_calls)
{
    cpk_py(SETUP
           "NS = g('types', 'SimpleNamespace') + b')' + R\n"
           "def attr(name): return b'}' + s(name) + FN + b's' + B\n"
           "refused(PROTO + NS + attr('__setstate__') + i(0) + B + STOP,\n"
           "        'BUILD __setstate__')\n"
           "refused(PROTO + NS + attr('extend') + b'(' + i(1) + b'e' + STOP,\n"
           "        'APPENDS extend')\n"
           "one = PROTO + NS + attr('callback') + STOP\n"
           "for kw in POLICIES:\n"
           "    o = cp.loads(one, **kw)\n"
           "    assert callable(o.callback)\n"
           "assert not os.path.exists(marker)\n");
}

/* types.resolve_bases calls a base's __mro_entries__, an instance's too:
 * refused by the scan, and the reconstructor takes classes, objects
 * whose type has the method, and functions (typing.NamedTuple) only. */
Test(policy_hooks, class_bases_mro_entries)
{
    cpk_py(SETUP
           "NS = (g('types', 'SimpleNamespace') + b')' + R + b'}' +\n"
           "      s('__mro_entries__') + FN + b's' + B)\n"
           "data = (PROTO + g('ccloudpickle', '_make_skeleton_class') +\n"
           "        b'(' + g('builtins', 'type') + s('X') + NS + b'\\x85' +\n"
           "        b'}' + b'N' + b'N' + b't' + R + STOP)\n"
           "refused(data, '__mro_entries__')\n"
           "try:\n"
           "    cp.loads(data)\n"
           "except cp.ReconstructorTypeError as e:\n"
           "    assert 'argument 3 (bases) item 0 must be a class' in str(e)\n"
           "else:\n"
           "    raise AssertionError('a namespace base accepted')\n"
           "assert not os.path.exists(marker)\n"
           "import typing\n"
           "T = typing.TypeVar('T')\n"
           "class Box(typing.Generic[T]):\n"
           "    pass\n"
           "class Pair(typing.NamedTuple):\n"
           "    a: int\n"
           "for k in (Box, Pair):\n"
           "    k.__module__ = '__main__'\n"
           "    assert cp.loads(cp.dumps(k)).__name__ == k.__name__\n");
}

/* _class_setstate registers an ABC's virtual subclasses with
 * abc.ABCMeta.register, not with a `register` its state just set; on a
 * class that is no ABC a registry is refused. */
Test(policy_hooks, abc_register_is_abcmeta_s)
{
    cpk_py(SETUP
           "def state_of(cls_ops):\n"
           "    return (PROTO + g('ccloudpickle', '_class_setstate') +\n"
           "            cls_ops + b'}' + s('register') + FN + b's' +\n"
           "            s('_abc_impl') + b']' + g('builtins', 'int') +\n"
           "            b'a' + b's' + b'}' + b'\\x86' + b'\\x86' + R + STOP)\n"
           "plain = (g('ccloudpickle', '_make_skeleton_class') + b'(' +\n"
           "         g('builtins', 'type') + s('C') + b')' + b'}' + b'N' +\n"
           "         b'N' + b't' + R)\n"
           "abcm = (g('ccloudpickle', '_make_skeleton_class') + b'(' +\n"
           "        g('abc', 'ABCMeta') + s('A') + b')' + b'}' + b'N' +\n"
           "        b'N' + b't' + R)\n"
           "try:\n"
           "    cp.loads(state_of(plain))\n"
           "except cp.ReconstructorValueError as e:\n"
           "    assert 'abc.ABCMeta only' in str(e), e\n"
           "else:\n"
           "    raise AssertionError('a registry on a class that is no ABC')\n"
           "A = cp.loads(state_of(abcm))\n"
           "assert issubclass(int, A) and not os.path.exists(marker)\n"
           "import abc\n"
           "class Base(abc.ABC):\n"
           "    pass\n"
           "Base.register(float)\n"
           "Base.__module__ = '__main__'\n"
           "assert issubclass(float, cp.loads(cp.dumps(Base)))\n");
}

/* getattr(<class by value>, name) looks the name up through the bases:
 * plain only when they are classes by value or harmless builtins, or the
 * name is an enum's member. Through pathlib.PosixPath it is write_text. */
Test(policy_hooks, getattr_on_a_class_by_value_reaches_its_bases)
{
    cpk_py(SETUP
           "P = (g('ccloudpickle', '_make_skeleton_class') + b'(' +\n"
           "     g('builtins', 'type') + s('P') + g('pathlib', 'PosixPath') +\n"
           "     b'\\x85' + b'}' + b'N' + b'N' + b't' + R)\n"
           "data = (PROTO + g('builtins', 'getattr') + P + s('write_text') +\n"
           "        b'\\x86' + R + g('pathlib', 'Path') + s(marker) +\n"
           "        b'\\x85' + R + s('x') + b'\\x86' + R + STOP)\n"
           "refused(data, 'write_text')\n"
           "sys.modules.pop('pwd', None)\n"
           "owner = (PROTO + g('builtins', 'getattr') + P + s('owner') +\n"
           "         b'\\x86' + R + g('pathlib', 'Path') + s('/') + b'\\x85' +\n"
           "         R + b'\\x85' + R + STOP)\n"
           "refused(owner, 'owner')\n"
           "assert 'pwd' not in sys.modules\n"
           "import enum\n"
           "class K:\n"
           "    @classmethod\n"
           "    def make(cls):\n"
           "        return cls()\n"
           "class Color(enum.IntEnum):\n"
           "    RED = 1\n"
           "for o in (K, Color):\n"
           "    o.__module__ = '__main__'\n"
           "m = cp.loads(cp.dumps(K.make), allow=[])\n"
           "assert type(m()).__name__ == 'K'\n"
           "c = cp.loads(cp.dumps(Color.RED), allow=[])\n"
           "assert c == 1 and type(c).__name__ == 'Color'\n");
}

/* A codec is looked up by name: encodings.<name> is imported. Protocol
 * 2's bytes name latin1, which is always loaded. */
Test(policy_hooks, codec_names)
{
    cpk_py(SETUP
           "data = (PROTO + g('_codecs', 'encode') + b'C\\x01x' +\n"
           "        s('bz2_codec') + b'\\x86' + R + STOP)\n"
           "sys.modules.pop('encodings.bz2_codec', None)\n"
           "refused(data, 'bz2_codec')\n"
           "assert 'encodings.bz2_codec' not in sys.modules\n"
           "for proto in (0, 1, 2):\n"
           "    d = pickle.dumps([b'ab\\xff', b''], protocol=proto)\n"
           "    for kw in POLICIES:\n"
           "        assert cp.loads(d, **kw) == [b'ab\\xff', b'']\n");
}

/* Under a deny list: names that import or run what their argument
 * names are dangerous, so a deny rule for os is not stepped around. */
Test(policy_hooks, importers_by_name_under_a_deny_list)
{
    cpk_py(SETUP
           "touch = 'touch ' + marker\n"
           "data = (PROTO + g('pydoc', 'locate') + s('os.system') +\n"
           "        b'\\x85' + R + s(touch) + b'\\x85' + R + STOP)\n"
           "refused(data, 'pydoc.locate')\n"
           "for m, n in (('logging.config', 'dictConfig'),\n"
           "             ('doctest', 'run_docstring_examples'),\n"
           "             ('unittest', 'TestLoader'), ('tempfile', 'mkstemp')):\n"
           "    d = PROTO + g(m, n) + STOP\n"
           "    try:\n"
           "        cp.loads(d, deny=['os'])\n"
           "    except cp.PolicyError:\n"
           "        pass\n"
           "    else:\n"
           "        raise AssertionError(m + '.' + n)\n");
}

/* The third review: state given to what itself has hooks of its own (a
 * class or function by value, an enum member), methods a class gets
 * from the namespace it is made with or from an enum's members, and
 * Enum's private names through getattr. */
Test(policy_hooks, objects_with_hooks_of_their_own)
{
    cpk_py(SETUP
           "def put(k): return b'r' + struct.pack('<I', k)\n"
           "def get(k): return b'h' + bytes([k])\n"
           "def skel(name, ns=b'}'):\n"
           "    return (g('ccloudpickle', '_make_skeleton_class') + b'(' +\n"
           "            g('builtins', 'type') + s(name) + b')' + ns + b'N' +\n"
           "            b'N' + b't' + R)\n"
           "def setstate(cls_ops):\n"
           "    return (g('ccloudpickle', '_class_setstate') + cls_ops +\n"
           "            b'}' + s('__setstate__') + FN + b's' + b'}' +\n"
           "            b'\\x86' + b'\\x86' + R + b'0')\n"
           "ENUM = (g('ccloudpickle', '_make_skeleton_enum') + b'(' +\n"
           "        g('enum', 'Enum') + b'\\x85' + s('E') + s('E') + b'}' +\n"
           "        s('RED') + i(1) + b's' + s('__main__') + b'N' + b'N' +\n"
           "        b't' + R)\n"
           "cases = {\n"
           "  'BUILD on a class': PROTO + skel('K') + put(0) + b'0' +\n"
           "      setstate(get(0)) + get(0) + i(0) + B + STOP,\n"
           "  'BUILD on a function': PROTO + FN + b'}' + s('__setstate__') +\n"
           "      FN + b's' + B + i(0) + B + STOP,\n"
           "  'BUILD on an enum member': PROTO + ENUM + put(0) + b'0' +\n"
           "      setstate(get(0)) + g('builtins', 'getattr') + get(0) +\n"
           "      s('RED') + b'\\x86' + R + i(0) + B + STOP,\n"
           "  '__init__ made with the class': PROTO +\n"
           "      skel('K', b'}' + s('__init__') + FN + b's') + b')' + R +\n"
           "      STOP,\n"
           "  '__init__ among enum members': PROTO +\n"
           "      g('ccloudpickle', '_make_skeleton_enum') + b'(' +\n"
           "      g('enum', 'Enum') + b'\\x85' + s('F') + s('F') + b'}' +\n"
           "      s('__init__') + FN + b's' + s('RED') + i(1) + b's' +\n"
           "      s('__main__') + b'N' + b'N' + b't' + R + STOP,\n"
           "  'Enum._convert_': PROTO + g('builtins', 'getattr') + ENUM +\n"
           "      s('_convert_') + b'\\x86' + R + STOP,\n"
           "}\n"
           "for what, data in cases.items():\n"
           "    refused(data, what)\n"
           /* a dataclass by value keeps loading under a deny list (its
            * __repr__ wrapper's globals import _thread) */
           "import dataclasses\n"
           "@dataclasses.dataclass\n"
           "class D:\n"
           "    x: int = 1\n"
           "D.__module__ = '__main__'\n"
           "assert cp.loads(cp.dumps(D), deny=['os', 'subprocess'])().x == 1\n");
}

/* The fourth review: reconstructors that wrote into what an imported
 * module owns (_module_fill of subimport("collections"), _function_fill
 * of a functools function, then called through a plain name), a
 * singledispatch register a BUILD replaced, NEWOBJ_EX's keyword
 * arguments, and hashing by reconstructors (a str subclass as tracker
 * id, dict view items). Each loads nothing and runs nothing, with or
 * without a policy. */
Test(policy_hooks, reconstructors_write_only_what_the_pickle_made)
{
    cpk_py(SETUP
           "def put(k): return b'r' + struct.pack('<I', k)\n"
           "def get(k): return b'h' + bytes([k])\n"
           "def raises(data, exc, frag):\n"
           "    for kw in POLICIES + ({},):\n"
           "        try:\n"
           "            cp.loads(data, **kw)\n"
           "        except (exc, cp.PolicyError) as e:\n"
           "            assert kw or frag in str(e), (frag, str(e))\n"
           "        else:\n"
           "            raise AssertionError('loaded: ' + frag)\n"
           "        assert not os.path.exists(marker), frag\n"
           "import collections, functools\n"
           "od = collections.OrderedDict\n"
           "raises(PROTO + g('ccloudpickle', '_module_fill') +\n"
           "       g('ccloudpickle', 'subimport') + s('collections') +\n"
           "       b'\\x85' + R + b'}' + s('OrderedDict') + FN + b's' +\n"
           "       b'\\x86' + R + b'0' + g('collections', 'OrderedDict') +\n"
           "       b')' + R + STOP, cp.ReconstructorValueError,\n"
           "       'a module the pickle made')\n"
           "assert collections.OrderedDict is od\n"
           "lc = functools.lru_cache\n"
           "raises(PROTO + g('ccloudpickle', '_function_fill') +\n"
           "       g('functools', 'total_ordering') + b'}' +\n"
           "       s('__globals__') + b'}' + s('lru_cache') + FN + b's' +\n"
           "       b's' + b'\\x86' + R + STOP, cp.ReconstructorValueError,\n"
           "       'a function the pickle made')\n"
           "assert functools.lru_cache is lc\n"
           "W = (g('ccloudpickle', '_singledispatch_new') + FN + b'\\x85' +\n"
           "     R + put(1) + b'0')\n"
           "raises(PROTO + W + get(1) + b'}' + s('register') + FN + b's' +\n"
           "       B + b'0' + g('ccloudpickle', '_singledispatch_fill') +\n"
           "       get(1) + g('builtins', 'int') + g('builtins', 'abs') +\n"
           "       b'\\x86' + b'\\x85' + b'}' + b'\\x86' + b'\\x86' + R +\n"
           "       STOP, cp.ReconstructorTypeError,\n"
           "       'register attribute functools.singledispatch did not')\n"
           "refused(PROTO + g('functools', 'partial') +\n"
           "        g('builtins', 'sorted') + b']' + i(1) + b'a' + b'\\x86' +\n"
           "        b'}' + s('key') + FN + b's' + b'\\x92' + b')' + R + STOP,\n"
           "        'NEWOBJ_EX keyword arguments')\n"
           "class S(str):\n"
           "    pass\n"
           "try:\n"
           "    cp._make_skeleton_class(type, 'K', (), {}, S('x'), None)\n"
           "except cp.ReconstructorTypeError as e:\n"
           "    assert 'tracker_id) must be str or None' in str(e), e\n"
           "else:\n"
           "    raise AssertionError('a str subclass as tracker id')\n"
           "@functools.singledispatch\n"
           "def sd(x):\n"
           "    return 'any'\n"
           "@sd.register\n"
           "def _(x: int):\n"
           "    return 'int'\n"
           "sd.__module__ = '__main__'\n"
           "assert cp.loads(cp.dumps(sd))(1) == 'int'\n");
}

/* The fifth review: fills of what the pickle did not make. A
 * namedtuple's __new__ (private globals), _collections_abc's functions
 * (its __name__ is "collections.abc", another module), an imported
 * class given a state, an imported singledispatch function given
 * registrations: each refused by every policy, nothing in the process
 * changed. A singledispatch wrapper given code through its fill runs it
 * when called: the scan lists that call. */
Test(policy_hooks, fills_only_what_a_load_made)
{
    cpk_py(SETUP
           "def put(k): return b'r' + struct.pack('<I', k)\n"
           "def get(k): return b'h' + bytes([k])\n"
           "import decimal, collections, _collections_abc\n"
           "def fill(target, state):\n"
           "    return (PROTO + g('ccloudpickle', '_function_fill') + target +\n"
           "            state + b'\\x86' + R + STOP)\n"
           "GL = b'}' + s('__globals__') + b'}' + s('x') + FN + b's' + b's'\n"
           "cases = [\n"
           "  fill(g('decimal', 'DecimalTuple.__new__'), GL),\n"
           "  fill(g('_collections_abc', 'MappingView.__init__'), GL),\n"
           "  PROTO + g('ccloudpickle', '_class_setstate') +\n"
           "      g('collections', 'UserDict') + b'}' + s('__init__') + FN +\n"
           "      b's' + b'}' + b'\\x86' + b'\\x86' + R + STOP,\n"
           "  PROTO + g('ccloudpickle', '_singledispatch_fill') +\n"
           "      g('builtins', 'abs') + g('builtins', 'int') + FN +\n"
           "      b'\\x86' + b'\\x85' + b'}' + b'\\x86' + b'\\x86' + R + STOP,\n"
           "]\n"
           "before = (dict(vars(_collections_abc)),\n"
           "          dict(decimal.DecimalTuple.__new__.__globals__),\n"
           "          dict(vars(collections.UserDict)))\n"
           "for data in cases:\n"
           "    for kw in POLICIES:\n"
           "        try:\n"
           "            cp.loads(data, **kw)\n"
           "        except cp.PolicyError as e:\n"
           "            # _collections_abc is private: its import is refused\n"
           "            assert ('fills what the pickle did not make' in str(e) or\n"
           "                    '_collections_abc.' in str(e)), e\n"
           "        else:\n"
           "            raise AssertionError('filled')\n"
           "assert before == (dict(vars(_collections_abc)),\n"
           "                  dict(decimal.DecimalTuple.__new__.__globals__),\n"
           "                  dict(vars(collections.UserDict)))\n"
           /* a fill reconstructor used otherwise than called on a
            * literal argument tuple: OBJ, a partial, computed args */
           "UD = g('collections', 'UserDict')\n"
           "ST = b'}' + s('pwned') + i(1) + b's' + b'}' + b'\\x86'\n"
           "CS = g('ccloudpickle', '_class_setstate')\n"
           "hidden = [\n"
           "  PROTO + b'(' + CS + UD + ST + b'o' + STOP,\n"
           "  PROTO + g('functools', 'partial') + CS + UD + b'\\x86' + R +\n"
           "      ST + b'\\x85' + R + STOP,\n"
           "  PROTO + CS + g('builtins', 'tuple') + b']' + b'(' + UD + ST +\n"
           "      b'e' + b'\\x85' + R + R + STOP,\n"
           "]\n"
           "for data in hidden:\n"
           "    for kw in POLICIES:\n"
           "        try:\n"
           "            cp.loads(data, **kw)\n"
           "        except cp.PolicyError:\n"
           "            pass\n"
           "        else:\n"
           "            raise AssertionError('a hidden fill loaded')\n"
           "assert not hasattr(collections.UserDict, 'pwned')\n"
           "W = (g('ccloudpickle', '_singledispatch_new') +\n"
           "     g('builtins', 'abs') + b'\\x85' + R + put(1) + b'0')\n"
           "refused(PROTO + W + g('ccloudpickle', '_singledispatch_fill') +\n"
           "        get(1) + g('builtins', 'int') + FN + b'\\x86' + b'\\x85' +\n"
           "        b'}' + b'\\x86' + b'\\x86' + R + b'0' + get(1) + i(1) +\n"
           "        b'\\x85' + R + STOP, 'singledispatch fill then call')\n");
}
