/* test_format_marker.c - the format numbers (src/scan/format.c, doc/FORMAT.md):
 * format 5 writes format 4's bytes (no marker: a marker opens a pickle
 * only from the first format that adds a name, CPK_FORMAT_MARKED);
 * format=N writes what the release of format N loads (_function_make's
 * older shapes, names it lacks refused); markers of this format and older
 * ones load as no-ops; a newer one is refused with the upgrade message by
 * loads, pickle.loads and cloudpickle-load (exit 3). */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccloudpickle.h" /* CPK_VERSION */

TestSuite(format_marker, .init = cpk_py_start, .fini = cpk_py_stop);

#define PRELUDE                                                              \
    "import ccloudpickle as cp, pickle, math, threading, io\n"               \
    "MK = b'_format_%d_%s' % (cp.FORMAT, "                                   \
    "cp.__version__.replace('.', '_').encode())\n"                           \
    "def make(a):\n"                                                         \
    "    def task(x):\n"                                                     \
    "        return math.floor(x) + a\n"                                     \
    "    return task\n"                                                      \
    "task = make(3)\n"                                                     \
    "def marked(data, name):\n"                                             \
    "    at = 2 if data[:1] == b'\\x80' else 0\n"                           \
    "    if data[1:2] >= b'\\x04' and at:\n"                                 \
    "        op = (b'\\x8c\\x0cccloudpickle\\x8c' + bytes([len(name)]) +\n"  \
    "              name + b'\\x930')\n"                                       \
    "    else:\n"                                                           \
    "        op = b'cccloudpickle\\n' + name + b'\\n0'\n"                    \
    "    return data[:at] + op + data[at:]\n"

Test(format_marker, current_pickles_carry_no_marker)
{
    cpk_py(PRELUDE
           "assert cp.FORMAT == 5, cp.FORMAT\n"
           "for proto in range(6):\n"
           "    data = cp.dumps(task, protocol=proto)\n"
           "    assert b'_format_' not in data, (proto, data[:40])\n"
           "    assert data == cp.dumps(task, protocol=proto, format=4)\n"
           "    assert cp.loads(data)(2.5) == 5\n"
           "    f = io.BytesIO()\n"
           "    cp.Pickler(f, protocol=proto).dump(task)\n"
           "    assert f.getvalue() == data, proto\n"
           /* a marker of this format or an older one is a no-op */
           "    for name in (MK, b'_format_1_0_1_0'):\n"
           "        m = marked(data, name)\n"
           "        assert cp.loads(m)(2.5) == 5, (proto, name)\n"
           "        assert pickle.loads(m)(2.5) == 5, (proto, name)\n"
           "f = io.BytesIO()\n"
           "cp.Pickler(f).dump([b'x' * 300000, task])\n"
           "assert b'_format_' not in f.getvalue()\n"
           "assert cp.loads(f.getvalue())[1](1) == 4\n");
}

Test(format_marker, older_formats)
{
    cpk_py(PRELUDE
           "seen = {}\n"
           "for n in range(1, cp.FORMAT + 1):\n"
           "    data = cp.dumps(task, format=n)\n"
           "    assert cp.loads(data)(2.5) == 5, n\n"
           "    f = io.BytesIO()\n"
           "    cp.Pickler(f, format=n).dump(task)\n"
           "    assert f.getvalue() == data, n\n"
           "    f = io.BytesIO()\n"
           "    cp.dump(task, f, format=n)\n"
           "    assert f.getvalue() == data, n\n"
           "    seen[n] = data\n"
           "assert seen[5] == seen[4]\n"
           /* 4: modules as _function_make's fifth argument; 3: by
            * subimport; 2: the code not inline; 1: no _function_make */
           "assert b'subimport' not in seen[4] and b'subimport' in seen[3]\n"
           "assert b'_code_unmarshal' not in seen[3]\n"
           "assert b'_code_unmarshal' in seen[2]\n"
           "assert b'_function_make' in seen[2]\n"
           "assert b'_function_make' not in seen[1]\n"
           "assert b'_function_fill' in seen[1]\n"
           /* what format 1 cannot carry */
           "lock = threading.Lock()\n"
           "def uses():\n"
           "    return lock\n"
           "try:\n"
           "    cp.dumps(uses, format=1)\n"
           "except cp.PicklingError as e:\n"
           "    assert str(e).startswith(\"Can't pickle for format 1 \"\n"
           "        '(ccloudpickle 0.1.0): its loaders have no _make_lock'), e\n"
           "else:\n"
           "    raise AssertionError('format 1 wrote a lock')\n"
           "assert cp.loads(cp.dumps(uses, format=2))().acquire()\n");
}

Test(format_marker, bad_values)
{
    cpk_py(PRELUDE
           "def fails(exc, msg, **kw):\n"
           "    for call in (lambda: cp.dumps(task, **kw),\n"
           "                 lambda: cp.dump(task, io.BytesIO(), **kw),\n"
           "                 lambda: cp.Pickler(io.BytesIO(), **kw)):\n"
           "        try:\n"
           "            call()\n"
           "        except exc as e:\n"
           "            assert str(e) == msg, (str(e), msg)\n"
           "        else:\n"
           "            raise AssertionError(kw)\n"
           "rng = 'format must be 1 to 5 (the formats of ccloudpickle 0.1.0 '\n"
           "rng += 'to %s), not ' % cp.__version__\n"
           "fails(ValueError, rng + '0', format=0)\n"
           "fails(ValueError, rng + '6', format=6)\n"
           "fails(ValueError, rng + '-1', format=-1)\n"
           "fails(ValueError, rng + str(2**70), format=2**70)\n"
           "fails(TypeError, 'format must be an int or None, not str',\n"
           "      format='5')\n"
           "fails(TypeError, 'format must be an int or None, not bool',\n"
           "      format=True)\n"
           "fails(ValueError, \"format= cannot be combined with compat=: \"\n"
           "      \"format= numbers ccloudpickle's formats, compat= names a \"\n"
           "      \"stock cloudpickle\", format=4, compat='cloudpickle3')\n");
}

/* A pickle of the next format (its marker fabricated): loads and
 * pickle.loads raise FormatError, an UnpicklingError, with the message
 * of doc/FORMAT.md, before anything else in the pickle runs. */
Test(format_marker, newer_format_refused)
{
    cpk_py(PRELUDE
           "nxt = b'_format_%d_9_8_7' % (cp.FORMAT + 1)\n"
           "want = ('written by ccloudpickle 9.8.7 for format %d; this is '\n"
           "        'ccloudpickle %s (format %d): upgrade the loading side, '\n"
           "        'or write with format=%d' % (cp.FORMAT + 1,\n"
           "        cp.__version__, cp.FORMAT, cp.FORMAT))\n"
           "assert issubclass(cp.FormatError, pickle.UnpicklingError)\n"
           "for proto in (2, 5):\n"
           "    data = marked(cp.dumps(task, protocol=proto), nxt)\n"
           "    for loads in (cp.loads, pickle.loads):\n"
           "        try:\n"
           "            loads(data)\n"
           "        except cp.FormatError as e:\n"
           "            assert str(e) == want, str(e)\n"
           "        else:\n"
           "            raise AssertionError('loaded')\n"
           /* markers of this and older formats are no-ops; others are
            * names this module lacks */
           "assert cp._format_1_0_1_0 is None and getattr(cp, MK.decode()) is None\n"
           "for name in ('_format_', '_format_x', '_format_5_0_6', 'nope'):\n"
           "    try:\n"
           "        getattr(cp, name)\n"
           "    except AttributeError:\n"
           "        pass\n"
           "    else:\n"
           "        raise AssertionError(name)\n");
}

/* cloudpickle-load: the static report and --call both refuse a newer
 * format with the message, exit 3; the current one loads and calls. */
Test(format_marker, cli_refuses_newer_format)
{
    char dir[64], cur[128], nxt[128];
    cpk_tmpdir(dir, sizeof dir);
    snprintf(cur, sizeof cur, "%s/cur.pkl", dir);
    snprintf(nxt, sizeof nxt, "%s/next.pkl", dir);
    cpk_python_to_file(cur, PRELUDE
                       "import sys\n"
                       "sys.stdout.buffer.write(cp.dumps(task))\n");
    cpk_python_to_file(nxt, PRELUDE
                       "import sys\n"
                       "nxt = b'_format_%d_9_8_7' % (cp.FORMAT + 1)\n"
                       "sys.stdout.buffer.write(marked(cp.dumps(task), nxt))\n");
    const char *load = CPK_BUILD_DIR "/cloudpickle-load";
    cpk_proc p;
    cpk_spawn(&p, (const char *[]){load, cur, "--call", "--", "2.5", NULL},
              NULL, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "5\n");
    cpk_proc_free(&p);
    char want[400];
    snprintf(want, sizeof want,
             "cloudpickle-load: %s: written by ccloudpickle 9.8.7 for format "
             "6; this is ccloudpickle %s (format 5): upgrade the loading "
             "side, or write with format=5\n",
             nxt, CPK_VERSION);
    const char *const *argvs[] = {
        (const char *[]){load, nxt, NULL},
        (const char *[]){load, "--json", nxt, NULL},
        (const char *[]){load, nxt, "--call", "--", "2.5", NULL},
    };
    for (size_t i = 0; i < sizeof argvs / sizeof argvs[0]; i++) {
        cpk_spawn(&p, argvs[i], NULL, NULL, 0, NULL);
        cpk_assert_exit(&p, 3);
        cr_assert_str_eq(p.err, want);
        cr_assert_eq(p.out_len, 0);
        cpk_proc_free(&p);
    }
}

/* cloudpickle-dump --format N: dumps(format=N); bad values and --compat
 * are usage errors (exit 2), what the format cannot carry exit 4. */
Test(format_marker, cli_dump_format)
{
    char dir[64], mod[128], out[128];
    cpk_tmpdir(dir, sizeof dir);
    snprintf(mod, sizeof mod, "%s/fmtmod.py", dir);
    snprintf(out, sizeof out, "%s/f4.pkl", dir);
    cpk_write_file(mod, "import math, threading\n"
                        "L = threading.Lock()\n"
                        "def g(x):\n"
                        "    return math.floor(x) + 1\n"
                        "def u():\n"
                        "    return L\n");
    const char *dump = CPK_BUILD_DIR "/cloudpickle-dump";
    cpk_proc p;
    cpk_spawn(&p, (const char *[]){dump, "--format", "4", "-o", out,
                                   "fmtmod:g", NULL},
              dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    size_t len;
    char *data = cpk_read_file(out, &len);
    cr_assert(data != NULL && len > 2);
    cr_assert(memmem(data, len, "_format_", 8) == NULL);
    cr_assert(memmem(data, len, "_function_make", 14) != NULL);
    free(data);
    static const char *const bad[] = {"0", "6", "x", "4x", "-1", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cpk_spawn(&p, (const char *[]){dump, "--format", bad[i], "fmtmod:g",
                                       NULL},
                  dir, NULL, 0, NULL);
        cpk_assert_exit(&p, 2);
        char want[200];
        snprintf(want, sizeof want,
                 "cloudpickle-dump: invalid --format '%s' (accepted: 1 to "
                 "5)\nTry 'cloudpickle-dump --help' for more information.\n",
                 bad[i]);
        cr_assert_str_eq(p.err, want);
        cpk_proc_free(&p);
    }
    cpk_spawn(&p, (const char *[]){dump, "--format", "4", "--compat",
                                   "cloudpickle3", "fmtmod:g", NULL},
              dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 2);
    cpk_proc_free(&p);
    cpk_spawn(&p, (const char *[]){dump, "--format", "1", "fmtmod:u", NULL},
              dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 4);
    cr_assert_str_eq(p.err,
                     "cloudpickle-dump: fmtmod:u: cannot pickle fmtmod:u "
                     "(function): PicklingError: Can't pickle for format 1 "
                     "(ccloudpickle 0.1.0): its loaders have no _make_lock; "
                     "write a newer format\n");
    cr_assert_eq(p.out_len, 0);
    cpk_proc_free(&p);
}
