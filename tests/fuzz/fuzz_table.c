/* fuzz_table.c — libFuzzer harness of the tuning-table reader and the C header
 * writer (results/table.c, results/header.c): the input is a table file; what
 * reads is exported as a header (its target, if described, a checked one), and
 * an error is one line naming the file. */
#define _GNU_SOURCE /* open_memstream, memmem */
#include "fuzz.h"

#include "results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fz_path(0, "table.csv");
    fz_write(path, data, size);
    rs_table t;
    char err[1024];
    if (!rs_table_read(path, &t, err, sizeof err)) {
        FZ_CHECK(t.e == NULL && t.n == 0 && !t.has_target);
        FZ_CHECK(strstr(err, path) && !strchr(err, '\n'));
        return 0;
    }
    /* the target a table describes passed the checks of a script's target */
    if (t.has_target)
        FZ_CHECK(sp_target_check(&t.target, err, sizeof err));
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    FZ_CHECK(f != NULL);
    FZ_CHECK(rs_header_write(f, &t));
    FZ_CHECK(fclose(f) == 0);
    /* whole: text only, closed by the include guard's #endif */
    static const char end[] = "\n#endif\n";
    FZ_CHECK(len > sizeof end && memcmp(text + len - (sizeof end - 1), end, sizeof end - 1) == 0);
    FZ_CHECK(!memchr(text, '\0', len));
    free(text);
    rs_table_free(&t);
    return 0;
}
