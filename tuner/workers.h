/* workers.h — a run spread over the ranks of an MPI job: rank 0 tunes and
 * hands batches of candidates to the other ranks, which measure them
 * (launch.c joins the job, workers.c is rank 0's side, worker.c the others',
 * wire.c the messages between them). Alone, the same calls measure here. */
#ifndef NPU_TUNE_TUNER_WORKERS_H
#define NPU_TUNE_TUNER_WORKERS_H

#include <stdint.h>

#include "base.h"
#include "internal.h"

/* Hears of each measurement as it completes, with the node that measured it. */
typedef void (*tn_done_fn)(void *ctx, size_t i, const ms_measurement *m, const char *node);

/* Joins the job through t (a launcher started this process as one of its
 * ranks): true on rank 0, which tunes with *w its workers (NULL when the job
 * has one rank); false on the others once rank 0 is done with them, or when
 * joining failed (said), with the exit status in *rc. */
bool tn_workers_join(const tn_transport *t, tn_workers **w, int *rc);

/* Hands the workers what they measure with (the target, the backend and its
 * settings, the unit the journal fixed) and waits for each to open its
 * backend; false with a reason naming the rank and node of the first that
 * could not. Nothing to do alone (r->workers NULL). */
bool tn_workers_setup(tn_session *r, const ms_settings *s, char *err, size_t errlen);

/* Tells the workers to stop and leaves the job (w may be NULL). */
void tn_workers_close(tn_workers *w);

/* Measures c[0..n) of problem p into out[0..n): alone with the backend (in
 * parallel when it allows), else on the workers, each asking for more as it
 * finishes. done hears of each on this thread as its result arrives. */
void tn_measure(tn_session *r, const sp_problem *p, const sp_candidate *c, size_t n,
                ms_measurement *out, tn_done_fn done, void *ctx);

/* The backend's final (side by side, in one process: on one worker), verify
 * and peak, where the measurements are taken; *node: who took them. */
void tn_final(tn_session *r, const sp_problem *p, const sp_candidate *c, size_t n,
              ms_measurement *out, const char **node);
void tn_verify(tn_session *r, const sp_problem *p, const sp_candidate *c, ms_measurement *m,
               const char **node);
bool tn_peak(tn_session *r, ms_peak *out);

/* This machine's name as the journal's node column holds it: the host
 * name, with any character outside A-Z a-z 0-9 . _ - as '_'. */
void tn_node_name(char *out, size_t len);

/* What kind of node this is (hs_node_signature): nodes whose hardware is
 * timed must be of one kind. */
#define TN_SIG_MAX 320
void tn_node_signature(char *out, size_t len);

/* ---- the messages (wire.c) ---- */

/* What a message is: its first byte. */
enum { TN_SETUP = 1, TN_HELLO, TN_JOB, TN_DONE, TN_STOP };
/* What a job asks. */
enum { TN_MEASURE = 1, TN_FINAL, TN_VERIFY, TN_PEAK };

/* A message being written (its bytes in s); oom once memory ran out. */
typedef bs_buf tn_out;

/* A message being read; bad once it ended early or held nonsense. */
typedef struct {
    const unsigned char *b;
    size_t len, at;
    bool bad;
} tn_in;

void tn_put(tn_out *o, const void *p, size_t n);
void tn_put_u32(tn_out *o, uint32_t v);
void tn_put_str(tn_out *o, const char *s); /* NULL as "" */
void tn_put_measurement(tn_out *o, const ms_measurement *m);

/* Each false (and in->bad) when the message has not that much left or the
 * value is out of range. */
bool tn_get(tn_in *in, void *p, size_t n);
bool tn_get_u32(tn_in *in, uint32_t *v);
bool tn_get_str(tn_in *in, char *out, size_t size);
char *tn_get_dup(tn_in *in); /* malloc'd; NULL (bad, or out of memory) */
bool tn_get_measurement(tn_in *in, ms_measurement *m);

/* The build's mark, first in the setup: ranks of other builds (another
 * version or other struct layouts) cannot work together. */
void tn_put_build(tn_out *o);
bool tn_get_build(tn_in *in, char *why, size_t len);

/* A worker's loop (worker.c): takes rank 0's messages until it says stop;
 * returns the process's exit status. */
int tn_worker(const tn_transport *t);

#endif
