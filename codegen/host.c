/* host.c — the host-CPU kernel generator: a config's header (its numbers and code
 * path choices) and micro-kernels around the fixed code of codegen/host/{prelude,gemm}.c. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

/* The fixed code of every kernel, codegen/host/prelude.c and gemm.c, embedded at build
 * time (see prelude.c for how a kernel is put together). */
extern const char cg_host_prelude[], cg_host_gemm[], cg_host_pool[];

/* Limits on what the generator accepts or uses: larger cache blocks are
 * clamped (they could not stay in any cache level anyway). */
enum {
    MR_MAX = 32,        /* rows of a micro-tile */
    NR_MAX = 256,       /* columns of a micro-tile */
    ACC_MAX = 256,      /* mr * nr / 4: accumulators of the 4-float code path */
    MC_MAX = 8192,
    NC_MAX = 65536,
    KC_MAX = 8192,
    CORES_MAX = 1024,
    SYMBOL_MAX = 64,
    UNROLL = 4,         /* k steps per iteration of the micro-kernel loop */
    EDGE_KERNELS = SP_CPU_EDGE_VECTORS /* widest tile (in vectors) with narrower edge kernels */
};

/* The vector code paths, widest first (prelude.c has their types and operations): the
 * preprocessor condition under which the compiler targets one (NULL: the portable
 * fallback), and its floats per vector. */
static const struct {
    const char *guard;
    int width;
} isas[] = {
    {"defined(__AVX512F__)", 16},
    {"defined(__AVX2__) && defined(__FMA__)", 8},
    {NULL, 4},
};

/* The accumulator name of micro-tile row i, vector v. */
static void acc_name(char *buf, size_t n, int i, int v)
{
    snprintf(buf, n, "c%d_%d", i, v);
}

/* The end of a micro-kernel: rows [r0, r1) of its tile (nv vectors of w floats each)
 * added to c when acc, then stored, each line after `in`. */
static void emit_rows(FILE *f, int r0, int r1, int w, int nv, const char *in)
{
    char name[32];
    fprintf(f, "%s    if (acc) {\n", in);
    for (int i = r0; i < r1; i++)
        for (int v = 0; v < nv; v++) {
            acc_name(name, sizeof name, i, v);
            fprintf(f, "%s        %s = NT_(vadd)(%s, NT_(vloadu)(c + %d * ldc + %d));\n", in, name,
                    name, i, v * w);
        }
    fprintf(f, "%s    }\n", in);
    for (int i = r0; i < r1; i++)
        for (int v = 0; v < nv; v++) {
            acc_name(name, sizeof name, i, v);
            fprintf(f, "%s    NT_(vstoreu)(c + %d * ldc + %d, %s);\n", in, i, v * w, name);
        }
}

/* A micro-kernel of one code path computing the first nv vectors of the
 * NR-wide tile (nv = NR/w: the full kernel NT_(ukr), else NT_(ukr_nv), for edge
 * tiles): one k step per iteration (B row loads, then per A row a broadcast
 * and nv FMAs), unrolled by the compiler. Written this way gcc keeps the
 * accumulators, the B vectors and the broadcast in registers with no copies
 * or spills (an unrolled source with a temporary per step makes it hoist
 * loads and spill). The broadcasts are separate loads (vbroadcastss), not
 * embedded {1to16} operands: every load uop slows the FMAs on the machine
 * this was tuned on, and an embedded broadcast costs one per FMA instead of
 * one per row (8x48 in L1: 91% of the FMA peak, embedded 78%). direct: the
 * no-pack family's NT_(dkr) instead, the whole tile reading B in place (rows
 * ldb floats apart, unaligned loads) and only `rows` rows of A. */
static void emit_ukr(FILE *f, int mr, int nr, int w, int nv, bool direct)
{
    char name[32], fn[32];
    if (direct) {
        snprintf(fn, sizeof fn, "NT_(dkr)");
        fputs("\n/* The no-pack micro-kernel: c[0..MR) x [0..NR) (row stride ldc) = (acc ? c : 0)\n"
              " * + A rows a[i*lda + 0..kc) (i < rows <= MR) . B read in place, kc rows of NR\n"
              " * floats ldb apart; only c's first `rows` rows are read and written. Where rows\n"
              " * is a constant the rows past it cost nothing, else they repeat the last. */\n", f);
    } else if (nv == nr / w) {
        snprintf(fn, sizeof fn, "NT_(ukr)");
        fputs("\n/* The micro-kernel: c[0..MR) x [0..NR) (row stride ldc) = (acc ? c : 0) +\n"
              " * A rows a[i*lda + 0..kc) (i < MR) . the packed B panel (kc rows of NR),\n"
              " * accumulating in MR x NR/VW vector registers. */\n", f);
    } else {
        snprintf(fn, sizeof fn, "NT_(ukr_%d)", nv);
        fprintf(f, "\n/* The micro-kernel for the first %d vectors of the tile only. */\n", nv);
    }
    if (direct) /* inlined into its tile loop even where the compiler would not (a library
                 * of many kernels): a call per tile costs 1% at 64x64x64 */
        fprintf(f, "static inline __attribute__((always_inline)) void\n"
                   "%s(int kc, const float *restrict a, ptrdiff_t lda, int rows,\n"
                   "    const float *restrict b, ptrdiff_t ldb, float *restrict c, ptrdiff_t ldc,\n"
                   "    int acc)\n{\n", fn);
    else
        fprintf(f, "static void %s(int kc, const float *restrict a, ptrdiff_t lda,\n"
                   "    const float *restrict b, float *restrict c, ptrdiff_t ldc, int acc)\n{\n",
                fn);
    if (direct && mr == 1)
        fputs("    (void)rows;\n", f);
    for (int i = 0; i < mr; i++)
        if (direct && i > 0)
            fprintf(f, "    const float *restrict a%d = a + (%d < rows ? %d : rows - 1) * lda;\n", i,
                    i, i);
        else
            fprintf(f, "    const float *restrict a%d = a + %d * lda;\n", i, i);
    for (int i = 0; i < mr; i++) {
        fputs("    NT_(vec)", f);
        for (int v = 0; v < nv; v++) {
            acc_name(name, sizeof name, i, v);
            fprintf(f, "%s %s = NT_(vzero)()", v ? "," : "", name);
        }
        fputs(";\n", f);
    }
    /* unrolled when the accumulators fit the registers; a tile that spills
     * anyway (a wide tile on narrow vectors) gains nothing from it */
    fprintf(f, "#pragma GCC unroll %d\n", mr * nv + nv + 1 <= 32 ? UNROLL : 1);
    fprintf(f, "    for (int p = 0; p < kc; p++, b += %s) {\n", direct ? "ldb" : "NT_(NR)");
    for (int v = 0; v < nv; v++)
        fprintf(f, "        NT_(vec) b%d = NT_(%s)(b + %d);\n", v, direct ? "vloadu" : "vload",
                v * w);
    fputs("        NT_(vec) t;\n", f);
    for (int i = 0; i < mr; i++) {
        fprintf(f, "        t = NT_(vbcast)(a%d + p);", i);
        for (int v = 0; v < nv; v++) {
            acc_name(name, sizeof name, i, v);
            fprintf(f, " %s = NT_(vfma)(t, b%d, %s);", name, v, name);
        }
        fputs("\n", f);
    }
    fputs("    }\n", f);
    /* the rows: all of them, or in the no-pack kernel row 0 and each row below `rows` */
    emit_rows(f, 0, direct ? 1 : mr, w, nv, "");
    for (int i = 1; direct && i < mr; i++) {
        fprintf(f, "    if (%d < rows) {\n", i);
        emit_rows(f, i, i + 1, w, nv, "    ");
        fputs("    }\n", f);
    }
    fputs("}\n", f);
}

/* The micro-kernels of one code path: the full one, and when the tile is at
 * most EDGE_KERNELS vectors wide one per narrower width, which NT_(ukr_cols)
 * picks for an edge tile of `cols` columns (so a last, narrow column panel
 * costs its own width, not the whole tile's). */
static void emit_ukrs(FILE *f, int mr, int nr, int w, bool direct)
{
    int nv = nr / w;
    bool narrow = nv <= EDGE_KERNELS;
    for (int v = 1; narrow && v < nv; v++)
        emit_ukr(f, mr, nr, w, v, false);
    emit_ukr(f, mr, nr, w, nv, false);
    if (direct)
        emit_ukr(f, mr, nr, w, nv, true);
    fputs("\n/* c (row stride NR) = the first cols (<= NR) columns of the tile, and\n"
          " * possibly more. */\n"
          "static void NT_(ukr_cols)(int kc, const float *a, ptrdiff_t lda, const float *b,\n"
          "                          float *c, int cols)\n{\n", f);
    if (narrow && nv > 1) {
        fputs("    switch ((cols + NT_(VW) - 1) / NT_(VW)) {\n", f);
        for (int v = 1; v < nv; v++)
            fprintf(f, "    case %d:\n        NT_(ukr_%d)(kc, a, lda, b, c, NT_(NR), 0);\n"
                       "        return;\n", v, v);
        fputs("    default:\n        break;\n    }\n", f);
    } else {
        fputs("    (void)cols;\n", f);
    }
    fputs("    NT_(ukr)(kc, a, lda, b, c, NT_(NR), 0);\n}\n", f);
}

/* One block per vector code path that suits NR, widest first, in an #if chain: the
 * header's choice of NT_VW (ukrs false; on the compiler's targets), or the micro-kernels
 * of each path (ukrs true; on NT_VW; direct: the no-pack one too). */
static void emit_paths(FILE *f, int mr, int nr, bool ukrs, bool direct)
{
    int n = 0;
    for (size_t p = 0; p < sizeof isas / sizeof isas[0]; p++) {
        if (nr % isas[p].width)
            continue;
        if (isas[p].guard && ukrs)
            fprintf(f, "#%s NT_VW == %d\n", n ? "elif" : "if", isas[p].width);
        else if (isas[p].guard)
            fprintf(f, "#%s %s\n", n ? "elif" : "if", isas[p].guard);
        else if (n)
            fputs("#else\n", f);
        if (ukrs)
            emit_ukrs(f, mr, nr, isas[p].width, direct);
        else
            fprintf(f, "#define NT_VW %d\n", isas[p].width);
        n++;
    }
    if (n > 1)
        fputs("#endif\n", f);
}

/* How A and B are stored, per dtype the host computes: fp32, or 16-bit
 * patterns widened to fp32 (A once per call, B as it is packed; C and every
 * sum fp32). */
typedef struct {
    const char *title;  /* the kernel's headline */
    const char *symbol; /* the default entry point */
    const char *code;   /* NT_DTYPE's value (prelude.c) */
    const char *note;   /* the header's lines on the storage, or NULL */
} storage;

static const storage storages[SP_NDTYPE] = {
    [SP_FP32] = {"fp32", "nt_sgemm", "NT_FP32", NULL},
    [SP_BF16] = {"bf16-storage", "nt_sbgemm", "NT_BF16",
                 " * A and B hold bf16 values (uint16_t: the upper half of an fp32), widened\n"
                 " * to fp32 (A once per call, B as it is packed); C and every sum are fp32.\n"},
    [SP_FP16] = {"fp16-storage", "nt_shgemm", "NT_FP16",
                 " * A and B hold IEEE fp16 values (uint16_t bit patterns), widened to fp32\n"
                 " * (A once per call, B as it is packed; F16C where the compiler targets\n"
                 " * it); C and every sum are fp32.\n"},
};

/* True if s is a C identifier of at most SYMBOL_MAX characters outside the kernels'
 * macros (NT_*). */
static bool valid_symbol(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > SYMBOL_MAX || (s[0] >= '0' && s[0] <= '9') || strncmp(s, "NT_", 3) == 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_'))
            return false;
    }
    return true;
}

/* Writes msg into err; returns false. */
static bool fail(char *err, size_t errlen, const char *msg)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
    return false;
}

static int clamp(int x, int hi) { return x < hi ? x : hi; }

/* Checks the config and tile, then emits the kernel (see codegen.h); nothing
 * is written when they are refused. */
bool cg_host_source(FILE *f, const sp_config *c, sp_dtype dtype, const char *symbol, char *err,
                    size_t errlen)
{
    char msg[160];
    if (!f || !c)
        return fail(err, errlen, "host kernel: no output or no config");
    const storage *st = (int)dtype >= 0 && dtype < SP_NDTYPE ? &storages[dtype] : NULL;
    if (!st || !st->title) {
        snprintf(msg, sizeof msg,
                 "host kernel: dtype %s: the host computes fp32, bf16 and fp16 only",
                 sp_dtype_name(dtype) ? sp_dtype_name(dtype) : "?");
        return fail(err, errlen, msg);
    }
    bool widen = dtype != SP_FP32;
    const char *sym = symbol ? symbol : st->symbol;
    if (!valid_symbol(sym))
        return fail(err, errlen,
                    "host kernel: the symbol is not a C identifier of at most 64 characters "
                    "outside NT_*");
    if (c->m < 1 || c->n < 1 || c->k < 1) {
        snprintf(msg, sizeof msg, "host kernel: cache blocks m=%d n=%d k=%d must be >= 1", (int)c->m,
                 (int)c->n, (int)c->k);
        return fail(err, errlen, msg);
    }
    if (c->cores < 1 || c->cores > CORES_MAX) {
        snprintf(msg, sizeof msg, "host kernel: cores=%d outside 1..%d", (int)c->cores, CORES_MAX);
        return fail(err, errlen, msg);
    }
    if (c->strategy >= SP_NSTRATEGY || c->split >= SP_NSPLIT || c->double_buffer > 1)
        return fail(err, errlen, "host kernel: unknown strategy, split or double_buffer value");
    if (c->nopack > 1 || (c->nopack && widen))
        return fail(err, errlen,
                    c->nopack > 1 ? "host kernel: unknown pack value"
                                  : "host kernel: the no-pack family (pack = false) takes fp32 only");
    int mr = c->mr, nr = c->nr;
    if (mr < 1 || mr > MR_MAX || nr < 4 || nr > NR_MAX || nr % 4 || mr * nr / 4 > ACC_MAX) {
        snprintf(msg, sizeof msg,
                 "host kernel: micro-tile %dx%d: need 1 <= mr <= %d, nr a multiple of the vector "
                 "width (4) up to %d, mr*nr <= %d",
                 mr, nr, MR_MAX, NR_MAX, 4 * ACC_MAX);
        return fail(err, errlen, msg);
    }

    /* Cache blocks: mc rounded up to whole micro-tile rows, nc to whole
     * columns, kc as given; each clamped to a size no cache level could hold
     * anyway. The rows of a copied (partial) A micro-panel are KS floats
     * apart (sp_cpu_row_floats), in distinct L1 sets. */
    int mc = (clamp(c->m, MC_MAX) + mr - 1) / mr * mr;
    int nc = (clamp(c->n, NC_MAX) + nr - 1) / nr * nr;
    int kc = clamp(c->k, KC_MAX);
    int ks = (int)sp_cpu_row_floats(kc);
    int cores = c->cores;
    const char *strat = sp_strategy_name(c->strategy), *split = sp_split_name(c->split);
    static const char *const strat_doc[SP_NSTRATEGY] = {
        [SP_IS] = "the A block stays resident while B blocks stream",
        [SP_WS] = "the packed B block stays resident while A blocks stream",
        [SP_OS] = "the C block stays resident while the k blocks accumulate"};

    fprintf(f, "/* %s — %s GEMM for the host CPU, generated by npu-tune.\n"
               " * config: strategy %s (%s),\n"
               " *         m = %d, n = %d, k = %d (cache blocks mc x nc x kc), double_buffer = %d,\n"
               " *         cores = %d, split = %s\n",
            sym, st->title, strat, strat_doc[c->strategy], (int)c->m, (int)c->n, (int)c->k,
            c->double_buffer, cores, split);
    fprintf(f, " * micro-tile: %d x %d (MR rows of A x NR columns of B in vector registers)\n", mr,
            nr);
    fputs(c->double_buffer
              ? " * double_buffer: while a step computes, the blocks the next step reads\n"
                " *   anew (its A block, the source of its B block if still to be packed,\n"
                " *   its C block) are prefetched into L2, a share after each micro-tile.\n"
              : " * double_buffer off: each block is fetched when its step needs it.\n",
          f);
    if (cores == 1)
        fputs(" * threads: 1 (no parallel region).\n", f);
    else
        fprintf(f, " * threads: %d OpenMP threads, each owning a disjoint part of C in whole\n"
                   " *   micro-tiles (%s), with its own pack buffers.\n",
                cores, c->split == SP_SPLIT_M ? "split M: bands of rows"
                       : c->split == SP_SPLIT_N ? "split N: bands of columns"
                                                : "split MN: cells of a gm x gn grid");
    fprintf(f, " * C = A.B, row-major, any M, N, K; B is packed kc x nc into NR-column panels\n"
               " * (per thread: once per block, or in IS and OS order once per block row\n"
               " * of A when there are fewer than %d), A is %s, and a register-blocked\n"
               " * micro-kernel computes each MR x NR tile of C (edge tiles into a scratch\n"
               " * tile, with a narrower kernel for a last, narrow column panel).\n",
            SP_CPU_BCACHE_VISITS, widen ? "widened to fp32 once per call" : "read in place");
    if (c->nopack)
        fputs(" * pack = false: with A and B as given (not transposed), a full-width column\n"
              " * panel is not packed: each MR x NR tile of C stays in registers over a k\n"
              " * block (kc < K: B is read a few rows at a time along their length) while\n"
              " * A's rows and B's columns are read in place (B with unaligned loads), the\n"
              " * rows of a last, partial tile repeating its last row; the rest of C (a\n"
              " * last, narrow column panel, unless kc < K: overlapping tiles) and\n"
              " * transposed calls take the packing path.\n",
              f);
    fprintf(f, " * Vector code chosen at compile time: %s%sportable GCC vectors.\n",
            nr % 16 == 0 ? "AVX-512, " : "", nr % 8 == 0 ? "AVX2+FMA or " : "");
    if (st->note)
        fputs(st->note, f);
    fputs(" * Build: cc -O3 -march=native -fopenmp -c. */\n", f);

    /* the header: the choices (prelude.c has their values), the tunables, the numbers */
    fprintf(f, "\n/* This kernel's choices and, below, its numbers; then come npu-tune's\n"
               " * codegen/host/prelude.c, this kernel's micro-kernels, codegen/host/gemm.c. */\n"
               "#define NT_(name) %s_##name /* the kernel's names */\n"
               "#define NT_SYMBOL %s /* its entry point */\n"
               "#define NT_DTYPE %s /* how A and B are stored */\n"
               "#define NT_ORDER NT_%s /* the order of the block steps */\n",
            sym, sym, st->code, strat);
    if (cores == 1)
        fputs("#define NT_SPLIT NT_SERIAL /* one thread */\n", f);
    else
        fprintf(f, "#define NT_SPLIT NT_SPLIT_%s /* how the threads split C */\n", split);
    if (c->nopack)
        fputs("#define NT_NOPACK 1 /* the no-pack family: tiles read A and B in place */\n", f);
    fputs("/* the vector code path: floats per vector */\n", f);
    emit_paths(f, mr, nr, false, false);
    fprintf(f, "\n/* Bytes of packed B a thread keeps (every block packed once) before it\n"
               " * falls back to repacking one block buffer; -D overrides (one value for\n"
               " * all the kernels of a translation unit). */\n"
               "#ifndef NT_HOST_BCACHE\n#define NT_HOST_BCACHE %d\n#endif\n",
            SP_CPU_BCACHE_BYTES);
    if (widen)
        fprintf(f, "\n/* Bytes of A a thread widens to fp32 at a time (all its rows of A when they\n"
                   " * fit, else bands of whole row blocks); -D overrides. */\n"
                   "#ifndef NT_HOST_AWIDE\n#define NT_HOST_AWIDE %d\n#endif\n",
                SP_CPU_AWIDE_BYTES);
    fputs("\nenum {\n", f);
    fprintf(f, "    NT_(MR) = %d, NT_(NR) = %d, /* micro-tile */\n", mr, nr);
    fprintf(f, "    NT_(MC) = %d, NT_(NC) = %d, NT_(KC) = %d, /* cache blocks: mc, nc in whole\n"
               "                                   micro-tiles, all at most %d, %d, %d */\n",
            mc, nc, kc, MC_MAX, NC_MAX, KC_MAX);
    fprintf(f, "    NT_(KS) = %d, /* row stride of a copied A micro-panel */\n", ks);
    fprintf(f, "    NT_(ALIAS) = %d, /* A rows a multiple of this many floats apart are copied */\n",
            SP_CPU_ALIAS_FLOATS);
    fprintf(f, "    NT_(ALIAS_ROWS) = %d, /* (by the packing code: panels of more rows) */\n",
            SP_CPU_ALIAS_ROWS);
    fprintf(f, "    NT_(DB) = %d, /* double buffering: prefetch the next blocks into L2 */\n",
            c->double_buffer ? 1 : 0);
    fprintf(f, "    NT_(CORES) = %d, /* OpenMP threads */\n", cores);
    fprintf(f, "    NT_(REVISITS) = %d, /* the step order meets a B block again (IS, OS) */\n",
            c->strategy != SP_WS);
    fprintf(f, "    NT_(VISITS) = %d, /* keep the packed B blocks when met this many times */\n",
            SP_CPU_BCACHE_VISITS);
    fputs("    NT_(BCACHE) = NT_HOST_BCACHE", f);
    fputs(widen ? ", /* bytes: keep every packed B block up to this */\n"
                  "    NT_(AWIDE) = NT_HOST_AWIDE /* bytes: widen this much of A at a time */\n};\n"
                : " /* bytes: keep every packed B block up to this */\n};\n",
          f);

    /* the fixed code, with this kernel's micro-kernels between its two parts */
    fputs(cg_host_prelude, f);
    emit_paths(f, mr, nr, true, c->nopack != 0);
    fputs(cg_host_gemm, f);
    if (ferror(f))
        return fail(err, errlen, "host kernel: writing the source failed");
    return true;
}

/* See codegen.h. */
char *cg_host_text(const sp_config *c, sp_dtype dtype, const char *symbol, char *err, size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    bool ok = cg_host_source(f, c, dtype, symbol, err, errlen);
    if (fclose(f) != 0 && ok) {
        snprintf(err, errlen, "out of memory");
        ok = false;
    }
    if (!ok) {
        free(text);
        return NULL;
    }
    return text;
}

/* See codegen.h: the choices in the header cg_host_source writes, and its micro-kernels. */
bool cg_host_same_code(sp_dtype da, const sp_config *a, sp_dtype db, const sp_config *b)
{
    return da == db && a->strategy == b->strategy && a->double_buffer == b->double_buffer &&
           a->mr == b->mr && a->nr == b->nr && a->nopack == b->nopack &&
           (a->cores > 1) == (b->cores > 1) &&
           (a->cores == 1 || a->split == b->split);
}

/* See codegen.h: host/pool.c, embedded at build time. */
const char *cg_host_pool_source(void)
{
    return cg_host_pool;
}

#define POOL_USE "#define NT_HOST_POOL nt_lib_parallel\n"
#define POOL_PARAMS "(int n, void (*fn)(void *, int), void *arg)"

const char *cg_host_pool_use(bool weak)
{
    return weak ? POOL_USE "void nt_lib_parallel" POOL_PARAMS " __attribute__((weak));\n"
                : POOL_USE "static void nt_lib_parallel" POOL_PARAMS ";\n";
}
