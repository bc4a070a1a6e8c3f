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

/* found(data): the object; the (module, name) pairs find_class was asked
 * for (its audit event, which ours raises as pickle's does); and whether
 * the load took pickle's own find_class, which imports ccloudpickle
 * through builtins.__import__ (ours answers without importing). */
#define PRELUDE                                                              \
    "import ccloudpickle as cp, pickle, sys, types, math, builtins\n"        \
    "asked, imported = [], []\n"                                             \
    "def hook(event, args):\n"                                               \
    "    if event == 'pickle.find_class':\n"                                 \
    "        asked.append(tuple(args))\n"                                    \
    "sys.addaudithook(hook)\n"                                               \
    "real_import = builtins.__import__\n"                                    \
    "def counting_import(name, *a, **k):\n"                                  \
    "    imported.append(name)\n"                                            \
    "    return real_import(name, *a, **k)\n"                                \
    "def found(data, **kw):\n"                                               \
    "    del asked[:], imported[:]\n"                                        \
    "    builtins.__import__ = counting_import\n"                             \
    "    try:\n"                                                             \
    "        obj = cp.loads(data, **kw)\n"                                   \
    "    finally:\n"                                                         \
    "        builtins.__import__ = real_import\n"                             \
    "    return obj, list(asked), 'ccloudpickle' in imported\n"              \
    "SCALE = 2\n"                                                            \
    "def make(a):\n"                                                         \
    "    def task(x):\n"                                                     \
    "        return math.floor(x * SCALE) + a\n"                             \
    "    return task\n"                                                      \
    "task = make(3)\n"
#define FM "('ccloudpickle', '_function_make')"

Test(loads_fast, own_names_take_the_fast_path)
{
    cpk_py(PRELUDE
           "for proto in (4, 5):\n"
           "    data = cp.dumps((task, (1.5,), {}), protocol=proto)\n"
           "    (f, a, k), seen, fast = found(data)\n"
           "    assert f(*a, **k) == 6, f(*a, **k)\n"
           "    assert seen == [" FM "] and fast, (seen, fast)\n"
           /* protocols 0 to 3 write GLOBAL 'ccloudpickle\\n...': ours,
            * which raises the same audit event */
           "for proto in (0, 1, 2, 3):\n"
           "    data = cp.dumps(task, protocol=proto)\n"
           "    f, seen, fast = found(data)\n"
           "    assert f(1.5) == 6 and not fast, proto\n"
           "    assert " FM " in seen, (proto, seen)\n"
           /* the same pickle, loaded by plain pickle, is the same */
           "data = cp.dumps(task)\n"
           "assert pickle.loads(data)(2.5) == cp.loads(data)(2.5) == 8\n");
}

Test(loads_fast, others_take_our_unpickler)
{
    cpk_py(PRELUDE
           "data = cp.dumps(task)\n"
           /* sys.modules["ccloudpickle"] is not this module: ours finds
            * its names itself */
           "real = sys.modules['ccloudpickle']\n"
           "sys.modules['ccloudpickle'] = types.ModuleType('ccloudpickle')\n"
           "try:\n"
           "    f, seen, fast = found(data)\n"
           "finally:\n"
           "    sys.modules['ccloudpickle'] = real\n"
           "assert f(1.5) == 6 and not fast and seen == [" FM "], seen\n"
           /* stock cloudpickle's names: mapped to ours, which loads them
            * where cloudpickle cannot be imported */
           "stock = cp.dumps(lambda x: x + 1, compat='cloudpickle3')\n"
           "saved = {k: sys.modules.pop(k) for k in list(sys.modules)\n"
           "         if k == 'cloudpickle' or k.startswith('cloudpickle.')}\n"
           "sys.modules['cloudpickle'] = None\n"
           "try:\n"
           "    g, seen, fast = found(stock)\n"
           "finally:\n"
           "    del sys.modules['cloudpickle']\n"
           "    sys.modules.update(saved)\n"
           "assert g(1) == 2 and not fast and seen, seen\n"
           /* ours next to a mere mention of the word: our Unpickler,
            * which loads it the same */
           "both = cp.dumps((task, 'xcloudpickle'))\n"
           "(f, s), seen, fast = found(both)\n"
           "assert f(1.5) == 6 and s == 'xcloudpickle' and not fast\n"
           "assert seen == [" FM "], seen\n"
           /* plain data: pickle's loads, as before */
           "assert found(cp.dumps({'a': [1, 2.0]})) == ({'a': [1, 2.0]}, [],\n"
           "                                           False)\n");
}

/* A name this version lacks: the fast path's AttributeError becomes our
 * find_class's, the original as its cause; other errors stand. */
Test(loads_fast, missing_name_says_newer_version)
{
    cpk_py(PRELUDE
           "data = (b'\\x80\\x04\\x8c\\x0c' b'ccloudpickle\\x94\\x8c\\x0d'\n"
           "        b'_functoin_new\\x94\\x93\\x94.')\n"
           "for p in (data, data.replace(b'\\x80\\x04', b'\\x80\\x05')):\n"
           "    try:\n"
           "        cp.loads(p)\n"
           "    except AttributeError as e:\n"
           "        assert str(e) == ('this pickle needs '\n"
           "            'ccloudpickle._functoin_new, which ccloudpickle '\n"
           "            + cp.__version__ + ' does not have (written by a '\n"
           "            'newer version?)'), str(e)\n"
           "        assert isinstance(e.__cause__, AttributeError)\n"
           "    else:\n"
           "        raise AssertionError('loaded')\n"
           /* a missing attribute of something else is left alone, next
            * to our names too */
           "ours = (b'\\x8c\\x0c' b'ccloudpickle\\x94\\x8c\\x0e'\n"
           "        b'_function_make\\x94\\x93\\x94')\n"
           "nope = b'\\x8c\\x04math\\x8c\\x04nope\\x93'\n"
           "for p in (b'\\x80\\x04' + nope + b'.',\n"
           "          b'\\x80\\x04' + ours + nope + b'.'):\n"
           "    try:\n"
           "        cp.loads(p)\n"
           "    except AttributeError as e:\n"
           "        assert 'nope' in str(e) and 'newer' not in str(e), str(e)\n"
           "    else:\n"
           "        raise AssertionError('loaded')\n"
           /* review i11e: an AttributeError the load meets before a
            * missing name of ours is its own */
           "late = (b'\\x80\\x04\\x8c\\x08builtins\\x8c\\x07getattr\\x93'\n"
           "        b'(J\\x01\\x00\\x00\\x00\\x8c\\x04nopetR'\n"
           "        b'\\x8c\\x0c' b'ccloudpickle\\x8c\\x08_not_yet\\x93\\x86.')\n"
           "try:\n"
           "    cp.loads(late)\n"
           "except AttributeError as e:\n"
           "    assert 'nope' in str(e) and e.__cause__ is None, str(e)\n"
           "else:\n"
           "    raise AssertionError('loaded')\n");
}

/* Review i11e: bytes that merely look like our SHORT_BINUNICODE before a
 * GLOBAL of stock cloudpickle (a BININT2 argument) take our Unpickler,
 * which maps the stock name where cloudpickle cannot be imported. */
Test(loads_fast, stock_global_after_lookalike_bytes)
{
    cpk_py("import sys\n"
           "sys.modules['cloudpickle'] = None\n"
           "import ccloudpickle as cp\n"
           "p = (b'\\x80\\x02' + b'M\\x8c\\x0c' +\n"
           "     b'ccloudpickle\\n_make_empty_cell\\n' + b')R\\x86.')\n"
           "n, cell = cp.loads(p)\n"
           "assert n == 3212 and type(cell).__name__ == 'cell'\n"
           "try:\n"
           "    cell.cell_contents\n"
           "except ValueError:\n"
           "    pass\n"
           "else:\n"
           "    raise AssertionError('not empty')\n");
}
