/* test_cli_state_report.c - the closed world's entries in cloudpickle-load's
 * static report (pkscan_state_write): the text form's "state" section and
 * verdict, the JSON form's state_writes, n_state and n_state_vouchable
 * (doc/REPORT-JSON.md), over the regression pickles of
 * tests/fuzz/strict_cases; a pickle without entries reports as before. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
}

TestSuite(cli_state_report, .init = setup);

#define CASES CPK_SOURCE_DIR "/tests/fuzz/strict_cases/"

#define VERDICT                                                               \
    "verdict    LOADING WRITES OR CALLS what the scan cannot vouch for "      \
    "(see \"state\"); its imports are reconstructors and plain data\n"

/* cloudpickle-load a1 [a2] in dir. */
static void
run_load(cpk_proc *p, const char *a1, const char *a2)
{
    const char *argv[] = {CPK_LOAD, a1, a2, NULL};
    cpk_spawn(p, argv, dir, NULL, 0, NULL);
}

static void
assert_has(const cpk_proc *p, const char *text)
{
    cr_assert(strstr(p->out, text) != NULL, "missing %s in:\n%s", text,
              p->out);
}

/* Run the Python `checks` on p's stdout, parsed by _report.py as `r`. */
static void
check_json(const cpk_proc *p, const char *checks)
{
    const char *pre = cpk_py_text("_report.py");
    size_t n = strlen(pre) + strlen(checks) + 2;
    char *code = malloc(n);
    cr_assert(code != NULL);
    snprintf(code, n, "%s\n%s", pre, checks);
    cpk_proc py;
    cpk_python(&py, code, p->out, p->out_len);
    cpk_assert_exit(&py, 0);
    cpk_proc_free(&py);
    free(code);
}

typedef struct {
    const char *file;
    const char *heading; /* the section's first line */
    const char *lines[3]; /* its entries' lines, up to " (" or the end */
} state_case;

static const state_case cases[] = {
    {"alias-type.pkl",
     "state      1 write or call the scan cannot vouch for\n",
     {"  ! BUILD at byte 318 gives state to what builtins.type returned at "
      "byte 291, which may be an existing or shared object, not one the "
      "pickle made\n",
      NULL}},
    {"writethrough-chainmap.pkl",
     "state      3 writes or calls the scan cannot vouch for, 1 an --allow "
     "rule naming the callable may admit\n",
     {"  ! REDUCE at byte 282 calls collections.ChainMap, whose result the "
      "scan cannot vouch for",
      "  ! SETITEM at byte 305 gives state to an object made at byte 282",
      "  ! BUILD at byte 350 stores into an object (made at byte 331) after "
      "a BUILD at byte 337 gave it state"}},
    {"limit-pow.pkl",
     "state      1 write or call the scan cannot vouch for, 1 an --allow "
     "rule naming the callable may admit\n",
     {"  ! REDUCE at byte 269 calls builtins.pow, which the scan cannot "
      "vouch for (its closed table leaves it out)\n",
      NULL}},
    {"init-dunder-defaultcontext.pkl",
     "state      1 write or call the scan cannot vouch for\n",
     {"  ! REDUCE at byte 347 writes into an imported object (byte 343)\n",
      NULL}},
};

/* Each entry one line under the heading, after the function and before
 * the verdict that points at it; exit 0, nothing on stderr. */
Test(cli_state_report, describe_lists_each_entry)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const state_case *c = &cases[i];
        char path[512];
        snprintf(path, sizeof(path), CASES "%s", c->file);
        cpk_proc p;
        run_load(&p, path, NULL);
        cpk_assert_exit(&p, 0);
        cr_assert_str_eq(p.err, "");
        assert_has(&p, c->heading);
        const char *head = strstr(p.out, c->heading);
        const char *fn = strstr(p.out, "\nfunction   f (byte ");
        const char *verdict = strstr(p.out, "\nverdict    ");
        cr_assert(fn != NULL && fn < head, "%s:\n%s", c->file, p.out);
        cr_assert_str_eq(verdict + 1, VERDICT, "%s", c->file);
        size_t n = 0;
        for (int k = 0; k < 3 && c->lines[k] != NULL; k++, n++) {
            const char *at = strstr(p.out, c->lines[k]);
            cr_assert(at != NULL && at > head && at < verdict,
                      "%s: missing %s in:\n%s", c->file, c->lines[k],
                      p.out);
        }
        /* nothing else in the section */
        size_t bangs = 0;
        for (const char *q = head; q < verdict; q++)
            bangs += strncmp(q, "\n  ! ", 5) == 0;
        cr_assert_eq(bangs, n, "%s:\n%s", c->file, p.out);
        cr_assert(strstr(p.out, "more writes or calls") == NULL);
        cpk_proc_free(&p);
    }
}

/* --strict refuses the same entries before any report: exit 3, stdout
 * empty, one line per entry. */
Test(cli_state_report, strict_refuses_what_describe_lists)
{
    cpk_proc p;
    run_load(&p, "--strict", CASES "writethrough-chainmap.pkl");
    cpk_assert_exit(&p, 3);
    cr_assert_str_eq(p.out, "");
    cr_assert(strstr(p.err, "refused: REDUCE at byte 282 calls "
                            "collections.ChainMap") != NULL,
              "%s", p.err);
    cr_assert(strstr(p.err, "refused: SETITEM at byte 305 ") != NULL, "%s",
              p.err);
    cpk_proc_free(&p);
}

/* --json: every key of an entry, in order, the counts, strict_violation. */
Test(cli_state_report, json_lists_each_entry)
{
    cpk_proc p;
    run_load(&p, "--json", CASES "writethrough-chainmap.pkl");
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.err, "");
    check_json(&p, cpk_py_text("writethrough_chainmap.py"));
    cpk_proc_free(&p);

    static const struct {
        const char *file;
        const char *checks;
    } more[] = {
        {"alias-type.pkl",
         "w = entry(318)\n"
         "assert (w['opcode'], w['kind'], w['target_offset']) == "
         "(ord('b'), 'value', 291), w\n"
         "assert (w['module'], w['name']) == ('builtins', 'type'), w\n"
         "assert r['n_state'] == 1 and r['n_state_vouchable'] == 0\n"},
        {"limit-pow.pkl",
         "w = entry(269)\n"
         "assert (w['opcode'], w['kind']) == (ord('R'), 'call'), w\n"
         "assert (w['module'], w['name']) == ('builtins', 'pow'), w\n"
         "assert r['n_state'] == 1 and r['n_state_vouchable'] == 1\n"},
        {"init-dunder-defaultcontext.pkl",
         "w = entry(347)\n"
         "assert (w['kind'], w['target_offset']) == ('import', 343), w\n"
         "assert w['text'] == 'REDUCE at byte 347 writes into an imported "
         "object (byte 343)', w\n"},
    };
    for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++) {
        char path[512];
        snprintf(path, sizeof(path), CASES "%s", more[i].file);
        run_load(&p, "--json", path);
        cpk_assert_exit(&p, 0);
        check_json(&p, more[i].checks);
        cpk_proc_free(&p);
    }
}

/* Plain data: the text report as it was before the closed world, byte
 * for byte, and no entries in the JSON. */
Test(cli_state_report, plain_data_reports_as_before)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/plain.pkl", dir);
    cpk_python_to_file(path, "import pickle, sys\n"
                             "sys.stdout.buffer.write(pickle.dumps({'a': "
                             "[1, 2.5, None], 'b': (True, 'x')}, "
                             "protocol=2))\n");
    cpk_proc p;
    run_load(&p, path, NULL);
    cpk_assert_exit(&p, 0);
    char want[1024];
    snprintf(want, sizeof(want),
             "file       %s\n"
             "pickle     53 bytes, protocol 2, 22 opcodes\n"
             "result     dict\n"
             "imports    0\n"
             "verdict    only reconstructors and plain data; a function "
             "still runs when called\n",
             path);
    cr_assert_str_eq(p.out, want);
    cpk_proc_free(&p);
    run_load(&p, "--json", path);
    cpk_assert_exit(&p, 0);
    check_json(&p, "assert r['state_writes'] == [], r['state_writes']\n"
                   "assert r['n_state'] == 0 and r['n_state_vouchable'] == 0\n"
                   "assert r['strict_violation'] is False\n");
    cpk_proc_free(&p);
}

/* A function carried by value makes no entry: no section, the plain
 * verdict, an empty list. */
Test(cli_state_report, function_by_value_has_no_entries)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/fn.pkl", dir);
    cpk_python_to_file(path, "import ccloudpickle, sys\n"
                             "def f(x, y=2):\n"
                             "    return [x, y]\n"
                             "sys.stdout.buffer.write(ccloudpickle.dumps(f))\n");
    cpk_proc p;
    run_load(&p, path, NULL);
    cpk_assert_exit(&p, 0);
    assert_has(&p, "function   f (byte ");
    cr_assert(strstr(p.out, "\nstate ") == NULL, "%s", p.out);
    assert_has(&p, "\nverdict    only reconstructors and plain data; a "
                   "function still runs when called\n");
    cpk_proc_free(&p);
    run_load(&p, "--json", path);
    cpk_assert_exit(&p, 0);
    check_json(&p, "assert r['state_writes'] == [], r['state_writes']\n"
                   "assert r['n_state'] == 0 and r['result'] == 'function'\n");
    cpk_proc_free(&p);
}

/* Past the cap of PKSCAN_MAX_ITEMS entries: the heading's count and
 * n_state are exact, one line counts the rest. */
Test(cli_state_report, entries_past_the_list_are_counted)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/many.pkl", dir);
    cpk_python_to_file(path, cpk_py_text("many_calls.py"));
    cpk_proc p;
    run_load(&p, path, NULL);
    cpk_assert_exit(&p, 0);
    assert_has(&p, "\nstate      100005 writes or calls the scan cannot "
                   "vouch for, 100005 an --allow rule naming the callable "
                   "may admit\n");
    assert_has(&p, "\n  ! REDUCE at byte 26 calls builtins.pow,");
    assert_has(&p, "\n  ! 5 more writes or calls than the report lists\n"
                   "truncated  ");
    assert_has(&p, "\n" VERDICT);
    size_t listed = 0;
    for (const char *q = p.out; (q = strstr(q, "\n  ! REDUCE ")) != NULL;
         q++)
        listed++;
    cr_assert_eq(listed, 100000);
    cpk_proc_free(&p);
    run_load(&p, "--json", path);
    cpk_assert_exit(&p, 0);
    check_json(&p, "assert len(r['state_writes']) == 100000\n"
                   "assert r['n_state'] == 100005 and r['truncated'] is True\n"
                   "assert r['n_state_vouchable'] == 100005\n"
                   "assert entry(26)['kind'] == 'call'\n");
    cpk_proc_free(&p);
}
