/* host.c — the host-CPU kernel generator: emits a self-contained GotoBLAS/BLIS
 * style fp32 GEMM (packed blocks, register micro-tile, OpenMP) for a config. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "codegen.h"

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
    UNROLL = 4          /* k steps per iteration of the micro-kernel loop */
};

/* One vector code path of the emitted source. */
typedef struct {
    const char *guard; /* preprocessor condition, NULL for the fallback */
    int width;         /* floats per vector */
    const char *prelude; /* typedef and inline wrappers ('@' = symbol) */
} isa;

static const isa isas[] = {
    {"defined(__AVX512F__)", 16,
     "typedef __m512 @_vec;\n"
     "enum { @_VW = 16 };\n"
     "static inline @_vec @_vzero(void) { return _mm512_setzero_ps(); }\n"
     "static inline @_vec @_vload(const float *p) { return _mm512_load_ps(p); }\n"
     "static inline @_vec @_vloadu(const float *p) { return _mm512_loadu_ps(p); }\n"
     "static inline void @_vstoreu(float *p, @_vec v) { _mm512_storeu_ps(p, v); }\n"
     "static inline @_vec @_vbcast(const float *p) { return _mm512_set1_ps(*p); }\n"
     "static inline @_vec @_vfma(@_vec a, @_vec b, @_vec c) { return _mm512_fmadd_ps(a, b, c); }\n"
     "static inline @_vec @_vadd(@_vec a, @_vec b) { return _mm512_add_ps(a, b); }\n"},
    {"defined(__AVX2__) && defined(__FMA__)", 8,
     "typedef __m256 @_vec;\n"
     "enum { @_VW = 8 };\n"
     "static inline @_vec @_vzero(void) { return _mm256_setzero_ps(); }\n"
     "static inline @_vec @_vload(const float *p) { return _mm256_load_ps(p); }\n"
     "static inline @_vec @_vloadu(const float *p) { return _mm256_loadu_ps(p); }\n"
     "static inline void @_vstoreu(float *p, @_vec v) { _mm256_storeu_ps(p, v); }\n"
     "static inline @_vec @_vbcast(const float *p) { return _mm256_broadcast_ss(p); }\n"
     "static inline @_vec @_vfma(@_vec a, @_vec b, @_vec c) { return _mm256_fmadd_ps(a, b, c); }\n"
     "static inline @_vec @_vadd(@_vec a, @_vec b) { return _mm256_add_ps(a, b); }\n"},
    {NULL, 4,
     "typedef float @_vec __attribute__((vector_size(16)));\n"
     "enum { @_VW = 4 };\n"
     "static inline @_vec @_vzero(void) { @_vec v = {0.0f, 0.0f, 0.0f, 0.0f}; return v; }\n"
     "static inline @_vec @_vload(const float *p) { @_vec v; memcpy(&v, p, sizeof v); return v; }\n"
     "static inline @_vec @_vloadu(const float *p) { @_vec v; memcpy(&v, p, sizeof v); return v; }\n"
     "static inline void @_vstoreu(float *p, @_vec v) { memcpy(p, &v, sizeof v); }\n"
     "static inline @_vec @_vbcast(const float *p) { @_vec v = {*p, *p, *p, *p}; return v; }\n"
     "static inline @_vec @_vfma(@_vec a, @_vec b, @_vec c) { return c + a * b; }\n"
     "static inline @_vec @_vadd(@_vec a, @_vec b) { return a + b; }\n"},
};

/* Output state: the stream and the symbol that replaces '@' in templates. */
typedef struct {
    FILE *f;
    const char *sym;
} out;

/* Writes text with every '@' replaced by the symbol. */
static void put(const out *o, const char *text)
{
    for (const char *p = text; *p; p++)
        if (*p == '@')
            fputs(o->sym, o->f);
        else
            fputc(*p, o->f);
}

/* printf, then put. */
static void putf(const out *o, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    put(o, line);
}

/* The accumulator name of micro-tile row i, vector v. */
static void acc_name(char *buf, size_t n, int i, int v)
{
    snprintf(buf, n, "c%d_%d", i, v);
}

/* The micro-kernel of one code path. */
static void emit_ukr(const out *o, int mr, int nr, int w)
{
    int nv = nr / w;
    char name[32];
    put(o, "\n/* The micro-kernel: c[0..MR) x [0..NR) (row stride ldc) = (acc ? c : 0) +\n"
           " * the packed A panel (MR rows of kc, stride KS) . the packed B panel (kc rows\n"
           " * of NR), accumulating in MR x NR/VW vector registers. */\n");
    put(o, "static void @_ukr(int kc, const float *restrict a, const float *restrict b,\n"
           "                  float *restrict c, ptrdiff_t ldc, int acc)\n{\n");
    for (int i = 0; i < mr; i++) {
        put(o, "    @_vec");
        for (int v = 0; v < nv; v++) {
            acc_name(name, sizeof name, i, v);
            putf(o, "%s %s = @_vzero()", v ? "," : "", name);
        }
        put(o, ";\n");
    }
    put(o, "    @_vec t");
    for (int v = 0; v < nv; v++)
        putf(o, ", b%d", v);
    put(o, ";\n");
    put(o, "    for (int i = 0; i < @_MR; i++) { /* the C tile is needed at the end */\n"
           "        __builtin_prefetch(c + i * ldc, 1, 3);\n"
           "        __builtin_prefetch(c + i * ldc + @_NR - 1, 1, 3);\n"
           "    }\n");
    /* unrolled k loop when the accumulators fit the registers; a tile that
     * spills anyway (a wide tile on narrow vectors) gains nothing from it */
    int unroll = mr * nv <= 32 ? UNROLL : 1;
    for (int loop = unroll > 1 ? 0 : 1; loop < 2; loop++) {
        int steps = loop == 0 ? unroll : 1;
        if (loop == 0)
            putf(o, "    int p = 0;\n    for (; p + %d <= kc; p += %d, a += %d, b += %d * @_NR) {\n",
                 steps, steps, steps, steps);
        else
            put(o, unroll > 1 ? "    for (; p < kc; p++, a++, b += @_NR) {\n"
                              : "    for (int p = 0; p < kc; p++, a++, b += @_NR) {\n");
        for (int u = 0; u < steps; u++) {
            for (int v = 0; v < nv; v++)
                putf(o, "        b%d = @_vload(b + %d);\n", v, u * nr + v * w);
            for (int i = 0; i < mr; i++) {
                putf(o, "        t = @_vbcast(a + %d * @_KS + %d);", i, u);
                for (int v = 0; v < nv; v++) {
                    acc_name(name, sizeof name, i, v);
                    putf(o, " %s = @_vfma(t, b%d, %s);", name, v, name);
                }
                put(o, "\n");
            }
        }
        put(o, "    }\n");
    }
    put(o, "    if (acc) {\n");
    for (int i = 0; i < mr; i++)
        for (int v = 0; v < nv; v++) {
            acc_name(name, sizeof name, i, v);
            putf(o, "        %s = @_vadd(%s, @_vloadu(c + %d * ldc + %d));\n", name, name, i,
                 v * w);
        }
    put(o, "    }\n");
    for (int i = 0; i < mr; i++)
        for (int v = 0; v < nv; v++) {
            acc_name(name, sizeof name, i, v);
            putf(o, "    @_vstoreu(c + %d * ldc + %d, %s);\n", i, v * w, name);
        }
    put(o, "}\n");
}

/* Packing, edge tiles, the fallback and the macro-kernel: the same for every
 * config (the numbers come from the enum of the header). */
static const char driver_common[] =
    "\n/* Copies an A block (rows x kc, row stride lda) into MR-row panels: row i\n"
    " * of panel q at dst + (q*MR + i)*KS, k contiguous; the rows of a last,\n"
    " * partial panel past the block are zero. */\n"
    "static void @_pack_a(const float *A, ptrdiff_t lda, int rows, int kc, float *dst)\n"
    "{\n"
    "    int padded = (rows + @_MR - 1) / @_MR * @_MR;\n"
    "    for (int r = 0; r < padded; r++)\n"
    "        if (r < rows)\n"
    "            memcpy(dst + (ptrdiff_t)r * @_KS, A + (ptrdiff_t)r * lda,\n"
    "                   sizeof(float) * (size_t)kc);\n"
    "        else\n"
    "            memset(dst + (ptrdiff_t)r * @_KS, 0, sizeof(float) * (size_t)kc);\n"
    "}\n"
    "\n/* Copies a B block (kc x cols, row stride ldb) into NR-column panels: panel\n"
    " * q at dst + q*kc*NR, its row p at + p*NR. Whole panels are copied row by\n"
    " * row, so B is read sequentially; the columns of a last, partial panel past\n"
    " * the block are zero. */\n"
    "static void @_pack_b(const float *B, ptrdiff_t ldb, int cols, int kc, float *dst)\n"
    "{\n"
    "    int whole = cols / @_NR, w = cols - whole * @_NR;\n"
    "    for (int p = 0; p < kc; p++)\n"
    "        for (int q = 0; q < whole; q++)\n"
    "            memcpy(dst + ((ptrdiff_t)q * kc + p) * @_NR,\n"
    "                   B + (ptrdiff_t)p * ldb + (ptrdiff_t)q * @_NR, sizeof(float) * @_NR);\n"
    "    if (w > 0)\n"
    "        for (int p = 0; p < kc; p++) {\n"
    "            float *d = dst + ((ptrdiff_t)whole * kc + p) * @_NR;\n"
    "            memcpy(d, B + (ptrdiff_t)p * ldb + (ptrdiff_t)whole * @_NR,\n"
    "                   sizeof(float) * (size_t)w);\n"
    "            memset(d + w, 0, sizeof(float) * (size_t)(@_NR - w));\n"
    "        }\n"
    "}\n"
    "\n/* An edge micro-tile (rows x cols inside MR x NR): computed whole into a\n"
    " * scratch tile, then only its valid part is written to C. */\n"
    "static void @_edge(int kc, const float *a, const float *b, float *c, ptrdiff_t ldc,\n"
    "                   int acc, int rows, int cols)\n"
    "{\n"
    "    _Alignas(64) float t[@_MR * @_NR];\n"
    "    @_ukr(kc, a, b, t, @_NR, 0);\n"
    "    for (int i = 0; i < rows; i++)\n"
    "        for (int j = 0; j < cols; j++)\n"
    "            c[(ptrdiff_t)i * ldc + j] = acc ? c[(ptrdiff_t)i * ldc + j] + t[i * @_NR + j]\n"
    "                                            : t[i * @_NR + j];\n"
    "}\n"
    "\n/* Source rows of a block the next step will pack (double buffering). */\n"
    "typedef struct {\n"
    "    const float *src;\n"
    "    ptrdiff_t ld;\n"
    "    int rows, cols;\n"
    "} @_next;\n"
    "\n/* Prefetches rows [r0, r1) of a next block into L2. */\n"
    "static void @_prefetch_rows(const @_next *x, int r0, int r1)\n"
    "{\n"
    "    for (int r = r0; r < r1; r++) {\n"
    "        const float *row = x->src + (ptrdiff_t)r * x->ld;\n"
    "        for (int l = 0; l < x->cols; l += 16)\n"
    "            __builtin_prefetch(row + l, 0, 2);\n"
    "        __builtin_prefetch(row + x->cols - 1, 0, 2);\n"
    "    }\n"
    "}\n"
    "\n/* C block (mc x nc) = or += packed A block . packed B block, one MR-row of\n"
    " * micro-tiles at a time (its A panel stays in L1 while the B panels stream\n"
    " * from L2). With double buffering, after each row a slice of the next\n"
    " * step's new blocks na/nb is prefetched, so that memory works while the FMAs\n"
    " * do and the next packing reads from L2. */\n"
    "static void @_macro(int mc, int nc, int kc, const float *Ap, const float *Bp, float *C,\n"
    "                    ptrdiff_t ldc, int acc, const @_next *na, const @_next *nb)\n"
    "{\n"
    "    int mp = (mc + @_MR - 1) / @_MR, np = (nc + @_NR - 1) / @_NR;\n"
    "    for (int ir = 0; ir < mp; ir++) {\n"
    "        const float *a = Ap + (ptrdiff_t)ir * @_MR * @_KS;\n"
    "        float *c = C + (ptrdiff_t)ir * @_MR * ldc;\n"
    "        int rows = mc - ir * @_MR < @_MR ? mc - ir * @_MR : @_MR;\n"
    "        for (int jr = 0; jr < np; jr++) {\n"
    "            const float *b = Bp + (ptrdiff_t)jr * kc * @_NR;\n"
    "            int cols = nc - jr * @_NR < @_NR ? nc - jr * @_NR : @_NR;\n"
    "            if (rows == @_MR && cols == @_NR)\n"
    "                @_ukr(kc, a, b, c + jr * @_NR, ldc, acc);\n"
    "            else\n"
    "                @_edge(kc, a, b, c + jr * @_NR, ldc, acc, rows, cols);\n"
    "        }\n"
    "        if (na)\n"
    "            @_prefetch_rows(na, (int)((long)na->rows * ir / mp),\n"
    "                            (int)((long)na->rows * (ir + 1) / mp));\n"
    "        if (nb)\n"
    "            @_prefetch_rows(nb, (int)((long)nb->rows * ir / mp),\n"
    "                            (int)((long)nb->rows * (ir + 1) / mp));\n"
    "    }\n"
    "}\n"
    "\n/* Plain loops, used only when the pack buffers cannot be allocated (and for\n"
    " * K = 0, where C is zeroed). */\n"
    "static void @_naive(int M, int N, int K, const float *A, ptrdiff_t lda, const float *B,\n"
    "                    ptrdiff_t ldb, float *C, ptrdiff_t ldc)\n"
    "{\n"
    "    for (int i = 0; i < M; i++) {\n"
    "        float *c = C + (ptrdiff_t)i * ldc;\n"
    "        for (int j = 0; j < N; j++)\n"
    "            c[j] = 0.0f;\n"
    "        for (int p = 0; p < K; p++) {\n"
    "            float x = A[(ptrdiff_t)i * lda + p];\n"
    "            const float *b = B + (ptrdiff_t)p * ldb;\n"
    "            for (int j = 0; j < N; j++)\n"
    "                c[j] += x * b[j];\n"
    "        }\n"
    "    }\n"
    "}\n";

/* One thread's share: the block loop over the strategy's steps. */
static const char driver_part[] =
    "\n/* One thread's share of C (M x N, pointers already offset): the block loop\n"
    " * with this thread's own pack buffers. */\n"
    "static void @_part(int M, int N, int K, const float *A, ptrdiff_t lda, const float *B,\n"
    "                   ptrdiff_t ldb, float *C, ptrdiff_t ldc)\n"
    "{\n"
    "    if (M <= 0 || N <= 0)\n"
    "        return;\n"
    "    if (K <= 0) {\n"
    "        @_naive(M, N, 0, A, lda, B, ldb, C, ldc);\n"
    "        return;\n"
    "    }\n"
    "    /* blocks no larger than the (padded) problem */\n"
    "    int mc = @_MC < M ? @_MC : (M + @_MR - 1) / @_MR * @_MR;\n"
    "    int nc = @_NC < N ? @_NC : (N + @_NR - 1) / @_NR * @_NR;\n"
    "    int kc = @_KC < K ? @_KC : K;\n"
    "    int nI = (M + mc - 1) / mc, nJ = (N + nc - 1) / nc, nP = (K + kc - 1) / kc;\n"
    "    float *Ap = aligned_alloc(64, ((size_t)mc * @_KS * sizeof(float) + 63) / 64 * 64);\n"
    "    float *Bp = aligned_alloc(64, ((size_t)kc * (size_t)nc * sizeof(float) + 63) / 64 * 64);\n"
    "    if (!Ap || !Bp) {\n"
    "        free(Ap);\n"
    "        free(Bp);\n"
    "        @_naive(M, N, K, A, lda, B, ldb, C, ldc);\n"
    "        return;\n"
    "    }\n"
    "    long ha = -1, hb = -1; /* the packed blocks: A i*nP + p, B p*nJ + j */\n"
    "    long steps = (long)nI * nJ * nP;\n"
    "    for (long s = 0; s < steps; s++) {\n"
    "        int i, j, p;\n"
    "        @_step(s, nI, nJ, nP, &i, &j, &p);\n"
    "        int rows = M - i * mc < mc ? M - i * mc : mc;\n"
    "        int cols = N - j * nc < nc ? N - j * nc : nc;\n"
    "        int kk = K - p * kc < kc ? K - p * kc : kc;\n"
    "        if (ha != (long)i * nP + p) { /* a new A block */\n"
    "            @_pack_a(A + (ptrdiff_t)i * mc * lda + (ptrdiff_t)p * kc, lda, rows, kk, Ap);\n"
    "            ha = (long)i * nP + p;\n"
    "        }\n"
    "        if (hb != (long)p * nJ + j) { /* a new B block */\n"
    "            @_pack_b(B + (ptrdiff_t)p * kc * ldb + (ptrdiff_t)j * nc, ldb, cols, kk, Bp);\n"
    "            hb = (long)p * nJ + j;\n"
    "        }\n"
    "        @_next na, nb;\n"
    "        const @_next *pa = NULL, *pb = NULL;\n"
    "        if (@_DB && s + 1 < steps) { /* the blocks the next step packs anew */\n"
    "            int i2, j2, p2;\n"
    "            @_step(s + 1, nI, nJ, nP, &i2, &j2, &p2);\n"
    "            int kk2 = K - p2 * kc < kc ? K - p2 * kc : kc;\n"
    "            if ((long)i2 * nP + p2 != ha) {\n"
    "                na.src = A + (ptrdiff_t)i2 * mc * lda + (ptrdiff_t)p2 * kc;\n"
    "                na.ld = lda;\n"
    "                na.rows = M - i2 * mc < mc ? M - i2 * mc : mc;\n"
    "                na.cols = kk2;\n"
    "                pa = &na;\n"
    "            }\n"
    "            if ((long)p2 * nJ + j2 != hb) {\n"
    "                nb.src = B + (ptrdiff_t)p2 * kc * ldb + (ptrdiff_t)j2 * nc;\n"
    "                nb.ld = ldb;\n"
    "                nb.rows = kk2;\n"
    "                nb.cols = N - j2 * nc < nc ? N - j2 * nc : nc;\n"
    "                pb = &nb;\n"
    "            }\n"
    "        }\n"
    "        @_macro(rows, cols, kk, Ap, Bp, C + (ptrdiff_t)i * mc * ldc + (ptrdiff_t)j * nc, ldc,\n"
    "                p > 0, pa, pb);\n"
    "    }\n"
    "    free(Ap);\n"
    "    free(Bp);\n"
    "}\n";

/* The step order of each strategy: block coordinates (i, j, p) of step s. */
static const char *const step_text[SP_NSTRATEGY] = {
    [SP_IS] = "\n/* IS: for each A block (ic outer, pc), the B blocks stream (jc inner) past\n"
              " * the packed A block, which stays resident. */\n"
              "static void @_step(long s, int nI, int nJ, int nP, int *i, int *j, int *p)\n"
              "{\n"
              "    (void)nI;\n"
              "    *j = (int)(s % nJ);\n"
              "    *p = (int)(s / nJ % nP);\n"
              "    *i = (int)(s / nJ / nP);\n"
              "}\n",
    [SP_WS] = "\n/* WS: for each B block (jc outer, pc), the A blocks stream (ic inner) past\n"
              " * the packed B block, which stays resident. */\n"
              "static void @_step(long s, int nI, int nJ, int nP, int *i, int *j, int *p)\n"
              "{\n"
              "    (void)nJ;\n"
              "    *i = (int)(s % nI);\n"
              "    *p = (int)(s / nI % nP);\n"
              "    *j = (int)(s / nI / nP);\n"
              "}\n",
    [SP_OS] = "\n/* OS: for each C block (ic outer, jc), the k blocks (pc inner) accumulate\n"
              " * into it while it stays resident; A and B blocks are packed per step. */\n"
              "static void @_step(long s, int nI, int nJ, int nP, int *i, int *j, int *p)\n"
              "{\n"
              "    (void)nI;\n"
              "    *p = (int)(s % nP);\n"
              "    *j = (int)(s / nP % nJ);\n"
              "    *i = (int)(s / nP / nJ);\n"
              "}\n",
};

static const char grid_text[] =
    "\n/* The gm x gn thread grid of split MN (gm * gn = CORES) minimising the busiest\n"
    " * thread's micro-tiles; ties go to a 2-D grid, then the squarer one. */\n"
    "static void @_grid(int tm, int tn, int *gm, int *gn)\n"
    "{\n"
    "    long best = -1;\n"
    "    int best_flat = 0, best_skew = 0;\n"
    "    for (int r = 1; r <= @_CORES; r++) {\n"
    "        if (@_CORES % r)\n"
    "            continue;\n"
    "        int c = @_CORES / r, flat = r == 1 || c == 1, skew = r > c ? r - c : c - r;\n"
    "        long work = (long)((tm + r - 1) / r) * ((tn + c - 1) / c);\n"
    "        if (best < 0 || work < best ||\n"
    "            (work == best && (flat < best_flat || (flat == best_flat && skew < best_skew)))) {\n"
    "            best = work;\n"
    "            best_flat = flat;\n"
    "            best_skew = skew;\n"
    "            *gm = r;\n"
    "            *gn = c;\n"
    "        }\n"
    "    }\n"
    "}\n";

static const char entry_head[] =
    "\n/* C (M x N, row stride ldc) = A (M x K, lda) . B (K x N, ldb); row-major fp32. */\n"
    "void @(int M, int N, int K, const float *A, int lda, const float *B, int ldb, float *C,\n"
    "       int ldc)\n"
    "{\n"
    "    if (M <= 0 || N <= 0)\n"
    "        return;\n";

static const char entry_threads[] =
    "    /* each thread owns a disjoint gm x gn cell of C, in whole micro-tiles */\n"
    "    int tm = (M + @_MR - 1) / @_MR, tn = (N + @_NR - 1) / @_NR;\n"
    "#ifdef _OPENMP\n"
    "#pragma omp parallel for num_threads(@_CORES) schedule(static, 1)\n"
    "#endif\n"
    "    for (int t = 0; t < @_CORES; t++) {\n"
    "        int gi = t / gn, gj = t % gn;\n"
    "        int m0 = (int)((long)tm * gi / gm) * @_MR;\n"
    "        int m1 = (int)((long)tm * (gi + 1) / gm) * @_MR;\n"
    "        int n0 = (int)((long)tn * gj / gn) * @_NR;\n"
    "        int n1 = (int)((long)tn * (gj + 1) / gn) * @_NR;\n"
    "        if (m1 > M)\n"
    "            m1 = M;\n"
    "        if (n1 > N)\n"
    "            n1 = N;\n"
    "        if (m0 < m1 && n0 < n1)\n"
    "            @_part(m1 - m0, n1 - n0, K, A + (ptrdiff_t)m0 * lda, lda, B + n0, ldb,\n"
    "                   C + (ptrdiff_t)m0 * ldc + n0, ldc);\n"
    "    }\n"
    "}\n";

/* True if s is a C identifier of at most SYMBOL_MAX characters. */
static bool valid_symbol(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > SYMBOL_MAX || (s[0] >= '0' && s[0] <= '9'))
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
bool cg_host_source(FILE *f, const sp_config *c, const char *symbol, char *err, size_t errlen)
{
    char msg[160];
    if (!f || !c)
        return fail(err, errlen, "host kernel: no output or no config");
    const char *sym = symbol ? symbol : "nt_sgemm";
    if (!valid_symbol(sym))
        return fail(err, errlen,
                    "host kernel: the symbol is not a C identifier of at most 64 characters");
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
     * anyway. A panel rows are KS floats apart: kc rounded up to a cache line
     * and to an odd number of lines, so the MR rows of a panel fall in
     * distinct L1 sets. */
    int mc = (clamp(c->m, MC_MAX) + mr - 1) / mr * mr;
    int nc = (clamp(c->n, NC_MAX) + nr - 1) / nr * nr;
    int kc = clamp(c->k, KC_MAX);
    int ks = (kc + 15) / 16 * 16;
    if ((ks / 16) % 2 == 0)
        ks += 16;
    int cores = c->cores;
    const char *strat = sp_strategy_name(c->strategy), *split = sp_split_name(c->split);
    static const char *const strat_doc[SP_NSTRATEGY] = {
        [SP_IS] = "the packed A block stays resident while B blocks stream",
        [SP_WS] = "the packed B block stays resident while A blocks stream",
        [SP_OS] = "the C block stays resident while the k blocks accumulate"};

    out o = {f, sym};
    putf(&o, "/* @ — fp32 GEMM for the host CPU, generated by npu-tune.\n"
             " * config: strategy %s (%s),\n"
             " *         m = %d, n = %d, k = %d (cache blocks mc x nc x kc), double_buffer = %d,\n"
             " *         cores = %d, split = %s\n",
         strat, strat_doc[c->strategy], (int)c->m, (int)c->n, (int)c->k, c->double_buffer, cores,
         split);
    putf(&o, " * micro-tile: %d x %d (MR rows of A x NR columns of B in vector registers)\n", mr,
         nr);
    put(&o, c->double_buffer
                ? " * double_buffer: while a block computes, the source rows of the blocks the\n"
                  " *   next step packs anew are prefetched into L2, a slice after each row of\n"
                  " *   micro-tiles, so packing them reads from L2 instead of memory.\n"
                : " * double_buffer off: each block is packed when its step begins.\n");
    if (cores == 1)
        put(&o, " * threads: 1 (no parallel region).\n");
    else
        putf(&o, " * threads: %d OpenMP threads, each owning a disjoint part of C in whole\n"
                 " *   micro-tiles (%s), with its own pack buffers.\n",
             cores, c->split == SP_SPLIT_M ? "split M: bands of rows"
                    : c->split == SP_SPLIT_N ? "split N: bands of columns"
                                             : "split MN: cells of a gm x gn grid");
    put(&o, " * C = A.B, row-major, any M, N, K; B is packed kc x nc into NR-column panels,\n"
            " * A mc x kc into MR-row panels, and a register-blocked micro-kernel computes\n"
            " * each MR x NR tile of C (edge tiles through a scratch tile).\n");
    putf(&o, " * Vector code chosen at compile time: %s%sportable GCC vectors.\n",
         nr % 16 == 0 ? "AVX-512, " : "", nr % 8 == 0 ? "AVX2+FMA or " : "");
    put(&o, " * Build: cc -O3 -march=native -fopenmp -c. */\n");
    put(&o, "#include <stddef.h>\n#include <stdlib.h>\n#include <string.h>\n"
            "#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))\n"
            "#include <immintrin.h>\n#endif\n");
    put(&o, "\nenum {\n");
    putf(&o, "    @_MR = %d, @_NR = %d, /* micro-tile */\n", mr, nr);
    putf(&o, "    @_MC = %d, @_NC = %d, @_KC = %d, /* cache blocks: mc, nc in whole micro-tiles,\n"
             "                                    all at most %d, %d, %d */\n",
         mc, nc, kc, MC_MAX, NC_MAX, KC_MAX);
    putf(&o, "    @_KS = %d, /* row stride of a packed A panel */\n", ks);
    putf(&o, "    @_DB = %d, /* double buffering: prefetch the next blocks into L2 */\n",
         c->double_buffer ? 1 : 0);
    putf(&o, "    @_CORES = %d /* OpenMP threads */\n};\n", cores);

    /* the vector code paths that suit NR, widest first */
    int first = 1;
    for (size_t p = 0; p < sizeof isas / sizeof isas[0]; p++) {
        const isa *v = &isas[p];
        if (nr % v->width)
            continue;
        if (v->guard)
            putf(&o, "\n#%s %s\n", first ? "if" : "elif", v->guard);
        else if (!first)
            put(&o, "\n#else /* portable GCC vector extensions */\n");
        put(&o, v->prelude);
        emit_ukr(&o, mr, nr, v->width);
        first = 0;
    }
    if (nr % 8 == 0)
        put(&o, "#endif\n");

    put(&o, driver_common);
    put(&o, step_text[c->strategy]);
    put(&o, driver_part);
    if (cores > 1 && c->split == SP_SPLIT_MN)
        put(&o, grid_text);
    put(&o, entry_head);
    if (cores == 1) {
        put(&o, "    @_part(M, N, K, A, lda, B, ldb, C, ldc);\n}\n");
    } else {
        if (c->split == SP_SPLIT_M)
            put(&o, "    int gm = @_CORES, gn = 1; /* split M */\n");
        else if (c->split == SP_SPLIT_N)
            put(&o, "    int gm = 1, gn = @_CORES; /* split N */\n");
        else
            put(&o, "    int gm = 1, gn = 1; /* split MN */\n"
                    "    @_grid((M + @_MR - 1) / @_MR, (N + @_NR - 1) / @_NR, &gm, &gn);\n");
        put(&o, entry_threads);
    }
    if (ferror(f))
        return fail(err, errlen, "host kernel: writing the source failed");
    return true;
}
