/* launch.c — whether a launcher (mpirun, srun) started this process as one of
 * the ranks of a job, and joining that job through the installed transport
 * (a build without MPI has none, and refuses). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "workers.h"

static const tn_transport *transport;

void tn_set_transport(const tn_transport *t)
{
    transport = t;
}

/* The positive integer in environment variable `name`, or 0. */
static long env_count(const char *name)
{
    const char *s = getenv(name);
    char *end;
    if (!s || !*s)
        return 0;
    long v = strtol(s, &end, 10);
    return *end || v < 0 || v > INT_MAX ? 0 : v;
}

/* Whether this process is one of several ranks of a job, as the launcher's
 * environment says: the job's size (OpenMPI's mpirun: OMPI_COMM_WORLD_SIZE;
 * MPICH's and Slurm's PMI: PMI_SIZE) when one is set, else a rank (PMIx's,
 * which Slurm's srun --mpi=pmix sets): above 0, several; 0, not known
 * (*by: the variable that says so). */
typedef enum { ALONE, SEVERAL, UNKNOWN } launch;
static launch launched(const char **by)
{
    static const char *const sizes[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
    static const char *const ranks[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        if (getenv(sizes[i]))
            return *by = sizes[i], env_count(sizes[i]) > 1 ? SEVERAL : ALONE;
    for (size_t i = 0; i < sizeof ranks / sizeof *ranks; i++)
        if (getenv(ranks[i]))
            return *by = ranks[i], env_count(ranks[i]) > 0 ? SEVERAL : UNKNOWN;
    return ALONE;
}

bool tn_join(tn_workers **w, int *rc)
{
    *w = NULL;
    const char *by = NULL;
    launch l = launched(&by);
    if (l == ALONE || (l == UNKNOWN && !transport))
        return true;
    if (!transport) {
        tn_error("this npu-tune was built without MPI, but a launcher started it as one of "
                 "several ranks (%s=%s): rebuild it with MPI (Debian: libopenmpi-dev) or run it "
                 "alone",
                 by, getenv(by));
        *rc = TN_ERROR;
        return false;
    }
    return tn_workers_join(transport, w, rc);
}
