/* tuner.h — the npu-tune commands: tuning a script's problems and explaining
 * the model. Each returns the process exit code (0 ok, 1 error, 2 usage). */
#ifndef NPU_TUNE_TUNER_H
#define NPU_TUNE_TUNER_H

#include <stdbool.h>
#include <stddef.h>

/* The interface: exported, where the library's other symbols are hidden (cmake/library.cmake). */
#pragma GCC visibility push(default)

enum { TN_OK = 0, TN_ERROR = 1, TN_USAGE = 2, TN_HELP = -1 };

/* npu-tune [--quiet] [--wait] SCRIPT.lua: enumerate, rank, measure, journal, table. */
int tn_run(int argc, char **argv);

/* npu-tune model --target T --shape MxNxK [...]: explain one config, or the
 * best tile per strategy by load volume. */
int tn_model(int argc, char **argv);

/* npu-tune table export TABLE.csv -o FILE.h: the table as a C header. */
int tn_table(int argc, char **argv);

/* npu-tune plot RESULTS.csv [-o DIR]: the pictures of a journal. */
int tn_plot(int argc, char **argv);

/* npu-tune report JOURNAL.csv... [--format text|csv]: the model against the
 * journals' measurements. */
int tn_report(int argc, char **argv);

/* npu-tune calibrate JOURNAL.csv... [-o TARGET.lua] [...]: the model's
 * figures fitted to the journals' measurements. */
int tn_calibrate(int argc, char **argv);

/* npu-tune gen ...: the kernel of one config, or of a shape from a table. */
int tn_gen(int argc, char **argv);

/* npu-tune lib TABLE.csv... -o DIR: the tables' host kernels as a C library. */
int tn_lib(int argc, char **argv);

/* npu-tune sim KERNEL [--format text|csv] [--trace out.json] [--check]. */
int tn_sim(int argc, char **argv);

/* How the processes of a job that a launcher started (mpirun, srun) talk to
 * each other: rank 0 tunes, the other ranks measure what it hands them
 * (docs/guide.md, "Running on many machines"). The executable installs one
 * when it was built with MPI (tuner/mpi.c); the library itself has no MPI.
 * Messages are byte strings, delivered in order between two ranks; a rank
 * that dies or a failed transfer ends the whole job (MPI's default error
 * handler), so none of these returns a failure once joined. */
typedef struct {
    /* Joins the job: this process's rank and the job's size; false with a
     * one-line reason in err. */
    bool (*join)(int *rank, int *size, char *err, size_t errlen);
    /* Sends len bytes to rank `to`. */
    void (*send)(int to, const void *buf, size_t len);
    /* Waits, without keeping a CPU busy, for the next message from rank
     * *from (-1: any rank) and sets *from to its sender; its bytes are in
     * *buf (grown as needed; *cap its size). Returns its length. */
    size_t (*recv)(int *from, unsigned char **buf, size_t *cap);
    /* Leaves the job; every rank calls it once, last. */
    void (*leave)(void);
    /* Ends the whole job at once with this exit status (a message no rank
     * of this build sends: ranks of different builds). */
    void (*abort)(int status);
} tn_transport;

/* Installs the transport of runs started by a launcher; without one (a
 * build without MPI) such a run refuses to start. */
void tn_set_transport(const tn_transport *t);

/* Prints "npu-tune: <message>" on stderr (one line). */
void tn_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints a usage text on stdout with its name lists filled in from the
 * registries: {dtypes}, {strategies}, {splits}, ... become "A|B|C". */
void tn_help(const char *text);

/* `npu-tune --help`: every command's usage on stdout; TN_OK. */
int tn_help_all(void);

/* npu-tune's version ("0.1.0"), as --version prints it and journals record it. */
const char *tn_version(void);

/* A usage error or a request for help. With why: one line "npu-tune: CMD:
 * WHY (see 'npu-tune CMD --help')" on stderr, TN_USAGE (cmd NULL: the script
 * runner). Without: `text` on stdout, TN_OK (main checks that standard
 * output took it). */
int tn_usage(const char *cmd, const char *text, const char *why);

/* Parses "AxBxC" (n numbers, each 1..2^20) into v; false if malformed. */
int tn_parse_dims(const char *s, long long *v, int n);

/* A config on the command line: --target --shape [--batch --dtype --strategy
 * --tile --double-buffer --cores --split], plus --format / -o if allowed. */
#include "space.h"

enum { TN_OPT_FORMAT = 1, TN_OPT_OUTPUT = 2, TN_OPT_TABLE = 4 };

typedef struct {
    sp_target t;
    sp_problem p;
    sp_config c;
    int strategy;    /* -1 when --strategy was not given */
    int have_tile;
    int csv;
    const char *output;
    const char *table;  /* --table: take the config from a tuning table */
    int have_target;    /* --target given (else the table names it) */
    int have_dtype;     /* --dtype given (else the target's own: fp16 NPU, fp32 CPU) */
    int have_micro;     /* --micro given (CPU targets; else the target's default) */
    int have_knobs;     /* --double-buffer, --cores, --split or --micro given */
} tn_request;

/* Completes a request once its target is known: the target's own dtype and
 * (CPU) default micro-tile where none was given. False with a reason in why
 * if the target does not compute the dtype or --micro was given for an NPU. */
bool tn_request_target(tn_request *r, char *why, size_t len);

/* Parses argv (argv[0] = the command name `cmd`) into r; on a usage error
 * prints one line (tn_usage) and returns TN_USAGE; for --help prints `usage`
 * on stdout and returns TN_HELP, which the caller returns as its exit 0. */
int tn_parse_request(int argc, char **argv, const char *cmd, const char *usage, int extras,
                     tn_request *r);

#pragma GCC visibility pop

#endif
