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

#ifdef NPU_TUNE_MPI
extern const tn_transport nt_mpi_transport; /* mpi.c */
#endif

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
        return tn_help_all();
    if (strcmp(cmd, "--version") == 0) {
        printf("npu-tune %s\n", tn_version());
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
