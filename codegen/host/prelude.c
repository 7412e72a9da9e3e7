/* prelude.c — the start of every host kernel's fixed code: the headers it includes, the
 * values of its header's choices, and the vector type and operations of its code path. */

/* codegen/host.c writes a kernel as a header (its NT_ macros and enum constants; see
 * there), this file, the kernel's micro-kernels, and gemm.c; several kernels may share a
 * translation unit. Every name a kernel defines is NT_(name): the header's symbol_name. */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifndef __STDC_NO_THREADS__
#include <threads.h>
#endif
#if NT_VW > 4
#include <immintrin.h>
#endif

/* The values of the header's choices: NT_DTYPE, how A and B are stored; NT_ORDER, the
 * order of the block steps (the strategy); NT_SPLIT, one thread or how threads split C. */
#define NT_FP32 1
#define NT_BF16 2
#define NT_FP16 3
#define NT_IS 1
#define NT_WS 2
#define NT_OS 3
#define NT_SERIAL 1
#define NT_SPLIT_M 2
#define NT_SPLIT_N 3
#define NT_SPLIT_MN 4

/* The vector code path of NT_VW floats per vector (the header picks the widest that the
 * compiler targets and NR is a multiple of): the vector type, and zero, aligned and
 * unaligned loads, unaligned store, broadcast of one float, multiply-add (c + a b), add. */
enum { NT_(VW) = NT_VW };
#if NT_VW == 16
typedef __m512 NT_(vec);
static inline NT_(vec) NT_(vzero)(void) { return _mm512_setzero_ps(); }
static inline NT_(vec) NT_(vload)(const float *p) { return _mm512_load_ps(p); }
static inline NT_(vec) NT_(vloadu)(const float *p) { return _mm512_loadu_ps(p); }
static inline void NT_(vstoreu)(float *p, NT_(vec) v) { _mm512_storeu_ps(p, v); }
static inline NT_(vec) NT_(vbcast)(const float *p) { return _mm512_set1_ps(*p); }
static inline NT_(vec) NT_(vfma)(NT_(vec) a, NT_(vec) b, NT_(vec) c)
{
    return _mm512_fmadd_ps(a, b, c);
}
static inline NT_(vec) NT_(vadd)(NT_(vec) a, NT_(vec) b) { return _mm512_add_ps(a, b); }
#elif NT_VW == 8
typedef __m256 NT_(vec);
static inline NT_(vec) NT_(vzero)(void) { return _mm256_setzero_ps(); }
static inline NT_(vec) NT_(vload)(const float *p) { return _mm256_load_ps(p); }
static inline NT_(vec) NT_(vloadu)(const float *p) { return _mm256_loadu_ps(p); }
static inline void NT_(vstoreu)(float *p, NT_(vec) v) { _mm256_storeu_ps(p, v); }
static inline NT_(vec) NT_(vbcast)(const float *p) { return _mm256_broadcast_ss(p); }
static inline NT_(vec) NT_(vfma)(NT_(vec) a, NT_(vec) b, NT_(vec) c)
{
    return _mm256_fmadd_ps(a, b, c);
}
static inline NT_(vec) NT_(vadd)(NT_(vec) a, NT_(vec) b) { return _mm256_add_ps(a, b); }
#else /* portable GCC vector extensions */
typedef float NT_(vec) __attribute__((vector_size(16)));
static inline NT_(vec) NT_(vzero)(void) { NT_(vec) v = {0.0f, 0.0f, 0.0f, 0.0f}; return v; }
static inline NT_(vec) NT_(vload)(const float *p)
{
    NT_(vec) v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline NT_(vec) NT_(vloadu)(const float *p)
{
    NT_(vec) v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void NT_(vstoreu)(float *p, NT_(vec) v) { memcpy(p, &v, sizeof v); }
static inline NT_(vec) NT_(vbcast)(const float *p) { NT_(vec) v = {*p, *p, *p, *p}; return v; }
static inline NT_(vec) NT_(vfma)(NT_(vec) a, NT_(vec) b, NT_(vec) c) { return c + a * b; }
static inline NT_(vec) NT_(vadd)(NT_(vec) a, NT_(vec) b) { return a + b; }
#endif
