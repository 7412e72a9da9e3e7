/* library.c — a library of host kernels: its C source (kernels under internal names, the
 * dispatch lists, the fixed code of codegen/host/pool.c and blas.c), header and build files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

/* The fixed texts, embedded at build time: the library's code after its lists, its
 * CMake project and its pkg-config template. */
extern const char cg_host_blas[], cg_host_lib_cmake[], cg_host_lib_pc[];

/* Per dtype a library serves: the list's name in the source (NT_LIB_<list>), the
 * entry point, and its declaration's line in the header. */
static const struct {
    const char *list, *entry, *decl;
} dtypes[SP_NDTYPE] = {
    [SP_FP32] = {"FP32", "nt_sgemm",
                 "NT_GEMM_API void nt_sgemm(int M, int N, int K, const float *A, int lda,\n"
                 "                          const float *B, int ldb, float *C, int ldc);\n"},
    [SP_BF16] = {"BF16", "nt_sbgemm",
                 "NT_GEMM_API void nt_sbgemm(int M, int N, int K, const uint16_t *A, int lda,\n"
                 "                           const uint16_t *B, int ldb, float *C, int ldc);\n"},
    [SP_FP16] = {"FP16", "nt_shgemm",
                 "NT_GEMM_API void nt_shgemm(int M, int N, int K, const uint16_t *A, int lda,\n"
                 "                           const uint16_t *B, int ldb, float *C, int ldc);\n"},
};

static bool fail(char *err, size_t errlen, const char *msg)
{
    snprintf(err, errlen, "%s", msg);
    return false;
}

/* Whether the library has dtype d's entry point: fp32 always (the BLAS ones are
 * fp32), a 16-bit dtype when some entry is of it. */
static bool serves(const cg_lib_entry *e, size_t n, sp_dtype d)
{
    if (d == SP_FP32)
        return true;
    for (size_t i = 0; i < n; i++)
        if (e[i].dtype == d)
            return true;
    return false;
}

/* Whether a and b get one kernel: the same dtype and config. */
static bool same_kernel(const cg_lib_entry *a, const cg_lib_entry *b)
{
    return a->dtype == b->dtype && memcmp(&a->config, &b->config, sizeof a->config) == 0;
}

bool cg_lib_source(FILE *f, const cg_lib_entry *e, size_t n, const cg_lib_entry *general,
                   const char *from, char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++)
        if ((int)e[i].dtype < 0 || e[i].dtype >= SP_NDTYPE || !dtypes[e[i].dtype].list)
            return fail(err, errlen, "library: an entry's dtype is not one the host computes");
    for (int d = 0; d < SP_NDTYPE; d++)
        if (serves(e, n, (sp_dtype)d) && general[d].dtype != (sp_dtype)d)
            return fail(err, errlen, "library: no general kernel for a dtype of its entries");
    /* kernel[i]: the kernel of e[i], nt_lib_k<i> unless an earlier entry has its config */
    size_t *kernel = malloc(sizeof *kernel * (n ? n : 1));
    if (!kernel)
        return fail(err, errlen, "out of memory");
    fprintf(f, "/* npu_tune_gemm.c — GEMM kernels tuned by npu-tune, from %s,\n"
               " * with a dispatcher by shape and the BLAS entry points; generated, do not edit.\n"
               " * Build: the CMakeLists.txt beside it (cc -O3 -march=native -fopenmp). */\n\n"
               "#define _GNU_SOURCE /* clock_gettime, sched_getcpu, sched_getaffinity */\n\n"
               "/* What the kernels include, declared with default visibility before theirs */\n"
               "#include <stddef.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n"
               "#ifndef __STDC_NO_THREADS__\n#include <threads.h>\n#endif\n"
               "#if defined(__x86_64__) || defined(__i386__)\n#include <immintrin.h>\n#endif\n\n"
               "/* Each kernel also defines its extended entry KERNEL_ex (codegen/host/gemm.c) */\n"
               "#define NT_HOST_EX 1\n"
               "#ifndef __STDC_NO_THREADS__\n"
               "/* ... and runs its threads on the library's pool (pool.c), not OpenMP's */\n"
               "%s"
               "#endif\n"
               "#pragma GCC visibility push(hidden)\n",
            from, cg_host_pool_use(false));
    for (size_t i = 0; i < n; i++)
        for (kernel[i] = 0; kernel[i] < i && !same_kernel(&e[kernel[i]], &e[i]); kernel[i]++)
            ;
    bool ok = true;
    char sym[32];
    for (size_t i = 0; ok && i < n + SP_NDTYPE; i++) {
        const cg_lib_entry *k = i < n ? &e[i] : &general[i - n];
        if ((i >= n && !serves(e, n, k->dtype)) || (i < n && kernel[i] < i))
            continue;
        if (i < n)
            snprintf(sym, sizeof sym, "nt_lib_k%zu", i);
        else
            snprintf(sym, sizeof sym, "nt_lib_general_%s", sp_dtype_name(k->dtype));
        if (i < n)
            fprintf(f, "\n/* ==== kernel %s: %lldx%lldx%lld %s (%s) ==== */\n", sym,
                    (long long)k->M, (long long)k->N, (long long)k->K, sp_dtype_name(k->dtype),
                    k->origin ? k->origin : "");
        else
            fprintf(f, "\n/* ==== kernel %s: the general %s kernel, one thread ==== */\n", sym,
                    sp_dtype_name(k->dtype));
        if (i < n && k->config.nopack) { /* its entries' shapes, each run by a loop of its own */
            fputs("#define NT_DENSE(X)", f);
            for (size_t j = i; j < n; j++)
                if (kernel[j] == i)
                    fprintf(f, " X(%lld, %lld, %lld)", (long long)e[j].M, (long long)e[j].N,
                            (long long)e[j].K);
            fputs("\n", f);
        }
        ok = cg_host_source(f, &k->config, k->dtype, sym, err, errlen);
    }
    fputs("\n#pragma GCC visibility pop\n\n"
          "/* The entries, by dtype: X(M, N, K, cores, split, mr, nr, seconds, kernel, dense\n"
          " * loop or 0), and\n"
          " * the kernel of the shapes none suits. */\n",
          f);
    for (int d = 0; ok && d < SP_NDTYPE; d++) {
        if (!serves(e, n, (sp_dtype)d))
            continue;
        fprintf(f, "#define NT_LIB_%s(X) \\\n", dtypes[d].list);
        for (size_t i = 0; i < n; i++) {
            const sp_config *c = &e[i].config;
            if (e[i].dtype != (sp_dtype)d)
                continue;
            char dense[48] = "0"; /* the kernel's loop for listed dense shapes, if it has one */
            if (c->nopack && d == SP_FP32)
                snprintf(dense, sizeof dense, "nt_lib_k%zu_dense_call", kernel[i]);
            fprintf(f, "    X(%lld, %lld, %lld, %d, NT_LIB_SPLIT_%s, %d, %d, %.6g, nt_lib_k%zu_ex, %s) /* %s */ \\\n",
                    (long long)e[i].M, (long long)e[i].N, (long long)e[i].K, (int)c->cores,
                    sp_split_name(c->split), c->mr, c->nr,
                    e[i].seconds > 0 && e[i].seconds < 1e9 ? e[i].seconds : 0.0, kernel[i], dense,
                    e[i].origin ? e[i].origin : "");
        }
        fprintf(f, "    /* end */\n#define NT_LIB_%s_GENERAL nt_lib_general_%s_ex\n\n",
                dtypes[d].list, sp_dtype_name((sp_dtype)d));
    }
    free(kernel);
    if (!ok)
        return false;
    fputs(cg_host_pool_source(), f);
    fputs(cg_host_blas, f);
    return ferror(f) ? fail(err, errlen, "library: writing the source failed") : true;
}

bool cg_lib_header(FILE *f, const cg_lib_entry *e, size_t n, const char *from)
{
    fprintf(f, "/* npu_tune_gemm.h — the GEMM library npu-tune tuned from %s: generated, do\n"
               " * not edit. Link with -lnpu_tune_gemm (pkg-config npu_tune_gemm). */\n"
               "#ifndef NPU_TUNE_GEMM_H\n#define NPU_TUNE_GEMM_H\n\n#include <stddef.h>\n"
               "#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
               "#define NT_GEMM_API __attribute__((visibility(\"default\")))\n\n"
               "/* Row-major C (M x N, row stride ldc) = A (M x K, lda) . B (K x N, ldb), C\n"
               " * overwritten, by the kernel tuned for the shape, else the one tuned for the\n"
               " * nearest shape whose threads all get work, else a general one-thread kernel.\n"
               " * The 16-bit ones (the dtypes the tables tuned) take bf16 or IEEE fp16 bit\n"
               " * patterns; C and every sum are fp32. */\n",
            from);
    for (int d = 0; d < SP_NDTYPE; d++)
        if (serves(e, n, (sp_dtype)d))
            fputs(dtypes[d].decl, f);
    fputs("\n/* The reference BLAS's SGEMM (column-major, Fortran calling convention), with\n"
          " * its argument checks: a bad one calls xerbla_(\"SGEMM \", &position, 6) and\n"
          " * returns. cblas_sgemm (row- and column-major) is defined too: declared by\n"
          " * <cblas.h>; its bad arguments go to cblas_xerbla, numbered as the reference's.\n"
          " * The library's xerbla_ and cblas_xerbla are weak: a program's own replace them;\n"
          " * they print the reference's message and exit (status 1 and 255). */\n"
          "NT_GEMM_API void sgemm_(const char *transa, const char *transb, const int *m,\n"
          "                        const int *n, const int *k, const float *alpha,\n"
          "                        const float *A, const int *lda, const float *B,\n"
          "                        const int *ldb, const float *beta, float *C, const int *ldc);\n"
          "NT_GEMM_API void xerbla_(const char *srname, const int *info, size_t len);\n\n"
          "#ifdef __cplusplus\n}\n#endif\n\n#endif\n",
          f);
    return !ferror(f);
}

bool cg_lib_cmake(FILE *f) { return fputs(cg_host_lib_cmake, f) >= 0; }

bool cg_lib_pc(FILE *f) { return fputs(cg_host_lib_pc, f) >= 0; }
