/* space.h — the nouns of npu-tune (target, problem, config, candidate) and the
 * operations on them: legality, the load-volume/time model, enumeration, ranking. */
#ifndef NPU_TUNE_SPACE_H
#define NPU_TUNE_SPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The interface: exported, where the library's other symbols are hidden (cmake/library.cmake). */
#pragma GCC visibility push(default)

#define SP_NAME_MAX 64
#define SP_VALUE_MAX (1 << 20) /* largest dimension, batch, tile or core count in scripts,
                                * on the command line, in journals and tables */
#define SP_LABEL_MAX 40        /* longest problem name (it goes into CSV files) */

typedef enum { SP_IS, SP_WS, SP_OS, SP_NSTRATEGY } sp_strategy;
typedef enum { SP_SPLIT_M, SP_SPLIT_N, SP_SPLIT_MN, SP_NSPLIT } sp_split;
typedef enum { SP_FP16, SP_INT8, SP_FP32, SP_BF16, SP_NDTYPE } sp_dtype;

/* What a target is: a DaVinci-like NPU (buffers, copy paths, cube) or a CPU
 * (caches, vector registers, FMA units). fp16/int8 run on NPUs' cubes; CPUs
 * compute fp32, and bf16 and fp16 as storage (converted to fp32 when packed,
 * fp32 FMAs and C). Each kind's operations (legality, model, enumeration,
 * signature) sit in the registry of kinds.c; a target without a kind is
 * the first, an NPU. */
typedef enum { SP_NPU, SP_CPU, SP_NKIND } sp_kind;

/* Cache levels of a CPU target. */
typedef enum { SP_CL1, SP_CL2, SP_CL3, SP_NCACHE } sp_cache;

/* Bytes of packed B a generated host kernel keeps per thread (every block
 * packed once per call) before it falls back to repacking one block. */
#define SP_CPU_BCACHE_BYTES (32 << 20)

/* Bytes of fp32 A a generated bf16/fp16 host kernel widens at a time per
 * thread: its rows of A once per call when they fit, else bands of whole
 * row blocks (B packed again per band). */
#define SP_CPU_AWIDE_BYTES (32 << 20)

/* A generated fp32 host kernel reads A in place, except where A's rows are a
 * multiple of this many floats apart (4 KiB, an L1d way on x86: the rows of a
 * micro-panel would share one L1d set): the no-pack family copies a row of
 * tiles' rows, the packing family each micro-panel of more than
 * SP_CPU_ALIAS_ROWS rows, to rows an odd number of cache lines apart. */
#define SP_CPU_ALIAS_FLOATS 1024

/* The rows of an A micro-panel that the packing family reads in place even
 * when they share one L1d set: up to 8 they fit the set beside the B and C
 * streams (an 8-way L1d holds 7 of them, a 12-way 11), and a copy per
 * micro-panel, which waits on short rows far apart, costs more than the
 * evictions (512x768x3072 side by side: 8x48 and 6x64 2-6% faster in place,
 * 14x32 5% slower). */
#define SP_CPU_ALIAS_ROWS 8

/* A generated host kernel keeps its packed B blocks (IS and OS orders) only
 * when it meets each at least this many times (block rows of A); fewer
 * visits repack into one slot that stays in L2, which measured faster. */
#define SP_CPU_BCACHE_VISITS 3

/* The rows of B a no-pack kernel's k block may read along their length at
 * once and still stream (1x3072x768 on a Zen 5 class core, 1x64 tiles: k
 * blocks of 1, 2 and 4 rows within 5% of each other, 8 rows 20% slower, 16
 * rows 30%). */
#define SP_CPU_STREAMS 4

/* The NR-column panels of a B block that packing writes into, one stream
 * each, and the prefetchers still follow (200x1000x64, WS, kc 64, side by
 * side: 8x48 with 3 to 11 panels within 1%, 15 panels 2.5% slower, 19 4.3%;
 * 12x32 with 10 panels 0.7%, 16 3%, 28 7%; 6x64 with 14 panels 2%). */
#define SP_CPU_PACK_STREAMS 10

/* The widest micro-tile, in vectors, for which a generated host kernel has
 * narrower kernels for a last, narrow column tile (wider ones run whole). */
#define SP_CPU_EDGE_VECTORS 8

/* The most a CPU target's stalls (cycles) and fork_join (cycles a call)
 * may be: its check refuses more, and calibrate fits no further. */
#define SP_CPU_STALL_MAX 100.0
#define SP_CPU_FORK_JOIN_MAX 1e9

/* On-chip buffers of a DaVinci-like core. */
typedef enum { SP_L1, SP_L0A, SP_L0B, SP_L0C, SP_UB, SP_NBUF } sp_buffer;

/* Copy paths, each run by one pipe: MTE2, MTE1 (x2), FIX, MTE3. */
typedef enum { SP_GM_L1, SP_L1_L0A, SP_L1_L0B, SP_L0C_UB, SP_UB_GM, SP_NPATH } sp_path;

typedef struct {
    double bandwidth; /* bytes per cycle */
    double latency;   /* cycles per copy instruction */
} sp_copy_path;

/* A CPU core and its memory: the vector unit that runs the micro-kernel and
 * the cache hierarchy the blocks must stay resident in. */
typedef struct {
    int simd_floats;              /* fp32 lanes per vector register */
    int vregs;                    /* vector registers */
    int fma_units;                /* vector FMAs issued per cycle */
    int load_ports;               /* vector loads per cycle */
    int64_t cache[SP_NCACHE];     /* bytes: L1d and L2 per core, L3 shared (0: none) */
    double bw_l2, bw_l3, bw_mem;  /* bytes/cycle into one core from L2, L3, memory */
    double bw_mem_shared;         /* bytes/cycle from memory for all cores together */
    double fork_join;             /* cycles a call on more than one thread spends starting
                                   * and joining them (0: free) */
    double load_stall;            /* cycles of FMA issue each load of the micro-kernel
                                   * takes, beyond the load ports' limit (0: none) */
    double prefetch_stall;        /* cycles each line double buffering prefetches costs
                                   * beyond the one that issues it (0: none) */
    int l1_ways;                  /* ways of L1d (0: not known; no aliasing charged) */
    double alias_stall;           /* cycles a micro-tile's k step loses per row of its A
                                   * micro-panel that its L1d set cannot hold (0: none) */
    double pack_stall;            /* cycles packing B waits per line it writes into a panel
                                   * past the streams the prefetchers follow (0: none) */
    double stride_stall;          /* cycles the no-pack family waits per line of B it reads
                                   * in place from past L2, rows too far apart for the
                                   * prefetchers (0: none) */
} sp_cpu;

/* Hardware description of one target. An NPU has per-core buffers and paths
 * and a shared GM; a CPU (kind SP_CPU) fills name, cores, clock_mhz and cpu. */
typedef struct {
    char name[SP_NAME_MAX];
    uint8_t kind;                 /* sp_kind */
    int cores;                    /* AI (cube) cores, or CPU cores */
    double clock_mhz;
    sp_cpu cpu;                   /* CPU targets only */
    double macs[SP_NDTYPE];       /* cube MACs per cycle per input dtype (0: not supported) */
    int64_t buf_bytes[SP_NBUF];
    int buf_align[SP_NBUF];       /* bytes; transfers are whole granules */
    sp_copy_path path[SP_NPATH];
    double gm_bandwidth;          /* bytes per cycle, shared by all cores */
    int events;                   /* event ids per pipe pair */
} sp_target;

/* Element type facts: bytes per input/accumulator element and the fractal
 * (cube block) m0 x k0 / k0 x n0 that tiles must be multiples of. */
typedef struct {
    const char *name;
    int in_bytes, acc_bytes;
    int m0, n0, k0;
} sp_dtype_info;

#define SP_OP_DIMS_MAX 12 /* dimensions of an op, at most */
#define SP_SHAPE_MAX 160  /* an op's shape text, at most, with its NUL */

/* One problem to tune: an operation (op) with its own dimensions, and the
 * GEMM it computes as, C[M x N] = A[M x K] . B[K x N] batch times, which is
 * what legality, the model, enumeration and the kernels see. Made by
 * sp_problem_set, by a script or the command line, or read back from a
 * journal or table (their shape column, or sp_problem_from_gemm). */
typedef struct {
    char name[SP_NAME_MAX];
    sp_dtype dtype;
    int64_t M, N, K, batch;       /* the GEMM view, filled by the op */
    uint8_t op;                   /* index into the op registry (sp_op_get); 0, the
                                   * first op, is the default */
    int64_t dims[SP_OP_DIMS_MAX]; /* the op's dimensions, in the order of its dim[] */
} sp_problem;

/* A dimension of an op: its name in scripts (an item of a shape, the
 * constraint's key, and the declaration's key when it has a default) and
 * its default, taken when a shape leaves it out (0: every shape gives it;
 * the dimensions with a default come last). */
typedef struct {
    const char *name;
    int64_t dflt;
} sp_op_dim;

/* An operation problems can be of: its own file space/op_NAME.c defines
 * `const sp_op sp_op_NAME` and the registry (op.c) lists it. Every dimension
 * is an integer from 1 to SP_VALUE_MAX. */
typedef struct {
    const char *name;              /* the script's declaration, the files' op column */
    int ndims;
    sp_op_dim dim[SP_OP_DIMS_MAX];
    const char *syntax;            /* its shape on the command line, for messages */
    /* Fills p->M, N, K and batch, the GEMM the op computes as, from p->dims. */
    void (*gemm)(sp_problem *p);
    /* The shape as the summary and messages show it, like snprintf. */
    int (*format)(const int64_t *dims, char *buf, size_t len);
    /* Reads what format writes (--shape too) into dims, the defaults where it
     * leaves a dimension out; false if malformed or a value is not 1 to
     * SP_VALUE_MAX. */
    bool (*parse)(const char *text, int64_t *dims);
    /* The dimensions whose GEMM view is p's, into dims; NULL for an op whose
     * view does not determine them (files without a shape column cannot hold
     * its problems). */
    void (*from_gemm)(const sp_problem *p, int64_t *dims);
} sp_op;

/* One point of the search space. On a CPU, m x n x k are the cache blocks and
 * mr x nr the register micro-tile (0 x 0 on NPUs, which have none). */
typedef struct {
    int32_t m, n, k, cores;
    uint8_t strategy;      /* sp_strategy */
    uint8_t double_buffer; /* 0 or 1 */
    uint8_t split;         /* sp_split */
    uint8_t mr, nr;        /* CPU micro-tile: rows of A x columns of B */
    uint8_t nopack;        /* CPU: 1 for the no-pack family (A and B read in place, the
                            * micro-tile over a k block of the reduction, strategy OS);
                            * 0, the default, packs B blocks */
} sp_config;

/* A register micro-tile (CPU targets). */
typedef struct {
    uint8_t mr, nr;
} sp_micro;

/* Model figures of a legal config (whole problem unless named per core). */
typedef struct {
    double load_elems;         /* Sigma: elements loaded into L0A + L0B */
    double store_elems;        /* elements of C written back to GM */
    double bytes[SP_NPATH];    /* bytes over each path */
    double core_load_elems;    /* Sigma of the busiest core */
    double est_cycles;         /* estimated cycles of the busiest core */
    double buffer_use;         /* bytes of L0A + L0B + L0C one tile set occupies */
    int32_t grid_m, grid_n;    /* cores along M and N */
} sp_figures;

typedef struct {
    sp_config config;
    sp_figures fig;
} sp_candidate;

/* A search axis: ascending distinct positive values; n == 0 means "every
 * multiple of the fractal up to the problem's dimension". */
typedef struct {
    int32_t *v;
    size_t n;
} sp_axis;

typedef struct {
    bool strategy[SP_NSTRATEGY];
    sp_axis m, n, k;
    bool double_buffer[2];     /* [0] off allowed, [1] on allowed */
    sp_axis cores;
    sp_split split[SP_NSPLIT]; /* in the user's order */
    int nsplit;
    sp_micro *micro;           /* CPU micro-tiles; none: the target's default */
    size_t nmicro;
    uint8_t packs;             /* CPU kernel families: bit 1 << nopack for each allowed;
                                * 0 stands for 1, packing only (scripts' default) */
} sp_space;

/* Why a config is illegal: a bit per rule. */
enum {
    SP_BAD_ALIGN_M = 1 << 0,   /* m not a multiple of the fractal */
    SP_BAD_ALIGN_N = 1 << 1,
    SP_BAD_ALIGN_K = 1 << 2,
    SP_BAD_DIM     = 1 << 3,   /* tile larger than the padded dimension */
    SP_BAD_FULL_K  = 1 << 4,   /* IS/WS need k = K */
    SP_BAD_L0A     = 1 << 5,
    SP_BAD_L0B     = 1 << 6,
    SP_BAD_L0C     = 1 << 7,
    SP_BAD_L1      = 1 << 8,
    SP_BAD_CORES   = 1 << 9,   /* more cores than the target has */
    SP_BAD_SPLIT   = 1 << 10,  /* a core would get no work / no 2-D grid */
    SP_BAD_MICRO   = 1 << 11,  /* CPU: the micro-tile does not fit the vector registers */
    SP_BAD_CACHE1  = 1 << 12,  /* CPU: the resident A micro-panel overflows L1d */
    SP_BAD_CACHE2  = 1 << 13,  /* CPU: the packed B block overflows L2 */
    SP_BAD_CACHE3  = 1 << 14,  /* CPU: the strategy's resident block overflows the L3 share */
    SP_BAD_DTYPE   = 1 << 15,  /* the target does not compute this dtype */
    SP_BAD_NOPACK  = 1 << 16,  /* CPU: the no-pack family needs fp32, strategy OS and no
                                * double buffering */
    SP_BAD_LAST    = 1 << 17
};

/* ---- names (names.c) ---- */

/* Static names ("IS", "M", "fp16", "L0A", "GM->L1"); NULL for out-of-range. */
const char *sp_strategy_name(int s);
const char *sp_split_name(int s);
const char *sp_dtype_name(int d);
const char *sp_buffer_name(int b);
const char *sp_path_name(int p);
/* Parse a name (case-sensitive as printed above); -1 if unknown. */
int sp_strategy_parse(const char *s);
int sp_split_parse(const char *s);
int sp_dtype_parse(const char *s);
/* The names name(0), name(1), ... up to the first NULL, joined by sep and
 * the last two by last ("fp16, int8, fp32 or bf16", "IS|WS|OS"), into buf
 * (cut to fit); returns buf. Every list of names a message or a usage text
 * shows comes from a name table this way. */
const char *sp_names(const char *(*name)(int), const char *sep, const char *last, char *buf,
                     size_t len);
/* The same with each name in double quotes, as a script writes it
 * ("\"npu\" or \"cpu\""). */
const char *sp_names_quoted(const char *(*name)(int), const char *sep, const char *last,
                            char *buf, size_t len);
/* Whether s[0..len) is a name of 1 to max characters from A-Z a-z 0-9 _ . -
 * (of a target: max SP_NAME_MAX - 1). */
bool sp_name_ok(const char *s, size_t len, size_t max);
/* Whether s[0..len) can name a problem in the CSV files: sp_name_ok up to
 * SP_LABEL_MAX characters. */
bool sp_label_ok(const char *s, size_t len);
/* Facts for dtype d (valid d only). */
const sp_dtype_info *sp_dtype_get(sp_dtype d);

/* ---- operations (op.c and the op_NAME.c files) ---- */

/* Op i of the registry, NULL past the last (the first is the default: of a
 * script's problems and of files without an op column). */
const sp_op *sp_op_get(int i);
/* Its name (matmul, ...), NULL past the last; parse returns -1 if unknown. */
const char *sp_op_name(int i);
int sp_op_parse(const char *name);
/* The index of op o's dimension `name`, or -1. */
int sp_op_dim_index(const sp_op *o, const char *name);

/* Makes p a problem of op `op` (valid) with dimensions dims (the op's ndims
 * values, each 1 to SP_VALUE_MAX): p->op, p->dims and the GEMM view. */
void sp_problem_set(sp_problem *p, int op, const int64_t *dims);
/* p's shape as its op writes it ("512x768x768", "64x64x64 b4"), like snprintf;
 * SP_SHAPE_MAX bytes always suffice. */
int sp_problem_shape(const sp_problem *p, char *buf, size_t len);
/* Orders problems by name, op, the op's dimensions, then dtype (when
 * `dtype`), like strcmp: 0 for the same problem. */
int sp_problem_cmp(const sp_problem *a, const sp_problem *b, bool dtype);
/* Whether a and b are of one op with the same dimensions (names and dtypes
 * aside). */
bool sp_problem_same_shape(const sp_problem *a, const sp_problem *b);
/* Fills p->dims from p's op and GEMM view (a problem read from a file without
 * a shape column); false if its op cannot (from_gemm is NULL). */
bool sp_problem_from_gemm(sp_problem *p);
/* Floating-point operations of p: two per multiply-add of its GEMM view. */
double sp_problem_flops(const sp_problem *p);

/* ---- target (target.c) ---- */

/* Checks a target for consistency; on failure writes one line naming the
 * offending field into err and returns false. */
bool sp_target_check(const sp_target *t, char *err, size_t errlen);

/* ---- a target's figures as data (figures.c) ---- */

/* The type of a target field's value. */
typedef enum { SP_FIELD_NAME, SP_FIELD_KIND, SP_FIELD_INT, SP_FIELD_I64, SP_FIELD_NUM } sp_field_type;

/* One field of a target, named as scripts and files name it. */
typedef struct {
    const char *name; /* dotted: "gm_l1.bandwidth" */
    uint8_t type;     /* sp_field_type: a name, the kind, an int, an int64_t, a double */
    size_t off;       /* where it is in sp_target */
    unsigned kinds;   /* bit 1 << k for each sp_kind k that has it */
    bool optional;    /* may be left out (stays 0) */
} sp_target_field;

#define SP_TARGET_NFIELDS 48
/* Every field of a target: the name, the kind, then the figures, in the order
 * a missing one is reported and the text below lists them. Scripts read
 * targets through this table, files write and read them through it. */
extern const sp_target_field sp_target_fields[];
/* The name of the field of t that member (a pointer into *t) is, "?" if none:
 * sp_target_field_name(t, &t->buf_align[SP_L1]) is "align.l1". */
const char *sp_target_field_name(const sp_target *t, const void *member);
/* The index in sp_target_fields of kind's (sp_kind) field called name, or -1
 * (names repeat across kinds: "l1" is an NPU buffer and a CPU cache). */
int sp_target_field_index(const char *name, int kind);
/* Where t's figure sp_target_fields[field] is, for a number field (a double);
 * NULL for a field of another type or an index out of range. */
double *sp_target_figure_at(sp_target *t, int field);
/* The value of t's number field sp_target_fields[field] (NAN for one that is not). */
double sp_target_figure(const sp_target *t, int field);

/* Room for any target's text (sp_target_print), its terminator included. */
#define SP_TARGET_TEXT_MAX 2048

/* The target as one line of words: its name, then `key=value` for every
 * field of its kind (kind first), single spaces, no newline; integers in
 * decimal, numbers in the shortest form that reads back the same. Like
 * snprintf: returns the length it needs, whatever len is. */
size_t sp_target_print(char *buf, size_t len, const sp_target *t);

/* Reads a target from the words sp_target_print writes: words[0] is the
 * name (1 to SP_NAME_MAX - 1 characters from A-Z a-z 0-9 _ . -), then
 * `key=value` in any order: each field of the target's kind (kind, npu when
 * left out) at most once, all but the optional ones, integers in decimal
 * within their type, numbers finite; then sp_target_check. False with one
 * line in err naming the target and the word or field ("target 'x': field
 * 'cores' given twice"); *t is then unspecified. */
bool sp_target_scan(char *const *words, size_t n, sp_target *t, char *err, size_t errlen);

/* Whether a and b are the same target: name, kind and every field of the
 * kind equal. If not and why is not NULL, says which differs first ("field
 * 'cores' is 8, not 32": a's value, then b's). */
bool sp_target_same(const sp_target *a, const sp_target *b, char *why, size_t whylen);

/* Whether target t computes dtype d (NPU: a cube rate; CPU: sp_cpu_computes). */
bool sp_target_computes(const sp_target *t, sp_dtype d);

/* Whether a CPU computes dtype d: fp32, and bf16 and fp16 as storage. */
bool sp_cpu_computes(sp_dtype d);

/* The row stride, in floats, that a generated host kernel gives a copy of
 * rows of n floats: n rounded up to whole 64-byte lines, and to an odd number
 * of them, so that the rows fall in distinct L1 sets. */
int64_t sp_cpu_row_floats(int64_t n);

/* The dtypes t computes, comma-separated ("fp16, int8"), into buf; returns buf. */
const char *sp_target_dtypes(const sp_target *t, char *buf, size_t len);
/* The same of the dtypes the kernels of t's kind take (sp_kind_info.kernels). */
const char *sp_kernel_dtypes(const sp_target *t, char *buf, size_t len);

/* The micro-tile a CPU target's generator uses when the space names none:
 * the tile with the most FMAs per load, mr*nv / (mr + nv), whose mr x nv
 * accumulators, nv B vectors and a broadcast fit the vector registers (nv a
 * power of two; ties to fewer vectors). */
sp_micro sp_micro_default(const sp_target *t);

/* SP_MICRO_AUTO_MAX or fewer tiles into out, those `micro = "auto"` names on
 * CPU target t: the ones the generator runs best on its register file (a
 * table by register count: its first row that t has registers for), each
 * fitting t; else sp_micro_default's tile alone. Returns how many. */
enum { SP_MICRO_AUTO_MAX = 4 };
size_t sp_micro_auto(const sp_target *t, sp_micro *out);

/* Whether micro-tile u fits target t: nr a multiple of the vector width and
 * mr*nv + nv + 1 <= vregs (nv = nr / simd_floats). */
bool sp_micro_fits(const sp_target *t, sp_micro u);
/* Why micro-tile u does not fit t, one clause into buf ("" if it fits). */
void sp_micro_why(const sp_target *t, sp_micro u, char *buf, size_t len);

/* ---- target kinds (kinds.c) ---- */

/* What the rest of the engine knows of a kind of target: its name in
 * scripts, the same with its article for messages, the dtype a problem
 * takes when it names none, the dtypes its generated kernels take, whether
 * its configs carry a register micro-tile (mr x nr), and its own measure
 * (the backend a script on it gets when it names none, where the build has
 * it), what that measure does and what else a script on another kind must
 * change to use it. */
typedef struct {
    const char *name;  /* "npu", "cpu" */
    const char *a;     /* "an npu", "a cpu" */
    sp_dtype dtype;    /* fp16 on an NPU, fp32 on a CPU */
    unsigned kernels;  /* 1 << d for each dtype d its kernels take: an NPU's (and the
                        * simulator) fp16 and int8, whatever else its cube has a
                        * rate for (the model computes that alone) */
    bool micro;        /* CPUs */
    double model_error; /* the model's relative error per config against measurements,
                         * as a search takes it: configs estimated within this of the
                         * best are alike to it (an NPU's 0: against the simulator the
                         * model ranks one core exactly; a CPU's 0.05: half its errors
                         * on the host are 3-12% once its level is set) */
    bool cuts_blocks;  /* its kernels cut each block to the rows, columns and depth the
                        * problem has (a CPU's): configs differing only in blocks past
                        * them run alike */
    const char *measure;       /* "sim", "host" */
    const char *measure_does;  /* "simulates npu targets" */
    const char *measure_needs; /* "target \"host\", or ": before "measure = ..." */
} sp_kind_info;

/* The facts of kind k; NULL for out-of-range k, so that
 * for (k = 0; sp_kind_get(k); k++) walks the registry. */
const sp_kind_info *sp_kind_get(int k);
/* The facts of t's kind. */
const sp_kind_info *sp_target_kind(const sp_target *t);

/* "npu" / "cpu"; NULL for out-of-range k. Parse returns -1 if unknown. */
const char *sp_kind_name(int k);
int sp_kind_parse(const char *s);

/* The names of the kinds whose configs carry a micro-tile ("cpu"), joined
 * by " and ", into buf; returns buf. */
const char *sp_kinds_with_micro(char *buf, size_t len);

/* Room for any target's signature text, its terminating '\0' included. */
#define SP_SIGNATURE_MAX 1024

/* Writes the text journals sign target t by (its hash is their target_sig,
 * so it never changes for a target whose figures do not): the figures its
 * kind's model and kernels depend on, not its name (a CPU's measured clock
 * neither). Returns its length. */
size_t sp_target_signature(const sp_target *t, char buf[SP_SIGNATURE_MAX]);

/* Sets the blocks of c (its strategy, micro-tile, cores and split kept) to
 * the smallest t's kind allows for p: one fractal on an NPU (IS and WS: k is
 * the padded K), one micro-tile by k = 1 on a CPU. */
void sp_smallest(const sp_target *t, const sp_problem *p, sp_config *c);

/* ---- legality and model (legal.c, model.c) ---- */

/* Multiple of the fractal m0 at or above x. */
int64_t sp_pad(int64_t x, int unit);

/* Bitmask of violated rules (0 = legal) of config c for problem p on t. */
unsigned sp_check(const sp_target *t, const sp_problem *p, const sp_config *c);

/* Writes one human line per violated rule of c (with the numbers: needed vs
 * available bytes) into out, '\n'-separated; returns the number of lines. */
int sp_explain(const sp_target *t, const sp_problem *p, const sp_config *c,
               char *out, size_t outlen);

/* The same rules on one line, joined by "; " (for one-line error messages);
 * returns the number of rules. */
int sp_explain_line(const sp_target *t, const sp_problem *p, const sp_config *c, char *out,
                    size_t outlen);

/* Core grid (cores along M, N) of c's split on target t (its kind's tiles:
 * NPU tiles, CPU micro-tiles), or false if the split leaves a core without
 * work (or MN has no 2-D grid). */
bool sp_grid(const sp_target *t, const sp_problem *p, const sp_config *c, int *gm, int *gn);

/* Fills the model figures of a legal config. */
void sp_model(const sp_target *t, const sp_problem *p, const sp_config *c,
              sp_figures *f);

/* ---- enumeration and ranking (enumerate.c, rank.c) ---- */

typedef enum { SP_BY_TIME, SP_BY_VOLUME } sp_order;

/* Total orders used for ranking: est_cycles (resp. Sigma) ascending, then
 * larger buffer use, then the other figure, then the config itself. */
int sp_cmp_time(const sp_candidate *a, const sp_candidate *b);
int sp_cmp_volume(const sp_candidate *a, const sp_candidate *b);
int sp_cmp_config(const sp_config *a, const sp_config *b);

typedef struct {
    int64_t raw;   /* axis product after dropping values beyond the dims; INT64_MAX
                    * when it is larger (huge dimensions with long axes) */
    int64_t legal; /* distinct legal configs */
} sp_counts;

/* The `keep` best legal candidates in `order` (fewer if fewer are legal),
 * sorted best first into out (room for keep). Runs in parallel with OpenMP;
 * the result does not depend on the thread count. Returns how many. */
size_t sp_rank_top(const sp_target *t, const sp_problem *p, const sp_space *s,
                   sp_order order, size_t keep, sp_candidate *out,
                   sp_counts *counts);

/* Every legal candidate, in config order, in a malloc'd array (*out, free it).
 * Returns the count, or (size_t)-1 if memory ran out. */
size_t sp_enumerate(const sp_target *t, const sp_problem *p, const sp_space *s,
                    sp_candidate **out, sp_counts *counts);

/* Sorts candidates best first. */
void sp_sort(sp_candidate *c, size_t n, sp_order order);

/* ---- space helpers (space.c) ---- */

/* Sorts an axis ascending and removes duplicates. */
void sp_axis_normalise(sp_axis *a);
/* Frees the axes of s (not s itself). */
void sp_space_free(sp_space *s);

#pragma GCC visibility pop

#endif
