/* main.c — the npu-tune executable: dispatches to the command named by the
 * first argument, or runs a tuning script. */
#include <errno.h>
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <string.h>

#include "host.h"
#include "script.h"
#include "tuner.h"

/* The `host` target: this machine, detected when a script or command names it. */
static bool detect_host(sp_target *t, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    hs_info h;
    hs_detect(&h);
    hs_target(&h, t);
    return true;
}

#ifndef NPU_TUNE_VERSION
#define NPU_TUNE_VERSION "0"
#endif

#ifdef NPU_TUNE_MPI
extern const tn_transport nt_mpi_transport; /* mpi.c */
#endif

static int help(void)
{
    printf("npu-tune %s — autotuner for matrix kernels on NPU-style accelerators\n\n",
           NPU_TUNE_VERSION);
    tn_help("usage:\n"
            "  npu-tune [--quiet] [--format text|csv] [--seed N] [--wait] [--safe] SCRIPT.lua\n"
            "                                      run the script's tuning (--wait: queue behind\n"
            "                                      another run on the same journal; --safe: only\n"
            "                                      Lua's base, string, table and math; no command)\n"
            "  mpirun -n N npu-tune [...] SCRIPT.lua  the same run, its candidates measured by\n"
            "                                      ranks 1..N-1 (a build with MPI)\n"
            "  npu-tune model --target T --shape MxNxK [--batch B] [--dtype {dtypes}]\n"
            "                 [--strategy {strategies}] [--tile mxnxk] [--double-buffer on|off]\n"
            "                 [--cores C] [--split {splits}] [--micro MRxNR] [--format text|csv]\n"
            "                 [--op {ops}]\n"
            "      with --tile: explain that config; without: best tile per strategy\n"
            "  npu-tune gen --target T --shape MxNxK --strategy S --tile mxnxk\n"
            "               [--batch B] [--dtype D] [--double-buffer on|off] [--cores C]\n"
            "               [--split {splits}] [--micro MRxNR] [--op {ops}] [-o FILE]\n"
            "                      the kernel of one config (--target host: C source of nt_sgemm)\n"
            "  npu-tune gen --table TABLE.csv --shape MxNxK [--batch B] [--dtype D] [--target T]\n"
            "               [--op {ops}] [-o FILE]         the kernel for a shape, from a table\n"
            "  npu-tune sim KERNEL [--format text|csv] [--trace out.json] [--check]\n"
            "  npu-tune table export TABLE.csv -o FILE.h   the table as a C header\n"
            "  npu-tune lib TABLE.csv... -o DIR  the host kernels as a C library: nt_sgemm\n"
            "                                      dispatching by shape, cblas_sgemm, sgemm_\n"
            "  npu-tune plot RESULTS.csv [-o DIR]          plots of a journal (gnuplot)\n"
            "  npu-tune report JOURNAL.csv... [--format text|csv]\n"
            "                                      the model against the journals' measurements\n"
            "  npu-tune calibrate JOURNAL.csv... [-o TARGET.lua] [--target T] [--name NAME]\n"
            "                     [--fit FIGURE,...] [--holdout F] [--holdout-shapes] [--seed S]\n"
            "                     [--iterations N]\n"
            "                                      fit the model's rates to the measurements\n"
            "  npu-tune --version\n"
            "in a script: tune { search = {searches}, measure = {measures} }\n");
    return TN_OK;
}

/* The commands: `npu-tune NAME ...` runs run(argc - 1, argv + 1). */
static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} commands[] = {
    {"model", tn_model}, {"gen", tn_gen}, {"sim", tn_sim}, {"table", tn_table}, {"plot", tn_plot},
    {"report", tn_report}, {"calibrate", tn_calibrate}, {"lib", tn_lib},
};
enum { NCOMMANDS = sizeof commands / sizeof *commands };

static const char *command_name(int i) { return i >= 0 && i < NCOMMANDS ? commands[i].name : NULL; }

/* The command named by argv[1], or the script runner. */
static int dispatch(int argc, char **argv)
{
    if (argc < 2)
        return tn_usage(NULL, "", "a SCRIPT.lua or a command is required");
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0)
        return help();
    if (strcmp(cmd, "--version") == 0) {
        printf("npu-tune %s\n", NPU_TUNE_VERSION);
        return TN_OK;
    }
    for (int i = 0; i < NCOMMANDS; i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    if (cmd[0] != '-' && !strchr(cmd, '.') && !strchr(cmd, '/')) {
        char names[256];
        tn_error("unknown command '%s' (commands: %s; or give a SCRIPT.lua)", cmd,
                 sp_names(command_name, ", ", ", ", names, sizeof names));
        return TN_USAGE;
    }
    return tn_run(argc, argv);
}

/* Whatever a command printed must have reached standard output: a write
 * error (a full disk, a closed pipe) is one line and fails the command. The
 * reason is errno of the failed flush, or else of the write that failed
 * earlier (the last one to stdout: printing is what commands do last). */
static int flushed(int rc)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return rc;
    tn_error("cannot write standard output: %s", errno ? strerror(errno) : "write error");
    return rc == TN_OK ? TN_ERROR : rc;
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    ls_set_host(detect_host);
#ifdef NPU_TUNE_MPI
    tn_set_transport(&nt_mpi_transport);
#endif
    return flushed(dispatch(argc, argv));
}
