/* gemm.c — the rest of every host kernel's fixed code, after its micro-kernels: packing,
 * edge tiles, prefetching, the macro-kernel, the block loop, threads, the entry point. */

/* A GotoBLAS/BLIS-style GEMM around the micro-kernels NT_(ukr) (MR x NR) and
 * NT_(ukr_cols) (an edge tile), for the numbers and choices of the kernel's header
 * (see prelude.c); A and B per NT_DTYPE, C and every sum fp32. */

/* ---- the element type of A and B: one value widened to fp32 (NT_(ld)), and n of them
 * into a row of floats (NT_(cvt)) ---- */
#if NT_DTYPE == NT_FP32

/* A and B hold fp32: packing is a copy. */
typedef float NT_(in);
static inline float NT_(ld)(NT_(in) x) { return x; }
static void NT_(cvt)(float *d, const NT_(in) *s, int n) { memcpy(d, s, sizeof(float) * (size_t)n); }
#elif NT_DTYPE == NT_BF16

/* A and B hold bf16 bit patterns: a value is the upper half of an fp32. */
typedef uint16_t NT_(in);
static inline float NT_(ld)(NT_(in) x)
{
    uint32_t u = (uint32_t)x << 16;
    float v;
    memcpy(&v, &u, sizeof v);
    return v;
}
static void NT_(cvt)(float *d, const NT_(in) *s, int n)
{
    for (int i = 0; i < n; i++)
        d[i] = NT_(ld)(s[i]);
}
#elif NT_DTYPE == NT_FP16

/* A and B hold IEEE fp16 (binary16) bit patterns: F16C converts them 8 at a
 * time where the compiler targets it, else the fields are moved by hand
 * (subnormals, infinities and NaNs included). */
typedef uint16_t NT_(in);
#if defined(__F16C__)
#include <immintrin.h>
static inline float NT_(ld)(NT_(in) x) { return _cvtsh_ss(x); }
static void NT_(cvt)(float *d, const NT_(in) *s, int n)
{
    int i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(d + i,
                         _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(s + i))));
    for (; i < n; i++)
        d[i] = NT_(ld)(s[i]);
}
#else
static inline float NT_(ld)(NT_(in) x)
{
    uint32_t e = (uint32_t)x >> 10 & 0x1fu, m = (uint32_t)x & 0x3ffu;
    float v;
    if (e == 0) { /* zero or subnormal: m units of 2^-24 */
        v = (float)m * 0x1p-24f;
    } else { /* rebias the exponent (15 to 127); all ones stays all ones */
        uint32_t u = (e == 0x1f ? 0xffu : e + 112u) << 23 | m << 13;
        memcpy(&v, &u, sizeof v);
    }
    return x & 0x8000u ? -v : v;
}
static void NT_(cvt)(float *d, const NT_(in) *s, int n)
{
    for (int i = 0; i < n; i++)
        d[i] = NT_(ld)(s[i]);
}
#endif
#endif

/* What a call computes beyond C = A.B: C = alpha op(A) op(B) + beta C, op(X) = X or its
 * transpose (ta, tb: A is stored K x M, B N x K, row-major); beta = 0 never reads C.
 * alpha is applied as B is packed, beta to each C tile before its first k block. */
typedef struct {
    int ta, tb;
    float alpha, beta;
} NT_(op);
static const NT_(op) NT_(plain) = {0, 0, 1.0f, 0.0f};

/* The offset of element (i, p) of op(A) (lda) and (p, j) of op(B) (ldb). */
static inline ptrdiff_t NT_(aoff)(const NT_(op) *o, ptrdiff_t i, ptrdiff_t p, ptrdiff_t lda)
{
    return o->ta ? p * lda + i : i * lda + p;
}
static inline ptrdiff_t NT_(boff)(const NT_(op) *o, ptrdiff_t p, ptrdiff_t j, ptrdiff_t ldb)
{
    return o->tb ? j * ldb + p : p * ldb + j;
}

/* A thread's scratch memory number `slot` (0: pack buffers, 1: widened A)
 * of at least `bytes`, 64-byte aligned, or NULL. With C11 threads it is
 * kept between calls (grown when too small, freed when the thread ends),
 * since fresh memory on every call would page-fault megabytes each time;
 * *temp = 0. Else (or if the key cannot be made) it is allocated for this
 * call and *temp = 1: the caller frees it. */
#ifndef __STDC_NO_THREADS__
typedef struct {
    size_t cap[2];
    unsigned char *mem[2];
} NT_(kept);
static tss_t NT_(key);
static int NT_(key_ok);
static once_flag NT_(once) = ONCE_FLAG_INIT;
static void NT_(drop)(void *p)
{
    NT_(kept) *k = p;
    free(k->mem[0]);
    free(k->mem[1]);
    free(k);
}
static void NT_(make_key)(void) { NT_(key_ok) = tss_create(&NT_(key), NT_(drop)) == thrd_success; }
#endif
static unsigned char *NT_(scratch)(int slot, size_t bytes, int *temp)
{
    bytes = (bytes + 63) / 64 * 64;
    *temp = 1;
#ifndef __STDC_NO_THREADS__
    call_once(&NT_(once), NT_(make_key));
    if (NT_(key_ok)) {
        NT_(kept) *k = tss_get(NT_(key));
        if (!k) {
            k = calloc(1, sizeof *k);
            if (!k || tss_set(NT_(key), k) != thrd_success) {
                free(k);
                return aligned_alloc(64, bytes);
            }
        }
        if (k->cap[slot] < bytes) {
            free(k->mem[slot]);
            k->mem[slot] = aligned_alloc(64, bytes);
            k->cap[slot] = k->mem[slot] ? bytes : 0;
        }
        *temp = 0;
        return k->mem[slot];
    }
#endif
    return aligned_alloc(64, bytes);
}

/* Copies the rows x kc part of A (row stride lda) that a micro-panel covers
 * into dst (row stride KS), rows past it zero: a last, partial panel, and
 * every panel of an A whose rows alias in L1d (ALIAS). */
static void NT_(pack_a)(const float *A, ptrdiff_t lda, int rows, int kc, float *dst)
{
    for (int r = 0; r < NT_(MR); r++)
        if (r < rows)
            memcpy(dst + (ptrdiff_t)r * NT_(KS), A + (ptrdiff_t)r * lda,
                   sizeof(float) * (size_t)kc);
        else
            memset(dst + (ptrdiff_t)r * NT_(KS), 0, sizeof(float) * (size_t)kc);
}

/* The same for a transposed A (element (r, p) at A[p*lda + r]), for every
 * micro-panel: MR consecutive floats of each of kc rows of the stored A. */
static void NT_(pack_at)(const float *A, ptrdiff_t lda, int rows, int kc, float *dst)
{
    for (int p = 0; p < kc; p++) {
        const float *a = A + (ptrdiff_t)p * lda;
        int r = 0;
        for (; r < rows; r++)
            dst[(ptrdiff_t)r * NT_(KS) + p] = a[r];
        for (; r < NT_(MR); r++)
            dst[(ptrdiff_t)r * NT_(KS) + p] = 0.0f;
    }
}

/* Copies a B block (kc x cols of op(B), starting at B) times alpha into
 * NR-column panels: panel q at dst + q*kc*NR, its row p at + p*NR; the
 * columns of a last, partial panel past the block are zero. B is read
 * sequentially: row by row, or for a transposed B (element (p, j) at
 * B[j*ldb + p]) g of its rows at a time (8, or 4 when NR is not a multiple
 * of 8), each along its length. */
static void NT_(pack_b)(const NT_(in) *B, ptrdiff_t ldb, int cols, int kc, float *dst,
                        const NT_(op) *o)
{
    int whole = cols / NT_(NR), w = cols - whole * NT_(NR);
    float alpha = o->alpha;
    if (!o->tb) {
        for (int p = 0; p < kc; p++) {
            const NT_(in) *src = B + (ptrdiff_t)p * ldb;
            float *d = dst + (ptrdiff_t)p * NT_(NR);
            for (int q = 0; q < whole; q++, src += NT_(NR), d += (ptrdiff_t)kc * NT_(NR))
                NT_(cvt)(d, src, NT_(NR));
            if (w > 0) {
                NT_(cvt)(d, src, w);
                memset(d + w, 0, sizeof(float) * (size_t)(NT_(NR) - w));
            }
        }
    } else {
        int np = whole + (w > 0), g = NT_(NR) % 8 ? 4 : 8;
        for (int j0 = 0; j0 < np * NT_(NR); j0 += g) {
            float *d = dst + (ptrdiff_t)(j0 / NT_(NR)) * kc * NT_(NR) + j0 % NT_(NR);
            int n = cols - j0 < g ? (cols - j0 > 0 ? cols - j0 : 0) : g;
            const NT_(in) *src = B + (ptrdiff_t)j0 * ldb;
            for (int p = 0; p < kc; p++, d += NT_(NR)) {
                int c = 0;
                for (; c < n; c++)
                    d[c] = NT_(ld)(src[(ptrdiff_t)c * ldb + p]);
                for (; c < g; c++)
                    d[c] = 0.0f;
            }
        }
    }
    if (alpha != 1.0f)
        for (ptrdiff_t i = 0, n = (ptrdiff_t)(whole + (w > 0)) * kc * NT_(NR); i < n; i++)
            dst[i] *= alpha;
}

/* An edge micro-tile (rows x cols inside MR x NR; A rows past `rows` are
 * zero): computed whole into a scratch tile, then only its valid part is
 * written to C. */
static void NT_(edge)(int kc, const float *a, ptrdiff_t lda, const float *b, float *c,
                      ptrdiff_t ldc, int acc, int rows, int cols)
{
    _Alignas(64) float t[NT_(MR) * NT_(NR)];
    NT_(ukr_cols)(kc, a, lda, b, t, cols);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            c[(ptrdiff_t)i * ldc + j] = acc ? c[(ptrdiff_t)i * ldc + j] + t[i * NT_(NR) + j]
                                            : t[i * NT_(NR) + j];
}

/* A region the next step reads (double buffering): `rows` rows of `bytes`
 * bytes, `ld` bytes apart, walked line by line by a cursor (the row at
 * `src`, `off` bytes into it; the last line of a row is its last byte, as
 * a row need not be line-aligned). `quota` lines per call of NT_(pf_some). */
typedef struct {
    const char *src;
    ptrdiff_t ld;
    int bytes, off, rows;
    long lines, quota;
} NT_(pf);

/* Sets x to the region of rows x cols elements of esize bytes, row stride
 * ld elements (no lines when rows or cols is 0). */
static void NT_(pf_set)(NT_(pf) *x, const void *src, ptrdiff_t ld, int rows, int cols, int esize)
{
    x->src = src;
    x->ld = ld * esize;
    x->bytes = cols * esize;
    x->off = 0;
    x->rows = rows > 0 && cols > 0 ? rows : 0;
    x->lines = (long)x->rows * ((x->bytes + 63) / 64 + 1);
    x->quota = 0;
}

/* Prefetches the next x->quota lines of x into L2. */
static void NT_(pf_some)(NT_(pf) *x)
{
    for (long n = x->quota; n > 0 && x->rows > 0; n--)
        if (x->off < x->bytes) {
            __builtin_prefetch(x->src + x->off, 0, 2);
            x->off += 64;
        } else { /* the row's last line, then the next row */
            __builtin_prefetch(x->src + x->bytes - 1, 0, 2);
            x->off = 0;
            x->src += x->ld;
            x->rows--;
        }
}

/* Plain loops, used only when the pack buffers cannot be allocated (and for
 * K = 0, where C is scaled by beta). */
static void NT_(naive)(int M, int N, int K, const NT_(in) *A, ptrdiff_t lda, const NT_(in) *B,
                       ptrdiff_t ldb, float *C, ptrdiff_t ldc, const NT_(op) *o)
{
    for (int i = 0; i < M; i++) {
        float *c = C + (ptrdiff_t)i * ldc;
        for (int j = 0; j < N; j++)
            c[j] = o->beta == 0.0f ? 0.0f : o->beta * c[j];
        for (int p = 0; p < K; p++) {
            float x = o->alpha * NT_(ld)(A[NT_(aoff)(o, i, p, lda)]);
            for (int j = 0; j < N; j++)
                c[j] += x * NT_(ld)(B[NT_(boff)(o, p, j, ldb)]);
        }
    }
}

/* C block (mc x nc) = beta C block + A block (fp32, row stride lda; ta: its
 * transpose) . packed B block by micro-tiles, a row of tiles at a time (beta
 * 0: C is not read; 1: accumulate). A micro-panels are read in place, except
 * a last, partial one, copied (zero-padded) into ae, all of a transposed A's,
 * and, when MR > ALIAS_ROWS, all of an A whose rows are a multiple of ALIAS
 * floats apart (they would share one L1d set, more than it holds; ae's rows
 * are KS apart, an odd number of lines). With double buffering, after each
 * tile a share of the regions the next step reads (pf[0..npf)) is
 * prefetched into L2, spread so that memory works while the FMAs do. */
static void NT_(macro)(int mc, int nc, int kc, const float *A, ptrdiff_t lda, int ta,
                       const float *Bp, float *C, ptrdiff_t ldc, float beta, float *ae,
                       NT_(pf) *pf, int npf)
{
    int acc = beta != 0.0f;
    int mp = (mc + NT_(MR) - 1) / NT_(MR), np = (nc + NT_(NR) - 1) / NT_(NR);
    int last = mc - (mp - 1) * NT_(MR); /* rows of the last A micro-panel */
    for (int q = 0; q < npf; q++)
        pf[q].quota = (pf[q].lines + (long)mp * np - 1) / ((long)mp * np);
    int alias = NT_(MR) > NT_(ALIAS_ROWS) && lda % NT_(ALIAS) == 0; /* copy every panel */
    NT_(pf) next = {0}; /* the rows of the next micro-panel when it is copied */
    for (int ir = 0; ir < mp; ir++) {
        int rows = ir < mp - 1 ? NT_(MR) : last;
        const float *a = ae;
        ptrdiff_t la = NT_(KS);
        if (ta)
            NT_(pack_at)(A + (ptrdiff_t)ir * NT_(MR), lda, rows, kc, ae);
        else if (rows < NT_(MR) || alias)
            NT_(pack_a)(A + (ptrdiff_t)ir * NT_(MR) * lda, lda, rows, kc, ae);
        else
            a = A + (ptrdiff_t)ir * NT_(MR) * lda, la = lda;
        /* A copy reads short rows far apart, which the hardware prefetchers
         * do not fetch ahead: it would wait on each line. So the next panel's
         * rows, when they are to be copied, are prefetched into L2 during the
         * first half of this row of tiles (1024x768x3072, 6x64 tiles copied:
         * 3-6% faster than without). */
        int rows2 = ir + 1 < mp - 1 ? NT_(MR) : last;
        next.rows = 0;
        if (!ta && ir + 1 < mp && (rows2 < NT_(MR) || alias)) {
            NT_(pf_set)(&next, A + (ptrdiff_t)(ir + 1) * NT_(MR) * lda, lda, rows2, kc,
                        sizeof *A);
            next.quota = (next.lines + (np + 1) / 2 - 1) / ((np + 1) / 2);
        }
        float *c = C + (ptrdiff_t)ir * NT_(MR) * ldc;
        for (int jr = 0; jr < np; jr++) {
            const float *b = Bp + (ptrdiff_t)jr * kc * NT_(NR);
            int cols = nc - jr * NT_(NR) < NT_(NR) ? nc - jr * NT_(NR) : NT_(NR);
            if (acc && beta != 1.0f) /* this tile's first k block: C = beta C + ... */
                for (int i = 0; i < rows; i++)
                    for (int j = 0; j < cols; j++)
                        c[(ptrdiff_t)i * ldc + jr * NT_(NR) + j] *= beta;
            if (rows == NT_(MR) && cols == NT_(NR))
                NT_(ukr)(kc, a, la, b, c + jr * NT_(NR), ldc, acc);
            else
                NT_(edge)(kc, a, la, b, c + jr * NT_(NR), ldc, acc, rows, cols);
            for (int q = 0; q < npf; q++)
                NT_(pf_some)(&pf[q]);
            NT_(pf_some)(&next);
        }
    }
}

/* ---- the step order of the strategy: block coordinates (i, j, p) of step s ---- */
#if NT_ORDER == NT_IS

/* IS: for each A block (ic outer, pc), the B blocks stream (jc inner) past
 * the A block (read in place), which stays resident. */
static void NT_(step)(long s, int nI, int nJ, int nP, int *i, int *j, int *p)
{
    (void)nI;
    *j = (int)(s % nJ);
    *p = (int)(s / nJ % nP);
    *i = (int)(s / nJ / nP);
}
#elif NT_ORDER == NT_WS

/* WS: for each B block (jc outer, pc), the A blocks stream (ic inner) past
 * the packed B block, which stays resident. */
static void NT_(step)(long s, int nI, int nJ, int nP, int *i, int *j, int *p)
{
    (void)nJ;
    *i = (int)(s % nI);
    *p = (int)(s / nI % nP);
    *j = (int)(s / nI / nP);
}
#elif NT_ORDER == NT_OS

/* OS: for each C block (ic outer, jc), the k blocks (pc inner) accumulate
 * into it while it stays resident; each step's A and B blocks stream past. */
static void NT_(step)(long s, int nI, int nJ, int nP, int *i, int *j, int *p)
{
    (void)nI;
    *p = (int)(s % nP);
    *j = (int)(s / nP % nJ);
    *i = (int)(s / nP / nJ);
}
#endif

/* The row block for M rows: MC, or all of them in whole micro-panels. */
static int NT_(mc)(int M) { return NT_(MC) < M ? NT_(MC) : (M + NT_(MR) - 1) / NT_(MR) * NT_(MR); }

/* C (M x N, pointers already offset; M, N, K >= 1) = alpha op(A) (fp32) op(B) +
 * beta C: the block loop with this thread's own pack buffers. 0 when they
 * cannot be had. */
static int NT_(blocks)(int M, int N, int K, const float *A, ptrdiff_t lda, const NT_(in) *B,
                       ptrdiff_t ldb, float *C, ptrdiff_t ldc, const NT_(op) *o)
{
    /* blocks no larger than the (padded) problem */
    int mc = NT_(mc)(M);
    int nc = NT_(NC) < N ? NT_(NC) : (N + NT_(NR) - 1) / NT_(NR) * NT_(NR);
    int kc = NT_(KC) < K ? NT_(KC) : K;
    int nI = (M + mc - 1) / mc, nJ = (N + nc - 1) / nc, nP = (K + kc - 1) / kc;
    /* The packed B blocks: one slot, repacked whenever the step's block
     * changes, which in WS order is once per block (it serves every A block
     * in a row), and in IS and OS once per block row of A (nI times). When
     * they meet each block at least VISITS times (and this thread's share
     * fits BCACHE bytes), every block gets its own slot instead, packed on
     * first use: the kept copies leave L2 and come back, which costs more
     * than packing a block a second time into the one slot that stays in
     * L2, but less than a third time. ae: a partial A micro-panel. */
    size_t slot = (size_t)kc * (size_t)nc;
    long nblk = (long)nP * nJ;
    int cache = NT_(REVISITS) && nI >= NT_(VISITS) &&
                (size_t)nblk <= (size_t)NT_(BCACHE) / sizeof(float) / slot;
    size_t nslot = (size_t)(cache ? nblk : 1);
    size_t bbytes = (nslot * slot * sizeof(float) + 63) / 64 * 64;
    size_t abytes = ((size_t)NT_(MR) * NT_(KS) * sizeof(float) + 63) / 64 * 64;
    int temp;
    unsigned char *mem = NT_(scratch)(0, bbytes + abytes + nslot, &temp);
    if (!mem)
        return 0;
    float *Bp = (float *)(void *)mem, *ae = (float *)(void *)(mem + bbytes);
    unsigned char *packed = mem + bbytes + abytes; /* per slot: packed yet */
    memset(packed, 0, nslot);
    long steps = (long)nI * nJ * nP, in_slot = -1; /* block in the single slot */
    for (long s = 0; s < steps; s++) {
        int i, j, p;
        NT_(step)(s, nI, nJ, nP, &i, &j, &p);
        int rows = M - i * mc < mc ? M - i * mc : mc;
        int cols = N - j * nc < nc ? N - j * nc : nc;
        int kk = K - p * kc < kc ? K - p * kc : kc;
        long hb = (long)p * nJ + j; /* this step's B block */
        float *bp = cache ? Bp + (size_t)hb * slot : Bp;
        if (cache ? !packed[hb] : hb != in_slot) { /* not in its slot yet */
            NT_(pack_b)(B + NT_(boff)(o, (ptrdiff_t)p * kc, (ptrdiff_t)j * nc, ldb), ldb, cols, kk,
                        bp, o);
            if (cache)
                packed[hb] = 1;
            in_slot = hb;
        }
        /* double buffering: the next step's new A block, the source of its
         * B block when that is still to be packed, and its new C block */
        NT_(pf) pf[3];
        int npf = 0;
        if (NT_(DB) && s + 1 < steps) {
            int i2, j2, p2;
            NT_(step)(s + 1, nI, nJ, nP, &i2, &j2, &p2);
            int rows2 = M - i2 * mc < mc ? M - i2 * mc : mc;
            int cols2 = N - j2 * nc < nc ? N - j2 * nc : nc;
            int kk2 = K - p2 * kc < kc ? K - p2 * kc : kc;
            long hb2 = (long)p2 * nJ + j2;
            if (i2 != i || p2 != p)
                NT_(pf_set)(&pf[npf++], A + NT_(aoff)(o, (ptrdiff_t)i2 * mc, (ptrdiff_t)p2 * kc, lda),
                            lda, o->ta ? kk2 : rows2, o->ta ? rows2 : kk2, sizeof *A);
            if (cache ? !packed[hb2] : hb2 != hb)
                NT_(pf_set)(&pf[npf++], B + NT_(boff)(o, (ptrdiff_t)p2 * kc, (ptrdiff_t)j2 * nc, ldb),
                            ldb, o->tb ? cols2 : kk2, o->tb ? kk2 : cols2, sizeof *B);
            if (i2 != i || j2 != j)
                NT_(pf_set)(&pf[npf++], C + (ptrdiff_t)i2 * mc * ldc + (ptrdiff_t)j2 * nc, ldc,
                            rows2, cols2, sizeof *C);
        }
        NT_(macro)(rows, cols, kk, A + NT_(aoff)(o, (ptrdiff_t)i * mc, (ptrdiff_t)p * kc, lda), lda,
                   o->ta, bp, C + (ptrdiff_t)i * mc * ldc + (ptrdiff_t)j * nc, ldc,
                   p > 0 ? 1.0f : o->beta, ae, pf, npf);
    }
    if (temp)
        free(mem);
    return 1;
}

/* The row stride, in floats, of a copy of rows of K floats: K rounded up to
 * whole cache lines, made an odd number of them (as KS for kc), so that the
 * copied rows fall in distinct L1d sets. */
#if NT_DTYPE != NT_FP32 || defined(NT_NOPACK) /* the kernels that copy whole rows */
static size_t NT_(row_floats)(int K)
{
    size_t kw = ((size_t)K + 15) / 16 * 16;
    return kw / 16 % 2 ? kw : kw + 16;
}
#endif

/* ---- a thread's share of C from the caller's A: fp32 A is read in place, bf16 and
 * fp16 A is widened to fp32 once per call (in bands of whole row blocks when it would
 * take more than AWIDE bytes) ---- */
#if NT_DTYPE == NT_FP32
#ifdef NT_NOPACK

/* Columns [w0, w1) of a no-pack tile: c[0..rows) x [w0..w1) (row stride ldc)
 * = alpha A rows (a, lda; kc floats of each) . B (b, kc rows of NR ldb apart)
 * + beta c, through a scratch tile (beta = 0 never reads C): a last, partial
 * row of tiles, an overlapping one, or alpha and beta other than 1 and 0 or 1. */
static void NT_(dpart)(int kc, const float *a, ptrdiff_t lda, int rows, const float *b,
                       ptrdiff_t ldb, float *c, ptrdiff_t ldc, float alpha, float beta, int w0,
                       int w1)
{
    _Alignas(64) float t[NT_(MR) * NT_(NR)];
    NT_(dkr)(kc, a, lda, rows, b, ldb, t, NT_(NR), 0);
    for (int r = 0; r < rows; r++)
        for (int q = w0; q < w1; q++) {
            float *y = c + (ptrdiff_t)r * ldc + q, v = alpha * t[r * NT_(NR) + q];
            *y = beta == 0.0f ? v : v + beta * *y;
        }
}

/* How the no-pack loops tile `rows` rows: ceil(rows / MR) tiles whose heights
 * differ by at most one, the first *more of them *lo + 1 rows high, the rest
 * *lo (64 rows of MR 6: 9 tiles of 6 and 2 of 5, where 10 of 6 and one of 4
 * would compute that one as one of 6). Returns the tiles. */
static inline int NT_(even_rows)(int rows, int *lo, int *more)
{
    int tiles = (rows + NT_(MR) - 1) / NT_(MR);
    *lo = rows / tiles, *more = rows % tiles;
    return tiles;
}

#ifdef NT_DENSE

/* Where the including code lists shapes (a library's entries of this kernel,
 * codegen/library.c: #define NT_DENSE(X) X(M, N, K) ...): C (M x N) = A (M x K)
 * . B (K x N) (+ C when acc), all dense, in whole NR-column tiles, by a loop that
 * each call below specializes for its constant shape (its trip counts, strides
 * and tile heights, NT_(even_rows)), as a hand-written kernel for one shape
 * would be. */
static inline __attribute__((always_inline)) void NT_(dense)(int M, int N, int K, const float *A,
                                                             const float *B, float *C, int acc)
{
    int lo, more, tiles = NT_(even_rows)(M, &lo, &more), i = 0;
    for (int t = 0; t < more; t++, i += lo + 1) /* the taller tiles */
        for (int j = 0; j < N; j += NT_(NR))
            NT_(dkr)(K, A + (ptrdiff_t)i * K, K, lo + 1, B + j, N, C + (ptrdiff_t)i * N + j, N,
                     acc);
    for (int t = more; t < tiles; t++, i += lo)
        for (int j = 0; j < N; j += NT_(NR))
            NT_(dkr)(K, A + (ptrdiff_t)i * K, K, lo, B + j, N, C + (ptrdiff_t)i * N + j, N, acc);
}

/* One listed shape: taken when the call has it, dense, and the shape is whole
 * NR-column tiles, in one k block, whose A rows do not alias in L1d. */
#define NT_DENSE_CASE(m, n, k)                                                                   \
    if ((n) % NT_(NR) == 0 && (k) % NT_(ALIAS) != 0 && (k) <= NT_(KC) && M == (m) && N == (n) && \
        K == (k) && lda == (k) && ldb == (n) && ldc == (n)) {                                    \
        if (acc)                                                                                 \
            NT_(dense)(m, n, k, A, B, C, 1);                                                     \
        else                                                                                     \
            NT_(dense)(m, n, k, A, B, C, 0);                                                     \
        return 1;                                                                                \
    }

/* Whether C (M x N, ldc) = A (M x K, lda) . B (K x N, ldb) (+ C when acc),
 * neither transposed, was one of the listed shapes, then computed on one
 * thread. The library's dispatcher (blas.c) calls it itself for a call it may
 * serve, before NT_(ex) and its layers (which cost 0.8% of a 64x64x64 call),
 * and it is a function of its own, so that the general path's frame, spills
 * and checks cost it nothing (inside NT_(direct) they were 0.5%). */
int NT_(dense_call)(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                    float *C, int ldc, int acc)
{
    NT_DENSE(NT_DENSE_CASE)
#undef NT_DENSE_CASE
    return 0;
}
#endif

/* The no-pack family: C (M x N; M, K >= 1) = alpha A (lda) . B (ldb) + beta C,
 * neither transposed, by NR-column tiles from column head on (N >= head + NR),
 * their columns up to `end`; the columns before and after them, if any, by
 * tiles that overlap their neighbours (from column 0, in the first column
 * block before its tiles, and from N - NR, in the last block after them: in
 * the order B's rows are read), each writing only its own columns. By MC x NC
 * blocks of C, in each by k blocks of KC (KC = K: one), in each a row of
 * MR x NR tiles at a time, every tile over the k block with A and B read in
 * place (NT_(dkr)): with KC < K a tile's first k block applies beta and the
 * later ones add to C, so that B is read a few rows at a time along their
 * length (a GEMV-like call streams B row by row instead of down its
 * columns). When A's rows are a multiple of ALIAS floats apart (they would
 * share one L1d set), each row of tiles reads a copy of its rows instead, an
 * odd number of cache lines apart (if the copy's memory cannot be had, A in
 * place). */
static void NT_(direct)(int M, int N, int K, const float *A, ptrdiff_t lda, const float *B,
                        ptrdiff_t ldb, float *C, ptrdiff_t ldc, const NT_(op) *o, int head)
{
    int mc = NT_(mc)(M), nc = NT_(NC) < N ? NT_(NC) : N, kc = NT_(KC) < K ? NT_(KC) : K;
    int end = head + (N - head) / NT_(NR) * NT_(NR), temp = 0;
    ptrdiff_t kw = (ptrdiff_t)NT_(row_floats)(kc), la = lda;
    float *ac = NULL;
    if (lda % NT_(ALIAS) == 0 &&
        (ac = (float *)(void *)NT_(scratch)(1, (size_t)NT_(MR) * (size_t)kw * sizeof(float), &temp)))
        la = kw;
    for (int i0 = 0; i0 < M; i0 += mc)
        for (int j0 = head; j0 < end; j0 += nc)
            for (int p0 = 0; p0 < K; p0 += kc) {
                int i1 = M - i0 < mc ? M : i0 + mc, j1 = end - j0 < nc ? end : j0 + nc;
                int kk = K - p0 < kc ? K - p0 : kc;
                float alpha = o->alpha, beta = p0 > 0 ? 1.0f : o->beta; /* later k blocks add */
                int plain = alpha == 1.0f && (beta == 0.0f || beta == 1.0f), acc = beta != 0.0f;
                const float *bk = B + (ptrdiff_t)p0 * ldb;
                /* the block's rows by tiles of MR, or where NT_(even_rows) makes
                 * them all MR and MR - 1 rows high (they are not a multiple of MR),
                 * by those */
                int lo, more;
                NT_(even_rows)(i1 - i0, &lo, &more);
                int even = lo == NT_(MR) - 1;
                for (int i = i0, t = 0, rows; i < i1; i += rows, t++) {
                    rows = even && t >= more ? lo : i1 - i < NT_(MR) ? i1 - i : NT_(MR);
                    const float *a = A + (ptrdiff_t)i * lda + p0;
                    float *c = C + (ptrdiff_t)i * ldc;
                    if (ac) {
                        for (int r = 0; r < rows; r++)
                            memcpy(ac + r * kw, a + r * lda, sizeof(float) * (size_t)kk);
                        a = ac;
                    }
                    /* the overlapping tiles where B's rows are read anyway: the head's
                     * before the first block's tiles, the tail's after the last's */
                    if (j0 == head && head > 0)
                        NT_(dpart)(kk, a, la, rows, bk, ldb, c, ldc, alpha, beta, 0, head);
                    for (int j = j0; j < j1; j += NT_(NR))
                        if (plain && rows == NT_(MR))
                            NT_(dkr)(kk, a, la, NT_(MR), bk + j, ldb, c + j, ldc, acc);
                        else if (plain && NT_(MR) > 1 && rows == NT_(MR) - 1)
                            NT_(dkr)(kk, a, la, NT_(MR) - 1, bk + j, ldb, c + j, ldc, acc);
                        else
                            NT_(dpart)(kk, a, la, rows, bk + j, ldb, c + j, ldc, alpha, beta, 0,
                                       NT_(NR));
                    if (j1 == end && end < N)
                        NT_(dpart)(kk, a, la, rows, bk + N - NT_(NR), ldb, c + N - NT_(NR), ldc,
                                   alpha, beta, end - (N - NT_(NR)), NT_(NR));
                }
            }
    if (temp)
        free(ac);
}
#endif

/* One thread's share of C (M x N, pointers already offset). The no-pack
 * family computes its whole column panels of an untransposed call in place,
 * the packing code the rest. Where its tiles and B's rows are whole cache
 * lines but B is not on a line, a tile's row of B spans one line more than it
 * would (a third more or half as many again for tiles of 3 or 2 lines), which
 * costs most where B comes from beyond L1: it then computes its whole tiles
 * from a line on and the columns before and after by tiles overlapping them,
 * where that costs little: with k blocks (KC < K: B's rows streamed, and a
 * column panel packed would cost a strided walk down B; every column in
 * place, N >= NR), or when the two more tiles add at most an eighth to a row
 * of them. */
static void NT_(part)(int M, int N, int K, const NT_(in) *A, ptrdiff_t lda, const NT_(in) *B,
                      ptrdiff_t ldb, float *C, ptrdiff_t ldc, const NT_(op) *o)
{
    if (M <= 0 || N <= 0)
        return;
#ifdef NT_NOPACK
    if (K > 0 && !o->ta && !o->tb) {
        int head = 0;
        if (NT_(NR) % 16 == 0 && ldb % 16 == 0 && (uintptr_t)B % sizeof *B == 0)
            head = (int)((64 - (uintptr_t)B % 64) % 64 / sizeof *B);
        if (NT_(KC) < K && N >= NT_(NR)) {
            NT_(direct)(M, N, K, A, lda, B, ldb, C, ldc, o, N - head >= NT_(NR) ? head : 0);
            return;
        }
        if (head > 0 && N >= 16 * NT_(NR)) {
            NT_(direct)(M, N, K, A, lda, B, ldb, C, ldc, o, head);
            return;
        }
        int whole = N / NT_(NR) * NT_(NR);
        if (whole > 0)
            NT_(direct)(M, whole, K, A, lda, B, ldb, C, ldc, o, 0);
        if (whole == N)
            return;
        B += whole, C += whole, N -= whole;
    }
#endif
    if (K <= 0 || !NT_(blocks)(M, N, K, A, lda, B, ldb, C, ldc, o))
        NT_(naive)(M, N, K, A, lda, B, ldb, C, ldc, o);
}
#else

/* One thread's share of C (M x N, pointers already offset). Its rows of op(A) are widened to fp32 once, into rows KW floats apart (an odd
 * number of cache lines, so they fall in distinct L1 sets), `band` rows at a
 * time: all of them when they fit AWIDE bytes, else whole row blocks. */
static void NT_(part)(int M, int N, int K, const NT_(in) *A, ptrdiff_t lda, const NT_(in) *B,
                      ptrdiff_t ldb, float *C, ptrdiff_t ldc, const NT_(op) *o)
{
    if (M <= 0 || N <= 0)
        return;
    if (K <= 0) {
        NT_(naive)(M, N, 0, A, lda, B, ldb, C, ldc, o);
        return;
    }
    size_t kw = NT_(row_floats)(K);
    int mc = NT_(mc)(M);
    size_t fit = (size_t)NT_(AWIDE) / sizeof(float) / kw / (size_t)mc * (size_t)mc;
    int band = fit < (size_t)mc ? mc : fit < (size_t)M ? (int)fit : M;
    int temp;
    float *aw = (float *)(void *)NT_(scratch)(1, (size_t)band * kw * sizeof(float), &temp);
    NT_(op) wide = *o; /* the widened A is not transposed */
    wide.ta = 0;
    for (int i0 = 0; i0 < M; i0 += band) {
        int rows = M - i0 < band ? M - i0 : band;
        const NT_(in) *a = A + NT_(aoff)(o, i0, 0, lda);
        float *c = C + (ptrdiff_t)i0 * ldc;
        for (int r = 0; aw && r < rows; r++)
            if (o->ta) /* a column of the stored A */
                for (int p = 0; p < K; p++)
                    aw[(size_t)r * kw + (size_t)p] = NT_(ld)(a[(ptrdiff_t)p * lda + r]);
            else
                NT_(cvt)(aw + (size_t)r * kw, a + (ptrdiff_t)r * lda, K);
        if (!aw || !NT_(blocks)(rows, N, K, aw, (ptrdiff_t)kw, B, ldb, c, ldc, &wide))
            NT_(naive)(rows, N, K, a, lda, B, ldb, c, ldc, o);
    }
    if (temp)
        free(aw);
}
#endif

#if NT_SPLIT == NT_SPLIT_MN

/* The gm x gn thread grid of split MN (gm * gn = CORES) minimising the busiest
 * thread's micro-tiles; ties go to a 2-D grid, then the squarer one. */
static void NT_(grid)(int tm, int tn, int *gm, int *gn)
{
    long best = -1;
    int best_flat = 0, best_skew = 0;
    for (int r = 1; r <= NT_(CORES); r++) {
        if (NT_(CORES) % r)
            continue;
        int c = NT_(CORES) / r, flat = r == 1 || c == 1, skew = r > c ? r - c : c - r;
        long work = (long)((tm + r - 1) / r) * ((tn + c - 1) / c);
        if (best < 0 || work < best ||
            (work == best && (flat < best_flat || (flat == best_flat && skew < best_skew)))) {
            best = work;
            best_flat = flat;
            best_skew = skew;
            *gm = r;
            *gn = c;
        }
    }
}
#endif

#if NT_SPLIT != NT_SERIAL
/* A threaded call: its operands and its gm x gn grid of threads over tm x tn
 * micro-tiles. */
typedef struct {
    int M, N, K, lda, ldb, ldc, gm, gn, tm, tn;
    const NT_(in) *A, *B;
    float *C;
    const NT_(op) *o;
} NT_(job);

/* Thread t's disjoint cell of C, in whole micro-tiles. */
static void NT_(cell)(void *job, int t)
{
    const NT_(job) *j = job;
    int gi = t / j->gn, gj = t % j->gn;
    int m0 = (int)((long)j->tm * gi / j->gm) * NT_(MR);
    int m1 = (int)((long)j->tm * (gi + 1) / j->gm) * NT_(MR);
    int n0 = (int)((long)j->tn * gj / j->gn) * NT_(NR);
    int n1 = (int)((long)j->tn * (gj + 1) / j->gn) * NT_(NR);
    if (m1 > j->M)
        m1 = j->M;
    if (n1 > j->N)
        n1 = j->N;
    if (m0 < m1 && n0 < n1)
        NT_(part)(m1 - m0, n1 - n0, j->K, j->A + NT_(aoff)(j->o, m0, 0, j->lda), j->lda,
                  j->B + NT_(boff)(j->o, 0, n0, j->ldb), j->ldb, j->C + (ptrdiff_t)m0 * j->ldc + n0,
                  j->ldc, j->o);
}
#endif

/* C (M x N, row stride ldc) = alpha op(A) op(B) + beta C (see NT_(op)) on
 * `threads` threads: the kernel's CORES, or 1 (M, N >= 1). The threads are
 * OpenMP's, or where the including code defines NT_HOST_POOL (a library of
 * kernels) its pool's: NT_HOST_POOL(n, fn, arg) runs fn(arg, t) for t < n. */
static void NT_(run)(int M, int N, int K, const NT_(in) *A, int lda, const NT_(in) *B, int ldb,
                     float *C, int ldc, const NT_(op) *o, int threads)
{
#if NT_SPLIT == NT_SERIAL
    (void)threads;
    NT_(part)(M, N, K, A, lda, B, ldb, C, ldc, o);
#else
    if (threads == 1) {
        NT_(part)(M, N, K, A, lda, B, ldb, C, ldc, o);
        return;
    }
    NT_(job) j = {.M = M, .N = N, .K = K, .lda = lda, .ldb = ldb, .ldc = ldc,
                  .tm = (M + NT_(MR) - 1) / NT_(MR), .tn = (N + NT_(NR) - 1) / NT_(NR),
                  .A = A, .B = B, .C = C, .o = o};
#if NT_SPLIT == NT_SPLIT_M
    j.gm = NT_(CORES), j.gn = 1; /* split M */
#elif NT_SPLIT == NT_SPLIT_N
    j.gm = 1, j.gn = NT_(CORES); /* split N */
#else
    NT_(grid)(j.tm, j.tn, &j.gm, &j.gn); /* split MN */
#endif
#if defined(NT_HOST_POOL)
    NT_HOST_POOL(NT_(CORES), NT_(cell), &j);
#else
#ifdef _OPENMP
#pragma omp parallel for num_threads(NT_(CORES)) schedule(static, 1)
#endif
    for (int t = 0; t < NT_(CORES); t++)
        NT_(cell)(&j, t);
#endif
#endif
}

/* C (M x N, row stride ldc) = A (M x K, lda) . B (K x N, ldb); row-major (see NT_(in)). */
void NT_SYMBOL(int M, int N, int K, const NT_(in) *A, int lda, const NT_(in) *B, int ldb,
               float *C, int ldc)
{
    if (M > 0 && N > 0)
        NT_(run)(M, N, K, A, lda, B, ldb, C, ldc, &NT_(plain), NT_(CORES));
}

#ifdef NT_HOST_EX
/* Where the including code defines NT_HOST_EX (a library of kernels, see
 * codegen/host/blas.c): C (M x N, row stride ldc) = alpha op(A) op(B) +
 * beta C, row-major: op(A) is M x K, stored as such (ta = 0, row stride lda)
 * or as its K x M transpose (ta = 1), op(B) likewise K x N (tb); beta = 0
 * never reads C, alpha = 0 or K = 0 only scales C by beta. On the kernel's
 * threads, or on one when threads is 1. The arguments are the caller's to
 * check (a BLAS's). */
void NT_(ex)(int ta, int tb, int M, int N, int K, float alpha, const NT_(in) *A, int lda,
             const NT_(in) *B, int ldb, float beta, float *C, int ldc, int threads)
{
    if (M <= 0 || N <= 0)
        return;
    NT_(op) o = {ta != 0, tb != 0, alpha, beta};
    if (K <= 0 || alpha == 0.0f) {
        if (beta != 1.0f)
            NT_(naive)(M, N, 0, A, lda, B, ldb, C, ldc, &o);
        return;
    }
    NT_(run)(M, N, K, A, lda, B, ldb, C, ldc, &o, threads);
}
#endif

/* ---- the end of this kernel's macros (the next kernel's header defines its own) ---- */
#undef NT_
#undef NT_SYMBOL
#undef NT_DTYPE
#undef NT_ORDER
#undef NT_SPLIT
#undef NT_VW
#undef NT_FP32
#undef NT_BF16
#undef NT_FP16
#undef NT_IS
#undef NT_WS
#undef NT_OS
#undef NT_SERIAL
#undef NT_SPLIT_M
#undef NT_SPLIT_N
#undef NT_SPLIT_MN
#undef NT_NOPACK
#undef NT_DENSE
