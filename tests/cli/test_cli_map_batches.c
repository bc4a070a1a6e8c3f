/* test_cli_map_batches.c - cloudpickle-load --map -j 1 names the right
 * record when a failure comes after the first batch, and in the middle of
 * one: the records are processed in batches of up to 1024, each cut into
 * parts of some 50 ms of work, so a record's number is its batch's first
 * number plus its place in the batch, not its place alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static char dir[64];

/* f(x): fast for x < 100 (the batch grows to hold every buffered record),
 * then 1 ms a record (the batch is cut into parts); x == 180 raises
 * ValueError, x == 250 MemoryError (which ends the run even under
 * --keep-going). */
static const char *const FUNC =
    "import time, ccloudpickle as cp\n"
    "def f(x):\n"
    "    if x >= 100: time.sleep(0.001)\n"
    "    if x == 180: raise ValueError('bad 180')\n"
    "    if x == 250: raise MemoryError('bad 250')\n"
    "    return x * 2\n"
    "open('f.pkl', 'wb').write(cp.dumps(f))\n";

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    char code[1024];
    snprintf(code, sizeof(code), "import os\nos.chdir('%s')\n%s", dir, FUNC);
    cpk_proc p;
    cpk_python(&p, code, NULL, 0);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

TestSuite(cli_map_batches, .init = setup, .timeout = 60);

/* Lines "0\n" .. "399\n". */
static char *
records(size_t *len)
{
    char *in = malloc(400 * 5);
    cr_assert(in != NULL);
    size_t n = 0;
    for (int i = 0; i < 400; i++)
        n += (size_t)sprintf(in + n, "%d\n", i);
    *len = n;
    return in;
}

/* The `k`th line (1-based) of `text`, without its newline. */
static void
line_of(const char *text, int k, char *buf, size_t cap)
{
    const char *s = text;
    for (int i = 1; i < k && s != NULL; i++) {
        s = strchr(s, '\n');
        if (s != NULL)
            s++;
    }
    cr_assert(s != NULL && *s != '\0', "no line %d in:\n%s", k, text);
    size_t n = strcspn(s, "\n");
    cr_assert(n < cap);
    memcpy(buf, s, n);
    buf[n] = '\0';
}

static size_t
count_lines(const char *text)
{
    size_t n = 0;
    for (const char *s = text; (s = strchr(s, '\n')) != NULL; s++)
        n++;
    return n;
}

Test(cli_map_batches, run_ending_record_is_named_by_number)
{
    size_t len;
    char *in = records(&len);
    const char *argv[] = {CPK_LOAD, "f.pkl", "--map", "-j", "1", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, in, len, NULL);
    cpk_assert_exit(&p, 1);
    /* x == 180 is the 181st record; the results before it are out */
    cr_assert(strstr(p.err, "cloudpickle-load: standard input: record 181: "
                            "ValueError: bad 180\n") != NULL,
              "%s", p.err);
    cr_assert_eq(count_lines(p.out), 180, "%s", p.out);
    char last[64];
    line_of(p.out, 180, last, sizeof(last));
    cr_assert_str_eq(last, "358");
    cpk_proc_free(&p);
    free(in);
}

Test(cli_map_batches, error_record_and_fatal_record_numbered)
{
    size_t len;
    char *in = records(&len);
    const char *argv[] = {CPK_LOAD, "f.pkl",       "--map", "-j",
                          "1",      "--keep-going", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, in, len, NULL);
    cpk_assert_exit(&p, 1);
    /* 0 .. 249: the error record in 180's place, MemoryError ends it */
    cr_assert_eq(count_lines(p.out), 250, "%s", p.out);
    char line[4096];
    line_of(p.out, 181, line, sizeof(line));
    cr_assert(strncmp(line, "{\"error\":{\"type\":\"ValueError\","
                            "\"message\":\"bad 180\",",
                      41) == 0,
              "%s", line);
    const char *tail = ",\"record\":181}}";
    size_t n = strlen(line), tl = strlen(tail);
    cr_assert(n > tl && strcmp(line + n - tl, tail) == 0, "%s", line);
    line_of(p.out, 250, line, sizeof(line));
    cr_assert_str_eq(line, "498");
    cr_assert(strstr(p.err, "cloudpickle-load: standard input: record 181: "
                            "ValueError: bad 180\n") != NULL,
              "%s", p.err);
    const char *fatal = "cloudpickle-load: standard input: record 251: "
                        "MemoryError: bad 250\n";
    size_t fl = strlen(fatal);
    cr_assert(p.err_len >= fl && strcmp(p.err + p.err_len - fl, fatal) == 0,
              "%s", p.err);
    cpk_proc_free(&p);
    free(in);
}
