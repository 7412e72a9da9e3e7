/* internal.h — private state of the cycle-level NPU simulator, shared by its
 * engine (engine.c), decoder (decode.c), data model (data.c) and trace (trace.c). */
#ifndef NPU_TUNE_SIM_INTERNAL_H
#define NPU_TUNE_SIM_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim.h"

#define SIM_QDEPTH 32     /* issued-but-not-started instructions per pipe queue */
#define SIM_INF HUGE_VAL
#define SIM_GM_BURST 32   /* GM bursts are whole multiples of this many bytes */

/* One decoded instruction: everything the timing loop needs, precomputed. */
typedef struct {
    double dur;     /* fixed duration; GM transfers: the (unshared) latency */
    double bytes;   /* bytes moved over `path` (copies) */
    uint32_t flag;  /* set/wait: index into the core's flags */
    uint8_t op;     /* cg_op */
    uint8_t pipe;   /* the pipe that executes it (S for barriers) */
    uint8_t path;   /* copies: sp_path; barriers: the pipe drained; flags: the dst pipe */
    uint8_t gm;     /* 1: a transfer that reads or writes GM (shares gm_bandwidth) */
} sim_op;

/* What decoding needs of a region (GM tensor or core buffer). */
typedef struct {
    int32_t rows, cols;
    uint8_t space, elem, esize;
} sim_reg;

/* Hazard shadow of one memory granule: last writer and last read per pipe. */
typedef struct {
    uint32_t wtick;              /* writer's tick (0: never written) */
    uint32_t rtick[CG_NPIPE];    /* each pipe's last read tick */
    uint8_t wpipe;
} sim_granule;

enum { PH_FIXED, PH_LAT, PH_GM };                            /* pipe phases */
enum { BLK_NONE, BLK_QUEUE, BLK_BARRIER, BLK_WAIT };         /* why S is blocked */

typedef struct {
    sim_op q[SIM_QDEPTH];    /* the queue: decoded at issue, ring by issue count */
    uint32_t qidx[SIM_QDEPTH];
    uint32_t issued, started, finished;
    int64_t cur;             /* executing instruction, -1 if none */
    sim_op op;               /* the executing instruction */
    uint8_t phase;
    double start;
    int64_t wait_flag;       /* flag the head wait_flag is blocked on, -1 if none */
    double stall_from;
    double remaining, rate, t_last; /* GM data phase */
    int gm_slot;
    /* functional mode */
    uint32_t (*snap)[CG_NPIPE]; /* S's clock at issue, ring of SIM_QDEPTH */
    uint32_t *ran;           /* instructions run so far: tick k is ran[k - 1] */
    uint32_t nran, capran;
} sim_pipe;

typedef struct {
    uint8_t set;
} sim_flag;

typedef struct {
    int index;
    const cg_core *code;
    sim_reg *reg;            /* regions by operand buf + 3: tensors C, B, A, then buffers */
    double next[CG_NPIPE];   /* next event time of S (issue) and of each pipe */
    sim_pipe pipe[CG_NPIPE];
    /* the scalar unit */
    uint32_t pc;
    int block, block_arg;
    int64_t pending_set;     /* flag an S set_flag sets at the next S step */
    uint32_t pending_idx;
    int pending_dst;
    int barrier;             /* pipe a pending barrier drains, -1 if none */
    uint32_t barrier_idx;
    double barrier_from, s_stall_from;
    sim_flag *flags;
    /* functional mode */
    uint32_t (*flagvc)[CG_NPIPE];
    uint32_t vc[CG_NPIPE][CG_NPIPE];
    uint8_t *mem[CG_NSPACE];
    int64_t memlen[CG_NSPACE];
    sim_granule *shadow[CG_NSPACE];
    void *sa, *sb, *sd;      /* mmad: operands as float / int32, a row of the result */
} sim_core;

typedef struct {
    double start, end;
    uint32_t index;
    uint16_t core;
    uint8_t pipe;
} sim_span;

/* What a trace keeps: the spans and a copy of the code they name. */
typedef struct {
    sim_span *v;
    size_t n, cap;
    int ncores;
    cg_core *cores;
    cg_buf tensors[3];
} sim_trace;

typedef struct {
    const sp_target *t;
    const cg_kernel *k;
    sim_result *r;
    bool functional;
    uint64_t seed;
    bool stop, oom;
    int events, nflags;
    int k0, m0, n0;
    double fractal_cycles[SP_NDTYPE]; /* cube cycles of one fractal op per input dtype */
    sim_core *cores;
    int ncores;
    /* transfers in their GM data phase, over all cores */
    struct sim_gm { int core, pipe; } *gm;
    int ngm;
    /* tournament tree over cores' next event times */
    double *cmin;
    int *tree, tsize;
    /* functional: GM tensors, their inputs (sim_inputs), and which C elements were
     * written */
    uint8_t *gmem[3];
    int8_t *in;
    uint8_t *written;
    sim_trace *trace;
} sim;

/* Records the first error (later ones are ignored) and stops the run. */
void sim_fail(sim *s, ms_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same, prefixed with "core C #I (line L): " for instruction idx of core c. */
void sim_fail_at(sim *s, int core, uint32_t idx, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Writes "core C #I (line L)" (line only when known) into buf. */
void sim_where(char *buf, size_t n, const sim *s, int core, uint32_t idx);

/* The region an operand names (a core buffer or a GM tensor). */
static inline const cg_buf *sim_region(const cg_buf *tensors, const cg_core *c,
                                       const cg_operand *o)
{
    return o->buf < 0 ? &tensors[-1 - o->buf] : &c->bufs[o->buf];
}
/* Short text of an instruction ("copy a0 <- A[0:256,0:128]"). */
void sim_instr_text(char *buf, size_t n, const cg_buf *tensors, const cg_core *c,
                    const cg_instr *in);

/* decode.c: checks the target, tensors and buffers before a run (program
 * errors stop it via sim_fail) and tabulates the regions; false when out of memory. */
bool sim_check(sim *s);
/* Checks instruction idx of core c and decodes it into o; false (after
 * sim_fail) on a program error. */
bool sim_decode(sim *s, const sim_core *c, uint32_t idx, sim_op *o);

/* ---- data.c: functional mode ---- */

/* Allocates GM tensors (inputs from the seed) and each core's memories and
 * clocks; false when out of memory (a tensor that does not fit the problem
 * stops the run via sim_fail). */
bool sim_data_init(sim *s);
/* Runs instruction idx on `pipe` (its queue slot, -1 on S): ticks and merges
 * the pipe's vector clock, checks hazards, moves the data. */
void sim_data_exec(sim *s, sim_core *c, int pipe, uint32_t idx, int slot, const sim_op *o);
/* S resumes after a barrier: S's clock learns everything `drained` did. */
void sim_data_barrier(sim *s, sim_core *c, int drained);
/* Compares C with the reference; a mismatch stops the run with MS_WRONG. */
void sim_data_check(sim *s);
/* Frees what sim_data_init allocated (safe after a partial init). */
void sim_data_free(sim *s);

/* ---- trace.c ---- */

/* Starts a trace (a copy of the kernel's code for naming spans); false when
 * out of memory. */
bool sim_trace_init(sim *s);
/* Records one span; false when out of memory. */
bool sim_trace_span(sim *s, int core, int pipe, double start, double end, uint32_t idx);
/* Frees a trace (NULL is fine). */
void sim_trace_free(sim_trace *tr);

#endif
