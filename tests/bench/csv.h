/* csv.h — reading the CSVs npu-tune writes (journals, tables) in the benchmarks:
 * a file read row by row with its columns found by name, a config. */
#ifndef NPU_TUNE_BENCH_CSV_H
#define NPU_TUNE_BENCH_CSV_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "space.h"

/* Splits line at commas in place into at most max fields (the line end
 * dropped); returns the count. */
static inline int csv_split(char *line, char **field, int max)
{
    int n = 0;
    line[strcspn(line, "\r\n")] = 0;
    for (char *p = line; n < max;) {
        field[n++] = p;
        char *comma = strchr(p, ',');
        if (!comma)
            break;
        *comma = 0;
        p = comma + 1;
    }
    return n;
}

/* True for a line to skip: a '#' signature line or a blank one. */
static inline bool csv_skip(const char *line)
{
    return line[0] == '#' || line[strspn(line, " \t\r\n")] == 0;
}

/* col[i] = the index of the header field named names[i], for each of the n
 * names; false, naming the first column missing from the header of path
 * (on stderr, after `who`), if one is. */
static inline bool csv_columns(char *const *field, int nf, const char *const *names, int n,
                               int *col, const char *who, const char *path)
{
    for (int i = 0; i < n; i++) {
        col[i] = -1;
        for (int j = 0; j < nf; j++)
            if (strcmp(field[j], names[i]) == 0)
                col[i] = j;
        if (col[i] < 0) {
            fprintf(stderr, "%s: %s: no column '%s' in the header\n", who, path, names[i]);
            return false;
        }
    }
    return true;
}

/* Called per data row with the fields of the columns asked for ("" for a
 * short row), in order; false stops the reading (after its own message). */
typedef bool (*csv_row_fn)(void *ctx, const char *const *v, const char *path, int lineno);

/* Reads the CSV at path ('#' lines skipped, then a header, then rows),
 * calling row for each row with the columns named names[0..n). False with
 * a message on stderr (after `who`) if the file cannot be read, lacks one of
 * the columns or its header, or row stops it. */
static inline bool csv_read(const char *path, const char *who, const char *const *names, int n,
                            csv_row_fn row, void *ctx)
{
    enum { MAXF = 64, MAXN = 32 };
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: cannot open '%s': %s\n", who, path, strerror(errno));
        return false;
    }
    char line[4096], *field[MAXF];
    const char *v[MAXN];
    int col[MAXN], lineno = 0;
    bool header = false, ok = n <= MAXN;
    while (ok && fgets(line, sizeof line, f)) {
        lineno++;
        if (csv_skip(line))
            continue;
        int nf = csv_split(line, field, MAXF);
        if (!header) {
            ok = csv_columns(field, nf, names, n, col, who, path);
            header = true;
            continue;
        }
        for (int i = 0; i < n; i++)
            v[i] = col[i] < nf ? field[col[i]] : "";
        ok = row(ctx, v, path, lineno);
    }
    fclose(f);
    if (ok && !header) {
        fprintf(stderr, "%s: %s: no header\n", who, path);
        ok = false;
    }
    return ok;
}

/* "STRATEGY m n k db cores split MRxNR" (a row's config columns joined by
 * spaces, or a --config argument) into c; false if it does not read. */
static inline bool csv_config(const char *s, sp_config *c)
{
    char st[8], sp[8];
    int m, n, k, db, cores, mr, nr;
    if (sscanf(s, "%7s %d %d %d %d %d %7s %dx%d", st, &m, &n, &k, &db, &cores, sp, &mr, &nr) != 9)
        return false;
    int strategy = sp_strategy_parse(st), split = sp_split_parse(sp);
    if (strategy < 0 || split < 0 || mr < 1 || mr > 255 || nr < 1 || nr > 255)
        return false;
    *c = (sp_config){.m = m, .n = n, .k = k, .cores = cores, .strategy = (uint8_t)strategy,
                     .double_buffer = (uint8_t)(db != 0), .split = (uint8_t)split,
                     .mr = (uint8_t)mr, .nr = (uint8_t)nr};
    return true;
}

#endif
