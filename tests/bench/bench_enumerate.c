/* bench_enumerate.c — legal candidates enumerated and ranked per second over the
 * widened space of examples/bert.lua, at 1 and 2 threads. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "fixtures.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 15;
    sp_target t = fx_ascend910();
    static const long shapes[3][3] = {{512, 768, 768}, {512, 3072, 768}, {512, 768, 3072}};
    int32_t cores[] = {1, 2, 4, 8, 16, 32};
    sp_split splits[] = {SP_SPLIT_M, SP_SPLIT_N, SP_SPLIT_MN};
    /* m, n, k: every multiple of 16 up to the dims (the empty axis). */
    sp_space s = fx_space(1, 1, cores, 6, splits, 3);
    enum { KEEP = 32 };
    sp_candidate top[KEEP];
    int64_t raw = 0, legal = 0;
    for (int i = 0; i < 3; i++) {
        sp_problem p = fx_problem(shapes[i][0], shapes[i][1], shapes[i][2], 1, SP_FP16);
        sp_counts n;
        sp_rank_top(&t, &p, &s, SP_BY_TIME, KEEP, top, &n);
        raw += n.raw, legal += n.legal;
    }
    printf("space: 3 shapes, raw %lld, legal %lld (%.2f%%)\n", (long long)raw, (long long)legal,
           100.0 * legal / raw);
    printf("threads  median_s  legal_per_s\n");
    double rate1 = 0;
    for (int threads = 1; threads <= 2; threads++) {
        omp_set_num_threads(threads);
        double *sec = malloc(reps * sizeof *sec);
        for (int r = 0; r < reps; r++) {
            double t0 = omp_get_wtime();
            for (int i = 0; i < 3; i++) {
                sp_problem p = fx_problem(shapes[i][0], shapes[i][1], shapes[i][2], 1, SP_FP16);
                sp_rank_top(&t, &p, &s, SP_BY_TIME, KEEP, top, NULL);
            }
            sec[r] = omp_get_wtime() - t0;
        }
        qsort(sec, reps, sizeof *sec, cmp_double);
        double med = sec[reps / 2], rate = legal / med;
        if (threads == 1)
            rate1 = rate;
        printf("%7d  %8.5f  %11.3e\n", threads, med, rate);
        if (threads == 2)
            printf("speed-up 2/1 threads: %.2fx\n", rate / rate1);
        free(sec);
    }
    sp_space_free(&s);
    return 0;
}
