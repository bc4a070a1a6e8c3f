/* test_cli_dump_report.c - cloudpickle-dump --report: what was pickled by
 * value (functions, classes, modules, with source files, the bytes each
 * adds, largest first) and by reference, on standard error after the
 * dump; the figures checked against the pickle itself (its size, a lone
 * function's span, own figures adding up); with -o, standard output,
 * --sign, --compat, --by-value and --hash; nothing of it when the dump
 * fails. The report is parsed by a Python snippet (cpk_python). */
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    char path[256];
    snprintf(path, sizeof(path), "%s/rep.py", dir);
    cpk_write_file(path,
                   "import math\n"
                   "from os.path import join\n"
                   "\n"
                   "def make():\n"
                   "    big = 'q' * 20000\n"
                   "    def scaled(x):\n"
                   "        return (len(big) * math.floor(x) +\n"
                   "                len(join('a', 'b')) + Small().get())\n"
                   "    return scaled\n"
                   "\n"
                   "class Small:\n"
                   "    v = 1\n"
                   "    def get(self):\n"
                   "        return self.v\n"
                   "\n"
                   "scaled = make()\n"
                   "import threading\n"
                   "LOCK = threading.local()\n"
                   "def locked():\n"
                   "    return LOCK\n"
                   "def lone(x):\n"
                   "    return x * 3\n");
    snprintf(path, sizeof(path), "%s/helper.py", dir);
    cpk_write_file(path, "def twice(x):\n    return 2 * x\n");
}

static int
remove_entry(const char *path, const struct stat *sb, int flag,
             struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void
teardown(void)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(cli_dump_report, .init = setup, .fini = teardown);

static void
dump(cpk_proc *p, const char *const *args)
{
    const char *argv[24] = {CPK_DUMP};
    int i = 1;
    for (; args[i - 1] != NULL; i++)
        argv[i] = args[i - 1];
    argv[i] = NULL;
    cpk_spawn(p, argv, dir, NULL, 0, NULL);
}

/* Run a Python check over `report` (standard error of a dump), given as
 * `text`, with DIR set to the test directory; parse() gives the rows. */
static void
check_report(const char *report, size_t len, const char *check)
{
    char code[8192];
    snprintf(code, sizeof(code),
             "import os, re, sys\n"
             "DIR = '%s'\n"  /* the directory holds no quote */
             "text = sys.stdin.read()\n"
             "lines = text.splitlines()\n"
             "def parse():\n"
             "    i = next(n for n, l in enumerate(lines)\n"
             "             if l.startswith('by value   '))\n"
             "    m = re.match(r'by value   (\\d+) bytes in (\\d+) parts?',\n"
             "                 lines[i])\n"
             "    total, n = int(m[1]), int(m[2])\n"
             "    rows = []\n"
             "    if n:\n"
             "        assert lines[i + 1].split() == ['own', 'bytes', "
             "'kind',\n"
             "                                      'name', 'source'], "
             "lines[i + 1]\n"
             "        for l in lines[i + 2:i + 2 + n]:\n"
             "            own, b, kind, name, source = l.split(None, 4)\n"
             "            rows.append((int(own), int(b), kind, name, "
             "source))\n"
             "    other = re.match(r'other      (\\d+) bytes?', "
             "lines[i + 2 + n if n else i + 1])\n"
             "    return total, rows, int(other[1])\n"
             "try:\n"
             "%s\n"
             "except AssertionError:\n"
             "    print(text, file=sys.stderr)\n"
             "    raise\n",
             dir, check);
    cpk_proc p;
    cpk_python(&p, code, report, len);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

/* Indent a check for the try: block above. */
#define I "    "

Test(cli_dump_report, function_closing_over_a_big_constant_and_a_class)
{
    char out[128];
    snprintf(out, sizeof(out), "%s/scaled.pkl", dir);
    cpk_proc p;
    dump(&p, (const char *[]){"--report", "-o", out, "rep:scaled", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_eq(p.out_len, 0);
    char check[4096];
    snprintf(check, sizeof(check),
             I "OUT = DIR + '/scaled.pkl'\n"
             I "size = os.path.getsize(OUT)\n"
             I "assert lines[0] == 'report     rep:scaled written to ' + OUT\n"
             I "assert lines[1] == 'pickle     %%d bytes, protocol 5' %% size\n"
             I "total, rows, other = parse()\n"
             I "assert len(rows) == 3, rows\n"
             /* the function first: it holds the 20000-byte constant */
             I "own, b, kind, name, source = rows[0]\n"
             I "assert (kind, name) == ('function', "
             "'rep.make.<locals>.scaled'), rows[0]\n"
             I "assert own > 20000 and b > own, rows[0]\n"
             I "assert source == DIR + '/rep.py, line 6', source\n"
             /* first met in its globals: the class is built inside it */
             I "cls = [r for r in rows if r[2] == 'class']\n"
             I "assert len(cls) == 1 and cls[0][3] == 'rep.Small', rows\n"
             I "assert cls[0][4] == DIR + '/rep.py (inside "
             "rep.make.<locals>.scaled)', cls[0]\n"
             I "get = [r for r in rows if r[3] == 'rep.Small.get']\n"
             I "assert len(get) == 1 and get[0][2] == 'function', rows\n"
             I "assert get[0][4] == DIR + '/rep.py, line 13 (inside "
             "rep.Small)', get[0]\n"
             /* nested figures: the class's bytes include its method's */
             I "assert get[0][0] == get[0][1] > 0\n"
             I "assert cls[0][1] == cls[0][0] + get[0][1], (cls, get)\n"
             I "assert b == own + cls[0][1], (rows[0], cls)\n"
             /* every byte once: own figures add up, and with `other` to
              * the pickle's size; the function's span is all of it but
              * PROTO, FRAME and STOP */
             I "assert sum(r[0] for r in rows) == total == b\n"
             I "assert total + other == size and other == 2 + 9 + 1\n"
             I "assert sorted(rows, key=lambda r: -r[0]) == rows\n"
             /* by reference: the imports, modules and names */
             I "i = lines.index('by ref     4 imports')\n"
             I "assert lines[i + 1:] == ['  module   math',\n"
             I "    '  name     posixpath.join', '  name     builtins.type',\n"
             I "    '  name     builtins.object'], lines[i:]\n");
    check_report(p.err, p.err_len, check);
    cpk_proc_free(&p);
}

Test(cli_dump_report, lone_function_span_is_the_pickle_less_framing)
{
    /* To standard output: the pickle there, the report on stderr only. */
    cpk_proc p;
    dump(&p, (const char *[]){"--report", "rep:lone", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert((unsigned char)p.out[0] == 0x80);
    char check[2048];
    snprintf(check, sizeof(check),
             I "size = %zu\n"
             I "assert lines[0] == 'report     rep:lone written to standard "
             "output'\n"
             I "assert lines[1] == 'pickle     %%d bytes, protocol 5' %% size\n"
             I "total, rows, other = parse()\n"
             I "assert rows == [(size - 12, size - 12, 'function', "
             "'rep.lone',\n"
             I "                 DIR + '/rep.py, line 21')], rows\n"
             I "assert other == 12\n"
             I "assert lines[-2:] == ['by ref     0 imports'] or "
             "lines[-1] == 'by ref     0 imports', lines\n",
             p.out_len);
    check_report(p.err, p.err_len, check);
    /* the same bytes as without --report */
    cpk_proc q;
    dump(&q, (const char *[]){"rep:lone", NULL});
    cpk_assert_exit(&q, 0);
    cr_assert_eq(q.out_len, p.out_len);
    cr_assert(memcmp(q.out, p.out, p.out_len) == 0);
    cpk_proc_free(&q);
    cpk_proc_free(&p);
}

Test(cli_dump_report, expression_and_by_value_module)
{
    cpk_proc p;
    dump(&p, (const char *[]){"--report", "--by-value", "helper", "-e",
                              "import helper\nlambda x: helper.twice(x)",
                              NULL});
    cpk_assert_exit(&p, 0);
    char check[2048];
    snprintf(check, sizeof(check),
             I "assert lines[0] == 'report     -e written to standard "
             "output'\n"
             I "total, rows, other = parse()\n"
             I "by_name = {r[3]: r for r in rows}\n"
             I "lam = by_name['__main__.<lambda>']\n"
             I "assert lam[2] == 'function'\n"
             I "assert lam[4] == '<cloudpickle-dump -e>, line 2', lam\n"
             I "mod = by_name['helper']\n"
             I "assert mod[2] == 'module', mod\n"
             I "assert mod[4] == DIR + '/helper.py (inside "
             "__main__.<lambda>)', mod\n"
             I "tw = by_name['helper.twice']\n"
             I "assert tw[4] == DIR + '/helper.py, line 1 (inside helper)'\n"
             I "assert mod[1] >= mod[0] + tw[1] and lam[1] == total\n"
             I "assert sum(r[0] for r in rows) == total\n"
             I "assert total + other == %zu\n",
             p.out_len);
    check_report(p.err, p.err_len, check);
    cpk_proc_free(&p);
}

Test(cli_dump_report, compat_layout_is_measured_too)
{
    cpk_proc p;
    dump(&p, (const char *[]){"--report", "--compat", "cloudpickle2", "-p",
                              "2", "rep:scaled", NULL});
    cpk_assert_exit(&p, 0);
    char check[2048];
    snprintf(check, sizeof(check),
             I "assert lines[1] == 'pickle     %zu bytes, protocol 2'\n"
             I "total, rows, other = parse()\n"
             I "assert [r[3] for r in rows] == ['rep.make.<locals>.scaled',\n"
             I "    'rep.Small', 'rep.Small.get'], rows\n"
             I "assert rows[0][0] > 20000 and rows[0][1] == total\n"
             I "assert total + other == %zu and other == 3\n",
             p.out_len, p.out_len);
    check_report(p.err, p.err_len, check);
    cpk_proc_free(&p);
}

Test(cli_dump_report, signed_envelope)
{
    char out[128], key[128];
    snprintf(out, sizeof(out), "%s/s.pkl", dir);
    snprintf(key, sizeof(key), "%s/key", dir);
    cpk_proc p;
    dump(&p, (const char *[]){"--gen-key", key, NULL});
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    dump(&p, (const char *[]){"--sign", key, "--report", "-o", out,
                              "rep:lone", NULL});
    cpk_assert_exit(&p, 0);
    char check[2048];
    snprintf(check, sizeof(check),
             I "size = os.path.getsize(DIR + '/s.pkl')\n"
             I "m = re.fullmatch(r'written    (\\d+) bytes: a signed "
             "envelope, the pickle is the (\\d+) bytes at byte (\\d+) "
             "\\(offsets count from there\\)', lines[1])\n"
             I "assert m, lines[1]\n"
             I "n, p, h = map(int, m.groups())\n"
             I "assert n == size and h + p + 32 == size, (n, p, h)\n"
             I "assert lines[2] == 'pickle     %%d bytes, protocol 5' %% p\n"
             I "total, rows, other = parse()\n"
             I "assert rows[0][0] == p - 12 and other == 12\n");
    check_report(p.err, p.err_len, check);
    cpk_proc_free(&p);
}

Test(cli_dump_report, with_hash_the_hash_comes_last)
{
    cpk_proc p;
    dump(&p, (const char *[]){"--hash", "--report", "rep:lone", NULL});
    cpk_assert_exit(&p, 0);
    check_report(p.err, p.err_len,
                 I "assert lines[0].startswith('report     rep:lone')\n"
                 I "assert re.fullmatch('[0-9a-f]{64}  -', lines[-1])\n"
                 I "assert lines[-2] == 'by ref     0 imports'\n");
    cpk_proc_free(&p);
    /* with -o: the file named in both, hashed as written */
    dump(&p, (const char *[]){"--report", "-o", "both.pkl", "--hash",
                              "rep:lone", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_eq(p.out_len, 0);
    check_report(p.err, p.err_len,
                 I "import hashlib\n"
                 I "data = open(DIR + '/both.pkl', 'rb').read()\n"
                 I "assert lines[0] == 'report     rep:lone written to "
                 "both.pkl'\n"
                 I "assert lines[1] == 'pickle     %d bytes, protocol 5' "
                 "% len(data)\n"
                 I "assert lines[-1] == hashlib.sha256(data).hexdigest() + "
                 "'  both.pkl'\n");
    cpk_proc_free(&p);
}

Test(cli_dump_report, nothing_when_the_dump_fails)
{
    char out[128];
    snprintf(out, sizeof(out), "%s/never.pkl", dir);
    cpk_proc p;
    dump(&p, (const char *[]){"--report", "--hash", "-o", out, "rep:locked",
                              NULL});
    cpk_assert_exit(&p, 4);
    cr_assert_str_eq(p.err,
                     "cloudpickle-dump: rep:locked: cannot pickle "
                     "rep:locked.__globals__['LOCK'] (_thread._local): "
                     "TypeError: cannot pickle '_thread._local' object\n");
    struct stat sb;
    cr_assert(stat(out, &sb) != 0);
    cpk_proc_free(&p);
    dump(&p, (const char *[]){"--report", "rep:nothing", NULL});
    cpk_assert_exit(&p, 4);
    cr_assert_str_eq(p.err,
                     "cloudpickle-dump: rep:nothing: AttributeError: module "
                     "'rep' has no attribute 'nothing'\n");
    cpk_proc_free(&p);
    dump(&p, (const char *[]){"--report", "-e", "1/0", NULL});
    cpk_assert_exit(&p, 4);
    cr_assert(strstr(p.err, "report ") == NULL, "%s", p.err);
    cpk_proc_free(&p);
}

Test(cli_dump_report, gen_key_refuses_it)
{
    char key[128];
    snprintf(key, sizeof(key), "%s/k", dir);
    cpk_proc p;
    dump(&p, (const char *[]){"--gen-key", key, "--report", NULL});
    cpk_assert_exit(&p, 2);
    cr_assert_str_eq(p.err,
                     "cloudpickle-dump: --gen-key cannot be combined with "
                     "--report\n"
                     "Try 'cloudpickle-dump --help' for more information.\n");
    struct stat sb;
    cr_assert(stat(key, &sb) != 0);
    cpk_proc_free(&p);
}
