/* search_drive.h — the ask/tell loop the tuner runs, for the search tests and
 * bench: ask up to 8, measure each, tell in the asked order, until done. */
#ifndef NPU_TUNE_SEARCH_DRIVE_H
#define NPU_TUNE_SEARCH_DRIVE_H

#include "search.h"

#define DRIVE_BATCH 8

/* A measurement: 1 and *value when it worked, 0 when it failed. */
typedef int (*drive_measure)(void *ctx, size_t idx, double *value);

/* Runs s to its end (it returns 0 or `budget` tells happened); the asked
 * indices go to seq (room for budget). Returns how many were told. */
static inline size_t drive(tn_search *s, size_t budget, drive_measure measure, void *ctx,
                           size_t *seq)
{
    size_t idx[DRIVE_BATCH], told = 0;
    while (told < budget) {
        size_t want = budget - told < DRIVE_BATCH ? budget - told : DRIVE_BATCH;
        size_t n = tn_search_ask(s, idx, want);
        if (n == 0)
            break;
        for (size_t i = 0; i < n; i++) {
            double v = 0;
            int ok = measure(ctx, idx[i], &v);
            tn_search_tell(s, idx[i], ok, v);
            seq[told++] = idx[i];
        }
    }
    return told;
}

#endif
