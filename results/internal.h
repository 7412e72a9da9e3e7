/* internal.h — row formatting shared by the journal and the table writers. */
#ifndef NPU_TUNE_RESULTS_INTERNAL_H
#define NPU_TUNE_RESULTS_INTERNAL_H

#include <stdio.h>

#include "results.h"

void rs_write_journal_row(FILE *f, const rs_row *r);
void rs_write_table_row(FILE *f, const rs_row *r);

#endif
