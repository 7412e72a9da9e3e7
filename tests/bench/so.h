/* so.h — the host benchmarks build generated kernels into a shared object the way the tuner's
 * harness does (cc -O3 -march=native -fopenmp), to load them into their own drivers. */
#ifndef NPU_TUNE_BENCH_SO_H
#define NPU_TUNE_BENCH_SO_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* Compiles the C file src into the shared object so; true if cc succeeded. */
static inline bool bench_build_so(const char *src, const char *so)
{
    char cmd[2048];
    int n = snprintf(cmd, sizeof cmd, "cc -O3 -march=native -fopenmp -fPIC -shared '%s' -o '%s'",
                     src, so);
    return n > 0 && (size_t)n < sizeof cmd && system(cmd) == 0;
}

#endif
