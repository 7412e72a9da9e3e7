/* run.c — a child run to its end: its output captured, a deadline kept, and
 * nothing it started left running. */
#define _GNU_SOURCE /* waitid's WNOWAIT */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base.h"

/* Seconds that output is still read once the child has exited (a process
 * outside its group may hold a pipe). */
#define GRACE 0.5

/* Reads what fd has into r's stdout tail (stream 1) or stderr head (2);
 * false at end of file or on an error. */
static bool drain(int fd, int stream, bs_result *r)
{
    char chunk[4096];
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0)
        return errno == EINTR || errno == EAGAIN;
    if (n == 0)
        return false;
    size_t k = (size_t)n;
    if (stream == 1) { /* chunk is smaller than out: drop the oldest bytes */
        if (r->outlen + k > sizeof r->out - 1) {
            size_t drop = r->outlen + k - (sizeof r->out - 1);
            memmove(r->out, r->out + drop, r->outlen - drop);
            r->outlen -= drop;
        }
        memcpy(r->out + r->outlen, chunk, k);
        r->outlen += k;
        r->out[r->outlen] = '\0';
    } else {
        if (k > sizeof r->err - 1 - r->errlen)
            k = sizeof r->err - 1 - r->errlen;
        memcpy(r->err + r->errlen, chunk, k);
        r->errlen += k;
        r->err[r->errlen] = '\0';
    }
    return true;
}

/* Polls the child's pipes until they close and it has exited, or until the
 * deadline (0: none; then kills it, setting r->timed_out). */
static void watch(const bs_spawn_opts *o, const bs_child *c, double deadline, bs_result *r)
{
    pid_t target = o->group ? -c->pid : c->pid;
    bool open_[3] = {false, c->fd[1] >= 0, c->fd[2] >= 0};
    double grace = 0;
    int tick = 1; /* ms between exit checks once the pipes are quiet */
    bool gone = false;
    for (;;) {
        double end = grace > 0 ? grace : deadline;
        double left = end > 0 ? end - bs_now() : 3600;
        if (left <= 0) {
            if (grace > 0) /* something outside the group still holds a pipe */
                return;
            r->timed_out = true;
            kill(target, SIGKILL);
            return;
        }
        struct pollfd live[2];
        int nlive = 0, stream[2];
        for (int i = 1; i < 3; i++)
            if (open_[i]) {
                stream[nlive] = i;
                live[nlive++] = (struct pollfd){c->fd[i], POLLIN, 0};
            }
        if (nlive == 0 && gone)
            return;
        double cap = gone ? 1000 : tick;
        int wait_ms = left * 1000 + 1 < cap ? (int)(left * 1000 + 1) : (int)cap;
        int ready = poll(live, (nfds_t)nlive, wait_ms);
        if (ready > 0) {
            tick = 1;
            for (int i = 0; i < nlive; i++)
                if (live[i].revents && !drain(live[i].fd, stream[i], r))
                    open_[stream[i]] = false;
        } else if (tick < 50)
            tick *= 2;
        if (!gone) {
            /* WNOWAIT: the leader stays a zombie, so its group id cannot be
             * reused before the group is killed. */
            siginfo_t si;
            memset(&si, 0, sizeof si);
            if (waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
                si.si_pid == c->pid) {
                gone = true;
                if (o->group)
                    kill(target, SIGKILL); /* what it left running */
                grace = bs_now() + GRACE;
            }
        }
    }
}

void bs_run(const bs_spawn_opts *o, double timeout, bs_result *r)
{
    memset(r, 0, sizeof *r);
    bs_child c;
    if ((r->spawn_error = bs_spawn(o, &c)) != 0)
        return;
    watch(o, &c, timeout > 0 ? bs_now() + timeout : 0, r);
    for (int i = 1; i < 3; i++)
        if (c.fd[i] >= 0)
            close(c.fd[i]);
    int status = 0;
    while (waitpid(c.pid, &status, 0) < 0)
        if (errno != EINTR) {
            r->spawn_error = errno;
            return;
        }
    if (!r->timed_out) {
        r->exited = WIFEXITED(status);
        r->code = r->exited ? WEXITSTATUS(status) : 0;
        r->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    }
}
