/* test_cov_diagnose_root.c - the note a failed dump gets names its root
 * object by __qualname__, else by its type: an object whose __qualname__
 * lookup raises an ordinary error is named by its type, and the note is
 * still added to the pickling error. */
#include "support.h"

TestSuite(cov_diagnose_root, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_diagnose_root, qualname_error_names_the_type)
{
    cpk_py("import ccloudpickle as cp\n"
           "def gen():\n"
           "    yield 1\n"
           "asked = []\n"
           "class Holder:\n"
           "    def __init__(self):\n"
           "        self.g = gen()\n"
           "    def __getattr__(self, name):\n"
           "        if name == '__qualname__':\n"
           "            asked.append(name)\n"
           "            raise RuntimeError('no qualname')\n"
           "        raise AttributeError(name)\n"
           "try:\n"
           "    cp.dumps(Holder())\n"
           "except TypeError as e:\n"
           "    # before 3.11 the note is in the message, after '; '\n"
           "    msg, _, note = str(e).partition('; ')\n"
           "    notes = getattr(e, '__notes__', [note])\n"
           "    assert msg == \"cannot pickle 'generator' object\", e\n"
           "    assert notes == ['when pickling <Holder object>.g '\n"
           "                     '(generator)'], notes\n"
           "else:\n"
           "    raise AssertionError('pickled a generator')\n"
           "assert asked == ['__qualname__'], asked\n");
}
