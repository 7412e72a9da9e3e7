/* host.h — the host CPU harness: what the machine is, compiling kernels and verifying
 * and timing them in a runner of their own, and the roofline and lost-time probes. */
#ifndef NPU_TUNE_HOST_H
#define NPU_TUNE_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "measurement.h"
#include "space.h"

/* The interface: exported, where the library's other symbols are hidden (cmake/library.cmake). */
#pragma GCC visibility push(default)

/* ---- the machine (detect.c) ---- */

/* What the host CPU is, as detected at run time. */
typedef struct {
    int cores;            /* online CPUs */
    int64_t cache[3];     /* data/unified cache bytes per level L1, L2, L3 (0: none) */
    int l1_ways;          /* ways of L1d (0: not found) */
    int simd_floats;      /* fp32 lanes per vector as cc -march=native sees it: 16, 8 or 4 */
    int vregs;            /* vector registers: 32 with AVX-512, else 16 */
    bool bf16;            /* AVX512_BF16 storage/dot products available */
    char isa[16];         /* "avx512", "avx2", "sse" */
} hs_info;

/* Detects the host: cores (sysconf), caches (sysfs cpu0 cache indexes), SIMD
 * (predefined macros of `cc -march=native`, $CC honoured). Fields it cannot
 * find keep conservative defaults (1 core, 32 KiB / 1 MiB / 8 MiB, 4 lanes). */
void hs_detect(hs_info *h);

/* What a node is, for comparing nodes (not measured: the same on every node
 * of a kind): the ISA, cores and cache sizes h holds, the CPU's model name
 * (/proc/cpuinfo) and its clock as the kernel's cpufreq gives its maximum,
 * where it does; one line, e.g. "avx2, 2 cores, caches 32K/512K/32M, AMD
 * EPYC, max 3600 MHz". */
void hs_node_signature(const hs_info *h, char *out, size_t len);

/* The host as a target (kind SP_CPU): the detected cores, caches, vector
 * width and registers, the clock (measured on x86 with a chain of dependent
 * adds, ~3 ms; else cpufreq's maximum or /proc/cpuinfo), and
 * calibratable defaults for what cannot be read (2 FMA units and 2 load
 * ports with AVX2/AVX-512, bandwidths, fork_join 10000 cycles). */
void hs_target(const hs_info *h, sp_target *t);

/* ---- kernels compiled, verified and timed (run.c, compile.c, runner.c) ---- */

/* One host kernel to measure: C source defining `symbol` (see cg_host_source),
 * the problem it is timed on and the threads it runs on. */
typedef struct {
    const char *source;   /* C source text */
    const char *symbol;
    const sp_problem *problem;
    int threads;          /* 1: timed on the home CPU (hs_home_cpu); 0: not known */
} hs_job;

/* The CPU this process times its one-thread kernels on: the one its first
 * caller ran on (so that two runs at once likely differ), fixed from then
 * on, or -1: none (not known, or a timing there found it busy, hs_busy, as
 * under another run pinned there: no more pinning then). The CPUs of one
 * machine need not be equal (on a VM one may be a few percent slower for
 * every kernel); a runner whose kernels all run on one thread is pinned
 * there, so that their timings differ by the kernels alone. */
int hs_home_cpu(void);

/* Compiles the jobs' sources with cc -O3 -march=native -fopenmp -shared
 * -fPIC (several per compiler invocation, invocations in parallel) into
 * workdir, then runs each kernel in a runner process of its own with a timeout:
 * verifies C against a reference (exactly on small integers, then on random
 * floats within an error bound that grows like sqrt(K); see measure/host/runner.c) and
 * times it (warm-up, repetitions until the 95% confidence interval of the
 * median is within 2% or a time cap, GSL statistics; value = median seconds).
 * A compile error is MS_ILLEGAL (first compiler line in detail), a crash
 * MS_CRASH, a hang MS_TIMEOUT, a wrong result MS_WRONG; the others still run.
 * Timed runs go one at a time (the machine is the instrument); done (may be
 * NULL) hears of each job as its measurement is final. A job whose threads
 * waited long for a CPU while timed (hs_busy) is marked busy. False only
 * when the work directory cannot be made or memory runs out. */
bool hs_run(const hs_job *jobs, size_t n, const char *workdir, double timeout,
            ms_measurement *out, ms_done_fn done, void *ctx, char *err, size_t errlen);

/* The most kernels hs_final compares. */
enum { HS_FINAL_MAX = 16 };

/* The final: compiles jobs[0..n) (n <= HS_FINAL_MAX, one problem) like
 * hs_run, then verifies them all in one runner and times them side by
 * side: in each round every kernel in turn runs a burst of calls (>= 20 ms
 * of kernel time or 64 calls, at least 3) whose median is its sample, the
 * order rotating by one each round; an untimed round, then rounds until 11
 * rounds and 0.5 s of kernel time over all, 200 rounds, or half the time
 * allowed (timeout per job). So drift of the machine between separate
 * measurements cannot order them. out[i] as in hs_run (value: median
 * sample); the detail of an ok one says "final: R samples side by side with
 * ...", and busy ones are marked as in hs_run. A runner that dies marks
 * every unfinished job. False only when the work directory cannot be made or
 * memory runs out. */
bool hs_final(const hs_job *jobs, size_t n, const char *workdir, double timeout,
              ms_measurement *out, char *err, size_t errlen);

/* The most timed rounds a final keeps. */
enum { HS_FINAL_ROUNDS = 200 };

/* How hs_final_with times (a field 0 or less keeps hs_final's choice):
 * rounds until `rounds` timed rounds (at most HS_FINAL_ROUNDS) and `seconds`
 * of kernel time over all kernels; a burst runs until `burst_calls` calls (at
 * most 64) and `burst_seconds` of kernel time, or 64 calls. With round_s
 * (room for n x HS_FINAL_ROUNDS), job i's sample of timed round r goes to
 * round_s[i * HS_FINAL_ROUNDS + r] for r < out[i].nsamples (the same rounds
 * for every job timed: compare two jobs round by round); NaN elsewhere, and
 * for a job that is not ok. */
typedef struct {
    int rounds;           /* hs_final: 11 */
    double seconds;       /* hs_final: 0.5 */
    int burst_calls;      /* hs_final: 3 */
    double burst_seconds; /* hs_final: 0.02 */
    double *round_s;      /* NULL: not wanted */
} hs_final_opts;

/* hs_final timed as opts says (NULL: as hs_final). */
bool hs_final_with(const hs_job *jobs, size_t n, const char *workdir, double timeout,
                   const hs_final_opts *opts, ms_measurement *out, char *err, size_t errlen);

/* Whether `waited` seconds of a kernel's threads waiting for a CPU, over
 * `thread_seconds` of timed calls (wall time x threads), mean the machine
 * was busy: at least 25% of it and 1 ms. A negative waited (not known) is
 * never busy. */
bool hs_busy(double waited, double thread_seconds);

/* ---- the probes (lost.c, roofline.c) ---- */

/* What a thread that never blocks does not get of its wall time: gaps of more
 * than 2 us between back-to-back clock reads (interrupts, a hypervisor's exits,
 * preemption). A kernel timed over milliseconds loses the same share. */
typedef struct {
    double share;      /* fraction of the wall time inside gaps */
    double per_second; /* gaps per second */
    double median_us;  /* the median gap, microseconds */
} hs_lost;

/* Spins `seconds` on the calling thread reading the clock and fills *out;
 * false if memory ran out. */
bool hs_measure_lost(double seconds, hs_lost *out);

/* The machine's roofline, measured once: single-precision FMA peak per core
 * (the median of ~0.3 ms chunks: 2.4 M FMAs) and for all cores (parallel
 * regions of such chunks: the sum over threads of each one's median chunk),
 * streaming memory bandwidth, and the share of one core's time lost. */
typedef struct {
    double gflops_core, gflops_all; /* peak fp32 GFLOP/s */
    double gbytes;                  /* memory bandwidth, GB/s */
    hs_lost lost;                   /* on the calling thread, 0.1 s */
} hs_roofline;

/* Measures the roofline (about a second). */
bool hs_measure_roofline(hs_roofline *r);

/* Prints "FMA peak ... GFLOP/s per core, ... all cores; memory ... GB/s; a
 * running thread loses ...% of its time (... gaps/s, median ... us)" without
 * a newline. */
void hs_roofline_print(FILE *f, const hs_roofline *r);

/* Runs about `flops` single-precision flops of the roofline's FMA loop on
 * `threads` OpenMP threads and returns the flops done: timed like a kernel of
 * that many flops, it is the FMA peak over the same wall time (and the same
 * interruptions) as the kernel's calls. */
double hs_fma(double flops, int threads);

#pragma GCC visibility pop

#endif
