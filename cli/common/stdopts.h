/* stdopts.h - the options both programs answer alike and then exit:
 * -h/--help and -V/--version (stdopts.c). Each program's own options
 * are its main file's; diagnostics and exit statuses are message.h's.
 */
#ifndef CPK_CLI_COMMON_STDOPTS_H
#define CPK_CLI_COMMON_STDOPTS_H

/* -h/--help: `usage` prints the help on standard output; then exit with
 * CPK_EXIT_OK, or CPK_EXIT_SYSTEM if standard output could not be
 * written. */
_Noreturn void cpk_stdopts_help(void (*usage)(void));

/* -V/--version: "PROG (ccloudpickle) VERSION, Python X.Y.Z" (cpk_prog,
 * CPK_VERSION, the CPython the program embeds) on standard output; then
 * exit as cpk_stdopts_help. */
_Noreturn void cpk_stdopts_version(void);

#endif
