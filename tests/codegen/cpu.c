/* cpu.c — the host kernel generator: argument checks, the text, and generated kernels compiled with cc and checked against a double reference. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "codegen.h"

/* The program compiled next to the generated kernels: runs every kernel on
 * edge and random shapes (tails, rows a no-pack kernel tiles by MR and MR - 1, M/N/K
 * of 1, thin, tall, K = 0, padded leading
 * dimensions) and compares with a double-precision reference. Arguments: the
 * number of random shapes per kernel. Exit status 0 when all match. */
static const char checker_src[] =
    "#include <math.h>\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#include <string.h>\n"
    "#include \"table.h\"\n"
    "\n"
    "static unsigned long long rng = 88172645463325252ULL;\n"
    "static unsigned long long next(void)\n"
    "{\n"
    "    rng ^= rng << 13;\n"
    "    rng ^= rng >> 7;\n"
    "    rng ^= rng << 17;\n"
    "    return rng;\n"
    "}\n"
    "static int upto(int n) { return (int)(next() % (unsigned long long)n); }\n"
    "static float val(void) { return (float)((double)(next() >> 11) / 9007199254740992.0 * 2.0 - 1.0); }\n"
    "\n"
    "static const float SENTINEL = 12345.0f;\n"
    "\n"
    "/* x rounded to the nearest bf16 (ties to even); its bit pattern in *bits. */\n"
    "static float to_bf16(float x, uint16_t *bits)\n"
    "{\n"
    "    uint32_t u;\n"
    "    memcpy(&u, &x, sizeof u);\n"
    "    u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;\n"
    "    memcpy(&x, &u, sizeof x);\n"
    "    *bits = (uint16_t)(u >> 16);\n"
    "    return x;\n"
    "}\n"
    "\n"
    "/* The value of the fp16 bit pattern h, from its fields (NaN for NaNs). */\n"
    "static float fp16_value(uint16_t h)\n"
    "{\n"
    "    int e = h >> 10 & 0x1f, m = h & 0x3ff;\n"
    "    float v = e == 0x1f ? (m ? NAN : INFINITY)\n"
    "              : e ? ldexpf((float)(1024 + m), e - 25) : ldexpf((float)m, -24);\n"
    "    return h & 0x8000 ? -v : v;\n"
    "}\n"
    "\n"
    "/* A random fp16 value below 2 in magnitude, subnormals and zeros among them;\n"
    " * its bit pattern in *bits. */\n"
    "static float rand_fp16(uint16_t *bits)\n"
    "{\n"
    "    *bits = (uint16_t)((next() & 0x8000u) | (unsigned)upto(16) << 10 | (unsigned)upto(1024));\n"
    "    return fp16_value(*bits);\n"
    "}\n"
    "\n"
    "/* An fp16 kernel on every fp16 value: C (1 x 65536) = 1.0 . B (1 x 65536)\n"
    " * must be each value exactly (NaN for NaN; zeros of either sign equal). */\n"
    "static int every_fp16(int kidx)\n"
    "{\n"
    "    enum { N = 65536 };\n"
    "    static uint16_t B[N];\n"
    "    static float C[N];\n"
    "    uint16_t one = 0x3c00;\n"
    "    for (int j = 0; j < N; j++)\n"
    "        B[j] = (uint16_t)j;\n"
    "    kernels16[kidx](1, N, 1, &one, 1, B, N, C, N);\n"
    "    int bad = 0;\n"
    "    for (int j = 0; j < N && bad < 3; j++) {\n"
    "        float v = fp16_value((uint16_t)j);\n"
    "        if (isnan(v) ? !isnan(C[j]) : C[j] != v) {\n"
    "            fprintf(stderr, \"%s: fp16 0x%04x read as %.9g, is %.9g\\n\", names[kidx], j, C[j], v);\n"
    "            bad++;\n"
    "        }\n"
    "    }\n"
    "    return bad;\n"
    "}\n"
    "\n"
    "/* One kernel on one shape: 0 if C matches the reference within fp32 error\n"
    " * bounds and nothing outside C's M x N part was written. */\n"
    "static int run(int kidx, int M, int N, int K)\n"
    "{\n"
    "    int lda = K + (upto(3) ? 0 : 1 + upto(5)), ldb = N + (upto(3) ? 0 : 1 + upto(5));\n"
    "    int ldc = N + (upto(3) ? 0 : 1 + upto(5));\n"
    "    /* rows of A a multiple of 1024 floats apart alias in L1d: the kernels read\n"
    "     * copies of them (a K of 1024 or 2048 keeps lda = K; some others get 1024) */\n"
    "    if (K % 1024 == 0 || (K > 0 && K < 1024 && upto(6) == 0)) lda = K % 1024 == 0 ? K : 1024;\n"
    "    if (lda < 1) lda = 1;\n"
    "    if (ldb < 1) ldb = 1;\n"
    "    if (ldc < 1) ldc = 1;\n"
    "    /* A and B exactly as long as their last element, so over-reads show up\n"
    "     * under AddressSanitizer */\n"
    "    size_t na = M > 0 && K > 0 ? (size_t)(M - 1) * lda + K : 1;\n"
    "    size_t nb = K > 0 && N > 0 ? (size_t)(K - 1) * ldb + N : 1;\n"
    "    size_t nc = (size_t)(M > 0 ? M : 1) * ldc;\n"
    "    /* B at any float of a cache line (no-pack kernels that stream B align to one) */\n"
    "    int boff = upto(2) ? upto(16) : 0;\n"
    "    float *A = malloc(na * sizeof *A), *Bm = malloc((nb + (size_t)boff) * sizeof *Bm);\n"
    "    float *C = malloc(nc * sizeof *C);\n"
    "    float *B = Bm + boff;\n"
    "    if (!A || !Bm || !C) {\n"
    "        fprintf(stderr, \"out of memory\\n\");\n"
    "        exit(2);\n"
    "    }\n"
    "    for (size_t i = 0; i < na; i++) A[i] = val();\n"
    "    for (size_t i = 0; i < nb; i++) B[i] = val();\n"
    "    for (size_t i = 0; i < nc; i++) C[i] = (int)(i % (size_t)ldc) < N ? NAN : SENTINEL;\n"
    "    if (kernels16[kidx]) { /* bf16 storage: A and B rounded; fp16: drawn as fp16 */\n"
    "        uint16_t *A16 = malloc(na * sizeof *A16), *B16 = malloc(nb * sizeof *B16);\n"
    "        if (!A16 || !B16) {\n"
    "            fprintf(stderr, \"out of memory\\n\");\n"
    "            exit(2);\n"
    "        }\n"
    "        for (size_t i = 0; i < na; i++)\n"
    "            A[i] = fp16s[kidx] ? rand_fp16(&A16[i]) : to_bf16(A[i], &A16[i]);\n"
    "        for (size_t i = 0; i < nb; i++)\n"
    "            B[i] = fp16s[kidx] ? rand_fp16(&B16[i]) : to_bf16(B[i], &B16[i]);\n"
    "        kernels16[kidx](M, N, K, A16, lda, B16, ldb, C, ldc);\n"
    "        free(A16);\n"
    "        free(B16);\n"
    "    } else {\n"
    "        kernels[kidx](M, N, K, A, lda, B, ldb, C, ldc);\n"
    "    }\n"
    "    int bad = 0;\n"
    "    for (int i = 0; i < M && bad < 3; i++)\n"
    "        for (int j = 0; j < ldc && bad < 3; j++) {\n"
    "            float c = C[(size_t)i * ldc + j];\n"
    "            if (j >= N) {\n"
    "                if (c != SENTINEL) {\n"
    "                    fprintf(stderr, \"%s %dx%dx%d (lda %d ldb %d ldc %d): wrote C[%d][%d] past N\\n\",\n"
    "                            names[kidx], M, N, K, lda, ldb, ldc, i, j);\n"
    "                    bad++;\n"
    "                }\n"
    "                continue;\n"
    "            }\n"
    "            double ref = 0.0, mag = 0.0;\n"
    "            for (int p = 0; p < K; p++) {\n"
    "                double t = (double)A[(size_t)i * lda + p] * B[(size_t)p * ldb + j];\n"
    "                ref += t;\n"
    "                mag += fabs(t);\n"
    "            }\n"
    "            /* any summation order: |err| <= K u sum|a b| (u = 2^-24), doubled for\n"
    "             * rounded products without FMA */\n"
    "            double bound = 2.0 * (K + 1) * 5.9604644775390625e-08 * mag;\n"
    "            if (!(fabs((double)c - ref) <= bound)) {\n"
    "                fprintf(stderr, \"%s %dx%dx%d (lda %d ldb %d ldc %d): C[%d][%d] = %.9g, expected %.9g (bound %.3g)\\n\",\n"
    "                        names[kidx], M, N, K, lda, ldb, ldc, i, j, c, ref, bound);\n"
    "                bad++;\n"
    "            }\n"
    "        }\n"
    "    free(A);\n"
    "    free(Bm);\n"
    "    free(C);\n"
    "    return bad;\n"
    "}\n"
    "\n"
    "int main(int argc, char **argv)\n"
    "{\n"
    "    int nrandom = argc > 1 ? atoi(argv[1]) : 8;\n"
    "    static const int fixed[][3] = {{1, 1, 1}, {1, 1, 0}, {3, 5, 0}, {0, 4, 4}, {4, 0, 4},\n"
    "                                   {1, 37, 19}, {41, 1, 23}, {17, 29, 1}, {0, 0, 0},\n"
    "                                   {37, 83, 1024}, {29, 70, 2048}, {1, 3072, 9},\n"
    "                                   {2, 160, 37}, {3, 80, 5}, {1, 64, 3}, {7, 176, 1024},\n"
    "                                   {5, 1024, 24}, {13, 800, 17}, {11, 64, 9},\n"
    "                                   {63, 96, 20}};\n"
    "    int failed = 0, shapes = 0;\n"
    "    for (int k = 0; k < nkernels; k++) {\n"
    "        int bad = 0;\n"
    "        for (size_t s = 0; s < sizeof fixed / sizeof fixed[0]; s++, shapes++)\n"
    "            bad += run(k, fixed[s][0], fixed[s][1], fixed[s][2]);\n"
    "        for (int s = 0; s < nrandom; s++, shapes++) {\n"
    "            int M, N, K, kind = upto(6);\n"
    "            if (kind == 0) { /* thin: few rows */\n"
    "                M = 1 + upto(3), N = 1 + upto(300), K = 1 + upto(200);\n"
    "            } else if (kind == 1) { /* tall: few columns */\n"
    "                M = 1 + upto(300), N = 1 + upto(3), K = 1 + upto(200);\n"
    "            } else if (kind == 2) { /* several cache blocks each way */\n"
    "                M = 100 + upto(160), N = 100 + upto(200), K = 200 + upto(320);\n"
    "            } else {\n"
    "                M = 1 + upto(120), N = 1 + upto(120), K = 1 + upto(160);\n"
    "            }\n"
    "            bad += run(k, M, N, K);\n"
    "        }\n"
    "        /* GEMV-like: fewer rows than a micro-tile's usual 6, columns over several\n"
    "         * column blocks with a tail, k over several k blocks */\n"
    "        for (int s = 0; s < nrandom / 2; s++, shapes++)\n"
    "            bad += run(k, 1 + upto(5), 1 + upto(700), 1 + upto(40));\n"
    "        if (fp16s[k])\n"
    "            bad += every_fp16(k);\n"
    "        if (bad) {\n"
    "            fprintf(stderr, \"kernel %s: wrong results\\n\", names[k]);\n"
    "            failed++;\n"
    "        }\n"
    "    }\n"
    "    printf(\"checked %d kernels on %d shapes: %d wrong\\n\", nkernels, shapes, failed);\n"
    "    return failed != 0;\n"
    "}\n";

static char tmpdir[64];

/* Path of a file in the temporary directory. */
static const char *path(const char *name)
{
    static char buf[4][128];
    static int i;
    i = (i + 1) % 4;
    snprintf(buf[i], sizeof buf[i], "%s/%s", tmpdir, name);
    return buf[i];
}

/* Runs a shell command built from a format; returns its exit status. */
static int sh(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int r = system(cmd);
    return r == -1 ? -1 : (r >> 8) & 0xff;
}

/* The generated source of one config as a malloc'd string (NULL on failure,
 * err filled). */
static char *source(const sp_config *c, sp_dtype dt, const char *sym, char *err, size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    bool ok = cg_host_source(f, c, dt, sym, err, errlen);
    fclose(f);
    if (!ok) {
        free(buf);
        return NULL;
    }
    return buf;
}

static sp_config config(int strategy, int m, int n, int k, int db, int cores, int split, int mr,
                        int nr)
{
    sp_config c = {.m = m, .n = n, .k = k, .cores = cores, .strategy = (uint8_t)strategy,
                   .double_buffer = (uint8_t)db, .split = (uint8_t)split, .mr = (uint8_t)mr,
                   .nr = (uint8_t)nr};
    return c;
}

/* c with micro-tile u. */
static sp_config with_micro(sp_config c, sp_micro u)
{
    c.mr = u.mr;
    c.nr = u.nr;
    return c;
}

/* c in the no-pack family. */
static sp_config nopack(sp_config c)
{
    c.nopack = 1;
    return c;
}

/* The default micro-tile of a CPU with w-float vectors and v registers. */
static sp_micro micro_of(int w, int v)
{
    sp_target t = {.kind = SP_CPU, .cores = 1};
    t.cpu.simd_floats = w;
    t.cpu.vregs = v;
    return sp_micro_default(&t);
}

/* The default tiles of space (sp_micro_default) are accepted for every
 * vector class. */
static void test_micro(void)
{
    static const int cls[][2] = {{16, 32}, {8, 16}, {4, 16}, {8, 32}, {4, 32}};
    FILE *f = fopen("/dev/null", "w");
    if (!CHECK(f != NULL))
        return;
    char err[256];
    for (size_t i = 0; i < sizeof cls / sizeof cls[0]; i++) {
        sp_config c = with_micro(config(SP_WS, 96, 512, 256, 0, 1, SP_SPLIT_M, 0, 0),
                                 micro_of(cls[i][0], cls[i][1]));
        if (!CHECK(cg_host_source(f, &c, SP_FP32, "k", err, sizeof err)))
            fprintf(stderr, "  %dx%d: %s\n", c.mr, c.nr, err);
    }
    fclose(f);
}

static void test_errors(void)
{
    char err[256];
    sp_config ok = config(SP_WS, 96, 512, 256, 1, 2, SP_SPLIT_M, 14, 32);
    FILE *f = fopen("/dev/null", "w");
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK(cg_host_source(f, &ok, SP_FP32, "k", err, sizeof err));
    struct {
        sp_config c;
        const char *sym;
    } bad[] = {
        {config(SP_WS, 0, 512, 256, 0, 1, SP_SPLIT_M, 14, 32), "k"},
        {config(SP_WS, 96, 0, 256, 0, 1, SP_SPLIT_M, 14, 32), "k"},
        {config(SP_WS, 96, 512, 0, 0, 1, SP_SPLIT_M, 14, 32), "k"},
        {config(SP_WS, 96, 512, 256, 0, 0, SP_SPLIT_M, 14, 32), "k"},
        {config(SP_NSTRATEGY, 96, 512, 256, 0, 1, SP_SPLIT_M, 14, 32), "k"},
        {config(SP_WS, 96, 512, 256, 0, 2, SP_NSPLIT, 14, 32), "k"},
        {config(SP_WS, 96, 512, 256, 2, 1, SP_SPLIT_M, 14, 32), "k"},
        {config(SP_WS, 96, 512, 256, 0, 1, SP_SPLIT_M, 14, 30), "k"}, /* nr not a multiple of 4 */
        {config(SP_WS, 96, 512, 256, 0, 1, SP_SPLIT_M, 0, 32), "k"},
        {config(SP_WS, 96, 512, 256, 0, 1, SP_SPLIT_M, 33, 32), "k"},
        {config(SP_WS, 96, 512, 256, 0, 1, SP_SPLIT_M, 14, 0), "k"},
        {config(SP_WS, 96, 512, 256, 0, 1, SP_SPLIT_M, 14, 32), "1k"},
        {config(SP_WS, 96, 512, 256, 0, 1, SP_SPLIT_M, 14, 32), "k-1"},
        {config(SP_WS, 96, 512, 256, 0, 1, SP_SPLIT_M, 14, 32), ""},
        {config(SP_WS, 96, 512, 256, 0, 1, SP_SPLIT_M, 14, 32), "NT_VW"}, /* the kernels' macros */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        if (!CHECK(!cg_host_source(f, &bad[i].c, SP_FP32, bad[i].sym, err, sizeof err)))
            fprintf(stderr, "  case %zu was accepted\n", i);
        CHECK(err[0] != 0);
    }
    CHECK(!cg_host_source(NULL, &ok, SP_FP32, "k", err, sizeof err));
    CHECK(!cg_host_source(f, NULL, SP_FP32, "k", err, sizeof err));
    /* the host computes fp32, bf16 and fp16 only */
    err[0] = 0;
    CHECK(!cg_host_source(f, &ok, SP_INT8, "k", err, sizeof err));
    CHECK_HAS(err, "dtype int8");
    CHECK(!cg_host_source(f, &ok, SP_NDTYPE, "k", err, sizeof err));
    /* the no-pack family reads fp32 in place: no 16-bit storage, no other pack value */
    sp_config np = nopack(config(SP_OS, 96, 512, 256, 0, 1, SP_SPLIT_M, 14, 32));
    CHECK(cg_host_source(f, &np, SP_FP32, "k", err, sizeof err));
    err[0] = 0;
    CHECK(!cg_host_source(f, &np, SP_BF16, "k", err, sizeof err));
    CHECK_HAS(err, "fp32 only");
    np.nopack = 2;
    CHECK(!cg_host_source(f, &np, SP_FP32, "k", err, sizeof err));
    fclose(f);
}

/* How many times needle occurs in s. */
static int count(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

/* The header of the source says the config's choices and numbers; the rest is the
 * template (codegen/host/), the same for every config but for the micro-kernels. */
static void test_text(void)
{
    char err[256];
    sp_config c1 = config(SP_OS, 100, 300, 64, 1, 1, SP_SPLIT_N, 12, 32);
    char *s = source(&c1, SP_FP32, NULL, err, sizeof err);
    CHECK(s != NULL);
    if (s) {
        CHECK_HAS(s, "#define NT_(name) nt_sgemm_##name ");
        CHECK_HAS(s, "#define NT_SYMBOL nt_sgemm ");
        CHECK_HAS(s, "#define NT_DTYPE NT_FP32 ");
        CHECK_HAS(s, "#define NT_ORDER NT_OS ");
        CHECK_HAS(s, "#define NT_SPLIT NT_SERIAL "); /* one core */
        CHECK_HAS(s, "strategy OS");
        CHECK_HAS(s, "m = 100, n = 300, k = 64");
        CHECK_HAS(s, "double_buffer = 1");
        CHECK_HAS(s, "micro-tile: 12 x 32");
        CHECK_HAS(s, "NT_(DB) = 1,");
        CHECK_HAS(s, "NT_(MC) = 108,"); /* m rounded up to whole micro-tiles */
        CHECK_HAS(s, "#if defined(__AVX512F__)\n#define NT_VW 16\n");
        CHECK_INT(count(s, "static void NT_(ukr)("), 3); /* one per code path */
        CHECK_INT(count(s, "static void NT_(ukr_1)("), 3); /* and its edge kernel */
        CHECK(strstr(s, "NT_HOST_AWIDE") == NULL); /* fp32 A is read in place */
        CHECK_HAS(s, "#undef NT_SYMBOL\n"); /* the template's end */
        free(s);
    }
    sp_config c2 = config(SP_IS, 64, 64, 64, 0, 2, SP_SPLIT_MN, 6, 8);
    s = source(&c2, SP_FP32, "knl", err, sizeof err);
    CHECK(s != NULL);
    if (s) {
        CHECK_HAS(s, "#define NT_(name) knl_##name ");
        CHECK_HAS(s, "#define NT_SPLIT NT_SPLIT_MN ");
        CHECK_HAS(s, "NT_(CORES) = 2,");
        CHECK(strstr(s, "#if defined(__AVX512F__)\n") == NULL); /* nr 8: AVX2 and portable only */
        CHECK_HAS(s, "#if defined(__AVX2__) && defined(__FMA__)\n#define NT_VW 8\n");
        CHECK_INT(count(s, "static void NT_(ukr)("), 2);
        free(s);
    }
    /* nr 12: the portable path only, no #if */
    sp_config c3 = config(SP_WS, 64, 64, 64, 0, 2, SP_SPLIT_M, 2, 12);
    s = source(&c3, SP_FP32, "k3", err, sizeof err);
    if (CHECK(s != NULL)) {
        CHECK_HAS(s, "\n#define NT_VW 4\n");
        CHECK_INT(count(s, "static void NT_(ukr)("), 1);
        CHECK_INT(count(s, "static void NT_(ukr_1)("), 1);
        CHECK_HAS(s, "#define NT_SPLIT NT_SPLIT_M ");
        free(s);
    }
    /* the no-pack family: its macro and its in-place micro-kernel beside the packing
     * ones (the rest of C takes the packing path); a packing kernel has neither */
    sp_config c4 = nopack(config(SP_OS, 100, 300, 64, 0, 1, SP_SPLIT_M, 12, 32));
    s = source(&c4, SP_FP32, NULL, err, sizeof err);
    if (CHECK(s != NULL)) {
        CHECK_HAS(s, "#define NT_NOPACK 1 ");
        CHECK_HAS(s, "pack = false:");
        CHECK_INT(count(s, "static inline __attribute__((always_inline)) void\nNT_(dkr)("), 3);
        CHECK_INT(count(s, "static void NT_(ukr)("), 3);
        CHECK_HAS(s, "b += ldb)");
        CHECK_HAS(s, "a + (11 < rows ? 11 : rows - 1) * lda;");
        CHECK_HAS(s, "#undef NT_NOPACK\n");
        free(s);
    }
    s = source(&c1, SP_FP32, NULL, err, sizeof err);
    if (CHECK(s != NULL)) {
        CHECK(strstr(s, "#define NT_NOPACK") == NULL);
        CHECK_INT(count(s, "void\nNT_(dkr)("), 0);
        free(s);
    }
    CHECK(!cg_host_same_code(SP_FP32, &c4, SP_FP32, &(sp_config){.m = 1, .n = 1, .k = 1,
                                                                 .cores = 1,
                                                                 .strategy = SP_OS,
                                                                 .mr = 12, .nr = 32}));
    /* 16-bit storage: its own entry point and element type (the signature itself is
     * checked where the kernels compile) */
    static const struct {
        sp_dtype d;
        const char *head, *sym, *code;
    } narrow[] = {{SP_BF16, "nt_sbgemm — bf16-storage GEMM", "#define NT_SYMBOL nt_sbgemm ",
                   "#define NT_DTYPE NT_BF16 "},
                  {SP_FP16, "nt_shgemm — fp16-storage GEMM", "#define NT_SYMBOL nt_shgemm ",
                   "#define NT_DTYPE NT_FP16 "}};
    for (size_t i = 0; i < sizeof narrow / sizeof narrow[0]; i++) {
        s = source(&c1, narrow[i].d, NULL, err, sizeof err);
        if (!CHECK(s != NULL))
            continue;
        CHECK_HAS(s, narrow[i].head);
        CHECK_HAS(s, narrow[i].sym);
        CHECK_HAS(s, narrow[i].code);
        CHECK_HAS(s, "NT_(AWIDE) = NT_HOST_AWIDE");
        free(s);
    }
}

/* The kernels of the functional test: every strategy x double_buffer x
 * cores {1, 2} x split, with odd cache blocks and micro-tiles of every code
 * path (nr % 16: AVX-512, nr % 8: AVX2, else portable), plus a few more. */
static size_t cases(sp_config *out, sp_dtype *dt)
{
    static const int blocks[][3] = {{1, 1, 1},     {7, 17, 3},   {29, 64, 31}, {100, 300, 64},
                                    {256, 512, 256}, {33, 5, 100}, {14, 32, 257}, {50, 96, 7}};
    static const sp_micro tiles[] = {{14, 32}, {12, 32}, {6, 64}, {8, 48}, {6, 16}, {4, 8},
                                     {1, 16},  {3, 4},   {5, 24}, {2, 12}, {9, 48}, {7, 20},
                                     {1, 4},   {32, 16}};
    size_t n = 0;
    for (int s = 0; s < SP_NSTRATEGY; s++)
        for (int db = 0; db < 2; db++)
            for (int cores = 1; cores <= 2; cores++)
                for (int sp = 0; sp < SP_NSPLIT; sp++) {
                    const int *b = blocks[n % (sizeof blocks / sizeof blocks[0])];
                    sp_micro u = tiles[n % (sizeof tiles / sizeof tiles[0])];
                    out[n] = config(s, b[0], b[1], b[2], db, cores, sp, u.mr, u.nr);
                    n++;
                }
    /* more threads than cores, a prime and a square thread count */
    out[n++] = config(SP_OS, 16, 16, 16, 1, 3, SP_SPLIT_MN, 4, 16);
    out[n++] = config(SP_WS, 20, 40, 50, 0, 4, SP_SPLIT_MN, 3, 8);
    out[n++] = config(SP_IS, 64, 64, 64, 1, 4, SP_SPLIT_M, 8, 16);
    /* the micro-tile of this machine's class for each vector width */
    out[n++] = with_micro(config(SP_WS, 96, 768, 256, 0, 1, SP_SPLIT_M, 0, 0), micro_of(16, 32));
    out[n++] = with_micro(config(SP_OS, 64, 256, 128, 1, 2, SP_SPLIT_N, 0, 0), micro_of(8, 16));
    out[n++] = with_micro(config(SP_IS, 48, 128, 96, 0, 2, SP_SPLIT_M, 0, 0), micro_of(4, 16));
    /* blocks beyond every limit are clamped */
    out[n++] = config(SP_WS, 1 << 30, 1 << 30, 1 << 30, 1, 1, SP_SPLIT_M, 14, 32);
    /* the no-pack family (one thread, strategy OS; k does not matter but to the
     * packing path of a narrow last column panel), on every code path, with
     * blocks smaller than a tile, odd, and clamped */
    static const int np_blocks[][3] = {{7, 17, 3},   {29, 64, 31}, {100, 300, 64},
                                       {16, 16, 16}, {50, 96, 7},  {33, 5, 100},
                                       {1 << 30, 1 << 30, 1 << 30}};
    static const sp_micro np_tiles[] = {{6, 64}, {8, 48}, {14, 32}, {3, 4}, {5, 24}, {1, 16},
                                        {4, 16}};
    for (size_t i = 0; i < sizeof np_blocks / sizeof np_blocks[0]; i++)
        out[n++] = nopack(config(SP_OS, np_blocks[i][0], np_blocks[i][1], np_blocks[i][2], 0, 1,
                                 SP_SPLIT_M, np_tiles[i].mr, np_tiles[i].nr));
    out[n++] = nopack(with_micro(config(SP_OS, 96, 768, 256, 0, 1, SP_SPLIT_M, 0, 0),
                                 micro_of(16, 32)));
    /* no-pack with k blocks (B streamed along its rows, overlapping edge tiles,
     * whole tiles from a cache line), one row or several, on two threads too */
    static const int kb_blocks[][5] = {{1, 4096, 1, 1, SP_SPLIT_M}, {1, 64, 2, 2, SP_SPLIT_N},
                                       {7, 100, 3, 1, SP_SPLIT_M}, {16, 3072, 4, 2, SP_SPLIT_MN},
                                       {6, 128, 2, 2, SP_SPLIT_M}, {1, 128, 4, 1, SP_SPLIT_M},
                                       {4, 96, 3, 2, SP_SPLIT_N}};
    static const sp_micro kb_tiles[] = {{1, 64}, {1, 16}, {3, 16}, {6, 64}, {1, 4}, {1, 64},
                                        {2, 32}};
    for (size_t i = 0; i < sizeof kb_blocks / sizeof kb_blocks[0]; i++)
        out[n++] = nopack(config(SP_OS, kb_blocks[i][0], kb_blocks[i][1], kb_blocks[i][2], 0,
                                 kb_blocks[i][3], kb_blocks[i][4], kb_tiles[i].mr, kb_tiles[i].nr));
    for (size_t i = 0; i < n; i++)
        dt[i] = SP_FP32;
    /* bf16 and fp16 storage, each on these: every strategy, both splits,
     * threads and code paths */
    const sp_config narrow[] = {
        config(SP_IS, 29, 64, 31, 1, 2, SP_SPLIT_MN, 8, 48),
        config(SP_WS, 7, 17, 3, 0, 1, SP_SPLIT_M, 6, 64),
        config(SP_OS, 100, 300, 64, 1, 1, SP_SPLIT_N, 14, 32),
        config(SP_WS, 50, 96, 7, 1, 2, SP_SPLIT_N, 5, 24),
        config(SP_OS, 33, 5, 100, 0, 2, SP_SPLIT_M, 3, 4),
        config(SP_IS, 256, 512, 256, 0, 1, SP_SPLIT_M, 12, 32),
    };
    static const sp_dtype narrow_dtypes[] = {SP_BF16, SP_FP16};
    for (size_t d = 0; d < sizeof narrow_dtypes / sizeof narrow_dtypes[0]; d++)
        for (size_t i = 0; i < sizeof narrow / sizeof narrow[0]; i++) {
            dt[n] = narrow_dtypes[d];
            out[n++] = narrow[i];
        }
    return n;
}

/* Writes the kernels and their table; false if generation failed. */
static bool write_kernels(const sp_config *k, const sp_dtype *dt, size_t n)
{
    FILE *src = fopen(path("kernels.c"), "w"), *tab = fopen(path("table.h"), "w");
    bool ok = src && tab;
    char err[256], sym[32];
    if (tab)
        fprintf(tab, "#include <stdint.h>\n"
                     "typedef void (*kfn)(int, int, int, const float *, int, const float *, int, "
                     "float *, int);\n"
                     "typedef void (*kfn16)(int, int, int, const uint16_t *, int, const uint16_t *, "
                     "int, float *, int);\n");
    for (size_t i = 0; ok && i < n; i++) {
        if (i == 0)
            snprintf(sym, sizeof sym, "nt_sgemm");
        else
            snprintf(sym, sizeof sym, "hk%zu", i);
        if (!cg_host_source(src, &k[i], dt[i], i == 0 ? NULL : sym, err, sizeof err)) {
            fprintf(stderr, "case %zu: %s\n", i, err);
            ok = false;
        }
        /* the entry point's signature, declared in the table and after the kernel,
         * where a compiler refuses it if the kernel's is not the same */
        const char *e = dt[i] == SP_FP32 ? "float" : "uint16_t";
        for (int to = 0; to < 2 && ok; to++)
            fprintf(to ? src : tab,
                    "%svoid %s(int, int, int, const %s *, int, const %s *, int, float *, int);\n",
                    to ? "#include <stdint.h>\n" : "", sym, e, e);
    }
    if (ok) {
        /* fp32 kernels in kernels[], bf16 and fp16 ones in kernels16[], 0
         * elsewhere; fp16s[] marks the fp16 ones */
        for (int narrow = 0; narrow < 2; narrow++) {
            fprintf(tab, narrow ? "static const kfn16 kernels16[] = {" : "static const kfn kernels[] = {");
            for (size_t i = 0; i < n; i++) {
                if ((dt[i] != SP_FP32) != narrow)
                    fprintf(tab, i ? ", 0" : "0");
                else
                    fprintf(tab, i ? ", hk%zu" : "nt_sgemm", i);
            }
            fprintf(tab, "};\n");
        }
        fprintf(tab, "static const int fp16s[] = {");
        for (size_t i = 0; i < n; i++)
            fprintf(tab, "%s%d", i ? ", " : "", dt[i] == SP_FP16);
        fprintf(tab, "};\n");
        fprintf(tab, "static const char *const names[] = {\n");
        for (size_t i = 0; i < n; i++) {
            const sp_config *c = &k[i];
            fprintf(tab, "    \"#%zu %s %s m%d n%d k%d db%d cores%d split %s %dx%d%s\",\n", i,
                    sp_dtype_name(dt[i]), sp_strategy_name(c->strategy), (int)c->m, (int)c->n,
                    (int)c->k, c->double_buffer, (int)c->cores, sp_split_name(c->split), c->mr,
                    c->nr, c->nopack ? " nopack" : "");
        }
        fprintf(tab, "};\nstatic const int nkernels = %zu;\n", n);
    }
    if (src && fclose(src) != 0)
        ok = false;
    if (tab && fclose(tab) != 0)
        ok = false;
    FILE *chk = fopen(path("checker.c"), "w");
    if (!chk || fputs(checker_src, chk) == EOF)
        ok = false;
    if (chk && fclose(chk) != 0)
        ok = false;
    return ok;
}

/* The kernel symbol that name is (global) or that prefixes it as "SYM_..." or
 * "SYM.clone" (local), or -1. */
static long owner(const char *name, size_t n, bool global)
{
    char sym[32];
    for (size_t i = 0; i < n; i++) {
        if (i == 0)
            snprintf(sym, sizeof sym, "nt_sgemm");
        else
            snprintf(sym, sizeof sym, "hk%zu", i);
        size_t len = strlen(sym);
        if (strncmp(name, sym, len) != 0)
            continue;
        if (global ? name[len] == 0 : (name[len] == '_' || name[len] == '.'))
            return (long)i;
    }
    return -1;
}

/* Every global symbol of the kernels' object is a kernel and every local one
 * carries a kernel's prefix. */
static void check_symbols(size_t n)
{
    if (!CHECK_INT(sh("nm %s > %s", path("kernels.o"), path("syms.txt")), 0))
        return;
    FILE *f = fopen(path("syms.txt"), "r");
    if (!CHECK(f != NULL))
        return;
    char line[512];
    int bad = 0, globals = 0;
    while (fgets(line, sizeof line, f)) {
        char addr[400], type[400], name[400];
        if (sscanf(line, "%399s %399s %399s", addr, type, name) != 3)
            continue; /* undefined symbols ("U name") have no address */
        if (strncmp(name, ".L", 2) == 0)
            continue; /* assembler-local labels (constants) */
        bool global = type[0] >= 'A' && type[0] <= 'Z';
        globals += global;
        if (owner(name, n, global) < 0) {
            fprintf(stderr, "unexpected symbol: %s", line);
            bad++;
        }
    }
    fclose(f);
    CHECK_INT(bad, 0);
    CHECK_INT(globals, (long long)n);
}

/* How the kernels are compiled: C11, warnings (-Wundef: a misspelt macro in an #if of
 * the template) as errors. */
#define WARN "-std=c11 -fopenmp -Wall -Wextra -Wundef -Werror"

/* The compile-only builds of kernels.c beside the native and portable ones: gcc on the
 * AVX-512 and AVX2 code paths (each with F16C), which the native build may not take
 * (host_gen_kernels), and clang, whose warnings come from its front end, on every path
 * (host_gen_clang). */
static const struct {
    const char *name, *command;
} builds[] = {
    {"avx512", "cc -O1 -march=x86-64-v4 -c -o avx512.o"},
    {"avx2", "cc -O1 -march=x86-64-v3 -c -o avx2.o"},
    {"clang-avx512", "clang -fsyntax-only -march=x86-64-v4"},
    {"clang-avx2", "clang -fsyntax-only -march=x86-64-v3"},
    {"clang-portable", "clang -fsyntax-only -march=x86-64"},
};

/* Whether build i is clang's. */
static bool is_clang(size_t i)
{
    return strncmp(builds[i].command, "clang ", 6) == 0;
}

/* Whether gcc's build i compiles for the ISA -march=native does: the native
 * build compiles that code already (with -O3), so it is left out. */
static bool is_native(size_t i)
{
    static int isa = -1; /* 0: neither, 1: AVX2, 2: AVX-512 */
    if (isa < 0)
        isa = sh("cc -march=native -dM -E -x c /dev/null | grep -q '__AVX512F__'") == 0   ? 2
              : sh("cc -march=native -dM -E -x c /dev/null | grep -q '__AVX2__'") == 0 ? 1
                                                                                         : 0;
    return !is_clang(i) && isa && strcmp(builds[i].name, isa == 2 ? "avx512" : "avx2") == 0;
}

/* The shell commands of the compile-only builds of one compiler into out. */
static void other_builds(bool clang, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof builds / sizeof builds[0]; i++)
        if (is_clang(i) == clang && !is_native(i) && used < len)
            used += (size_t)snprintf(out + used, len - used,
                                     "%s " WARN " kernels.c 2> %s.log; echo $? > %s.rc; ",
                                     builds[i].command, builds[i].name, builds[i].name);
}

/* Whether the compile-only builds of one compiler succeeded (their errors on stderr). */
static bool others_built(bool clang)
{
    bool built = true;
    for (size_t i = 0; i < sizeof builds / sizeof builds[0]; i++) {
        char rcfile[32], logfile[32];
        snprintf(rcfile, sizeof rcfile, "%s.rc", builds[i].name);
        snprintf(logfile, sizeof logfile, "%s.log", builds[i].name);
        if (is_clang(i) == clang && !is_native(i) &&
            !CHECK_INT(sh("test \"$(cat %s)\" = 0", path(rcfile)), 0)) {
            fprintf(stderr, "%s " WARN " kernels.c failed:\n", builds[i].command);
            sh("cat %s >&2", path(logfile));
            built = false;
        }
    }
    return built;
}

/* The test cases' kernels and their table in a new temporary directory;
 * their number, 0 if that failed. */
static size_t generate_all(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/npu_host_gen_XXXXXX");
    if (!CHECK(mkdtemp(tmpdir) != NULL))
        return 0;
    static sp_config k[96];
    static sp_dtype dt[96];
    size_t n = cases(k, dt);
    return CHECK(write_kernels(k, dt, n)) ? n : 0;
}

/* The end of a kernel test: its generated sources removed if ok, else kept
 * (and their place said) for a look; the checks' verdict. */
static int finish(bool ok)
{
    if (ok)
        sh("rm -rf %s", tmpdir);
    else
        fprintf(stderr, "generated sources kept in %s\n", tmpdir);
    return CHECK_DONE();
}

/* "timeout 300 " where the command is there, else "": what runs a kernel program. */
static const char *timeout_prefix(void)
{
    return sh("command -v timeout >/dev/null 2>&1") == 0 ? "timeout 300 " : "";
}

/* The generated kernels compile under clang too, without warnings (the test
 * host_gen_clang; skipped without clang). */
static int test_kernels_clang(void)
{
    if (sh("command -v clang >/dev/null 2>&1") != 0) {
        printf("skipped: no clang on PATH\n");
        return 77;
    }
    if (generate_all() == 0)
        return CHECK_DONE();
    char others[1024];
    other_builds(true, others, sizeof others);
    /* -O0: clang's warnings come from its front end, which runs in full; its
     * optimizer would take 50 s of the test's 55 here */
    bool built = CHECK_INT(sh("cd %s && clang " WARN " -O0 -march=native -c kernels.c -o clang.o "
                              "2> clang.log; %s",
                              tmpdir, others),
                           0);
    if (!built)
        sh("cat %s >&2", path("clang.log"));
    return finish(others_built(true) && built);
}

/* The generated kernels built with cc for this CPU, their symbols and their
 * results (the test codegen.cpu_cc; skipped without cc or nm). */
static int test_kernels(void)
{
    if (sh("command -v cc >/dev/null 2>&1 && command -v nm >/dev/null 2>&1") != 0) {
        printf("skipped: the generated kernels are compiled with cc and their symbols listed with "
               "nm, and one of them is not on PATH\n");
        return 77;
    }
    size_t n = generate_all();
    if (n == 0)
        return CHECK_DONE();
    /* the native build (object kept for the symbol check), with -O3 as a
     * run compiles them, beside compile-only builds of the code paths it may
     * not take; warnings are errors in generated code */
    char others[1024];
    other_builds(false, others, sizeof others);
    int rc = sh("cd %s || exit 1; { cc " WARN " -O3 -march=native -c kernels.c "
                "-o kernels.o 2> native.log; echo $? > native.rc; } & { %s } & wait; "
                "test \"$(cat native.rc)\" = 0 && cc -std=c11 -O2 -fopenmp kernels.o checker.c -o native -lm "
                ">> native.log 2>&1",
                tmpdir, others);
    if (!CHECK_INT(rc, 0)) {
        sh("cat %s >&2", path("native.log"));
        return finish(false);
    }
    check_symbols(n);
    bool built = others_built(false);
    return finish(CHECK_INT(sh("cd %s && %s./native 12", tmpdir, timeout_prefix()), 0) && built);
}

/* The generated kernels built portably (no AVX: the vector-extension code)
 * with ASan and UBSan, and their results (the test codegen.cpu_portable;
 * skipped without cc). The build keeps no packed B cache (NT_HOST_BCACHE=0),
 * so the one-buffer repacking path is checked too, and widens A one row
 * block at a time (NT_HOST_AWIDE=0), so bf16 and fp16 run in bands. It
 * leaves out UBSan's pointer-overflow check, a fifth of its compile time
 * (6.5 MB of kernels); without the sanitizers it builds plain. */
static int test_portable(void)
{
    if (sh("command -v cc >/dev/null 2>&1") != 0) {
        printf("skipped: the generated kernels are compiled with cc, which is not on PATH\n");
        return 77;
    }
    if (generate_all() == 0)
        return CHECK_DONE();
    int rc = sh("cd %s || exit 1; cc " WARN " -O2 -mno-avx -mno-avx2 -mno-avx512f "
                "-DNT_HOST_BCACHE=0 -DNT_HOST_AWIDE=0 -fsanitize=address,undefined "
                "-fno-sanitize=pointer-overflow -fno-sanitize-recover=all kernels.c checker.c "
                "-o portable -lm 2> portable.log "
                "|| cc " WARN " -O2 -mno-avx -mno-avx2 -mno-avx512f "
                "-DNT_HOST_BCACHE=0 -DNT_HOST_AWIDE=0 kernels.c checker.c -o portable -lm "
                "2> portable.log",
                tmpdir);
    if (!CHECK_INT(rc, 0)) {
        sh("cat %s >&2", path("portable.log"));
        return finish(false);
    }
    return finish(CHECK_INT(
        sh("cd %s && ASAN_OPTIONS=detect_leaks=1 %s./portable 4", tmpdir, timeout_prefix()), 0));
}

/* The program compiled with the kernels of test_reads (r8, r14), which it
 * includes with memcpy and __builtin_prefetch counted: it sees which bytes
 * of A each copy reads and which lines of A were prefetched before. Each
 * kernel runs M = 6 MR (two row blocks of 3 micro-panels) x NR x K = 3072,
 * lda = K: rows 12 KiB apart, which share one L1d set. Prints per kernel the
 * bytes of A copied, the copied lines not prefetched before and the wrong
 * elements of C. */
static const char reads_src[] =
    "#include <math.h>\n"
    "#include <stdint.h>\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#include <string.h>\n"
    "enum { K = 3072, LINES = 1 << 20 };\n"
    "static const char *alo, *ahi;\n"
    "static unsigned char fetched[LINES];\n"
    "static long copied, unfetched;\n"
    "static void *counted_copy(void *d, const void *s, size_t n)\n"
    "{\n"
    "    const char *c = s;\n"
    "    if (c >= alo && c < ahi) {\n"
    "        copied += (long)n;\n"
    "        for (size_t i = 0; i < n; i += 64)\n"
    "            unfetched += !fetched[(size_t)(c + i - alo) / 64];\n"
    "    }\n"
    "    return memmove(d, s, n);\n"
    "}\n"
    "static void counted_prefetch(const void *p)\n"
    "{\n"
    "    const char *c = p;\n"
    "    if (c >= alo && c < ahi)\n"
    "        fetched[(size_t)(c - alo) / 64] = 1;\n"
    "}\n"
    "#define memcpy counted_copy\n"
    "#define __builtin_prefetch(p, rw, level) counted_prefetch(p)\n"
    "#include \"reads_kernels.c\"\n"
    "typedef void (*kfn)(int, int, int, const float *, int, const float *, int, float *, int);\n"
    "static int run(const char *name, kfn f, int mr, int nr)\n"
    "{\n"
    "    int M = 6 * mr, N = nr, bad = 0;\n"
    "    float *A = aligned_alloc(64, sizeof(float) * (size_t)M * K);\n"
    "    float *B = aligned_alloc(64, sizeof(float) * (size_t)K * N);\n"
    "    float *C = aligned_alloc(64, sizeof(float) * (size_t)M * N);\n"
    "    if (!A || !B || !C)\n"
    "        return 1;\n"
    "    for (long i = 0; i < (long)M * K; i++) A[i] = (float)(i % 7) - 3.0f;\n"
    "    for (long i = 0; i < (long)K * N; i++) B[i] = (float)(i % 5) - 2.0f;\n"
    "    alo = (const char *)A, ahi = (const char *)(A + (size_t)M * K);\n"
    "    memset(fetched, 0, sizeof fetched);\n"
    "    copied = unfetched = 0;\n"
    "    f(M, N, K, A, K, B, N, C, N);\n"
    "    for (int i = 0; i < M; i++)\n"
    "        for (int j = 0; j < N; j++) {\n"
    "            double s = 0;\n"
    "            for (int p = 0; p < K; p++) s += (double)A[(long)i * K + p] * B[(long)p * N + j];\n"
    "            bad += fabs(s - C[i * N + j]) > 1e-3 * (fabs(s) + 1);\n"
    "        }\n"
    "    printf(\"%s copied %ld unfetched %ld wrong %d\\n\", name, copied, unfetched, bad);\n"
    "    free(A), free(B), free(C);\n"
    "    return bad != 0;\n"
    "}\n"
    "int main(void)\n"
    "{\n"
    "    return run(\"r8\", r8, 8, 48) | run(\"r14\", r14, 14, 32);\n"
    "}\n";

/* Which rows of A the packing family's kernels copy where A's rows alias in
 * L1d (K = 3072, lda = K), and that they prefetch what they copy (the test
 * codegen.cpu_reads; skipped without cc): 8-row micro-panels (up to
 * SP_CPU_ALIAS_ROWS) are read in place, nothing of A copied; 14-row ones are
 * all copied, and every line a copy reads was prefetched during the row of
 * tiles before it, but those of each step's first panel. */
static int test_reads(void)
{
    if (sh("command -v cc >/dev/null 2>&1") != 0) {
        printf("skipped: the kernels are compiled with cc, which is not on PATH\n");
        return 77;
    }
    snprintf(tmpdir, sizeof tmpdir, "/tmp/npu_host_reads_XXXXXX");
    if (!CHECK(mkdtemp(tmpdir) != NULL))
        return CHECK_DONE();
    char err[256];
    sp_config c8 = config(SP_WS, 24, 48, 64, 0, 1, SP_SPLIT_M, 8, 48);
    sp_config c14 = config(SP_WS, 42, 32, 64, 0, 1, SP_SPLIT_M, 14, 32);
    char *k8 = source(&c8, SP_FP32, "r8", err, sizeof err);
    char *k14 = source(&c14, SP_FP32, "r14", err, sizeof err);
    FILE *f = fopen(path("reads_kernels.c"), "w"), *g = fopen(path("reads.c"), "w");
    bool written = k8 && k14 && f && g && fputs(k8, f) >= 0 && fputs(k14, f) >= 0 &&
                   fputs(reads_src, g) >= 0;
    written = (f && fclose(f) == 0) && written;
    written = (g && fclose(g) == 0) && written;
    free(k8);
    free(k14);
    if (!CHECK(written))
        return CHECK_DONE();
    int rc = sh("cd %s && cc -std=c11 -O1 -march=native reads.c -o reads -lm 2> reads.log && "
                "./reads > reads.out",
                tmpdir);
    if (!CHECK_INT(rc, 0)) {
        sh("cat %s %s >&2", path("reads.log"), path("reads.out"));
        return finish(false);
    }
    char out[256] = "";
    FILE *o = fopen(path("reads.out"), "r");
    size_t got = o ? fread(out, 1, sizeof out - 1, o) : 0;
    out[got] = '\0';
    if (o)
        fclose(o);
    /* 14x32 (WS 42x32x64): all of A, 84 x 3072 floats, copied once (one
     * column block); the first panel of each of the 2 x 48 steps (row block,
     * k block) is not prefetched: 14 rows of 4 lines (64 floats, aligned) */
    CHECK(SP_CPU_ALIAS_ROWS >= 8 && SP_CPU_ALIAS_ROWS < 14);
    CHECK_STR(out, "r8 copied 0 unfetched 0 wrong 0\n"
                   "r14 copied 1032192 unfetched 5376 wrong 0\n");
    sh("rm -rf %s", tmpdir);
    return CHECK_DONE();
}

/* No argument: the generator alone; --kernels and --clang: its kernels
 * compiled (tests of their own, which skip with 77 where the tools are missing). */
int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--kernels") == 0)
        return test_kernels();
    if (argc > 1 && strcmp(argv[1], "--clang") == 0)
        return test_kernels_clang();
    if (argc > 1 && strcmp(argv[1], "--portable") == 0)
        return test_portable();
    if (argc > 1 && strcmp(argv[1], "--reads") == 0)
        return test_reads();
    test_micro();
    test_errors();
    test_text();
    return CHECK_DONE();
}
