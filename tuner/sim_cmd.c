/* sim_cmd.c — `npu-tune sim KERNEL`: runs a kernel file on the built-in
 * simulator, on the target its file describes (or names), and reports cycles,
 * pipe use, bytes per path and the check. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "base.h"
#include "codegen.h"
#include "results.h"
#include "script.h"
#include "sim.h"
#include "tuner.h"

static const char usage_text[] =
    "usage: npu-tune sim KERNEL [--format text|csv] [--trace out.json] [--check]\n"
    "                           [--output C.bin]\n"
    "  --output: run on the functional inputs and write C there, raw little-endian\n"
    "  (codegen/FORMAT.md, Inputs and results); --check: and fail unless C is right\n";

static int usage(const char *why) { return tn_usage("sim", usage_text, why); }

static void report_csv(const sim_result *r)
{
    printf("cycles,instructions,status");
    for (int p = 0; p < CG_NPIPE; p++)
        printf(",busy_%s", cg_pipe_name(p));
    for (int p = 0; p < CG_NPIPE; p++)
        printf(",stall_%s", cg_pipe_name(p));
    static const char *const paths[SP_NPATH] = {"gm_l1", "l1_l0a", "l1_l0b", "l0c_ub", "ub_gm"};
    for (int p = 0; p < SP_NPATH; p++)
        printf(",bytes_%s", paths[p]);
    printf(",checked\n%.0f,%llu,%s", r->cycles, (unsigned long long)r->instructions,
           ms_status_name(r->status));
    for (int p = 0; p < CG_NPIPE; p++)
        printf(",%.0f", r->busy[p]);
    for (int p = 0; p < CG_NPIPE; p++)
        printf(",%.0f", r->stall[p]);
    for (int p = 0; p < SP_NPATH; p++)
        printf(",%.0f", r->bytes[p]);
    printf(",%d\n", r->checked);
}

static void report_text(const char *path, const cg_kernel *k, const sp_target *t,
                        const sim_result *r)
{
    const sp_config *c = &k->config;
    const sp_problem *p = &k->problem;
    printf("%s: %s %dx%dx%d double_buffer=%d cores=%d split=%s on %s, %lldx%lldx%lld %s batch %lld\n",
           path, sp_strategy_name(c->strategy), c->m, c->n, c->k, c->double_buffer, c->cores,
           sp_split_name(c->split), t->name, (long long)p->M, (long long)p->N, (long long)p->K,
           sp_dtype_name(p->dtype), (long long)p->batch);
    printf("cycles: %.0f (%.2f us at %.0f MHz), %llu instructions on %d core%s\n", r->cycles,
           r->cycles / t->clock_mhz, t->clock_mhz, (unsigned long long)r->instructions,
           k->ncores, k->ncores == 1 ? "" : "s");
    printf("%-5s %14s %7s %14s\n", "pipe", "busy_cycles", "util", "stall_cycles");
    double span = r->cycles * k->ncores;
    for (int q = 0; q < CG_NPIPE; q++)
        if (r->busy[q] > 0 || r->stall[q] > 0)
            printf("%-5s %14.0f %6.1f%% %14.0f\n", cg_pipe_name(q), r->busy[q],
                   span > 0 ? 100 * r->busy[q] / span : 0, r->stall[q]);
    printf("bytes:");
    for (int q = 0; q < SP_NPATH; q++)
        printf(" %s %.0f%s", sp_path_name(q), r->bytes[q], q + 1 < SP_NPATH ? "," : "\n");
    if (r->checked && r->status == MS_OK)
        printf("check: ok, C equals the reference matmul\n");
    else if (r->checked)
        printf("check: wrong, %s\n", r->error);
    else
        printf("check: not run (use --check)\n");
}

/* Writes C, little-endian. */
static bool write_c(FILE *f, void *ctx)
{
    const sim_result *r = ctx;
    sim_le_bytes(r->c, r->c_bytes, 4);
    bool ok = fwrite(r->c, 1, r->c_bytes, f) == r->c_bytes;
    sim_le_bytes(r->c, r->c_bytes, 4);
    return ok;
}

typedef struct {
    const sp_target *t;
    const sim_result *r;
} trace_job;

static bool write_trace(FILE *f, void *ctx)
{
    const trace_job *j = ctx;
    return sim_write_trace(f, j->t, j->r);
}

int tn_sim(int argc, char **argv)
{
    static const struct option opts[] = {{"format", required_argument, 0, 'f'},
                                         {"trace", required_argument, 0, 't'},
                                         {"check", no_argument, 0, 'c'},
                                         {"output", required_argument, 0, 'o'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int csv = 0, check = 0, o;
    const char *trace = NULL, *output = NULL;
    char why[LS_ERR_MAX];
    opterr = 0;
    optind = 1;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (o) {
        case 'f':
            if (strcmp(optarg, "text") && strcmp(optarg, "csv"))
                return snprintf(why, sizeof why, "--format '%s' is not text or csv", optarg), usage(why);
            csv = strcmp(optarg, "csv") == 0;
            break;
        case 't': trace = optarg; break;
        case 'c': check = 1; break;
        case 'o': output = optarg; break;
        case 'h': return usage(NULL);
        default:
            snprintf(why, sizeof why, "unknown or incomplete option '%s'", argv[optind - 1]);
            return usage(why);
        }
    }
    if (optind != argc - 1)
        return usage(optind >= argc ? "a KERNEL file is required" : "one KERNEL file only");
    const char *path = argv[optind];
    FILE *f = fopen(path, "r");
    if (!f) {
        tn_error("cannot open '%s': %s", path, strerror(errno));
        return TN_ERROR;
    }
    cg_kernel k;
    bool parsed = cg_parse(f, path, &k, why, sizeof why);
    fclose(f);
    if (!parsed) {
        tn_error("%s", why);
        return TN_ERROR;
    }
    const bs_file files[] = {{"kernel", path, false}, {"trace", trace, true},
                             {"output", output, true}};
    sp_target t;
    if (!bs_paths_distinct(files, 3, why, sizeof why)) {
        tn_error("%s", why);
        cg_kernel_free(&k);
        return TN_ERROR;
    }
    /* format 2 carries its target's figures; format 1 names a built-in target */
    if (k.figures) {
        t = k.target;
    } else if (!ls_builtin_target(k.target.name, &t, why, sizeof why)) {
        tn_error("%s: %s", path, why);
        cg_kernel_free(&k);
        return TN_ERROR;
    }
    sim_options so = {.functional = check || output, .seed = SIM_SEED, .trace = trace != NULL,
                      .keep_c = output != NULL};
    sim_result r;
    int rc = TN_OK;
    if (!sim_run(&t, &k, &so, &r)) {
        tn_error("%s: out of memory simulating", path);
        cg_kernel_free(&k);
        return TN_ERROR;
    }
    if (r.status != MS_OK && !(r.status == MS_WRONG && !check)) {
        tn_error("%s: %s", path, r.error);
        rc = TN_ERROR;
    } else {
        if (output && !bs_write_atomic(output, write_c, &r, why, sizeof why)) {
            tn_error("%s", why);
            rc = TN_ERROR;
        }
        if (csv)
            report_csv(&r);
        else
            report_text(path, &k, &t, &r);
        trace_job tj = {&t, &r};
        if (trace && !bs_write_atomic(trace, write_trace, &tj, why, sizeof why)) {
            tn_error("%s", why);
            rc = TN_ERROR;
        }
    }
    sim_result_free(&r);
    cg_kernel_free(&k);
    return rc;
}
