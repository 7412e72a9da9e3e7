/* internal.h — what the results files share: row formatting and parsing (csv.c)
 * and the journal's lookup cache (cache.c). */
#ifndef NPU_TUNE_RESULTS_INTERNAL_H
#define NPU_TUNE_RESULTS_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "results.h"

/* Column counts of the two CSV files (the table's of its format 2; format 1
 * lacks the last, verified). */
enum { RS_JOURNAL_COLUMNS = 22, RS_TABLE_COLUMNS = 18 };

/* True if s is non-empty and has no comma, quote or line break: a value the
 * unquoted CSV files can hold. */
bool rs_csv_safe(const char *s);

/* Checks that the row's strings can go into the CSV (rs_csv_safe); false with
 * "cannot write a row of problem 'x': ..." in err otherwise. */
bool rs_row_check(const rs_row *r, char *err, size_t errlen);

/* Formats one row (journal or table columns) with its newline into buf, like
 * snprintf: returns the length it needs, whatever len is. */
size_t rs_format_row(char *buf, size_t len, const rs_row *r, bool journal);

/* Parses one line (no newline; modified in place) of a journal or a table
 * into e. False with "PATH:LINE: ..." in err if a field is malformed. */
bool rs_parse_row(char *line, bool journal, rs_entry *e, const char *path, long lineno,
                  char *err, size_t errlen);

/* rs_parse_row of a table row of the given format (1 or 2). */
bool rs_parse_table_row(char *line, int format, rs_entry *e, const char *path, long lineno,
                        char *err, size_t errlen);

/* The shape distance of the table lookup: the product over M, N, K and batch
 * of max(a, b) / min(a, b), in this order (monotone in the sum of
 * |ln a/b|; the generated header computes it the same way). */
double rs_shape_distance(const sp_problem *a, const sp_problem *b);

/* An empty cache, and adding an entry to it (replacing the entry of the same
 * problem and config); NULL / false when memory runs out. */
rs_cache *rs_cache_new(void);
bool rs_cache_put(rs_cache *c, const rs_entry *e);

#endif
