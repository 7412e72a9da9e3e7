/* internal.h — what the tuner's own files share: the state of a tuning run
 * and its progress reporting. */
#ifndef NPU_TUNE_TUNER_INTERNAL_H
#define NPU_TUNE_TUNER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "measure.h"
#include "results.h"
#include "script.h"
#include "tuner.h"

#ifndef NPU_TUNE_VERSION
#define NPU_TUNE_VERSION "0"
#endif

/* Candidates a search is asked for at once: the unit of parallel measurement.
 * Fixed (not the thread count) so that a run does not depend on threads. */
#define TN_BATCH 8

typedef struct {
    ls_script *script;
    ms_backend *backend;
    rs_journal *journal;
    rs_cache *cache;
    unsigned long seed;
    int quiet, csv;
    size_t np;                  /* problems */
    const sp_problem *problem;  /* the one being tuned */
    /* progress */
    int tty, drawn;
    double t0, last;
    size_t done_before;         /* measurements of finished problems */
    /* backends that time real hardware: the machine's peak, measured once
     * before tuning */
    bool have_peak;
    ms_peak peak;
} tn_session;

/* How the commands show each kind of target (kinds.c). */
typedef struct {
    int config_width;       /* a run's summary: columns of a config (config_text) */
    sp_order order;         /* model: what ranks the best blocks per strategy */
    const char *best;       /* model: the heading of the best per strategy */
    const char *winner;     /* model: the line naming the best of them */
    /* model --tile: the config with its grid, and the model's figures but
     * the estimated time */
    void (*config)(const tn_request *r, const sp_figures *f);
    void (*figures)(const tn_request *r, const sp_figures *f);
} tn_kind;

/* How the commands show targets of t's kind. */
const tn_kind *tn_kind_of(const sp_target *t);

/* Progress on stderr: a line redrawn in place on a terminal, plain lines
 * every few seconds otherwise, nothing with --quiet. */
void tn_progress_start(tn_session *r);
void tn_progress(tn_session *r, size_t problem, size_t measured, size_t budget, double best);
/* A problem finished after `measured` measurements (for rate and ETA). */
void tn_progress_done(tn_session *r, size_t measured);
void tn_progress_end(tn_session *r);

#endif
