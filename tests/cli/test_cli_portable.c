/* test_cli_portable.c - portable pickles in the programs:
 * `cloudpickle-dump --portable` (refused with --compat and --gen-key),
 * its --report's portable section, the static report's `portable` line
 * and JSON keys (src/scan/pkscan_analyze.c reads _code_portable as
 * _code_unmarshal),
 * and the error of a pickle whose code this Python cannot run: one
 * message naming both versions and every such function
 * (src/engine/versionerror.c), from ccloudpickle.loads, load (also of the second
 * pickle of a file), loads under a policy, and cloudpickle-load (exit 3).
 * A pickle "of another Python" is this one's with a forged bytecode
 * magic (9999, Python "3.99"): a function that ships its source compiles
 * here, one that does not fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "support.h"

static char dir[64];

/* Two functions with a source file, a lambda of eval() and a def of
 * exec(): those two have no source to ship. */
#define MODULE_TEXT                                                           \
    "def add(x, y):\n"                                                        \
    "    return x + y\n"                                                      \
    "\n"                                                                      \
    "\n"                                                                      \
    "twice = eval(compile(\"lambda x: x * 2\", \"<exec>\", \"eval\"))\n"       \
    "exec(compile(\"def tripled(x):\\n    return 3 * x\\n\", \"<exec>\",\n"    \
    "             \"exec\"), globals())\n"                                    \
    "\n"                                                                      \
    "\n"                                                                      \
    "def both(x):\n"                                                          \
    "    return add(x, 1) + twice(x) + tripled(x)\n"                            \
    "\n"                                                                      \
    "\n"                                                                      \
    "many = [eval(compile('lambda: %d' % i, '<exec>', 'eval'))\n"            \
    "        for i in range(25)]\n"

/* "<exec>", a name no linecache entry has (3.13 keeps python -c's
 * program as "<string>"). */
#define WHY_LAMBDA "<lambda> (<exec>, line 1): no source file (<exec>)"
#define WHY_TRIPLED "tripled (<exec>, line 1): no source file (<exec>)"

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    char path[128];
    snprintf(path, sizeof(path), "%s/port_mod.py", dir);
    cpk_write_file(path, MODULE_TEXT);
}

TestSuite(cli_portable, .init = setup);

/* Run a program (argv NULL-ended) in dir. */
static void
run(cpk_proc *p, const char *const *argv)
{
    cpk_spawn(p, argv, dir, NULL, 0, NULL);
}

static void
assert_has(const char *text, const char *want)
{
    cr_assert(strstr(text, want) != NULL, "missing \"%s\" in:\n%s", want,
              text);
}

/* The lines of the static report's block for `function` (the text from
 * "function   NAME (" to the next section), as a malloc'd string. */
static char *
block(const char *out, const char *name)
{
    char head[128];
    snprintf(head, sizeof(head), "\nfunction   %s (", name);
    const char *b = strstr(out, head);
    cr_assert(b != NULL, "no function %s in:\n%s", name, out);
    b++;
    const char *e = b + 1;
    while (*e != '\0' && !(e[-1] == '\n' && e[0] != ' '))
        e++;
    return strndup(b, (size_t)(e - b));
}

/* Dump port_mod:both (with --portable if `portable`) to dir/name. */
static void
dump_both(const char *name, int portable)
{
    cpk_proc p;
    const char *argv[] = {CPK_DUMP, "-o", name, "port_mod:both",
                          portable ? "--portable" : NULL, NULL};
    run(&p, argv);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
}

Test(cli_portable, describe_says_which_functions_are_portable)
{
    dump_both("both.pkl", 1);
    cpk_proc p;
    run(&p, (const char *[]){CPK_LOAD, "both.pkl", NULL});
    cpk_assert_exit(&p, 0);
    assert_has(p.out, "ccloudpickle._code_portable  ccloudpickle "
                      "reconstructor");
    static const struct {
        const char *name, *line;
    } want[] = {
        {"both", "  portable   yes\n"},
        {"add", "  portable   yes\n"},
        {"<lambda>", "  portable   no: " WHY_LAMBDA "\n"},
        {"tripled", "  portable   no: " WHY_TRIPLED "\n"},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        char *b = block(p.out, want[i].name);
        assert_has(b, want[i].line);
        /* the code is read as _code_unmarshal's: signature, version */
        assert_has(b, "  signature  ");
        cr_assert(strstr(b, "signature  unknown") == NULL, "%s", b);
        char py[64];
        snprintf(py, sizeof(py), "  python     %d.%d (bytecode magic ",
                 PY_MAJOR_VERSION, PY_MINOR_VERSION);
        assert_has(b, py);
        free(b);
    }
    /* Same Python: it loads and runs (the bytecode, as ever). */
    cpk_proc_free(&p);
    run(&p, (const char *[]){CPK_LOAD, "--call", "both.pkl", "--", "5",
                             NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "31\n");
    cpk_proc_free(&p);
    /* --strict: only reconstructors and plain data */
    run(&p, (const char *[]){CPK_LOAD, "--strict", "both.pkl", NULL});
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

Test(cli_portable, plain_pickle_has_no_portable_line)
{
    dump_both("plain.pkl", 0);
    cpk_proc p;
    run(&p, (const char *[]){CPK_LOAD, "plain.pkl", NULL});
    cpk_assert_exit(&p, 0);
    assert_has(p.out, "function   add (");
    cr_assert(strstr(p.out, "portable") == NULL, "%s", p.out);
    cpk_proc_free(&p);
    cpk_proc r;
    run(&r, (const char *[]){CPK_DUMP, "--report", "-o", "plain2.pkl",
                             "port_mod:both", NULL});
    cpk_assert_exit(&r, 0);
    assert_has(r.err, "by ref");
    cr_assert(strstr(r.err, "portable") == NULL, "%s", r.err);
    cpk_proc_free(&r);
}

Test(cli_portable, json_keys)
{
    dump_both("both.pkl", 1);
    dump_both("plain.pkl", 0);
    char code[2048];
    snprintf(code, sizeof(code),
             "import json, subprocess\n"
             "def fns(name):\n"
             "    out = subprocess.run(['%s', '--json', '%s/' + name],\n"
             "                         capture_output=True, check=True)\n"
             "    doc = json.loads(out.stdout)\n"
             "    return {f['name']: (f['portable'], f['portable_why'])\n"
             "            for f in doc['functions']}\n"
             "got = fns('both.pkl')\n"
             "assert got == {'both': (True, None), 'add': (True, None),\n"
             "    '<lambda>': (False, '" WHY_LAMBDA "'),\n"
             "    'tripled': (False, '" WHY_TRIPLED "')}, got\n"
             "got = fns('plain.pkl')\n"
             "assert set(got.values()) == {(None, None)} and len(got) == 4,"
             " got\n",
             CPK_LOAD, dir);
    cpk_proc p;
    cpk_python(&p, code, NULL, 0);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

Test(cli_portable, report_lists_each_function)
{
    cpk_proc p;
    run(&p, (const char *[]){CPK_DUMP, "--portable", "--report", "-o",
                             "both.pkl", "port_mod:both", NULL});
    cpk_assert_exit(&p, 0);
    assert_has(p.err, "\nportable   2 of 4 functions carry their source\n"
                      "  yes  port_mod.both\n"
                      "  yes  port_mod.add\n"
                      "  no   port_mod.<lambda>: " WHY_LAMBDA "\n"
                      "  no   port_mod.tripled: " WHY_TRIPLED "\n");
    cpk_proc_free(&p);
    /* one function, not portable: said in the singular */
    run(&p, (const char *[]){CPK_DUMP, "--portable", "--report", "-o",
                             "t.pkl", "port_mod:tripled", NULL});
    cpk_assert_exit(&p, 0);
    assert_has(p.err, "\nportable   0 of 1 function carries its source\n"
                      "  no   port_mod.tripled: " WHY_TRIPLED "\n");
    cpk_proc_free(&p);
    /* -e's text is in linecache (for tracebacks): proven like a file */
    run(&p, (const char *[]){CPK_DUMP, "--portable", "--report", "-o",
                             "e.pkl", "-e", "lambda x: x", NULL});
    cpk_assert_exit(&p, 0);
    assert_has(p.err, "\nportable   1 of 1 function carries its source\n"
                      "  yes  __main__.<lambda>\n");
    cpk_proc_free(&p);
}

Test(cli_portable, refused_with_compat_and_gen_key)
{
    static const char *const cases[][5] = {
        {"--portable", "--compat", "2.2", "port_mod:both", NULL},
        {"--compat=cloudpickle3", "--portable", "port_mod:both", NULL},
        {"--portable", "--compat", "cloudpickle2", "-e", "1"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *argv[9] = {CPK_DUMP, "-o", "x.pkl"}; /* NULL-ended */
        for (int k = 0; k < 5 && cases[i][k] != NULL; k++)
            argv[3 + k] = cases[i][k];
        cpk_proc p;
        run(&p, argv);
        cpk_assert_exit(&p, 2);
        cr_assert_str_eq(p.err,
                         "cloudpickle-dump: --portable cannot be combined "
                         "with --compat (stock cloudpickle cannot load the "
                         "sources it ships)\n"
                         "Try 'cloudpickle-dump --help' for more "
                         "information.\n");
        cr_assert_str_eq(p.out, "");
        cpk_proc_free(&p);
    }
    char path[128];
    snprintf(path, sizeof(path), "%s/x.pkl", dir);
    struct stat st;
    cr_assert(stat(path, &st) != 0, "x.pkl written");
    cpk_proc p;
    run(&p, (const char *[]){CPK_DUMP, "--gen-key", "k", "--portable",
                             NULL});
    cpk_assert_exit(&p, 2);
    cr_assert_str_eq(p.err, "cloudpickle-dump: --gen-key cannot be combined "
                            "with --portable\nTry 'cloudpickle-dump --help' "
                            "for more information.\n");
    cpk_proc_free(&p);
    snprintf(path, sizeof(path), "%s/k", dir);
    cr_assert(stat(path, &st) != 0, "key written");
    /* --help documents it */
    run(&p, (const char *[]){CPK_DUMP, "--help", NULL});
    cpk_assert_exit(&p, 0);
    assert_has(p.out, "\n      --portable       also ship each function's "
                      "source");
    cpk_proc_free(&p);
}

/* Python that writes dir/NAME.pkl: port_mod.OBJ pickled by value as
 * portable, each code object's _code_portable arguments given magic 9999
 * and version "3.99" (RECON: "portable"), or _code_unmarshal's with them
 * ("unmarshal"). */
#define FORGE_FMT                                                             \
    "import io, sys, types\n"                                                 \
    "sys.path.insert(0, %s)\n"                                                \
    "import ccloudpickle as cp, port_mod\n"                                   \
    "cp.register_pickle_by_value(port_mod)\n"                                 \
    "MAGIC = 9999 | (0x0a0d << 16)\n"                                         \
    "class P(cp.Pickler):\n"                                                  \
    "    def reducer_override(self, obj):\n"                                  \
    "        r = super().reducer_override(obj)\n"                             \
    "        if type(obj) is types.CodeType:\n"                               \
    "            assert r[0] is cp._code_portable, r\n"                       \
    "            v, m, data, src = r[1]\n"                                    \
    "            if %d:\n"                                                    \
    "                return (cp._code_portable, ('3.99', MAGIC, data, src))\n"\
    "            return (cp._code_unmarshal, ('3.99', MAGIC, data))\n"        \
    "        return r\n"                                                      \
    "f = io.BytesIO()\n"                                                      \
    "P(f, portable=True).dump(port_mod.%s)\n"                                 \
    "open('%s/%s.pkl', 'wb').write(f.getvalue())\n"

static void
forge(const char *obj, int portable, const char *name)
{
    char quoted[96], code[2048];
    snprintf(quoted, sizeof(quoted), "'%s'", dir);
    snprintf(code, sizeof(code), FORGE_FMT, quoted, portable, obj, dir,
             name);
    cpk_proc p;
    cpk_python(&p, code, NULL, 0);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

/* The message for the two non-portable functions of port_mod.both, its
 * two items in either order: Python checks. */
#define CHECK_TWO                                                             \
    "def check(e):\n"                                                         \
    "    assert type(e) is pickle.UnpicklingError, type(e)\n"                 \
    "    m = str(e)\n"                                                        \
    "    head = ('this pickle holds code compiled by Python 3.99, which '\n"  \
    "            'Python %d.%d cannot run, and 2 functions carry no source '\n"\
    "            'to compile again: ')\n"                                     \
    "    tail = ': load it with Python 3.99'\n"                               \
    "    assert m.startswith(head) and m.endswith(tail), m\n"                 \
    "    items = m[len(head):-len(tail)].split('; ')\n"                       \
    "    assert sorted(items) == sorted(['" WHY_LAMBDA "',\n"                 \
    "                                    '" WHY_TRIPLED "']), m\n"            \
    "    c = e.__cause__\n"                                                   \
    "    assert type(c) is pickle.UnpicklingError, repr(c)\n"                 \
    "    assert 'carries no source to compile again' in str(c), c\n"

Test(cli_portable, other_python_error_names_every_function)
{
    forge("both", 1, "both99");
    char code[8192];
    snprintf(code, sizeof(code),
             "import io, pickle, ccloudpickle as cp\n"
             CHECK_TWO
             "data = open('%s/both99.pkl', 'rb').read()\n"
             "first = cp.dumps([1, 2])\n"
             "for how in ('loads', 'load', 'second', 'junk', 'allow',\n"
             "            'Unpickler', 'file', 'file2'):\n"
             "    try:\n"
             "        if how == 'loads':\n"
             "            cp.loads(data)\n"
             "        elif how in ('file', 'file2'):\n"
             "            # a real file: _pickle reads ahead (peek)\n"
             "            with open('%s/rf.pkl', 'wb') as w:\n"
             "                w.write((first if how == 'file2' else b'')\n"
             "                        + data + first)\n"
             "            with open('%s/rf.pkl', 'rb') as rf:\n"
             "                if how == 'file2':\n"
             "                    assert cp.load(rf) == [1, 2]\n"
             "                cp.load(rf)\n"
             "        elif how == 'load':\n"
             "            cp.load(io.BytesIO(data))\n"
             "        elif how in ('second', 'junk'):\n"
             "            f = io.BytesIO((first if how == 'second' else\n"
             "                            b'JUNK') + data + b'more')\n"
             "            if how == 'second':\n"
             "                assert cp.load(f) == [1, 2]\n"
             "            else:\n"
             "                f.seek(4)\n"
             "            at = f.tell()\n"
             "            cp.load(f)\n"
             "        elif how == 'allow':\n"
             "            cp.loads(bytearray(data), allow=[])\n"
             "        else:\n"
             "            cp.Unpickler(io.BytesIO(data)).load()\n"
             "    except pickle.UnpicklingError as e:\n"
             "        if how == 'allow':\n"
             "            # a policy refuses compiling shipped source\n"
             "            assert type(e) is cp.PolicyError, repr(e)\n"
             "            assert 'compiles source text shipped' in str(e), e\n"
             "        elif how in ('Unpickler', 'junk'):\n"
             "            # Unpickler.load has no pickle to read again, and a\n"
             "            # file that does not start with pickles is not\n"
             "            # searched: the first function only\n"
             "            assert 'and function' in str(e), e\n"
             "        else:\n"
             "            check(e)\n"
             "        if how in ('second', 'junk'):\n"
             "            # the file is left where the failed load left it\n"
             "            g = io.BytesIO(f.getvalue())\n"
             "            g.seek(at)\n"
             "            try:\n"
             "                cp.Unpickler(g).load()\n"
             "            except pickle.UnpicklingError:\n"
             "                pass\n"
             "            assert f.tell() == g.tell() > at, (f.tell(), g.tell())\n"
             "    else:\n"
             "        raise AssertionError(how + ': loaded')\n",
             PY_MAJOR_VERSION, PY_MINOR_VERSION, dir, dir, dir);
    cpk_proc p;
    cpk_python(&p, code, NULL, 0);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);

    /* cloudpickle-load: exit 3, one line */
    const char *modes[] = {"--load", "--call"};
    for (int i = 0; i < 2; i++) {
        run(&p, (const char *[]){CPK_LOAD, modes[i], "both99.pkl", NULL});
        cpk_assert_exit(&p, 3);
        char head[256];
        snprintf(head, sizeof(head),
                 "cloudpickle-load: both99.pkl: bad pickle: this pickle holds"
                 " code compiled by Python 3.99, which Python %d.%d cannot "
                 "run, and 2 functions carry no source to compile again: ",
                 PY_MAJOR_VERSION, PY_MINOR_VERSION);
        cr_assert(strncmp(p.err, head, strlen(head)) == 0, "%s", p.err);
        assert_has(p.err, WHY_LAMBDA);
        assert_has(p.err, WHY_TRIPLED);
        assert_has(p.err, ": load it with Python 3.99\n");
        cr_assert(strchr(p.err, '\n') == p.err + p.err_len - 1, "%s",
                  p.err);
        cpk_proc_free(&p);
    }
    /* The static report says the same before anything runs. */
    run(&p, (const char *[]){CPK_LOAD, "both99.pkl", NULL});
    cpk_assert_exit(&p, 0);
    char *b = block(p.out, "add");
    assert_has(b, "  python     3.99 (bytecode magic 9999); this program runs ");
    assert_has(b, ": --load and --call would compile its source\n"
                  "  portable   yes\n");
    free(b);
    assert_has(p.out, "would refuse it\n  portable   no: " WHY_TRIPLED);
    cpk_proc_free(&p);
}

Test(cli_portable, other_python_one_function)
{
    /* Portable: it compiles here and runs. */
    forge("add", 1, "add99");
    cpk_proc p;
    run(&p, (const char *[]){CPK_LOAD, "--call", "add99.pkl", "--", "2",
                             "3", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "5\n");
    cpk_proc_free(&p);
    /* Not: the message of one function, in the singular. */
    forge("twice", 1, "twice99");
    run(&p, (const char *[]){CPK_LOAD, "--load", "twice99.pkl", NULL});
    cpk_assert_exit(&p, 3);
    char want[512];
    snprintf(want, sizeof(want),
             "cloudpickle-load: twice99.pkl: bad pickle: this pickle holds "
             "code compiled by Python 3.99, which Python %d.%d cannot run, "
             "and function " WHY_LAMBDA " carries no source to compile "
             "again: load it with Python 3.99\n",
             PY_MAJOR_VERSION, PY_MINOR_VERSION);
    cr_assert_str_eq(p.err, want);
    cpk_proc_free(&p);
}

Test(cli_portable, other_python_not_portable_pickle)
{
    /* _code_unmarshal of another Python: every function is named (this
     * scan cannot read bytecode of magic 9999: by offset) */
    forge("both", 0, "plain99");
    char code[2048];
    snprintf(code, sizeof(code),
             "import pickle, re, ccloudpickle as cp\n"
             "data = open('%s/plain99.pkl', 'rb').read()\n"
             "try:\n"
             "    cp.loads(data)\n"
             "except pickle.UnpicklingError as e:\n"
             "    m = str(e)\n"
             "else:\n"
             "    raise AssertionError('loaded')\n"
             "assert re.fullmatch(r'this pickle holds code compiled by "
             "Python 3\\.99, which Python %d\\.%d cannot run \\(functions: "
             "[^;()]+(; [^;()]+){3}\\): load "
             "it with Python 3\\.99, or pickle it with portable=True', m), "
             "m\n",
             dir, PY_MAJOR_VERSION, PY_MINOR_VERSION);
    cpk_proc p;
    cpk_python(&p, code, NULL, 0);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

/* A code object built outside a function the pickle makes, then called
 * (partial(_function_new, code)(...)): "load runs" for _code_portable as
 * for _code_unmarshal, and refused by --strict. */
Test(cli_portable, code_outside_a_function_is_code_by_value)
{
    static const char *const recons[] = {"_code_unmarshal",
                                         "_code_portable"};
    for (int i = 0; i < 2; i++) {
        char code[2048], path[128];
        snprintf(path, sizeof(path), "%s/partial%d.pkl", dir, i);
        snprintf(code, sizeof(code),
                 "import functools, marshal, pickle, sys, ccloudpickle as cp\n"
                 "from importlib.util import MAGIC_NUMBER\n"
                 "magic = int.from_bytes(MAGIC_NUMBER[:2], 'little') | "
                 "(0x0a0d << 16)\n"
                 "v = '%%d.%%d' %% sys.version_info[:2]\n"
                 "data = marshal.dumps((lambda: 1).__code__)\n"
                 "args = (v, magic, data) + (('f (a.py, line 1): why',) "
                 "if %d else ())\n"
                 "class Code:\n"
                 "    def __reduce__(self):\n"
                 "        return (cp.%s, args)\n"
                 "class Call:\n"
                 "    def __reduce__(self):\n"
                 "        return (functools.partial(cp._function_new, "
                 "Code()), ({}, 0))\n"
                 "sys.stdout.buffer.write(pickle.dumps(Call(), protocol=5))\n",
                 i, recons[i]);
        cpk_python_to_file(path, code);
        cpk_proc p;
        run(&p, (const char *[]){CPK_LOAD, path, NULL});
        cpk_assert_exit(&p, 0);
        assert_has(p.out, "load runs  code carried by value");
        cpk_proc_free(&p);
        run(&p, (const char *[]){CPK_LOAD, "--strict", path, NULL});
        cpk_assert_exit(&p, 3);
        cpk_proc_free(&p);
    }
}

/* At most 20 functions are named: "and N more". */
Test(cli_portable, other_python_many_functions)
{
    forge("many", 1, "many99");
    char code[2048];
    snprintf(code, sizeof(code),
             "import pickle, ccloudpickle as cp\n"
             "data = open('%s/many99.pkl', 'rb').read()\n"
             "try:\n"
             "    cp.loads(data)\n"
             "except pickle.UnpicklingError as e:\n"
             "    m = str(e)\n"
             "else:\n"
             "    raise AssertionError('loaded')\n"
             "head = ('this pickle holds code compiled by Python 3.99, which '\n"
             "        'Python %d.%d cannot run, and 25 functions carry no '\n"
             "        'source to compile again: ')\n"
             "tail = '; and 5 more: load it with Python 3.99'\n"
             "assert m.startswith(head) and m.endswith(tail), m\n"
             "items = m[len(head):-len(tail)].split('; ')\n"
             "assert items == ['" WHY_LAMBDA "'] * 20, m\n",
             dir, PY_MAJOR_VERSION, PY_MINOR_VERSION);
    cpk_proc p;
    cpk_python(&p, code, NULL, 0);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}
