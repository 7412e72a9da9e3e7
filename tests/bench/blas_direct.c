/* blas_direct.c — bench_blas's view past the dispatcher: the source of `npu-tune lib`
 * (npu_tune_gemm.c, on the include path) with an entry that calls one entry's kernel directly. */
#include "npu_tune_gemm.c"

/* Row-major C = A B by the kernel the dispatcher picks for the first call's
 * shape (its loop for the shape when it is a one-thread no-pack kernel that
 * has one), called directly on every call (the pick made once, as by a caller
 * that holds the kernel), on the entry's threads. */
NT_GEMM_API void bench_direct_sgemm(int M, int N, int K, const float *A, int lda, const float *B,
                                    int ldb, float *C, int ldc);
void bench_direct_sgemm(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                        float *C, int ldc)
{
    static int pick = -2;
    if (pick == -2) {
        int how;
        pick = nt_lib_find(nt_lib_s_shape, nt_lib_s.n, M, N, K, &how);
    }
    if (pick < 0)
        NT_LIB_FP32_GENERAL(0, 0, M, N, K, 1.0f, A, lda, B, ldb, 0.0f, C, ldc, 1);
    else
        nt_lib_s_run(pick, 0, 0, M, N, K, 1.0f, A, lda, B, ldb, 0.0f, C, ldc,
                     nt_lib_s_shape[pick].cores);
}
