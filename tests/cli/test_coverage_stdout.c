/* test_coverage_stdout.c - the sys.stdout that cloudpickle-dump gives
 * user code while the pickle owns standard output (cli/common/secondary.c): what
 * a module writes at import through writelines() and flush() goes to
 * standard error, the stand-in keeps attributes and weak references like
 * the stream it wraps, a standard error no one reads loses that text
 * without failing the dump, and the wrapped stream removed is an
 * AttributeError, not a crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    char path[256];
    snprintf(path, sizeof(path), "%s/noisy_h4.py", dir);
    cpk_write_file(
        path,
        "import sys, weakref\n"
        "out = sys.stdout\n"
        "out.writelines(['one\\n', 'two\\n'])\n"
        "out.writelines(iter(('three', '\\n')))\n"
        "out.flush()\n"
        "out.note = 'kept'\n"
        "assert out.note == 'kept' and weakref.ref(out)() is out\n"
        "assert out.encoding == sys.stderr.encoding, out.encoding\n"
        "try:\n"
        "    out.writelines(5)\n"
        "except TypeError:\n"
        "    print('not iterable', file=sys.stderr)\n"
        "def bad():\n"
        "    yield 'partial\\n'\n"
        "    raise ValueError('mid-way')\n"
        "try:\n"
        "    out.writelines(bad())\n"
        "except ValueError as e:\n"
        "    print('raised', e, file=sys.stderr)\n"
        "try:\n"
        "    out.writelines([b'bytes'])\n"
        "except TypeError:\n"
        "    print('bytes refused', file=sys.stderr)\n"
        "wrapped = out._f\n"
        "del out._f\n"
        "for call in (lambda: out.write('x'), out.flush,\n"
        "             lambda: out.writelines(['x'])):\n"
        "    try:\n"
        "        call()\n"
        "    except AttributeError as e:\n"
        "        print('no stream:', e, file=sys.stderr)\n"
        "out._f = wrapped\n"
        "print('back')\n"
        "def f():\n"
        "    return 42\n");
}

static void
teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    cr_assert(system(cmd) == 0);
}

TestSuite(coverage_stdout, .init = setup, .fini = teardown);

/* The pickle loads and calls back to 42. */
static void
assert_pickle(const cpk_proc *p)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/f.pkl", dir);
    FILE *f = fopen(path, "wb");
    cr_assert(f != NULL);
    cr_assert(fwrite(p->out, 1, p->out_len, f) == p->out_len);
    cr_assert(fclose(f) == 0);
    const char *argv[] = {CPK_LOAD, path, "--call", NULL};
    cpk_proc l;
    cpk_spawn(&l, argv, "/", NULL, 0, NULL);
    cpk_assert_exit(&l, 0);
    cr_assert_str_eq(l.out, "42\n");
    cpk_proc_free(&l);
}

Test(coverage_stdout, import_output_goes_to_stderr)
{
    const char *argv[] = {CPK_DUMP, "noisy_h4:f", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "one\ntwo\nthree\n"
                            "not iterable\n"
                            "partial\nraised mid-way\n"
                            "bytes refused\n"
                            "no stream: _f\nno stream: _f\nno stream: _f\n"
                            "back\n");
    assert_pickle(&p);
    cpk_proc_free(&p);
}

/* Standard error a pipe no one reads: what the module prints is lost
 * (the stand-in swallows the OSError of a write or flush, as the stream
 * a worker or daemon writes to may be gone); the pickle is still
 * written. */
Test(coverage_stdout, broken_stderr_loses_only_that_text)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/quiet_h4.py", dir);
    cpk_write_file(path, "import sys\n"
                         "print('hello')\n"
                         "sys.stdout.writelines(['a\\n'] * 3)\n"
                         "sys.stdout.flush()\n"
                         "def f():\n"
                         "    return 42\n");
    char code[1024];
    snprintf(code, sizeof(code),
             "import os, subprocess, sys\n"
             "r, w = os.pipe()\n"
             "os.close(r)\n"
             "p = subprocess.run(['%s', 'quiet_h4:f'], cwd='%s', stderr=w,\n"
             "                   stdout=subprocess.PIPE)\n"
             "assert p.returncode == 0, p.returncode\n"
             "sys.stdout.buffer.write(p.stdout)\n",
             CPK_DUMP, dir);
    cpk_proc p;
    cpk_python(&p, code, NULL, 0);
    cpk_assert_exit(&p, 0);
    assert_pickle(&p);
    cpk_proc_free(&p);
}
