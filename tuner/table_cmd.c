/* table_cmd.c — `npu-tune table export TABLE.csv -o FILE.h`: a tuning table as a
 * self-contained C header that the user's code includes to pick its configs. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "results.h"
#include "tuner.h"

static const char usage_text[] = "usage: npu-tune table export TABLE.csv -o FILE.h\n";

__attribute__((format(printf, 1, 2)))
static int usage(const char *fmt, ...)
{
    char why[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return tn_usage("table", usage_text, why);
}

static bool write_header(FILE *f, void *table) { return rs_header_write(f, table); }

/* argv[0] is "table", argv[1] the subcommand. */
int tn_table(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
        return tn_usage("table", usage_text, NULL);
    if (argc < 2)
        return usage("%s", "a subcommand is required (export)");
    if (strcmp(argv[1], "export") != 0)
        return usage("unknown subcommand '%s' (subcommands: export)", argv[1]);
    const char *table = NULL, *out = NULL;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (i + 1 >= argc)
                return usage("%s needs a FILE.h", a);
            out = argv[++i];
        } else if (strncmp(a, "--output=", 9) == 0) {
            out = a + 9;
        } else if (strncmp(a, "-o", 2) == 0) {
            out = a + 2;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            return tn_usage("table", usage_text, NULL);
        } else if (a[0] == '-' && a[1]) {
            return usage("unknown option '%s'", a);
        } else if (table) {
            return usage("export takes one TABLE.csv; '%s' is one too many", a);
        } else {
            table = a;
        }
    }
    if (!table)
        return usage("%s", "export needs a TABLE.csv");
    if (!out || !*out)
        return usage("%s", "export needs -o FILE.h");
    rs_table tab;
    char err[1024];
    if (!rs_table_read(table, &tab, err, sizeof err)) {
        tn_error("%s", err);
        return TN_ERROR;
    }
    const bs_file files[] = {{"table", table, false}, {"header", out, true}};
    bool ok = bs_paths_distinct(files, 2, err, sizeof err) &&
              bs_write_atomic(out, write_header, &tab, err, sizeof err);
    rs_table_free(&tab);
    if (!ok) {
        tn_error("%s", err);
        return TN_ERROR;
    }
    return TN_OK;
}
