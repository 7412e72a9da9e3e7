/* child.c — children in their own process groups, reaped or killed by a
 * deadline: shared by the host and command backends. */
#define _DEFAULT_SOURCE /* waitid */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "base.h"
#include "child.h"

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Spawn attributes shared by every child: its own process group (so a
 * timeout kills everything it started), default signals, nothing blocked. */
void ms_child_attr(posix_spawnattr_t *at)
{
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_init(at);
    posix_spawnattr_setsigmask(at, &none);
    posix_spawnattr_setsigdefault(at, &all);
    posix_spawnattr_setpgroup(at, 0);
    posix_spawnattr_setflags(at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                     POSIX_SPAWN_SETSIGDEF);
}

/* Reaps child pid once it has exited, first killing whatever it left in its
 * process group (the leader stays a zombie until then, so the group id
 * cannot be reused). Waits until deadline; false (nothing reaped) if the
 * child is still running then. */
bool ms_reap_by(pid_t pid, double deadline, int *status)
{
    for (int tick = 1;; tick = tick < 32 ? tick * 2 : tick) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        int rc = waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT);
        if ((rc == 0 && si.si_pid == pid) || (rc < 0 && errno == ECHILD))
            break;
        if (bs_now() >= deadline)
            return false;
        sleep_ms(tick);
    }
    kill(-pid, SIGKILL);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
    return true;
}

/* Kills child pid's whole process group and reaps it. */
void ms_kill_and_reap(pid_t pid)
{
    kill(-pid, SIGKILL);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
}

