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

/* Candidates a search is asked for at once: the unit of parallel measurement.
 * Fixed (not the thread count) so that a run does not depend on threads. */
#define TN_BATCH 8
/* Candidates a blind search (tn_search_blind) is asked for at once: enough
 * that a step keeps thousands of workers busy and its slowest candidate
 * hardly delays the next step. */
#define TN_BATCH_BLIND 4096

/* The prior's sd (rs_fit_opts.prior) of the refits during a run: a run's
 * first rows are few and alike (the model's own top picks), and unheld they
 * drove a host target's clock to 21 GHz and its load_stall to 5 cycles. */
#define TN_REFIT_PRIOR 0.5

typedef struct tn_fits tn_fits;

/* The other ranks of an MPI job, as rank 0 sees them (workers.h). */
typedef struct tn_workers tn_workers;

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
    tn_fits *fits;              /* tune { calibrate }: the refits, NULL when off */
    /* under a launcher: the ranks that measure (NULL: this process does) */
    tn_workers *workers;
    char node[64];              /* the node column of what this process measures */
} tn_session;

/* ---- tune { calibrate = true } (fits.c) ---- */

/* The refits of a run whose journal is at `journal` (signed sig; resumed:
 * it had rows), each starting from the script's target `start`. The record
 * JOURNAL.fit (none for a journal written through) is read when resumed and
 * is this journal's (a torn last line cut off; a malformed line is an error
 * "PATH:LINE: ..."), else started afresh at the first fit. */
tn_fits *tn_fits_open(const char *journal, const rs_signature *sig, bool resumed,
                      const sp_target *start, char *err, size_t errlen);

/* After a batch: candidates idx[0..n) of cands, problem p (the run's
 * problem-th), were measured into ms[idx[i]] in unit; told counts the
 * problem's candidates told so far. The ok ones join the run's rows; the
 * figures the record holds for (problem, told) are taken, else the model is
 * refitted (rs_calibrate, all rows, none held out) once the rows reach 2 per
 * free figure of the kind and have grown by a quarter (at least a batch)
 * since the last fit; a fit is taken when it ranks those rows at least as
 * well as the script's figures, else the script's figures are, and the
 * figures taken are recorded. *changed: the figures in use changed. A fit
 * that fails changes nothing; false only when the record cannot be written
 * or memory ran out. */
bool tn_fits_batch(tn_fits *f, size_t problem, size_t told, const sp_problem *p,
                   const sp_candidate *cands, const size_t *idx, size_t n,
                   const ms_measurement *ms, const char *unit, bool *changed, char *err,
                   size_t errlen);

/* The figures in use; how many fits were taken and how many not (ranking
 * the rows worse than the script's figures; 0 for NULL); the record's path
 * (NULL: none). */
const sp_target *tn_fits_target(const tn_fits *f);
size_t tn_fits_count(const tn_fits *f);
size_t tn_fits_refused(const tn_fits *f);
const char *tn_fits_path(const tn_fits *f);

/* The model's figures of c[0..n) (configs of p) at the figures in use. */
void tn_fits_rank(const tn_fits *f, const sp_problem *p, sp_candidate *c, size_t n);

void tn_fits_close(tn_fits *f);

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

/* Joins the job a launcher (mpirun, srun) started this process in, if any:
 * true when this process goes on to tune, with *w the ranks that measure
 * (NULL: it measures itself); false when it is done (a worker, once rank 0
 * let it go) or must not run (said), with its exit status in *rc. */
bool tn_join(tn_workers **w, int *rc);

#endif
