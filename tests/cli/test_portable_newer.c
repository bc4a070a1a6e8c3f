/* test_portable_newer.c - portable pickles of a newer CPython
 * (tests/fixtures/newer/, written by 3.11 with its write.py): where this
 * Python's classes lack the state that one's objects carry (3.9's
 * dataclasses.Field has no kw_only), the load fails with the version
 * error, exit 3 (src/engine/versionerror.c), caused by the original error; where
 * they have it, the pickle loads and works. Errors that are the pickle's
 * own stay as they are under every version: a __setstate__ that raises,
 * a missing module, a name a module lacks (exit 4). A forged "3.99"
 * pickle (magic 9999, a Field slot renamed to one no Python has) checks
 * the rule under every Python, the one `make test` runs included. */
#include <stdio.h>
#include <string.h>

#include "support.h"

#define NEWER CPK_FIXTURES "/newer"

TestSuite(portable_newer, .init = cpk_py_start, .fini = cpk_py_stop);

/* 3.9 lacks Field.kw_only (added in 3.10): the 3.11 dataclass loads from
 * 3.10 on. */
#define REBUILDS (PY_VERSION_HEX >= 0x030A0000)

/* Python: check(e) asserts e is the version error of a pickle of
 * Python THEIRS whose AttributeError says SLOT is missing, caused by it. */
#define CHECK_FMT                                                             \
    "import io, pickle, sys, ccloudpickle as cp\n"                            \
    "mine = '%%d.%%d' %% sys.version_info[:2]\n"                              \
    "def check(e, theirs, slot):\n"                                           \
    "    assert type(e) is pickle.UnpicklingError, repr(e)\n"                 \
    "    c = e.__cause__\n"                                                   \
    "    assert type(c) is AttributeError, repr(c)\n"                         \
    "    assert str(c).startswith(\"'Field' object has no attribute '%%s'\"\n"\
    "                             %% slot), c\n"                              \
    "    want = ('this pickle holds code compiled by Python %%s, with '\n"    \
    "            'objects Python %%s cannot rebuild (AttributeError: %%s): '\n"\
    "            'load it with Python %%s' %% (theirs, mine, c, theirs))\n"   \
    "    assert str(e) == want, (str(e), want)\n"

Test(portable_newer, dataclass_fixture)
{
    char code[4096];
    snprintf(code, sizeof(code),
             CHECK_FMT
             "path = '" NEWER "/dataclass.pkl'\n"
             "data = open(path, 'rb').read()\n"
             "loads = [lambda: cp.loads(data),\n"
             "         lambda: cp.load(io.BytesIO(data)),\n"
             "         lambda: cp.load(open(path, 'rb'))]\n"
             "for load in loads:\n"
             "    if %d:\n"
             "        Item, use = load()\n"
             "        assert use(4) == ('item', 40, ['name', 'n']), use(4)\n"
             "        assert Item().total() == 20\n"
             "        continue\n"
             "    try:\n"
             "        load()\n"
             "    except pickle.UnpicklingError as e:\n"
             "        check(e, '3.11', 'kw_only')\n"
             "    else:\n"
             "        raise AssertionError('loaded')\n",
             REBUILDS);
    cpk_py(code);
}

Test(portable_newer, dataclass_fixture_cli)
{
    cpk_proc p;
    cpk_spawn(&p, (const char *[]){CPK_LOAD, "--load",
                                   NEWER "/dataclass.pkl", NULL},
              NULL, NULL, 0, NULL);
    if (REBUILDS) {
        cpk_assert_exit(&p, 0);
        cr_assert_str_eq(p.err, "");
    }
    else {
        cpk_assert_exit(&p, 3);
        char want[1024];
        snprintf(want, sizeof(want),
                 "cloudpickle-load: " NEWER "/dataclass.pkl: bad pickle: "
                 "this pickle holds code compiled by Python 3.11, with "
                 "objects Python %d.%d cannot rebuild (AttributeError: "
                 "'Field' object has no attribute 'kw_only'): load it with "
                 "Python 3.11\n",
                 PY_MAJOR_VERSION, PY_MINOR_VERSION);
        cr_assert_str_eq(p.err, want);
        cr_assert_eq(p.out_len, 0);
    }
    cpk_proc_free(&p);
}

/* The pickle's own errors, under every version (the pickles are 3.11's:
 * newer than 3.9 and 3.10, the same as 3.11). */
Test(portable_newer, own_errors_stay)
{
    cpk_py("NEWER = '" NEWER "'\n");
    cpk_py_file("own_errors_stay.py");
}

Test(portable_newer, own_errors_stay_cli)
{
    static const struct {
        char name[32], line[160];
    } cases[] = {
        {"setstate.pkl", "cannot load: ValueError: refused state ['value']\n"},
        {"gone_module.pkl", "cannot load, a module is missing: "
                            "ModuleNotFoundError: No module named "
                            "'cpk_newer_gone'\n"},
        {"gone_name.pkl", "cannot load: AttributeError: Can't get attribute "
                          "'cpk_gone_name' on <module 'math'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512], want[1024];
        snprintf(path, sizeof(path), NEWER "/%.31s", cases[i].name);
        snprintf(want, sizeof(want), "cloudpickle-load: %s: %.159s", path,
                 cases[i].line);
        cpk_proc p;
        cpk_spawn(&p, (const char *[]){CPK_LOAD, "--load", path, NULL}, NULL,
                  NULL, 0, NULL);
        cpk_assert_exit(&p, 4);
        cr_assert(strncmp(p.err, want, strlen(want)) == 0, "%s\n%s",
                  p.err, want);
        cr_assert(strchr(p.err, '\n') == p.err + p.err_len - 1, "%s",
                  p.err);
        cpk_proc_free(&p);
    }
}

/* The 3.11 fixture made a "3.99" pickle: its code's version and magic
 * forged (each function compiles from its source here), a slot of its
 * Fields renamed to one no Python has. */
#define FORGE                                                                 \
    "import struct\n"                                                         \
    "data = open('" NEWER "/dataclass.pkl', 'rb').read()\n"                   \
    "def swap(data, old, new):\n"                                             \
    "    assert len(old) == len(new) and old in data, old\n"                  \
    "    return data.replace(old, new)\n"                                     \
    "data = swap(data, b'\\x8c\\x043.11', b'\\x8c\\x043.99')\n"               \
    "data = swap(data, b'J' + struct.pack('<I', 3495 | 0x0a0d << 16),\n"      \
    "            b'J' + struct.pack('<I', 9999 | 0x0a0d << 16))\n"            \
    "data = swap(data, b'\\x8c\\x07kw_only', b'\\x8c\\x07kw_onlz')\n"

Test(portable_newer, forged_newer_python)
{
    char dir[64], path[128], code[4096];
    cpk_tmpdir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/forged.pkl", dir);
    snprintf(code, sizeof(code),
             CHECK_FMT FORGE
             "for load in (lambda: cp.loads(data),\n"
             "             lambda: cp.load(io.BytesIO(data))):\n"
             "    try:\n"
             "        load()\n"
             "    except pickle.UnpicklingError as e:\n"
             "        check(e, '3.99', 'kw_onlz')\n"
             "    else:\n"
             "        raise AssertionError('loaded')\n"
             "open('%s', 'wb').write(data)\n",
             path);
    cpk_py(code);
    cpk_proc p;
    cpk_spawn(&p, (const char *[]){CPK_LOAD, "--load", path, NULL}, NULL,
              NULL, 0, NULL);
    cpk_assert_exit(&p, 3);
    char want[512];
    snprintf(want, sizeof(want),
             "cloudpickle-load: %s: bad pickle: this pickle holds code "
             "compiled by Python 3.99, with objects Python %d.%d cannot "
             "rebuild (AttributeError: 'Field' object has no attribute '%s'",
             path, PY_MAJOR_VERSION, PY_MINOR_VERSION, "kw_onlz");
    cr_assert(strncmp(p.err, want, strlen(want)) == 0, "%s\n%s", p.err,
              want);
    cpk_proc_free(&p);
}

/* tests/portable/newer_rule.py: the rule's both sides on forged newer
 * pickles of a portable function (every Python): a C type refusing its
 * arguments is the version error; an OSError, a ValueError, an EOFError,
 * a same-version "newer" magic keep their own; a stream of newer pickles
 * read to its end ends with EOFError; a plain pickle failing after a
 * newer one in a file is not blamed on it. */
Test(portable_newer, rule_on_forged_pickles)
{
    char dir[64], code[512];
    cpk_tmpdir(dir, sizeof(dir));
    snprintf(code, sizeof(code),
             "TMP = '%s'\n"
             "path = '" CPK_SOURCE_DIR "/tests/portable/newer_rule.py'\n"
             "exec(compile(open(path).read(), path, 'exec'))\n",
             dir);
    cpk_py(code);
}
