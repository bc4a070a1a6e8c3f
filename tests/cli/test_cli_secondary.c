/* test_cli_secondary.c - standard error and SIGPIPE are secondary: user
 * code keeps Python's SIGPIPE setting (BrokenPipeError on its own pipes),
 * a closed or full standard error fails neither a dump nor its temp file,
 * and what C code prints at load time comes before --call's output, on
 * standard error. A closed standard output still ends the programs by
 * SIGPIPE (test_cli_dump.c, test_cli_load.c). */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    char path[256];
    snprintf(path, sizeof(path), "%s/pipes.py", dir);
    cpk_write_file(path, "import os\n"
                         "def own_pipe():\n"
                         "    r, w = os.pipe()\n"
                         "    os.close(r)\n"
                         "    try:\n"
                         "        os.write(w, b'x')\n"
                         "    except BrokenPipeError:\n"
                         "        return 'caught'\n"
                         "    finally:\n"
                         "        os.close(w)\n"
                         "    return 'not caught'\n");
    snprintf(path, sizeof(path), "%s/chatty.py", dir);
    cpk_write_file(path, "import time\n"
                         "print('at import')\n"
                         "class Chatty:\n"
                         "    def __reduce__(self):\n"
                         "        time.sleep(0.5)\n"
                         "        for i in range(2000):\n"
                         "            print('while pickling', i)\n"
                         "        return (int, (7,))\n"
                         "obj = Chatty()\n"
                         "def add(a, b=1):\n"
                         "    return a + b\n");
    snprintf(path, sizeof(path), "%s/cprint.py", dir);
    cpk_write_file(path, "import ctypes\n"
                         "ctypes.CDLL(None).printf(b'from C\\n')\n"
                         "def five():\n"
                         "    return 5\n");
}

TestSuite(cli_secondary, .init = setup);

static char *
dump_to_memory(const char *spec, const char *opt, size_t *len)
{
    const char *argv[] = {CPK_DUMP, opt ? opt : spec, opt ? spec : NULL,
                          NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    char *data = malloc(p.out_len + 1);
    memcpy(data, p.out, p.out_len);
    *len = p.out_len;
    cpk_proc_free(&p);
    return data;
}

Test(cli_secondary, user_code_gets_broken_pipe_error_on_its_own_pipe)
{
    size_t len;
    char *data = dump_to_memory("pipes:own_pipe", NULL, &len);
    const char *argv[] = {CPK_LOAD, "--call", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, "/", data, len, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "'caught'\n");
    cpk_proc_free(&p);
    free(data);
}

Test(cli_secondary, closed_stderr_pipe_does_not_fail_a_dump_to_a_file)
{
    /* Standard error is a pipe whose reader (true) is gone by the time
     * the module prints while it is pickled. */
    const char *argv[] = {"/bin/sh", "-c",
                          "{ " CPK_DUMP " -o out.pkl chatty:obj; "
                          "echo $? >rc; } 2>&1 >/dev/null | true",
                          NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    char path[128];
    snprintf(path, sizeof(path), "%s/rc", dir);
    char *rc = cpk_read_file(path, NULL);
    cr_assert_not_null(rc);
    cr_assert_str_eq(rc, "0\n");
    free(rc);
    snprintf(path, sizeof(path), "%s/out.pkl", dir);
    size_t len = 0;
    char *data = cpk_read_file(path, &len);
    cr_assert_not_null(data);
    const char *largv[] = {CPK_LOAD, "-", NULL};
    cpk_proc q;
    cpk_spawn(&q, largv, "/", data, len, NULL);
    cpk_assert_exit(&q, 0);
    cr_assert(strstr(q.out, "7") != NULL, "%s", q.out);
    cpk_proc_free(&q);
    free(data);
    DIR *d = opendir(dir);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        cr_assert(strncmp(e->d_name, ".out.pkl.", 9) != 0, "left %s",
                  e->d_name);
    closedir(d);
    cpk_proc_free(&p);
}

Test(cli_secondary, full_stderr_does_not_fail_a_dump)
{
    const char *argv[] = {"/bin/sh", "-c",
                          CPK_DUMP " chatty:add 2>/dev/full", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    const char *largv[] = {CPK_LOAD, "--call", "-", "--", "2", NULL};
    cpk_proc q;
    cpk_spawn(&q, largv, "/", p.out, p.out_len, NULL);
    cpk_assert_exit(&q, 0);
    cr_assert_str_eq(q.out, "3\n");
    cpk_proc_free(&q);
    cpk_proc_free(&p);
}

Test(cli_secondary, c_output_at_load_time_precedes_the_call_output)
{
    size_t len;
    char *data = dump_to_memory("cprint:five", "--by-ref", &len);
    char path[128];
    snprintf(path, sizeof(path), "%s/c.pkl", dir);
    FILE *f = fopen(path, "wb");
    fwrite(data, 1, len, f);
    fclose(f);
    const char *argv[] = {CPK_LOAD, "--call", "c.pkl", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, dir, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cr_assert_str_eq(p.out, "5\n");
    cr_assert(strstr(p.err, "from C\n") != NULL, "%s", p.err);
    cpk_proc_free(&p);
    free(data);
}
