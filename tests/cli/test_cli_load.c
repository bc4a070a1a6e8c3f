/* test_cli_load.c - cloudpickle-load end to end: the report, --call with
 * literal and keyword arguments, the exceptions and SystemExit of the
 * called function, and every kind of bad input with its exit status and
 * exact message. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ccloudpickle.h"
#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
}

TestSuite(cli_load, .init = setup);

/* Bytes printed by a Python snippet run with the built module. */
static char *
pickle_of(const char *code, size_t *len)
{
    cpk_proc p;
    char full[4096];
    snprintf(full, sizeof(full),
             "import sys, ccloudpickle as cp\n%s\n"
             "sys.stdout.buffer.write(data)\n",
             code);
    cpk_python(&p, full, NULL, 0);
    cr_assert(p.exited && p.status == 0, "making the pickle failed:\n%s",
              p.err);
    char *data = p.out;
    *len = p.out_len;
    free(p.err);
    return data;
}

/* cloudpickle-load with args, stdin `in`, in `dir`. */
static void
load(cpk_proc *p, const char *in, size_t len, const char *const *args)
{
    /* Without --call: --load, the live report (the default is the
     * static one, test_cli_describe.c). */
    const char *argv[16] = {CPK_LOAD};
    int i = 1, call = 0;
    for (int k = 0; args[k] != NULL; k++)
        call |= strcmp(args[k], "--call") == 0;
    if (!call)
        argv[i++] = "--load";
    for (int k = 0; args[k] != NULL; k++)
        argv[i++] = args[k];
    argv[i] = NULL;
    cpk_spawn(p, argv, dir, in, len, NULL);
}

static char *
file_with(const char *name, const char *data, size_t len)
{
    static char path[8][256];
    static int next;
    char *p = path[next++ % 8];
    snprintf(p, 256, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    cr_assert(f != NULL);
    cr_assert(fwrite(data, 1, len, f) == len);
    cr_assert(fclose(f) == 0);
    return p;
}

Test(cli_load, report_of_a_function)
{
    cpk_proc p;
    char out[128];
    snprintf(out, sizeof(out), "%s/job.pkl", dir);
    const char *argv[] = {CPK_DUMP, "-o", out, "jobs:hypot", NULL};
    cpk_spawn(&p, argv, CPK_EXAMPLES, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    size_t size;
    free(cpk_read_file(out, &size));
    load(&p, NULL, 0, (const char *[]){out, NULL});
    cpk_assert_exit(&p, 0);
    char expected[1024];
    snprintf(expected, sizeof(expected),
             "object     function hypot\n"
             "module     jobs\n"
             "signature  hypot(*sides)\n"
             "doc        Length of the vector with these sides.\n"
             "source     %s/jobs.py, line 17\n"
             "closure    none\n"
             "globals    _number = <function _number at 0x",
             CPK_EXAMPLES);
    cr_assert(strncmp(p.out, expected, strlen(expected)) == 0, "%s", p.out);
    char tail[256];
    snprintf(tail, sizeof(tail),
             ">, math (module math)\npickle     %zu bytes, protocol 5\n", size);
    cr_assert(strstr(p.out, tail) != NULL, "%s", p.out);
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
}

Test(cli_load, report_of_a_closure_away_from_its_source)
{
    size_t len;
    char *data = pickle_of("def make(n):\n"
                           "    def add(x):\n"
                           "        '''Add n.'''\n"
                           "        return x + n\n"
                           "    return add\n"
                           "data = cp.dumps(make(5), protocol=4)\n",
                           &len);
    cpk_proc p;
    load(&p, data, len, (const char *[]){NULL});
    cpk_assert_exit(&p, 0);
    char expected[512];
    snprintf(expected, sizeof(expected),
             "object     function make.<locals>.add\n"
             "module     __main__\n"
             "signature  add(x)\n"
             "doc        Add n.\n"
             "source     <string>, line 3\n"
             "closure    n = 5\n"
             "globals    none\n"
             "pickle     %zu bytes, protocol 4\n",
             len);
    cr_assert_str_eq(p.out, expected);
    cpk_proc_free(&p);
    free(data);
}

Test(cli_load, report_of_data_and_classes)
{
    size_t len;
    char *data = pickle_of("data = cp.dumps({'a': [1, 2]}, protocol=2)\n",
                           &len);
    cpk_proc p;
    load(&p, data, len, (const char *[]){"-", NULL});
    cpk_assert_exit(&p, 0);
    char expected[256];
    snprintf(expected, sizeof(expected),
             "object     instance of dict\n"
             "value      {'a': [1, 2]}\n"
             "pickle     %zu bytes, protocol 2\n",
             len);
    cr_assert_str_eq(p.out, expected);
    cpk_proc_free(&p);
    free(data);

    data = pickle_of("class Point:\n"
                     "    '''A point.'''\n"
                     "    def __init__(self, x, y):\n"
                     "        self.x, self.y = x, y\n"
                     "data = cp.dumps(Point)\n",
                     &len);
    load(&p, data, len, (const char *[]){NULL});
    cpk_assert_exit(&p, 0);
    snprintf(expected, sizeof(expected),
             "object     class Point\n"
             "module     __main__\n"
             "bases      object\n"
             "signature  Point(x, y)\n"
             "doc        A point.\n"
             "pickle     %zu bytes, protocol 5\n",
             len);
    cr_assert_str_eq(p.out, expected);
    cpk_proc_free(&p);
    free(data);
}

Test(cli_load, call_with_literals_keywords_and_strings)
{
    size_t len;
    char *data = pickle_of("data = cp.dumps(lambda *a, **k: (a, k))\n", &len);
    const char *path = file_with("f.pkl", data, len);
    cpk_proc p;
    load(&p, NULL, 0,
         (const char *[]){"--call", path, "--", "3", "-2", "1.5", "[1, 'x']",
                          "hello", "'007'", "a=1", "b={'k': None}", "c=x=y",
                          "'1+2'", "True", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "((3, -2, 1.5, [1, 'x'], 'hello', '007', '1+2', "
                            "True), {'a': 1, 'b': {'k': None}, 'c': 'x=y'})\n");
    cpk_proc_free(&p);

    /* No arguments; the result is printed even when it is None. */
    free(data);
    data = pickle_of("data = cp.dumps(lambda: None)\n", &len);
    load(&p, data, len, (const char *[]){"--call", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "None\n");
    cpk_proc_free(&p);
    free(data);
}

Test(cli_load, duplicate_keyword_is_a_usage_error)
{
    size_t len;
    char *data = pickle_of("data = cp.dumps(lambda **k: k)\n", &len);
    cpk_proc p;
    load(&p, data, len, (const char *[]){"--call", "-", "--", "a=1", "a=2",
                                         NULL});
    cpk_assert_exit(&p, 2);
    cr_assert_str_eq(p.err, "cloudpickle-load: --call argument 'a=2': "
                            "keyword 'a' given twice\nTry 'cloudpickle-load "
                            "--help' for more information.\n");
    cpk_proc_free(&p);
    free(data);
}

Test(cli_load, exception_in_call_prints_traceback_exit_1)
{
    size_t len;
    char *data = pickle_of("def boom(x):\n"
                           "    raise ValueError(f'bad {x}')\n"
                           "data = cp.dumps(boom)\n",
                           &len);
    cpk_proc p;
    load(&p, data, len, (const char *[]){"--call", "-", "--", "7", NULL});
    cpk_assert_exit(&p, 1);
    cr_assert_eq(p.out_len, 0);
    cr_assert(strncmp(p.err, "Traceback (most recent call last):\n", 35) == 0,
              "%s", p.err);
    cr_assert(strstr(p.err, "ValueError: bad 7\n") != NULL, "%s", p.err);
    cpk_proc_free(&p);
    free(data);
}

Test(cli_load, system_exit_of_the_call)
{
    static const struct {
        const char *code;
        int status;
        const char *err;
    } cases[] = {
        {"data = cp.dumps(lambda: exit_(3))", 3, ""},
        {"data = cp.dumps(lambda: exit_(0))", 0, ""},
        {"data = cp.dumps(lambda: exit_())", 0, ""},
        {"data = cp.dumps(lambda: exit_('stopped here'))", 1,
         "stopped here\n"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char code[256];
        snprintf(code, sizeof(code), "import sys\nexit_ = sys.exit\n%s\n",
                 cases[i].code);
        size_t len;
        char *data = pickle_of(code, &len);
        cpk_proc p;
        load(&p, data, len, (const char *[]){"--call", NULL});
        cpk_assert_exit(&p, cases[i].status);
        cr_assert_str_eq(p.err, cases[i].err, "case %zu", i);
        cr_assert_eq(p.out_len, 0, "case %zu printed %s", i, p.out);
        cpk_proc_free(&p);
        free(data);
    }
}

Test(cli_load, calling_a_non_callable)
{
    size_t len;
    char *data = pickle_of("data = cp.dumps([1, 2])\n", &len);
    const char *path = file_with("list.pkl", data, len);
    cpk_proc p;
    load(&p, NULL, 0, (const char *[]){"--call", path, NULL});
    cpk_assert_exit(&p, 3);
    char expected[300];
    snprintf(expected, sizeof(expected),
             "cloudpickle-load: %s: cannot call an object of type list\n",
             path);
    cr_assert_str_eq(p.err, expected);
    cpk_proc_free(&p);
    free(data);
}

/* Bad input: the exit status and the exact message. */
static void
bad_input(const char *data, size_t len, int status, const char *msg)
{
    const char *path = file_with("bad.pkl", data, len);
    cpk_proc p;
    load(&p, NULL, 0, (const char *[]){path, NULL});
    cpk_assert_exit(&p, status);
    char expected[600];
    snprintf(expected, sizeof(expected), "cloudpickle-load: %s: %s\n", path,
             msg);
    cr_assert_str_eq(p.err, expected);
    cr_assert_eq(p.out_len, 0);
    cpk_proc_free(&p);
}

Test(cli_load, empty_file)
{
    bad_input("", 0, 3, "empty input, not a pickle");
}

Test(cli_load, not_a_pickle)
{
    const char text[] = "#!/bin/sh\necho hello\n";
    bad_input(text, sizeof(text) - 1, 3,
              "not a valid pickle: invalid load key, '#' at byte 0");
    const char elf[] = "\x7f" "ELF\x02\x01\x01";
    bad_input(elf, sizeof(elf) - 1, 3,
              "not a valid pickle: invalid load key, '\\x7f' at byte 0");
}

Test(cli_load, unsupported_protocol)
{
    const char data[] = "\x80\x09garbage";
    bad_input(data, sizeof(data) - 1, 3,
              "not a valid pickle: unsupported pickle protocol: 9 at byte 0");
}

Test(cli_load, truncated_pickle)
{
    size_t len;
    char *data = pickle_of("data = cp.dumps(lambda x: x)\n", &len);
    /* cut inside its FRAME: the frame's length is past the end */
    char msg[200];
    snprintf(msg, sizeof(msg), "not a valid pickle: FRAME length %zu exceeds "
             "the %zu bytes left (pickle data was truncated) at byte 2",
             len - 11, len / 2 - 11);
    bad_input(data, len / 2, 3, msg);
    snprintf(msg, sizeof(msg), "not a valid pickle: FRAME length %zu exceeds "
             "the %zu bytes left (pickle data was truncated) at byte 2",
             len - 11, len - 12);
    bad_input(data, len - 1, 3, msg);
    bad_input(data, 2, 3, "not a valid pickle: pickle data was truncated (no "
                          "STOP opcode) at byte 2");
    bad_input("\x80\x04\x8c\x06hello", 9, 3,
              "not a valid pickle: BINUNICODE length 6 exceeds the 5 bytes "
              "left (pickle data was truncated) at byte 2");
    free(data);
}

Test(cli_load, trailing_data)
{
    size_t len;
    char *data = pickle_of("data = cp.dumps(1) + b'xyz'\n", &len);
    char msg[100];
    snprintf(msg, sizeof(msg), "not a valid pickle: 3 bytes of data after "
             "the STOP opcode at byte %zu", len - 3);
    bad_input(data, len, 3, msg);
    free(data);
}

Test(cli_load, missing_file_and_directory)
{
    cpk_proc p;
    load(&p, NULL, 0, (const char *[]){"/nonexistent.pkl", NULL});
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.err, "cloudpickle-load: /nonexistent.pkl: No such "
                            "file or directory\n");
    cpk_proc_free(&p);
    load(&p, NULL, 0, (const char *[]){"/", NULL});
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.err, "cloudpickle-load: /: Is a directory\n");
    cpk_proc_free(&p);
}

Test(cli_load, missing_module_names_it)
{
    /* A by-reference pickle of a module function, hand-made. */
    const char data[] = "\x80\x04\x8c\x0bnot_here_xy\x94\x8c\x04" "func\x94"
                        "\x93\x94.";
    bad_input(data, sizeof(data) - 1, 4,
              "cannot load, a module is missing: ModuleNotFoundError: No "
              "module named 'not_here_xy'");
}

Test(cli_load, missing_attribute)
{
    /* sys: a module whose repr is the same on every version (os is
     * "(frozen)" only from 3.11). */
    const char data[] = "\x80\x04\x8c\x03sys\x94\x8c\x04nope\x94\x93\x94.";
    bad_input(data, sizeof(data) - 1, 4,
              "cannot load: AttributeError: Can't get attribute 'nope' on "
              "<module 'sys' (built-in)>");
}

Test(cli_load, code_from_another_python_version)
{
    size_t len;
    char *data = pickle_of(
        "import pickle\n"
        "class Code:\n"
        "    def __reduce__(self):\n"
        "        return (cp._code_unmarshal, ('3.99', 9999 | (0x0a0d << 16),"
        " b'junk'))\n"
        "data = pickle.dumps(Code(), protocol=5)\n",
        &len);
    char msg[256];
    snprintf(msg, sizeof(msg),
             "bad pickle: this pickle holds code compiled by Python 3.99, "
             "which Python %d.%d cannot run: load it with Python 3.99",
             PY_MAJOR_VERSION, PY_MINOR_VERSION);
    bad_input(data, len, 3, msg);
    free(data);
}

Test(cli_load, usage_errors)
{
    static const struct {
        const char *args[4];
        const char *err;
    } cases[] = {
        {{"f.pkl", "extra", NULL},
         "cloudpickle-load: unexpected argument 'extra' (arguments are for "
         "--call)\n"},
        {{"--nope", NULL}, "cloudpickle-load: unrecognized option '--nope'\n"},
        {{"--call=x", "-", NULL},
         "cloudpickle-load: option '--call' doesn't allow an argument\n"},
        {{"-P", NULL}, "cloudpickle-load: option requires an argument -- "
                       "'P'\n"},
        {{"-P", "/nonexistent", "-", NULL},
         "cloudpickle-load: -P /nonexistent: No such file or directory\n"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cpk_proc p;
        load(&p, "x", 1, cases[i].args);
        cpk_assert_exit(&p, 2);
        char expected[512];
        snprintf(expected, sizeof(expected),
                 "%sTry 'cloudpickle-load --help' for more information.\n",
                 cases[i].err);
        cr_assert_str_eq(p.err, expected, "case %zu", i);
        cpk_proc_free(&p);
    }
}

Test(cli_load, refuses_terminal_input)
{
    const char *argv[] = {CPK_LOAD, "--load", NULL};
    cpk_spawn_opts o = {.argv = argv, .cwd = dir, .stdin_tty = 1};
    cpk_proc p;
    cpk_spawn_ex(&p, &o);
    cpk_assert_exit(&p, 2);
    cr_assert_str_eq(p.err, "cloudpickle-load: refusing to read a pickle "
                            "from a terminal (give a FILE or a pipe)\n"
                            "Try 'cloudpickle-load --help' for more "
                            "information.\n");
    cpk_proc_free(&p);
}

Test(cli_load, path_option_resolves_references)
{
    size_t len;
    char *data = pickle_of("import cpk_fixture_funcs as m\n"
                           "data = cp.dumps(m.triple)\n",
                           &len);
    cpk_proc p;
    load(&p, data, len, (const char *[]){"--call", "-", "--", "2", NULL});
    cpk_assert_exit(&p, 4);
    cpk_proc_free(&p);
    load(&p, data, len,
         (const char *[]){"-P", CPK_FIXTURES, "--call", "-", "--", "2", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "6\n");
    cpk_proc_free(&p);
    free(data);
}

Test(cli_load, sys_argv_is_the_file_and_arguments)
{
    size_t len;
    char *data = pickle_of("import sys\n"
                           "data = cp.dumps(lambda *a, **k: sys.argv)\n",
                           &len);
    const char *path = file_with("argv.pkl", data, len);
    cpk_proc p;
    load(&p, NULL, 0, (const char *[]){"--call", path, "--", "1", "x=2",
                                       NULL});
    cpk_assert_exit(&p, 0);
    char expected[300];
    snprintf(expected, sizeof(expected), "['%s', '1', 'x=2']\n", path);
    cr_assert_str_eq(p.out, expected);
    cpk_proc_free(&p);
    free(data);
}

Test(cli_load, sigint_during_call_dies_by_sigint)
{
    char mark[128];
    snprintf(mark, sizeof(mark), "%s/started", dir);
    char code[512];
    snprintf(code, sizeof(code),
             "import time\n"
             "def wait():\n"
             "    open(%s, 'w').close()\n"
             "    time.sleep(30)\n"
             "data = cp.dumps(wait)\n",
             "'" "%s" "'");
    char code2[600];
    snprintf(code2, sizeof(code2), code, mark);
    size_t len;
    char *data = pickle_of(code2, &len);
    const char *argv[] = {CPK_LOAD, "--call", NULL};
    cpk_spawn_opts o = {.argv = argv, .cwd = dir, .in = data, .in_len = len,
                        .signal = SIGINT, .signal_when_exists = mark};
    cpk_proc p;
    cpk_spawn_ex(&p, &o);
    cr_assert(p.signaled && p.sig == SIGINT, "%s %d\n%s",
              p.exited ? "exit" : "signal", p.exited ? p.status : p.sig,
              p.err);
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
    free(data);
}

Test(cli_load, closed_pipe_kills_quietly)
{
    size_t len;
    char *data = pickle_of("data = cp.dumps(lambda: 'x' * (1 << 22))\n", &len);
    const char *argv[] = {CPK_LOAD, "--call", NULL};
    cpk_spawn_opts o = {.argv = argv, .cwd = dir, .in = data, .in_len = len,
                        .close_stdout = 1};
    cpk_proc p;
    cpk_spawn_ex(&p, &o);
    cr_assert(p.signaled && p.sig == SIGPIPE, "%s %d\n%s",
              p.exited ? "exit" : "signal", p.exited ? p.status : p.sig,
              p.err);
    cpk_proc_free(&p);
    free(data);
}

Test(cli_load, full_disk_is_reported)
{
    size_t len;
    char *data = pickle_of("data = cp.dumps(lambda: 'x' * 100000)\n", &len);
    const char *argv[] = {"/bin/sh", "-c", CPK_LOAD " --call > /dev/full",
                          NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, data, len, NULL);
    cpk_assert_exit(&p, 5);
    cr_assert_str_eq(p.err, "cloudpickle-load: standard output: OSError: "
                            "[Errno 28] No space left on device\n");
    cpk_proc_free(&p);
    free(data);
}

Test(cli_load, help_and_version)
{
    cpk_proc p;
    load(&p, NULL, 0, (const char *[]){"-h", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert(strncmp(p.out, "Usage: cloudpickle-load [OPTION]... [FILE]\n",
                      43) == 0, "%s", p.out);
    cpk_proc_free(&p);
    load(&p, NULL, 0, (const char *[]){"--version", NULL});
    cpk_assert_exit(&p, 0);
    char expected[128];
    snprintf(expected, sizeof(expected),
             "cloudpickle-load (ccloudpickle) %s, Python %d.%d.%d\n",
             CPK_VERSION, PY_MAJOR_VERSION, PY_MINOR_VERSION,
             PY_MICRO_VERSION);
    cr_assert_str_eq(p.out, expected);
    cpk_proc_free(&p);
}
