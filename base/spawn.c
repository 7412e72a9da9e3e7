/* spawn.c — starting children (posix_spawn: streams, process group, signals)
 * and reaping them by a deadline or killing their whole process group. */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base.h"

extern char **environ;

/* The file actions that give the child its streams, pipes made in p
 * (p[i][0] the caller's end); 0 or an errno. */
static int streams(const bs_spawn_opts *o, posix_spawn_file_actions_t *fa, int p[3][2])
{
    for (int i = 0; i < 3; i++) {
        int rc = 0;
        switch (o->io[i]) {
        case BS_NULL:
            rc = posix_spawn_file_actions_addopen(fa, i, "/dev/null", i ? O_WRONLY : O_RDONLY, 0);
            break;
        case BS_PIPE:
            if (i == 0)
                rc = EINVAL;
            else if (pipe2(p[i], O_CLOEXEC))
                rc = errno;
            else
                rc = posix_spawn_file_actions_adddup2(fa, p[i][1], i);
            break;
        case BS_FD:
            rc = o->fd[i] > 2 ? posix_spawn_file_actions_adddup2(fa, o->fd[i], i) : EINVAL;
            break;
        case BS_INHERIT:
            break;
        default:
            rc = EINVAL;
        }
        if (rc)
            return rc;
    }
    return 0;
}

/* Default signals, nothing blocked, and its own process group if asked. */
static void attributes(const bs_spawn_opts *o, posix_spawnattr_t *at)
{
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_init(at);
    posix_spawnattr_setsigmask(at, &none);
    posix_spawnattr_setsigdefault(at, &all);
    short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    if (o->group) {
        posix_spawnattr_setpgroup(at, 0);
        flags |= POSIX_SPAWN_SETPGROUP;
    }
    posix_spawnattr_setflags(at, flags);
}

int bs_spawn(const bs_spawn_opts *o, bs_child *c)
{
    int p[3][2] = {{-1, -1}, {-1, -1}, {-1, -1}};
    c->pid = -1;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    attributes(o, &at);
    int rc = o->argv || o->shell ? streams(o, &fa, p) : EINVAL;
    if (!rc && o->argv) {
        rc = posix_spawnp(&c->pid, o->argv[0], &fa, &at, (char *const *)o->argv, environ);
    } else if (!rc) {
        const char *argv[] = {"sh", "-c", o->shell, NULL};
        rc = posix_spawn(&c->pid, "/bin/sh", &fa, &at, (char *const *)argv, environ);
    }
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    for (int i = 0; i < 3; i++) {
        if (p[i][1] >= 0)
            close(p[i][1]);
        if (rc && p[i][0] >= 0)
            close(p[i][0]);
        c->fd[i] = rc ? -1 : p[i][0];
    }
    if (rc)
        c->pid = -1;
    return rc;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

bool bs_reap_by(pid_t pid, double deadline, int *status)
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

void bs_kill_and_reap(pid_t pid)
{
    if (kill(-pid, SIGKILL) != 0) /* not a group leader */
        kill(pid, SIGKILL);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
}
