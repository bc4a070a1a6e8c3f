/* test_cov_version_explain.c - the message of a load that meets code
 * compiled by another Python (src/engine/versionerror.c): each function named
 * with its file and first line, a name longer than the message keeps cut
 * short with "...", a function whose code could not be read named by its
 * byte offset. The pickles are this Python's, with the bytecode magic and
 * version of their code rewritten to another release's. */
#include "support.h"

TestSuite(cov_version_explain, .init = cpk_py_start, .fini = cpk_py_stop);

/* other(data, magic): data with its code's magic (BININT of
 * importlib.util.MAGIC_NUMBER) made `magic`, and its version string made
 * 3.12's. */
#define SETUP                                                                 \
    "import ccloudpickle as cp, importlib.util, pickle, re, sys\n"            \
    "mine = '%d.%d' % sys.version_info[:2]\n"                                 \
    "OLD = b'J' + importlib.util.MAGIC_NUMBER\n"                              \
    "def other(data, magic=3531):\n"                                          \
    "    assert data.count(OLD) >= 1\n"                                       \
    "    new = b'J' + magic.to_bytes(2, 'little') + b'\\r\\n'\n"             \
    "    return data.replace(b'\\x8c\\x043.11', b'\\x8c\\x043.12')"           \
    ".replace(OLD, new)\n"                                                    \
    "def refusal(data):\n"                                                    \
    "    try:\n"                                                              \
    "        cp.loads(data)\n"                                                \
    "    except pickle.UnpicklingError as e:\n"                               \
    "        return str(e)\n"                                                 \
    "    raise AssertionError('loaded')\n"                                    \
    "def f(a):\n"                                                             \
    "    return a + 1\n"                                                      \
    "def where(fn, name=None):\n"                                             \
    "    c = fn.__code__\n"                                                   \
    "    return '%s (%s, line %d)' % (name or fn.__qualname__,\n"            \
    "                                 c.co_filename, c.co_firstlineno)\n"

static void need_311(void)
{
    if (PY_VERSION_HEX < 0x030B0000 || PY_VERSION_HEX >= 0x030C0000)
        cr_skip_test("the pickles are rewritten from 3.11's bytes");
}

Test(cov_version_explain, function_named_with_file_and_line)
{
    need_311();
    cpk_py(SETUP
           "s = refusal(other(cp.dumps(f)))\n"
           "want = ('this pickle holds code compiled by Python 3.12, which '\n"
           "        'Python %s cannot run (function: %s): load it with '\n"
           "        'Python 3.12, or pickle it with portable=True'\n"
           "        % (mine, where(f)))\n"
           "assert s == want, (s, want)\n");
}

Test(cov_version_explain, long_name_cut_short)
{
    need_311();
    cpk_py(SETUP
           "def g(b):\n"
           "    return b * 2\n"
           "g.__qualname__ = 'q' * 500\n"
           "s = refusal(other(cp.dumps([f, g])))\n"
           "want = ('(functions: %s; %s): '\n"
           "        % (where(f), where(g, 'q' * 400 + '...')))\n"
           "assert want in s, (s, want)\n");
}

Test(cov_version_explain, unreadable_code_named_by_offset)
{
    need_311();
    /* Magic 1 is no release's: the scan cannot read the code. */
    cpk_py(SETUP
           "data = other(cp.dumps(f), magic=1)\n"
           "s = refusal(data)\n"
           "m = re.search(r'\\(function: function at byte (\\d+)\\)', s)\n"
           "assert m, s\n"
           "assert 0 < int(m.group(1)) < len(data)\n"
           "assert 'which Python %s cannot run' % mine in s, s\n");
}
