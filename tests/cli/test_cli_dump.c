/* test_cli_dump.c - cloudpickle-dump end to end: the built binary is run
 * and its exit status, exact stderr line and output are checked; the
 * output is loaded back by cloudpickle-load where the module is absent. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ccloudpickle.h"
#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    char path[256];
    snprintf(path, sizeof(path), "%s/mod.py", dir);
    cpk_write_file(path,
                   "import threading, helper\n"
                   "LOCK = threading.local()\n"
                   "BIG = b'x' * (4 << 20)\n"
                   "def add(a, b=1):\n"
                   "    return a + b\n"
                   "def locked():\n"
                   "    return LOCK\n"
                   "def uses_helper(x):\n"
                   "    return helper.twice(x)\n"
                   "def big():\n"
                   "    return len(BIG)\n"
                   "class Slow:\n"
                   "    def __reduce__(self):\n"
                   "        open(__import__('os').environ['CPK_MARK'], 'w').close()\n"
                   "        __import__('time').sleep(30)\n"
                   "        return (int, ())\n"
                   "slow = Slow()\n");
    snprintf(path, sizeof(path), "%s/helper.py", dir);
    cpk_write_file(path, "def twice(x):\n    return 2 * x\n");
    snprintf(path, sizeof(path), "%s/broken.py", dir);
    cpk_write_file(path, "X = 1\nraise RuntimeError('broken on purpose')\n");
}

TestSuite(cli_dump, .init = setup);

static void
dump(cpk_proc *p, const char *cwd, const char *const *args)
{
    const char *argv[16] = {CPK_DUMP};
    int i = 1;
    for (; args[i - 1] != NULL; i++)
        argv[i] = args[i - 1];
    argv[i] = NULL;
    cpk_spawn(p, argv, cwd, NULL, 0, NULL);
}

/* cloudpickle-load FILE|- --call [args] in / (where no module exists). */
static void
load_call(cpk_proc *p, const char *file, const char *in, size_t in_len,
          const char *arg1, const char *arg2)
{
    const char *argv[] = {CPK_LOAD, "--call", file, "--", arg1, arg2, NULL};
    cpk_spawn(p, argv, "/", in, in_len, NULL);
}

Test(cli_dump, issue_example_from_any_directory)
{
    cpk_proc p;
    char out[128];
    snprintf(out, sizeof(out), "%s/job.pkl", dir);
    dump(&p, CPK_EXAMPLES, (const char *[]){"-o", out, "jobs:scale", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_eq(p.out_len, 0);
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
    load_call(&p, out, NULL, 0, "3", "factor=2");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "6\n");
    cpk_proc_free(&p);
}

Test(cli_dump, stdout_pipe_round_trip)
{
    cpk_proc p, q;
    dump(&p, dir, (const char *[]){"mod:add", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert(p.out_len > 2 && (unsigned char)p.out[0] == 0x80 &&
              p.out[1] == 5);
    load_call(&q, "-", p.out, p.out_len, "40", "b=2");
    cpk_assert_exit(&q, 0);
    cr_assert_str_eq(q.out, "42\n");
    cpk_proc_free(&p);
    cpk_proc_free(&q);
}

Test(cli_dump, module_found_with_path_option)
{
    cpk_proc p;
    dump(&p, "/", (const char *[]){"-P", dir, "mod:add", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert(p.out_len > 0);
    cpk_proc_free(&p);
}

Test(cli_dump, refuses_terminal_unless_forced)
{
    const char *argv[] = {CPK_DUMP, "mod:add", NULL};
    cpk_spawn_opts o = {.argv = argv, .cwd = dir, .stdout_tty = 1};
    cpk_proc p;
    cpk_spawn_ex(&p, &o);
    cpk_assert_exit(&p, 2);
    cr_assert_str_eq(p.err,
                     "cloudpickle-dump: refusing to write a pickle to a "
                     "terminal (use -o FILE, a pipe, or -f)\n"
                     "Try 'cloudpickle-dump --help' for more information.\n");
    cpk_proc_free(&p);
    const char *forced[] = {CPK_DUMP, "-f", "mod:add", NULL};
    o.argv = forced;
    cpk_spawn_ex(&p, &o);
    cpk_assert_exit(&p, 0);
    cr_assert(p.out_len > 0);
    cpk_proc_free(&p);
}

Test(cli_dump, output_file_replaced_keeping_its_mode)
{
    char out[128];
    snprintf(out, sizeof(out), "%s/out.pkl", dir);
    cpk_write_file(out, "old");
    cr_assert(chmod(out, 0640) == 0);
    cpk_proc p;
    dump(&p, dir, (const char *[]){"-o", out, "mod:add", NULL});
    cpk_assert_exit(&p, 0);
    struct stat sb;
    cr_assert(stat(out, &sb) == 0);
    cr_assert_eq(sb.st_mode & 0777, 0640);
    size_t len;
    char *data = cpk_read_file(out, &len);
    cr_assert(len > 3 && (unsigned char)data[0] == 0x80);
    free(data);
    cpk_proc_free(&p);
}

Test(cli_dump, new_output_file_follows_umask)
{
    char out[128];
    snprintf(out, sizeof(out), "%s/new.pkl", dir);
    mode_t old = umask(027);
    cpk_proc p;
    dump(&p, dir, (const char *[]){"-o", out, "mod:add", NULL});
    umask(old);
    cpk_assert_exit(&p, 0);
    struct stat sb;
    cr_assert(stat(out, &sb) == 0);
    cr_assert_eq(sb.st_mode & 0777, 0640);
    cpk_proc_free(&p);
}

/* No file of the output's directory but the listed ones. */
static void
assert_dir_holds_only(const char *const names[])
{
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "ls -A %s", dir);
    FILE *ls = popen(cmd, "r");
    cr_assert(ls != NULL);
    char line[256];
    while (fgets(line, sizeof(line), ls) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        int known = 0;
        for (int i = 0; names[i] != NULL; i++)
            known |= strcmp(line, names[i]) == 0;
        cr_assert(known, "unexpected file left: %s", line);
    }
    pclose(ls);
}

static const char *const fixture_files[] = {
    "mod.py", "helper.py", "broken.py", "__pycache__", "out.pkl", NULL};

Test(cli_dump, unpicklable_object_names_the_path)
{
    char out[128];
    snprintf(out, sizeof(out), "%s/out.pkl", dir);
    cpk_write_file(out, "old");
    cpk_proc p;
    dump(&p, dir, (const char *[]){"-o", out, "mod:locked", NULL});
    cpk_assert_exit(&p, 4);
    cr_assert_str_eq(p.err,
                     "cloudpickle-dump: mod:locked: cannot pickle "
                     "mod:locked.__globals__['LOCK'] (_thread._local): "
                     "TypeError: cannot pickle '_thread._local' object\n");
    char *data = cpk_read_file(out, NULL);
    cr_assert_str_eq(data, "old");
    free(data);
    assert_dir_holds_only(fixture_files);
    cpk_proc_free(&p);

    /* To stdout: nothing written. */
    dump(&p, dir, (const char *[]){"mod:LOCK", NULL});
    cpk_assert_exit(&p, 4);
    cr_assert_eq(p.out_len, 0);
    cr_assert_str_eq(p.err,
                     "cloudpickle-dump: mod:LOCK: cannot pickle mod:LOCK "
                     "(_thread._local): TypeError: cannot pickle "
                     "'_thread._local' object\n");
    cpk_proc_free(&p);
}

Test(cli_dump, output_directory_missing)
{
    cpk_proc p;
    dump(&p, dir, (const char *[]){"-o", "/nonexistent/dir/out.pkl",
                                   "mod:add", NULL});
    cpk_assert_exit(&p, 5);
    cr_assert_str_eq(p.err,
                     "cloudpickle-dump: /nonexistent/dir/out.pkl: cannot "
                     "create a file next to it: No such file or directory\n");
    cpk_proc_free(&p);
}

Test(cli_dump, protocols)
{
    for (int proto = 0; proto <= 5; proto++) {
        char ps[4];
        snprintf(ps, sizeof(ps), "%d", proto);
        cpk_proc p, q;
        dump(&p, dir, (const char *[]){"-p", ps, "mod:add", NULL});
        cpk_assert_exit(&p, 0);
        if (proto >= 2)
            cr_assert((unsigned char)p.out[0] == 0x80 && p.out[1] == proto,
                      "protocol %d not in the header", proto);
        else
            cr_assert((unsigned char)p.out[0] != 0x80);
        load_call(&q, "-", p.out, p.out_len, "1", "2");
        cpk_assert_exit(&q, 0);
        cr_assert_str_eq(q.out, "3\n");
        cpk_proc_free(&p);
        cpk_proc_free(&q);
    }
}

Test(cli_dump, usage_errors)
{
    static const struct {
        const char *args[4];
        const char *err;
    } cases[] = {
        {{NULL}, "cloudpickle-dump: missing MODULE:ATTR\n"},
        {{"mod", NULL}, "cloudpickle-dump: 'mod' is not MODULE:ATTR\n"},
        {{"mod:", NULL}, "cloudpickle-dump: 'mod:' is not MODULE:ATTR\n"},
        {{"a:b:c", NULL}, "cloudpickle-dump: 'a:b:c' is not MODULE:ATTR\n"},
        {{"mod:add", "x", NULL},
         "cloudpickle-dump: unexpected argument 'x'\n"},
        {{"-p", "6", "mod:add"},
         "cloudpickle-dump: invalid protocol '6' (0 to 5)\n"},
        {{"-p", "x", "mod:add"},
         "cloudpickle-dump: invalid protocol 'x' (0 to 5)\n"},
        {{"--compat", "dill", "mod:add"},
         "cloudpickle-dump: unknown --compat format 'dill' (accepted: "
         "cloudpickle, cloudpickle2, cloudpickle3, or a cloudpickle release: "
         "2.0, 2.1, 2.2, 3.0, 3.1, 2.0.0, 2.1.0, 2.2.0, 2.2.1, 3.0.0, 3.1.0, "
         "3.1.1, 3.1.2)\n"},
        {{"-P", "/nonexistent", "mod:add"},
         "cloudpickle-dump: -P /nonexistent: No such file or directory\n"},
        {{"mod-x:add", NULL},
         "cloudpickle-dump: 'mod-x:add' is not MODULE:ATTR (dotted Python "
         "names)\n"},
        {{"--nope", "mod:add"},
         "cloudpickle-dump: unrecognized option '--nope'\n"},
        {{"-x", "mod:add"}, "cloudpickle-dump: invalid option -- 'x'\n"},
        {{"--by-ref=yes", "mod:add"},
         "cloudpickle-dump: option '--by-ref' doesn't allow an argument\n"},
        {{"--force=1", "mod:add"},
         "cloudpickle-dump: option '--force' doesn't allow an argument\n"},
        {{"mod:add", "-o"},
         "cloudpickle-dump: option requires an argument -- 'o'\n"},
        {{"mod:add", "--output"},
         "cloudpickle-dump: option '--output' requires an argument\n"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cpk_proc p;
        const char *args[5] = {cases[i].args[0], cases[i].args[1],
                               cases[i].args[2], cases[i].args[3], NULL};
        dump(&p, dir, args);
        cpk_assert_exit(&p, 2);
        char expected[512];
        snprintf(expected, sizeof(expected),
                 "%sTry 'cloudpickle-dump --help' for more information.\n",
                 cases[i].err);
        cr_assert_str_eq(p.err, expected, "case %zu", i);
        cr_assert_eq(p.out_len, 0);
        cpk_proc_free(&p);
    }
}

Test(cli_dump, import_and_attribute_errors)
{
    cpk_proc p;
    dump(&p, dir, (const char *[]){"nosuchmod:f", NULL});
    cpk_assert_exit(&p, 4);
    cr_assert_str_eq(p.err, "cloudpickle-dump: nosuchmod:f: cannot import "
                            "nosuchmod: ModuleNotFoundError: No module named "
                            "'nosuchmod'\n");
    cpk_proc_free(&p);
    dump(&p, dir, (const char *[]){"mod:nope", NULL});
    cpk_assert_exit(&p, 4);
    cr_assert_str_eq(p.err, "cloudpickle-dump: mod:nope: AttributeError: "
                            "module 'mod' has no attribute 'nope'\n");
    cpk_proc_free(&p);
    dump(&p, dir, (const char *[]){"broken:X", NULL});
    cpk_assert_exit(&p, 4);
    char expected[512];
    snprintf(expected, sizeof(expected),
             "cloudpickle-dump: broken:X: cannot import broken: "
             "RuntimeError: broken on purpose (%s/broken.py, line 2)\n", dir);
    cr_assert_str_eq(p.err, expected);
    cpk_proc_free(&p);
}

Test(cli_dump, module_by_value_by_default_and_by_ref_on_request)
{
    cpk_proc p, q;
    dump(&p, dir, (const char *[]){"--by-ref", "mod:add", NULL});
    cpk_assert_exit(&p, 0);
    load_call(&q, "-", p.out, p.out_len, "1", "2");
    cpk_assert_exit(&q, 4);
    cr_assert_str_eq(q.err, "cloudpickle-load: standard input: cannot load, "
                            "a module is missing: ModuleNotFoundError: No "
                            "module named 'mod'\n");
    cpk_proc_free(&q);
    /* With the module on the path, the reference resolves. */
    const char *argv[] = {CPK_LOAD, "-P", dir, "--call", "-", "--", "1", "2",
                          NULL};
    cpk_spawn(&q, argv, "/", p.out, p.out_len, NULL);
    cpk_assert_exit(&q, 0);
    cr_assert_str_eq(q.out, "3\n");
    cpk_proc_free(&q);
    cpk_proc_free(&p);
}

Test(cli_dump, by_value_option_adds_modules)
{
    cpk_proc p, q;
    dump(&p, dir, (const char *[]){"mod:uses_helper", NULL});
    cpk_assert_exit(&p, 0);
    load_call(&q, "-", p.out, p.out_len, "21", NULL);
    cpk_assert_exit(&q, 4);
    cr_assert_str_eq(q.err, "cloudpickle-load: standard input: cannot load, "
                            "a module is missing: ModuleNotFoundError: No "
                            "module named 'helper'\n");
    cpk_proc_free(&p);
    cpk_proc_free(&q);

    dump(&p, dir, (const char *[]){"--by-value", "helper", "mod:uses_helper",
                                   NULL});
    cpk_assert_exit(&p, 0);
    load_call(&q, "-", p.out, p.out_len, "21", NULL);
    cpk_assert_exit(&q, 0);
    cr_assert_str_eq(q.out, "42\n");
    cpk_proc_free(&p);
    cpk_proc_free(&q);

    dump(&p, dir, (const char *[]){"--by-value", "nohelper", "mod:add", NULL});
    cpk_assert_exit(&p, 4);
    cr_assert_str_eq(p.err, "cloudpickle-dump: --by-value nohelper: "
                            "ModuleNotFoundError: No module named "
                            "'nohelper'\n");
    cpk_proc_free(&p);
}

Test(cli_dump, package_submodules_by_value)
{
    cpk_proc p, q;
    const char *argv[] = {CPK_DUMP, "-P", CPK_FIXTURES,
                          "cpk_fixture_pkg:pkg_func", NULL};
    cpk_spawn(&p, argv, "/", NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    load_call(&q, "-", p.out, p.out_len, NULL, NULL);
    cpk_assert_exit(&q, 0);
    cr_assert_str_eq(q.out, "'pkg'\n");
    cpk_proc_free(&p);
    cpk_proc_free(&q);

    const char *sub[] = {CPK_DUMP, "-P", CPK_FIXTURES,
                         "cpk_fixture_pkg.sub:sub_func", NULL};
    cpk_spawn(&p, sub, "/", NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    load_call(&q, "-", p.out, p.out_len, NULL, NULL);
    cpk_assert_exit(&q, 0);
    cr_assert_str_eq(q.out, "'pkg.sub'\n");
    cpk_proc_free(&p);
    cpk_proc_free(&q);
}

Test(cli_dump, virtualenv_is_honoured)
{
    char venv[128], site[256], cfg[256], bin[256], link[300], mod[300];
    snprintf(venv, sizeof(venv), "%s/venv", dir);
    snprintf(bin, sizeof(bin), "%s/bin", venv);
    snprintf(site, sizeof(site), "%s/lib/python%d.%d/site-packages", venv,
             PY_MAJOR_VERSION, PY_MINOR_VERSION);
    char cmd[700];
    snprintf(cmd, sizeof(cmd), "mkdir -p %s %s", bin, site);
    cr_assert(system(cmd) == 0);
    snprintf(link, sizeof(link), "%s/python", bin);
    cr_assert(symlink(CPK_PYTHON, link) == 0);
    snprintf(cfg, sizeof(cfg), "%s/pyvenv.cfg", venv);
    /* home: the directory of the interpreter the build is for, as venv
     * writes it (not /usr/bin: another Python's stdlib is not there). */
    char home[256], text[512];
    snprintf(home, sizeof(home), "%s", CPK_PYTHON);
    *strrchr(home, '/') = '\0';
    snprintf(text, sizeof(text),
             "home = %s\ninclude-system-site-packages = false\n"
             "version = %d.%d.%d\n",
             home, PY_MAJOR_VERSION, PY_MINOR_VERSION, PY_MICRO_VERSION);
    cpk_write_file(cfg, text);
    snprintf(mod, sizeof(mod), "%s/venvmod.py", site);
    cpk_write_file(mod, "def f():\n    return 'from the venv'\n");

    const char *argv[] = {CPK_DUMP, "venvmod:f", NULL};
    char env_var[200];
    snprintf(env_var, sizeof(env_var), "VIRTUAL_ENV=%s", venv);
    const char *env[] = {env_var, NULL};
    cpk_proc p, q;
    cpk_spawn(&p, argv, "/", NULL, 0, env);
    cpk_assert_exit(&p, 0);
    load_call(&q, "-", p.out, p.out_len, NULL, NULL);
    cpk_assert_exit(&q, 0);
    cr_assert_str_eq(q.out, "'from the venv'\n");
    cpk_proc_free(&p);
    cpk_proc_free(&q);

    /* Without it, the module is not found. */
    const char *unset[] = {"VIRTUAL_ENV", NULL};
    cpk_spawn_opts o = {.argv = argv, .cwd = "/", .unset = unset};
    cpk_spawn_ex(&p, &o);
    cpk_assert_exit(&p, 4);
    cpk_proc_free(&p);

    /* A virtualenv of another Python version is refused. */
    snprintf(text, sizeof(text), "home = /usr/bin\nversion = 3.%d.0\n",
             PY_MINOR_VERSION + 1);
    cpk_write_file(cfg, text);
    cpk_spawn(&p, argv, "/", NULL, 0, env);
    cpk_assert_exit(&p, 5);
    char expected[400];
    snprintf(expected, sizeof(expected),
             "cloudpickle-dump: VIRTUAL_ENV=%s is a Python 3.%d environment "
             "and cloudpickle-dump embeds Python %d.%d; run 'deactivate'\n",
             venv, PY_MINOR_VERSION + 1, PY_MAJOR_VERSION, PY_MINOR_VERSION);
    cr_assert_str_eq(p.err, expected);
    cpk_proc_free(&p);
}

Test(cli_dump, pythonpath_is_searched)
{
    char env_var[128];
    snprintf(env_var, sizeof(env_var), "PYTHONPATH=%s", dir);
    const char *env[] = {env_var, NULL};
    const char *argv[] = {CPK_DUMP, "mod:add", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, "/", NULL, 0, env);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

Test(cli_dump, help_and_version)
{
    cpk_proc p;
    dump(&p, dir, (const char *[]){"--help", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert(strncmp(p.out, "Usage: cloudpickle-dump [OPTION]... "
                             "MODULE:ATTR[.ATTR...]\n", 57) == 0, "%s", p.out);
    cr_assert(strstr(p.out, "--by-value=MOD") && strstr(p.out, "--compat"));
    cpk_proc_free(&p);
    dump(&p, dir, (const char *[]){"-V", NULL});
    cpk_assert_exit(&p, 0);
    char expected[128];
    snprintf(expected, sizeof(expected),
             "cloudpickle-dump (ccloudpickle) %s, Python %d.%d.%d\n",
             CPK_VERSION, PY_MAJOR_VERSION, PY_MINOR_VERSION,
             PY_MICRO_VERSION);
    cr_assert_str_eq(p.out, expected);
    cpk_proc_free(&p);
}

/* A fatal signal while pickling into -o FILE: the process dies of that
 * signal, the target is untouched and no temp file is left. */
static void
interrupted(int sig)
{
    char out[128], mark[128], envmark[160];
    snprintf(out, sizeof(out), "%s/out.pkl", dir);
    snprintf(mark, sizeof(mark), "%s/mark", dir);
    snprintf(envmark, sizeof(envmark), "CPK_MARK=%s", mark);
    cpk_write_file(out, "old");
    const char *argv[] = {CPK_DUMP, "-o", out, "mod:slow", NULL};
    const char *env[] = {envmark, NULL};
    cpk_spawn_opts o = {.argv = argv, .cwd = dir, .env = env,
                        .signal = sig, .signal_when_exists = mark};
    cpk_proc p;
    cpk_spawn_ex(&p, &o);
    cr_assert(p.signaled && p.sig == sig, "not killed by signal %d: %s %d\n%s",
              sig, p.exited ? "exit" : "signal",
              p.exited ? p.status : p.sig, p.err);
    char *data = cpk_read_file(out, NULL);
    cr_assert_str_eq(data, "old");
    free(data);
    unlink(mark);
    assert_dir_holds_only(fixture_files);
    cpk_proc_free(&p);
}

Test(cli_dump, sigint_removes_temp_file) { interrupted(SIGINT); }
Test(cli_dump, sigterm_removes_temp_file) { interrupted(SIGTERM); }

Test(cli_dump, closed_pipe_kills_quietly)
{
    const char *argv[] = {CPK_DUMP, "mod:big", NULL};
    cpk_spawn_opts o = {.argv = argv, .cwd = dir, .close_stdout = 1};
    cpk_proc p;
    cpk_spawn_ex(&p, &o);
    cr_assert(p.signaled && p.sig == SIGPIPE, "%s %d: %s",
              p.exited ? "exit" : "signal", p.exited ? p.status : p.sig,
              p.err);
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
}

Test(cli_dump, output_onto_a_directory_is_refused_cleanly)
{
    char target[128];
    snprintf(target, sizeof(target), "%s/adir", dir);
    cr_assert(mkdir(target, 0755) == 0);
    cpk_proc p;
    dump(&p, dir, (const char *[]){"-o", target, "mod:add", NULL});
    cpk_assert_exit(&p, 5);
    char expected[300];
    snprintf(expected, sizeof(expected),
             "cloudpickle-dump: %s: is a directory\n", target);
    cr_assert_str_eq(p.err, expected);
    static const char *const files[] = {
        "mod.py", "helper.py", "broken.py", "__pycache__", "adir", NULL};
    assert_dir_holds_only(files);
    cpk_proc_free(&p);
}
