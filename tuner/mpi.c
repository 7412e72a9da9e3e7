/* mpi.c — the transport of runs under mpirun or srun, over MPI (built into
 * the executable when CMake finds MPI): messages of bytes on MPI_COMM_WORLD,
 * with MPI's default error handler (a failed transfer or a dead rank ends
 * the job). */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tuner.h"

/* How long a waiting rank sleeps between looks, at most: a worker's answer
 * is seen this late at worst (against milliseconds to seconds measuring). */
#define WAIT_MAX_NS 1000000L
/* Looks before it sleeps at all: answers that come at once (the model, a
 * simulator's small kernel) are taken without a sleep's delay. */
#define SPINS 200

static bool join(int *rank, int *size, char *err, size_t errlen)
{
    int provided, rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
    if (rc != MPI_SUCCESS) {
        snprintf(err, errlen, "cannot join the MPI job (MPI_Init_thread failed: %d)", rc);
        return false;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    return true;
}

static void send(int to, const void *buf, size_t len)
{
    if (len > INT_MAX) {
        fprintf(stderr, "npu-tune: a message of %zu bytes is too long for MPI\n", len);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Send(buf, (int)len, MPI_BYTE, to, 0, MPI_COMM_WORLD);
}

/* MPI_Recv keeps a CPU busy while it waits (OpenMPI polls): a rank waits
 * for a message by probing, a few times at once, then with sleeps that
 * double up to WAIT_MAX_NS, leaving the CPU to the ranks that measure. */
static size_t recv(int *from, unsigned char **buf, size_t *cap)
{
    MPI_Status st;
    int flag = 0, source = *from < 0 ? MPI_ANY_SOURCE : *from;
    long ns = 1000;
    for (int spins = 0;; spins++) {
        MPI_Iprobe(source, 0, MPI_COMM_WORLD, &flag, &st);
        if (flag)
            break;
        if (spins < SPINS)
            continue;
        struct timespec ts = {0, ns};
        nanosleep(&ts, NULL);
        ns = ns * 2 < WAIT_MAX_NS ? ns * 2 : WAIT_MAX_NS;
    }
    int count;
    MPI_Get_count(&st, MPI_BYTE, &count);
    if ((size_t)count + 1 > *cap) {
        unsigned char *b = realloc(*buf, (size_t)count + 1);
        if (!b) {
            fprintf(stderr, "npu-tune: out of memory receiving %d bytes\n", count);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        *buf = b;
        *cap = (size_t)count + 1;
    }
    MPI_Recv(*buf, count, MPI_BYTE, st.MPI_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    *from = st.MPI_SOURCE;
    return (size_t)count;
}

static void leave(void)
{
    MPI_Finalize();
}

static void abort_job(int status)
{
    MPI_Abort(MPI_COMM_WORLD, status);
    exit(status);
}

const tn_transport nt_mpi_transport = {join, send, recv, leave, abort_job};
