/* so.h — the host benchmarks build generated kernels into a shared object the way the tuner's
 * harness does (cc -O3 -march=native -fopenmp), to load them into their own drivers. */
#ifndef NPU_TUNE_BENCH_SO_H
#define NPU_TUNE_BENCH_SO_H

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "codegen.h"

/* Compiles the C file src into the shared object so; true if cc succeeded. */
static inline bool bench_build_so(const char *src, const char *so)
{
    char cmd[2048];
    int n = snprintf(cmd, sizeof cmd, "cc -O3 -march=native -fopenmp -fPIC -shared '%s' -o '%s'",
                     src, so);
    return n > 0 && (size_t)n < sizeof cmd && system(cmd) == 0;
}

/* The generated host kernel of config c in dtype d, entry point sym (new to
 * the process: dlopen hands back a library already loaded from the same
 * path), built as dir/sym.so and loaded (*lib: the handle; dlclose it only if the
 * kernel ran on one thread: other threads' kept scratch is freed by a
 * destructor in the library when they end); NULL, said on stderr under the
 * name who, if it cannot be generated, built or loaded. */
static inline void *bench_kernel(const char *who, const sp_config *c, sp_dtype d, const char *sym,
                                 const char *dir, void **lib)
{
    char src[512], so[512], why[256];
    snprintf(src, sizeof src, "%s/%s.c", dir, sym);
    snprintf(so, sizeof so, "%s/%s.so", dir, sym);
    *lib = NULL;
    char *text = cg_host_text(c, d, sym, why, sizeof why);
    if (!text) {
        fprintf(stderr, "%s: cannot generate the kernel: %s\n", who, why);
        return NULL;
    }
    FILE *f = fopen(src, "w");
    bool ok = f && fputs(text, f) >= 0;
    if (f && fclose(f) != 0)
        ok = false;
    free(text);
    if (!ok) {
        fprintf(stderr, "%s: cannot write '%s'\n", who, src);
        return NULL;
    }
    void *k = NULL;
    if (bench_build_so(src, so) && (*lib = dlopen(so, RTLD_NOW)) != NULL)
        k = dlsym(*lib, sym);
    if (!k)
        fprintf(stderr, "%s: building the kernel failed (is cc installed?)\n", who);
    return k;
}

#endif
