/* closed_table_json.c - prints the closed table (src/scan/pkscan_table.c)
 * as JSON on standard output, one object per row, for the Python check
 * tests/unit/py/closed_table/check.py, which any supported CPython can run
 * over it (test_closed_table.c does, with the build's). */
#include <stdio.h>

#include "scan/pkscan_internal.h" /* pkscan_table_rows */

static const char *kind(int k)
{
    return k == PKT_NEW ? "new" : k == PKT_VALUE ? "value" : "opaque";
}

int main(void)
{
    size_t n;
    const pkscan_closed *r = pkscan_table_rows(&n);
    /* names are identifiers and dots: no JSON escaping needed (the check
     * parses the output, so anything else fails it) */
    printf("[\n");
    for (size_t i = 0; i < n; i++) {
        printf("{\"module\": \"%s\", \"name\": \"%s\", \"call\": \"%s\", "
               "\"new\": \"%s\", \"shares\": [",
               r[i].module, r[i].name, kind(r[i].call), kind(r[i].newf));
        const char *sep = "";
        for (int k = 0; k < 8; k++)
            if (r[i].shares & (1u << k)) {
                printf("%s%d", sep, k);
                sep = ", ";
            }
        printf("], \"writes0\": %s, \"bounded\": %s, \"dispatch\": %s}%s\n",
               r[i].flags & PKT_WRITES0 ? "true" : "false",
               r[i].flags & PKT_BOUNDED ? "true" : "false",
               r[i].flags & PKT_DISPATCH ? "true" : "false",
               i + 1 < n ? "," : "");
    }
    printf("]\n");
    return fflush(stdout) != 0 || ferror(stdout) ? 1 : 0;
}
