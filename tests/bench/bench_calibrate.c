/* bench_calibrate.c — `npu-tune calibrate` on a journal of 10^4 rows: made up from
 * the model at perturbed figures with 3% noise (tests/synthetic.h), then timed. */
#define _POSIX_C_SOURCE 200809L
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "base.h"
#include "fixtures.h"
#include "results.h"
#include "synthetic.h"

#define ROWS 10000
#define GOAL_SECONDS 10.0

/* The rows' shapes: BERT-like, odd sizes and tails. */
static const long shapes[][3] = {
    {512, 768, 768},  {512, 3072, 768}, {512, 768, 3072}, {384, 384, 64},  {200, 1000, 64},
    {1024, 1024, 256}, {3136, 64, 576}, {128, 128, 128},  {96, 4096, 512}, {777, 333, 129},
    {1000, 200, 300}, {64, 2048, 2048}, {2048, 64, 1024}, {257, 511, 96},  {640, 640, 640},
    {1536, 256, 384}, {48, 48, 4096},   {4096, 96, 64},   {320, 1280, 160}, {999, 999, 99}};
enum { NSHAPES = sizeof shapes / sizeof *shapes };

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: bench_calibrate NPU_TUNE WORKDIR\n");
        return 2;
    }
    char journal[4096], target[4096], cmd[8300], err[1024];
    snprintf(journal, sizeof journal, "%s/calibrate.csv", argv[2]);
    snprintf(target, sizeof target, "%s/calibrated.lua", argv[2]);
    if (!bs_mkdirs(argv[2], err, sizeof err)) {
        fprintf(stderr, "bench_calibrate: %s\n", err);
        return 1;
    }
    remove(journal);
    snprintf(cmd, sizeof cmd, "%s.sig", journal);
    remove(cmd);

    sp_target start = fx_ascend910(), truth = synth_npu_truth(&start, NULL);
    sp_space s = synth_npu_space();
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 1);
    rs_entry *rows = malloc(ROWS * sizeof *rows);
    sp_problem *probs = malloc(NSHAPES * sizeof *probs);
    size_t n = 0;
    for (int i = 0; i < NSHAPES; i++) {
        probs[i] = fx_problem(shapes[i][0], shapes[i][1], shapes[i][2], 1, SP_FP16);
        synth_shape(&start, &truth, &probs[i], &s, ROWS / NSHAPES, 0.03, false, rng, rows, &n);
    }

    /* the journal, as a run on the built-in ascend910 would sign it */
    rs_signature sig = {.version = "bench", .script = "bench_calibrate", .target = "ascend910",
                        .space_sig = "0000000000000000", .measure = "sim"};
    char text[SP_SIGNATURE_MAX];
    bs_hash_hex(text, sp_target_signature(&start, text), sig.target_sig);
    rs_cache *cache;
    rs_journal *j = rs_journal_open(journal, &sig, &cache, err, sizeof err);
    bool ok = j != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        sp_candidate c = {.config = rows[i].config};
        c.fig.load_elems = rows[i].load_elems;
        c.fig.est_cycles = rows[i].est_cycles;
        rs_row r = {.problem = &rows[i].problem, .target = "ascend910", .cand = &c,
                    .backend = "sim", .status = "ok", .measured = rows[i].measured,
                    .unit = "cycles", .round = "search"};
        ok = rs_journal_append(j, &r, err, sizeof err);
    }
    ok = ok && rs_journal_close(j, err, sizeof err);
    rs_cache_free(cache);
    if (!ok) {
        fprintf(stderr, "bench_calibrate: %s\n", err);
        return 1;
    }
    printf("journal: %zu rows of %d shapes (ascend910, fp16, 1 to 32 cores, splits M N MN, "
           "double buffering off and on), measured = the model at perturbed figures x "
           "exp(N(0, 0.03))\n",
           n, NSHAPES);
    printf("truth: gm_l1.bandwidth 48, gm_l1.latency 320, ub_gm.bandwidth 80, ub_gm.latency 120, "
           "gm_bandwidth 900 (the others as built in)\n\n");
    fflush(stdout);

    snprintf(cmd, sizeof cmd, "'%s' calibrate '%s' -o '%s'", argv[1], journal, target);
    double t0 = bs_now();
    int rc = system(cmd);
    double secs = bs_now() - t0;
    printf("\nnpu-tune calibrate on %zu rows: %.2f s wall (goal: under %.0f s)\n", n, secs,
           GOAL_SECONDS);
    free(rows);
    free(probs);
    sp_space_free(&s);
    gsl_rng_free(rng);
    if (!WIFEXITED(rc) || WEXITSTATUS(rc) != 0) {
        fprintf(stderr, "bench_calibrate: npu-tune calibrate failed\n");
        return 1;
    }
    return secs < GOAL_SECONDS ? 0 : 1;
}
