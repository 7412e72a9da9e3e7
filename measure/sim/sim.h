/* sim.h — the cycle-level NPU simulator: runs a generated kernel on a target, in timing
 * or functional mode, and gives the exact inputs and check its functional mode uses. */
#ifndef NPU_TUNE_SIM_H
#define NPU_TUNE_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "codegen.h"
#include "measurement.h"
#include "space.h"

/* The interface: exported, where the library's other symbols are hidden (cmake/library.cmake). */
#pragma GCC visibility push(default)

/* The seed of the functional inputs `npu-tune sim --check` computes on and the command
 * backend hands a board ({inputs}). */
enum { SIM_SEED = 1 };

typedef struct {
    bool functional;   /* move real data, check hazards and the result */
    uint64_t seed;     /* inputs: small integers from this seed (exact in fp32) */
    bool trace;        /* record spans for sim_write_trace */
    bool keep_c;       /* functional: hand GM tensor C to the result (sim_result.c) */
} sim_options;

/* What one simulation measured. cycles is the makespan over all cores;
 * busy/stall are summed over cores; bytes are per copy path. */
typedef struct {
    ms_status status;          /* MS_OK, MS_WRONG (bad result), MS_ILLEGAL (program error),
                                * MS_CRASH (out of memory) */
    char error[320];           /* first error, naming the instruction; "" if ok */
    double cycles;
    double busy[CG_NPIPE];
    double stall[CG_NPIPE];    /* cycles a pipe's next instruction waited on a flag */
    double bytes[SP_NPATH];
    uint64_t instructions;
    bool checked;              /* functional: result compared with the reference */
    void *trace;               /* owned; freed by sim_result_free */
    uint8_t *c;                /* keep_c, when the kernel ran to its end (ok or wrong): GM C,
                                * (batch*M) x N of its element, host byte order; owned */
    size_t c_bytes;
} sim_result;

/* Runs kernel k on target t. Returns false only when out of memory; program
 * errors (buffer overflow/misalignment, unknown event ids, a flag never set,
 * an access not ordered after the pipe that wrote or read the data) and a
 * wrong result are reported through r->status and r->error. */
bool sim_run(const sp_target *t, const cg_kernel *k, const sim_options *o, sim_result *r);

/* Writes the recorded spans as Chrome trace JSON (one process per core, one
 * thread per pipe); false with errno set if writing failed. */
bool sim_write_trace(FILE *f, const sp_target *t, const sim_result *r);

/* Frees what r owns (its trace and C); r itself is the caller's. */
void sim_result_free(sim_result *r);

/* The functional mode's inputs for problem p: A's then B's elements ((batch*M) x K, then
 * (batch*K) x N, row-major), integers in [-4, 4] from GSL's MT19937 seeded with seed, so
 * every partial sum of K <= 2^20 products is exact in fp32. malloc'd; NULL when out of
 * memory. */
int8_t *sim_inputs(const sp_problem *p, uint64_t seed);

/* Kernel k's GM tensors A and B holding inputs `in`: A's bytes then B's, each row-major
 * in its element (fp16 or int8), little-endian; *len bytes, malloc'd (NULL when out of
 * memory). What a board loads for the command backend's {inputs}. */
uint8_t *sim_input_bytes(const cg_kernel *k, const int8_t *in, size_t *len);

/* Compares c, GM tensor C of problem p ((batch*M) x N elements of elem, host byte order),
 * with the exact C = A . B of inputs `in`, as the functional check does: the number of
 * elements that differ (-1 when out of memory); why gets the first ("C[r][c] = g, expected
 * w (n of t elements wrong)", or "... never written" where written[r * N + c], if given,
 * is 0). */
int64_t sim_compare(const sp_problem *p, const int8_t *in, int elem, const uint8_t *c,
                    const uint8_t *written, char *why, size_t len);

/* Reverses the bytes of each es-byte element of p[0..n) on a big-endian host (files hold
 * little-endian values); nothing on a little-endian one. */
void sim_le_bytes(uint8_t *p, size_t n, int es);

#pragma GCC visibility pop

#endif
