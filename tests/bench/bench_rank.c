/* bench_rank.c — how well the model ranks what the simulator measures over
 * bert's legal space: Spearman overall and among the fastest, and the regret
 * of the model's top pick (bench/rank.h: a failed simulation takes no part). */
#include <gsl/gsl_errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "rank.h"
#include "codegen.h"
#include "fixtures.h"
#include "sim.h"

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    size_t stride = argc > 1 ? (size_t)atol(argv[1]) : 1; /* 1: every legal config */
    sp_target t = fx_ascend910();
    static const long shapes[3][3] = {{512, 768, 768}, {512, 3072, 768}, {512, 768, 3072}};
    int32_t one = 1;
    sp_split m = SP_SPLIT_M;
    printf("legal space of examples/bert.lua (db off/on, 1 core), every %zu-th config\n", stride);
    printf("%-14s %8s %9s %9s %8s %8s %12s\n", "shape", "configs", "spearman", "top100", "regret",
           "wall_s", "sim_instrs");
    for (int s = 0; s < 3; s++) {
        sp_problem p = fx_problem(shapes[s][0], shapes[s][1], shapes[s][2], 1, SP_FP16);
        sp_space sp = fx_space(1, 1, &one, 1, &m, 1);
        sp_candidate *all;
        size_t n = sp_enumerate(&t, &p, &sp, &all, NULL), k = 0;
        for (size_t i = 0; i < n; i += stride)
            all[k++] = all[i];
        double *model = malloc(k * sizeof *model), *sim = malloc(k * sizeof *sim);
        bool *ok = malloc(k * sizeof *ok);
        unsigned long long instrs = 0;
        int failed = 0;
        double t0 = omp_get_wtime();
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : instrs, failed)
        for (size_t i = 0; i < k; i++) {
            cg_kernel kern;
            char err[256];
            model[i] = all[i].fig.est_cycles;
            sim[i] = NAN;
            ok[i] = false;
            if (!cg_generate(&t, &p, &all[i].config, &kern, err, sizeof err)) {
                failed++;
                continue;
            }
            sim_options o = {.functional = false};
            sim_result r;
            if (sim_run(&t, &kern, &o, &r) && r.status == MS_OK)
                sim[i] = r.cycles, ok[i] = true;
            else
                failed++;
            sim_result_free(&r);
            instrs += cg_kernel_size(&kern);
            cg_kernel_free(&kern);
        }
        double wall = omp_get_wtime() - t0;
        rank_score sc;
        if (!rank_score_of(model, sim, ok, k, 100, &sc)) {
            fprintf(stderr, "bench_rank: out of memory\n");
            return 1;
        }
        char regret[32] = "failed"; /* the model's pick failed in the simulator */
        if (!isnan(sc.regret))
            snprintf(regret, sizeof regret, "%.2f%%", 100 * sc.regret);
        printf("%4ldx%4ldx%4ld %8zu %9.4f %9.4f %8s %8.1f %12llu", shapes[s][0], shapes[s][1],
               shapes[s][2], k, sc.rho, sc.rho_top, regret, wall, instrs);
        if (failed)
            printf("  (%d failed, left out)", failed);
        printf("\n");
        free(model);
        free(sim);
        free(ok);
        free(all);
        sp_space_free(&sp);
    }
    return 0;
}
