/* help.c — usage texts (npu-tune --help's among them) with their name lists filled in
 * from the registries: "{dtypes}" prints as "fp16|int8|fp32|bf16", and so on. */
#include <stdio.h>
#include <string.h>

#include "measure.h"
#include "search.h"
#include "tuner.h"

static const char *name_in(const char *const *names, int i)
{
    for (int j = 0; j <= i; j++)
        if (!names[j])
            return NULL;
    return names[i];
}
static const char *search_name(int i) { return i >= 0 ? name_in(tn_search_names, i) : NULL; }
static const char *measure_name(int i) { return i >= 0 ? name_in(ms_backend_names, i) : NULL; }

/* Every list a usage text can name, and the name table it comes from. */
static const struct {
    const char *key;
    const char *(*name)(int);
} lists[] = {
    {"{dtypes}", sp_dtype_name},
    {"{strategies}", sp_strategy_name},
    {"{splits}", sp_split_name},
    {"{searches}", search_name},
    {"{measures}", measure_name},
    {"{ops}", sp_op_name},
};

void tn_help(const char *text)
{
    while (*text) {
        size_t plain = strcspn(text, "{"), i = 0;
        fwrite(text, 1, plain, stdout);
        text += plain;
        if (!*text)
            break;
        while (i < sizeof lists / sizeof *lists && strncmp(text, lists[i].key, strlen(lists[i].key)))
            i++;
        if (i == sizeof lists / sizeof *lists) { /* a brace of the text itself */
            putchar(*text++);
            continue;
        }
        char names[512];
        fputs(sp_names(lists[i].name, "|", "|", names, sizeof names), stdout);
        text += strlen(lists[i].key);
    }
}

#ifndef NPU_TUNE_VERSION /* CMake defines it as the project's version */
#define NPU_TUNE_VERSION "0"
#endif

const char *tn_version(void)
{
    return NPU_TUNE_VERSION;
}

int tn_help_all(void)
{
    printf("npu-tune %s — autotuner for matrix kernels on NPU-style accelerators\n\n",
           tn_version());
    tn_help("usage:\n"
            "  npu-tune [--quiet] [--format text|csv] [--seed N] [--wait] [--safe] SCRIPT.lua\n"
            "                                      run the script's tuning (--wait: queue behind\n"
            "                                      another run on the same journal; --safe: only\n"
            "                                      Lua's base, string, table and math; no command)\n"
            "  mpirun -n N npu-tune [...] SCRIPT.lua  the same run, its candidates measured by\n"
            "                                      ranks 1..N-1 (a build with MPI)\n"
            "  npu-tune model --target T --shape MxNxK [--batch B] [--dtype {dtypes}]\n"
            "                 [--strategy {strategies}] [--tile mxnxk] [--double-buffer on|off]\n"
            "                 [--cores C] [--split {splits}] [--micro MRxNR] [--pack on|off]\n"
            "                 [--format text|csv] [--op {ops}]\n"
            "      with --tile: explain that config; without: best tile per strategy\n"
            "  npu-tune gen --target T --shape MxNxK --strategy S --tile mxnxk\n"
            "               [--batch B] [--dtype D] [--double-buffer on|off] [--cores C]\n"
            "               [--split {splits}] [--micro MRxNR] [--pack on|off] [--op {ops}]\n"
            "               [-o FILE]\n"
            "                      the kernel of one config (--target host: C source of nt_sgemm)\n"
            "  npu-tune gen --table TABLE.csv --shape MxNxK [--batch B] [--dtype D] [--target T]\n"
            "               [--op {ops}] [-o FILE]         the kernel for a shape, from a table\n"
            "  npu-tune sim KERNEL [--format text|csv] [--trace out.json] [--check]\n"
            "               [--output C.bin]\n"
            "  npu-tune table export TABLE.csv -o FILE.h   the table as a C header\n"
            "  npu-tune lib TABLE.csv... -o DIR  the host kernels as a C library: nt_sgemm\n"
            "                                      dispatching by shape, cblas_sgemm, sgemm_\n"
            "  npu-tune plot RESULTS.csv [-o DIR]          plots of a journal (gnuplot)\n"
            "  npu-tune report JOURNAL.csv... [--format text|csv]\n"
            "                                      the model against the journals' measurements\n"
            "  npu-tune calibrate JOURNAL.csv... [-o TARGET.lua] [--target T] [--name NAME]\n"
            "                     [--fit FIGURE,...] [--holdout F] [--holdout-shapes] [--seed S]\n"
            "                     [--iterations N] [--prior SD] [--relative]\n"
            "                                      fit the model's rates to the measurements\n"
            "  npu-tune --version\n"
            "in a script: tune { search = {searches}, measure = {measures} }\n");
    return TN_OK;
}
