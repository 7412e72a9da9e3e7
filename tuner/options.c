/* options.c — the config options that `model` and `gen` share (--target,
 * --op, --shape, --tile, ...), parsed once into a request. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "script.h"
#include "tuner.h"

int tn_parse_request(int argc, char **argv, const char *cmd, const char *text, int extras,
                     tn_request *r)
{
    static const struct option opts[] = {
        {"target", required_argument, 0, 't'},  {"shape", required_argument, 0, 's'},
        {"batch", required_argument, 0, 'b'},   {"dtype", required_argument, 0, 'd'},
        {"strategy", required_argument, 0, 'S'}, {"tile", required_argument, 0, 'T'},
        {"double-buffer", required_argument, 0, 'D'}, {"cores", required_argument, 0, 'c'},
        {"split", required_argument, 0, 'p'},   {"format", required_argument, 0, 'f'},
        {"output", required_argument, 0, 'o'},  {"table", required_argument, 0, 'L'},
        {"micro", required_argument, 0, 'u'},   {"op", required_argument, 0, 'O'},
        {"pack", required_argument, 0, 'P'},    {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    const char *target = NULL, *shape = NULL;
    long long v[3], batch = 0;
    char why[160];
    int op = 0, o;
    memset(r, 0, sizeof *r);
    r->p = (sp_problem){.name = "shape", .dtype = SP_FP16};
    r->c = (sp_config){.cores = 1, .strategy = SP_OS, .split = SP_SPLIT_M};
    r->strategy = -1;
    opterr = 0;
    optind = 1;
    char list[64];
#define BAD(...) return snprintf(why, sizeof why, __VA_ARGS__), tn_usage(cmd, text, why)
#define ONE_OF(name) sp_names(name, ", ", ", ", list, sizeof list)
    while ((o = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
        switch (o) {
        case 't': target = optarg; break;
        case 'O':
            if ((op = sp_op_parse(optarg)) < 0)
                BAD("--op '%s' is not one of %s", optarg, ONE_OF(sp_op_name));
            break;
        case 's': shape = optarg; break; /* read by the op, once it is known */
        case 'b':
            if (!tn_parse_dims(optarg, v, 1))
                BAD("--batch '%s' must be a positive integer", optarg);
            batch = v[0];
            break;
        case 'd':
            if ((o = sp_dtype_parse(optarg)) < 0)
                BAD("--dtype '%s' is not one of %s", optarg, ONE_OF(sp_dtype_name));
            r->p.dtype = (sp_dtype)o;
            r->have_dtype = 1;
            break;
        case 'u':
            if (!tn_parse_dims(optarg, v, 2) || v[0] > 255 || v[1] > 255)
                BAD("--micro '%s' must be MRxNR (each 1 to 255)", optarg);
            r->c.mr = (uint8_t)v[0], r->c.nr = (uint8_t)v[1];
            r->have_micro = r->have_knobs = 1;
            break;
        case 'S':
            if ((r->strategy = sp_strategy_parse(optarg)) < 0)
                BAD("--strategy '%s' is not one of %s", optarg, ONE_OF(sp_strategy_name));
            r->c.strategy = (uint8_t)r->strategy;
            break;
        case 'T':
            if (!tn_parse_dims(optarg, v, 3))
                BAD("--tile '%s' must be mxnxk, each 1 to 1048576", optarg);
            r->c.m = (int32_t)v[0], r->c.n = (int32_t)v[1], r->c.k = (int32_t)v[2];
            r->have_tile = 1;
            break;
        case 'D':
        case 'P': /* the switches: on or off */
            if (strcmp(optarg, "on") && strcmp(optarg, "off"))
                BAD("--%s '%s' is not on or off", o == 'D' ? "double-buffer" : "pack", optarg);
            if (o == 'D')
                r->c.double_buffer = strcmp(optarg, "on") == 0;
            else
                r->c.nopack = strcmp(optarg, "off") == 0;
            r->have_knobs = 1;
            break;
        case 'c':
            if (!tn_parse_dims(optarg, v, 1))
                BAD("--cores '%s' must be a positive integer", optarg);
            r->c.cores = (int32_t)v[0];
            r->have_knobs = 1;
            break;
        case 'p':
            if ((o = sp_split_parse(optarg)) < 0)
                BAD("--split '%s' is not one of %s", optarg, ONE_OF(sp_split_name));
            r->c.split = (uint8_t)o;
            r->have_knobs = 1;
            break;
        case 'f':
            if (!(extras & TN_OPT_FORMAT))
                BAD("--format is not an option of %s", cmd);
            if (strcmp(optarg, "text") && strcmp(optarg, "csv"))
                BAD("--format '%s' is not text or csv", optarg);
            r->csv = strcmp(optarg, "csv") == 0;
            break;
        case 'o':
            if (!(extras & TN_OPT_OUTPUT))
                BAD("-o is not an option of %s", cmd);
            r->output = optarg;
            break;
        case 'L':
            if (!(extras & TN_OPT_TABLE))
                BAD("--table is not an option of %s", cmd);
            r->table = optarg;
            break;
        case 'h': tn_usage(cmd, text, NULL); return TN_HELP;
        default: BAD("unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        BAD("unexpected argument '%s'", argv[optind]);
    const sp_op *oper = sp_op_get(op);
    int64_t dims[SP_OP_DIMS_MAX];
    int at = sp_op_dim_index(oper, "batch");
    if (shape && !oper->parse(shape, dims))
        BAD("--shape '%s' must be %s, each 1 to %d", shape, oper->syntax, SP_VALUE_MAX);
    if (batch && at < 0)
        BAD("--batch: op %s has no batch dimension", oper->name);
#undef BAD
#undef ONE_OF
    if ((!target && !r->table) || !shape)
        return tn_usage(cmd, text, !shape ? "--shape is required" : "--target is required");
    if (batch)
        dims[at] = batch;
    sp_problem_set(&r->p, op, dims);
    if (!target) /* the table names its target */
        return TN_OK;
    r->have_target = 1;
    if (!ls_builtin_target(target, &r->t, why, sizeof why)) { /* names the known ones */
        tn_error("%s: %s", cmd, why);
        return TN_USAGE;
    }
    if (!tn_request_target(r, why, sizeof why))
        return tn_usage(cmd, text, why);
    return TN_OK;
}

bool tn_request_target(tn_request *r, char *why, size_t len)
{
    const sp_kind_info *kind = sp_target_kind(&r->t);
    char list[64];
    if (!r->have_dtype)
        r->p.dtype = kind->dtype;
    if (!sp_target_computes(&r->t, r->p.dtype)) {
        snprintf(why, len, "--dtype %s does not run on target '%s' (%s: computes %s)",
                 sp_dtype_name(r->p.dtype), r->t.name, kind->name,
                 sp_target_dtypes(&r->t, list, sizeof list));
        return false;
    }
    if (!kind->micro && r->have_micro) {
        snprintf(why, len, "--micro is a register micro-tile of %s targets; '%s' is %s",
                 sp_kinds_with_micro(list, sizeof list), r->t.name, kind->a);
        return false;
    }
    if (!kind->micro && r->c.nopack) {
        snprintf(why, len, "--pack off is a kernel family of %s targets; '%s' is %s",
                 sp_kinds_with_micro(list, sizeof list), r->t.name, kind->a);
        return false;
    }
    if (kind->micro && !r->have_micro) {
        sp_micro u = sp_micro_default(&r->t);
        r->c.mr = u.mr, r->c.nr = u.nr;
    }
    return true;
}
