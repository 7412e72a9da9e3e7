/* codegen.h — kernels: the NPU per-core program representation, its text
 * format (parse/print) and its generator, the host C generator, and the
 * generator of each kind of target. */
#ifndef NPU_TUNE_CODEGEN_H
#define NPU_TUNE_CODEGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "space.h"

/* The interface: exported, where the library's other symbols are hidden (cmake/library.cmake). */
#pragma GCC visibility push(default)

/* Pipes of a DaVinci core; each runs its own in-order queue. S is the scalar
 * unit that issues everything in program order. */
typedef enum { CG_S, CG_MTE1, CG_MTE2, CG_MTE3, CG_M, CG_V, CG_FIX, CG_NPIPE } cg_pipe;

/* Memory spaces: GM (shared by cores) and the on-chip buffers, numbered as
 * sp_buffer plus one: CG_L1 == SP_L1 + 1, ... */
typedef enum { CG_GM, CG_L1, CG_L0A, CG_L0B, CG_L0C, CG_UB, CG_NSPACE } cg_space;

/* Element types of tiles: inputs (fp16/int8) and accumulators/outputs. */
typedef enum { CG_FP16, CG_INT8, CG_FP32, CG_INT32, CG_NELEM } cg_elem;

/* A named 2-D region: a GM tensor (space GM, offset 0, rows x cols = the
 * matrix, row-major) or a tile buffer inside an on-chip buffer (offset in
 * bytes, rows x cols elements, row-major, bytes = rows*cols*size). */
typedef struct {
    char name[16];
    uint8_t space;  /* cg_space */
    uint8_t elem;   /* cg_elem */
    int32_t offset; /* bytes from the start of its on-chip buffer */
    int32_t rows, cols;
} cg_buf;

/* A block of a region: rows [r0, r0+rows) x cols [c0, c0+cols).
 * buf >= 0 names a core buffer (cg_core.bufs); buf < 0 names GM tensor
 * -1 - buf (cg_kernel.tensors: 0 = A, 1 = B, 2 = C). */
typedef struct {
    int16_t buf;
    uint16_t rows, cols;
    int32_t r0, c0;
} cg_operand;

typedef enum { CG_COPY, CG_MMAD, CG_SET_FLAG, CG_WAIT_FLAG, CG_BARRIER, CG_NOP } cg_op;

/* One instruction.
 *  COPY  dst <- a on pipe `pipe`: moves block a into the top-left of block
 *        dst; dst may be larger (loads zero-fill the rest, e.g. the padding
 *        of a tail tile); a GM destination must be exactly a's size. The
 *        pipe must be the one of the path: GM->L1/UB MTE2, L1->L0A/L0B MTE1,
 *        L0C->UB or L0C->GM FIX, UB->GM MTE3.
 *  MMAD  dst (L0C, m x n, acc elem) = [dst +] a (L0A, m x k) . b (L0B, k x n)
 *        on M; init = 1 overwrites, 0 accumulates.
 *  SET_FLAG / WAIT_FLAG (src, dst, event): set_flag runs on src after the
 *        src pipe's earlier work; wait_flag blocks dst until the flag is set
 *        and consumes it.
 *  BARRIER pipe: later instructions of the core start after everything
 *        issued to `pipe` so far has finished. */
typedef struct {
    uint8_t op;      /* cg_op */
    uint8_t pipe;    /* cg_pipe that executes it (set/wait: src/dst pipe) */
    uint8_t src, dst;/* flags: the pipe pair */
    uint8_t event;   /* flags: event id */
    uint8_t init;    /* mmad */
    cg_operand d, a, b;
    uint32_t line;   /* source line when parsed, 0 when generated */
} cg_instr;

/* One core's program: its buffers and instruction stream. */
typedef struct {
    cg_buf *bufs;
    int nbufs;
    cg_instr *code;
    size_t n, cap;
} cg_core;

/* A kernel: its target, what it computes, the GM tensors, one program per core. */
typedef struct {
    sp_target target;     /* its name, and its figures when `figures` */
    bool figures;         /* target holds the figures (cg_generate, format 2), not only
                           * the name of a built-in target (format 1) */
    sp_problem problem;   /* M, N, K, batch (batch is expanded in the code) */
    sp_config config;
    cg_buf tensors[3];    /* A (M x K, batch*M rows), B (K x N, batch*K rows), C */
    cg_core *cores;
    int ncores;
} cg_kernel;

/* ---- names (names.c) ---- */
const char *cg_pipe_name(int p);   /* "S", "MTE1", ... */
const char *cg_space_name(int s);  /* "GM", "L1", ... */
const char *cg_elem_name(int e);   /* "fp16", ... */
int cg_elem_size(int e);           /* bytes */
int cg_pipe_parse(const char *s);  /* -1 if unknown */

/* The pipe that runs a copy from space src to space dst, or -1 if no path. */
int cg_copy_pipe(int src, int dst);

/* ---- kernels (kernel.c) ---- */

/* Appends an instruction (grows the core); false when out of memory. */
bool cg_emit(cg_core *c, const cg_instr *in);
/* Frees what a kernel owns and zeroes it. */
void cg_kernel_free(cg_kernel *k);
/* Total instructions over all cores. */
size_t cg_kernel_size(const cg_kernel *k);

/* ---- text format (format.c) ---- */

/* Writes the kernel as text, format 2 (the target's figures on its target
 * line) when k->figures, else format 1; false (errno set) if writing failed. */
bool cg_print(FILE *f, const cg_kernel *k);

/* Parses a kernel from text, of format 2 (k->figures set, the figures read
 * and checked as a script's target) or 1 (the target's name only). False
 * with "NAME:LINE: message" in err (NAME is the name given for the input,
 * e.g. its path); k is left empty on failure. */
bool cg_parse(FILE *f, const char *name, cg_kernel *k, char *err, size_t errlen);

/* ---- generator (generate.c) ---- */

/* The kernel of a legal candidate config for problem p on target t. False
 * with a reason in err if the config is illegal, its dtype one no NPU kernel
 * takes (those but fp16 and int8), or memory ran out. */
bool cg_generate(const sp_target *t, const sp_problem *p, const sp_config *c, cg_kernel *k,
                 char *err, size_t errlen);

/* ---- host CPU kernels (host.c, from the template host/prelude.c, host/gemm.c) ---- */

/* Writes self-contained C source defining
 *   void SYMBOL(int M, int N, int K, const float *A, int lda,
 *               const float *B, int ldb, float *C, int ldc)
 * computing row-major C = A.B for any M, N, K >= 0 (tuned for config c, correct
 * for all): strategy = which packed block stays resident (IS: the A block,
 * WS: the B block, OS: the C block over the k loop), m, n, k = cache blocks,
 * double_buffer = pack the next block while the current one computes,
 * cores/split = OpenMP threads over M, N or both, mr x nr = the register
 * micro-tile (mr rows of A x nr columns of B; both required, nr a multiple of
 * 4, see sp_micro_default for the usual choice). The source
 * picks AVX-512, AVX2+FMA or portable GCC vector code at compile time and
 * builds with `cc -O3 -march=native -fopenmp -c` and nothing else. dtype is
 * SP_FP32, or SP_BF16 / SP_FP16 for bf16 / fp16 storage: A and B are then
 * `const uint16_t *` (bit patterns), widened to fp32 (A once per call, B as
 * it is packed), and C and every sum stay fp32. SYMBOL defaults to nt_sgemm (bf16: nt_sbgemm, fp16:
 * nt_shgemm) when NULL; it may not start with NT_ (the template's macros).
 * The source is a header with the config's choices and numbers, the template's
 * prelude, the config's micro-kernels and the template's GEMM code; several
 * kernels with distinct symbols can share one translation unit. Where the
 * includer defines NT_HOST_EX, each also defines SYMBOL_ex(ta, tb, M, N, K,
 * alpha, A, lda, B, ldb, beta, C, ldc, threads): row-major C = alpha op(A)
 * op(B) + beta C with transposes, on its threads or on one (cg_lib_source).
 * False (err) for a config or dtype it cannot honour. */
bool cg_host_source(FILE *f, const sp_config *c, sp_dtype dtype, const char *symbol, char *err,
                    size_t errlen);

/* The same source as a malloc'd string (free it), or NULL with the reason
 * (the generator's, or out of memory) in err. */
char *cg_host_text(const sp_config *c, sp_dtype dtype, const char *symbol, char *err, size_t errlen);

/* Whether two configs (with their dtypes) get the same code from
 * cg_host_source but for the numbers in it (the blocks, the thread count):
 * same dtype, strategy, double buffering, micro-tile (the micro-kernels), pack,
 * and threaded or not (and then the same split): the header's choices. */
bool cg_host_same_code(sp_dtype da, const sp_config *a, sp_dtype db, const sp_config *b);

/* The C source of the pool that runs a threaded host kernel's cells where its
 * includer defines NT_HOST_POOL as nt_lib_parallel: a library of kernels'
 * threads, and the timing runner's, so that the tuner times threads as the library
 * runs them. It defines nt_lib_parallel with the linkage NT_LIB_POOL_API
 * (static unless defined before it). */
const char *cg_host_pool_source(void);

/* The lines ahead of kernels that run their threads on that pool: NT_HOST_POOL
 * defined as nt_lib_parallel, and its declaration, static (the library's pool,
 * written after them) or weak (a pool the loading program exports, as the timing
 * runner does; weak so that kernels link with -z defs). */
const char *cg_host_pool_use(bool weak);

/* ---- a library of host kernels (library.c, with the template host/blas.c) ---- */

/* A kernel of a library: the shape it was tuned for (M x N x K, dtype), its config,
 * the seconds that shape took on its threads (0: not known; the dispatcher runs a
 * smaller problem on one thread when starting the threads would cost more than they
 * save); origin says where it comes from in the source's comments ("t.csv:4"). */
typedef struct {
    int64_t M, N, K;
    sp_dtype dtype;
    sp_config config;
    double seconds;
    const char *origin;
} cg_lib_entry;

/* Writes the C source of a library (npu_tune_gemm.c, built beside the header of
 * cg_lib_header): the kernel of each distinct dtype and config of e[0..n) and
 * general[d] of each dtype d served (fp32 and the dtypes of e) under internal,
 * hidden names, and the fixed code of host/blas.c: nt_sgemm (nt_sbgemm, nt_shgemm
 * for bf16, fp16 entries) dispatching to the entry of the shape, else the nearest
 * whose threads all get work, else general[d] on one thread (an entry's threads
 * only where they pay for their start, measured by the library in the process);
 * cblas_sgemm and
 * sgemm_ with the reference BLAS's semantics, argument checks and error numbers.
 * `from` names the tables in comments. False (err) for a dtype the host does not
 * compute, a missing general kernel, a config the generator refuses. */
bool cg_lib_source(FILE *f, const cg_lib_entry *e, size_t n, const cg_lib_entry *general,
                   const char *from, char *err, size_t errlen);

/* Writes the library's header, npu_tune_gemm.h: its entry points. False if writing failed. */
bool cg_lib_header(FILE *f, const cg_lib_entry *e, size_t n, const char *from);

/* Write the library's CMakeLists.txt (libnpu_tune_gemm.a and .so, install with a
 * pkg-config file) and that file's template, npu_tune_gemm.pc.in. */
bool cg_lib_cmake(FILE *f);
bool cg_lib_pc(FILE *f);

/* ---- the generator of each kind of target (kinds.c) ---- */

/* The kernel of config c for problem p on target t, as t's kind generates it:
 * the NPU kernel program (cg_generate, in cg_print's text format), or for a
 * CPU the C source of nt_sgemm (cg_host_source; bf16: nt_sbgemm, fp16:
 * nt_shgemm). A malloc'd string (free it), or NULL with the reason in err:
 * an illegal config (its rules), a config or dtype the generator cannot
 * honour, out of memory. */
char *cg_kernel_text(const sp_target *t, const sp_problem *p, const sp_config *c, char *err,
                     size_t errlen);

/* The candidates of one problem of a run. */
typedef struct {
    const sp_problem *p;
    const sp_candidate *c;
    size_t n;
} cg_batch;

/* The signature of the kernels a run on t generates for the candidates of
 * nb problems, into out (16 hex digits), when t's kind's measurements time
 * generated code (a CPU: its host kernels, one per kind of code,
 * cg_host_same_code), so that a build whose generator writes other kernels
 * does not resume its journals; "" for the other kinds (an NPU). False if
 * memory ran out. */
bool cg_kernel_signature(const sp_target *t, const cg_batch *b, size_t nb, char out[17]);

#pragma GCC visibility pop

#endif
