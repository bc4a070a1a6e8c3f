/* test_cli_map.c - cloudpickle-load --map: a pickled function as a filter
 * over JSON Lines or a stream of pickles, in this process or in -j worker
 * processes; how records become arguments, each --result format, the
 * order of results, the record number in every refusal, --keep-going and
 * --error-json, a worker that dies, SIGINT and a closed standard output,
 * --result-file, the progress line, and the usage errors. */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "support.h"

static char dir[64];

static int
remove_entry(const char *path, const struct stat *sb, int flag,
             struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* The functions the tests map, pickled by value from a module that the
 * loading side does not have. */
static const char *const FUNCS =
    "import sys, os, time, pickle, ccloudpickle as cp\n"
    "def inc(x): return x + 1\n"
    "def add(a, b=0): return a + b\n"
    "def kind(*a, **k): return [len(a), sorted(k)]\n"
    "def boom(x):\n"
    "    if x == 3: raise ValueError('three')\n"
    "    return x\n"
    "def uneven(x):\n"
    "    time.sleep((x % 4) * 0.01)\n"
    "    return x\n"
    "def die(x):\n"
    "    if x == 5: os._exit(7)\n"
    "    return x\n"
    "def noisy(x):\n"
    "    print('noise', x)\n"
    "    return x\n"
    "def aset(x): return {x}\n"
    "def leave(x):\n"
    "    if x == 2: sys.exit(6)\n"
    "    return x\n"
    "def slow(x):\n"
    "    open('pid-%d' % os.getpid(), 'w').close()\n"
    "    if x == 20: open('started', 'w').close()\n"
    "    time.sleep(0.05)\n"
    "    return x\n"
    "def oom(x):\n"
    "    if x == 2: raise MemoryError('boom')\n"
    "    return x\n"
    "def quit0(x):\n"
    "    if x == 3: sys.exit(0)\n"
    "    return x\n"
    "def stdin_read(x):\n"
    "    import subprocess\n"
    "    subprocess.run(['sh', '-c', 'cat > /dev/null'], check=True)\n"
    "    return [x, sys.stdin.read()]\n"
    "def fork_die(x):\n"
    "    import signal\n"
    "    if x == 3:\n"
    "        if os.fork() == 0:\n"
    "            # off the test's pipes; the worker's own it keeps\n"
    "            null = os.open(os.devnull, os.O_RDWR)\n"
    "            for fd in (0, 1, 2): os.dup2(null, fd)\n"
    "            open('grandchild', 'w').write(str(os.getpid()))\n"
    "            time.sleep(30)\n"
    "            os._exit(0)\n"
    "        while not os.path.exists('grandchild'): time.sleep(0.01)\n"
    "        os.kill(os.getpid(), signal.SIGKILL)\n"
    "    return x\n"
    "def tick(x):\n"
    "    time.sleep(0.1)\n"
    "    return x\n"
    "def pid_after(x):\n"
    "    time.sleep(0.3)\n"
    "    return os.getpid()\n"
    "def lines_so_far(x):\n"
    "    if x <= 10: return 0\n"
    "    time.sleep(0.2)\n"
    "    with open('out.txt') as f: return f.read().count('\\n')\n"
    "def fork_twice(x):\n"
    "    time.sleep(0.01)\n"
    "    if x == 2:\n"
    "        os.fork()  # the child goes on, as a careless function's would\n"
    "    return x * 10\n"
    "def usr1_raises(x):\n"
    "    import signal\n"
    "    if x == 1:\n"
    "        def h(*a): raise RuntimeError('usr1')\n"
    "        signal.signal(signal.SIGUSR1, h)\n"
    "        open('ready', 'w').close()\n"
    "    return '%d:' % x + 'x' * 1000\n"
    "for f in [inc, add, kind, boom, uneven, die, noisy, aset, leave, slow,\n"
    "          oom, quit0, stdin_read, fork_die, tick, pid_after,\n"
    "          lines_so_far, fork_twice, usr1_raises]:\n"
    "    f.__module__ = '__main__'\n"
    "    f.__qualname__ = f.__name__\n"
    "    open(f.__name__ + '.pkl', 'wb').write(cp.dumps(f))\n"
    "class Says:\n"
    "    def __reduce__(self):\n"
    "        return (exec, (\"import sys; sys.stdout.write('LOADED ')\", {}))\n"
    "import functools\n"
    "open('says.pkl', 'wb').write(cp.dumps(functools.partial(kind, Says())))\n";

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    char code[4096];
    snprintf(code, sizeof(code), "import os\nos.chdir(%s%s%s)\n%s", "'", dir,
             "'", FUNCS);
    cpk_proc p;
    cpk_python(&p, code, NULL, 0);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

static void
teardown(void)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(cli_map, .init = setup, .fini = teardown, .timeout = 120);

static void
put(const char *name, const char *data, size_t len)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    cr_assert(f != NULL);
    cr_assert(fwrite(data, 1, len, f) == len);
    cr_assert(fclose(f) == 0);
}

/* cloudpickle-load ARGS... in dir, `in` (len bytes) on standard input. */
static void
load_n(cpk_proc *p, const char *in, size_t len, const char *const *args)
{
    const char *argv[40] = {CPK_LOAD};
    int i = 1;
    for (; args[i - 1] != NULL; i++)
        argv[i] = args[i - 1];
    argv[i] = NULL;
    cpk_spawn(p, argv, dir, in, len, NULL);
}

static size_t
slen(const char *s)
{
    return s ? strlen(s) : 0;
}

#define LOAD(p, in, ...)                                                      \
    load_n((p), (in), slen(in), (const char *[]){__VA_ARGS__, NULL})

/* /bin/sh -c SCRIPT in dir, with cloudpickle-load as $0 and `arg` (may
 * be NULL) as $1. */
static void
shell(cpk_proc *p, const char *script, const char *arg)
{
    const char *argv[] = {"/bin/sh", "-c", script, CPK_LOAD, arg, NULL};
    cpk_spawn(p, argv, dir, NULL, 0, NULL);
}

static void
assert_usage(cpk_proc *p, const char *line)
{
    cpk_assert_exit(p, 2);
    char expected[1024];
    snprintf(expected, sizeof(expected),
             "cloudpickle-load: %s\n"
             "Try 'cloudpickle-load --help' for more information.\n",
             line);
    cr_assert_str_eq(p->err, expected);
}

/* The last line of s (without its newline). */
static const char *
last_line(char *s)
{
    size_t n = strlen(s);
    if (n > 0 && s[n - 1] == '\n')
        s[--n] = '\0';
    char *nl = strrchr(s, '\n');
    return nl ? nl + 1 : s;
}

/* "1\n2\n...n\n" in a malloc'd string. */
static char *
numbers(int n)
{
    char *s = malloc((size_t)n * 12 + 1);
    cr_assert(s != NULL);
    size_t len = 0;
    for (int i = 1; i <= n; i++)
        len += (size_t)sprintf(s + len, "%d\n", i);
    return s;
}

Test(cli_map, json_lines_in_json_lines_out)
{
    cpk_proc p;
    LOAD(&p, "1\n2\n-7\n 40 \r\n", "inc.pkl", "--map");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "2\n3\n-6\n41\n");
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
    /* a last line without its newline is a record too */
    LOAD(&p, "1.5\n100000000000000000000000", "inc.pkl", "--map");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "2.5\n100000000000000000000001\n");
    cpk_proc_free(&p);
    /* no records, no output */
    LOAD(&p, "", "inc.pkl", "--map");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "");
    cpk_proc_free(&p);
}

Test(cli_map, records_become_arguments)
{
    cpk_proc p;
    /* an array is spread; an object is one argument without --kwargs */
    LOAD(&p, "[1, 2, 3]\n{\"a\": 1}\n\"s\"\nnull\n[]\n", "kind.pkl",
         "--map");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "[3,[]]\n[1,[]]\n[1,[]]\n[1,[]]\n[0,[]]\n");
    cpk_proc_free(&p);
    LOAD(&p, "{\"a\": 1, \"b\": 2}\n[5]\n", "kind.pkl", "--map", "--kwargs");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "[0,[\"a\",\"b\"]]\n[1,[]]\n");
    cpk_proc_free(&p);
    LOAD(&p, "[1,2]\n{\"a\":3,\"b\":4}\n5\n", "add.pkl", "--map",
         "--kwargs");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "3\n7\n5\n");
    cpk_proc_free(&p);
    /* non-ASCII text in and out, as UTF-8 */
    LOAD(&p, "[\"h\\u00e9\", \"\xe2\x82\xac\"]\n", "add.pkl", "--map");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "\"h\xc3\xa9\xe2\x82\xac\"\n");
    cpk_proc_free(&p);
}

Test(cli_map, result_formats)
{
    cpk_proc p;
    LOAD(&p, "1\n[\"x\", \"y\"]\n", "add.pkl", "--map", "--result",
         "repr");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "1\n'xy'\n");
    cpk_proc_free(&p);
    LOAD(&p, "1\n2\n", "noisy.pkl", "--map", "--result", "none");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "");
    /* what the function prints goes to standard error */
    cr_assert_str_eq(p.err, "noise 1\nnoise 2\n");
    cpk_proc_free(&p);
    LOAD(&p, "1\n2\n", "aset.pkl", "--map", "--result", "pickle");
    cpk_assert_exit(&p, 0);
    cpk_proc q;
    cpk_python(&q,
               "import sys, io, pickle\n"
               "f = io.BytesIO(sys.stdin.buffer.read())\n"
               "assert pickle.load(f) == {1}\n"
               "assert pickle.load(f) == {2}\n"
               "assert f.read() == b''\n",
               p.out, p.out_len);
    cpk_assert_exit(&q, 0);
    cpk_proc_free(&q);
    cpk_proc_free(&p);
}

Test(cli_map, input_file_and_result_file)
{
    put("in.jsonl", "1\n2\n", 4);
    cpk_proc p;
    LOAD(&p, NULL, "inc.pkl", "--map", "--input", "in.jsonl",
         "--result-file", "out.jsonl");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "");
    cpk_assert_file(dir, "out.jsonl", "2\n3\n");
    cpk_proc_free(&p);
    /* a run that stops at a failing record leaves the old file alone */
    put("in.jsonl", "1\n2\n3\n4\n", 8);
    LOAD(&p, NULL, "boom.pkl", "--map", "--input", "in.jsonl",
         "--result-file", "out.jsonl");
    cpk_assert_exit(&p, 1);
    cpk_assert_file(dir, "out.jsonl", "2\n3\n");
    cpk_proc_free(&p);
    /* a missing input */
    LOAD(&p, NULL, "inc.pkl", "--map", "--input", "nothere.jsonl");
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.err,
                     "cloudpickle-load: nothere.jsonl: No such file or "
                     "directory\n");
    cpk_proc_free(&p);
}

Test(cli_map, bad_json_names_its_record)
{
    for (int j = 1; j <= 2; j++) {
        cpk_proc p;
        LOAD(&p, "1\n2\n{oops\n4\n", "inc.pkl", "--map", "-j",
             j == 1 ? "1" : "2");
        cpk_assert_exit(&p, 3);
        cr_assert_str_eq(p.out, "2\n3\n");
        cr_assert_str_eq(p.err,
                         "cloudpickle-load: standard input: record 3: not "
                         "valid JSON: Expecting property name enclosed in "
                         "double quotes: line 1 column 2 (char 1)\n");
        cpk_proc_free(&p);
    }
    cpk_proc p;
    load_n(&p, "1\n\xff\n", 4, (const char *[]){"inc.pkl", "--map", NULL});
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.err, "cloudpickle-load: standard input: record 2: "
                            "not valid JSON: not UTF-8 text\n");
    cpk_proc_free(&p);
    LOAD(&p, "1 2\n", "inc.pkl", "--map");
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.err, "cloudpickle-load: standard input: record 1: "
                            "not valid JSON: Extra data: line 1 column 3 "
                            "(char 2)\n");
    cpk_proc_free(&p);
}

Test(cli_map, blank_lines_are_skipped_and_keep_their_numbers)
{
    /* Lines of white space are no records (a stray last blank line
     * included); record numbers stay line numbers. */
    for (int j = 1; j <= 2; j++) {
        cpk_proc p;
        LOAD(&p, "1\n\n \t\r\n4\n\n", "inc.pkl", "--map", "-j",
             j == 1 ? "1" : "2");
        cpk_assert_exit(&p, 0);
        cr_assert_str_eq(p.out, "2\n5\n");
        cr_assert_str_eq(p.err, "");
        cpk_proc_free(&p);
        LOAD(&p, "1\n\n3\n{x\n", "inc.pkl", "--map", "-j",
             j == 1 ? "1" : "2");
        cpk_assert_exit(&p, 3);
        cr_assert_str_eq(p.out, "2\n4\n");
        cr_assert(strncmp(p.err, "cloudpickle-load: standard input: record "
                                 "4: not valid JSON: ", 60) == 0,
                  "%s", p.err);
        cpk_proc_free(&p);
    }
}

Test(cli_map, failing_record_stops_the_run)
{
    for (int j = 1; j <= 2; j++) {
        cpk_proc p;
        LOAD(&p, "1\n2\n3\n4\n5\n", "boom.pkl", "--map", "-j",
             j == 1 ? "1" : "2");
        cpk_assert_exit(&p, 1);
        cr_assert_str_eq(p.out, "1\n2\n");
        cr_assert(strstr(p.err, "Traceback (most recent call last)") != NULL);
        cr_assert_str_eq(last_line(p.err), "cloudpickle-load: standard "
                                           "input: record 3: ValueError: "
                                           "three");
        cpk_proc_free(&p);
    }
}

Test(cli_map, keep_going_and_error_json)
{
    for (int j = 1; j <= 2; j++) {
        cpk_proc p;
        LOAD(&p, "1\n2\n3\n4\n", "boom.pkl", "--map", "--keep-going",
             "--error-json", "-j", j == 1 ? "1" : "2");
        cpk_assert_exit(&p, 1);
        cpk_proc q;
        /* the error record on stdout and the object on stderr agree */
        char code[8192];
        snprintf(code, sizeof(code),
                 "import sys, json\n"
                 "o, e = sys.stdin.read().split('\\0')\n"
                 "out = [json.loads(l) for l in o.splitlines()]\n"
                 "assert out[:2] == [1, 2] and out[3] == 4, out\n"
                 "rec = out[2]['error']\n"
                 "assert rec['type'] == 'ValueError', rec\n"
                 "assert rec['message'] == 'three' and rec['record'] == 3\n"
                 "assert rec['traceback'].startswith('Traceback')\n"
                 "assert 'ValueError: three' in rec['traceback']\n"
                 "assert json.loads(e) == rec\n");
        size_t n = p.out_len + 1 + p.err_len;
        char *both = malloc(n + 1);
        memcpy(both, p.out, p.out_len);
        both[p.out_len] = '\0';
        memcpy(both + p.out_len + 1, p.err, p.err_len);
        cpk_python(&q, code, both, n);
        cpk_assert_exit(&q, 0);
        free(both);
        cpk_proc_free(&q);
        cpk_proc_free(&p);
    }
}

Test(cli_map, unencodable_result_and_system_exit)
{
    cpk_proc p;
    LOAD(&p, "1\n", "aset.pkl", "--map");
    cpk_assert_exit(&p, 4);
    cr_assert_str_eq(p.err, "cloudpickle-load: standard input: record 1: "
                            "cannot encode a result of type 'set' as "
                            "JSON\n");
    cpk_proc_free(&p);
    LOAD(&p, "1\n2\n3\n", "leave.pkl", "--map");
    cpk_assert_exit(&p, 6);
    cr_assert_str_eq(p.out, "1\n");
    cpk_proc_free(&p);
}

Test(cli_map, a_record_that_exits_is_a_failing_record)
{
    for (int j = 1; j <= 2; j++) {
        const char *jobs = j == 1 ? "1" : "2";
        /* sys.exit(0): the run stops there, named, status 1, no
         * --result-file (the run is not whole) */
        put("in.jsonl", "1\n2\n3\n4\n", 8);
        cpk_proc p;
        LOAD(&p, NULL, "quit0.pkl", "--map", "--input", "in.jsonl",
             "--result-file", "out.jsonl", "-j", jobs);
        cpk_assert_exit(&p, 1);
        cr_assert_str_eq(last_line(p.err), "cloudpickle-load: in.jsonl: "
                                           "record 3: SystemExit: 0");
        char path[256];
        snprintf(path, sizeof(path), "%s/out.jsonl", dir);
        cr_assert(access(path, F_OK) != 0, "-j %s: out.jsonl written", jobs);
        cpk_proc_free(&p);
        /* sys.exit(6): its status, named */
        LOAD(&p, "1\n2\n3\n", "leave.pkl", "--map", "-j", jobs);
        cpk_assert_exit(&p, 6);
        cr_assert_str_eq(p.out, "1\n");
        cr_assert_str_eq(last_line(p.err), "cloudpickle-load: standard "
                                           "input: record 2: SystemExit: 6");
        cpk_proc_free(&p);
        /* --keep-going: an error record like any other, the run goes
         * on, exit 1, the --result-file written */
        LOAD(&p, NULL, "quit0.pkl", "--map", "--input", "in.jsonl",
             "--result-file", "out.jsonl", "--keep-going", "-j", jobs);
        cpk_assert_exit(&p, 1);
        cr_assert_str_eq(p.err, "cloudpickle-load: in.jsonl: record 3: "
                                "SystemExit: 0\n");
        size_t len;
        char *out = cpk_read_file(path, &len);
        cr_assert(out != NULL);
        cr_assert(strncmp(out, "1\n2\n{\"error\":{\"type\":\"SystemExit\","
                               "\"message\":\"0\",", 44) == 0,
                  "%s", out);
        cr_assert(strstr(out, "\"record\":3}}\n4\n") != NULL, "%s", out);
        free(out);
        unlink(path);
        cpk_proc_free(&p);
        LOAD(&p, "1\n2\n3\n", "leave.pkl", "--map", "--keep-going", "-j",
             jobs);
        cpk_assert_exit(&p, 1);
        cr_assert(strstr(p.out, "\"record\":2}}\n3\n") != NULL, "%s",
                  p.out);
        cpk_proc_free(&p);
    }
}

Test(cli_map, undecodable_records_under_keep_going)
{
    /* A BOM, bad JSON, bad UTF-8: each an error record with its number
     * and one line on stderr; the run goes on, exits 3, and the
     * --result-file holds it all. */
    static const char in[] = "\xef\xbb\xbf" "1\n2\n{x\n\xff\n5\n\n";
    put("bad.jsonl", in, sizeof(in) - 1);
    for (int j = 1; j <= 2; j++) {
        cpk_proc p;
        LOAD(&p, NULL, "inc.pkl", "--map", "--keep-going", "--input",
             "bad.jsonl", "--result-file", "out.jsonl", "-j",
             j == 1 ? "1" : "2");
        cpk_assert_exit(&p, 3);
        cr_assert_str_eq(
            p.err,
            "cloudpickle-load: bad.jsonl: record 1: not valid JSON: "
            "Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 "
            "(char 0)\n"
            "cloudpickle-load: bad.jsonl: record 3: not valid JSON: "
            "Expecting property name enclosed in double quotes: line 1 "
            "column 2 (char 1)\n"
            "cloudpickle-load: bad.jsonl: record 4: not valid JSON: not "
            "UTF-8 text\n");
        cpk_assert_file(
            dir, "out.jsonl",
            "{\"error\":{\"type\":\"InvalidRecord\",\"message\":\"not valid "
            "JSON: Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 "
            "column 1 (char 0)\",\"traceback\":\"\",\"record\":1}}\n"
            "3\n"
            "{\"error\":{\"type\":\"InvalidRecord\",\"message\":\"not valid "
            "JSON: Expecting property name enclosed in double quotes: line 1 "
            "column 2 (char 1)\",\"traceback\":\"\",\"record\":3}}\n"
            "{\"error\":{\"type\":\"InvalidRecord\",\"message\":\"not valid "
            "JSON: not UTF-8 text\",\"traceback\":\"\",\"record\":4}}\n"
            "6\n");
        cpk_proc_free(&p);
    }
}

Test(cli_map, order_kept_under_workers_with_uneven_costs)
{
    char *in = numbers(200);
    cpk_proc p;
    load_n(&p, in, strlen(in),
           (const char *[]){"uneven.pkl", "--map", "-j", "2", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, in);
    cpk_proc_free(&p);
    /* -j 0: one per processor, the same output */
    load_n(&p, in, strlen(in),
           (const char *[]){"inc.pkl", "--map", "-j", "0", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert(strncmp(p.out, "2\n3\n", 4) == 0);
    cr_assert(strstr(p.out, "\n201\n") != NULL);
    cpk_proc_free(&p);
    free(in);
}

Test(cli_map, many_records_through_workers)
{
    char *in = numbers(100000);
    put("big.jsonl", in, strlen(in));
    cpk_proc p;
    LOAD(&p, NULL, "inc.pkl", "--map", "-j", "2", "--input", "big.jsonl");
    cpk_assert_exit(&p, 0);
    /* 2..100001: the input shifted by one record */
    cr_assert(strncmp(p.out, in + 2, strlen(in) - 2) == 0);
    cr_assert_str_eq(p.out + strlen(in) - 2, "100001\n");
    cpk_proc_free(&p);
    free(in);
}

Test(cli_map, a_worker_that_dies_is_reported)
{
    cpk_proc p;
    LOAD(&p, "1\n2\n3\n4\n5\n6\n", "die.pkl", "--map", "-j", "2");
    cpk_assert_exit(&p, 1);
    cr_assert(strstr(p.err, "exited with status 7 while running record") !=
              NULL, "%s", p.err);
    cr_assert(strncmp(p.err, "cloudpickle-load: worker ", 25) == 0, "%s",
              p.err);
    cpk_proc_free(&p);
}

Test(cli_map, closed_stdout_ends_quietly)
{
    char *in = numbers(300000);
    put("big.jsonl", in, strlen(in));
    free(in);
    for (int j = 1; j <= 2; j++) {
        cpk_proc p;
        const char *argv[] = {CPK_LOAD,  "inc.pkl", "--map", "--input",
                              "big.jsonl", "-j",    j == 1 ? "1" : "2",
                              NULL};
        cpk_spawn_opts o = {.argv = argv, .cwd = dir, .close_stdout = 1};
        cpk_spawn_ex(&p, &o);
        cr_assert(p.signaled && p.sig == SIGPIPE, "exited %d status %d",
                  p.exited, p.status);
        cr_assert_str_eq(p.err, "");
        cpk_proc_free(&p);
    }
}

/* 1 if a process with a pid named by a "pid-N" file in dir still runs
 * (a worker left behind), after waiting up to 2 s for them to go. */
static int
workers_left(void)
{
    for (int tries = 0; tries < 40; tries++) {
        int alive = 0;
        DIR *d = opendir(dir);
        cr_assert(d != NULL);
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            int pid;
            if (sscanf(e->d_name, "pid-%d", &pid) == 1 &&
                kill(pid, 0) == 0) {
                char path[64], state = 0;
                snprintf(path, sizeof(path), "/proc/%d/stat", pid);
                FILE *f = fopen(path, "r");
                if (f != NULL) {
                    if (fscanf(f, "%*d %*s %c", &state) != 1)
                        state = 0;
                    fclose(f);
                }
                alive += state != 'Z';
            }
        }
        closedir(d);
        if (alive == 0)
            return 0;
        struct timespec ts = {0, 50000000};
        nanosleep(&ts, NULL);
    }
    return 1;
}

Test(cli_map, sigint_stops_workers_and_leaves_no_result_file)
{
    char *in = numbers(400);
    put("in.jsonl", in, strlen(in));
    free(in);
    for (int j = 1; j <= 2; j++) {
        char started[128];
        snprintf(started, sizeof(started), "%s/started", dir);
        unlink(started);
        cpk_proc p;
        const char *argv[] = {CPK_LOAD, "slow.pkl", "--map", "--input",
                              "in.jsonl", "--result-file", "out.jsonl",
                              "-j", j == 1 ? "1" : "2", NULL};
        cpk_spawn_opts o = {.argv = argv,
                            .cwd = dir,
                            .signal = SIGINT,
                            .signal_when_exists = started};
        cpk_spawn_ex(&p, &o);
        cr_assert(p.signaled && p.sig == SIGINT, "exited %d status %d: %s",
                  p.exited, p.status, p.err);
        cpk_proc_free(&p);
        /* no result file, no temp file beside it, no worker */
        DIR *d = opendir(dir);
        struct dirent *e;
        while ((e = readdir(d)) != NULL)
            cr_assert(strstr(e->d_name, "out.jsonl") == NULL, "%s left",
                      e->d_name);
        closedir(d);
        cr_assert(!workers_left());
    }
}

Test(cli_map, pickled_records)
{
    cpk_proc mk;
    cpk_python(&mk,
               "import sys, pickle\n"
               "w = sys.stdout.buffer.write\n"
               "w(pickle.dumps((1, 2))); w(pickle.dumps(5, protocol=2))\n"
               "w(pickle.dumps({'a': 3, 'b': 4}))\n",
               NULL, 0);
    cpk_assert_exit(&mk, 0);
    put("recs.pkl", mk.out, mk.out_len);
    cpk_proc p;
    LOAD(&p, NULL, "add.pkl", "--map", "--in", "pickle", "--input",
         "recs.pkl", "--kwargs");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "3\n5\n7\n");
    cpk_proc_free(&p);
    /* the same through workers, from standard input */
    load_n(&p, mk.out, mk.out_len,
           (const char *[]){"add.pkl", "--map", "--in", "pickle",
                            "--kwargs", "-j", "2", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "3\n5\n7\n");
    cpk_proc_free(&p);
    /* a record importing what --strict refuses: named, nothing loaded */
    cpk_proc bad;
    cpk_python(&bad,
               "import sys, pickle, os\n"
               "w = sys.stdout.buffer.write\n"
               "w(pickle.dumps(1))\n"
               "w(b'cos\\nsystem\\n(S\"echo pwned\"\\ntR.')\n",
               NULL, 0);
    cpk_assert_exit(&bad, 0);
    put("bad.pkl", bad.out, bad.out_len);
    LOAD(&p, NULL, "inc.pkl", "--map", "--in", "pickle", "--input",
         "bad.pkl", "--strict");
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.out, "2\n");
    cr_assert(strncmp(p.err, "cloudpickle-load: bad.pkl: record 2: refused "
                             "import os.system",
                      60) == 0,
              "%s", p.err);
    cr_assert(strstr(p.out, "pwned") == NULL);
    cpk_proc_free(&p);
    /* a truncated last record */
    put("cut.pkl", mk.out, mk.out_len - 3);
    LOAD(&p, NULL, "add.pkl", "--map", "--in", "pickle", "--input",
         "cut.pkl", "--kwargs");
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.out, "3\n5\n");
    cr_assert(strncmp(p.err, "cloudpickle-load: cut.pkl: record 3: ", 37) ==
                  0,
              "%s", p.err);
    cr_assert(strstr(p.err, "cut.pkl: record 3: not a valid pickle") !=
              NULL, "%s", p.err);
    cpk_proc_free(&p);
    cpk_proc_free(&bad);
    cpk_proc_free(&mk);
}

Test(cli_map, progress_only_when_asked_off_a_terminal)
{
    cpk_proc p;
    LOAD(&p, "1\n2\n", "inc.pkl", "--map");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
    put("in.jsonl", "1\n2\n", 4);
    LOAD(&p, NULL, "inc.pkl", "--map", "--progress", "--input", "in.jsonl");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "2\n3\n");
    cr_assert(strncmp(p.err, "cloudpickle-load: 2 records, ", 29) == 0,
              "%s", p.err);
    cr_assert(strstr(p.err, "100.0%") != NULL, "%s", p.err);
    cpk_proc_free(&p);
}

Test(cli_map, usage_errors)
{
    cpk_proc p;
    LOAD(&p, "1\n", "inc.pkl", "-j", "2");
    assert_usage(&p, "-j is for --map");
    cpk_proc_free(&p);
    LOAD(&p, "1\n", "inc.pkl", "--keep-going");
    assert_usage(&p, "--keep-going is for --map");
    cpk_proc_free(&p);
    LOAD(&p, "1\n", "inc.pkl", "--map", "--call");
    assert_usage(&p, "--call and --map are mutually exclusive");
    cpk_proc_free(&p);
    LOAD(&p, "1\n", "inc.pkl", "--map", "-j", "x");
    assert_usage(&p, "invalid number of jobs 'x' for -j (0 to 256; 0: one "
                     "per processor)");
    cpk_proc_free(&p);
    LOAD(&p, "1\n", "inc.pkl", "--map", "--in", "xml");
    assert_usage(&p, "invalid format 'xml' for --in (json or pickle)");
    cpk_proc_free(&p);
    LOAD(&p, "1\n", "--map");
    assert_usage(&p, "the pickle and the records cannot both come from "
                     "standard input (give the pickle as FILE, or the "
                     "records with --input)");
    cpk_proc_free(&p);
    LOAD(&p, "1\n", "inc.pkl", "--map", "extra");
    assert_usage(&p, "unexpected argument 'extra' (arguments are for "
                     "--call)");
    cpk_proc_free(&p);
}

Test(cli_map, memory_error_is_no_record_failure)
{
    /* -j 1 says which record, and what came before it still goes out */
    {
        cpk_proc p;
        LOAD(&p, "1\n2\n3\n", "oom.pkl", "--map");
        cpk_assert_exit(&p, 1);
        cr_assert_str_eq(p.out, "1\n");
        cr_assert_str_eq(p.err, "cloudpickle-load: standard input: record 2: "
                                "MemoryError: boom\n");
        cpk_proc_free(&p);
    }
    for (int j = 1; j <= 2; j++) {
        cpk_proc p;
        LOAD(&p, "1\n2\n3\n", "oom.pkl", "--map", "--keep-going", "-j",
             j == 1 ? "1" : "2");
        /* not an error record and on: the run ends */
        cr_assert(strstr(p.out, "error") == NULL, "%s", p.out);
        cr_assert(strstr(p.out, "3\n") == NULL, "%s", p.out);
        cpk_assert_exit(&p, 1); /* as the worker's death under -j 2 */
        cr_assert(strstr(p.err, "MemoryError: boom") != NULL, "%s", p.err);
        cpk_proc_free(&p);
    }
}

Test(cli_map, a_worker_killed_between_batches_is_reported)
{
    /* The records after the kill come after a pause: the worker is idle
     * (holds no record) when it dies, and the run still says so. */
    cpk_proc p;
    /* $! is the program (the last command of the pipeline): once it
     * has forked its two workers (its children in /proc; no procps,
     * which fails under the sanitizers' LD_PRELOAD), kill the second. */
    const char *argv[] = {"/bin/sh", "-c",
                          "(echo 1; sleep 2; echo 2; echo 3) | "
                          "\"$0\" inc.pkl --map -j 2 & L=$!; n=0; "
                          "while :; do "
                          "set -- $(cat /proc/$L/task/$L/children); "
                          "[ $# -ge 2 ] && break; n=$((n+1)); "
                          "[ $n -gt 600 ] && exit 99; sleep 0.05; done; "
                          "sleep 0.3; kill -9 $2; wait $L",
                          CPK_LOAD, NULL};
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 1);
    cr_assert(strstr(p.err, "was killed by signal 9") != NULL, "%s", p.err);
    /* records 2 and 3 came after the death: never written */
    cr_assert(strstr(p.out, "3\n") == NULL, "%s", p.out);
    cpk_proc_free(&p);
}

Test(cli_map, a_pausing_input_ends_with_the_input)
{
    /* Every result is out before the end of the input arrives: the run
     * must still see that end, and exit. */
    static const char *const jobs[] = {"1", "2", "0"};
    for (int j = 0; j < 3; j++) {
        cpk_proc p;
        shell(&p,
              "(echo 1; sleep 0.3; echo 2; sleep 0.3) | "
              "timeout 10 \"$0\" inc.pkl --map -j $1",
              jobs[j]);
        cpk_assert_exit(&p, 0);
        cr_assert_str_eq(p.out, "2\n3\n", "-j %s: %s", jobs[j], p.err);
        cpk_proc_free(&p);
    }
}

Test(cli_map, records_are_not_the_functions_standard_input)
{
    /* The records arrive slowly, so that a reader of fd 0 would get the
     * later ones: neither the function (sys.stdin) nor a process it
     * starts may see them; every record is processed once. */
    for (int j = 1; j <= 2; j++) {
        cpk_proc p;
        shell(&p,
              "(echo 1; sleep 0.3; echo 2; sleep 0.3; "
              "echo 3) | \"$0\" stdin_read.pkl --map -j $1",
              j == 1 ? "1" : "2");
        cpk_assert_exit(&p, 0);
        cr_assert_str_eq(p.out, "[1,\"\"]\n[2,\"\"]\n[3,\"\"]\n",
                         "-j %d: %s", j, p.err);
        cpk_proc_free(&p);
    }
}

Test(cli_map, result_file_that_is_standard_errors_file)
{
    /* Standard output is no longer fd 1 once the program runs: a
     * --result-file naming stderr's file is still that file. */
    cpk_proc p;
    const char *argv[] = {"/bin/sh", "-c",
                          "printf '1\\n2\\n' | \"$0\" inc.pkl --map "
                          "--result-file log 2>>log",
                          CPK_LOAD, NULL};
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "");
    cpk_assert_file(dir, "log", "2\n3\n");
    cpk_proc_free(&p);
}

Test(cli_map, a_dead_worker_is_seen_while_its_child_holds_the_pipe)
{
    /* The worker forks (no exec: the child keeps the worker's result
     * pipe), then is killed: the run must not wait for that child. */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cpk_proc p;
    LOAD(&p, "1\n2\n3\n4\n", "fork_die.pkl", "--map", "-j", "2");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    char path[256];
    snprintf(path, sizeof(path), "%s/grandchild", dir);
    size_t len;
    char *pid = cpk_read_file(path, &len);
    if (pid != NULL && atoi(pid) > 0)
        kill(atoi(pid), SIGKILL);
    free(pid);
    cpk_assert_exit(&p, 1);
    cr_assert(strstr(p.err, "was killed by signal 9") != NULL, "%s", p.err);
    /* the child sleeps 30 s; the run ended long before */
    cr_assert(t1.tv_sec - t0.tv_sec < 20, "took %ld s",
              (long)(t1.tv_sec - t0.tv_sec));
    cpk_proc_free(&p);
}

Test(cli_map, output_buffered_at_load_is_not_repeated_by_workers)
{
    cpk_proc p;
    LOAD(&p, "1\n2\n3\n4\n", "says.pkl", "--map", "-j", "3");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "[2,[]]\n[2,[]]\n[2,[]]\n[2,[]]\n");
    const char *first = strstr(p.err, "LOADED");
    cr_assert(first != NULL, "%s", p.err);
    cr_assert(strstr(first + 1, "LOADED") == NULL, "%s", p.err);
    cpk_proc_free(&p);
}

Test(cli_map, progress_line_erased_before_results_on_one_terminal)
{
    /* Results and progress on one terminal (script(1) gives the program
     * one): no result is written onto the end of the progress line. */
    put("in.jsonl", "1\n2\n3\n4\n5\n6\n7\n8\n", 16);
    cpk_proc p;
    const char *argv[] = {"/usr/bin/script", "-qfec",
                          CPK_LOAD " tick.pkl --map --input in.jsonl",
                          "/dev/null", NULL};
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "records,") != NULL, "no progress: %s", p.out);
    /* After each drawing of the line ("...\033[K"), the cursor is taken
     * back and the line erased before anything else. */
    int lines = 0;
    for (const char *at = p.out; (at = strstr(at, "\033[K")) != NULL;
         at += 3) {
        const char *cr = at;
        while (cr > p.out && cr[-1] != '\r' && cr[-1] != '\n')
            cr--;
        if (strncmp(cr, "cloudpickle-load: ", 18) != 0)
            continue; /* an erasing "\r\033[K" */
        lines++;
        cr_assert(at[3] == '\r' || at[3] == '\n' || at[3] == '\0',
                  "text after the progress line: %s", p.out);
    }
    cr_assert(lines >= 2, "%s", p.out);
    for (int i = 1; i <= 8; i++) {
        char want[8];
        snprintf(want, sizeof(want), "\n%d\r", i);
        char at_start[16];
        snprintf(at_start, sizeof(at_start), "\033[K%d\r", i);
        cr_assert(i == 1 ? strncmp(p.out, "1\r", 2) == 0 ||
                               strstr(p.out, at_start) != NULL
                         : strstr(p.out, want) != NULL ||
                               strstr(p.out, at_start) != NULL,
                  "record %d: %s", i, p.out);
    }
    cpk_proc_free(&p);
}

Test(cli_map, the_first_records_spread_over_the_workers)
{
    /* Nothing is measured yet: one record a batch, so a few costly
     * records already run in as many workers. */
    cpk_proc p;
    LOAD(&p, "1\n2\n3\n4\n", "pid_after.pkl", "--map", "-j", "2");
    cpk_assert_exit(&p, 0);
    char *second = strchr(p.out, '\n');
    cr_assert(second != NULL, "%s", p.out);
    int pids = 0;
    char seen[4][32] = {{0}};
    for (char *line = p.out; *line != '\0';) {
        char *nl = strchr(line, '\n');
        cr_assert(nl != NULL);
        *nl = '\0';
        int known = 0;
        for (int i = 0; i < pids; i++)
            known |= strcmp(seen[i], line) == 0;
        if (!known && pids < 4)
            snprintf(seen[pids++], sizeof(seen[0]), "%s", line);
        line = nl + 1;
    }
    cr_assert_eq(pids, 2, "%d worker(s) ran the 4 records", pids);
    cpk_proc_free(&p);
}

Test(cli_map, results_go_out_while_later_records_run)
{
    /* Ten cheap records, then slow ones: the function reads what
     * standard output (a file) holds so far. Batches sized on the cheap
     * records must still let results out as the slow ones finish. */
    for (int j = 1; j <= 2; j++) {
        cpk_proc p;
        shell(&p,
              "seq 14 | \"$0\" lines_so_far.pkl --map -j $1 "
              "> out.txt && tail -n 1 out.txt",
              j == 1 ? "1" : "2");
        cpk_assert_exit(&p, 0);
        cr_assert(atoi(p.out) >= 11, "-j %d: record 14 saw %s lines", j,
                  p.out);
        cpk_proc_free(&p);
    }
}

Test(cli_map, minus_j_0_is_one_worker_per_core)
{
    long cores = 0;
    {
        cpu_set_t set;
        if (sched_getaffinity(0, sizeof(set), &set) == 0)
            cores = CPU_COUNT(&set);
    }
    cr_assert(cores > 0);
    /* enough records for every core, one a batch at first */
    long records = cores * 8 > 40 ? cores * 8 : 40;
    char in[16384] = "";
    for (long i = 1; i <= records && strlen(in) + 8 < sizeof(in); i++)
        snprintf(in + strlen(in), sizeof(in) - strlen(in), "%ld\n", i);
    cpk_proc p;
    LOAD(&p, in, "slow.pkl", "--map", "-j", "0");
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    /* slow() leaves a file pid-PID for each process that ran it */
    DIR *d = opendir(dir);
    cr_assert(d != NULL);
    long n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strncmp(e->d_name, "pid-", 4) == 0;
    closedir(d);
    cr_assert_eq(n, cores, "%ld processes ran records on %ld cores", n,
                 cores);
}

Test(cli_map, no_progress_on_a_terminal_and_pickles_refuse_one)
{
    put("in.jsonl", "1\n2\n3\n", 6);
    cpk_proc p;
    const char *argv[] = {"/usr/bin/script", "-qfec",
                          CPK_LOAD " tick.pkl --map --no-progress "
                          "--input in.jsonl",
                          "/dev/null", NULL};
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "records") == NULL, "%s", p.out);
    cr_assert(strstr(p.out, "3") != NULL, "%s", p.out);
    cpk_proc_free(&p);
    /* stderr on the terminal, no option: the line is there */
    const char *on[] = {"/usr/bin/script", "-qfec",
                        CPK_LOAD " tick.pkl --map --input in.jsonl",
                        "/dev/null", NULL};
    cpk_spawn(&p, on, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "3 records, ") != NULL, "%s", p.out);
    cpk_proc_free(&p);
    /* --result pickle to a terminal: refused before anything runs */
    cpk_spawn_opts o = {0};
    const char *refuse[] = {CPK_LOAD, "inc.pkl", "--map", "--result",
                            "pickle", "--input", "in.jsonl", NULL};
    o.argv = refuse;
    o.cwd = dir;
    o.stdout_tty = 1;
    cpk_spawn_ex(&p, &o);
    assert_usage(&p, "refusing to write a pickle to a terminal (use "
                     "--result-file FILE, a pipe, or -f)");
    cpk_proc_free(&p);
}

Test(cli_map, keep_going_alone_and_error_json_alone)
{
    /* --keep-going without --error-json: an error record in its place
     * (one output record per input record), the traceback on stderr,
     * the others done, exit 1 */
    cpk_proc p;
    LOAD(&p, "1\n2\n3\n4\n", "boom.pkl", "--map", "--keep-going");
    cpk_assert_exit(&p, 1);
    cr_assert(strncmp(p.out, "1\n2\n{\"error\":{\"type\":\"ValueError\","
                             "\"message\":\"three\",", 44) == 0,
              "%s", p.out);
    cr_assert(strstr(p.out, "\"record\":3}}\n4\n") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "\"traceback\":\"Traceback (most recent") !=
                  NULL,
              "%s", p.out);
    /* one line per failing record on stderr, the traceback in the
     * error record */
    cr_assert_str_eq(p.err, "cloudpickle-load: standard input: record 3: "
                            "ValueError: three\n");
    cpk_proc_free(&p);
    /* no error record (--result none): the traceback stays on stderr */
    LOAD(&p, "1\n2\n3\n4\n", "boom.pkl", "--map", "--keep-going",
         "--result", "none");
    cpk_assert_exit(&p, 1);
    cr_assert(strstr(p.err, "Traceback (most recent") != NULL, "%s", p.err);
    cr_assert_str_eq(last_line(p.err), "cloudpickle-load: standard input: "
                                       "record 3: ValueError: three");
    cpk_proc_free(&p);
    /* --error-json without --keep-going: one JSON object with the record
     * number on stderr, the run stops there */
    LOAD(&p, "1\n2\n3\n4\n", "boom.pkl", "--map", "--error-json");
    cpk_assert_exit(&p, 1);
    cr_assert_str_eq(p.out, "1\n2\n");
    cr_assert(strstr(p.err, "\"type\":\"ValueError\"") != NULL, "%s", p.err);
    cr_assert(strstr(p.err, "\"record\":3") != NULL, "%s", p.err);
    cr_assert(strstr(p.err, "Traceback (most recent") != NULL ||
                  strstr(p.err, "\"traceback\":") != NULL,
              "%s", p.err);
    cpk_proc_free(&p);
}

Test(cli_map, memory_stays_bounded_on_an_endless_input)
{
    /* The peak RSS of the program and its workers (RUSAGE_CHILDREN, as
     * they are reaped) over 3 s of an endless input, millions of
     * records, against a run of 1,000: no growth with the records. */
    static const char code[] =
        "import os, resource, signal, subprocess, sys, time\n"
        "load, d = sys.argv[1], sys.argv[2]\n"
        "# make sanitize: ASan keeps freed blocks in a quarantine of up to\n"
        "# 256 MB, which would count as growth here\n"
        "if os.environ.get('ASAN_OPTIONS'):\n"
        "    os.environ['ASAN_OPTIONS'] += ':quarantine_size_mb=0'\n"
        "def peak(n, seconds):\n"
        "    if os.fork() == 0:  # a fresh RUSAGE_CHILDREN\n"
        "        yes = subprocess.Popen(['yes', '1'],\n"
        "                               stdout=subprocess.PIPE)\n"
        "        src = yes.stdout\n"
        "        if n:\n"
        "            head = subprocess.Popen(['head', '-n', str(n)],\n"
        "                                    stdin=yes.stdout,\n"
        "                                    stdout=subprocess.PIPE)\n"
        "            src = head.stdout\n"
        "        p = subprocess.Popen([load, 'inc.pkl', '--map', '-j', '2'],\n"
        "                             stdin=src, cwd=d,\n"
        "                             stdout=subprocess.DEVNULL)\n"
        "        if seconds:\n"
        "            time.sleep(seconds)\n"
        "            p.send_signal(signal.SIGINT)\n"
        "        p.wait()\n"
        "        yes.kill(); yes.wait()\n"
        "        r = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "        os.write(1, b'%d ' % r.ru_maxrss)\n"
        "        os._exit(0)\n"
        "    os.wait()\n"
        "peak(1000, 0)\n"
        "peak(0, 3)\n";
    const char *argv[] = {CPK_PYTHON, "-c", code, CPK_LOAD, dir, NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    long small = 0, endless = 0;
    cr_assert(sscanf(p.out, "%ld %ld", &small, &endless) == 2, "%s|%s",
              p.out, p.err);
    cr_assert(small > 0);
    /* kilobytes; slack for allocator noise, none for a per-record cost */
    cr_assert(endless < small + small / 2 + 20000,
              "peak %ld kB over the endless input, %ld kB over 1,000",
              endless, small);
    cpk_proc_free(&p);
}

Test(cli_map, a_forked_copy_of_a_worker_never_answers_for_it)
{
    /* The function forks and its child returns into the worker's loop
     * (or, -j 1, the program's): the copy must not send or write results
     * (they would be taken for later records) nor take records. */
    for (int round = 0; round < 6; round++) {
        cpk_proc p;
        LOAD(&p, "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "fork_twice.pkl",
             "--map", "-j", round % 2 ? "2" : "1");
        cpk_assert_exit(&p, 0);
        cr_assert_str_eq(p.out, "10\n20\n30\n40\n50\n60\n70\n80\n90\n100\n"
                                "110\n120\n");
        cpk_proc_free(&p);
    }
}

Test(cli_map, results_written_once_when_a_handler_raises_mid_write)
{
    /* A Python signal handler raises while results are being written
     * to a reader that waits: the run ends, and no result already
     * written is written again when the rest is flushed. */
    char in[4096] = "";
    for (int i = 1; i <= 300; i++)
        snprintf(in + strlen(in), sizeof(in) - strlen(in), "%d\n", i);
    put("in300.jsonl", in, strlen(in));
    cpk_proc p;
    const char *argv[] = {"/bin/sh", "-c",
                          "rm -f ready; "
                          "(\"$0\" --map usr1_raises.pkl --input in300.jsonl "
                          "--result repr 2>/dev/null & L=$!; "
                          "while [ ! -e ready ]; do sleep 0.05; done; "
                          "sleep 0.5; kill -USR1 $L; wait $L) | "
                          "(sleep 1.5; cat)",
                          CPK_LOAD, NULL};
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    /* every line whole, no record twice */
    int seen[301] = {0};
    int lines = 0;
    for (char *line = p.out; *line != '\0';) {
        char *nl = strchr(line, '\n');
        cr_assert(nl != NULL, "a cut last line");
        int n = atoi(line + 1);
        cr_assert(n >= 1 && n <= 300 && nl - line == 1006 + (n >= 10) +
                                                        (n >= 100) - 2,
                  "line %d: %.40s", lines + 1, line);
        cr_assert(!seen[n], "record %d written twice", n);
        seen[n] = 1;
        lines++;
        line = nl + 1;
    }
    cr_assert(lines < 300, "the handler's exception did not end the run");
    cpk_proc_free(&p);
}
