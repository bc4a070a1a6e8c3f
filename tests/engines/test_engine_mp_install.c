/* test_engine_mp_install.c - where install_multiprocessing() can go wrong
 * (hostile review of issue 9, H2, M3, L1, M6).
 *
 * A parent that found ccloudpickle through a sys.path entry it added
 * itself (not PYTHONPATH): spawn and forkserver children must install it
 * only once multiprocessing.spawn.prepare() gave them that sys.path, or
 * they die importing it and the Pool replaces them forever (a hang, which
 * the .timeout turns into a failure). A custom reducer is refused, not
 * silently replaced; a reinstall picks up the current _extra_reducers. A
 * fork while another thread holds the installer's lock does not deadlock
 * the child. And the engine tests' leftover check (tests/engine_run.h)
 * reaps a worker the driver orphaned. */
#include "engine_run.h"

static const char *const syspath_oks[] = {
    "pool-map", "workers-installed", "process-without-path", NULL};

/* The driver gets the build directory as an argument and adds it to
 * sys.path; PYTHONPATH is unset. */
static void
syspath(const char *method)
{
    const char *args[] = {method, CPK_BUILD_DIR, NULL};
    cpk_proc p;
    cpk_engine_run_path(&p, "multiprocessing_syspath.py", args, NULL, NULL);
    cpk_assert_exit(&p, 0);
    for (int i = 0; syspath_oks[i] != NULL; i++)
        cpk_engine_assert_ok(&p, syspath_oks[i]);
    cr_assert(strstr(p.err, "ModuleNotFoundError") == NULL, "%s", p.err);
    cpk_engine_assert_no_leftovers(&p, 2);
    cpk_proc_free(&p);
}

Test(engine_mp_install, syspath_spawn, .timeout = 120)
{
    syspath("spawn");
}

Test(engine_mp_install, syspath_forkserver, .timeout = 120)
{
    syspath("forkserver");
}

Test(engine_mp_install, syspath_fork, .timeout = 120)
{
    syspath("fork");
}

TestSuite(engine_mp_reducer, .init = cpk_py_start, .fini = cpk_py_stop);

/* ctx.reducer = a custom reducer, or another class bound to one of the
 * three names: refused with RuntimeError naming it, nothing changed. */
Test(engine_mp_reducer, custom_reducer_refused)
{
    cpk_py_file("custom_reducer_refused.py");
}

/* A reinstall uses the _extra_reducers of multiprocessing's pickler as it
 * is then, not the dict of the first install. */
Test(engine_mp_reducer, reinstall_rereads_extra_reducers)
{
    cpk_py_file("reinstall_rereads_extra_reducers.py");
}

/* Another thread holds the installer's lock (as while it runs
 * install_multiprocessing) when this one forks: the child installs
 * without blocking. A hang is caught by the .timeout. */
Test(engine_mp_reducer, fork_while_locked, .timeout = 60)
{
    cpk_proc p;
    cpk_python(&p, cpk_py_text("fork_while_locked.py"), NULL, 0);
    cpk_assert_exit(&p, 0);
    cr_assert(strstr(p.out, "child 0\n") != NULL, "%s%s", p.out, p.err);
    cpk_proc_free(&p);
}

/* The leftover check: a process the driver orphans (it outlives the
 * driver by a moment) comes back to the test process and is reaped. */
Test(engine_mp_install, orphan_is_reaped, .timeout = 60)
{
    cpk_proc p;
    const char *argv[] = {
        CPK_PYTHON, "-c",
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    time.sleep(0.5)\n"
        "    os._exit(0)\n"
        "print('parent done', flush=True)\n",
        NULL};
    cr_assert(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
    cpk_spawn(&p, argv, NULL, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    cpk_proc_free(&p);
    cr_assert_eq(cpk_engine_reap_leftovers(), 1,
                 "the orphan did not come back to the test process");
}
