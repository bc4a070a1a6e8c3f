/* test_loads_fast.c - loads(bytes) of a small pickle naming only our own
 * reconstructors, as protocols 4 and 5 write them, runs _pickle.loads
 * itself (no Unpickler object to make and free): pickle's find_class
 * finds our names through sys.modules["ccloudpickle"]. Only then: a
 * pickle naming stock cloudpickle (which our find_class maps), ours in
 * protocols 0 to 3, or a sys.modules entry that is not this module takes
 * our Unpickler, and loads the same. A name this version lacks gets our
 * find_class's error either way, and every name raises pickle's
 * find_class audit event either way. */
#include "support.h"

TestSuite(loads_fast, .init = cpk_py_start, .fini = cpk_py_stop);


Test(loads_fast, own_names_take_the_fast_path)
{
    cpk_py_file("_prelude.py", "own_names_take_the_fast_path.py");
}

Test(loads_fast, others_take_our_unpickler)
{
    cpk_py_file("_prelude.py", "others_take_our_unpickler.py");
}

/* A name this version lacks: the fast path's AttributeError becomes our
 * find_class's, the original as its cause; other errors stand. */
Test(loads_fast, missing_name_says_newer_version)
{
    cpk_py_file("_prelude.py", "missing_name_says_newer_version.py");
}

/* Review i11e: bytes that merely look like our SHORT_BINUNICODE before a
 * GLOBAL of stock cloudpickle (a BININT2 argument) take our Unpickler,
 * which maps the stock name where cloudpickle cannot be imported. */
Test(loads_fast, stock_global_after_lookalike_bytes)
{
    cpk_py_file("stock_global_after_lookalike_bytes.py");
}
