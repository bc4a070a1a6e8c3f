/* test_engine_mpi.c - mpi4py with ccloudpickle as its pickler
 * (MPI.pickle.__init__(ccloudpickle.dumps, ccloudpickle.loads)), two
 * ranks under Open MPI's mpirun, against Debian's python3-mpi4py.
 *
 * tests/engines/mpi_pingpong.py: plain MPI.pickle refuses a lambda; with
 * ccloudpickle, rank 0 sends a lambda, a closure, a class of __main__ and
 * an instance to rank 1 and gets rank 1's lambda and a new instance of the
 * same class back; bcast and gather carry closures. Shared memory and
 * loopback only (OMPI_MCA_* below). Skipped, saying why, where mpirun or
 * mpi4py is missing or mpirun cannot start two ranks here. */
#include <unistd.h>

#include "engine_run.h"

#define MPIRUN "/usr/bin/mpirun"

/* Open MPI: shared memory between the two ranks, no network probing,
 * root allowed (containers run tests as root). */
#define MPI_ENV                                                               \
    "PYTHONPATH=" CPK_BUILD_DIR ":" CPK_ENGINES_DIR,                          \
        "OMPI_MCA_btl=self,vader",                                            \
        "OMPI_MCA_btl_vader_single_copy_mechanism=none",                      \
        "OMPI_MCA_oob_tcp_if_include=lo", "OMPI_ALLOW_RUN_AS_ROOT=1",         \
        "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", "PYTHONDONTWRITEBYTECODE=1"

static void
mpirun(cpk_proc *p, const char *script)
{
    const char *argv[] = {MPIRUN, "--oversubscribe", "-n", "2", CPK_PYTHON,
                          script[0] == '-' ? "-c" : script,
                          script[0] == '-' ? script + 1 : NULL, NULL};
    const char *env[] = {MPI_ENV, NULL};
    char cwd[256];
    cpk_tmpdir(cwd, sizeof(cwd));
    cpk_spawn_opts o = {.argv = argv, .cwd = cwd, .env = env};
    cpk_spawn_ex(p, &o);
    rmdir(cwd);
}

Test(engine_mpi, two_ranks_roundtrip, .timeout = 600)
{
    if (access(MPIRUN, X_OK) != 0)
        cr_skip_test("needs Open MPI's mpirun (" MPIRUN " is missing)");
    cpk_require("mpi4py");
    cpk_proc p;
    /* Can mpirun start two ranks here at all? */
    mpirun(&p, "-from mpi4py import MPI; assert MPI.COMM_WORLD.Get_size() == 2");
    if (!p.exited || p.status != 0) {
        const char *nl = strchr(p.err, '\n');
        int len = nl ? (int)(nl - p.err) : (int)strlen(p.err);
        cr_skip_test("mpirun cannot start two ranks here: %.*s", len, p.err);
    }
    cpk_proc_free(&p);

    mpirun(&p, CPK_ENGINES_DIR "/mpi_pingpong.py");
    cpk_assert_exit(&p, 0);
    cpk_engine_assert_ok(&p, "plain-refuses");
    cpk_engine_assert_ok(&p, "send-recv-roundtrip");
    cpk_engine_assert_ok(&p, "bcast-gather");
    cpk_engine_assert_no_leftovers(&p, 2);
    cpk_proc_free(&p);
}
