/* host.c — the host-CPU kernel generator: emits a self-contained GotoBLAS/BLIS
 * style fp32 GEMM (packed blocks, register micro-tile, OpenMP) for a config. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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
    UNROLL = 4,         /* k steps per iteration of the micro-kernel loop */
    EDGE_KERNELS = SP_CPU_EDGE_VECTORS /* widest tile (in vectors) with narrower edge kernels */
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

/* A micro-kernel of one code path computing the first nv vectors of the
 * NR-wide tile (nv = NR/w: the full kernel @_ukr, else @_ukr_nv, for edge
 * tiles): one k step per iteration (B row loads, then per A row a broadcast
 * and nv FMAs), unrolled by the compiler. Written this way gcc keeps the
 * accumulators, the B vectors and the broadcast in registers with no copies
 * or spills (an unrolled source with a temporary per step makes it hoist
 * loads and spill). The broadcasts are separate loads (vbroadcastss), not
 * embedded {1to16} operands: every load uop slows the FMAs on the machine
 * this was tuned on, and an embedded broadcast costs one per FMA instead of
 * one per row (8x48 in L1: 91% of the FMA peak, embedded 78%). */
static void emit_ukr(const out *o, int mr, int nr, int w, int nv)
{
    char name[32], fn[32];
    if (nv == nr / w) {
        snprintf(fn, sizeof fn, "@_ukr");
        put(o, "\n/* The micro-kernel: c[0..MR) x [0..NR) (row stride ldc) = (acc ? c : 0) +\n"
               " * A rows a[i*lda + 0..kc) (i < MR) . the packed B panel (kc rows of NR),\n"
               " * accumulating in MR x NR/VW vector registers. */\n");
    } else {
        snprintf(fn, sizeof fn, "@_ukr_%d", nv);
        putf(o, "\n/* The micro-kernel for the first %d vectors of the tile only. */\n", nv);
    }
    putf(o, "static void %s(int kc, const float *restrict a, ptrdiff_t lda,\n"
            "    const float *restrict b, float *restrict c, ptrdiff_t ldc, int acc)\n{\n",
         fn);
    for (int i = 0; i < mr; i++)
        putf(o, "    const float *restrict a%d = a + %d * lda;\n", i, i);
    for (int i = 0; i < mr; i++) {
        put(o, "    @_vec");
        for (int v = 0; v < nv; v++) {
            acc_name(name, sizeof name, i, v);
            putf(o, "%s %s = @_vzero()", v ? "," : "", name);
        }
        put(o, ";\n");
    }
    /* unrolled when the accumulators fit the registers; a tile that spills
     * anyway (a wide tile on narrow vectors) gains nothing from it */
    putf(o, "#pragma GCC unroll %d\n", mr * nv + nv + 1 <= 32 ? UNROLL : 1);
    put(o, "    for (int p = 0; p < kc; p++, b += @_NR) {\n");
    for (int v = 0; v < nv; v++)
        putf(o, "        @_vec b%d = @_vload(b + %d);\n", v, v * w);
    put(o, "        @_vec t;\n");
    for (int i = 0; i < mr; i++) {
        putf(o, "        t = @_vbcast(a%d + p);", i);
        for (int v = 0; v < nv; v++) {
            acc_name(name, sizeof name, i, v);
            putf(o, " %s = @_vfma(t, b%d, %s);", name, v, name);
        }
        put(o, "\n");
    }
    put(o, "    }\n");
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

/* The micro-kernels of one code path: the full one, and when the tile is at
 * most EDGE_KERNELS vectors wide one per narrower width, which @_ukr_cols
 * picks for an edge tile of `cols` columns (so a last, narrow column panel
 * costs its own width, not the whole tile's). */
static void emit_ukrs(const out *o, int mr, int nr, int w)
{
    int nv = nr / w;
    bool narrow = nv <= EDGE_KERNELS;
    for (int v = 1; narrow && v < nv; v++)
        emit_ukr(o, mr, nr, w, v);
    emit_ukr(o, mr, nr, w, nv);
    put(o, "\n/* c (row stride NR) = the first cols (<= NR) columns of the tile, and\n"
           " * possibly more. */\n"
           "static void @_ukr_cols(int kc, const float *a, ptrdiff_t lda, const float *b, float *c,\n"
           "                       int cols)\n{\n");
    if (narrow && nv > 1) {
        put(o, "    switch ((cols + @_VW - 1) / @_VW) {\n");
        for (int v = 1; v < nv; v++)
            putf(o, "    case %d:\n        @_ukr_%d(kc, a, lda, b, c, @_NR, 0);\n        return;\n",
                 v, v);
        put(o, "    default:\n        break;\n    }\n");
    } else {
        put(o, "    (void)cols;\n");
    }
    put(o, "    @_ukr(kc, a, lda, b, c, @_NR, 0);\n}\n");
}

/* The element type of A and B, per dtype: one value widened to fp32 (@_ld),
 * and n of them into a row of floats (@_cvt). */
static const char elem_fp32[] =
    "\n/* A and B hold fp32: packing is a copy. */\n"
    "typedef float @_in;\n"
    "static inline float @_ld(@_in x) { return x; }\n"
    "static void @_cvt(float *d, const @_in *s, int n) { memcpy(d, s, sizeof(float) * (size_t)n); }\n";
static const char elem_bf16[] =
    "\n/* A and B hold bf16 bit patterns: a value is the upper half of an fp32. */\n"
    "typedef uint16_t @_in;\n"
    "static inline float @_ld(@_in x)\n"
    "{\n"
    "    uint32_t u = (uint32_t)x << 16;\n"
    "    float v;\n"
    "    memcpy(&v, &u, sizeof v);\n"
    "    return v;\n"
    "}\n"
    "static void @_cvt(float *d, const @_in *s, int n)\n"
    "{\n"
    "    for (int i = 0; i < n; i++)\n"
    "        d[i] = @_ld(s[i]);\n"
    "}\n";
static const char elem_fp16[] =
    "\n/* A and B hold IEEE fp16 (binary16) bit patterns: F16C converts them 8 at a\n"
    " * time where the compiler targets it, else the fields are moved by hand\n"
    " * (subnormals, infinities and NaNs included). */\n"
    "typedef uint16_t @_in;\n"
    "#if defined(__F16C__)\n"
    "#include <immintrin.h>\n"
    "static inline float @_ld(@_in x) { return _cvtsh_ss(x); }\n"
    "static void @_cvt(float *d, const @_in *s, int n)\n"
    "{\n"
    "    int i = 0;\n"
    "    for (; i + 8 <= n; i += 8)\n"
    "        _mm256_storeu_ps(d + i,\n"
    "                         _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(s + i))));\n"
    "    for (; i < n; i++)\n"
    "        d[i] = @_ld(s[i]);\n"
    "}\n"
    "#else\n"
    "static inline float @_ld(@_in x)\n"
    "{\n"
    "    uint32_t e = (uint32_t)x >> 10 & 0x1fu, m = (uint32_t)x & 0x3ffu;\n"
    "    float v;\n"
    "    if (e == 0) { /* zero or subnormal: m units of 2^-24 */\n"
    "        v = (float)m * 0x1p-24f;\n"
    "    } else { /* rebias the exponent (15 to 127); all ones stays all ones */\n"
    "        uint32_t u = (e == 0x1f ? 0xffu : e + 112u) << 23 | m << 13;\n"
    "        memcpy(&v, &u, sizeof v);\n"
    "    }\n"
    "    return x & 0x8000u ? -v : v;\n"
    "}\n"
    "static void @_cvt(float *d, const @_in *s, int n)\n"
    "{\n"
    "    for (int i = 0; i < n; i++)\n"
    "        d[i] = @_ld(s[i]);\n"
    "}\n"
    "#endif\n";

/* How A and B are stored, per dtype the host computes: fp32, or 16-bit
 * patterns widened to fp32 (A once per call, B as it is packed; C and every
 * sum fp32). */
typedef struct {
    const char *title;  /* the kernel's headline */
    const char *symbol; /* the default entry point */
    const char *ctype;  /* A's and B's C element type */
    const char *sums;   /* the entry's comment: the dtypes */
    const char *note;   /* the header's lines on the storage, or NULL */
    const char *elem;   /* @_in, @_ld and @_cvt */
} storage;

static const storage storages[SP_NDTYPE] = {
    [SP_FP32] = {"fp32", "nt_sgemm", "float", "fp32", NULL, elem_fp32},
    [SP_BF16] = {"bf16-storage", "nt_sbgemm", "uint16_t", "bf16 A, B; fp32 C",
                 " * A and B hold bf16 values (uint16_t: the upper half of an fp32), widened\n"
                 " * to fp32 (A once per call, B as it is packed); C and every sum are fp32.\n",
                 elem_bf16},
    [SP_FP16] = {"fp16-storage", "nt_shgemm", "uint16_t", "fp16 A, B; fp32 C",
                 " * A and B hold IEEE fp16 values (uint16_t bit patterns), widened to fp32\n"
                 " * (A once per call, B as it is packed; F16C where the compiler targets\n"
                 " * it); C and every sum are fp32.\n",
                 elem_fp16},
};

/* Each thread's scratch memory: packed B, a copied A micro-panel and flags
 * in slot 0, a widened A (bf16, fp16) in slot 1. */
static const char scratch_text[] =
    "\n/* A thread's scratch memory number `slot` (0: pack buffers, 1: widened A)\n"
    " * of at least `bytes`, 64-byte aligned, or NULL. With C11 threads it is\n"
    " * kept between calls (grown when too small, freed when the thread ends),\n"
    " * since fresh memory on every call would page-fault megabytes each time;\n"
    " * *temp = 0. Else (or if the key cannot be made) it is allocated for this\n"
    " * call and *temp = 1: the caller frees it. */\n"
    "#ifndef __STDC_NO_THREADS__\n"
    "typedef struct {\n"
    "    size_t cap[2];\n"
    "    unsigned char *mem[2];\n"
    "} @_kept;\n"
    "static tss_t @_key;\n"
    "static int @_key_ok;\n"
    "static once_flag @_once = ONCE_FLAG_INIT;\n"
    "static void @_drop(void *p)\n"
    "{\n"
    "    @_kept *k = p;\n"
    "    free(k->mem[0]);\n"
    "    free(k->mem[1]);\n"
    "    free(k);\n"
    "}\n"
    "static void @_make_key(void) { @_key_ok = tss_create(&@_key, @_drop) == thrd_success; }\n"
    "#endif\n"
    "static unsigned char *@_scratch(int slot, size_t bytes, int *temp)\n"
    "{\n"
    "    bytes = (bytes + 63) / 64 * 64;\n"
    "    *temp = 1;\n"
    "#ifndef __STDC_NO_THREADS__\n"
    "    call_once(&@_once, @_make_key);\n"
    "    if (@_key_ok) {\n"
    "        @_kept *k = tss_get(@_key);\n"
    "        if (!k) {\n"
    "            k = calloc(1, sizeof *k);\n"
    "            if (!k || tss_set(@_key, k) != thrd_success) {\n"
    "                free(k);\n"
    "                return aligned_alloc(64, bytes);\n"
    "            }\n"
    "        }\n"
    "        if (k->cap[slot] < bytes) {\n"
    "            free(k->mem[slot]);\n"
    "            k->mem[slot] = aligned_alloc(64, bytes);\n"
    "            k->cap[slot] = k->mem[slot] ? bytes : 0;\n"
    "        }\n"
    "        *temp = 0;\n"
    "        return k->mem[slot];\n"
    "    }\n"
    "#endif\n"
    "    return aligned_alloc(64, bytes);\n"
    "}\n";

/* Packing, edge tiles, the fallback and the macro-kernel: the same for every
 * config (the numbers come from the enum of the header). */
static const char driver_common[] =
    "\n/* Copies the rows x kc part of A (row stride lda) that a last, partial\n"
    " * micro-panel covers into dst (row stride KS), rows past it zero. Whole\n"
    " * panels are read from A in place. */\n"
    "static void @_pack_a(const float *A, ptrdiff_t lda, int rows, int kc, float *dst)\n"
    "{\n"
    "    for (int r = 0; r < @_MR; r++)\n"
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
    "static void @_pack_b(const @_in *B, ptrdiff_t ldb, int cols, int kc, float *dst)\n"
    "{\n"
    "    int whole = cols / @_NR, w = cols - whole * @_NR;\n"
    "    for (int p = 0; p < kc; p++) {\n"
    "        const @_in *src = B + (ptrdiff_t)p * ldb;\n"
    "        float *d = dst + (ptrdiff_t)p * @_NR;\n"
    "        for (int q = 0; q < whole; q++, src += @_NR, d += (ptrdiff_t)kc * @_NR)\n"
    "            @_cvt(d, src, @_NR);\n"
    "        if (w > 0) {\n"
    "            @_cvt(d, src, w);\n"
    "            memset(d + w, 0, sizeof(float) * (size_t)(@_NR - w));\n"
    "        }\n"
    "    }\n"
    "}\n"
    "\n/* An edge micro-tile (rows x cols inside MR x NR; A rows past `rows` are\n"
    " * zero): computed whole into a scratch tile, then only its valid part is\n"
    " * written to C. */\n"
    "static void @_edge(int kc, const float *a, ptrdiff_t lda, const float *b, float *c,\n"
    "                   ptrdiff_t ldc, int acc, int rows, int cols)\n"
    "{\n"
    "    _Alignas(64) float t[@_MR * @_NR];\n"
    "    @_ukr_cols(kc, a, lda, b, t, cols);\n"
    "    for (int i = 0; i < rows; i++)\n"
    "        for (int j = 0; j < cols; j++)\n"
    "            c[(ptrdiff_t)i * ldc + j] = acc ? c[(ptrdiff_t)i * ldc + j] + t[i * @_NR + j]\n"
    "                                            : t[i * @_NR + j];\n"
    "}\n"
    "\n/* A region the next step reads (double buffering): `rows` rows of `bytes`\n"
    " * bytes, `ld` bytes apart, walked line by line by a cursor (the row at\n"
    " * `src`, `off` bytes into it; the last line of a row is its last byte, as\n"
    " * a row need not be line-aligned). `quota` lines per call of @_pf_some. */\n"
    "typedef struct {\n"
    "    const char *src;\n"
    "    ptrdiff_t ld;\n"
    "    int bytes, off, rows;\n"
    "    long lines, quota;\n"
    "} @_pf;\n"
    "\n/* Sets x to the region of rows x cols elements of esize bytes, row stride\n"
    " * ld elements (no lines when rows or cols is 0). */\n"
    "static void @_pf_set(@_pf *x, const void *src, ptrdiff_t ld, int rows, int cols, int esize)\n"
    "{\n"
    "    x->src = src;\n"
    "    x->ld = ld * esize;\n"
    "    x->bytes = cols * esize;\n"
    "    x->off = 0;\n"
    "    x->rows = rows > 0 && cols > 0 ? rows : 0;\n"
    "    x->lines = (long)x->rows * ((x->bytes + 63) / 64 + 1);\n"
    "    x->quota = 0;\n"
    "}\n"
    "\n/* Prefetches the next x->quota lines of x into L2. */\n"
    "static void @_pf_some(@_pf *x)\n"
    "{\n"
    "    for (long n = x->quota; n > 0 && x->rows > 0; n--)\n"
    "        if (x->off < x->bytes) {\n"
    "            __builtin_prefetch(x->src + x->off, 0, 2);\n"
    "            x->off += 64;\n"
    "        } else { /* the row's last line, then the next row */\n"
    "            __builtin_prefetch(x->src + x->bytes - 1, 0, 2);\n"
    "            x->off = 0;\n"
    "            x->src += x->ld;\n"
    "            x->rows--;\n"
    "        }\n"
    "}\n"
    "\n/* Plain loops, used only when the pack buffers cannot be allocated (and for\n"
    " * K = 0, where C is zeroed). */\n"
    "static void @_naive(int M, int N, int K, const @_in *A, ptrdiff_t lda, const @_in *B,\n"
    "                    ptrdiff_t ldb, float *C, ptrdiff_t ldc)\n"
    "{\n"
    "    for (int i = 0; i < M; i++) {\n"
    "        float *c = C + (ptrdiff_t)i * ldc;\n"
    "        for (int j = 0; j < N; j++)\n"
    "            c[j] = 0.0f;\n"
    "        for (int p = 0; p < K; p++) {\n"
    "            float x = @_ld(A[(ptrdiff_t)i * lda + p]);\n"
    "            const @_in *b = B + (ptrdiff_t)p * ldb;\n"
    "            for (int j = 0; j < N; j++)\n"
    "                c[j] += x * @_ld(b[j]);\n"
    "        }\n"
    "    }\n"
    "}\n";

/* The macro-kernel: C block (mc x nc) = or += A block . packed B block by
 * micro-tiles, A micro-panels outer: the A micro-panel (MR x kc) stays in L1
 * while the B micro-panels stream past it from L2, and C is visited in rows
 * of tiles, which the hardware prefetchers follow. A is fp32 here (bf16 and
 * fp16 kernels widen it first). */
static const char macro_text[] =
    "\n/* C block (mc x nc) = or += A block (fp32, row stride lda) . packed B block\n"
    " * by micro-tiles, a row of tiles at a time. A micro-panels are read in\n"
    " * place, except a last, partial one, copied (zero-padded) into ae. With\n"
    " * double buffering, after each tile a share of the regions the next step\n"
    " * reads (pf[0..npf)) is prefetched into L2, spread so that memory works\n"
    " * while the FMAs do. */\n"
    "static void @_macro(int mc, int nc, int kc, const float *A, ptrdiff_t lda,\n"
    "                    const float *Bp, float *C, ptrdiff_t ldc, int acc, float *ae,\n"
    "                    @_pf *pf, int npf)\n"
    "{\n"
    "    int mp = (mc + @_MR - 1) / @_MR, np = (nc + @_NR - 1) / @_NR;\n"
    "    int last = mc - (mp - 1) * @_MR; /* rows of the last A micro-panel */\n"
    "    for (int q = 0; q < npf; q++)\n"
    "        pf[q].quota = (pf[q].lines + (long)mp * np - 1) / ((long)mp * np);\n"
    "    for (int ir = 0; ir < mp; ir++) {\n"
    "        int rows = ir < mp - 1 ? @_MR : last;\n"
    "        const float *a = ae;\n"
    "        ptrdiff_t la = @_KS;\n"
    "        if (rows < @_MR)\n"
    "            @_pack_a(A + (ptrdiff_t)ir * @_MR * lda, lda, rows, kc, ae);\n"
    "        else\n"
    "            a = A + (ptrdiff_t)ir * @_MR * lda, la = lda;\n"
    "        float *c = C + (ptrdiff_t)ir * @_MR * ldc;\n"
    "        for (int jr = 0; jr < np; jr++) {\n"
    "            const float *b = Bp + (ptrdiff_t)jr * kc * @_NR;\n"
    "            int cols = nc - jr * @_NR < @_NR ? nc - jr * @_NR : @_NR;\n"
    "            if (rows == @_MR && cols == @_NR)\n"
    "                @_ukr(kc, a, la, b, c + jr * @_NR, ldc, acc);\n"
    "            else\n"
    "                @_edge(kc, a, la, b, c + jr * @_NR, ldc, acc, rows, cols);\n"
    "            for (int q = 0; q < npf; q++)\n"
    "                @_pf_some(&pf[q]);\n"
    "        }\n"
    "    }\n"
    "}\n";

/* One thread's share: the block loop over the strategy's steps. */
static const char driver_blocks[] =
    "\n/* The row block for M rows: MC, or all of them in whole micro-panels. */\n"
    "static int @_mc(int M) { return @_MC < M ? @_MC : (M + @_MR - 1) / @_MR * @_MR; }\n"
    "\n/* C (M x N, pointers already offset; M, N, K >= 1) = A (fp32) . B: the block\n"
    " * loop with this thread's own pack buffers. 0 when they cannot be had. */\n"
    "static int @_blocks(int M, int N, int K, const float *A, ptrdiff_t lda, const @_in *B,\n"
    "                    ptrdiff_t ldb, float *C, ptrdiff_t ldc)\n"
    "{\n"
    "    /* blocks no larger than the (padded) problem */\n"
    "    int mc = @_mc(M);\n"
    "    int nc = @_NC < N ? @_NC : (N + @_NR - 1) / @_NR * @_NR;\n"
    "    int kc = @_KC < K ? @_KC : K;\n"
    "    int nI = (M + mc - 1) / mc, nJ = (N + nc - 1) / nc, nP = (K + kc - 1) / kc;\n"
    "    /* The packed B blocks: one slot, repacked whenever the step's block\n"
    "     * changes, which in WS order is once per block (it serves every A block\n"
    "     * in a row), and in IS and OS once per block row of A (nI times). When\n"
    "     * they meet each block at least VISITS times (and this thread's share\n"
    "     * fits BCACHE bytes), every block gets its own slot instead, packed on\n"
    "     * first use: the kept copies leave L2 and come back, which costs more\n"
    "     * than packing a block a second time into the one slot that stays in\n"
    "     * L2, but less than a third time. ae: a partial A micro-panel. */\n"
    "    size_t slot = (size_t)kc * (size_t)nc;\n"
    "    long nblk = (long)nP * nJ;\n"
    "    int cache = @_REVISITS && nI >= @_VISITS &&\n"
    "                (size_t)nblk <= (size_t)@_BCACHE / sizeof(float) / slot;\n"
    "    size_t nslot = (size_t)(cache ? nblk : 1);\n"
    "    size_t bbytes = (nslot * slot * sizeof(float) + 63) / 64 * 64;\n"
    "    size_t abytes = ((size_t)@_MR * @_KS * sizeof(float) + 63) / 64 * 64;\n"
    "    int temp;\n"
    "    unsigned char *mem = @_scratch(0, bbytes + abytes + nslot, &temp);\n"
    "    if (!mem)\n"
    "        return 0;\n"
    "    float *Bp = (float *)(void *)mem, *ae = (float *)(void *)(mem + bbytes);\n"
    "    unsigned char *packed = mem + bbytes + abytes; /* per slot: packed yet */\n"
    "    memset(packed, 0, nslot);\n"
    "    long steps = (long)nI * nJ * nP, in_slot = -1; /* block in the single slot */\n"
    "    for (long s = 0; s < steps; s++) {\n"
    "        int i, j, p;\n"
    "        @_step(s, nI, nJ, nP, &i, &j, &p);\n"
    "        int rows = M - i * mc < mc ? M - i * mc : mc;\n"
    "        int cols = N - j * nc < nc ? N - j * nc : nc;\n"
    "        int kk = K - p * kc < kc ? K - p * kc : kc;\n"
    "        long hb = (long)p * nJ + j; /* this step's B block */\n"
    "        float *bp = cache ? Bp + (size_t)hb * slot : Bp;\n"
    "        if (cache ? !packed[hb] : hb != in_slot) { /* not in its slot yet */\n"
    "            @_pack_b(B + (ptrdiff_t)p * kc * ldb + (ptrdiff_t)j * nc, ldb, cols, kk, bp);\n"
    "            if (cache)\n"
    "                packed[hb] = 1;\n"
    "            in_slot = hb;\n"
    "        }\n"
    "        /* double buffering: the next step's new A block, the source of its\n"
    "         * B block when that is still to be packed, and its new C block */\n"
    "        @_pf pf[3];\n"
    "        int npf = 0;\n"
    "        if (@_DB && s + 1 < steps) {\n"
    "            int i2, j2, p2;\n"
    "            @_step(s + 1, nI, nJ, nP, &i2, &j2, &p2);\n"
    "            int rows2 = M - i2 * mc < mc ? M - i2 * mc : mc;\n"
    "            int cols2 = N - j2 * nc < nc ? N - j2 * nc : nc;\n"
    "            int kk2 = K - p2 * kc < kc ? K - p2 * kc : kc;\n"
    "            long hb2 = (long)p2 * nJ + j2;\n"
    "            if (i2 != i || p2 != p)\n"
    "                @_pf_set(&pf[npf++], A + (ptrdiff_t)i2 * mc * lda + (ptrdiff_t)p2 * kc, lda,\n"
    "                         rows2, kk2, sizeof *A);\n"
    "            if (cache ? !packed[hb2] : hb2 != hb)\n"
    "                @_pf_set(&pf[npf++], B + (ptrdiff_t)p2 * kc * ldb + (ptrdiff_t)j2 * nc, ldb,\n"
    "                         kk2, cols2, sizeof *B);\n"
    "            if (i2 != i || j2 != j)\n"
    "                @_pf_set(&pf[npf++], C + (ptrdiff_t)i2 * mc * ldc + (ptrdiff_t)j2 * nc, ldc,\n"
    "                         rows2, cols2, sizeof *C);\n"
    "        }\n"
    "        @_macro(rows, cols, kk, A + (ptrdiff_t)i * mc * lda + (ptrdiff_t)p * kc, lda, bp,\n"
    "                C + (ptrdiff_t)i * mc * ldc + (ptrdiff_t)j * nc, ldc, p > 0, ae, pf, npf);\n"
    "    }\n"
    "    if (temp)\n"
    "        free(mem);\n"
    "    return 1;\n"
    "}\n";

/* A thread's share of C from the caller's A: fp32 A is read in place, bf16
 * and fp16 A is widened to fp32 once per call (in bands of whole row blocks
 * when it would take more than AWIDE bytes). */
static const char part_fp32[] =
    "\n/* One thread's share of C (M x N, pointers already offset). */\n"
    "static void @_part(int M, int N, int K, const @_in *A, ptrdiff_t lda, const @_in *B,\n"
    "                   ptrdiff_t ldb, float *C, ptrdiff_t ldc)\n"
    "{\n"
    "    if (M <= 0 || N <= 0)\n"
    "        return;\n"
    "    if (K <= 0 || !@_blocks(M, N, K, A, lda, B, ldb, C, ldc))\n"
    "        @_naive(M, N, K, A, lda, B, ldb, C, ldc);\n"
    "}\n";
static const char part_widen[] =
    "\n/* One thread's share of C (M x N, pointers already offset). Its rows of A\n"
    " * are widened to fp32 once, into rows KW floats apart (an odd number of\n"
    " * cache lines, so they fall in distinct L1 sets), `band` rows at a time:\n"
    " * all of them when they fit AWIDE bytes, else whole row blocks. */\n"
    "static void @_part(int M, int N, int K, const @_in *A, ptrdiff_t lda, const @_in *B,\n"
    "                   ptrdiff_t ldb, float *C, ptrdiff_t ldc)\n"
    "{\n"
    "    if (M <= 0 || N <= 0)\n"
    "        return;\n"
    "    if (K <= 0) {\n"
    "        @_naive(M, N, 0, A, lda, B, ldb, C, ldc);\n"
    "        return;\n"
    "    }\n"
    "    size_t kw = ((size_t)K + 15) / 16 * 16; /* as KS for kc: an odd number of lines */\n"
    "    if (kw / 16 % 2 == 0)\n"
    "        kw += 16;\n"
    "    int mc = @_mc(M);\n"
    "    size_t fit = (size_t)@_AWIDE / sizeof(float) / kw / (size_t)mc * (size_t)mc;\n"
    "    int band = fit < (size_t)mc ? mc : fit < (size_t)M ? (int)fit : M;\n"
    "    int temp;\n"
    "    float *aw = (float *)(void *)@_scratch(1, (size_t)band * kw * sizeof(float), &temp);\n"
    "    for (int i0 = 0; i0 < M; i0 += band) {\n"
    "        int rows = M - i0 < band ? M - i0 : band;\n"
    "        const @_in *a = A + (ptrdiff_t)i0 * lda;\n"
    "        float *c = C + (ptrdiff_t)i0 * ldc;\n"
    "        if (aw)\n"
    "            for (int r = 0; r < rows; r++)\n"
    "                @_cvt(aw + (size_t)r * kw, a + (ptrdiff_t)r * lda, K);\n"
    "        if (!aw || !@_blocks(rows, N, K, aw, (ptrdiff_t)kw, B, ldb, c, ldc))\n"
    "            @_naive(rows, N, K, a, lda, B, ldb, c, ldc);\n"
    "    }\n"
    "    if (temp)\n"
    "        free(aw);\n"
    "}\n";

/* The step order of each strategy: block coordinates (i, j, p) of step s. */
static const char *const step_text[SP_NSTRATEGY] = {
    [SP_IS] = "\n/* IS: for each A block (ic outer, pc), the B blocks stream (jc inner) past\n"
              " * the A block (read in place), which stays resident. */\n"
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
              " * into it while it stays resident; each step's A and B blocks stream past. */\n"
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

/* The entry point (a printf format: the dtypes' comment, A's and B's C type). */
static const char entry_head[] =
    "\n/* C (M x N, row stride ldc) = A (M x K, lda) . B (K x N, ldb); row-major, %s. */\n"
    "void @(int M, int N, int K, const %s *A, int lda, const %s *B, int ldb, float *C,\n"
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

    out o = {f, sym};
    putf(&o, "/* @ — %s GEMM for the host CPU, generated by npu-tune.\n"
             " * config: strategy %s (%s),\n"
             " *         m = %d, n = %d, k = %d (cache blocks mc x nc x kc), double_buffer = %d,\n"
             " *         cores = %d, split = %s\n",
         st->title, strat, strat_doc[c->strategy], (int)c->m, (int)c->n, (int)c->k, c->double_buffer, cores,
         split);
    putf(&o, " * micro-tile: %d x %d (MR rows of A x NR columns of B in vector registers)\n", mr,
         nr);
    put(&o, c->double_buffer
                ? " * double_buffer: while a step computes, the blocks the next step reads\n"
                  " *   anew (its A block, the source of its B block if still to be packed,\n"
                  " *   its C block) are prefetched into L2, a share after each micro-tile.\n"
                : " * double_buffer off: each block is fetched when its step needs it.\n");
    if (cores == 1)
        put(&o, " * threads: 1 (no parallel region).\n");
    else
        putf(&o, " * threads: %d OpenMP threads, each owning a disjoint part of C in whole\n"
                 " *   micro-tiles (%s), with its own pack buffers.\n",
             cores, c->split == SP_SPLIT_M ? "split M: bands of rows"
                    : c->split == SP_SPLIT_N ? "split N: bands of columns"
                                             : "split MN: cells of a gm x gn grid");
    putf(&o, " * C = A.B, row-major, any M, N, K; B is packed kc x nc into NR-column panels\n"
             " * (per thread: once per block, or in IS and OS order once per block row\n"
             " * of A when there are fewer than %d), A is %s, and a register-blocked\n"
             " * micro-kernel computes each MR x NR tile of C (edge tiles into a scratch\n"
             " * tile, with a narrower kernel for a last, narrow column panel).\n",
         SP_CPU_BCACHE_VISITS, widen ? "widened to fp32 once per call" : "read in place");
    putf(&o, " * Vector code chosen at compile time: %s%sportable GCC vectors.\n",
         nr % 16 == 0 ? "AVX-512, " : "", nr % 8 == 0 ? "AVX2+FMA or " : "");
    if (st->note)
        put(&o, st->note);
    put(&o, " * Build: cc -O3 -march=native -fopenmp -c. */\n");
    put(&o, "#include <stddef.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n"
            "#ifndef __STDC_NO_THREADS__\n#include <threads.h>\n#endif\n"
            "#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))\n"
            "#include <immintrin.h>\n#endif\n");
    putf(&o, "\n/* Bytes of packed B a thread keeps (every block packed once) before it\n"
             " * falls back to repacking one block buffer; -D overrides (one value for\n"
             " * all the kernels of a translation unit). */\n"
             "#ifndef NT_HOST_BCACHE\n#define NT_HOST_BCACHE %d\n#endif\n",
         SP_CPU_BCACHE_BYTES);
    if (widen)
        putf(&o, "\n/* Bytes of A a thread widens to fp32 at a time (all its rows of A when they\n"
                 " * fit, else bands of whole row blocks); -D overrides. */\n"
                 "#ifndef NT_HOST_AWIDE\n#define NT_HOST_AWIDE %d\n#endif\n",
             SP_CPU_AWIDE_BYTES);
    put(&o, "\nenum {\n");
    putf(&o, "    @_MR = %d, @_NR = %d, /* micro-tile */\n", mr, nr);
    putf(&o, "    @_MC = %d, @_NC = %d, @_KC = %d, /* cache blocks: mc, nc in whole micro-tiles,\n"
             "                                    all at most %d, %d, %d */\n",
         mc, nc, kc, MC_MAX, NC_MAX, KC_MAX);
    putf(&o, "    @_KS = %d, /* row stride of a copied, partial A micro-panel */\n", ks);
    putf(&o, "    @_DB = %d, /* double buffering: prefetch the next blocks into L2 */\n",
         c->double_buffer ? 1 : 0);
    putf(&o, "    @_CORES = %d, /* OpenMP threads */\n", cores);
    putf(&o, "    @_REVISITS = %d, /* the step order meets a B block again (IS, OS) */\n",
         c->strategy != SP_WS);
    putf(&o, "    @_VISITS = %d, /* keep the packed B blocks when met this many times */\n",
         SP_CPU_BCACHE_VISITS);
    put(&o, "    @_BCACHE = NT_HOST_BCACHE");
    put(&o, widen ? ", /* bytes: keep every packed B block up to this */\n"
                    "    @_AWIDE = NT_HOST_AWIDE /* bytes: widen this much of A at a time */\n};\n"
                  : " /* bytes: keep every packed B block up to this */\n};\n");

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
        emit_ukrs(&o, mr, nr, v->width);
        first = 0;
    }
    if (nr % 8 == 0)
        put(&o, "#endif\n");

    put(&o, st->elem);
    put(&o, scratch_text);
    put(&o, driver_common);
    put(&o, macro_text);
    put(&o, step_text[c->strategy]);
    put(&o, driver_blocks);
    put(&o, widen ? part_widen : part_fp32);
    if (cores > 1 && c->split == SP_SPLIT_MN)
        put(&o, grid_text);
    putf(&o, entry_head, st->sums, st->ctype, st->ctype);
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

/* See codegen.h: the branches cg_host_source takes. */
bool cg_host_same_code(sp_dtype da, const sp_config *a, sp_dtype db, const sp_config *b)
{
    return da == db && a->strategy == b->strategy && a->double_buffer == b->double_buffer &&
           a->mr == b->mr && a->nr == b->nr && (a->cores > 1) == (b->cores > 1) &&
           (a->cores == 1 || a->split == b->split);
}
