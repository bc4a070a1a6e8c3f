/* test_mixed_stock.c - ccloudpickle and stock cloudpickle in one process
 * (src/core/stock.c): one by-value registry, whichever registers and in
 * whichever order the two are imported, and one class identity: a class
 * one of them rebuilt keeps its tracker id when the other pickles it, so
 * it comes back to the process that defined it as the same class. Each
 * case runs against Debian's cloudpickle 2.2, and against 3.x when
 * CPK_CLOUDPICKLE3 names a directory holding it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

TestSuite(mixed, .init = cpk_py_start, .fini = cpk_py_stop);

typedef enum { STOCK2, STOCK3 } stock;

/* The directory holding the stock cloudpickle under test, or "" for
 * Debian's (found through site-packages). Skips 3.x without
 * CPK_CLOUDPICKLE3. */
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

/* Checks the version of `import cloudpickle`, wherever the snippet runs. */
static const char *
version_check(stock which)
{
    return which == STOCK2
               ? "def check_stock(cp):\n"
                 "    assert cp.__version__.startswith('2.'), cp.__version__\n"
               : "def check_stock(cp):\n"
                 "    assert cp.__version__.startswith('3.'), cp.__version__\n";
}

/* Run `code` in a fresh CPK_PYTHON where ccloudpickle (the build), the
 * fixtures and the stock cloudpickle under test are importable, with
 * `in` on stdin; `libdir` replaces the build directory when not NULL.
 * Asserts exit 0; stdout is the caller's (cpk_proc_free). */
static void
run_fresh(cpk_proc *p, stock which, const char *libdir, const char *code,
          const char *in, size_t in_len)
{
    const char *dir = stock_dir(which);
    char full[16384], env_var[2048];
    snprintf(full, sizeof(full),
             "import sys\n"
             "%s"
             "def by_value(dumps, loads, f):\n"
             "    return loads(dumps(f)) is not f\n"
             "%s",
             version_check(which), code);
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

/* One registry ------------------------------------------------------------ */

/* Stock imported first registers; ccloudpickle, imported after, sees it;
 * ccloudpickle's unregistering is stock's too. */
static void
stock_registers_first(stock which)
{
    fresh_ok(which,
             "import cloudpickle\n"
             "check_stock(cloudpickle)\n"
             "import cpk_fixture_funcs as m\n"
             "cloudpickle.register_pickle_by_value(m)\n"
             "import ccloudpickle as cp\n"
             "assert cp.list_registry_pickle_by_value() == {'cpk_fixture_funcs'}\n"
             "assert by_value(cp.dumps, cp.loads, m.triple)\n"
             "cp.unregister_pickle_by_value(m)\n"
             "assert cloudpickle.list_registry_pickle_by_value() == set()\n"
             "assert not by_value(cloudpickle.dumps, cloudpickle.loads, m.triple)\n"
             "assert not by_value(cp.dumps, cp.loads, m.triple)\n");
}

Test(mixed, registry_stock_first_2) { stock_registers_first(STOCK2); }
Test(mixed, registry_stock_first_3) { stock_registers_first(STOCK3); }

/* ccloudpickle registers before stock is imported; stock, imported after
 * (the meta path watcher), pickles the module by value at once. */
static void
ours_registers_before_stock_import(stock which)
{
    fresh_ok(which,
             "import ccloudpickle as cp\n"
             "import cpk_fixture_funcs as m\n"
             "cp.register_pickle_by_value(m)\n"
             "assert 'cloudpickle' not in sys.modules\n"
             "import cloudpickle\n"
             "check_stock(cloudpickle)\n"
             "assert cloudpickle.list_registry_pickle_by_value() == {'cpk_fixture_funcs'}\n"
             "assert by_value(cloudpickle.dumps, cloudpickle.loads, m.triple)\n"
             "cloudpickle.unregister_pickle_by_value(m)\n"
             "assert cp.list_registry_pickle_by_value() == set()\n"
             "assert not by_value(cp.dumps, cp.loads, m.triple)\n");
}

Test(mixed, registry_ours_before_stock_import_2)
{
    ours_registers_before_stock_import(STOCK2);
}
Test(mixed, registry_ours_before_stock_import_3)
{
    ours_registers_before_stock_import(STOCK3);
}

/* Both imported (stock second), then each registers a module: both see
 * both. */
static void
both_imported_then_register(stock which)
{
    fresh_ok(which,
             "import ccloudpickle as cp\n"
             "import cloudpickle\n"
             "check_stock(cloudpickle)\n"
             "import cpk_fixture_funcs as m, cpk_fixture_pkg as pkg\n"
             "cloudpickle.register_pickle_by_value(m)\n"
             "cp.register_pickle_by_value(pkg)\n"
             "want = {'cpk_fixture_funcs', 'cpk_fixture_pkg'}\n"
             "assert cp.list_registry_pickle_by_value() == want\n"
             "assert cloudpickle.list_registry_pickle_by_value() == want\n"
             "for dumps, loads in ((cp.dumps, cp.loads),\n"
             "                     (cloudpickle.dumps, cloudpickle.loads)):\n"
             "    assert by_value(dumps, loads, m.triple)\n"
             "    assert by_value(dumps, loads, pkg.pkg_func)\n");
}

Test(mixed, registry_both_imported_2) { both_imported_then_register(STOCK2); }
Test(mixed, registry_both_imported_3) { both_imported_then_register(STOCK3); }

/* Without the companion module (only the extension on the path, as the
 * programs embed it), stock imported later still shares: at ccloudpickle's
 * next dump. */
Test(mixed, registry_without_companion_shares_at_next_dump)
{
    char dir[64], link[256], target[512];
    cpk_tmpdir(dir, sizeof(dir));
    /* The extension's file name has the interpreter's suffix: find it. */
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
    run_fresh(&p, STOCK2, dir,
              "import ccloudpickle as cp\n"
              "import cpk_fixture_funcs as m\n"
              "cp.register_pickle_by_value(m)\n"
              "import cloudpickle\n"
              "check_stock(cloudpickle)\n"
              "try:\n"
              "    import _ccloudpickle_stock\n"
              "    raise AssertionError('the companion is importable')\n"
              "except ImportError:\n"
              "    pass\n"
              "import cpk_fixture_pkg as pkg\n"
              "cloudpickle.register_pickle_by_value(pkg)\n"
              "assert by_value(cp.dumps, cp.loads, pkg.pkg_func)\n"
              "assert by_value(cloudpickle.dumps, cloudpickle.loads, m.triple)\n",
              NULL, 0);
    cpk_proc_free(&p);
    cr_assert(unlink(link) == 0 && rmdir(dir) == 0);
}

/* The stock module's registry is ccloudpickle's set itself, in 2.2 and
 * 3.x: the private name both keep. */
static void
registry_is_one_set(stock which)
{
    fresh_ok(which,
             "import cloudpickle, cloudpickle.cloudpickle as inner\n"
             "import ccloudpickle as cp, cpk_fixture_funcs as m\n"
             "check_stock(cloudpickle)\n"
             "assert isinstance(inner._PICKLE_BY_VALUE_MODULES, set)\n"
             "cp.register_pickle_by_value(m)\n"
             "assert inner._PICKLE_BY_VALUE_MODULES == {'cpk_fixture_funcs'}\n");
}

Test(mixed, registry_is_one_set_2) { registry_is_one_set(STOCK2); }
Test(mixed, registry_is_one_set_3) { registry_is_one_set(STOCK3); }

/* One class identity ------------------------------------------------------- */

/* This process (A) defines classes and pickles them with ccloudpickle; a
 * fresh one (B) loads them with ccloudpickle and sends them back pickled
 * by STOCK cloudpickle, imported before or after the load; A gets its own
 * classes back. */
static void
ours_out_stock_back(stock which, int stock_after)
{
    (void)stock_dir(which);
    cpk_py("import enum, ccloudpickle as cp\n"
           "class C:\n"
           "    def m(self):\n"
           "        return 42\n"
           "class E(enum.Enum):\n"
           "    A = 1\n"
           "data = cp.dumps([C, C(), E, E.A])\n");
    size_t len;
    char *data = cpk_py_bytes("data", &len);
    char code[2048];
    snprintf(code, sizeof(code),
             "import ccloudpickle\n"
             "if not %d:\n"
             "    import cloudpickle\n"
             "objs = ccloudpickle.loads(sys.stdin.buffer.read())\n"
             "import cloudpickle\n"
             "check_stock(cloudpickle)\n"
             "assert objs[1].m() == 42\n"
             "sys.stdout.buffer.write(cloudpickle.dumps(\n"
             "    [objs[0], objs[1], type(objs[1]), objs[2], objs[3]]))\n",
             stock_after);
    cpk_proc p;
    run_fresh(&p, which, NULL, code, data, len);
    free(data);
    PyObject *back = PyBytes_FromStringAndSize(p.out, (Py_ssize_t)p.out_len);
    cr_assert(back != NULL);
    cr_assert(PyDict_SetItemString(PyModule_GetDict(PyImport_AddModule(
                                       "__main__")),
                                   "back", back) == 0);
    Py_DECREF(back);
    cpk_proc_free(&p);
    cpk_py("objs = cp.loads(back)\n"
           "assert objs[0] is C, 'the class came back as another class'\n"
           "assert type(objs[1]) is C and objs[2] is C\n"
           "assert objs[3] is E and objs[4] is E.A\n");
}

Test(mixed, identity_ours_out_stock_back_2)
{
    ours_out_stock_back(STOCK2, 0);
}
Test(mixed, identity_ours_out_stock_imported_later_back_2)
{
    ours_out_stock_back(STOCK2, 1);
}
Test(mixed, identity_ours_out_stock_back_3)
{
    ours_out_stock_back(STOCK3, 0);
}
Test(mixed, identity_ours_out_stock_imported_later_back_3)
{
    ours_out_stock_back(STOCK3, 1);
}

/* The reverse: A pickles with stock cloudpickle, B loads with stock and
 * sends back pickled by ccloudpickle; A loads with ccloudpickle.loads, and
 * with plain pickle.loads, and gets its classes. */
static void
stock_out_ours_back(stock which)
{
    const char *dir = stock_dir(which);
    char setup[1024];
    snprintf(setup, sizeof(setup),
             "import sys, pickle\n"
             "if %d: sys.path.insert(0, __import__('os').environ['CPK_CLOUDPICKLE3'])\n"
             "import cloudpickle, ccloudpickle as cp\n"
             "%s"
             "check_stock(cloudpickle)\n"
             "class D:\n"
             "    def m(self):\n"
             "        return 7\n"
             "data = cloudpickle.dumps([D, D()])\n",
             *dir != '\0', version_check(which));
    cpk_py(setup);
    size_t len;
    char *data = cpk_py_bytes("data", &len);
    cpk_proc p;
    run_fresh(&p, which, NULL,
              "import cloudpickle, pickle\n"
              "check_stock(cloudpickle)\n"
              "objs = pickle.loads(sys.stdin.buffer.read())\n"
              "assert 'ccloudpickle' not in sys.modules\n"
              "import ccloudpickle\n"
              "sys.stdout.buffer.write(ccloudpickle.dumps(\n"
              "    [objs[0], objs[1], type(objs[1])]))\n",
              data, len);
    free(data);
    PyObject *back = PyBytes_FromStringAndSize(p.out, (Py_ssize_t)p.out_len);
    cr_assert(back != NULL);
    cr_assert(PyDict_SetItemString(PyModule_GetDict(PyImport_AddModule(
                                       "__main__")),
                                   "back", back) == 0);
    Py_DECREF(back);
    cpk_proc_free(&p);
    cpk_py("for objs in (cp.loads(back), pickle.loads(back)):\n"
           "    assert objs[0] is D, 'the class came back as another class'\n"
           "    assert type(objs[1]) is D and objs[2] is D\n");
}

Test(mixed, identity_stock_out_ours_back_2) { stock_out_ours_back(STOCK2); }
Test(mixed, identity_stock_out_ours_back_3) { stock_out_ours_back(STOCK3); }

/* In one process: the classes ccloudpickle tracks are in stock's tracker
 * under the same ids, tracked before stock's import (pushed by the
 * watcher) or after (mirrored), and stock's ids are ccloudpickle's. */
static void
rebuilt_class_in_stock_tracker(stock which)
{
    fresh_ok(which,
             "import ccloudpickle as cp\n"
             "class K:\n"
             "    pass\n"
             "class L:\n"
             "    pass\n"
             /* Tracked by ccloudpickle before stock is imported ... */
             "rebuilt = cp.loads(cp.dumps([K, L]))\n"
             "assert rebuilt == [K, L]\n"
             "assert 'cloudpickle' not in sys.modules\n"
             "import cloudpickle\n"
             "check_stock(cloudpickle)\n"
             "inner = cloudpickle.cloudpickle\n"
             "tid = inner._DYNAMIC_CLASS_TRACKER_BY_CLASS[K]\n"
             "assert inner._DYNAMIC_CLASS_TRACKER_BY_ID[tid] is K\n"
             "assert inner._get_or_create_tracker_id(L) == \\\n"
             "    inner._DYNAMIC_CLASS_TRACKER_BY_CLASS[L]\n"
             /* Tracked after stock's import: mirrored at once. */
             "class M:\n"
             "    pass\n"
             "cp.dumps(M)\n"
             "assert M in inner._DYNAMIC_CLASS_TRACKER_BY_CLASS\n"
             /* and stock's ids are ours. */
             "class N:\n"
             "    pass\n"
             "inner._get_or_create_tracker_id(N)\n"
             "assert cp.loads(cloudpickle.dumps(N)) is N\n"
             "assert cloudpickle.loads(cp.dumps(N)) is N\n");
}

Test(mixed, rebuilt_class_in_stock_tracker_2)
{
    rebuilt_class_in_stock_tracker(STOCK2);
}
Test(mixed, rebuilt_class_in_stock_tracker_3)
{
    rebuilt_class_in_stock_tracker(STOCK3);
}
