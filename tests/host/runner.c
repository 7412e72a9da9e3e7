/* runner.c — the timing runner (measure/host/runner.c) as a program: its answers
 * to its protocol for usage errors, missing objects and symbols, right and wrong kernels. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

extern char **environ;

static const char *runner, *kernels; /* argv[1], argv[2] */

/* A running runner: its pid and our end of its stdin socket. */
typedef struct {
    pid_t pid;
    FILE *io;
} session;

/* Starts the runner on args (NULL-terminated, after argv[0]); false if it cannot start. */
static bool start(session *s, const char *const *args)
{
    const char *argv[32] = {runner};
    int n = 1;
    for (; args[n - 1] && n < 31; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
        return false;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, sv[1], 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addclose(&fa, sv[0]);
    int rc = posix_spawn(&s->pid, runner, &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(sv[1]);
    s->io = rc ? NULL : fdopen(sv[0], "r+");
    if (!s->io)
        close(sv[0]);
    return s->io != NULL;
}

/* The runner's next line without its newline ("" at end of file). */
static const char *answer(session *s)
{
    static char line[1024];
    if (!fgets(line, sizeof line, s->io))
        return "";
    line[strcspn(line, "\n")] = '\0';
    return line;
}

/* Sends one command byte. */
static void send_byte(session *s, int byte)
{
    fputc(byte, s->io);
    fflush(s->io);
}

/* Ends the session; the runner's exit status (-1 if it did not exit). */
static int finish(session *s)
{
    fclose(s->io);
    int status;
    if (waitpid(s->pid, &status, 0) != s->pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

/* args answered by exactly one line, then the runner exits with code. */
static void one_line(const char *const *args, const char *expect, int code)
{
    session s;
    if (!CHECK(start(&s, args)))
        return;
    CHECK_STR(answer(&s), expect);
    CHECK_STR(answer(&s), "");
    CHECK_INT(finish(&s), code);
}

static void test_usage(void)
{
    static const char usage[] =
        "E usage: nt_runner [-cCPU] M N K BATCH fp32|bf16|fp16 SO SYMBOL [SO SYMBOL ...]";
    one_line((const char *[]){NULL}, usage, 2);
    one_line((const char *[]){"4", "4", "4", "1", "fp64", kernels, "good", NULL}, usage, 2);
    one_line((const char *[]){"4", "4", "4", "1", "fp32", kernels, NULL}, usage, 2);
    one_line((const char *[]){"4", "x", "4", "1", "fp32", kernels, "good", NULL},
             "E bad argument 'x'", 2);
    one_line((const char *[]){"4", "4", "4", "0", "fp32", kernels, "good", NULL},
             "E bad argument '0'", 2);
    one_line((const char *[]){"-c", "4", "4", "4", "1", "fp32", kernels, "good", NULL},
             "E bad argument ''", 2);
    one_line((const char *[]){"-c-1", "4", "4", "4", "1", "fp32", kernels, "good", NULL},
             "E bad argument '-1'", 2);
    one_line((const char *[]){"-c0", "4", "4", "4", "1", "fp32", kernels, NULL}, usage, 2);
}

/* An object that is not there, a symbol that is not in it: each an "E" line. */
static void test_missing(void)
{
    session s;
    if (!CHECK(start(&s, (const char *[]){"4", "5", "6", "1", "fp32", "/nonexistent/k.so", "good",
                                          kernels, "absent", NULL})))
        return;
    const char *a = answer(&s);
    CHECK(strncmp(a, "E cannot load: /nonexistent/k.so: ", 34) == 0);
    CHECK_STR(answer(&s), "E symbol 'absent' not found in the compiled kernel");
    send_byte(&s, 0);
    CHECK_STR(answer(&s), "E kernel 0 cannot be timed");
    CHECK_INT(finish(&s), 0);
}

/* A right and a wrong kernel on a batch of two problems: verdicts in argv order (the wrong
 * one's first bad element), then timed calls of the verified one only. */
static void test_verdicts(void)
{
    session s;
    if (!CHECK(start(&s, (const char *[]){"5", "7", "9", "2", "fp32", kernels, "good", kernels,
                                          "wrong", NULL})))
        return;
    CHECK_STR(answer(&s), "V");
    const char *a = answer(&s);
    CHECK(strncmp(a, "W C[4][6] of batch 0 = ", 23) == 0);
    CHECK(strstr(a, "(integer inputs, exact in fp32); 2 of 70 elements wrong") != NULL);
    for (int i = 0; i < 2; i++) {
        send_byte(&s, 0);
        double t = -1, waited = -2;
        int threads = 0;
        a = answer(&s);
        if (!CHECK(sscanf(a, "S %lf %lf %d", &t, &waited, &threads) == 3))
            fprintf(stderr, "  answer: '%s'\n", a);
        CHECK(t >= 0);
        CHECK(waited >= 0 || waited == -1);
        CHECK_INT(threads, 1);
    }
    send_byte(&s, 1);
    CHECK_STR(answer(&s), "E kernel 1 cannot be timed");
    send_byte(&s, 64);
    CHECK_STR(answer(&s), "E kernel 64 cannot be timed");
    send_byte(&s, 'q');
    CHECK_STR(answer(&s), "");
    CHECK_INT(finish(&s), 0);
}

/* A bf16 kernel gets bf16 bit patterns: right on bf16 inputs, wrong on fp16 ones. */
static void test_16(void)
{
    static const char *const dtypes[] = {"bf16", "fp16"};
    for (int d = 0; d < 2; d++) {
        session s;
        if (!CHECK(start(&s, (const char *[]){"6", "3", "40", "1", dtypes[d], kernels, "good_bf16",
                                              NULL})))
            continue;
        const char *a = answer(&s);
        if (d == 0)
            CHECK_STR(a, "V");
        else
            CHECK(strncmp(a, "W C[0][0] = ", 12) == 0);
        CHECK_INT(finish(&s), 0);
    }
}

/* A threaded kernel runs its cells on the runner's pool (nt_lib_parallel, exported to
 * the kernels it loads), on threads of the pool's own, verified and timed. */
static void test_pool(void)
{
    session s;
    if (!CHECK(start(&s, (const char *[]){"5", "4", "3", "1", "fp32", kernels, "pooled", NULL})))
        return;
    CHECK_STR(answer(&s), "V");
    for (int i = 0; i < 3; i++) {
        send_byte(&s, 0);
        double t = -1, waited;
        int threads = 0;
        const char *a = answer(&s);
        if (!CHECK(sscanf(a, "S %lf %lf %d", &t, &waited, &threads) == 3))
            fprintf(stderr, "  answer: '%s'\n", a);
        CHECK(t >= 0);
        CHECK_INT(threads, 2); /* the runner's and the pool's worker */
    }
    CHECK_INT(finish(&s), 0);
}

/* The operands a kernel gets are placed where a caller's usually are: 16 bytes past
 * a cache line. */
static void test_placement(void)
{
    session s;
    if (!CHECK(start(&s, (const char *[]){"7", "5", "3", "1", "fp32", kernels, "placed", NULL})))
        return;
    CHECK_STR(answer(&s), "V");
    CHECK_INT(finish(&s), 0);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_host_runner RUNNER KERNELS.so\n");
        return 2;
    }
    runner = argv[1];
    kernels = argv[2];
    test_usage();
    test_missing();
    test_verdicts();
    test_16();
    test_pool();
    test_placement();
    return CHECK_DONE();
}
