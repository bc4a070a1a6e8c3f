/* test_cli_scan_limits.c - what cloudpickle-load's scan (cli/common/scancheck.c
 * with src/scan/pkscan.c) refuses before loading beyond malformed bytes:
 * nesting depth (a tuple nested 300,000 deep crashed CPython's hash), what
 * is left on the stack at STOP (the "]" bomb), memo indices far past the
 * input; and what it lets through: a reused pickler's later pickles,
 * protocol-0 numbers read exactly as CPython reads them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "support.h"

#include <criterion/parameterized.h>

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
}

TestSuite(cli_scan_limits, .init = setup);

/* Bytes made by CPK_PYTHON from `code` (which writes them to stdout). */
static char *
made(const char *code, size_t *len)
{
    cpk_proc mk;
    cpk_python(&mk, code, NULL, 0);
    cpk_assert_exit(&mk, 0);
    char *data = malloc(mk.out_len + 1);
    memcpy(data, mk.out, mk.out_len);
    *len = mk.out_len;
    cpk_proc_free(&mk);
    return data;
}

/* --load: what is refused is refused before loading; what passes loads. */
static void
load(cpk_proc *p, const char *data, size_t len)
{
    const char *argv[] = {CPK_LOAD, "--load", "--max-size", "100M", NULL};
    cpk_spawn(p, argv, dir, data, len, NULL);
}

/* Refused with this line, by the static report and by --load alike. */
static void
assert_refused(const char *data, size_t len, const char *msg)
{
    for (int mode = 0; mode < 2; mode++) {
        const char *argv[] = {CPK_LOAD, "--max-size", "100M",
                              mode ? "--load" : NULL, NULL};
        cpk_proc p;
        cpk_spawn(&p, argv, dir, data, len, NULL);
        cpk_assert_exit(&p, 3);
        char expected[300];
        snprintf(expected, sizeof(expected),
                 "cloudpickle-load: standard input: not a valid pickle: "
                 "%s\n",
                 msg);
        cr_assert_str_eq(p.err, expected, "mode %d", mode);
        cr_assert_eq(p.out_len, 0);
        cpk_proc_free(&p);
    }
}

Test(cli_scan_limits, deep_tuple_key_is_refused_fast, .timeout = 30)
{
    size_t len;
    char *data = made("import sys\n"
                      "sys.stdout.buffer.write(b'\\x80\\x04})' + "
                      "b'\\x85' * 300000 + b'Ns.')\n",
                      &len);
    assert_refused(data, len, "nesting 65535 or more deep, more than 10000, "
                              "at byte 65537");
    free(data);
}

Test(cli_scan_limits, deep_list_through_appends_is_refused)
{
    /* [[[...]]] built by APPENDS from a MARK, 20,000 deep. */
    size_t len;
    char *data = made("import sys\n"
                      "n = 20000\n"
                      "sys.stdout.buffer.write(b'\\x80\\x04' + b'](' * n + "
                      "b'N' + b'e' * n + b'.')\n",
                      &len);
    assert_refused(data, len, "nesting 20001 deep, more than 10000, at byte "
                              "60002");
    free(data);
}

Test(cli_scan_limits, nesting_within_the_bound_is_not_refused)
{
    /* 9,998 TUPLE1s: the key is 9,999 deep, the dict 10,000: loads. */
    size_t len;
    char *data = made("import sys\n"
                      "sys.stdout.buffer.write(b'\\x80\\x04})' + "
                      "b'\\x85' * 9998 + b'Ns.')\n",
                      &len);
    cpk_proc p;
    load(&p, data, len);
    cr_assert(strstr(p.err, "not a valid pickle") == NULL, "%s", p.err);
    cr_assert(p.exited && p.status != 3, "%s", p.err);
    cpk_proc_free(&p);
    free(data);
}

Test(cli_scan_limits, empty_list_bomb_is_refused)
{
    size_t len;
    char *data = made("import sys\n"
                      "sys.stdout.buffer.write(b'\\x80\\x04' + "
                      "b']' * (1 << 20) + b'.')\n",
                      &len);
    assert_refused(data, len, "1048576 items left on the stack at STOP (a "
                              "pickler leaves one) at byte 1048578");
    free(data);
}

Test(cli_scan_limits, open_mark_at_stop_is_refused)
{
    assert_refused("\x80\x04(N.", 5, "a MARK is still open at STOP (no "
                                     "pickler leaves one) at byte 4");
}

Test(cli_scan_limits, second_pickle_of_a_reused_pickler_loads)
{
    size_t len;
    char *data = made("import io, pickle, sys\n"
                      "f = io.BytesIO()\n"
                      "p = pickle.Pickler(f, protocol=2)\n"
                      "p.dump(['a'])\n"
                      "n = f.tell()\n"
                      "p.dump(['b'])\n"
                      "sys.stdout.buffer.write(f.getvalue()[n:])\n",
                      &len);
    cpk_proc p;
    load(&p, data, len);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "value      ['b']\n") != NULL, "%s", p.out);
    cpk_proc_free(&p);
    free(data);
}

Test(cli_scan_limits, memo_index_far_beyond_the_input_is_refused)
{
    assert_refused("N\x94r\x00\x00\x00\x10" "0.", 9,
                   "memo index 268435456 out of range for a 9-byte pickle "
                   "at byte 2");
}

/* Protocol-0 numbers: what CPython's INT, LONG and FLOAT accept loads. */
typedef struct {
    char data[40];
    size_t len;
    char value[64];
} number_case;

#define NUM(bytes, v) {bytes, sizeof(bytes) - 1, v}

static const number_case accepted[] = {
    NUM("I0o17\n.", "15"),   /* int(s, 0) after strtol gives up */
    NUM("I0b101\n.", "5"),
    NUM("I0x_1f\n.", "31"),
    NUM("I017\n.", "15"),    /* strtol's octal */
    NUM("L0x10\n.", "16"),
    NUM("L 12L\n.", "12"),
    NUM("Finf\n.", "inf"),
    NUM("F-Infinity\n.", "-inf"),
    NUM("F+.5e+3\n.", "500.0"),
    NUM("F1e-999\n.", "0.0"),
};

ParameterizedTestParameters(cli_scan_limits, numbers_cpython_reads)
{
    return cr_make_param_array(number_case, (number_case *)accepted,
                               sizeof(accepted) / sizeof(accepted[0]));
}

ParameterizedTest(number_case *c, cli_scan_limits, numbers_cpython_reads)
{
    cpk_proc p;
    load(&p, c->data, c->len);
    cpk_assert_exit(&p, 0);
    char row[96];
    snprintf(row, sizeof(row), "value      %s\n", c->value);
    cr_assert(strstr(p.out, row) != NULL, "%s", p.out);
    cpk_proc_free(&p);
}

static const number_case refused[] = {
    NUM("F0x1p3\n.", "could not convert string to float at byte 0"),
    NUM("F 1.5\n.", "could not convert string to float at byte 0"),
    NUM("F1_0.5\n.", "could not convert string to float at byte 0"),
    NUM("F1e999\n.", "value too large to convert to float at byte 0"),
    NUM("I0_17\n.", "invalid literal for int() with base 0 at byte 0"),
    NUM("L 017\n.", "invalid literal for int() with base 0 at byte 0"),
    NUM("I1e3\n.", "invalid literal for int() with base 0 at byte 0"),
};

ParameterizedTestParameters(cli_scan_limits, numbers_cpython_refuses)
{
    return cr_make_param_array(number_case, (number_case *)refused,
                               sizeof(refused) / sizeof(refused[0]));
}

ParameterizedTest(number_case *c, cli_scan_limits, numbers_cpython_refuses)
{
    assert_refused(c->data, c->len, c->value);
}

/* Long arguments: a FLOAT of 100 characters, 5000-digit INT and LONG
 * (past int_max_str_digits), and hex, which has no digit limit. */
Test(cli_scan_limits, long_number_arguments)
{
    static const struct {
        const char *code;
        int status;
        const char *msg;
    } cases[] = {
        {"b'F' + b'1' * 100", 0, NULL},
        {"b'F' + b'1' * 70 + b'x'", 3,
         "could not convert string to float at byte 0"},
        {"b'F' + b'9' * 400", 3,
         "value too large to convert to float at byte 0"},
        {"b'I' + b'1' * 5000", 3,
         "invalid literal for int() with base 0 at byte 0"},
        {"b'L' + b'1' * 5000", 3,
         "invalid literal for int() with base 0 at byte 0"},
        {"b'I' + b'0' * 5000", 0, NULL}, /* strtol reads it */
        {"b'I0x' + b'f' * 5000", 0, NULL},
        {"b'L' + b'1' * 4300", 0, NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char code[200];
        snprintf(code, sizeof(code),
                 "import sys\nsys.stdout.buffer.write(%s + b'\\n.')\n",
                 cases[i].code);
        size_t len;
        char *data = made(code, &len);
        if (cases[i].status == 3)
            assert_refused(data, len, cases[i].msg);
        else {
            cpk_proc p;
            load(&p, data, len);
            cpk_assert_exit(&p, 0);
            cpk_proc_free(&p);
        }
        free(data);
    }
}

/* An endless stream whose bytes go bad after 2 MB of valid MARKs is
 * refused at the bad byte while it is read, not after --max-size (1 GiB)
 * of it. */
Test(cli_scan_limits, endless_stream_refused_while_read, .timeout = 60)
{
    const char *argv[] = {
        "/bin/sh", "-c",
        "{ printf '\\200\\004'; head -c 2000000 /dev/zero | tr '\\0' '(';"
        " printf '\\377'; cat /dev/zero; } | " CPK_LOAD,
        NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.err, "cloudpickle-load: standard input: not a valid "
                            "pickle: invalid load key, '\\xff' at byte "
                            "2000002\n");
    cpk_proc_free(&p);
}
