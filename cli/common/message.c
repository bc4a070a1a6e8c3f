/* message.c - `prog: message` diagnostics (see message.h). */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/message.h"

const char *cpk_prog = "cloudpickle";

/* Where cpk_error writes: standard error, or a capture (message.h). */
static FILE *sink;
static void (*before_stderr)(void);

void
cpk_message_before_stderr(void (*hook)(void))
{
    before_stderr = hook;
}

FILE *
cpk_message_capture(FILE *to)
{
    FILE *was = sink;
    sink = to;
    return was;
}

void
cpk_message_init(const char *argv0)
{
    if (argv0 != NULL && *argv0 != '\0') {
        const char *slash = strrchr(argv0, '/');
        cpk_prog = slash ? slash + 1 : argv0;
    }
}

static void
verror(const char *fmt, va_list ap)
{
    /* One write per line, so concurrent writers do not interleave it. */
    char line[4096];
    int n = snprintf(line, sizeof(line), "%s: ", cpk_prog);
    if (n < 0)
        n = 0;
    if ((size_t)n < sizeof(line))
        vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
    FILE *out = sink ? sink : stderr;
    if (sink == NULL && before_stderr != NULL)
        before_stderr();
    fprintf(out, "%s\n", line);
    fflush(out);
}

void
cpk_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(fmt, ap);
    va_end(ap);
}

int
cpk_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try '%s --help' for more information.\n", cpk_prog);
    return CPK_EXIT_USAGE;
}

int
cpk_option_error(int c, char **argv, const struct option *longopts)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "";
    int is_long = strncmp(arg, "--", 2) == 0;
    if (c == ':') {
        /* A missing argument is always that of the last element getopt
         * finished (a cluster like -fP ends with the option). */
        if (is_long)
            return cpk_usage_error("option '%s' requires an argument", arg);
        return cpk_usage_error("option requires an argument -- '%c'", optopt);
    }
    /* glibc sets optopt to 0 for an unrecognized long option, to the
     * option's val for "--flag=value", and to the character for a bad
     * short one. Inside a cluster (-Zx) getopt has not moved optind past
     * the cluster yet, so argv[optind - 1] is the element before it: only
     * optopt says which it was. */
    if (is_long && optopt == 0)
        return cpk_usage_error("unrecognized option '%s'", arg);
    if (is_long) {
        /* "--flag=value" for a flag that takes none (or an abbreviation
         * of it, which getopt_long accepts). */
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
        for (const struct option *o = longopts; eq && o->name; o++)
            if (o->has_arg == no_argument && o->val == optopt &&
                strlen(o->name) >= len &&
                strncmp(o->name, arg + 2, len) == 0)
                return cpk_usage_error("option '--%s' doesn't allow an "
                                       "argument",
                                       o->name);
    }
    if (optopt > 0 && optopt < 256)
        return cpk_usage_error("invalid option -- '%c'", optopt);
    return cpk_usage_error("unrecognized option '%s'", arg);
}

#ifdef CPK_COVERAGE
void __gcov_dump(void); /* libgcov, linked in by --coverage */
#endif

void
cpk_coverage_flush(void)
{
#ifdef CPK_COVERAGE
    /* Not async-signal-safe (it opens, locks and writes the .gcda
     * files): only coverage builds call it from fatal-signal handlers. */
    __gcov_dump();
#endif
}
