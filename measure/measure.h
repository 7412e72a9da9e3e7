/* measure.h — the measurement backends (model, sim, host, command): the interface
 * each implements, opening one by name, measuring a batch of candidates with it. */
#ifndef NPU_TUNE_MEASURE_H
#define NPU_TUNE_MEASURE_H

#include <stdbool.h>
#include <stddef.h>

#include "measurement.h"
#include "space.h"

/* The interface: exported, where the library's other symbols are hidden (cmake/library.cmake). */
#pragma GCC visibility push(default)

typedef struct ms_backend ms_backend;

/* A machine's peak as a backend that times real hardware measures it, so
 * that a run can give each winner's share of it. */
typedef struct {
    double gflops_core, gflops_all; /* peak GFLOP/s of one core, of all cores */
    double lost;                    /* share of a running thread's time it does not get */
    char text[320];                 /* the figures in one line, for the run's summary */
} ms_peak;

/* A measurement backend. measure() must be safe to call concurrently on
 * different candidates when `parallel` is set. */
struct ms_backend {
    const char *name;
    const char *unit; /* "cycles" or "s" */
    bool parallel;
    bool checked;     /* measure() checks every result against a reference itself */
    bool hardware;    /* times real hardware (this machine, or a board it drives): its
                       * figures belong to the node that took them, and the model's
                       * default figures only guess at them, so tune { calibrate } is
                       * on unless the script says */
    void (*measure)(ms_backend *b, const sp_target *t, const sp_problem *p,
                    const sp_candidate *c, ms_measurement *out);
    /* Optional: measures n candidates at once (e.g. one compile for all),
     * calling done as each completes; used by ms_measure_all when set. */
    void (*measure_batch)(ms_backend *b, const sp_target *t, const sp_problem *p,
                          const sp_candidate *c, size_t n, ms_measurement *out,
                          ms_done_fn done, void *ctx);
    /* Optional: times n candidates side by side (calls interleaved in one
     * process) into out[0..n), so that drift of the machine between their
     * separate measurements does not pick the winner. */
    void (*final)(ms_backend *b, const sp_target *t, const sp_problem *p, const sp_candidate *c,
                  size_t n, ms_measurement *out);
    /* Optional: checks the candidate's result against a reference (slower
     * than measure); turns an ok measurement into wrong/crash/illegal/timeout. */
    void (*verify)(ms_backend *b, const sp_target *t, const sp_problem *p,
                   const sp_candidate *c, ms_measurement *out);
    /* Optional: measures the machine's peak (about a second; once, before
     * tuning); false when it could not. Its backend measures in seconds. */
    bool (*peak)(ms_backend *b, ms_peak *out);
    void (*close)(ms_backend *b);
    void *state;
};

/* Names of the backends this build has, NULL-terminated. */
extern const char *const ms_backend_names[];

/* What some backends need: the command backend's template and timeout. */
typedef struct {
    const char *command;  /* template: {kernel} {M} {N} {K} {batch} {shape} {target}
                           * {inputs} {output} */
    double timeout;       /* seconds per candidate */
    const char *workdir;  /* where kernel files go (created if missing) */
    bool no_verify;       /* command: the board cannot return C (tune { verify = false }):
                           * no {output} needed, no verify */
} ms_settings;

/* Opens backend `name` (settings may be NULL for backends that need none);
 * NULL with a one-line reason in err otherwise. */
ms_backend *ms_open(const char *name, const ms_settings *settings, char *err, size_t errlen);

/* Measures n candidates into out[0..n), in parallel when the backend allows;
 * done (may be NULL) hears of each as it completes. */
void ms_measure_all(ms_backend *b, const sp_target *t, const sp_problem *p,
                    const sp_candidate *c, size_t n, ms_measurement *out, ms_done_fn done,
                    void *ctx);

/* Fixes the unit b measures in ("cycles" or "s", as a resumed journal's rows
 * say) before it measures anything: a backend that learns its unit from its
 * first answer (command) takes it, and an answer in the other unit then
 * fails that candidate ("mixed units"); the others measure in their own.
 * False if b does not measure in unit. */
bool ms_backend_fix_unit(ms_backend *b, const char *unit);

void ms_close(ms_backend *b);

#pragma GCC visibility pop

#endif
