/* format.h - the numbers of ccloudpickle's pickle format (doc/FORMAT.md):
 * which format each release writes, the marker a pickle opens with to
 * say which one it needs, and the error an older loader gives. Pure C:
 * the static scan (pkscan.c) and the module (unpickler.c, module.c) both
 * use it. */
#ifndef CPK_SCAN_FORMAT_H
#define CPK_SCAN_FORMAT_H

#include <stddef.h>

#include "scan/pkscan.h" /* pkscan_report: cpk_format_newer_import */

/* The format this version writes by default, and the oldest it can
 * write (format=N). A new reconstructor shape is a new name and a new
 * number here; doc/FORMAT.md's table says what each number holds. */
#define CPK_FORMAT_CURRENT 5
#define CPK_FORMAT_OLDEST 1
/* CPK_FORMAT_CURRENT as a string literal, for usage texts. */
#define CPK_FORMAT_STR_(n) #n
#define CPK_FORMAT_STR(n) CPK_FORMAT_STR_(n)
#define CPK_FORMAT_CURRENT_STR CPK_FORMAT_STR(CPK_FORMAT_CURRENT)

/* The first format whose pickles open with the marker. Format 5 writes
 * the bytes of format 4: its releases are the first that read markers,
 * so a marker is needed only once a format adds a name they lack. Until
 * then a pickle costs no marker lookup at load, and 0.5.0 loads it. */
#define CPK_FORMAT_MARKED 6

/* The marker's name in the module: "_format_<N>_<major>_<minor>_<patch>",
 * N the format the pickle needs, then the writer's version. */
#define CPK_FORMAT_MARKER_PREFIX "_format_"

/* The release that introduced format n ("0.1.0" ...), or NULL when n is
 * not a format this version knows. */
const char *cpk_format_release(int n);

/* The largest number a marker's fields read as: more digits saturate
 * here (a format that large is newer than this loader all the same). */
#define CPK_FORMAT_NUMBER_MAX 999999999L

/* 1 when name[0, len) is a marker: *format and the writer's version
 * ("0.7.0", in version[0, vsize)) are filled; 0 otherwise (the name is
 * then an ordinary one). A number of any length is read, saturating at
 * CPK_FORMAT_NUMBER_MAX. */
int cpk_format_parse(const char *name, size_t len, int *format,
                     char *version, size_t vsize);

/* The marker of format n written by `version` ("0.6.0"), NUL-terminated
 * in out[0, size). Its length, or -1 when it does not fit. */
int cpk_format_marker(char *out, size_t size, int n, const char *version);

/* Whether a pickle of format n may name reconstructor `name`: 1 yes, 0
 * no (the release of format n lacks it). Names that are not ours are
 * not this function's to judge: 1. */
int cpk_format_has_name(int n, const char *name);

/* The format a pickle says it needs: 1 when data[0, len) opens with a
 * marker (GLOBAL "ccloudpickle" marker, the text opcode every protocol
 * reads, then POP), first or right after PROTO, *format and the writer's version filled; 0 when it has none (a
 * pickle of format 4 or older, or of plain data, which any loader
 * reads). */
int cpk_format_sniff(const void *data, size_t len, int *format,
                     char *version, size_t vsize);

/* Whether name[0, len), or any part of it between dots (protocol 4's
 * find_class walks a dotted name, and the module is reachable as another
 * module's attribute: _ccloudpickle_engines.ccloudpickle._format_6_...),
 * is the marker of a format newer than CPK_FORMAT_CURRENT: 1 with
 * *format and the writer's version filled, else 0. */
int cpk_format_newer_name(const char *name, size_t len, int *format,
                          char *version, size_t vsize);

/* Whether a scanned pickle names, anywhere, the marker of a format newer
 * than CPK_FORMAT_CURRENT (inside a FRAME, memoized, after other opcodes,
 * by INST): 1 with *format and the writer's version filled, else 0. The
 * load would refuse it too, but only when it reaches it, after what comes
 * before has run. */
int cpk_format_newer_import(const pkscan_report *r, int *format,
                            char *version, size_t vsize);

/* The older loader's message, NUL-terminated in out[0, size): "written
 * by ccloudpickle X for format N; this is ccloudpickle Y (format M):
 * upgrade the loading side, or write with format=M". */
void cpk_format_message(char *out, size_t size, int n, const char *writer,
                        const char *self_version);

#endif
