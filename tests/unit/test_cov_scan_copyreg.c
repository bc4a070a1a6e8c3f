/* test_cov_scan_copyreg.c - code carried by value handed to copyreg's
 * instance makers (_reconstructor, __newobj__, __newobj_ex__), as
 * protocols 0 and 1 write instances and as a hostile pickle may call
 * them: the static scan names what the load would run (an instance of a
 * class by value, a function by value, a code object passed on), at the
 * REDUCE that runs it, and an import policy refuses the pickle before
 * anything runs. */
#include "support.h"

TestSuite(cov_scan_copyreg, .init = cpk_py_start, .fini = cpk_py_stop);

/* refused(obj, proto, want): under allow=[] the pickle is refused for
 * running `want` (reason and name), at a REDUCE opcode; without a policy
 * it loads (the call is real). */
#define SETUP                                                                 \
    "import ccloudpickle as cp, copyreg, re\n"                                \
    "ran = []\n"                                                              \
    "class C:\n"                                                              \
    "    def __init__(self):\n"                                               \
    "        self.v = 1\n"                                                    \
    "    def __setstate__(self, s):\n"                                        \
    "        ran.append('setstate')\n"                                        \
    "        self.__dict__.update(s)\n"                                       \
    "def f(*a):\n"                                                            \
    "    return 0\n"                                                          \
    "class R:\n"                                                              \
    "    def __init__(self, fn, args):\n"                                     \
    "        self.fn, self.args = fn, args\n"                                 \
    "    def __reduce__(self):\n"                                             \
    "        return (self.fn, self.args)\n"                                   \
    "PREFIX = ('import policy refuses a pickle whose load runs code '\n"      \
    "          'carried by value: ')\n"                                       \
    "def refused(obj, proto, want):\n"                                        \
    "    data = cp.dumps(obj, protocol=proto)\n"                              \
    "    try:\n"                                                              \
    "        cp.loads(data, allow=[])\n"                                      \
    "    except cp.PolicyError as e:\n"                                       \
    "        s = str(e)\n"                                                    \
    "        assert s.startswith(PREFIX + want + ' (byte '), (want, s)\n"     \
    "        at = int(re.search(r'\\(byte (\\d+)\\)$', s).group(1))\n"       \
    "        assert data[at:at + 1] == b'R', (want, at, data[at:at + 1])\n"   \
    "    else:\n"                                                             \
    "        raise AssertionError('not refused: ' + want)\n"                  \
    "    return data\n"

#define INST                                                                  \
    "creates an instance of a class carried by value (its methods may "       \
    "run: __new__, __init__, __setstate__, __setattr__, __hash__...) C"

Test(cov_scan_copyreg, reconstructor_of_class_by_value)
{
    cpk_py(SETUP
           "for proto in (0, 1):\n"
           "    data = refused(C(), proto, '" INST "')\n"
           "    assert b'_reconstructor' in data\n"
           "    assert ran == []\n"
           "    obj = cp.loads(data)\n"
           "    assert type(obj).__name__ == 'C' and obj.v == 1\n"
           "    assert ran == ['setstate']\n"
           "    ran.clear()\n");
}

Test(cov_scan_copyreg, newobj_of_class_by_value)
{
    cpk_py(SETUP
           "refused(R(copyreg.__newobj__, (C,)), 1, '" INST "')\n"
           "refused(R(copyreg.__newobj_ex__, (C, (), {})), 1, '" INST "')\n"
           "obj = cp.loads(cp.dumps(R(copyreg.__newobj__, (C,)), 1))\n"
           "assert type(obj).__name__ == 'C' and not hasattr(obj, 'v')\n");
}

Test(cov_scan_copyreg, reconstructor_given_a_function_or_code)
{
    cpk_py(SETUP
           "refused(R(copyreg._reconstructor, (f, object, None)), 5,\n"
           "        'calls a function carried by value f')\n"
           "refused(R(copyreg._reconstructor, (f.__code__, object, None)), 5,\n"
           "        'passes code carried by value to a callable that may '\n"
           "        'call it f')\n");
}
