/* test_cli_sign.c - cloudpickle-dump --gen-key and --sign: a new key file
 * is 32 random bytes, mode 0600, never written over an existing file; a
 * signed output parses and verifies (src/scan/envelope.h) with the key, names
 * this build's versions and protocol, and its pickle loads; a key file
 * refused (too open, short, huge, missing, a directory, not a regular
 * file) writes nothing and imports nothing. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ccloudpickle.h"
#include "scan/envelope.h"
#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    char path[256];
    snprintf(path, sizeof(path), "%s/mod.py", dir);
    /* Importing mod leaves IMPORTED behind: proof that something ran. */
    cpk_write_file(path,
                   "open(__file__[:-6] + 'IMPORTED', 'w').close()\n"
                   "def add(a, b=1):\n"
                   "    return a + b\n");
}

TestSuite(cli_sign, .init = setup);

static void
run_dump(cpk_proc *p, const char *const *args)
{
    const char *argv[16] = {CPK_DUMP};
    int i = 1;
    for (; args[i - 1] != NULL; i++)
        argv[i] = args[i - 1];
    argv[i] = NULL;
    cpk_spawn(p, argv, dir, NULL, 0, NULL);
}

static void
path_in(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", dir, name);
}

static void
write_key(const char *path, size_t len, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    cr_assert(fd >= 0);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)(i * 13 + 5);
        cr_assert_eq(write(fd, &c, 1), 1);
    }
    close(fd);
    cr_assert_eq(chmod(path, mode), 0);
}

static int
exists(const char *path)
{
    struct stat sb;
    return lstat(path, &sb) == 0;
}

Test(cli_sign, gen_key_makes_a_private_random_key)
{
    char k1[256], k2[256];
    path_in(k1, sizeof(k1), "k1");
    path_in(k2, sizeof(k2), "k2");
    cpk_proc p;
    run_dump(&p, (const char *[]){"--gen-key", k1, NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_eq(p.out_len, 0);
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
    run_dump(&p, (const char *[]){"--gen-key=k2", NULL});
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    struct stat sb;
    cr_assert_eq(stat(k1, &sb), 0);
    cr_assert(S_ISREG(sb.st_mode));
    cr_assert_eq(sb.st_mode & 07777, 0600, "mode %o", sb.st_mode & 07777);
    cr_assert_eq(sb.st_size, 32);
    size_t n1, n2;
    char *a = cpk_read_file(k1, &n1), *b = cpk_read_file(k2, &n2);
    cr_assert_eq(n1, 32);
    cr_assert_eq(n2, 32);
    cr_assert(memcmp(a, b, 32) != 0, "two keys are equal");
    free(a);
    free(b);
}

Test(cli_sign, gen_key_never_overwrites)
{
    char k[256], target[256], link[256];
    path_in(k, sizeof(k), "existing");
    cpk_write_file(k, "precious");
    cpk_proc p;
    run_dump(&p, (const char *[]){"--gen-key", k, NULL});
    cpk_assert_exit(&p, 5);
    char want[512];
    snprintf(want, sizeof(want),
             "cloudpickle-dump: %s: already exists; refusing to overwrite "
             "it\n", k);
    cr_assert_str_eq(p.err, want);
    cpk_proc_free(&p);
    char *text = cpk_read_file(k, NULL);
    cr_assert_str_eq(text, "precious");
    free(text);
    /* A dangling symbolic link is not followed either. */
    path_in(target, sizeof(target), "target");
    path_in(link, sizeof(link), "link");
    cr_assert_eq(symlink(target, link), 0);
    run_dump(&p, (const char *[]){"--gen-key", link, NULL});
    cpk_assert_exit(&p, 5);
    cpk_proc_free(&p);
    cr_assert(!exists(target));
    /* A missing directory. */
    run_dump(&p, (const char *[]){"--gen-key", "/nonexistent/dir/key", NULL});
    cpk_assert_exit(&p, 5);
    cr_assert_str_eq(p.err, "cloudpickle-dump: /nonexistent/dir/key: No "
                            "such file or directory\n");
    cpk_proc_free(&p);
}

Test(cli_sign, gen_key_usage_errors)
{
    cpk_proc p;
    run_dump(&p, (const char *[]){"--gen-key", "k", "mod:add", NULL});
    cpk_assert_exit(&p, 2);
    cr_assert(strstr(p.err, "--gen-key takes no MODULE:ATTR") != NULL, "%s",
              p.err);
    cpk_proc_free(&p);
    run_dump(&p, (const char *[]){"--gen-key", "k", "--sign", "k", NULL});
    cpk_assert_exit(&p, 2);
    cr_assert(strstr(p.err, "cannot be combined with --sign") != NULL, "%s",
              p.err);
    cpk_proc_free(&p);
    char k[256];
    path_in(k, sizeof(k), "k");
    cr_assert(!exists(k));
}

/* Check a signed file: parses, verifies with `keyfile`'s bytes, carries
 * this build's versions and `protocol`. */
static void
check_signed(const char *data, size_t len, const char *keyfile, int protocol)
{
    size_t klen;
    char *key = cpk_read_file(keyfile, &klen);
    cpk_envelope env;
    size_t at;
    cr_assert_eq(cpk_envelope_parse(data, len, &env, &at), CPK_ENV_OK,
                 "parse: at %zu", at);
    cr_assert_eq(cpk_envelope_verify(&env, data, (unsigned char *)key, klen),
                 CPK_ENV_OK);
    cr_assert_str_eq(env.tool_version, CPK_VERSION);
    cr_assert_eq(env.py_major, PY_MAJOR_VERSION);
    cr_assert_eq(env.py_minor, PY_MINOR_VERSION);
    cr_assert_eq(env.py_micro, PY_MICRO_VERSION);
    cpk_proc p;
    cpk_python(&p,
               "import importlib.util\n"
               "print(int.from_bytes(importlib.util.MAGIC_NUMBER[:2], "
               "'little'))\n",
               NULL, 0);
    cpk_assert_exit(&p, 0);
    cr_assert_eq(env.bytecode_magic, (unsigned)atoi(p.out));
    cpk_proc_free(&p);
    cr_assert_eq(env.protocol, protocol);
    unsigned char id[CPK_ENV_KEYID_LEN];
    cr_assert_eq(cpk_envelope_key_id((unsigned char *)key, klen, id), 0);
    cr_assert_arr_eq(env.key_id, id, CPK_ENV_KEYID_LEN);
    free(key);
}

/* Load `data` in a fresh interpreter with the key file's bytes as
 * verify_key, where mod is not importable, and call it. */
static void
load_and_call(const char *data, size_t len, const char *keyfile)
{
    char code[1024];
    snprintf(code, sizeof(code),
             "import sys, ccloudpickle as cp\n"
             "key = open('%s', 'rb').read()\n"
             "f = cp.loads(sys.stdin.buffer.read(), verify_key=key)\n"
             "assert f(2, 3) == 5 and f(4) == 5\n",
             keyfile);
    cpk_proc p;
    cpk_python(&p, code, data, len);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

Test(cli_sign, sign_to_file)
{
    char k[256], out[256];
    path_in(k, sizeof(k), "key");
    path_in(out, sizeof(out), "out.sig");
    cpk_proc p;
    run_dump(&p, (const char *[]){"--gen-key", k, NULL});
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    run_dump(&p, (const char *[]){"--sign", k, "-o", out, "mod:add", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "");
    cpk_proc_free(&p);
    size_t len;
    char *data = cpk_read_file(out, &len);
    cr_assert(data != NULL);
    check_signed(data, len, k, 5);
    load_and_call(data, len, k);
    free(data);
    /* -p 2 and --sign=KEY through standard output. */
    const char *argv[] = {CPK_DUMP, "-p", "2", "--sign=key", "mod:add", NULL};
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    check_signed(p.out, p.out_len, k, 2);
    load_and_call(p.out, p.out_len, k);
    cpk_proc_free(&p);
}

/* A key file `name` refused: exit 2 with `why`, nothing written (stdout
 * empty, -o target absent), mod never imported. */
static void
refused(const char *keyfile, const char *why)
{
    char out[256], imported[256];
    path_in(out, sizeof(out), "never.sig");
    path_in(imported, sizeof(imported), "IMPORTED");
    cpk_proc p;
    run_dump(&p, (const char *[]){"--sign", keyfile, "-o", out, "mod:add",
                                  NULL});
    cpk_assert_exit(&p, 2);
    char want[1024];
    snprintf(want, sizeof(want), "cloudpickle-dump: %s: %s\n", keyfile, why);
    cr_assert_str_eq(p.err, want);
    cr_assert(!exists(out));
    cpk_proc_free(&p);
    run_dump(&p, (const char *[]){"--sign", keyfile, "mod:add", NULL});
    cpk_assert_exit(&p, 2);
    cr_assert_eq(p.out_len, 0);
    cr_assert_str_eq(p.err, want);
    cpk_proc_free(&p);
    cr_assert(!exists(imported), "mod was imported");
}

Test(cli_sign, key_readable_by_others_refused)
{
    char k[256];
    path_in(k, sizeof(k), "open_key");
    static const mode_t modes[] = {0644, 0640, 0604, 0660, 0602, 0620, 0666};
    static const char *const names[] = {"0644", "0640", "0604", "0660",
                                        "0602", "0620", "0666"};
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        write_key(k, 32, modes[i]);
        char why[256];
        snprintf(why, sizeof(why),
                 "permissions %s are too open; the key must be readable by "
                 "its owner only (chmod 600)",
                 names[i]);
        refused(k, why);
    }
    /* Owner-only modes are fine. */
    write_key(k, 32, 0400);
    cpk_proc p;
    run_dump(&p, (const char *[]){"--sign", k, "mod:add", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert(cpk_envelope_is_signed(p.out, p.out_len));
    cpk_proc_free(&p);
}

Test(cli_sign, bad_key_files_refused)
{
    char k[256];
    path_in(k, sizeof(k), "short_key");
    write_key(k, 31, 0600);
    refused(k, "key too short: 31 bytes (at least 32)");
    write_key(k, 0, 0600);
    refused(k, "key too short: 0 bytes (at least 32)");
    path_in(k, sizeof(k), "huge_key");
    write_key(k, 4097, 0600);
    refused(k, "key file too large: 4097 bytes (at most 4096)");
    path_in(k, sizeof(k), "missing_key");
    refused(k, "No such file or directory");
    refused(dir, "is a directory");
    path_in(k, sizeof(k), "fifo");
    cr_assert_eq(mkfifo(k, 0600), 0);
    refused(k, "not a regular file"); /* and does not block on the FIFO */
    /* The limits themselves are accepted: 32 and 4096 bytes. */
    cpk_proc p;
    path_in(k, sizeof(k), "edge_key");
    write_key(k, 32, 0600);
    run_dump(&p, (const char *[]){"--sign", k, "mod:add", NULL});
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    write_key(k, 4096, 0600);
    run_dump(&p, (const char *[]){"--sign", k, "mod:add", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert(cpk_envelope_is_signed(p.out, p.out_len));
    cpk_proc_free(&p);
}

/* An existing output stays as it was when the key is refused. */
Test(cli_sign, refused_key_keeps_existing_output)
{
    char k[256], out[256];
    path_in(k, sizeof(k), "open_key");
    path_in(out, sizeof(out), "keep.sig");
    write_key(k, 32, 0644);
    cpk_write_file(out, "old");
    cpk_proc p;
    run_dump(&p, (const char *[]){"--sign", k, "-o", out, "mod:add", NULL});
    cpk_assert_exit(&p, 2);
    cpk_proc_free(&p);
    char *text = cpk_read_file(out, NULL);
    cr_assert_str_eq(text, "old");
    free(text);
}

Test(cli_sign, help_names_the_options)
{
    cpk_proc p;
    run_dump(&p, (const char *[]){"--help", NULL});
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "--sign=KEYFILE") != NULL);
    cr_assert(strstr(p.out, "--gen-key=FILE") != NULL);
    cpk_proc_free(&p);
}
