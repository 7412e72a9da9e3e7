/* internal.h — what the results files share: row formatting and parsing (csv.c),
 * the journal's lookup cache (cache.c) and a rank correlation (rank.c). */
#ifndef NPU_TUNE_RESULTS_INTERNAL_H
#define NPU_TUNE_RESULTS_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "results.h"

/* The values the columns of the journal and the table hold. */
typedef enum {
    RS_PROBLEM, RS_M, RS_N, RS_K, RS_BATCH, RS_DTYPE, RS_TARGET, RS_STRATEGY, RS_TILE_M,
    RS_TILE_N, RS_TILE_K, RS_DOUBLE_BUFFER, RS_CORES, RS_SPLIT, RS_LOAD, RS_EST, RS_BACKEND,
    RS_STATUS, RS_MEASURED, RS_UNIT, RS_MICRO, RS_ROUND, RS_VERIFIED, RS_OP, RS_SHAPE, RS_NODE,
    RS_PACK, RS_NFIELDS
} rs_field;

/* The columns of one file, in order: its header line, the checks of its
 * rows and the plot's lookups are made from them (csv.c). A column is added
 * at the end: an older file has the first ones (a journal without op, from
 * before ops; a table of format 2 without op, of format 1 without verified
 * either), and its rows are read as of the default op. */
typedef struct {
    const rs_field *field;
    int n;
} rs_columns;
extern const rs_columns rs_journal_columns, rs_table_columns;

/* The column name of value f ("problem", "M", ..., "est_cycles"). */
const char *rs_field_name(rs_field f);

/* The header line of the first n columns of c (names joined by commas, and
 * a newline) into buf, like snprintf: returns the length it needs. */
size_t rs_header(char *buf, size_t len, const rs_columns *c, int n);
enum { RS_HEADER_MAX = 512 }; /* room for either file's header line */

/* Checks that the row's strings can go into the CSV (bs_csv_safe); false with
 * "cannot write a row of problem 'x': ..." in err otherwise. */
bool rs_row_check(const rs_row *r, char *err, size_t errlen);

/* Formats one row of the first n columns of cols with its newline into buf,
 * like snprintf: returns the length it needs, whatever len is. */
size_t rs_format_row(char *buf, size_t len, const rs_row *r, const rs_columns *cols, int n);

/* Parses one line (no newline; modified in place) of the first n columns of
 * cols into e. False with "PATH:LINE: ..." in err if a field is malformed. */
bool rs_parse_row(char *line, const rs_columns *cols, int n, rs_entry *e, const char *path,
                  long lineno, char *err, size_t errlen);

/* The shape distance of the table lookup: the product over M, N, K and batch
 * of max(a, b) / min(a, b), in this order (monotone in the sum of
 * |ln a/b|; the generated header computes it the same way). */
double rs_shape_distance(const sp_problem *a, const sp_problem *b);

/* An empty cache, and adding an entry to it (replacing the entry of the same
 * problem and config); NULL / false when memory runs out. */
rs_cache *rs_cache_new(void);
bool rs_cache_put(rs_cache *c, const rs_entry *e);

/* The model's estimate of a journal row: its estimated cycles, or its load
 * volume (by_load) (fidelity.c). */
double rs_estimate(const rs_entry *e, bool by_load);

/* Kendall's tau-b of x[i] and y[i], i < n, in O(n log n): (concordant -
 * discordant pairs) / sqrt((pairs - pairs tied in x)(pairs - pairs tied in
 * y)), so ties in either sample count as neither (rank.c). *tau is NaN when
 * n < 2 or either sample is all one value; false if memory ran out. */
bool rs_kendall_tau_b(const double *x, const double *y, size_t n, double *tau);

#endif
