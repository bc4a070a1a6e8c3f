/* test_format_fixtures.c - the pickles every release wrote
 * (tests/fixtures/formats/<version>/, made by
 * scripts/make-format-fixtures with CPython 3.11; each directory's
 * MANIFEST says what each holds and what it must evaluate to) load with
 * this build, through ccloudpickle.loads and cloudpickle-load, and
 * behave. Under another CPython, the bytecode of 3.11 cannot run: the
 * portable ones still load and behave, the others give the documented
 * version error ("compiled by Python 3.11"). */
#include "support.h"

#include <stdio.h>
#include <string.h>

TestSuite(format_fixtures, .init = cpk_py_start, .fini = cpk_py_stop);

Test(format_fixtures, every_release_loads)
{
    cpk_py("import ccloudpickle as cp, os, sys\n"
           "top = os.path.join(" "'" CPK_SOURCE_DIR "'"
           ", 'tests', 'fixtures', 'formats')\n"
           "KEY = b'format-fixtures-key-0123456789ab'\n"
           "same = sys.version_info[:2] == (3, 11)\n"
           "versions = sorted(d for d in os.listdir(top)\n"
           "                  if os.path.isdir(os.path.join(top, d)))\n"
           "want = ['0.1.0', '0.2.0', '0.3.0', '0.4.0', '0.5.0', '0.6.0']\n"
           "assert versions == want, versions\n"
           "count = 0\n"
           "for v in versions:\n"
           "    with open(os.path.join(top, v, 'MANIFEST')) as f:\n"
           "        rows = [l.rstrip('\\n').split('\\t') for l in f]\n"
           "    assert len(rows) >= 4, (v, rows)\n"
           "    for name, what, check in rows:\n"
           "        with open(os.path.join(top, v, name), 'rb') as f:\n"
           "            data = f.read()\n"
           "        kw = {'verify_key': KEY} if name == 'signed.pkl' else {}\n"
           "        try:\n"
           "            obj = cp.loads(data, **kw)\n"
           "        except cp.SignatureError as e:\n"
           /* an envelope names the Python that signed it */
           "            assert not same and name == 'signed.pkl', (v, name, e)\n"
           "            assert 'signed by Python 3.11' in str(e), (v, name, e)\n"
           "            continue\n"
           "        except cp.UnpicklingError as e:\n"
           "            assert not same and name != 'portable.pkl', (v, name, e)\n"
           "            assert 'compiled by Python 3.11' in str(e), (v, name, e)\n"
           "            continue\n"
           "        assert eval(check, {'obj': obj}), (v, name, what, check)\n"
           "        count += 1\n"
           "assert count > 0\n");
}

/* cloudpickle-load's static report reads every fixture (exit 0), and
 * --call runs each release's closure where the bytecode can run. */
Test(format_fixtures, cloudpickle_load_reads_them)
{
    static const char *const versions[] = {"0.1.0", "0.2.0", "0.3.0",
                                           "0.4.0", "0.5.0", "0.6.0"};
    int same = PY_MAJOR_VERSION == 3 && PY_MINOR_VERSION == 11;
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        char path[512];
        snprintf(path, sizeof path,
                 CPK_SOURCE_DIR "/tests/fixtures/formats/%s/closure.pkl",
                 versions[i]);
        cpk_proc p;
        cpk_spawn(&p, (const char *[]){CPK_BUILD_DIR "/cloudpickle-load",
                                       path, NULL},
                  NULL, NULL, 0, NULL);
        cpk_assert_exit(&p, 0);
        cpk_proc_free(&p);
        cpk_spawn(&p, (const char *[]){CPK_BUILD_DIR "/cloudpickle-load",
                                       path, "--call", "--", "2.5", NULL},
                  NULL, NULL, 0, NULL);
        if (same) {
            cpk_assert_exit(&p, 0);
            cr_assert_str_eq(p.out, "5\n", "%s: %s", versions[i], p.out);
        }
        else {
            cpk_assert_exit(&p, 3);
            cr_assert(strstr(p.err, "compiled by Python 3.11") != NULL,
                      "%s: %s", versions[i], p.err);
        }
        cpk_proc_free(&p);
    }
}
