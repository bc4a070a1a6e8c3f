/* test_support_spawn.c - the tests' process helper (support.c) starts
 * every child with default signal dispositions and an empty signal mask,
 * whatever the test runner inherited: under nohup (SIGHUP ignored), a CI
 * runner or a terminal, the signal tests give the same results. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* The test process as nohup and a careless runner leave it: SIGHUP and
 * SIGINT ignored, SIGTERM and SIGUSR1 blocked. */
static void
inherit_hostile_signals(void)
{
    signal(SIGHUP, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGUSR1);
    cr_assert(sigprocmask(SIG_BLOCK, &set, NULL) == 0);
}

/* The hexadecimal mask on /proc/self/status's line `name`. */
static unsigned long long
status_mask(const char *status, const char *name)
{
    const char *line = strstr(status, name);
    cr_assert(line != NULL, "no %s in:\n%s", name, status);
    return strtoull(line + strlen(name), NULL, 16);
}

static unsigned long long
bit(int sig)
{
    return 1ULL << (sig - 1);
}

TestSuite(support_spawn);

Test(support_spawn, child_starts_with_default_signals)
{
    inherit_hostile_signals();
    const char *argv[] = {"/bin/cat", "/proc/self/status", NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, NULL, NULL, 0, NULL);
    cpk_assert_exit(&p, 0);
    unsigned long long ignored = status_mask(p.out, "\nSigIgn:");
    unsigned long long blocked = status_mask(p.out, "\nSigBlk:");
    cr_assert((ignored & (bit(SIGHUP) | bit(SIGINT))) == 0,
              "SigIgn %llx still ignores SIGHUP or SIGINT", ignored);
    cr_assert(blocked == 0, "SigBlk %llx: signals still blocked", blocked);
    cpk_proc_free(&p);
}

/* What the signal tests rely on: a signal sent to the child acts. */
static void
signal_kills_child(int sig)
{
    inherit_hostile_signals();
    const char *argv[] = {"/bin/sleep", "30", NULL};
    cpk_spawn_opts o = {.argv = argv, .signal = sig, .signal_after_ms = 50};
    cpk_proc p;
    cpk_spawn_ex(&p, &o);
    cr_assert(p.signaled && p.sig == sig,
              "expected death by signal %d, got %s %d", sig,
              p.exited ? "exit" : "signal", p.exited ? p.status : p.sig);
    cpk_proc_free(&p);
}

Test(support_spawn, ignored_sighup_is_not_inherited)
{
    signal_kills_child(SIGHUP);
}

Test(support_spawn, ignored_sigint_is_not_inherited)
{
    signal_kills_child(SIGINT);
}

Test(support_spawn, blocked_sigterm_is_not_inherited)
{
    signal_kills_child(SIGTERM);
}
