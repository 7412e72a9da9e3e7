/* fuzz_table.c — libFuzzer harness of the tuning-table reader and the C header
 * writer (results/table.c, results/header.c): the input is a table file; what
 * reads is exported as a header, and an error is one line naming the file. */
#define _GNU_SOURCE /* open_memstream, memmem */
#include "fuzz.h"

#include "results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fz_path(0, "table.csv");
    fz_write(path, data, size);
    rs_entry *e = NULL;
    size_t n = 0;
    rs_signature sig;
    char err[1024];
    if (!rs_table_read(path, &e, &n, &sig, err, sizeof err)) {
        FZ_CHECK(e == NULL);
        FZ_CHECK(strstr(err, path) && !strchr(err, '\n'));
        return 0;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    FZ_CHECK(f != NULL);
    FZ_CHECK(rs_header_write(f, e, n, &sig));
    FZ_CHECK(fclose(f) == 0);
    /* whole: text only, closed by the include guard's #endif */
    static const char end[] = "\n#endif\n";
    FZ_CHECK(len > sizeof end && memcmp(text + len - (sizeof end - 1), end, sizeof end - 1) == 0);
    FZ_CHECK(!memchr(text, '\0', len));
    free(text);
    free(e);
    return 0;
}
