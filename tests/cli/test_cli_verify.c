/* test_cli_verify.c - cloudpickle-load's side of signed pickles and of the
 * import policy: --verify KEYFILE and CLOUDPICKLE_VERIFY_KEY check the
 * envelope (src/scan/envelope.h) before a single opcode is scanned or loaded;
 * unsigned, tampered (at every byte), truncated (at every length),
 * wrong-key input and a signature by another Python are refused with one
 * line and exit 3, and nothing runs (a marker file proves it); the static
 * report shows a signed file's header, verified or not. --allow/--deny
 * list every refused import and exit 3 before loading. The signing side
 * is test_cli_sign.c's. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

static char dir[64];
static char key1[128], key2[128], marker[128];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    snprintf(key1, sizeof(key1), "%s/k1", dir);
    snprintf(key2, sizeof(key2), "%s/k2", dir);
    snprintf(marker, sizeof(marker), "%s/MARKER", dir);
    const char *k[] = {key1, key2};
    for (int i = 0; i < 2; i++) {
        const char *argv[] = {CPK_DUMP, "--gen-key", k[i], NULL};
        cpk_proc p;
        cpk_spawn(&p, argv, dir, NULL, 0, NULL);
        cpk_assert_exit(&p, 0);
        cpk_proc_free(&p);
    }
}

TestSuite(cli_verify, .init = setup);

static int
exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Python that defines `evil` (creates the marker when loaded) and `key`
 * (key1's bytes). */
static void
prelude(char *buf, size_t cap)
{
    snprintf(buf, cap,
             "import os, sys, ccloudpickle\n"
             "class Evil:\n"
             "    def __reduce__(self):\n"
             "        return (os.system, ('touch %s',))\n"
             "evil = Evil()\n"
             "key = open('%s', 'rb').read()\n",
             marker, key1);
}

/* Save what CPK_PYTHON's `code` (after the prelude) writes, as dir/name. */
static const char *
made(const char *name, const char *code, size_t *len)
{
    static char paths[4][256];
    static int next;
    char *path = paths[next++ % 4];
    char full[4096];
    prelude(full, sizeof(full));
    strncat(full, code, sizeof(full) - strlen(full) - 1);
    cpk_proc mk;
    cpk_python(&mk, full, NULL, 0);
    cpk_assert_exit(&mk, 0);
    snprintf(path, 256, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    cr_assert(f && fwrite(mk.out, 1, mk.out_len, f) == mk.out_len);
    cr_assert(fclose(f) == 0);
    if (len)
        *len = mk.out_len;
    cpk_proc_free(&mk);
    return path;
}

static void
load(cpk_proc *p, const char *const *args, const char *const *env)
{
    const char *argv[16] = {CPK_LOAD};
    int i = 1;
    for (; args[i - 1] != NULL; i++)
        argv[i] = args[i - 1];
    argv[i] = NULL;
    cpk_spawn(p, argv, dir, NULL, 0, env);
}

static void
assert_err(const cpk_proc *p, int status, const char *path, const char *msg)
{
    cpk_assert_exit(p, status);
    char expected[600];
    snprintf(expected, sizeof(expected), "cloudpickle-load: %s: %s\n", path,
             msg);
    cr_assert_str_eq(p->err, expected);
    cr_assert_eq(p->out_len, 0);
}

Test(cli_verify, signed_file_described_verified_or_not)
{
    const char *sig = made("evil.sig",
                           "sys.stdout.buffer.write(ccloudpickle.dumps(evil, "
                           "sign_key=key))\n",
                           NULL);
    cpk_proc p;
    load(&p, (const char *[]){sig, NULL}, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "signed     yes, NOT VERIFIED (no key given: "
                            "--verify KEYFILE)\n  format     1\n  tool       "
                            "ccloudpickle ") != NULL,
              "%s", p.out);
    char line[200];
    snprintf(line, sizeof(line), "  python     %d.%d.", PY_MAJOR_VERSION,
             PY_MINOR_VERSION);
    cr_assert(strstr(p.out, line) != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "  key id     ") != NULL);
    cr_assert(strstr(p.out, "! posix.system") != NULL, "%s", p.out);
    cpk_proc_free(&p);
    load(&p, (const char *[]){"--verify", key1, sig, NULL}, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "signed     yes, signature verified\n") != NULL,
              "%s", p.out);
    cpk_proc_free(&p);
    load(&p, (const char *[]){"--json", sig, NULL}, NULL);
    cpk_assert_exit(&p, 0);
    char check[1024];
    snprintf(check, sizeof(check),
             "import json, sys\n"
             "r = json.load(sys.stdin)\n"
             "s = r['signed']\n"
             "assert list(s) == ['verified', 'format_version', "
             "'tool_version', 'python', 'bytecode_magic', 'protocol', "
             "'key_id', 'header_size', 'pickle_size'], s\n"
             "assert s['verified'] is False and s['format_version'] == 1\n"
             "assert s['python'].startswith('%d.%d.')\n"
             "assert len(s['key_id']) == 16 and s['protocol'] == 5\n"
             "assert r['size'] == s['pickle_size']\n",
             PY_MAJOR_VERSION, PY_MINOR_VERSION);
    cpk_proc py;
    cpk_python(&py, check, p.out, p.out_len);
    cpk_assert_exit(&py, 0);
    cpk_proc_free(&py);
    cpk_proc_free(&p);
    cr_assert(!exists(marker), "something ran");
}

/* Every byte flipped, every truncation, another key: refused before
 * loading (with --load), nothing runs; the intact file then loads. */
Test(cli_verify, tampered_truncated_wrong_key_refused, .timeout = 120)
{
    size_t len;
    const char *sig = made("evil.sig",
                           "sys.stdout.buffer.write(ccloudpickle.dumps(evil, "
                           "sign_key=key))\n",
                           &len);
    size_t n;
    char *data = cpk_read_file(sig, &n);
    cr_assert(data != NULL && n == len);
    char bad[256];
    snprintf(bad, sizeof(bad), "%s/bad.sig", dir);
    for (size_t i = 0; i <= n; i++) {
        /* i < n: byte i flipped; i == n: one byte appended */
        FILE *f = fopen(bad, "wb");
        cr_assert(f != NULL);
        for (size_t k = 0; k < n; k++)
            fputc(k == i ? data[k] ^ 0x20 : data[k], f);
        if (i == n)
            fputc('x', f);
        cr_assert(fclose(f) == 0);
        cpk_proc p;
        load(&p, (const char *[]){"--verify", key1, "--load", bad, NULL},
             NULL);
        cpk_assert_exit(&p, 3);
        cr_assert(strncmp(p.err, "cloudpickle-load: ", 18) == 0 &&
                      strchr(p.err, '\n') == p.err + p.err_len - 1,
                  "byte %zu: %s", i, p.err);
        cpk_proc_free(&p);
    }
    for (size_t cut = 0; cut < n; cut++) {
        FILE *f = fopen(bad, "wb");
        cr_assert(f && fwrite(data, 1, cut, f) == cut);
        cr_assert(fclose(f) == 0);
        cpk_proc p;
        load(&p, (const char *[]){"--verify", key1, "--call", bad, NULL},
             NULL);
        cpk_assert_exit(&p, 3);
        cpk_proc_free(&p);
    }
    cr_assert(!exists(marker), "a refused file ran");
    /* the exact lines of the main cases */
    FILE *f = fopen(bad, "wb");
    cr_assert(f && fwrite(data, 1, n - 1, f) == n - 1);
    cr_assert(fclose(f) == 0);
    cpk_proc p;
    load(&p, (const char *[]){"--verify", key1, bad, NULL}, NULL);
    char msg[200];
    snprintf(msg, sizeof(msg), "signed pickle refused: truncated signed "
             "pickle at byte %zu", n - 1);
    assert_err(&p, 3, bad, msg);
    cpk_proc_free(&p);
    f = fopen(bad, "wb");
    for (size_t k = 0; k < n; k++)
        fputc(k == n / 2 ? data[k] ^ 1 : data[k], f);
    cr_assert(fclose(f) == 0);
    load(&p, (const char *[]){"--verify", key1, bad, NULL}, NULL);
    assert_err(&p, 3, bad, "signed pickle refused: altered or corrupted: "
                           "the signature does not match");
    cpk_proc_free(&p);
    load(&p, (const char *[]){"--verify", key2, "--load", sig, NULL}, NULL);
    assert_err(&p, 3, sig, "signed pickle refused: signed with another key");
    cpk_proc_free(&p);
    cr_assert(!exists(marker), "a refused file ran");
    /* The control: the intact file, verified, loads (and so runs). */
    load(&p, (const char *[]){"--verify", key1, "--load", sig, NULL}, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    cr_assert(exists(marker), "the verified pickle did not load");
    free(data);
}

/* A key makes a signature mandatory: unsigned input is refused, in every
 * mode; CLOUDPICKLE_VERIFY_KEY does it for every run, --verify wins over
 * it. A signed file is not loaded without a key. */
Test(cli_verify, key_requires_a_signed_pickle)
{
    const char *plain = made("plain.pkl",
                             "sys.stdout.buffer.write(ccloudpickle.dumps("
                             "[1, 2]))\n",
                             NULL);
    const char *sig = made("list.sig",
                           "sys.stdout.buffer.write(ccloudpickle.dumps("
                           "[1, 2], sign_key=key))\n",
                           NULL);
    cpk_proc p;
    load(&p, (const char *[]){"--verify", key1, plain, NULL}, NULL);
    assert_err(&p, 3, plain, "not a signed pickle (--verify requires one)");
    cpk_proc_free(&p);
    /* refused at its first bytes: an endless input is not read on */
    load(&p, (const char *[]){"--verify", key1, "/dev/zero", NULL}, NULL);
    assert_err(&p, 3, "/dev/zero", "not a signed pickle (--verify requires "
                                   "one)");
    cpk_proc_free(&p);
    char env[200];
    snprintf(env, sizeof(env), "CLOUDPICKLE_VERIFY_KEY=%s", key1);
    const char *envs[] = {env, NULL};
    load(&p, (const char *[]){"--load", plain, NULL}, envs);
    assert_err(&p, 3, plain, "not a signed pickle (CLOUDPICKLE_VERIFY_KEY "
                             "requires one)");
    cpk_proc_free(&p);
    load(&p, (const char *[]){"--call", plain, NULL}, envs);
    cpk_assert_exit(&p, 3);
    cpk_proc_free(&p);
    load(&p, (const char *[]){"--load", sig, NULL}, envs);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "value      [1, 2]\n") != NULL, "%s", p.out);
    cpk_proc_free(&p);
    /* --verify wins over the environment */
    snprintf(env, sizeof(env), "CLOUDPICKLE_VERIFY_KEY=%s", key2);
    load(&p, (const char *[]){"--verify", key1, "--load", sig, NULL}, envs);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    load(&p, (const char *[]){"--load", sig, NULL}, envs);
    assert_err(&p, 3, sig, "signed pickle refused: signed with another key");
    cpk_proc_free(&p);
    /* a signed file without a key: described, not loaded */
    load(&p, (const char *[]){"--load", sig, NULL}, NULL);
    assert_err(&p, 3, sig, "signed pickle: give --verify KEYFILE (or "
                           "CLOUDPICKLE_VERIFY_KEY) to check its signature "
                           "and load it");
    cpk_proc_free(&p);
    load(&p, (const char *[]){"--verify", key1, "--call", sig, NULL}, NULL);
    assert_err(&p, 3, sig, "cannot call an object of type list");
    cpk_proc_free(&p);
}

/* A refused key file is a usage error, before the input is read. */
Test(cli_verify, bad_key_files)
{
    char open_key[256], short_key[256];
    snprintf(open_key, sizeof(open_key), "%s/open.key", dir);
    snprintf(short_key, sizeof(short_key), "%s/short.key", dir);
    int fd = open(open_key, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    cr_assert(fd >= 0 && write(fd, "0123456789abcdef0123456789abcdef",
                               32) == 32);
    close(fd);
    cr_assert(chmod(open_key, 0644) == 0);
    fd = open(short_key, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    cr_assert(fd >= 0 && write(fd, "short", 5) == 5);
    close(fd);
    static const struct {
        const char *which;
        const char *msg;
    } cases[] = {
        {"open", "permissions 0644 are too open; the key must be readable "
                 "by its owner only (chmod 600)"},
        {"short", "key too short: 5 bytes (at least 32)"},
        {"missing", "No such file or directory"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char path[256];
        snprintf(path, sizeof(path), "%s/%s", dir,
                 i == 0 ? "open.key" : i == 1 ? "short.key" : "none.key");
        cpk_proc p;
        load(&p, (const char *[]){"--verify", path, "/nonexistent.pkl",
                                  NULL},
             NULL);
        char expected[400];
        snprintf(expected, sizeof(expected), "cloudpickle-load: %s: %s\n",
                 path, cases[i].msg);
        cpk_assert_exit(&p, 2);
        cr_assert_str_eq(p.err, expected);
        cpk_proc_free(&p);
    }
}

/* An envelope written by another Python (built here from the documented
 * layout): described, and refused by --load naming both versions. */
Test(cli_verify, signed_by_another_python)
{
    const char *sig = made(
        "v399.sig",
        "import hmac, hashlib, pickle\n"
        "def mac(b):\n"
        "    return hmac.new(key, b, hashlib.sha256).digest()\n"
        "body = pickle.dumps([1], protocol=5)\n"
        "tool = b'0.1.0'\n"
        "h = bytes([len(tool)]) + tool + bytes([3, 99, 0]) + (9999).to_bytes(2, "
        "'big') + bytes([5]) + mac(b'ccloudpickle key id')[:8] + "
        "len(body).to_bytes(8, 'big')\n"
        "head = b'\\xcfCPKSIG\\n' + (1).to_bytes(2, 'big') + "
        "(12 + len(h)).to_bytes(2, 'big') + h\n"
        "assert len(head) == 35 + len(tool)\n"
        "env = head + body\n"
        "sys.stdout.buffer.write(env + mac(env))\n",
        NULL);
    cpk_proc p;
    load(&p, (const char *[]){"--verify", key1, sig, NULL}, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "signed     yes, signature verified\n") &&
                  strstr(p.out, "  python     3.99.0 (bytecode magic "
                                "9999)\n"),
              "%s", p.out);
    cpk_proc_free(&p);
    load(&p, (const char *[]){"--verify", key1, "--load", sig, NULL}, NULL);
    char msg[200];
    snprintf(msg, sizeof(msg), "signed pickle refused: signed by Python "
             "3.99; this is Python %d.%d",
             PY_MAJOR_VERSION, PY_MINOR_VERSION);
    assert_err(&p, 3, sig, msg);
    cpk_proc_free(&p);
}

/* --allow/--deny: every refused import listed, exit 3, before loading. */
Test(cli_verify, allow_and_deny)
{
    const char *evil = made("evil.pkl",
                            "import pickle\n"
                            "sys.stdout.buffer.write(pickle.dumps([evil, "
                            "len], protocol=2))\n",
                            NULL);
    cpk_proc p;
    char expected[600];
    static const char *const modes[] = {"--json", "--load", "--call"};
    snprintf(expected, sizeof(expected),
             "cloudpickle-load: %s: import posix.system refused by "
             "--allow/--deny at byte ",
             evil);
    for (int m = 0; m < 3; m++) {
        load(&p, (const char *[]){"--allow", "math", modes[m], evil, NULL},
             NULL);
        cpk_assert_exit(&p, 3);
        /* one line: len is plain data, permitted (print is not) */
        cr_assert(strncmp(p.err, expected, strlen(expected)) == 0 &&
                      strchr(p.err, '\n') == p.err + p.err_len - 1,
                  "%s", p.err);
        cr_assert_eq(p.out_len, 0);
        cpk_proc_free(&p);
    }
    load(&p, (const char *[]){"--deny", "builtins.len", "--deny", "posix",
                              "--load", evil, NULL},
         NULL);
    cpk_assert_exit(&p, 3);
    cr_assert(strncmp(p.err, expected, strlen(expected)) == 0, "%s", p.err);
    snprintf(expected, sizeof(expected),
             "\ncloudpickle-load: %s: import builtins.len refused by "
             "--allow/--deny at byte ",
             evil);
    cr_assert(strstr(p.err, expected) != NULL, "%s", p.err);
    cpk_proc_free(&p);
    cr_assert(!exists(marker), "a refused pickle ran");
    /* allowed by name: loads (and runs) */
    load(&p, (const char *[]){"--allow", "posix.system", "--load", evil,
                              NULL},
         NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    cr_assert(exists(marker), "an allowed pickle did not load");
    /* a malformed pattern is a usage error */
    load(&p, (const char *[]){"--deny", "a b", evil, NULL}, NULL);
    cpk_assert_exit(&p, 2);
    cr_assert(strncmp(p.err, "cloudpickle-load: invalid pattern 'a b' for "
                             "--deny: ",
                      44) == 0,
              "%s", p.err);
    cpk_proc_free(&p);
}

/* The same rules reach the load's find_class: a module object, which the
 * static check lets through when named, is refused at run time. */
Test(cli_verify, rules_reach_the_load)
{
    const char data[] = "\x80\x02" "cos\npath\nq\x00.";
    char path[256];
    snprintf(path, sizeof(path), "%s/ospath.pkl", dir);
    FILE *f = fopen(path, "wb");
    cr_assert(f && fwrite(data, 1, sizeof(data) - 1, f) == sizeof(data) - 1);
    cr_assert(fclose(f) == 0);
    cpk_proc p;
    load(&p, (const char *[]){"--allow", "os.path", path, NULL}, NULL);
    cpk_assert_exit(&p, 0); /* statically permitted */
    cpk_proc_free(&p);
    load(&p, (const char *[]){"--load", path, NULL}, NULL);
    cpk_assert_exit(&p, 0); /* no policy: loads */
    cpk_proc_free(&p);
    load(&p, (const char *[]){"--allow", "os.path", "--load", path, NULL},
         NULL);
    assert_err(&p, 3, path, "refused by --allow/--deny: import policy "
                            "refuses find_class('os', 'path'): it gives a "
                            "module object");
    cpk_proc_free(&p);
}

/* A function carried by value that refers to os: its subimport is
 * refused under --allow unless os is allowed; then it loads. */
Test(cli_verify, allow_covers_subimported_modules)
{
    const char *fn = made("fn.pkl",
                          "def cwd():\n"
                          "    return os.getcwd()\n"
                          "sys.stdout.buffer.write(ccloudpickle.dumps(cwd))\n",
                          NULL);
    cpk_proc p;
    load(&p, (const char *[]){"--allow", "json", "--call", fn, NULL}, NULL);
    cpk_assert_exit(&p, 3);
    cr_assert(strstr(p.err, ": import os refused by --allow/--deny at byte ")
                  != NULL,
              "%s", p.err);
    cpk_proc_free(&p);
    load(&p, (const char *[]){"--allow", "os", "--call", fn, NULL}, NULL);
    cpk_assert_exit(&p, 0);
    char expected[200];
    snprintf(expected, sizeof(expected), "'%s'\n", dir);
    cr_assert_str_eq(p.out, expected);
    cpk_proc_free(&p);
}

/* A pickle whose load calls a function carried by value is refused by
 * any --allow/--deny, in every mode, before anything runs; the static
 * report without a policy shows it, and --load without one runs it. */
Test(cli_verify, policy_refuses_code_the_load_runs)
{
    char code[600];
    snprintf(code, sizeof(code),
             "def f():\n"
             "    open('%s', 'w').close()\n"
             "    return 1\n"
             "class R:\n"
             "    def __reduce__(self):\n"
             "        return (f, ())\n"
             "sys.stdout.buffer.write(ccloudpickle.dumps(R()))\n",
             marker);
    const char *calls = made("calls.pkl", code, NULL);
    static const char *const modes[] = {"--json", "--load", "--call"};
    cpk_proc p;
    for (int m = 0; m < 3; m++) {
        load(&p, (const char *[]){"--deny", "nothing", modes[m], calls,
                                  NULL},
             NULL);
        cpk_assert_exit(&p, 3);
        cr_assert(strstr(p.err, ": refused by --allow/--deny: the load calls "
                                "a function carried by value: f at byte ")
                      != NULL,
                  "%s", p.err);
        cr_assert_eq(p.out_len, 0);
        cpk_proc_free(&p);
    }
    cr_assert(!exists(marker), "a refused pickle ran");
    load(&p, (const char *[]){calls, NULL}, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "LOADING RUNS CODE") != NULL, "%s", p.out);
    cpk_proc_free(&p);
    cr_assert(!exists(marker), "the static report ran the pickle");
    load(&p, (const char *[]){"--load", calls, NULL}, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    cr_assert(exists(marker), "--load did not run the pickle");
}

/* --map --in pickle with a key in force: every record is a signed pickle
 * under that key, checked before it is scanned or loaded (an unsigned
 * record that would run os.system is refused with its number, exit 3,
 * nothing run); records signed with the key load, one after another in
 * the stream, in this process and in -j workers; without a key a signed
 * record is refused, not misread. */
Test(cli_verify, map_records_verified_with_the_key, .timeout = 120)
{
    /* made() keeps its last four paths: copy the ones used later. */
    char fn[256], plain_fn[256], good[256], evil2[256], mixed[256];
    strcpy(fn, made("inc.sig",
                          "sys.stdout.buffer.write(ccloudpickle.dumps("
                          "lambda x: x + 1, sign_key=key))\n",
                          NULL));
    strcpy(plain_fn, made("inc.pkl",
                                "sys.stdout.buffer.write(ccloudpickle.dumps("
                                "lambda x: x + 1))\n",
                                NULL));
    strcpy(good, made("good.pkls",
                            "for v in (1, 2, 3):\n"
                            "    sys.stdout.buffer.write(ccloudpickle.dumps("
                            "v, sign_key=key))\n",
                            NULL));
    strcpy(evil2, made("evil.pkls",
                             "sys.stdout.buffer.write(ccloudpickle.dumps("
                             "1, sign_key=key))\n"
                             "sys.stdout.buffer.write(ccloudpickle.dumps("
                             "evil))\n",
                             NULL));
    char code[1024];
    snprintf(code, sizeof(code),
             "other = open('%s', 'rb').read()\n"
             "for v, k in ((1, key), (2, other), (3, key)):\n"
             "    sys.stdout.buffer.write(ccloudpickle.dumps(v, "
             "sign_key=k))\n",
             key2);
    strcpy(mixed, made("mixed.pkls", code, NULL));
    size_t good_len;
    made("good2.pkls",
         "for v in (1, 2, 3):\n"
         "    sys.stdout.buffer.write(ccloudpickle.dumps(v, sign_key=key))\n",
         &good_len);
    char env[200];
    snprintf(env, sizeof(env), "CLOUDPICKLE_VERIFY_KEY=%s", key1);
    const char *envs[] = {env, NULL};
    char err[600];
    cpk_proc p;

    /* Signed records load, in this process and in two workers. */
    const char *jobs[] = {"1", "2"};
    for (int j = 0; j < 2; j++) {
        load(&p, (const char *[]){"--verify", key1, fn, "--map", "--in",
                                  "pickle", "--input", good, "-j", jobs[j],
                                  NULL},
             NULL);
        cpk_assert_exit(&p, 0);
        cr_assert_str_eq(p.out, "2\n3\n4\n");
        cr_assert_str_eq(p.err, "");
        cpk_proc_free(&p);
    }

    /* An unsigned record: refused by number, under --verify and under the
     * environment's key; the marker proves os.system never ran. */
    for (int e = 0; e < 2; e++) {
        load(&p,
             e ? (const char *[]){fn, "--map", "--in", "pickle", "--input",
                                  evil2, NULL}
               : (const char *[]){"--verify", key1, fn, "--map", "--in",
                                  "pickle", "--input", evil2, NULL},
             e ? envs : NULL);
        cpk_assert_exit(&p, 3);
        cr_assert_str_eq(p.out, "2\n");
        snprintf(err, sizeof(err),
                 "cloudpickle-load: %s: record 2: not a signed pickle (%s "
                 "requires one)\n",
                 evil2, e ? "CLOUDPICKLE_VERIFY_KEY" : "--verify");
        cr_assert_str_eq(p.err, err);
        cr_assert(!exists(marker), "an unsigned record ran");
        cpk_proc_free(&p);
    }

    /* With a key, what is not an envelope ends the input unscanned, even
     * with --keep-going (where it ends is unknown), and so does an
     * envelope whose header is malformed: nothing after it is read, not
     * even a well-signed record that a reader resuming inside it would
     * find. */
    char smug[256], midway[256];
    snprintf(smug, sizeof(smug), "%s/smug.pkls", dir);
    snprintf(midway, sizeof(midway), "%s/midway.pkls", dir);
    snprintf(code, sizeof(code),
             "one = ccloudpickle.dumps(1, sign_key=key)\n"
             "bad = one[:8] + b'\\0\\2' + one[10:]\n"
             "open('%s', 'wb').write(bad + bytes(1 << 17) + one)\n"
             "open('%s', 'wb').write(one + ccloudpickle.dumps(evil) + one)\n",
             smug, midway);
    made("unused", code, NULL);
    const char *const ends[][2] = {
        {smug, "record 1: signed pickle refused: unknown signed-pickle "
               "format version at byte 8"},
        {midway, "record 2: not a signed pickle (--verify requires one)"},
    };
    for (int i = 0; i < 2; i++) {
        load(&p, (const char *[]){"--verify", key1, fn, "--map", "--in",
                                  "pickle", "--input", ends[i][0],
                                  "--keep-going", NULL},
             NULL);
        cpk_assert_exit(&p, 3);
        cr_assert_str_eq(p.out, i ? "2\n" : "");
        snprintf(err, sizeof(err), "cloudpickle-load: %s: %s\n", ends[i][0],
                 ends[i][1]);
        cr_assert_str_eq(p.err, err);
        cr_assert(!exists(marker), "an unsigned record ran");
        cpk_proc_free(&p);
    }
    /* Without a key, a stream starting with the envelope's first byte but
     * not its magic is refused as before: not a pickle, and nothing
     * after it runs. */
    snprintf(code, sizeof(code),
             "open('%s', 'wb').write(b'\\xcfXX' + "
             "ccloudpickle.dumps(evil) + ccloudpickle.dumps(1))\n",
             smug);
    made("unused", code, NULL);
    load(&p, (const char *[]){plain_fn, "--map", "--in", "pickle",
                              "--input", smug, "--keep-going", NULL},
         NULL);
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.out, "");
    snprintf(err, sizeof(err),
             "cloudpickle-load: %s: record 1: not a valid pickle: invalid "
             "load key, '\\xcf' at byte 0\n",
             smug);
    cr_assert_str_eq(p.err, err);
    cr_assert(!exists(marker));
    cpk_proc_free(&p);

    /* Another key's record: refused; --keep-going goes on past it. */
    load(&p, (const char *[]){"--verify", key1, fn, "--map", "--in",
                              "pickle", "--input", mixed, "--keep-going",
                              NULL},
         NULL);
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.out, "2\n{\"error\":{\"type\":\"InvalidRecord\","
                            "\"message\":\"signed pickle refused: signed "
                            "with another key\",\"traceback\":\"\","
                            "\"record\":2}}\n4\n");
    snprintf(err, sizeof(err),
             "cloudpickle-load: %s: record 2: signed pickle refused: signed "
             "with another key\n",
             mixed);
    cr_assert_str_eq(p.err, err);
    cpk_proc_free(&p);

    /* Without a key, a signed record is refused as the signed file is. */
    load(&p, (const char *[]){plain_fn, "--map", "--in", "pickle",
                              "--input", good, NULL},
         NULL);
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.out, "");
    snprintf(err, sizeof(err),
             "cloudpickle-load: %s: record 1: signed pickle: give --verify "
             "KEYFILE (or CLOUDPICKLE_VERIFY_KEY) to check its signature "
             "and load it\n",
             good);
    cr_assert_str_eq(p.err, err);
    cpk_proc_free(&p);

    /* A stream cut inside its last record, after the header and inside
     * it: the records before it load, the cut one is named. */
    char cut[256];
    snprintf(cut, sizeof(cut), "%s/cut.pkls", dir);
    size_t one = good_len / 3;
    size_t cuts[] = {2 * one + 20, 2 * one + 60, good_len - 1};
    for (int c = 0; c < 3; c++) {
        char path[256];
        snprintf(path, sizeof(path), "%s/good2.pkls", dir);
        size_t len;
        char *all = cpk_read_file(path, &len);
        cr_assert_eq(len, good_len);
        FILE *f = fopen(cut, "wb");
        cr_assert(f && fwrite(all, 1, cuts[c], f) == cuts[c]);
        cr_assert(fclose(f) == 0);
        free(all);
        load(&p, (const char *[]){"--verify", key1, fn, "--map", "--in",
                                  "pickle", "--input", cut, NULL},
             NULL);
        cpk_assert_exit(&p, 3);
        cr_assert_str_eq(p.out, "2\n3\n");
        snprintf(err, sizeof(err),
                 "cloudpickle-load: %s: record 3: signed pickle refused: "
                 "truncated signed pickle at byte %zu\n",
                 cut, cuts[c] - 2 * one);
        cr_assert_str_eq(p.err, err, "cut at %zu", cuts[c]);
        cpk_proc_free(&p);
    }
}
