/* results.h — the files a run leaves behind: the measurement journal (CSV, a
 * row appended and flushed per measurement) and the tuning table (CSV, whole). */
#ifndef NPU_TUNE_RESULTS_H
#define NPU_TUNE_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "space.h"

/* One row of either file: a measured candidate of a problem on a target. */
typedef struct {
    const sp_problem *problem;
    const char *target;
    const sp_candidate *cand;
    const char *backend;
    const char *status;   /* "ok", "wrong", ... */
    double measured;      /* in unit; ignored unless status is "ok" */
    const char *unit;     /* "cycles" or "s" */
} rs_row;

/* The column lists of DESIGN.md section 7, comma-separated. */
extern const char rs_journal_header[];
extern const char rs_table_header[];

typedef struct rs_journal rs_journal;

/* Creates (or truncates) the journal at path, making missing parent
 * directories, and writes the header. NULL with a one-line reason in err. */
rs_journal *rs_journal_create(const char *path, char *err, size_t errlen);

/* Appends one row and flushes it to the OS. False with a reason in err. */
bool rs_journal_append(rs_journal *j, const rs_row *row, char *err, size_t errlen);

/* Closes the journal; false (reason in err) if the last writes failed. */
bool rs_journal_close(rs_journal *j, char *err, size_t errlen);

/* Writes the table (header + rows) to a temporary file beside path and
 * renames it over path, so readers never see half a table. */
bool rs_table_write(const char *path, const rs_row *rows, size_t n, char *err, size_t errlen);

/* Writes a file through write(f, ctx) into a temporary file beside path,
 * then renames it over path; false with a one-line reason in err. */
bool rs_write_atomic(const char *path, bool (*write)(FILE *f, void *ctx), void *ctx, char *err,
                     size_t errlen);

/* Makes the parent directories of path (like mkdir -p of its dirname). */
bool rs_make_parents(const char *path, char *err, size_t errlen);

#endif
