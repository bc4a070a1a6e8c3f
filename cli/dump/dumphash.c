/* dumphash.c - the --hash line of cloudpickle-dump (dumphash.h), with
 * OpenSSL's libcrypto, which signing (src/scan/envelope.c) links already. */
#include "dump/dumphash.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

int
cpk_sha256_hex(const void *data, size_t len, char hex[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    if (EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL) != 1 ||
        mdlen != 32)
        return -1;
    static const char digits[] = "0123456789abcdef";
    for (unsigned int i = 0; i < mdlen; i++) {
        hex[2 * i] = digits[md[i] >> 4];
        hex[2 * i + 1] = digits[md[i] & 15];
    }
    hex[64] = '\0';
    return 0;
}

void
cpk_hash_line(FILE *out, const char hex[65], const char *name)
{
    /* GNU coreutils' sha256sum: such a name is escaped and the line
     * marked with a leading backslash; `sha256sum -c` undoes it. */
    int escape = strpbrk(name, "\\\n\r") != NULL;
    if (escape)
        fputc('\\', out);
    fputs(hex, out);
    fputs("  ", out);
    for (const char *s = name; *s != '\0'; s++) {
        if (escape && *s == '\\')
            fputs("\\\\", out);
        else if (escape && *s == '\n')
            fputs("\\n", out);
        else if (escape && *s == '\r')
            fputs("\\r", out);
        else
            fputc(*s, out);
    }
    fputc('\n', out);
}
