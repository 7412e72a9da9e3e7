/* internal.h — per-problem constants and the buffer-need rules shared by the
 * single-config check (legal.c) and the enumerator, so both judge alike. */
#ifndef NPU_TUNE_SPACE_INTERNAL_H
#define NPU_TUNE_SPACE_INTERNAL_H

#include "space.h"

typedef struct sp_kind_ops sp_kind_ops;

/* Everything about (target, problem) that the model needs per candidate,
 * computed once. */
typedef struct {
    const sp_target *t;
    const sp_kind_ops *kind;   /* the target's kind */
    const sp_problem *p;
    int64_t in, acc;           /* bytes per input / accumulator element */
    int64_t m0, n0, k0;        /* fractal */
    int64_t Mp, Np, Kp;        /* dims padded to the fractal */
    double inv_bw[SP_NPATH];   /* cycles per byte of each path, one core alone */
    double lat[SP_NPATH];
    double inv_macs;           /* cycles per MAC of the cube for the dtype */
} sp_ctx;

void sp_ctx_init(sp_ctx *x, const sp_target *t, const sp_problem *p);

static inline int64_t sp_ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* Bytes each buffer needs for one tile set; db doubles the ping-ponged
 * buffers (L1 staging, L0A, L0B). L0C holds one accumulator tile. */
static inline int64_t sp_need_l0a(const sp_ctx *x, int64_t m, int64_t k, int db)
{
    return (m * k * x->in) << db;
}
static inline int64_t sp_need_l0b(const sp_ctx *x, int64_t k, int64_t n, int db)
{
    return (k * n * x->in) << db;
}
static inline int64_t sp_need_l0c(const sp_ctx *x, int64_t m, int64_t n)
{
    return m * n * x->acc;
}
static inline int64_t sp_need_l1(const sp_ctx *x, int64_t m, int64_t n, int64_t k, int db)
{
    return ((m * k + k * n) * x->in) << db;
}

/* Core grid of a split for tile counts TM x TN; false if a core idles. MN
 * tries the divisor pairs of cores, found in O(sqrt(cores)) steps. */
bool sp_grid_div(int cores, int split, int64_t TM, int64_t TN, int *gm, int *gn);

/* A dimension cut into tiles: count[0] full tiles of size[0], then count[1]
 * (0 or 1) tail tile of size[1]. */
typedef struct {
    int64_t size[2], count[2];
} sp_tiles;

static inline sp_tiles sp_tiles_of(int64_t dim, int64_t t)
{
    sp_tiles r = {{t, dim % t}, {dim / t, dim % t ? 1 : 0}};
    return r;
}

/* How a tile (m, n, k) cuts the padded problem; the divisions the model needs,
 * done once per tile rather than once per (cores, split). */
typedef struct {
    sp_tiles m, n, k;
} sp_plan;

void sp_plan_init(sp_plan *pl, const sp_ctx *x, int64_t m, int64_t n, int64_t k);

/* ---- text (names.c) ---- */

/* Text appended piece by piece into buf[0..len), cut to fit and always
 * terminated; used counts the characters appended (beyond len once cut). */
typedef struct {
    char *buf;
    size_t len, used;
} sp_text;

__attribute__((format(printf, 2, 3)))
void sp_put(sp_text *o, const char *fmt, ...);
/* The same, and a newline: one line of a text of lines. */
__attribute__((format(printf, 2, 3)))
void sp_line(sp_text *o, const char *fmt, ...);

/* ---- target kinds (kinds.c: the registry; npu.c, cpu.c: the kinds) ---- */

typedef struct sp_walk sp_walk; /* enumerate.c: what a walk over a space needs */
typedef struct sp_sink sp_sink; /* enumerate.c: where it puts the legal candidates */

/* A kind of target: its facts and its operations. */
struct sp_kind_ops {
    sp_kind_info info;
    /* Whether t computes dtype d. */
    bool (*computes)(const sp_target *t, sp_dtype d);
    /* Checks the fields of t that are the kind's own (t is called n in
     * messages), as sp_target_check promises. */
    bool (*check_target)(const sp_target *t, const char *n, char *err, size_t errlen);
    /* Appends t's signature (sp_target_signature). */
    void (*sign)(const sp_target *t, sp_text *o);
    /* The violated rules of c (sp_check) and their lines (sp_explain). */
    unsigned (*check)(const sp_ctx *x, const sp_config *c);
    void (*explain)(const sp_ctx *x, const sp_config *c, unsigned bad, sp_text *o);
    /* The core grid of c's split (sp_grid). */
    bool (*grid)(const sp_problem *p, const sp_config *c, int *gm, int *gn);
    /* The figures of legal config c on a gm x gn grid (sp_model). */
    void (*model)(const sp_ctx *x, const sp_config *c, int gm, int gn, sp_figures *f);
    /* Puts the legal candidates with strategy st, double buffering db and
     * tile rows m into out (dtype computed: the caller checked). */
    void (*walk)(const sp_walk *w, int st, int db, int32_t m, sp_sink *out);
    /* Sets the blocks of c to the smallest the kind allows (sp_smallest). */
    void (*smallest)(const sp_ctx *x, sp_config *c);
};

extern const sp_kind_ops sp_npu_kind; /* npu.c */
extern const sp_kind_ops sp_cpu_kind; /* cpu.c */

/* The kind of t (an NPU if t's kind is out of range). */
const sp_kind_ops *sp_kind_of(const sp_target *t);

/* ---- rules every kind explains alike (legal.c) ---- */

/* The lines of SP_BAD_CORES and SP_BAD_DTYPE in bad. */
void sp_explain_shared(const sp_ctx *x, const sp_config *c, unsigned bad, sp_text *o);

/* ---- NPU targets (npu.c, model.c, enumerate.c) ---- */

/* Appends the figures of an NPU, with clock as its clock: an NPU's
 * signature, and the start of a CPU's (whose NPU figures are zeros), as
 * journals have always been signed. */
void sp_npu_sign_figures(const sp_target *t, double clock, sp_text *o);
/* The NPU walk (sp_kind_ops.walk). */
void sp_npu_walk(const sp_walk *w, int st, int db, int32_t m, sp_sink *out);

/* ---- CPU targets (cpu.c) ---- */

/* Bytes config c needs resident in cache level SP_CL1/2/3 (per thread). */
int64_t sp_cpu_need(const sp_config *c, int level);
/* The L3 bytes each of `threads` threads may use. */
int64_t sp_cpu_l3_share(const sp_target *t, int threads);
/* The thread grid of a CPU config (threads split micro-tiles); false if a
 * thread would idle. */
bool sp_cpu_grid(const sp_problem *p, const sp_config *c, int *gm, int *gn);
/* Violated rules of c on a CPU target. */
unsigned sp_cpu_check(const sp_ctx *x, const sp_config *c);
/* The model of a legal CPU config on a gm x gn thread grid. */
void sp_cpu_model(const sp_ctx *x, const sp_config *c, int gm, int gn, sp_figures *f);
/* The CPU walk (sp_kind_ops.walk). */
void sp_cpu_walk(const sp_walk *w, int st, int db, int32_t m, sp_sink *out);

/* The model for a legal config whose tile plan and core grid are known. */
void sp_model_plan(const sp_ctx *x, const sp_config *c, const sp_plan *pl, int gm, int gn,
                   sp_figures *f);

#endif
