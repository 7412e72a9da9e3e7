/* gen_cmd.c — `npu-tune gen`: the kernel of one explicit config, as text a
 * person can read and `npu-tune sim` can run. */
#include <stdio.h>
#include <string.h>

#include "codegen.h"
#include "results.h"
#include "tuner.h"

static const char usage_text[] =
    "usage: npu-tune gen --target T --shape MxNxK --strategy IS|WS|OS --tile mxnxk\n"
    "                    [--batch B] [--dtype fp16|int8] [--double-buffer on|off]\n"
    "                    [--cores C] [--split M|N|MN] [-o FILE]\n";

static bool write_kernel(FILE *f, void *k) { return cg_print(f, k); }

int tn_gen(int argc, char **argv)
{
    tn_request r;
    int rc = tn_parse_request(argc, argv, "gen", usage_text, TN_OPT_OUTPUT, &r);
    if (rc != TN_OK)
        return rc;
    if (r.strategy < 0 || !r.have_tile) {
        tn_error("gen: %s is required", r.strategy < 0 ? "--strategy" : "--tile");
        fputs(usage_text, stderr);
        return TN_USAGE;
    }
    cg_kernel k;
    char err[512];
    if (!cg_generate(&r.t, &r.p, &r.c, &k, err, sizeof err)) {
        tn_error("gen: %s", err);
        return TN_ERROR;
    }
    bool ok;
    if (r.output) {
        ok = rs_write_atomic(r.output, write_kernel, &k, err, sizeof err);
    } else {
        ok = cg_print(stdout, &k) && fflush(stdout) == 0;
        if (!ok)
            snprintf(err, sizeof err, "cannot write the kernel to standard output");
    }
    cg_kernel_free(&k);
    if (!ok) {
        tn_error("gen: %s", err);
        return TN_ERROR;
    }
    return TN_OK;
}
