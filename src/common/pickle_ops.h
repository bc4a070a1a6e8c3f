/* pickle_ops.h - the pickle opcodes, protocols 0 to 5, named as in
 * CPython's pickle module (CPK_OP_<NAME>). Pure C, no Python: the static
 * scanners and the writers share it. */
#ifndef CPK_COMMON_PICKLE_OPS_H
#define CPK_COMMON_PICKLE_OPS_H

enum cpk_pickle_op {
    /* Protocols 0 and 1 */
    CPK_OP_MARK = '(',
    CPK_OP_STOP = '.',
    CPK_OP_POP = '0',
    CPK_OP_POP_MARK = '1',
    CPK_OP_DUP = '2',
    CPK_OP_FLOAT = 'F',
    CPK_OP_INT = 'I',
    CPK_OP_BININT = 'J',
    CPK_OP_BININT1 = 'K',
    CPK_OP_LONG = 'L',
    CPK_OP_BININT2 = 'M',
    CPK_OP_NONE = 'N',
    CPK_OP_PERSID = 'P',
    CPK_OP_BINPERSID = 'Q',
    CPK_OP_REDUCE = 'R',
    CPK_OP_STRING = 'S',
    CPK_OP_BINSTRING = 'T',
    CPK_OP_SHORT_BINSTRING = 'U',
    CPK_OP_UNICODE = 'V',
    CPK_OP_BINUNICODE = 'X',
    CPK_OP_APPEND = 'a',
    CPK_OP_BUILD = 'b',
    CPK_OP_GLOBAL = 'c',
    CPK_OP_DICT = 'd',
    CPK_OP_EMPTY_DICT = '}',
    CPK_OP_APPENDS = 'e',
    CPK_OP_GET = 'g',
    CPK_OP_BINGET = 'h',
    CPK_OP_INST = 'i',
    CPK_OP_LONG_BINGET = 'j',
    CPK_OP_LIST = 'l',
    CPK_OP_EMPTY_LIST = ']',
    CPK_OP_OBJ = 'o',
    CPK_OP_PUT = 'p',
    CPK_OP_BINPUT = 'q',
    CPK_OP_LONG_BINPUT = 'r',
    CPK_OP_SETITEM = 's',
    CPK_OP_TUPLE = 't',
    CPK_OP_EMPTY_TUPLE = ')',
    CPK_OP_SETITEMS = 'u',
    CPK_OP_BINFLOAT = 'G',

    /* Protocol 2 */
    CPK_OP_PROTO = 0x80,
    CPK_OP_NEWOBJ = 0x81,
    CPK_OP_EXT1 = 0x82,
    CPK_OP_EXT2 = 0x83,
    CPK_OP_EXT4 = 0x84,
    CPK_OP_TUPLE1 = 0x85,
    CPK_OP_TUPLE2 = 0x86,
    CPK_OP_TUPLE3 = 0x87,
    CPK_OP_NEWTRUE = 0x88,
    CPK_OP_NEWFALSE = 0x89,
    CPK_OP_LONG1 = 0x8a,
    CPK_OP_LONG4 = 0x8b,

    /* Protocol 3 */
    CPK_OP_BINBYTES = 'B',
    CPK_OP_SHORT_BINBYTES = 'C',

    /* Protocol 4 */
    CPK_OP_SHORT_BINUNICODE = 0x8c,
    CPK_OP_BINUNICODE8 = 0x8d,
    CPK_OP_BINBYTES8 = 0x8e,
    CPK_OP_EMPTY_SET = 0x8f,
    CPK_OP_ADDITEMS = 0x90,
    CPK_OP_FROZENSET = 0x91,
    CPK_OP_NEWOBJ_EX = 0x92,
    CPK_OP_STACK_GLOBAL = 0x93,
    CPK_OP_MEMOIZE = 0x94,
    CPK_OP_FRAME = 0x95,

    /* Protocol 5 */
    CPK_OP_BYTEARRAY8 = 0x96,
    CPK_OP_NEXT_BUFFER = 0x97,
    CPK_OP_READONLY_BUFFER = 0x98,
};

#endif /* CPK_COMMON_PICKLE_OPS_H */
