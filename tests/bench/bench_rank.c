/* bench_rank.c — how well the model ranks what the simulator measures over
 * bert's legal space: Spearman overall and among the fastest, and the regret
 * of the model's top pick. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "codegen.h"
#include "fixtures.h"
#include "measure.h"

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
        double *model = malloc(k * sizeof *model), *sim = malloc(k * sizeof *sim),
               *work = malloc(2 * k * sizeof *work);
        unsigned long long instrs = 0;
        int failed = 0;
        double t0 = omp_get_wtime();
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : instrs, failed)
        for (size_t i = 0; i < k; i++) {
            cg_kernel kern;
            char err[256];
            model[i] = all[i].fig.est_cycles;
            sim[i] = 0;
            if (!cg_generate(&t, &p, &all[i].config, &kern, err, sizeof err)) {
                failed++;
                continue;
            }
            ms_sim_options o = {.functional = false};
            ms_sim_result r;
            if (ms_simulate(&t, &kern, &o, &r) && r.status == MS_OK)
                sim[i] = r.cycles;
            else
                failed++;
            ms_sim_result_free(&r);
            instrs += cg_kernel_size(&kern);
            cg_kernel_free(&kern);
        }
        double wall = omp_get_wtime() - t0;
        double rho = gsl_stats_spearman(model, 1, sim, 1, k, work);
        /* the 100 fastest by simulation, and the model's pick */
        size_t *order = malloc(k * sizeof *order), pick = 0, best = 0, top = k < 100 ? k : 100;
        gsl_sort_index(order, sim, 1, k);
        double *tm = malloc(top * sizeof *tm), *ts = malloc(top * sizeof *ts);
        for (size_t i = 0; i < top; i++)
            tm[i] = model[order[i]], ts[i] = sim[order[i]];
        double rho_top = gsl_stats_spearman(tm, 1, ts, 1, top, work);
        for (size_t i = 1; i < k; i++) {
            if (model[i] < model[pick])
                pick = i;
            if (sim[i] < sim[best])
                best = i;
        }
        printf("%4ldx%4ldx%4ld %8zu %9.4f %9.4f %7.2f%% %8.1f %12llu%s\n", shapes[s][0],
               shapes[s][1], shapes[s][2], k, rho, rho_top, 100 * (sim[pick] / sim[best] - 1),
               wall, instrs, failed ? "  (some failed!)" : "");
        free(order);
        free(tm);
        free(ts);
        free(model);
        free(sim);
        free(work);
        free(all);
        sp_space_free(&sp);
    }
    return 0;
}
