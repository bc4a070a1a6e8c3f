/* stdopts.c - -h and -V, alike in both programs (stdopts.h); the help
 * text itself is each program's. */
#include <stdio.h>
#include <stdlib.h>

#include "ccloudpickle.h"   /* CPK_VERSION; Python.h: PY_*_VERSION */
#include "common/message.h" /* cpk_prog, CPK_EXIT_* */
#include "common/stdopts.h"

/* What is printed counts only once it is written: a full disk or a closed
 * pipe is an error, not a silent success. */
static _Noreturn void
exit_after_stdout(void)
{
    exit(fflush(stdout) == 0 ? CPK_EXIT_OK : CPK_EXIT_SYSTEM);
}

void
cpk_stdopts_help(void (*usage)(void))
{
    usage();
    exit_after_stdout();
}

void
cpk_stdopts_version(void)
{
    printf("%s (ccloudpickle) %s, Python %d.%d.%d\n", cpk_prog, CPK_VERSION,
           PY_MAJOR_VERSION, PY_MINOR_VERSION, PY_MICRO_VERSION);
    exit_after_stdout();
}
