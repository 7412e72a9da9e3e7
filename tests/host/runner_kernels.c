/* runner_kernels.c — hand-written kernels for runner.c, built as a loadable
 * module: a right and a wrong fp32 kernel, one right only when it runs on the runner's
 * pool of threads, one right only on operands placed as malloc places a large block,
 * and a right one over bf16 bit patterns. */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void good(int M, int N, int K, const float *A, int lda, const float *B, int ldb, float *C,
          int ldc);
void wrong(int M, int N, int K, const float *A, int lda, const float *B, int ldb, float *C,
           int ldc);
void good_bf16(int M, int N, int K, const uint16_t *A, int lda, const uint16_t *B, int ldb,
               float *C, int ldc);
void pooled(int M, int N, int K, const float *A, int lda, const float *B, int ldb, float *C,
            int ldc);
void placed(int M, int N, int K, const float *A, int lda, const float *B, int ldb, float *C,
            int ldc);
/* The runner's pool, as a generated kernel declares it (measure/host/compile.c). */
void nt_lib_parallel(int, void (*)(void *, int), void *) __attribute__((weak));

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

/* A call of pooled: its arguments, and the thread each of its two cells ran on. */
typedef struct {
    int M, N, K, lda, ldb, ldc;
    const float *A, *B;
    float *C;
    pthread_t ran[2];
} halves;

/* Cell t of a pooled call: rows [t M / 2, (t + 1) M / 2) of C. */
static void half(void *arg, int t)
{
    halves *h = arg;
    int m0 = t * h->M / 2, m1 = (t + 1) * h->M / 2;
    good(m1 - m0, h->N, h->K, h->A + (ptrdiff_t)m0 * h->lda, h->lda, h->B, h->ldb,
         h->C + (ptrdiff_t)m0 * h->ldc, h->ldc);
    h->ran[t] = pthread_self();
}

/* C = A.B in two cells on the runner's pool: right when the runner exports it and
 * runs the second cell on a thread of its own, else wrong. */
void pooled(int M, int N, int K, const float *A, int lda, const float *B, int ldb, float *C,
            int ldc)
{
    halves h = {M, N, K, lda, ldb, ldc, A, B, C, {pthread_self(), pthread_self()}};
    if (nt_lib_parallel)
        nt_lib_parallel(2, half, &h);
    if (nt_lib_parallel && !pthread_equal(h.ran[0], h.ran[1]))
        return;
    wrong(M, N, K, A, lda, B, ldb, C, ldc);
}

/* C = A.B when A, B and C each start 16 bytes past a 64-byte line (where malloc
 * puts a large block), else wrong. */
void placed(int M, int N, int K, const float *A, int lda, const float *B, int ldb, float *C,
            int ldc)
{
    if ((uintptr_t)A % 64 == 16 && (uintptr_t)B % 64 == 16 && (uintptr_t)C % 64 == 16)
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
