/* prescan.c - the opcode walk of prescan.h. The opcode table follows
 * Lib/pickletools.py (protocols 0 to 5); argument checks follow what
 * Modules/_pickle.c does with each argument. */
#include "prescan.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How an opcode's argument is laid out. */
enum {
    A_NONE,   /* no argument */
    A_FIXED,  /* `size` bytes */
    A_LINE,   /* one line, '\n'-terminated */
    A_LINE2,  /* two lines (GLOBAL, INST) */
    A_LEN1,   /* 1-byte length, then that many bytes */
    A_LEN4,   /* 4-byte little-endian length (signed), then the bytes */
    A_LEN8,   /* 8-byte little-endian length, then the bytes */
};

/* What to check beyond the layout. */
enum {
    C_NONE,
    C_PROTO,   /* protocol number */
    C_UTF8,    /* UTF-8, surrogates allowed (_pickle's "surrogatepass") */
    C_NAMES,   /* GLOBAL/INST: two strict UTF-8 lines */
    C_INT,     /* INT, LONG: an integer literal */
    C_FLOAT,   /* FLOAT */
    C_STRING,  /* STRING: a quoted, escaped bytes literal */
    C_GET,     /* memo read: GET (decimal line), BINGET, LONG_BINGET */
    C_PUT,     /* memo write with an index: PUT, BINPUT, LONG_BINPUT */
    C_MEMOIZE, /* memo write at the next index */
    C_FRAME,   /* FRAME: its length must fit in the input */
    C_STOP,
};

typedef struct {
    const char *name; /* NULL: not an opcode */
    unsigned char arg;
    unsigned char size; /* A_FIXED */
    unsigned char check;
} opcode;

static const opcode opcodes[256] = {
    ['('] = {"MARK", A_NONE, 0, C_NONE},
    ['.'] = {"STOP", A_NONE, 0, C_STOP},
    ['0'] = {"POP", A_NONE, 0, C_NONE},
    ['1'] = {"POP_MARK", A_NONE, 0, C_NONE},
    ['2'] = {"DUP", A_NONE, 0, C_NONE},
    ['F'] = {"FLOAT", A_LINE, 0, C_FLOAT},
    ['I'] = {"INT", A_LINE, 0, C_INT},
    ['J'] = {"BININT", A_FIXED, 4, C_NONE},
    ['K'] = {"BININT1", A_FIXED, 1, C_NONE},
    ['L'] = {"LONG", A_LINE, 0, C_INT},
    ['M'] = {"BININT2", A_FIXED, 2, C_NONE},
    ['N'] = {"NONE", A_NONE, 0, C_NONE},
    ['P'] = {"PERSID", A_LINE, 0, C_NONE},
    ['Q'] = {"BINPERSID", A_NONE, 0, C_NONE},
    ['R'] = {"REDUCE", A_NONE, 0, C_NONE},
    ['S'] = {"STRING", A_LINE, 0, C_STRING},
    ['T'] = {"BINSTRING", A_LEN4, 0, C_NONE},
    ['U'] = {"SHORT_BINSTRING", A_LEN1, 0, C_NONE},
    ['V'] = {"UNICODE", A_LINE, 0, C_NONE},
    ['X'] = {"BINUNICODE", A_LEN4, 0, C_UTF8},
    ['a'] = {"APPEND", A_NONE, 0, C_NONE},
    ['b'] = {"BUILD", A_NONE, 0, C_NONE},
    ['c'] = {"GLOBAL", A_LINE2, 0, C_NAMES},
    ['d'] = {"DICT", A_NONE, 0, C_NONE},
    ['}'] = {"EMPTY_DICT", A_NONE, 0, C_NONE},
    ['e'] = {"APPENDS", A_NONE, 0, C_NONE},
    ['g'] = {"GET", A_LINE, 0, C_GET},
    ['h'] = {"BINGET", A_FIXED, 1, C_GET},
    ['i'] = {"INST", A_LINE2, 0, C_NAMES},
    ['j'] = {"LONG_BINGET", A_FIXED, 4, C_GET},
    ['l'] = {"LIST", A_NONE, 0, C_NONE},
    [']'] = {"EMPTY_LIST", A_NONE, 0, C_NONE},
    ['o'] = {"OBJ", A_NONE, 0, C_NONE},
    ['p'] = {"PUT", A_LINE, 0, C_PUT},
    ['q'] = {"BINPUT", A_FIXED, 1, C_PUT},
    ['r'] = {"LONG_BINPUT", A_FIXED, 4, C_PUT},
    ['s'] = {"SETITEM", A_NONE, 0, C_NONE},
    ['t'] = {"TUPLE", A_NONE, 0, C_NONE},
    [')'] = {"EMPTY_TUPLE", A_NONE, 0, C_NONE},
    ['u'] = {"SETITEMS", A_NONE, 0, C_NONE},
    ['G'] = {"BINFLOAT", A_FIXED, 8, C_NONE},
    [0x80] = {"PROTO", A_FIXED, 1, C_PROTO},
    [0x81] = {"NEWOBJ", A_NONE, 0, C_NONE},
    [0x82] = {"EXT1", A_FIXED, 1, C_NONE},
    [0x83] = {"EXT2", A_FIXED, 2, C_NONE},
    [0x84] = {"EXT4", A_FIXED, 4, C_NONE},
    [0x85] = {"TUPLE1", A_NONE, 0, C_NONE},
    [0x86] = {"TUPLE2", A_NONE, 0, C_NONE},
    [0x87] = {"TUPLE3", A_NONE, 0, C_NONE},
    [0x88] = {"NEWTRUE", A_NONE, 0, C_NONE},
    [0x89] = {"NEWFALSE", A_NONE, 0, C_NONE},
    [0x8a] = {"LONG1", A_LEN1, 0, C_NONE},
    [0x8b] = {"LONG4", A_LEN4, 0, C_NONE},
    ['B'] = {"BINBYTES", A_LEN4, 0, C_NONE},
    ['C'] = {"SHORT_BINBYTES", A_LEN1, 0, C_NONE},
    [0x8c] = {"SHORT_BINUNICODE", A_LEN1, 0, C_UTF8},
    [0x8d] = {"BINUNICODE8", A_LEN8, 0, C_UTF8},
    [0x8e] = {"BINBYTES8", A_LEN8, 0, C_NONE},
    [0x8f] = {"EMPTY_SET", A_NONE, 0, C_NONE},
    [0x90] = {"ADDITEMS", A_NONE, 0, C_NONE},
    [0x91] = {"FROZENSET", A_NONE, 0, C_NONE},
    [0x92] = {"NEWOBJ_EX", A_NONE, 0, C_NONE},
    [0x93] = {"STACK_GLOBAL", A_NONE, 0, C_NONE},
    [0x94] = {"MEMOIZE", A_NONE, 0, C_MEMOIZE},
    [0x95] = {"FRAME", A_FIXED, 8, C_FRAME},
    [0x96] = {"BYTEARRAY8", A_LEN8, 0, C_NONE},
    [0x97] = {"NEXT_BUFFER", A_NONE, 0, C_NONE},
    [0x98] = {"READONLY_BUFFER", A_NONE, 0, C_NONE},
};

/* pickle.HIGHEST_PROTOCOL of every supported CPython (3.9 to 3.13). */
#define CPK_HIGHEST_PROTOCOL 5

void
cpk_prescan_init(cpk_prescan *s)
{
    memset(s, 0, sizeof(*s));
}

void
cpk_prescan_free(cpk_prescan *s)
{
    free(s->defined);
    s->defined = NULL;
    s->defined_bits = 0;
}

static int
fail(cpk_prescan *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
fail(cpk_prescan *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err, sizeof(s->err), fmt, ap);
    va_end(ap);
    return -1;
}

static uint64_t
le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* Offset of the first invalid byte of the UTF-8 in p[0, n), or n. With
 * `surrogates`, encoded surrogates (ED A0..BF ..) pass, as with Python's
 * "surrogatepass" handler. */
static size_t
utf8_invalid(const unsigned char *p, size_t n, int surrogates)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = p[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t k;
        unsigned char lo = 0x80, hi = 0xbf;
        if (c >= 0xc2 && c <= 0xdf)
            k = 1;
        else if (c >= 0xe0 && c <= 0xef) {
            k = 2;
            if (c == 0xe0)
                lo = 0xa0;
            else if (c == 0xed && !surrogates)
                hi = 0x9f;
        }
        else if (c >= 0xf0 && c <= 0xf4) {
            k = 3;
            if (c == 0xf0)
                lo = 0x90;
            else if (c == 0xf4)
                hi = 0x8f;
        }
        else
            return i;
        if (n - i <= k)
            return i;
        if (p[i + 1] < lo || p[i + 1] > hi)
            return i;
        for (size_t j = 2; j <= k; j++)
            if (p[i + j] < 0x80 || p[i + j] > 0xbf)
                return i;
        i += k + 1;
    }
    return n;
}

/* Strip what strtol() and PyLong_FromString() skip around a number. */
static int
blank(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

static void
trim(const unsigned char **p, size_t *n)
{
    while (*n > 0 && blank((*p)[*n - 1]))
        (*n)--;
    while (*n > 0 && blank(**p))
        (*p)++, (*n)--;
}

/* INT's and LONG's argument as _pickle.c reads it: decimal digits (with
 * Python's underscores) and a sign, blanks around them, LONG's trailing
 * 'L'; INT also takes what strtol(s, NULL, 0) reads, a hex or octal
 * literal. */
static int
int_literal(const unsigned char *p, size_t n, int is_long)
{
    trim(&p, &n);
    if (is_long && n > 0 && p[n - 1] == 'L')
        n--;
    if (n > 0 && (*p == '+' || *p == '-'))
        p++, n--;
    int hex = !is_long && n > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    if (hex)
        p += 2, n -= 2;
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        int digit = (p[i] >= '0' && p[i] <= '9') ||
                    (hex && ((p[i] >= 'a' && p[i] <= 'f') ||
                             (p[i] >= 'A' && p[i] <= 'F')));
        if (!digit && !(p[i] == '_' && !hex && i > 0 && i + 1 < n &&
                        p[i - 1] != '_'))
            return 0;
    }
    return 1;
}

static int
float_literal(const unsigned char *p, size_t n)
{
    char buf[64];
    if (n == 0 || n >= sizeof(buf))
        return n > 0; /* a long one: leave it to Python */
    memcpy(buf, p, n);
    buf[n] = '\0';
    char *end;
    (void)strtod(buf, &end);
    return end != buf && *end == '\0';
}

/* STRING's argument: a quoted literal whose escapes Python's
 * codecs.escape_decode accepts (\x needs two hex digits, no lone
 * trailing backslash). */
static int
string_literal(const unsigned char *p, size_t n)
{
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
        n--;
    if (n < 2 || (p[0] != '\'' && p[0] != '"') || p[n - 1] != p[0])
        return 0;
    for (size_t i = 1; i + 1 < n; i++) {
        if (p[i] != '\\')
            continue;
        if (i + 2 >= n)
            return 0;
        if (p[i + 1] == 'x') {
            for (size_t j = i + 2; j < i + 4; j++)
                if (j + 1 >= n ||
                    !((p[j] >= '0' && p[j] <= '9') ||
                      (p[j] >= 'a' && p[j] <= 'f') ||
                      (p[j] >= 'A' && p[j] <= 'F')))
                    return 0;
        }
        i++;
    }
    return 1;
}

/* A decimal memo index (GET, PUT) into *out, as PyLong_FromString(s,
 * NULL, 10) reads it (blanks, a '+', underscores between digits); 0 if
 * not one. */
static int
decimal(const unsigned char *p, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    trim(&p, &n);
    if (n > 0 && *p == '+')
        p++, n--;
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '_' && i > 0 && i + 1 < n && p[i - 1] != '_')
            continue;
        if (p[i] < '0' || p[i] > '9')
            return 0;
        if (v > (UINT64_MAX - 9) / 10)
            v = UINT64_MAX; /* out of range anyway */
        else
            v = v * 10 + (uint64_t)(p[i] - '0');
    }
    *out = v;
    return 1;
}

static int
memo_defined(const cpk_prescan *s, uint64_t idx)
{
    return idx < s->defined_bits && (s->defined[idx / 8] >> (idx % 8)) & 1;
}

/* Mark memo index idx (at most s->nmemo_ops, so the bitmap stays within
 * one bit per opcode of the input) as stored. */
static int
memo_store(cpk_prescan *s, uint64_t idx)
{
    if (idx >= s->defined_bits) {
        size_t bits = s->defined_bits ? s->defined_bits : 1024;
        while (bits <= idx)
            bits *= 2;
        unsigned char *bigger = realloc(s->defined, bits / 8);
        if (bigger == NULL)
            return -1;
        memset(bigger + s->defined_bits / 8, 0, (bits - s->defined_bits) / 8);
        s->defined = bigger;
        s->defined_bits = bits;
    }
    if (!memo_defined(s, idx)) {
        s->defined[idx / 8] |= (unsigned char)(1u << (idx % 8));
        s->ndefined++;
    }
    return 0;
}

static void
opcode_name(char *buf, size_t cap, unsigned char c)
{
    if (c >= 0x21 && c < 0x7f && c != '\'')
        snprintf(buf, cap, "'%c'", c);
    else
        snprintf(buf, cap, "0x%02x", c);
}

int
cpk_prescan_feed(cpk_prescan *s, const unsigned char *data, size_t len,
                 int eof)
{
    while (!s->done) {
        size_t at = s->pos;
        if (at >= len) {
            if (!eof)
                return 0;
            return fail(s, "truncated at byte %zu (no STOP opcode)", len);
        }
        const opcode *op = &opcodes[data[at]];
        if (op->name == NULL) {
            char name[8];
            opcode_name(name, sizeof(name), data[at]);
            return fail(s, "unknown opcode %s at byte %zu", name, at);
        }
        size_t p = at + 1, arg = p, arglen = 0, end;
        switch (op->arg) {
        case A_NONE:
            end = p;
            break;
        case A_FIXED:
            end = p + op->size;
            arglen = op->size;
            break;
        case A_LINE:
        case A_LINE2: {
            /* Text arguments can arrive over many reads: go on from
             * where the last call stopped looking, so that the walk stays
             * linear in the input. */
            size_t from = s->line_from > p ? s->line_from : p;
            size_t first = s->line_nl1;
            end = SIZE_MAX;
            if (op->arg == A_LINE2 && first == 0) {
                const unsigned char *nl = memchr(data + from, '\n',
                                                 len - from);
                if (nl != NULL)
                    first = s->line_nl1 = (size_t)(nl - data) + 1;
                from = nl != NULL ? first : len;
            }
            if (op->arg == A_LINE || first != 0) {
                const unsigned char *nl = memchr(data + from, '\n',
                                                 len - from);
                if (nl != NULL)
                    end = (size_t)(nl - data) + 1;
            }
            if (end != SIZE_MAX)
                arglen = end - p - 1;
            else
                s->line_from = len;
            break;
        }
        default: {
            int w = op->arg == A_LEN1 ? 1 : op->arg == A_LEN4 ? 4 : 8;
            if (len - p < (size_t)w) {
                end = SIZE_MAX;
                break;
            }
            uint64_t n = le(data + p, w);
            /* BINSTRING's and LONG4's lengths are signed in _pickle.c;
             * BINUNICODE's and BINBYTES' are not. */
            if ((data[at] == 'T' || data[at] == 0x8b) && (n & 0x80000000u))
                return fail(s, "%s at byte %zu: negative length", op->name,
                            at);
            arg = p + (size_t)w;
            if (n > SIZE_MAX - arg) {
                end = SIZE_MAX;
                break;
            }
            arglen = (size_t)n;
            end = arg + arglen;
        }
        }
        if (end == SIZE_MAX || end > len) {
            if (!eof)
                return 0;
            return fail(s, "truncated at byte %zu (in %s at byte %zu)", len,
                        op->name, at);
        }
        const unsigned char *a = data + arg;
        uint64_t idx = 0;
        switch (op->check) {
        case C_PROTO:
            if (a[0] > CPK_HIGHEST_PROTOCOL)
                return fail(s, "unsupported protocol %d at byte %zu (this "
                            "Python reads 0 to %d; written by a newer "
                            "version?)",
                            a[0], at, CPK_HIGHEST_PROTOCOL);
            break;
        case C_UTF8: {
            size_t bad = utf8_invalid(a, arglen, 1);
            if (bad < arglen)
                return fail(s, "%s at byte %zu: invalid UTF-8 at byte %zu",
                            op->name, at, arg + bad);
            break;
        }
        case C_NAMES: {
            size_t bad = utf8_invalid(a, arglen, 0);
            if (bad < arglen)
                return fail(s, "%s at byte %zu: invalid UTF-8 at byte %zu",
                            op->name, at, arg + bad);
            const unsigned char *nl = memchr(a, '\n', arglen);
            if (nl == a || arglen == (size_t)(nl - a) + 1)
                return fail(s, "%s at byte %zu: empty module or name",
                            op->name, at);
            break;
        }
        case C_INT:
            if (!(data[at] == 'I' && arglen == 2 && a[0] == '0' &&
                  (a[1] == '0' || a[1] == '1')) &&
                !int_literal(a, arglen, data[at] == 'L'))
                return fail(s, "%s at byte %zu: not an integer", op->name,
                            at);
            break;
        case C_FLOAT:
            if (!float_literal(a, arglen))
                return fail(s, "%s at byte %zu: not a number", op->name, at);
            break;
        case C_STRING:
            if (!string_literal(a, arglen))
                return fail(s, "%s at byte %zu: not a quoted string literal",
                            op->name, at);
            break;
        case C_GET:
        case C_PUT:
            if (op->arg == A_LINE) {
                if (!decimal(a, arglen, &idx))
                    return fail(s, "%s at byte %zu: memo index is not a "
                                "decimal number",
                                op->name, at);
            }
            else
                idx = le(a, op->size);
            if (op->check == C_GET) {
                if (!memo_defined(s, idx))
                    return fail(s, "%s at byte %zu: memo index %llu was "
                                "never stored",
                                op->name, at, (unsigned long long)idx);
                break;
            }
            /* Pickler writes index len(memo): one past the memo
             * writes before it, at most. */
            if (idx > s->nmemo_ops)
                return fail(s, "%s at byte %zu: memo index %llu out of "
                            "range (%zu stored before it)",
                            op->name, at, (unsigned long long)idx,
                            s->ndefined);
            if (memo_store(s, idx) < 0)
                return fail(s, "out of memory");
            s->nmemo_ops++;
            break;
        case C_MEMOIZE:
            if (memo_store(s, s->ndefined) < 0)
                return fail(s, "out of memory");
            s->nmemo_ops++;
            break;
        case C_FRAME: {
            uint64_t n = le(a, 8);
            if (n > SIZE_MAX - end)
                return fail(s, "FRAME at byte %zu: length %llu past the end",
                            at, (unsigned long long)n);
            if (end + (size_t)n > s->need)
                s->need = end + (size_t)n;
            break;
        }
        case C_STOP:
            s->done = 1;
            break;
        }
        s->pos = end;
        s->line_from = 0;
        s->line_nl1 = 0;
    }
    if (!eof)
        return 1;
    if (s->need > len)
        return fail(s, "truncated at byte %zu (a FRAME runs to byte %zu)",
                    len, s->need);
    if (len > s->pos)
        return fail(s, "%zu byte%s of trailing data after the end of the "
                    "pickle at byte %zu",
                    len - s->pos, len - s->pos == 1 ? "" : "s", s->pos);
    return 1;
}
