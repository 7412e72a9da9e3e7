/* bench_host_configs.c — generated host kernels of several configs for one shape, verified
 * and timed side by side (hs_final: bursts of calls, interleaved round-robin). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>

#include "codegen.h"
#include "csv.h"
#include "expect.h"
#include "host.h"

#define WHO "bench_host_configs"

static int usage(void)
{
    fprintf(stderr,
            "usage: bench_host_configs [--check] MxNxK \"STRATEGY m n k db cores split MRxNR\"...\n"
            "  e.g. bench_host_configs 512x3072x768 \"WS 480 64 768 0 1 M 8x48\" \"OS 48 64 768 0 1 M 8x48\"\n"
            "  (2 to %d configs; GFLOP/s are the final's medians, ratios to the first;\n"
            "  --check: exit 1 naming the first config not verified, or a figure of it that is wrong)\n",
            HS_FINAL_MAX);
    return 2;
}

/* --check of one config's measurement m in the final (first: the first config's): verified
 * (ok), its figures positive numbers, timed in as many rounds as the first; false, said in
 * one line, if not. */
static bool check_config(const char *shape, const char *config, const ms_measurement *m,
                         const ms_measurement *first, double flops)
{
    char subject[160];
    snprintf(subject, sizeof subject, "%s \"%s\"", shape, config);
    if (m->status != MS_OK) {
        fprintf(stderr, WHO ": %s: status is %s (%s), expected ok\n", subject,
                ms_status_name(m->status), m->detail);
        return false;
    }
    return expect_positive(WHO, subject, "GFLOP/s", flops / m->value / 1e9) &&
           expect_positive(WHO, subject, "the ratio to the first", first->value / m->value) &&
           expect_positive(WHO, subject, "samples", m->nsamples) &&
           expect_count(WHO, subject, "samples", m->nsamples, first->nsamples);
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    bool check = argc > 1 && strcmp(argv[1], "--check") == 0;
    argc -= check, argv += check;
    long long M, N, K;
    char tail;
    int n = argc - 2;
    if (argc < 4 || n > HS_FINAL_MAX ||
        sscanf(argv[1], "%lldx%lldx%lld%c", &M, &N, &K, &tail) != 3 || M < 1 || N < 1 || K < 1)
        return usage();
    sp_problem p = {.name = "configs", .M = M, .N = N, .K = K, .batch = 1, .dtype = SP_FP32};
    hs_info h;
    hs_detect(&h);
    sp_target t;
    hs_target(&h, &t);
    hs_job jobs[HS_FINAL_MAX];
    char syms[HS_FINAL_MAX][16];
    for (int i = 0; i < n; i++) {
        sp_config c;
        if (!csv_config(argv[2 + i], &c)) {
            fprintf(stderr, "bench_host_configs: config '%s' does not read as "
                            "\"STRATEGY m n k db cores split MRxNR\"\n", argv[2 + i]);
            return 2;
        }
        if (sp_check(&t, &p, &c))
            fprintf(stderr, "bench_host_configs: note: '%s' is outside the tuner's legal space "
                            "on this host (see npu-tune model); timed anyway\n", argv[2 + i]);
        snprintf(syms[i], sizeof syms[i], "nt_c%d", i);
        char why[256], *text = cg_host_text(&c, SP_FP32, syms[i], why, sizeof why);
        if (!text) {
            fprintf(stderr, "bench_host_configs: cannot generate '%s': %s\n", argv[2 + i], why);
            return 1;
        }
        jobs[i] = (hs_job){.source = text, .symbol = syms[i], .problem = &p, .threads = c.cores};
    }
    char workdir[] = "/tmp/nt_bench_configs_XXXXXX", err[256];
    if (!mkdtemp(workdir)) {
        perror("bench_host_configs: mkdtemp");
        return 1;
    }
    ms_measurement out[HS_FINAL_MAX];
    bool ran = hs_final(jobs, (size_t)n, workdir, 120, out, err, sizeof err);
    rmdir(workdir);
    if (!ran) {
        fprintf(stderr, "bench_host_configs: %s\n", err);
        return 1;
    }
    double flops = 2.0 * (double)M * (double)N * (double)K;
    printf("%s, side by side (hs_final)\n\n%-28s %10s %8s  %s\n", argv[1], "config",
           "GFLOP/s", "/ first", "detail");
    int bad = 0;
    for (int i = 0; i < n; i++) {
        const ms_measurement *m = &out[i];
        if (m->status != MS_OK) {
            printf("%-28s %10s %8s  %s: %s\n", argv[2 + i], "-", "-", ms_status_name(m->status),
                   m->detail);
            bad = 1;
            continue;
        }
        double g = flops / m->value / 1e9;
        if (out[0].status == MS_OK)
            printf("%-28s %10.1f %8.3f  %s\n", argv[2 + i], g, out[0].value / m->value, m->detail);
        else
            printf("%-28s %10.1f %8s  %s\n", argv[2 + i], g, "-", m->detail);
    }
    for (int i = 0; check && i < n; i++)
        if (!check_config(argv[1], argv[2 + i], &out[i], &out[0], flops)) {
            bad = 1;
            break;
        }
    for (int i = 0; i < n; i++)
        free((char *)jobs[i].source);
    return bad;
}
