/* test_cli_json.c - `cloudpickle-load --json FILE`: the static report as
 * one JSON document (doc/REPORT-JSON.md), read back with Python's json
 * module: the keys of the schema, imports and their danger, functions
 * with their parameters, classes and enums, strings from a hostile pickle
 * escaped (valid UTF-8 as itself, other bytes as \udcNN), and nothing on
 * standard output for what is refused. The text form is
 * test_cli_describe.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
}

TestSuite(cli_json, .init = setup);

/* Bytes made by CPK_PYTHON's `code` saved as dir/name; the path. */
static const char *
pickle_file(const char *name, const char *code)
{
    static char paths[4][256];
    static int next;
    char *path = paths[next++ % 4];
    snprintf(path, 256, "%s/%s", dir, name);
    cpk_python_to_file(path, code);
    return path;
}

/* cloudpickle-load --json [extra] path: exit 0 and its stdout. */
static void
json_of(cpk_proc *p, const char *path, const char *extra)
{
    const char *argv[] = {CPK_LOAD, "--json", extra ? extra : path,
                          extra ? path : NULL, NULL};
    cpk_spawn(p, argv, dir, NULL, 0, NULL);
}

/* Parse `p`'s standard output as one JSON document (strict UTF-8, one
 * line) into `r` and run the Python `checks` on it. */
static void
check_json(const cpk_proc *p, const char *checks)
{
    char code[8192];
    snprintf(code, sizeof(code),
             "import json, sys\n"
             "raw = sys.stdin.buffer.read()\n"
             "assert raw.endswith(b'\\n') and raw.count(b'\\n') == 1, raw\n"
             "assert b'\\x1b' not in raw\n"
             "r = json.loads(raw.decode('utf-8'))\n"
             "def imp(m, n):\n"
             "    hits = [i for i in r['imports'] if i['module'] == m and "
             "i['name'] == n]\n"
             "    assert len(hits) == 1, (m, n, r['imports'])\n"
             "    return hits[0]\n"
             "def fn(q):\n"
             "    hits = [f for f in r['functions'] if f['qualname'] == q]\n"
             "    assert len(hits) == 1, (q, r['functions'])\n"
             "    return hits[0]\n"
             "%s\n",
             checks);
    cpk_proc py;
    cpk_python(&py, code, p->out, p->out_len);
    cpk_assert_exit(&py, 0);
    cpk_proc_free(&py);
}

#define FN_SRC                                                                \
    "import sys, enum, ccloudpickle\n"                                        \
    "SRC = '''\\\n"                                                           \
    "import math\n"                                                           \
    "K = 3\n"                                                                 \
    "def outer(a, b=2, *args, c, d=4, **kw):\n"                               \
    "    z = 5\n"                                                             \
    "    def inner(x, /, y=1, *rest, flag, **opts):\n"                        \
    "        return x + y + z + a + K + math.floor(1.5)\n"                    \
    "    return inner\n"                                                      \
    "class Thing:\n"                                                          \
    "    def method(self, n, *, scale=2):\n"                                  \
    "        return n * scale\n"                                              \
    "class Color(enum.Enum):\n"                                               \
    "    RED = 1\n"                                                           \
    "    GREEN = 2\n"                                                         \
    "'''\n"                                                                   \
    "exec(compile(SRC, '/src/mod.py', 'exec'), globals())\n"

Test(cli_json, schema_keys_and_a_function)
{
    const char *path = pickle_file(
        "fn.pkl", FN_SRC "sys.stdout.buffer.write(ccloudpickle.dumps("
                         "outer(1, c=3)))\n");
    cpk_proc p;
    json_of(&p, path, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "");
    char checks[4096];
    snprintf(checks, sizeof(checks),
             "assert list(r) == ['format', 'file', 'status', 'signed', 'size', "
             "'protocol', 'pickle_format', 'min_protocol', 'opcodes', "
             "'frames', 'buffers', 'max_depth', 'result', 'python', "
             "'n_dangerous', 'n_other', "
             "'strict_violation', 'truncated', 'imports', 'functions', "
             "'classes', 'load_calls', 'state_writes', 'n_state', "
             "'n_state_vouchable'], list(r)\n"
             "assert r['load_calls'] == []\n"
             "assert r['format'] == 1 and r['status'] == 'ok'\n"
             "assert r['pickle_format'] is None, r['pickle_format']\n"
             "assert r['signed'] is None\n"
             "assert r['file'] == %s%s%s\n"
             "assert r['protocol'] == 5 and r['result'] == 'function'\n"
             "assert r['python'] == '%d.%d'\n"
             "assert r['n_dangerous'] == 0 and r['n_other'] == 0\n"
             "assert r['strict_violation'] is False\n"
             "assert r['truncated'] is False and r['buffers'] == 0\n"
             "for i in r['imports']:\n"
             "    assert list(i) == ['module', 'name', 'written_module', "
             "'written_name', 'offset', 'count', 'via', 'category', "
             "'dangerous', 'reason', 'ext_code', 'alt_written'], list(i)\n"
             "i = imp('ccloudpickle', '_function_make')\n"
             "assert i['category'] == 'ccloudpickle' and not i['dangerous']\n"
             "assert i['via'] == 'stack_global' and i['reason'] is None\n"
             "m = imp('math', '')\n"
             "assert m['via'] == 'subimport' and m['category'] == 'plain'\n"
             "f = fn('outer.<locals>.inner')\n"
             "assert list(f) == ['layout', 'offset', 'name', 'qualname', "
             "'module', 'filename', 'firstlineno', 'python_version', "
             "'other_python', 'magic', 'portable', 'portable_why', "
             "'code_known', 'signature', 'params', 'globals', 'freevars', "
             "'n_defaults', 'n_kwdefaults'], list(f)\n"
             "assert f['portable'] is None and f['portable_why'] is None\n"
             "assert f['layout'] == 'ccloudpickle' and f['name'] == 'inner'\n"
             "assert f['module'] == '__main__'\n"
             "assert f['filename'] == '/src/mod.py' and "
             "f['firstlineno'] == 5\n"
             "assert f['python_version'] == '%d.%d' and not "
             "f['other_python']\n"
             "assert f['code_known'] is True\n"
             "assert f['signature'] == 'inner(x, /, y=..., *rest, flag, "
             "**opts)', f['signature']\n"
             "assert f['params'] == [\n"
             "    {'name': 'x', 'kind': 'positional-only'},\n"
             "    {'name': 'y', 'kind': 'regular'},\n"
             "    {'name': 'rest', 'kind': 'varargs'},\n"
             "    {'name': 'flag', 'kind': 'keyword-only'},\n"
             "    {'name': 'opts', 'kind': 'varkw'}], f['params']\n"
             "assert sorted(f['globals']) == ['K', 'math']\n"
             "assert f['freevars'] == ['a', 'z']\n"
             "assert f['n_defaults'] == 1 and f['n_kwdefaults'] == 0\n"
             "assert r['classes'] == []\n",
             "'", path, "'", PY_MAJOR_VERSION, PY_MINOR_VERSION,
             PY_MAJOR_VERSION, PY_MINOR_VERSION);
    check_json(&p, checks);
    cpk_proc_free(&p);
}

Test(cli_json, classes_and_enums)
{
    const char *path = pickle_file(
        "cls.pkl", FN_SRC "sys.stdout.buffer.write(ccloudpickle.dumps("
                          "[Thing, Color]))\n");
    cpk_proc p;
    json_of(&p, path, NULL);
    cpk_assert_exit(&p, 0);
    check_json(&p,
               "assert r['result'] == 'list'\n"
               "c = {c['name']: c for c in r['classes']}\n"
               "t = c['Thing']\n"
               "assert list(t) == ['offset', 'enum', 'layout', 'name', "
               "'qualname', 'module', 'bases', 'methods', 'members'], "
               "list(t)\n"
               "assert t['enum'] is False and t['layout'] == 'ccloudpickle'\n"
               "assert t['bases'] == ['builtins.object'], t\n"
               "assert t['methods'] == ['method'] and t['members'] == []\n"
               "e = c['Color']\n"
               "assert e['enum'] is True and e['members'] == ['RED', "
               "'GREEN']\n"
               "assert e['bases'] == ['enum.Enum']\n"
               "assert fn('Thing.method')['params'][2] == "
               "{'name': 'scale', 'kind': 'keyword-only'}\n");
    cpk_proc_free(&p);
}

/* os.system flagged, nothing run; --strict --json prints nothing. */
Test(cli_json, dangerous_import_is_flagged_and_not_run)
{
    char marker[256], code[1024];
    snprintf(marker, sizeof(marker), "%s/MARKER", dir);
    snprintf(code, sizeof(code),
             "import os, pickle, sys\n"
             "class E:\n"
             "    def __reduce__(self):\n"
             "        return (os.system, ('touch %s',))\n"
             "sys.stdout.buffer.write(pickle.dumps(E(), protocol=2))\n",
             marker);
    const char *path = pickle_file("evil.pkl", code);
    cpk_proc p;
    json_of(&p, path, NULL);
    cpk_assert_exit(&p, 0);
    check_json(&p, "i = imp('posix', 'system')\n"
                   "assert i['dangerous'] is True\n"
                   "assert i['reason'] == 'runs commands'\n"
                   "assert i['category'] == 'other'\n"
                   "assert i['via'] == 'global' and i['offset'] == 2\n"
                   "assert r['n_dangerous'] == 1 and "
                   "r['strict_violation'] is True\n"
                   "assert r['result'] == 'instance'\n");
    cpk_proc_free(&p);
    struct stat st;
    cr_assert(stat(marker, &st) != 0, "os.system ran");
    json_of(&p, path, "--strict");
    cpk_assert_exit(&p, 3);
    cr_assert_eq(p.out_len, 0);
    char expected[400];
    snprintf(expected, sizeof(expected),
             "cloudpickle-load: %s: refused import posix.system (runs "
             "commands) at byte 2\n",
             path);
    cr_assert_str_eq(p.err, expected);
    cpk_proc_free(&p);
    cr_assert(stat(marker, &st) != 0, "os.system ran");
}

/* Strings: control characters escaped per RFC 8259, valid UTF-8 as
 * itself, each byte that is not valid UTF-8 as \udcNN. */
Test(cli_json, strings_are_escaped)
{
    const char *path = pickle_file(
        "hostile.pkl",
        "import sys, ccloudpickle\n"
        "src = 'def f(caf\\u00e9, b):\\n    return 1\\n'\n"
        "g = {'__name__': '__main__'}\n"
        "exec(compile(src, '/tmp/\\x1b[31m\\n\"q\"\\\\.py', 'exec'), g)\n"
        "f = g['f']\n"
        "f.__qualname__ = 'q\\r\\x07\\u202e\\u00e9'\n"
        "sys.stdout.buffer.write(ccloudpickle.dumps(f))\n");
    cpk_proc p;
    json_of(&p, path, NULL);
    cpk_assert_exit(&p, 0);
    /* as Python would write them: \u001b, \n, \", \\ */
    cr_assert(strstr(p.out, "\"/tmp/\\u001b[31m\\n\\\"q\\\"\\\\.py\"") != NULL,
              "%s", p.out);
    cr_assert(strstr(p.out, "\"q\\r\\u0007\\u202e\xc3\xa9\"") != NULL, "%s",
              p.out);
    check_json(&p, "f = fn('q\\r\\x07\\u202e\\u00e9')\n"
                   "assert f['filename'] == '/tmp/\\x1b[31m\\n\"q\"\\\\.py'\n"
                   "assert f['params'][0]['name'] == 'caf\\u00e9'\n");
    cpk_proc_free(&p);

    /* a module name with an encoded surrogate (BINUNICODE allows it; not
     * UTF-8) */
    const char bad[] = "\x80\x04\x8c\x07m\xed\xb2\x80\n\x1b[\x8c\x01n\x93.";
    char badpath[256];
    snprintf(badpath, sizeof(badpath), "%s/bad-name.pkl", dir);
    FILE *f = fopen(badpath, "wb");
    cr_assert(f && fwrite(bad, 1, sizeof(bad) - 1, f) == sizeof(bad) - 1);
    cr_assert(fclose(f) == 0);
    json_of(&p, badpath, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "\"m\\udced\\udcb2\\udc80\\n\\u001b[\"") != NULL,
              "%s", p.out);
    check_json(&p, "i = imp('m\\udced\\udcb2\\udc80\\n\\x1b[', 'n')\n"
                   "assert i['category'] == 'other'\n"
                   "assert r['n_other'] == 1\n");
    cpk_proc_free(&p);
}

/* Refused input: exit 3, one line on stderr, nothing on stdout. */
Test(cli_json, malformed_prints_nothing)
{
    const char data[] = "\x80\x04\x8c\x06hello";
    char path[256];
    snprintf(path, sizeof(path), "%s/cut.pkl", dir);
    FILE *f = fopen(path, "wb");
    cr_assert(f && fwrite(data, 1, sizeof(data) - 1, f) == sizeof(data) - 1);
    cr_assert(fclose(f) == 0);
    cpk_proc p;
    json_of(&p, path, NULL);
    cpk_assert_exit(&p, 3);
    cr_assert_eq(p.out_len, 0);
    char expected[400];
    snprintf(expected, sizeof(expected),
             "cloudpickle-load: %s: not a valid pickle: BINUNICODE length 6 "
             "exceeds the 5 bytes left (pickle data was truncated) at byte "
             "2\n",
             path);
    cr_assert_str_eq(p.err, expected);
    cpk_proc_free(&p);
}

/* Standard input is "-" in "file"; EXT imports have no name. */
Test(cli_json, standard_input_and_ext)
{
    const char data[] = "\x80\x02\x82\x05)R.";
    const char *argv[] = {CPK_LOAD, "--json", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, data, sizeof(data) - 1, NULL);
    cpk_assert_exit(&p, 0);
    check_json(&p, "assert r['file'] == '-' and r['protocol'] == 2\n"
                   "[i] = r['imports']\n"
                   "assert i['via'] == 'ext' and i['ext_code'] == 5\n"
                   "assert i['module'] is None and i['name'] is None\n"
                   "assert i['dangerous'] is True\n");
    cpk_proc_free(&p);
}

/* load_calls: code carried by value that the load runs; "call result";
 * alt_written: every spelling of one import. */
Test(cli_json, load_calls_and_spellings)
{
    const char *path = pickle_file(
        "call.pkl", "import sys, ccloudpickle\n"
                    "def f():\n"
                    "    return 42\n"
                    "class Call:\n"
                    "    def __reduce__(self):\n"
                    "        return (f, ())\n"
                    "sys.stdout.buffer.write(ccloudpickle.dumps(Call()))\n");
    cpk_proc p;
    json_of(&p, path, NULL);
    cpk_assert_exit(&p, 0);
    check_json(&p,
               "assert r['result'] == 'call result', r['result']\n"
               "assert r['strict_violation'] is True\n"
               "assert r['n_dangerous'] == 0 and r['n_other'] == 0\n"
               "[c] = r['load_calls']\n"
               "assert list(c) == ['offset', 'reason', 'name', 'result'], c\n"
               "assert c['reason'] == 'calls a function carried by value'\n"
               "assert c['name'] == 'f' and c['result'] is True, c\n"
               "assert isinstance(c['offset'], int)\n");
    cpk_proc_free(&p);
    path = pickle_file("two.pkl",
                       "import sys\n"
                       "sys.stdout.buffer.write(b'\\x80\\x02(cexceptions\\n"
                       "Exception\\nc__builtin__\\nException\\nt.')\n");
    json_of(&p, path, NULL);
    cpk_assert_exit(&p, 0);
    check_json(&p,
               "[i] = r['imports']\n"
               "assert i['module'] == 'builtins' and i['count'] == 2\n"
               "assert i['written_module'] == 'exceptions'\n"
               "assert i['alt_written'] == [['__builtin__', 'Exception']], i\n"
               "assert r['load_calls'] == []\n");
    cpk_proc_free(&p);
}
