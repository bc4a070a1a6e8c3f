/* test_percall.c - the per-call fast paths of dumps() and loads() give
 * what the slow paths give: plain data straight to _pickle.dumps (the same
 * bytes as a new Pickler), the spare Pickler of dumps() reset between calls
 * (no memo, globals sharing or options carried over, nested and threaded
 * calls each get their own), loads(bytes) without argument parsing (signed
 * data still verified), and code read from the same marshal bytes shared
 * by loads (version checks still run, corrupt code never kept). */
#include "support.h"

TestSuite(percall, .init = cpk_py_start, .fini = cpk_py_stop);

Test(percall, plain_data_bytes_are_the_picklers)
{
    cpk_py_file("_by_pickler.py", "plain_data_bytes_are_the_picklers.py");
}

Test(percall, lookalikes_of_plain_data_take_the_pickler)
{
    /* Subclasses and containers of non-plain objects are not plain: they
     * must reach reducer_override and dispatch tables. */
    cpk_py_file("_by_pickler.py",
                "lookalikes_of_plain_data_take_the_pickler.py");
}

Test(percall, spare_pickler_carries_nothing_over)
{
    cpk_py_file("_by_pickler.py", "spare_pickler_carries_nothing_over.py");
}

Test(percall, spare_pickler_after_a_failed_dump)
{
    cpk_py_file("_by_pickler.py", "spare_pickler_after_a_failed_dump.py");
}

Test(percall, nested_dumps_get_their_own_pickler)
{
    /* A __reduce__ calling dumps() while the outer dumps() runs: the
     * spare is taken, so each call writes its own, whole pickle. */
    cpk_py_file("_by_pickler.py", "nested_dumps_get_their_own_pickler.py");
}

Test(percall, threads_share_no_pickler_state)
{
    /* Threads switch while a dump runs Python code (a __reduce__ that
     * sleeps): every pickle must still be its object's own. */
    cpk_py_file("threads_share_no_pickler_state.py");
}

Test(percall, loads_fast_path_keeps_every_check)
{
    cpk_py("import ccloudpickle as cp, pickle\n"
           "assert cp.loads(pickle.dumps({'a': [1, 2]}, 5)) == {'a': [1, 2]}\n"
           "assert cp.loads(pickle.dumps(1, 2)) == 1\n"
           "assert cp.loads(bytearray(pickle.dumps(3))) == 3\n");
    /* Signed data given positionally alone is still verified: without
     * a key it is refused. */
    cpk_py_raises("import ccloudpickle as cp\n"
                  "signed = cp.dumps(1, sign_key=b'k' * 32)\n"
                  "cp.loads(signed)\n",
                  "SignatureError", NULL);
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp.loads(b'\\x80\\x05K')\n",
                  "UnpicklingError", NULL);
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp.loads('text')\n",
                  "TypeError", "unicode");
}

Test(percall, loads_share_the_code_of_the_same_bytes)
{
    cpk_py_file("loads_share_the_code_of_the_same_bytes.py");
}

Test(percall, code_cache_keeps_the_version_check)
{
    /* A pickle of the same code bytes claiming another bytecode magic is
     * refused, even after those bytes were loaded (and kept). */
    cpk_py_raises(cpk_py_text("code_cache_keeps_the_version_check.py"),
                  "UnpicklingError", "9.99");
}

Test(percall, corrupt_code_is_never_kept)
{
    /* The same corrupt bytes are refused on every load. */
    cpk_py_file("corrupt_code_is_never_kept.py");
}

Test(percall, spare_stored_during_a_reset_is_not_lost)
{
    /* Emptying the spare's memo runs __del__ of what only it held, which
     * may make (and keep) a spare of its own: exactly one Pickler stays,
     * none leaks. */
    cpk_py_file("spare_stored_during_a_reset_is_not_lost.py");
}

Test(percall, class_changes_reach_every_dumps)
{
    /* CPython reads persistent_id and dispatch_table in __init__: set on
     * the class after the first dumps(), they must still apply, to plain
     * data too, as they do for a new Pickler. */
    cpk_py_file("_by_pickler.py", "class_changes_reach_every_dumps.py");
}

Test(percall, spare_serves_protocol_5_and_minus_1)
{
    /* Engines pass protocol=pickle.HIGHEST_PROTOCOL: the same Pickler as
     * the default, so the same spare; other protocols make their own. */
    cpk_py_file("_by_pickler.py", "spare_serves_protocol_5_and_minus_1.py");
    cpk_py_raises("import ccloudpickle as cp\n"
                  "cp.dumps(lambda: 1, protocol=2**80)\n",
                  "OverflowError", NULL);
}

/* Our reconstructors go by name, as CPython's own path writes them (the
 * pickler skips __reduce_ex__ for them); a dispatch_table the user set
 * for builtin functions still wins. */
Test(percall, reconstructors_by_name_as_cpython_writes_them)
{
    cpk_py_file("reconstructors_by_name_as_cpython_writes_them.py");
}

/* subimport of a module already imported takes it from sys.modules
 * without the import machinery; one another thread is still importing
 * (its spec says _initializing), or one not imported yet, goes through
 * __import__ as before. */
Test(percall, subimport_skips_the_import_only_when_done)
{
    cpk_py_file("subimport_skips_the_import_only_when_done.py");
}

/* Another thread's import in progress: subimport waits for it and returns
 * what sys.modules holds after it (the replacement a module put there, or
 * the import's error), never the object seen before. */
Test(percall, subimport_during_another_threads_import)
{
    char dir[256], path[300];
    cpk_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/selfrepl_pc.py", dir);
    cpk_write_file(path, "import sys, time, types\n"
                         "time.sleep(0.3)\n"
                         "_r = types.ModuleType(__name__)\n"
                         "_r.tag = 'replacement'\n"
                         "sys.modules[__name__] = _r\n");
    snprintf(path, sizeof path, "%s/slowfail_pc.py", dir);
    cpk_write_file(path, "import time\n"
                         "X = 1\n"
                         "time.sleep(0.3)\n"
                         "raise RuntimeError('slowfail_pc fails')\n");
    char code[2048];
    snprintf(code, sizeof code,
             "import ccloudpickle as cp, importlib, sys, threading, time\n"
             "sys.path.insert(0, %s%s%s)\n"
             "def importer(name, out):\n"
             "    try:\n"
             "        importlib.import_module(name)\n"
             "    except RuntimeError as e:\n"
             "        out.append(e)\n"
             "def race(name):\n"
             "    out = []\n"
             "    t = threading.Thread(target=importer, args=(name, out))\n"
             "    t.start()\n"
             "    while name not in sys.modules:\n"
             "        time.sleep(0.005)\n"
             "    try:\n"
             "        got = cp.subimport(name)\n"
             "    except BaseException as e:\n"
             "        got = e\n"
             "    t.join()\n"
             "    return got\n"
             "got = race('selfrepl_pc')\n"
             "assert getattr(got, 'tag', None) == 'replacement', got\n"
             "got = race('slowfail_pc')\n"
             "assert isinstance(got, (ImportError, KeyError, RuntimeError))"
             ", got\n",
             "'", dir, "'");
    cpk_py(code);
}
