/* names.c — the DSL accepts every name the engine has: each search strategy
 * of the tuner (tn_search_names) and each measurement backend (ms_backend_names). */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "measure.h"
#include "script.h"
#include "search.h"

static char tmpdir[] = "/tmp/npu-tune-names-XXXXXX";

/* A CPU target for measure = "host" (the figures do not matter here). */
static bool fake_host(sp_target *out, char *e, size_t elen)
{
    (void)e, (void)elen;
    sp_target t = {
        .name = "host", .kind = SP_CPU, .cores = 2, .clock_mhz = 3000,
        .cpu = {.simd_floats = 8, .vregs = 16, .fma_units = 2, .load_ports = 2,
                .cache = {[SP_CL1] = 32 << 10, [SP_CL2] = 1 << 20, [SP_CL3] = 8 << 20},
                .bw_l2 = 32, .bw_l3 = 16, .bw_mem = 8, .bw_mem_shared = 16},
    };
    *out = t;
    return true;
}

/* Runs `tune { key = value }` on target (as the CLI's run does) and checks
 * that the script runs and the tune block holds `want` under key. */
static void accepts(const char *target, const char *key, const char *value, const char *want)
{
    static const ls_options cli = {.measures = ms_backend_names, .default_measure = "sim",
                                   .searches = tn_search_names, .default_search = "model"};
    char text[512], err[LS_ERR_MAX];
    snprintf(text, sizeof text,
             "target \"%s\"\nmatmul { name = \"x\", shapes = { {64, 64, 64} } }\n"
             "tune { %s = %s }\n",
             target, key, value);
    FILE *f = fopen("names.lua", "w");
    if (!CHECK(f != NULL))
        return;
    fputs(text, f);
    fclose(f);
    ls_script *s = ls_open(&cli);
    bool ok = CHECK(s != NULL) && ls_run_file(s, "names.lua", err, sizeof err);
    if (!ok)
        fprintf(stderr, "tune { %s = %s }: %s\n", key, value, err);
    CHECK(ok);
    if (ok) {
        const ls_tune *t = ls_tune_get(s);
        CHECK_STR(strcmp(key, "search") == 0 ? t->search : t->measure, want);
    }
    ls_close(s);
    remove("names.lua");
}

int main(void)
{
    if (!mkdtemp(tmpdir) || chdir(tmpdir) != 0) {
        perror(tmpdir);
        return 1;
    }
    ls_set_host(fake_host);
    size_t n = 0;
    for (const char *const *name = tn_search_names; *name; name++, n++) {
        char value[64];
        snprintf(value, sizeof value, "\"%s\"", *name);
        accepts("ascend910", "search", value, *name);
    }
    CHECK(n >= 5); /* model, exhaustive, random, anneal, genetic */
    for (const char *const *name = ms_backend_names; *name; name++) {
        char value[64];
        /* the command backend is a table with its template; the host
         * backend measures CPU targets */
        if (strcmp(*name, "command") == 0)
            snprintf(value, sizeof value, "{ command = \"./board {kernel}\" }");
        else
            snprintf(value, sizeof value, "\"%s\"", *name);
        accepts(strcmp(*name, "host") == 0 ? "host" : "ascend910", "measure", value, *name);
    }
    rmdir(tmpdir);
    return CHECK_DONE();
}
