/* child.h — private to measure: what the backends that run programs (host,
 * command) share: children in their own process groups. */
#ifndef NPU_TUNE_CHILD_H
#define NPU_TUNE_CHILD_H

#include <spawn.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Spawn attributes for every child: its own process group (so a kill reaches
 * whatever it started), default signals, nothing blocked. The caller
 * destroys them with posix_spawnattr_destroy. */
void ms_child_attr(posix_spawnattr_t *at);

/* Reaps child pid once it has exited (killing what it left in its group);
 * false, nothing reaped, if it is still running at deadline. */
bool ms_reap_by(pid_t pid, double deadline, int *status);

/* Kills child pid's whole process group and reaps it. */
void ms_kill_and_reap(pid_t pid);

#endif
