/* test_cov_map_repr.c - --map --result repr when encoding the result
 * runs the user's code: a __repr__ that calls sys.exit() is the record's
 * exit (status 4 here; an error record under --keep-going), one that
 * raises MemoryError ends the run naming the record (status 1). The
 * results before are written. */
#include <stdio.h>
#include <string.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    const char *argv[] = {CPK_DUMP, "-e",
                          "import sys\n"
                          "class R:\n"
                          "    def __init__(self, x): self.x = x\n"
                          "    def __repr__(self):\n"
                          "        if self.x == 2: sys.exit(4)\n"
                          "        if self.x == 3: raise MemoryError('repr')\n"
                          "        return 'R%d' % self.x\n"
                          "R",
                          "-o", "r.pkl", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
}

TestSuite(cov_map_repr, .init = setup);

static void
map(cpk_proc *p, const char *in, int keep_going)
{
    const char *argv[] = {CPK_LOAD, "--map", "--result", "repr", "r.pkl",
                          keep_going ? "--keep-going" : NULL, NULL};
    cpk_spawn(p, argv, dir, in, strlen(in), NULL);
}

static const char TB[] = "Traceback (most recent call last):\n"
                         "  File \"<cloudpickle-dump -e>\", line 5, in "
                         "__repr__\n"
                         "SystemExit: 4\n";

Test(cov_map_repr, repr_that_exits)
{
    cpk_proc p;
    map(&p, "1\n2\n5\n", 0);
    cpk_assert_exit(&p, 4);
    cr_assert_str_eq(p.out, "R1\n");
    char want[512];
    snprintf(want, sizeof(want),
             "%scloudpickle-load: standard input: record 2: SystemExit: 4\n",
             TB);
    cr_assert_str_eq(p.err, want);
    cpk_proc_free(&p);
}

Test(cov_map_repr, repr_that_exits_under_keep_going)
{
    cpk_proc p;
    map(&p, "1\n2\n5\n", 1);
    cpk_assert_exit(&p, 1);
    cr_assert_str_eq(p.out,
                     "R1\n{\"error\":{\"type\":\"SystemExit\",\"message\":\"4\","
                     "\"traceback\":\"Traceback (most recent call last):\\n"
                     "  File \\\"<cloudpickle-dump -e>\\\", line 5, in "
                     "__repr__\\nSystemExit: 4\\n\",\"record\":2}}\nR5\n");
    cr_assert_str_eq(p.err, "cloudpickle-load: standard input: record 2: "
                            "SystemExit: 4\n");
    cpk_proc_free(&p);
}

Test(cov_map_repr, repr_that_runs_out_of_memory_ends_the_run)
{
    cpk_proc p;
    map(&p, "1\n3\n5\n", 1);
    cpk_assert_exit(&p, 1);
    cr_assert_str_eq(p.out, "R1\n");
    cr_assert_str_eq(p.err, "cloudpickle-load: standard input: record 2: "
                            "MemoryError: repr\n");
    cpk_proc_free(&p);
}
