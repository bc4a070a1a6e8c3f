/* test_stock_sharing.c - the edges of sharing with stock cloudpickle
 * (src/core/stock.c, python/_ccloudpickle_stock.py) that hostile review B of
 * issue 9 found: a class's tracker id and an id's class decided under
 * stock's lock (a racing stock pickle or load is adopted, not doubled);
 * stock's lock held by this very thread costs no wait and the classes
 * reach stock's tracker once it is free; an interrupt raised by stock's
 * lock is not swallowed; stock's registry rebound or reloaded is shared
 * again; a second ccloudpickle module object joins the same registry and
 * replaces the first one's watcher; the watcher type cannot be
 * instantiated; stock's loader keeps its type and does not stack.
 * Stock-dependent cases run against Debian's cloudpickle 2.2, and 3.x
 * when CPK_CLOUDPICKLE3 names a directory holding it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

TestSuite(stock_sharing, .init = cpk_py_start, .fini = cpk_py_stop);

typedef enum { STOCK2, STOCK3 } stock;

/* The directory holding the stock cloudpickle under test ("" for
 * Debian's); skips 3.x without CPK_CLOUDPICKLE3. */
static const char *
stock_dir(stock which)
{
    if (which == STOCK2) {
        cpk_require("cloudpickle");
        return "";
    }
    const char *dir = cpk_stock_cloudpickle("CPK_CLOUDPICKLE3");
    return dir;
}

/* Helpers every snippet gets: the stock version check, tracker ids in a
 * pickle, by-value test, and a lock standing for stock's that lets
 * "another thread" run its `race` at the first acquire(). */
#define PRELUDE                                                              \
    "import sys, pickle, pickletools\n"                                      \
    "def check_stock(cp):\n"                                                 \
    "    assert cp.__version__.startswith(MAJOR), cp.__version__\n"          \
    "def tracker_ids(data):\n"                                               \
    "    return [a for op, a, pos in pickletools.genops(data)\n"             \
    "            if isinstance(a, str) and len(a) == 32\n"                   \
    "            and set(a) <= set('0123456789abcdef')]\n"                   \
    "def by_value(dumps, loads, f):\n"                                       \
    "    return loads(dumps(f)) is not f\n"                                  \
    "class RacingLock:\n"                                                    \
    "    def __init__(self, real, race):\n"                                  \
    "        self.real, self.race = real, race\n"                            \
    "    def acquire(self, blocking=True, timeout=-1):\n"                    \
    "        race, self.race = self.race, None\n"                            \
    "        if race is not None:\n"                                         \
    "            race()\n"                                                   \
    "        return self.real.acquire(blocking, timeout)\n"                  \
    "    def release(self):\n"                                               \
    "        self.real.release()\n"                                          \
    "    def __enter__(self):\n"                                             \
    "        self.acquire()\n"                                               \
    "    def __exit__(self, *a):\n"                                          \
    "        self.release()\n"

/* Run `code` in a fresh CPK_PYTHON with stock `which`, the build (or
 * `libdir`) and the fixtures on the path, `in` on stdin; asserts exit 0.
 * stdout is the caller's (cpk_proc_free). */
static void
run_fresh(cpk_proc *p, stock which, const char *libdir, const char *code,
          const char *in, size_t in_len)
{
    const char *dir = stock_dir(which);
    char full[16384], env_var[2048];
    snprintf(full, sizeof(full), "MAJOR = '%s'\n" PRELUDE "%s",
             which == STOCK2 ? "2." : "3.", code);
    snprintf(env_var, sizeof(env_var), "PYTHONPATH=%s%s%s:" CPK_FIXTURES,
             dir, *dir ? ":" : "", libdir ? libdir : CPK_BUILD_DIR);
    const char *argv[] = {CPK_PYTHON, "-c", full, NULL};
    const char *env[] = {env_var, NULL};
    cpk_spawn(p, argv, "/", in, in_len, env);
    cr_assert(p->exited && p->status == 0, "the fresh interpreter failed:\n%s",
              p->err);
}

static void
fresh_ok(stock which, const char *code)
{
    cpk_proc p;
    run_fresh(&p, which, NULL, code, NULL, 0);
    cpk_proc_free(&p);
}

/* One class identity under races ------------------------------------------ */

/* Stock pickles the class while ccloudpickle is deciding its id (between
 * its look and stock's lock): ccloudpickle adopts stock's id. */
static void
dump_race(stock which)
{
    fresh_ok(which,
             "import ccloudpickle as cp, cloudpickle\n"
             "check_stock(cloudpickle)\n"
             "inner = cloudpickle.cloudpickle\n"
             "class C:\n"
             "    pass\n"
             "theirs = []\n"
             "inner._DYNAMIC_CLASS_TRACKER_LOCK = RacingLock(\n"
             "    inner._DYNAMIC_CLASS_TRACKER_LOCK,\n"
             "    lambda: theirs.append(cloudpickle.dumps(C)))\n"
             "ours = cp.dumps(C)\n"
             "assert theirs, 'the racing stock pickle did not run'\n"
             "stock_id = inner._DYNAMIC_CLASS_TRACKER_BY_CLASS[C]\n"
             "assert tracker_ids(theirs[0]) == [stock_id]\n"
             "assert tracker_ids(ours) == [stock_id], (tracker_ids(ours), stock_id)\n"
             "assert tracker_ids(cp.dumps(C)) == [stock_id]\n");
}

Test(stock_sharing, dump_race_adopts_stock_id_2) { dump_race(STOCK2); }
Test(stock_sharing, dump_race_adopts_stock_id_3) { dump_race(STOCK3); }

/* A fresh process pickles one class with stock and with ccloudpickle (one
 * id); their pickle((stock's, ours)) comes back on stdout. */
static char *
pickles_of_one_class(stock which, size_t *len)
{
    cpk_proc p;
    run_fresh(&p, which, NULL,
              "import ccloudpickle as cp, cloudpickle\n"
              "check_stock(cloudpickle)\n"
              "class K:\n"
              "    def m(self):\n"
              "        return 5\n"
              "theirs, ours = cloudpickle.dumps(K), cp.dumps(K)\n"
              "assert len(tracker_ids(ours)) == 1\n"
              "assert tracker_ids(theirs) == tracker_ids(ours)\n"
              "sys.stdout.buffer.write(pickle.dumps((theirs, ours)))\n",
              NULL, 0);
    *len = p.out_len;
    free(p.err);
    return p.out;
}

/* Stock loads the same tracker id while ccloudpickle's load decides it:
 * one class for the id in this process, stock's, for good. */
static void
load_race(stock which)
{
    size_t len;
    char *data = pickles_of_one_class(which, &len);
    cpk_proc p;
    run_fresh(&p, which, NULL,
              "theirs, ours = pickle.loads(sys.stdin.buffer.read())\n"
              "import ccloudpickle as cp, cloudpickle\n"
              "check_stock(cloudpickle)\n"
              "inner = cloudpickle.cloudpickle\n"
              "got = []\n"
              "inner._DYNAMIC_CLASS_TRACKER_LOCK = RacingLock(\n"
              "    inner._DYNAMIC_CLASS_TRACKER_LOCK,\n"
              "    lambda: got.append(cloudpickle.loads(theirs)))\n"
              "K = cp.loads(ours)\n"
              "assert got, 'the racing stock load did not run'\n"
              "assert K is got[0], 'one tracker id, two classes'\n"
              "assert K().m() == 5\n"
              "assert cp.loads(ours) is K and cloudpickle.loads(theirs) is K\n"
              "assert inner._DYNAMIC_CLASS_TRACKER_BY_ID[tracker_ids(ours)[0]] is K\n",
              data, len);
    free(data);
    cpk_proc_free(&p);
}

Test(stock_sharing, load_race_adopts_stock_class_2) { load_race(STOCK2); }
Test(stock_sharing, load_race_adopts_stock_class_3) { load_race(STOCK3); }

/* Stock's tracker lock held by this very thread (a finalizer pickling
 * inside stock's tracker code): dumps and loads go on without waiting for
 * it, and once it is free the next tracker miss puts the classes into
 * stock's tracker under ccloudpickle's ids. */
static void
lock_held(stock which)
{
    size_t len;
    char *data = pickles_of_one_class(which, &len);
    cpk_proc p;
    run_fresh(&p, which, NULL,
              "theirs, ours = pickle.loads(sys.stdin.buffer.read())\n"
              "import ccloudpickle as cp, cloudpickle\n"
              "check_stock(cloudpickle)\n"
              "inner = cloudpickle.cloudpickle\n"
              "by_class = inner._DYNAMIC_CLASS_TRACKER_BY_CLASS\n"
              "classes = [type('C%d' % i, (), {}) for i in range(3)]\n"
              "with inner._DYNAMIC_CLASS_TRACKER_LOCK:\n"
              "    data = cp.dumps(classes)\n"
              "    assert cp.loads(data) == classes\n"
              "    K = cp.loads(ours)\n"
              "    assert K().m() == 5\n"
              "    assert not any(c in by_class for c in classes + [K])\n"
              "class D:\n"
              "    pass\n"
              "cp.dumps(D)\n"
              "ids = tracker_ids(data)\n"
              "assert [by_class.get(c) for c in classes] == ids\n"
              "for c, i in zip(classes, ids):\n"
              "    assert inner._DYNAMIC_CLASS_TRACKER_BY_ID[i] is c\n"
              "assert by_class[K] == tracker_ids(ours)[0]\n"
              "assert cloudpickle.loads(theirs) is K\n"
              "assert cloudpickle.loads(cloudpickle.dumps(classes)) == classes\n"
              "assert tracker_ids(cloudpickle.dumps(classes)) == ids\n",
              data, len);
    free(data);
    cpk_proc_free(&p);
}

Test(stock_sharing, lock_held_no_wait_flushed_later_2) { lock_held(STOCK2); }
Test(stock_sharing, lock_held_no_wait_flushed_later_3) { lock_held(STOCK3); }

/* A KeyboardInterrupt from stock's lock release, after an ordinary error
 * of its tracker: the interrupt goes through (the ordinary error alone
 * is ignored: sharing is a courtesy). A stand-in module has stock's
 * names. */
Test(stock_sharing, interrupt_from_stock_lock_not_swallowed)
{
    cpk_py_file("interrupt_from_stock_lock_not_swallowed.py");
    cpk_py_raises("cp.dumps(K)\n", "KeyboardInterrupt", NULL);
    cpk_py("lock.raises = None\n"
           "assert cp.loads(cp.dumps(K)) is K\n");
}

/* One registry -------------------------------------------------------------- */

/* A fixture resetting stock's registry by rebinding its global: the reset
 * and what stock registers after it are ccloudpickle's too (seen at its
 * next registry call or import), and ccloudpickle's registrations are
 * stock's. */
static void
registry_rebound(stock which)
{
    fresh_ok(which,
             "import ccloudpickle as cp, cloudpickle\n"
             "check_stock(cloudpickle)\n"
             "import cpk_fixture_funcs as m, cpk_fixture_pkg as pkg\n"
             "inner = cloudpickle.cloudpickle\n"
             "cp.register_pickle_by_value(m)\n"
             "inner._PICKLE_BY_VALUE_MODULES = set()\n"
             "cloudpickle.register_pickle_by_value(pkg)\n"
             "assert cp.list_registry_pickle_by_value() == {'cpk_fixture_pkg'}\n"
             "assert by_value(cp.dumps, cp.loads, pkg.pkg_func)\n"
             "assert not by_value(cp.dumps, cp.loads, m.triple)\n"
             "cp.register_pickle_by_value(m)\n"
             "want = {'cpk_fixture_funcs', 'cpk_fixture_pkg'}\n"
             "assert cloudpickle.list_registry_pickle_by_value() == want\n"
             "assert 'cpk_fixture_funcs' in inner.list_registry_pickle_by_value()\n"
             /* Rebound again, then noticed through an import. */
             "inner._PICKLE_BY_VALUE_MODULES = {'cpk_fixture_funcs'}\n"
             "import json\n"
             "assert not by_value(cp.dumps, cp.loads, pkg.pkg_func)\n"
             "assert by_value(cp.dumps, cp.loads, m.triple)\n");
}

Test(stock_sharing, registry_rebound_is_shared_2) { registry_rebound(STOCK2); }
Test(stock_sharing, registry_rebound_is_shared_3) { registry_rebound(STOCK3); }

/* importlib.reload of stock's module where the companion is missing (only
 * the extension on the path, as the programs embed it): stock's new
 * registry and tracker are shared, as they are with the companion. */
static void
reload_without_companion(stock which)
{
    (void)stock_dir(which);
    char dir[64], link[256], target[512];
    cpk_tmpdir(dir, sizeof(dir));
    cpk_proc find;
    cpk_python(&find,
               "import ccloudpickle, sys\n"
               "sys.stdout.write(ccloudpickle.__file__)\n",
               NULL, 0);
    cpk_assert_exit(&find, 0);
    snprintf(target, sizeof(target), "%s", find.out);
    snprintf(link, sizeof(link), "%s/%s", dir, strrchr(find.out, '/') + 1);
    cpk_proc_free(&find);
    cr_assert(symlink(target, link) == 0);
    cpk_proc p;
    const char *code =
        "import importlib, ccloudpickle as cp, cloudpickle\n"
        "check_stock(cloudpickle)\n"
        "try:\n"
        "    import _ccloudpickle_stock\n"
        "    raise AssertionError('the companion is importable')\n"
        "except ImportError:\n"
        "    pass\n"
        "import cpk_fixture_funcs as m, cpk_fixture_pkg as pkg\n"
        "inner = cloudpickle.cloudpickle\n"
        "cp.register_pickle_by_value(m)\n"
        "class K:\n"
        "    pass\n"
        "tid = tracker_ids(cp.dumps(K))[0]\n"
        "assert inner._DYNAMIC_CLASS_TRACKER_BY_CLASS[K] == tid\n"
        "importlib.reload(inner)\n"
        "assert K not in inner._DYNAMIC_CLASS_TRACKER_BY_CLASS\n"
        "cloudpickle.register_pickle_by_value(pkg)\n"
        /* Stock's reload reset its registry: so is ours. */
        "assert cp.list_registry_pickle_by_value() == {'cpk_fixture_pkg'}\n"
        "assert inner.list_registry_pickle_by_value() == {'cpk_fixture_pkg'}\n"
        "assert by_value(cp.dumps, cp.loads, pkg.pkg_func)\n"
        "cp.register_pickle_by_value(m)\n"
        "assert 'cpk_fixture_funcs' in inner.list_registry_pickle_by_value()\n"
        /* Our classes are in stock's new tracker. */
        "assert inner._DYNAMIC_CLASS_TRACKER_BY_CLASS[K] == tid\n"
        "assert inner._DYNAMIC_CLASS_TRACKER_BY_ID[tid] is K\n";
    run_fresh(&p, which, dir, code, NULL, 0);
    cpk_proc_free(&p);
    cr_assert(unlink(link) == 0 && rmdir(dir) == 0);
}

Test(stock_sharing, reload_without_companion_shares_again_2)
{
    reload_without_companion(STOCK2);
}
Test(stock_sharing, reload_without_companion_shares_again_3)
{
    reload_without_companion(STOCK3);
}

/* With the companion, a reload gives the same result. */
static void
reload_with_companion(stock which)
{
    fresh_ok(which,
             "import importlib, ccloudpickle as cp, cloudpickle\n"
             "check_stock(cloudpickle)\n"
             "import cpk_fixture_funcs as m, cpk_fixture_pkg as pkg\n"
             "inner = cloudpickle.cloudpickle\n"
             "cp.register_pickle_by_value(m)\n"
             "class K:\n"
             "    pass\n"
             "tid = tracker_ids(cp.dumps(K))[0]\n"
             "importlib.reload(inner)\n"
             "assert inner._DYNAMIC_CLASS_TRACKER_BY_CLASS[K] == tid\n"
             "cloudpickle.register_pickle_by_value(pkg)\n"
             "assert cp.list_registry_pickle_by_value() == {'cpk_fixture_pkg'}\n"
             "assert by_value(cp.dumps, cp.loads, pkg.pkg_func)\n");
}

Test(stock_sharing, reload_with_companion_shares_again_2)
{
    reload_with_companion(STOCK2);
}
Test(stock_sharing, reload_with_companion_shares_again_3)
{
    reload_with_companion(STOCK3);
}

/* `del sys.modules['ccloudpickle']; import ccloudpickle` (test isolation,
 * reload helpers): the second module object shares stock's registry with
 * the first, and its watcher replaces the first one's (which kept the
 * first module alive for good). */
static void
second_module(stock which)
{
    fresh_ok(which,
             "import cloudpickle\n"
             "check_stock(cloudpickle)\n"
             "import cpk_fixture_funcs as m, cpk_fixture_pkg as pkg\n"
             "import ccloudpickle as old\n"
             "del sys.modules['ccloudpickle']\n"
             "import ccloudpickle as new\n"
             "assert new is not old\n"
             "old.register_pickle_by_value(m)\n"
             "want = {'cpk_fixture_funcs'}\n"
             "assert cloudpickle.list_registry_pickle_by_value() == want\n"
             "assert new.list_registry_pickle_by_value() == want\n"
             "new.register_pickle_by_value(pkg)\n"
             "want.add('cpk_fixture_pkg')\n"
             "assert old.list_registry_pickle_by_value() == want\n"
             "assert cloudpickle.list_registry_pickle_by_value() == want\n"
             "watchers = [f for f in sys.meta_path\n"
             "            if type(f).__name__ == '_StockWatcher']\n"
             "assert len(watchers) == 1, sys.meta_path\n");
}

Test(stock_sharing, second_module_object_joins_the_registry_2)
{
    second_module(STOCK2);
}
Test(stock_sharing, second_module_object_joins_the_registry_3)
{
    second_module(STOCK3);
}

/* The watcher is made by the module alone. */
Test(stock_sharing, watcher_not_instantiable)
{
    cpk_py("import sys, ccloudpickle\n"
           "w = [f for f in sys.meta_path if type(f).__name__ == '_StockWatcher']\n"
           "assert len(w) == 1\n"
           "W = type(w[0])\n"
           "assert w[0].find_spec('json') is None\n");
    cpk_py_raises("W()\n", "TypeError", NULL);
    cpk_py_raises("object.__new__(W)\n", "TypeError", NULL);
}

/* Stock's loader ------------------------------------------------------------ */

/* Stock imported after ccloudpickle: its loader keeps its type (a copy
 * with one instance attribute), copies, and does not stack on reloads;
 * sharing still follows each reload. */
static void
loader_kept(stock which)
{
    fresh_ok(which,
             "import copy, importlib, importlib.abc, importlib.machinery\n"
             "import ccloudpickle as cp\n"
             "assert 'cloudpickle' not in sys.modules\n"
             "import cloudpickle\n"
             "check_stock(cloudpickle)\n"
             "import cpk_fixture_funcs as m\n"
             "inner = cloudpickle.cloudpickle\n"
             "L = importlib.machinery.SourceFileLoader\n"
             "assert type(inner.__loader__) is L, inner.__loader__\n"
             "assert isinstance(inner.__loader__, importlib.abc.Loader)\n"
             "assert inner.__spec__.loader is inner.__loader__\n"
             "c = copy.copy(inner.__loader__)\n"
             "assert c.get_filename('cloudpickle.cloudpickle') == inner.__file__\n"
             "assert 'def ' in inner.__loader__.get_source('cloudpickle.cloudpickle')\n"
             "for _ in range(3):\n"
             "    importlib.reload(inner)\n"
             "    cp.register_pickle_by_value(m)\n"
             "    assert inner.list_registry_pickle_by_value() == {'cpk_fixture_funcs'}\n"
             "assert type(inner.__loader__) is L\n"
             "assert repr(inner.__loader__.exec_module).count('sharing') == 1\n"
             /* The package's own loader is untouched. */
             "assert 'exec_module' not in vars(cloudpickle.__loader__)\n");
}

Test(stock_sharing, stock_loader_kept_2) { loader_kept(STOCK2); }
Test(stock_sharing, stock_loader_kept_3) { loader_kept(STOCK3); }

/* Under the alias, reloading the alias's submodule gives back its own
 * spec and loader, not wrapped. */
Test(stock_sharing, alias_spec_not_wrapped)
{
    cpk_py_file("alias_spec_not_wrapped.py");
}
