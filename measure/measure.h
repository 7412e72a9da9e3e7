/* measure.h — measurements and the backends that take them. The model backend
 * is here now; the simulator, the host CPU and a board command plug in alike. */
#ifndef NPU_TUNE_MEASURE_H
#define NPU_TUNE_MEASURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "codegen.h"
#include "measurement.h"
#include "space.h"

typedef struct ms_backend ms_backend;

/* A measurement backend. measure() must be safe to call concurrently on
 * different candidates when `parallel` is set. */
struct ms_backend {
    const char *name;
    const char *unit; /* "cycles" or "s" */
    bool parallel;
    bool checked;     /* measure() checks every result against a reference itself */
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
    void (*close)(ms_backend *b);
    void *state;
};

/* ---- the host CPU (host.c, ...) ---- */

/* What the host CPU is, as detected at run time. */
typedef struct {
    int cores;            /* online CPUs */
    int64_t cache[3];     /* data/unified cache bytes per level L1, L2, L3 (0: none) */
    int simd_floats;      /* fp32 lanes per vector as cc -march=native sees it: 16, 8 or 4 */
    int vregs;            /* vector registers: 32 with AVX-512, else 16 */
    bool bf16;            /* AVX512_BF16 storage/dot products available */
    char isa[16];         /* "avx512", "avx2", "sse" */
} ms_hostinfo;

/* Detects the host: cores (sysconf), caches (sysfs cpu0 cache indexes), SIMD
 * (predefined macros of `cc -march=native`, $CC honoured). Fields it cannot
 * find keep conservative defaults (1 core, 32 KiB / 1 MiB / 8 MiB, 4 lanes). */
void ms_host_detect(ms_hostinfo *h);

/* What a thread that never blocks does not get of its wall time: gaps of more
 * than 2 us between back-to-back clock reads (interrupts, a hypervisor's exits,
 * preemption). A kernel timed over milliseconds loses the same share. */
typedef struct {
    double share;      /* fraction of the wall time inside gaps */
    double per_second; /* gaps per second */
    double median_us;  /* the median gap, microseconds */
} ms_lost;

/* Spins `seconds` on the calling thread reading the clock and fills *out;
 * false if memory ran out. */
bool ms_host_lost(double seconds, ms_lost *out);

/* The machine's roofline, measured once: single-precision FMA peak per core
 * (the median of ~0.3 ms chunks: 2.4 M FMAs) and for all cores (parallel
 * regions of such chunks: the sum over threads of each one's median chunk),
 * streaming memory bandwidth, and the share of one core's time lost. */
typedef struct {
    double gflops_core, gflops_all; /* peak fp32 GFLOP/s */
    double gbytes;                  /* memory bandwidth, GB/s */
    ms_lost lost;                   /* on the calling thread, 0.1 s */
} ms_roofline;

/* Prints "FMA peak ... GFLOP/s per core, ... all cores; memory ... GB/s; a
 * running thread loses ...% of its time (... gaps/s, median ... us)" without
 * a newline. */
void ms_roofline_print(FILE *f, const ms_roofline *r);

/* Measures the roofline (about a second). */
bool ms_host_roofline(ms_roofline *r);

/* Runs about `flops` single-precision flops of the roofline's FMA loop on
 * `threads` OpenMP threads and returns the flops done: timed like a kernel of
 * that many flops, it is the FMA peak over the same wall time (and the same
 * interruptions) as the kernel's calls. */
double ms_host_fma(double flops, int threads);

/* One host kernel to measure: C source defining `symbol` (see cg_host_source)
 * and the problem it is timed on. */
typedef struct {
    const char *source;   /* C source text */
    const char *symbol;
    const sp_problem *problem;
} ms_host_job;

/* Compiles the jobs' sources with cc -O3 -march=native -fopenmp -shared
 * -fPIC (several per compiler invocation, invocations in parallel) into
 * workdir, then runs each kernel in its own forked child with a timeout:
 * verifies C against a reference (exactly on small integers, then on random
 * floats within an error bound that grows like sqrt(K); see measure/host/runner.c) and
 * times it (warm-up, repetitions until the 95% confidence interval of the
 * median is within 2% or a time cap, GSL statistics; value = median seconds).
 * A compile error is MS_ILLEGAL (first compiler line in detail), a crash
 * MS_CRASH, a hang MS_TIMEOUT, a wrong result MS_WRONG; the others still run.
 * Timed runs go one at a time (the machine is the instrument); done (may be
 * NULL) hears of each job as its measurement is final. A job whose threads
 * waited long for a CPU while timed (ms_host_busy) is marked busy. False only
 * when the work directory cannot be made or memory runs out. */
bool ms_host_run(const ms_host_job *jobs, size_t n, const char *workdir, double timeout,
                 ms_measurement *out, ms_done_fn done, void *ctx, char *err, size_t errlen);

/* The most kernels ms_host_final compares. */
enum { MS_HOST_FINAL_MAX = 16 };

/* The final: compiles jobs[0..n) (n <= MS_HOST_FINAL_MAX, one problem) like
 * ms_host_run, then verifies them all in one runner and times them side by
 * side: in each round every kernel in turn runs a burst of calls (>= 20 ms
 * of kernel time or 64 calls, at least 3) whose median is its sample, the
 * order rotating by one each round; an untimed round, then rounds until 11
 * rounds and 0.5 s of kernel time over all, 200 rounds, or half the time
 * allowed (timeout per job). So drift of the machine between separate
 * measurements cannot order them. out[i] as in ms_host_run (value: median
 * sample); the detail of an ok one says "final: R samples side by side with
 * ...", and busy ones are marked as in ms_host_run. A runner that dies marks
 * every unfinished job. False only when the work directory cannot be made or
 * memory runs out. */
bool ms_host_final(const ms_host_job *jobs, size_t n, const char *workdir, double timeout,
                   ms_measurement *out, char *err, size_t errlen);

/* The host as a target (kind SP_CPU): the detected cores, caches, vector
 * width and registers, the clock (measured on x86 with a chain of dependent
 * adds, ~3 ms; else cpufreq's maximum or /proc/cpuinfo), and
 * calibratable defaults for what cannot be read (2 FMA units and 2 load
 * ports with AVX2/AVX-512, bandwidths, fork_join 10000 cycles). */
void ms_host_target(const ms_hostinfo *h, sp_target *t);

/* Whether `waited` seconds of a kernel's threads waiting for a CPU, over
 * `thread_seconds` of timed calls (wall time x threads), mean the machine
 * was busy: at least 25% of it and 1 ms. A negative waited (not known) is
 * never busy. */
bool ms_host_busy(double waited, double thread_seconds);

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

#endif
