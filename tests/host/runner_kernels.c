/* runner_kernels.c — hand-written kernels for runner.c, built as a loadable
 * module: a right and a wrong fp32 kernel, one right only when its threads would sleep
 * between calls, and a right one over bf16 bit patterns. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void good(int M, int N, int K, const float *A, int lda, const float *B, int ldb, float *C,
          int ldc);
void wrong(int M, int N, int K, const float *A, int lda, const float *B, int ldb, float *C,
           int ldc);
void good_bf16(int M, int N, int K, const uint16_t *A, int lda, const uint16_t *B, int ldb,
               float *C, int ldc);
void passive(int M, int N, int K, const float *A, int lda, const float *B, int ldb, float *C,
             int ldc);

/* C = A.B, naively. */
void good(int M, int N, int K, const float *A, int lda, const float *B, int ldb, float *C,
          int ldc)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float s = 0;
            for (int k = 0; k < K; k++)
                s += A[i * lda + k] * B[k * ldb + j];
            C[i * ldc + j] = s;
        }
}

/* C = A.B but for its last element, one too large. */
void wrong(int M, int N, int K, const float *A, int lda, const float *B, int ldb, float *C,
           int ldc)
{
    good(M, N, K, A, lda, B, ldb, C, ldc);
    if (M > 0 && N > 0)
        C[(M - 1) * ldc + N - 1] += 1;
}

/* C = A.B when OpenMP's threads would sleep between regions (OMP_WAIT_POLICY
 * passive, as an OpenMP runtime loaded with this module reads it), else wrong. */
void passive(int M, int N, int K, const float *A, int lda, const float *B, int ldb, float *C,
             int ldc)
{
    const char *policy = getenv("OMP_WAIT_POLICY");
    if (policy && strcmp(policy, "passive") == 0)
        good(M, N, K, A, lda, B, ldb, C, ldc);
    else
        wrong(M, N, K, A, lda, B, ldb, C, ldc);
}

/* The fp32 value of a bf16 bit pattern. */
static float bf16(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float v;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* C = A.B with A and B bf16 bit patterns. */
void good_bf16(int M, int N, int K, const uint16_t *A, int lda, const uint16_t *B, int ldb,
               float *C, int ldc)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float s = 0;
            for (int k = 0; k < K; k++)
                s += bf16(A[i * lda + k]) * bf16(B[k * ldb + j]);
            C[i * ldc + j] = s;
        }
}
