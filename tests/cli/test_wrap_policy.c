/* test_wrap_policy.c - ccloudpickle.wrap() against the import policy and
 * the stock formats (hostile review of issue 9, H1, M4, L6).
 *
 * A wrapper pickles as _ccloudpickle_engines._rebuild(bytes, keep): a
 * nested unpickler. The static check calls it dangerous (nested
 * unpickling), so a policy runs it only when an allow rule names it, and
 * then loads the inner pickle under the same rules; the describe report
 * flags it. A wrapper refuses the stock formats (compat=...) at dump
 * time, whose loaders cannot rebuild it. MemoryError from the wrapped
 * object's reduction propagates as itself. */
#include "support.h"

TestSuite(wrap_policy, .init = cpk_py_start, .fini = cpk_py_stop);

/* The review's reproduction: an inner pickle that runs a command (here:
 * creates `marker`), inside an outer pickle that calls _rebuild on it. */
#define NESTED                                                               \
    "import ccloudpickle as cp, pickle, os, tempfile\n"                      \
    "import _ccloudpickle_engines as E\n"                                    \
    "marker = os.path.join(tempfile.mkdtemp(), 'marker')\n"                  \
    "class R:\n"                                                             \
    "    def __reduce__(self):\n"                                            \
    "        return (os.system, ('touch ' + marker,))\n"                     \
    "inner = pickle.dumps(R())\n"                                            \
    "class W:\n"                                                             \
    "    def __reduce__(self):\n"                                            \
    "        return (E._rebuild, (inner, False))\n"                          \
    "outer = pickle.dumps(W())\n"                                            \
    "def refused(fragment, **kw):\n"                                         \
    "    try:\n"                                                             \
    "        cp.loads(outer, **kw)\n"                                        \
    "    except cp.PolicyError as e:\n"                                      \
    "        assert fragment in str(e), (fragment, str(e))\n"                \
    "        assert not os.path.exists(marker), 'the inner pickle ran'\n"    \
    "        assert cp._load_policy.get(None) is None\n"                     \
    "        return\n"                                                       \
    "    raise AssertionError('not refused: %r' % (kw,))\n"

/* A deny list alone never lets the nested unpickler run. */
Test(wrap_policy, deny_only_refuses_rebuild)
{
    cpk_py(NESTED);
    cpk_py("refused('_ccloudpickle_engines._rebuild',\n"
           "        deny=['os', 'os.*', 'posix*'])\n"
           "refused('_ccloudpickle_engines._rebuild', deny=['nothing'])\n"
           "refused('_ccloudpickle_engines._rebuild', allow=[])\n"
           "refused('_ccloudpickle_engines._rebuild', allow=['*'])\n");
}

/* allow= naming _rebuild lets it run, and the inner pickle is loaded
 * under the same rules: its os.system is refused (loads and load). */
Test(wrap_policy, allowed_rebuild_loads_inner_under_the_policy)
{
    cpk_py(NESTED);
    cpk_py("import io\n"
           "refused('posix.system', allow=['_ccloudpickle_engines._rebuild'])\n"
           "refused('posix.system', allow=['_ccloudpickle_engines.*'])\n"
           "refused('posix.system', allow=['_ccloudpickle_engines._rebuild'],\n"
           "        deny=['posix*'])\n"
           "try:\n"
           "    cp.load(io.BytesIO(outer),\n"
           "            allow=iter(['_ccloudpickle_engines._rebuild']))\n"
           "except cp.PolicyError as e:\n"
           "    assert 'posix.system' in str(e), str(e)\n"
           "else:\n"
           "    raise AssertionError('load() ran the inner pickle')\n"
           "assert not os.path.exists(marker)\n"
           "assert cp._load_policy.get(None) is None\n");
}

/* What must keep working: a wrapped lambda and a wrapped class instance
 * load under a policy that names _rebuild (and the inner pickle's own
 * imports), with and without keep_wrapper; without a policy, plain
 * pickle.loads needs nothing. The context variable is only set during a
 * policed load. */
Test(wrap_policy, wrapped_objects_load_under_a_policy)
{
    cpk_py("import ccloudpickle as cp, pickle\n"
           "rb = '_ccloudpickle_engines._rebuild'\n"
           "f = cp.wrap(lambda x: x + 1)\n"
           "g = cp.loads(pickle.dumps(f), allow=[rb])\n"
           "assert g(1) == 2 and type(g) is type(f)\n"
           "h = cp.loads(pickle.dumps(cp.wrap(lambda: 7, keep_wrapper=False)),\n"
           "             deny=['os'], allow=[rb])\n"
           "assert h() == 7 and type(h).__name__ == 'function'\n"
           "import os\n"
           "w = cp.wrap(os.getcwd)\n"
           "assert cp.loads(pickle.dumps(w), allow=[rb, 'posix.getcwd'])"
           ".__wrapped__ is os.getcwd\n"
           "try:\n"
           "    cp.loads(pickle.dumps(w), allow=[rb])\n"
           "except cp.PolicyError as e:\n"
           "    assert 'posix.getcwd' in str(e), str(e)\n"
           "else:\n"
           "    raise AssertionError('the inner import was not policed')\n"
           "assert pickle.loads(pickle.dumps(f))(2) == 3\n"
           "import _ccloudpickle_engines as E\n"
           "class Spy:\n"
           "    def __reduce__(self):\n"
           "        return (E._rebuild, (pickle.dumps(0), False))\n"
           "assert cp._load_policy.get(None) is None\n"
           "assert cp.loads(pickle.dumps([Spy()]), allow=[rb]) == [0]\n"
           "assert cp._load_policy.get(None) is None\n");
}

/* The describe report flags _rebuild as a nested unpickler. */
Test(wrap_policy, describe_flags_rebuild)
{
    char dir[256], path[300];
    cpk_tmpdir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/outer.pkl", dir);
    cpk_python_to_file(
        path, "import pickle, sys, _ccloudpickle_engines as E\n"
              "class R:\n"
              "    def __reduce__(self):\n"
              "        import os\n"
              "        return (os.system, ('echo PWNED',))\n"
              "class W:\n"
              "    def __reduce__(self):\n"
              "        return (E._rebuild, (pickle.dumps(R()), False))\n"
              "sys.stdout.buffer.write(pickle.dumps(W()))\n");
    const char *argv[] = {CPK_LOAD, path, NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, NULL, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "_ccloudpickle_engines._rebuild  DANGEROUS: "
                            "nested unpickling") != NULL,
              "%s", p.out);
    cr_assert(strstr(p.out, "verdict    DANGEROUS") != NULL, "%s", p.out);
    cpk_proc_free(&p);
    /* and a deny-only policy of the program refuses it */
    const char *argv2[] = {CPK_LOAD, "--deny", "posix", "--load", path, NULL};
    cpk_spawn(&p, argv2, NULL, NULL, 0, NULL);
    cr_assert(p.exited && p.status != 0, "%s", p.out);
    cr_assert(strstr(p.err, "_ccloudpickle_engines._rebuild refused") != NULL,
              "%s", p.err);
    cr_assert(strstr(p.out, "PWNED") == NULL, "%s", p.out);
    cpk_proc_free(&p);
    /* --allow naming it: the program loads through loads(allow=...), so
     * the inner pickle is policed too */
    const char *argv3[] = {CPK_LOAD, "-P", CPK_BUILD_DIR, "--allow",
                           "_ccloudpickle_engines._rebuild", "--load", path,
                           NULL};
    cpk_spawn(&p, argv3, NULL, NULL, 0, NULL);
    cr_assert(p.exited && p.status != 0, "%s", p.out);
    cr_assert(strstr(p.err, "posix.system") != NULL, "%s", p.err);
    cr_assert(strstr(p.out, "PWNED") == NULL, "%s", p.out);
    cpk_proc_free(&p);
    unlink(path);
    rmdir(dir);
}

/* Every stock format refuses a wrapper at dump time, naming the target,
 * also nested in a container and through a Pickler; the wrapped object
 * itself goes; the native format is unchanged. */
Test(wrap_policy, stock_formats_refuse_wrappers)
{
    cpk_py("import ccloudpickle as cp, pickle, io\n"
           "f = cp.wrap(lambda: 1)\n"
           "values = ['cloudpickle', 'cloudpickle2', 'cloudpickle3', '2.0',\n"
           "          '2.0.0', '2.1', '2.1.0', '2.2', '2.2.0', '2.2.1', '3.0',\n"
           "          '3.0.0', '3.1', '3.1.0', '3.1.1', '3.1.2']\n"
           "for c in values:\n"
           "    for obj in (f, [1, f], cp.wrap(3), cp.wrap(int)):\n"
           "        try:\n"
           "            cp.dumps(obj, compat=c)\n"
           "        except pickle.PicklingError as e:\n"
           "            assert 'ccloudpickle.wrap()' in str(e), str(e)\n"
           "            assert 'cloudpickle ' in str(e), str(e)\n"
           "            assert '__wrapped__' in str(e), str(e)\n"
           "        else:\n"
           "            raise AssertionError('compat=%s pickled a wrapper' % c)\n"
           "    cp.loads(cp.dumps(f.__wrapped__, compat=c))\n"
           "try:\n"
           "    cp.Pickler(io.BytesIO(), compat='2.2').dump(f)\n"
           "except pickle.PicklingError as e:\n"
           "    assert 'cloudpickle 2.' in str(e), str(e)\n"
           "else:\n"
           "    raise AssertionError('Pickler(compat=) pickled a wrapper')\n"
           "assert cp.loads(cp.dumps(f))() == 1\n"
           "assert pickle.loads(pickle.dumps(f))() == 1\n");
}

/* MemoryError raised while the wrapped object is pickled propagates as
 * itself; an ordinary error becomes PicklingError naming the object. */
Test(wrap_policy, memory_error_propagates)
{
    cpk_py("import ccloudpickle as cp, pickle\n"
           "class Boom:\n"
           "    def __init__(self, exc): self.exc = exc\n"
           "    def __reduce__(self): raise self.exc\n"
           "    def __repr__(self): return '<Boom>'\n"
           "try:\n"
           "    pickle.dumps(cp.wrap(Boom(MemoryError())))\n"
           "except MemoryError:\n"
           "    pass\n"
           "else:\n"
           "    raise AssertionError('MemoryError did not propagate')\n"
           "try:\n"
           "    pickle.dumps(cp.wrap(Boom(ValueError('no'))))\n"
           "except pickle.PicklingError as e:\n"
           "    assert 'Boom' in str(e) and 'no' in str(e), str(e)\n"
           "else:\n"
           "    raise AssertionError('ValueError not turned into PicklingError')\n");
}
