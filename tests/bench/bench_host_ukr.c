/* bench_host_ukr.c — the ceiling of the generated host micro-kernels: each register tile's
 * GFLOP/s with its operands in L1 and with the B panels streaming from L2, vs the FMA peak. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "host.h"
#include "rounds.h"
#include "so.h"

/* The tiles of micro = "auto" on this host and, beside them, tiles of one
 * vector of B (12 and 14 rows): what the table of "auto" was chosen from. */
enum { NMICRO = SP_MICRO_AUTO_MAX + 2, ROUNDS = 5 };
static sp_micro micros[NMICRO];

/* The two cases: depth kc, B panels cycled through (L1: 2 KiB of A, 12 KiB
 * of B for 8x48; L2: 4 panels of 768 rows, 590 KiB for 8x48). */
static const struct {
    const char *name;
    int kc, panels;
} cases[] = {{"L1", 64, 1}, {"L2", 768, 4}};

/* Appended to each kernel's source (same translation unit, so it reaches the
 * static micro-kernel @_ukr): GFLOP/s of calls over `panels` packed B panels
 * for about `secs` seconds. '@' is the kernel's symbol. */
static const char driver[] =
    "#include <time.h>\n"
    "static double @_now(void)\n"
    "{\n"
    "    struct timespec t;\n"
    "    clock_gettime(CLOCK_MONOTONIC, &t);\n"
    "    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;\n"
    "}\n"
    "double @_rate(int kc, int panels, double secs)\n"
    "{\n"
    "    float *a = aligned_alloc(64, sizeof(float) * (size_t)(@_MR * kc + 16));\n"
    "    float *b = aligned_alloc(64, sizeof(float) * (size_t)kc * @_NR * panels);\n"
    "    float *c = aligned_alloc(64, sizeof(float) * (size_t)@_MR * @_NR * panels);\n"
    "    if (!a || !b || !c)\n"
    "        return -1;\n"
    "    for (int i = 0; i < @_MR * kc; i++)\n"
    "        a[i] = 1e-3f * (float)(i % 7);\n"
    "    for (long i = 0; i < (long)kc * @_NR * panels; i++)\n"
    "        b[i] = 1e-3f * (float)(i % 5);\n"
    "    memset(c, 0, sizeof(float) * (size_t)@_MR * @_NR * panels);\n"
    "    long calls = 0;\n"
    "    double t0 = @_now(), t;\n"
    "    do {\n"
    "        for (int r = 0; r < 64; r++, calls += panels)\n"
    "            for (int j = 0; j < panels; j++)\n"
    "                @_ukr(kc, a, kc, b + (long)j * kc * @_NR, c + j * @_NR, @_NR * panels, 1);\n"
    "        t = @_now() - t0;\n"
    "    } while (t < secs);\n"
    "    free(a), free(b), free(c);\n"
    "    return 2.0 * @_MR * @_NR * (double)kc * (double)calls / t * 1e-9;\n"
    "}\n";

/* Writes the driver text with '@' replaced by sym. */
static void put_driver(FILE *f, const char *sym)
{
    for (const char *p = driver; *p; p++)
        if (*p == '@')
            fputs(sym, f);
        else
            fputc(*p, f);
}

int main(void)
{
    hs_info h;
    sp_target t;
    hs_detect(&h);
    hs_target(&h, &t);
    size_t n = sp_micro_auto(&t, micros);
    for (int rows = 12; rows <= 14; rows += 2)
        micros[n++] = (sp_micro){(uint8_t)rows, (uint8_t)t.cpu.simd_floats};
    while (n < NMICRO) /* fewer tiles of "auto": the rest empty, as tiles that do not fit */
        micros[n++] = (sp_micro){0, 0};
    char dir[] = "/tmp/npu_bench_ukr_XXXXXX";
    if (!mkdtemp(dir)) {
        perror("bench_host_ukr: mkdtemp");
        return 1;
    }
    char src[600], so[600], cmd[1400], err[256], sym[16];
    snprintf(src, sizeof src, "%s/ukr.c", dir);
    snprintf(so, sizeof so, "%s/ukr.so", dir);
    FILE *f = fopen(src, "w");
    if (!f) {
        perror("bench_host_ukr: kernel source");
        return 1;
    }
    bool fits[NMICRO];
    for (int i = 0; i < NMICRO; i++) {
        fits[i] = sp_micro_fits(&t, micros[i]);
        if (!fits[i])
            continue;
        sp_config c = {.strategy = SP_WS, .m = micros[i].mr, .n = micros[i].nr, .k = 768,
                       .cores = 1, .split = SP_SPLIT_M, .mr = micros[i].mr, .nr = micros[i].nr};
        snprintf(sym, sizeof sym, "u%d", i);
        if (!cg_host_source(f, &c, SP_FP32, sym, err, sizeof err)) {
            fprintf(stderr, "bench_host_ukr: %dx%d: %s\n", micros[i].mr, micros[i].nr, err);
            return 1;
        }
        put_driver(f, sym);
    }
    if (fclose(f) != 0)
        return 1;
    void *lib = bench_build_so(src, so) ? dlopen(so, RTLD_NOW) : NULL;
    if (!lib) {
        fprintf(stderr, "bench_host_ukr: building the kernels failed (is cc installed?)\n");
        return 1;
    }

    /* round-robin: every (tile, case) once per round; the peak once per round */
    double g[NMICRO][2][ROUNDS], peak[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        hs_roofline roof;
        peak[r] = hs_measure_roofline(&roof) ? roof.gflops_core : NAN; /* NaN: failed */
        for (int i = 0; i < NMICRO; i++)
            for (int k = 0; k < 2 && fits[i]; k++) {
                snprintf(sym, sizeof sym, "u%d_rate", i);
                double (*rate)(int, int, double) = (double (*)(int, int, double))dlsym(lib, sym);
                g[i][k][r] = rate ? rate(cases[k].kc, cases[k].panels, 0.2) : NAN;
            }
    }
    double pk = bench_median(peak, ROUNDS);
    printf("FMA peak of one core (measure/host/roofline.c, median of %d rounds): %.1f GFLOP/s\n",
           ROUNDS, pk);
    printf("micro-kernel GFLOP/s, median of %d round-robin rounds of 0.2 s; L1: kc = %d, one B "
           "panel; L2: kc = %d, %d B panels cycled\n\n",
           ROUNDS, cases[0].kc, cases[1].kc, cases[1].panels);
    printf("%-8s %9s %8s %9s %8s\n", "micro", "L1", "of_peak", "L2", "of_peak");
    for (int i = 0; i < NMICRO; i++) {
        if (!micros[i].mr)
            continue;
        printf("%2dx%-5d", micros[i].mr, micros[i].nr);
        if (!fits[i]) {
            printf(" (does not fit %s's registers)\n", t.name);
            continue;
        }
        for (int k = 0; k < 2; k++) {
            double m = bench_median(g[i][k], ROUNDS);
            printf(" %9.1f %8.3f", m, m / pk);
        }
        printf("\n");
    }
    dlclose(lib);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_host_ukr: could not remove %s\n", dir);
    return 0;
}
