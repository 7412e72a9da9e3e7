/* bench_sim.c — simulator speed: instructions per second and
 * wall time for the model's best OS kernel of 512x768x768 and the longest kernel of bert. */
#include <gsl/gsl_errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "codegen.h"
#include "fixtures.h"
#include "sim.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void bench(const char *what, const sp_problem *p, sp_config c, int reps, bool functional)
{
    sp_target t = fx_ascend910();
    cg_kernel k;
    char err[512];
    if (!cg_generate(&t, p, &c, &k, err, sizeof err)) {
        fprintf(stderr, "bench_sim: %s\n", err);
        exit(1);
    }
    double *sec = malloc((size_t)reps * sizeof *sec), cycles = 0;
    for (int r = 0; r < reps; r++) {
        sim_options o = {.functional = functional, .seed = 1};
        sim_result res;
        double t0 = omp_get_wtime();
        if (!sim_run(&t, &k, &o, &res) || res.status != MS_OK) {
            fprintf(stderr, "bench_sim: %s: %s\n", what, res.error);
            exit(1);
        }
        sec[r] = omp_get_wtime() - t0;
        cycles = res.cycles;
        sim_result_free(&res);
    }
    qsort(sec, (size_t)reps, sizeof *sec, cmp_double);
    size_t n = cg_kernel_size(&k);
    printf("%-40s %-10s %10zu %12.0f %10.3f %12.3e\n", what, functional ? "functional" : "timing", n,
           cycles, sec[reps / 2] * 1e3, n / sec[reps / 2]);
    free(sec);
    cg_kernel_free(&k);
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    int reps = argc > 1 ? atoi(argv[1]) : 21;
    printf("%-40s %-10s %10s %12s %10s %12s\n", "kernel", "mode", "instrs", "sim_cycles",
           "median_ms", "instr_per_s");
    sp_problem bert = fx_problem(512, 768, 768, 1, SP_FP16);
    sp_config best_os = {.m = 256, .n = 256, .k = 128, .cores = 1, .strategy = SP_OS};
    bench("best OS 256x256x128, 512x768x768", &bert, best_os, reps, false);
    bench("best OS 256x256x128, 512x768x768", &bert, best_os, reps > 5 ? 5 : reps, true);
    sp_problem wide = fx_problem(512, 3072, 768, 1, SP_FP16);
    sp_config tiny = {.m = 16, .n = 16, .k = 16, .cores = 1, .strategy = SP_OS, .double_buffer = 1};
    bench("OS 16x16x16 db, 512x3072x768", &wide, tiny, reps > 5 ? 5 : reps, false);
    bench("OS 16x16x16 db, 512x3072x768", &wide, tiny, 1, true);
    return 0;
}
