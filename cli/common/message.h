/* message.h - diagnostics of the command-line programs: every one is a
 * single `prog: context: message` line on stderr. The exit statuses are
 * here too, as the man pages document them.
 */
#ifndef CPK_CLI_COMMON_MESSAGE_H
#define CPK_CLI_COMMON_MESSAGE_H

enum {
    CPK_EXIT_OK = 0,
    CPK_EXIT_RAISED = 1,  /* the called function raised */
    CPK_EXIT_USAGE = 2,   /* bad command line */
    CPK_EXIT_INPUT = 3,   /* not a pickle, truncated, version mismatch */
    CPK_EXIT_OBJECT = 4,  /* could not pickle, import or load the object */
    CPK_EXIT_SYSTEM = 5,  /* output not written, Python did not start */
    CPK_EXIT_FINALIZE = 120, /* Python failed to shut down cleanly */
};

/* The program name used in messages (basename of argv[0]). */
extern const char *cpk_prog;

void cpk_message_init(const char *argv0);

#include <stdio.h>

/* Send cpk_error's lines to `to` instead of standard error (NULL: back
 * to standard error); returns the previous capture. --map keeps the
 * refusal of a record with the record's other output (mapwork.c), so it
 * shows in input order. */
FILE *cpk_message_capture(FILE *to);

/* Called before each line cpk_error writes to standard error (not to a
 * capture); NULL for none. progress.c erases its line there. */
void cpk_message_before_stderr(void (*hook)(void));

/* `prog: <formatted>` and a newline on stderr. */
void cpk_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* A usage error: the message, then a pointer to --help. Returns
 * CPK_EXIT_USAGE for `return cpk_usage_error(...)`. */
int cpk_usage_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

struct option;

/* After getopt_long (with opterr = 0 and ':' leading the short options)
 * returned '?' or ':': print what was wrong with argv, in our `prog:`
 * form, and return CPK_EXIT_USAGE. `longopts` is the table given to
 * getopt_long. */
int cpk_option_error(int c, char **argv, const struct option *longopts);

/* Write the line counters of a coverage build (make coverage compiles
 * with -DCPK_COVERAGE) now: called right before the program or a --map
 * worker ends with _exit() or dies by a signal, which skip the exit
 * handler that writes them. Does nothing in other builds. */
void cpk_coverage_flush(void);

#endif
