/* marshal_codes.h - the type codes of CPython's marshal format, the bytes
 * of code objects (CPK_MC_<NAME> for marshal.c's TYPE_<NAME>). Pure C, no
 * Python: the static scanner and the code writers share it. */
#ifndef CPK_COMMON_MARSHAL_CODES_H
#define CPK_COMMON_MARSHAL_CODES_H

enum cpk_marshal_code {
    CPK_MC_NULL = '0',
    CPK_MC_NONE = 'N',
    CPK_MC_FALSE = 'F',
    CPK_MC_TRUE = 'T',
    CPK_MC_STOPITER = 'S',
    CPK_MC_ELLIPSIS = '.',
    CPK_MC_INT = 'i',
    CPK_MC_FLOAT = 'f',
    CPK_MC_BINARY_FLOAT = 'g',
    CPK_MC_COMPLEX = 'x',
    CPK_MC_BINARY_COMPLEX = 'y',
    CPK_MC_LONG = 'l',
    CPK_MC_STRING = 's',
    CPK_MC_INTERNED = 't',
    CPK_MC_REF = 'r',
    CPK_MC_TUPLE = '(',
    CPK_MC_LIST = '[',
    CPK_MC_DICT = '{',
    CPK_MC_CODE = 'c',
    CPK_MC_UNICODE = 'u',
    CPK_MC_UNKNOWN = '?',
    CPK_MC_SET = '<',
    CPK_MC_FROZENSET = '>',
    CPK_MC_ASCII = 'a',
    CPK_MC_ASCII_INTERNED = 'A',
    CPK_MC_SMALL_TUPLE = ')',
    CPK_MC_SHORT_ASCII = 'z',
    CPK_MC_SHORT_ASCII_INTERNED = 'Z',
    CPK_MC_SLICE = ':', /* marshal version 5 (3.14) */

    /* Or'ed into a type code: the object gets the next reference slot. */
    CPK_MC_FLAG_REF = 0x80,
    /* A code byte's type code, without CPK_MC_FLAG_REF. */
    CPK_MC_TYPE_MASK = 0x7f,
};

#endif /* CPK_COMMON_MARSHAL_CODES_H */
