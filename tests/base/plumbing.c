/* plumbing.c — the base library: directories made whole, children run with
 * deadlines (groups killed, output kept, status told, signals and descriptors
 * clean), whole files (links, FIFOs, stale temporaries), CSV lines, the hash. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base.h"
#include "check.h"
#include "files.h"
#include "procs.h"

static char dir[] = "/tmp/npu-tune-base-XXXXXX";
static char err[1024];

static const char *at(const char *name)
{
    return path_in(dir, name);
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* mkdir -p: every level made, existing ones kept; a file or a dangling link
 * in the way is named. */
static void dirs(void)
{
    CHECK(bs_mkdirs(at("d/a//b/c/"), err, sizeof err));
    CHECK(is_dir(at("d/a/b/c")));
    CHECK(bs_mkdirs(at("d/a/b"), err, sizeof err)); /* already there */
    CHECK(bs_make_parents(at("p/q/file.csv"), err, sizeof err));
    CHECK(is_dir(at("p/q")));
    CHECK(access(at("p/q/file.csv"), F_OK) != 0);
    CHECK(bs_make_parents("relative-file", err, sizeof err)); /* no directory part */
    CHECK(access("relative-file", F_OK) != 0);

    put_mode(at("plain"), "x", "w");
    char want[1200];
    CHECK(!bs_mkdirs(at("plain/sub"), err, sizeof err));
    snprintf(want, sizeof want, "cannot create directory '%s': Not a directory", at("plain"));
    CHECK_STR(err, want);
    CHECK(!bs_mkdirs(at("plain"), err, sizeof err));
    CHECK_STR(err, want);
    CHECK(!bs_make_parents(at("plain/x/y.csv"), err, sizeof err));
    CHECK_STR(err, want);

    CHECK(symlink("nowhere", at("dangling")) == 0);
    CHECK(!bs_make_parents(at("dangling/y.csv"), err, sizeof err));
    snprintf(want, sizeof want, "cannot create directory '%s': Not a directory", at("dangling"));
    CHECK_STR(err, want);

    if (geteuid() != 0) { /* root writes anywhere */
        CHECK(bs_mkdirs(at("locked"), err, sizeof err));
        CHECK(chmod(at("locked"), 0500) == 0);
        CHECK(!bs_mkdirs(at("locked/in/deeper"), err, sizeof err));
        snprintf(want, sizeof want, "cannot create directory '%s': Permission denied",
                 at("locked/in"));
        CHECK_STR(err, want);
        chmod(at("locked"), 0700);
    }
}

/* ---- children ---- */

static void run_sh(const char *cmd, bool group, double timeout, bs_result *r)
{
    bs_spawn_opts o = {.shell = cmd, .io = {BS_NULL, BS_PIPE, BS_PIPE}, .group = group};
    bs_run(&o, timeout, r);
}

/* The first number of a file a child wrote (its pid), or 0. */
static long pid_in(const char *path)
{
    long pid = 0;
    FILE *f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%ld", &pid) != 1)
            pid = 0;
        fclose(f);
    }
    return pid;
}

/* Exit codes, signals, the tail of stdout and the head of stderr. */
static void statuses(bs_result *r)
{
    run_sh("echo out; echo err >&2; exit 3", true, 0, r);
    CHECK(!r->spawn_error && !r->timed_out && r->exited);
    CHECK_INT(r->code, 3);
    CHECK_STR(r->out, "out\n");
    CHECK_STR(r->err, "err\n");

    run_sh("kill -SEGV $$", true, 10, r);
    CHECK(!r->exited && !r->timed_out);
    CHECK_INT(r->signal, SIGSEGV);

    /* 20000 a's then END: the last bytes kept; stderr: the first kept */
    run_sh("head -c 20000 /dev/zero | tr '\\0' a; echo END; "
           "echo first >&2; head -c 10000 /dev/zero | tr '\\0' b >&2",
           true, 0, r);
    CHECK_INT(r->outlen, sizeof r->out - 1);
    CHECK_INT(strlen(r->out), sizeof r->out - 1);
    CHECK_STR(r->out + r->outlen - 5, "aEND\n");
    CHECK_INT(r->errlen, sizeof r->err - 1);
    CHECK_PREFIX(r->err, "first\nbbb");

    const char *argv[] = {"/nonexistent/program", NULL};
    bs_spawn_opts o = {.argv = argv};
    bs_run(&o, 1, r);
    CHECK_INT(r->spawn_error, ENOENT);
    bs_child c;
    CHECK_INT(bs_spawn(&o, &c), ENOENT);
    CHECK_INT(c.pid, -1);
    CHECK_INT(c.fd[1], -1);
    CHECK_INT(c.fd[2], -1);
    bs_spawn_opts stdin_pipe = {.shell = "true", .io = {BS_PIPE}};
    CHECK_INT(bs_spawn(&stdin_pipe, &c), EINVAL);
}

/* A deadline kills the whole group; a group's leftovers are killed once its
 * leader exits; a child outside a group is only waited for a moment. */
static void groups(bs_result *r)
{
    char cmd[1200];
    const char *pidfile = at("pid");
    snprintf(cmd, sizeof cmd, "sleep 30 & echo $! > '%s'; sleep 30", pidfile);
    run_sh(cmd, true, 0.2, r);
    CHECK(r->timed_out && !r->exited);
    CHECK(process_gone(pid_in(pidfile)));

    /* the grandchild holds stdout open; the leader's exit ends the run */
    snprintf(cmd, sizeof cmd, "sleep 30 & echo $! > '%s'; echo done", pidfile);
    run_sh(cmd, true, 60, r);
    CHECK(!r->timed_out && r->exited);
    CHECK_INT(r->code, 0);
    CHECK_STR(r->out, "done\n");
    CHECK(process_gone(pid_in(pidfile)));

    /* without a group the grandchild lives on; its pipe is let go */
    run_sh(cmd, false, 60, r);
    CHECK(!r->timed_out && r->exited);
    CHECK_INT(r->code, 0);
    CHECK_STR(r->out, "done\n");
    long left = pid_in(pidfile);
    CHECK(left > 0 && kill((pid_t)left, 0) == 0);
    if (left > 0)
        kill((pid_t)left, SIGKILL);
    CHECK(process_gone(left));

    /* reaping by a deadline, or killing */
    const char *sleeper[] = {"sleep", "30", NULL};
    bs_spawn_opts o = {.argv = sleeper, .group = true};
    bs_child c;
    int status = 0;
    CHECK_INT(bs_spawn(&o, &c), 0);
    CHECK(!bs_reap_by(c.pid, bs_now() + 0.05, &status));
    bs_kill_and_reap(c.pid);
    CHECK(process_gone(c.pid));
    const char *quick[] = {"sh", "-c", "exit 7", NULL};
    o.argv = quick;
    CHECK_INT(bs_spawn(&o, &c), 0);
    CHECK(bs_reap_by(c.pid, bs_now() + 60, &status));
    CHECK(WIFEXITED(status));
    CHECK_INT(WEXITSTATUS(status), 7);
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
    (void)sig;
    alarms = alarms + 1;
}

/* stdin from a descriptor, stdout inherited, signals the caller ignores or
 * blocks back to default, a clock signal interrupting the wait. */
static void streams(bs_result *r)
{
    int p[2];
    CHECK(pipe(p) == 0);
    CHECK_INT(write(p[1], "hello", 5), 5);
    close(p[1]);
    const char *cat[] = {"cat", NULL};
    bs_spawn_opts o = {.argv = cat, .io = {BS_FD, BS_PIPE, BS_NULL}, .fd = {p[0]}};
    bs_run(&o, 10, r);
    close(p[0]);
    CHECK(r->exited);
    CHECK_INT(r->code, 0);
    CHECK_STR(r->out, "hello");

    fflush(stdout);
    int saved = dup(1), fd = open(at("inherited"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(saved >= 0 && fd >= 0 && dup2(fd, 1) == 1);
    close(fd);
    const char *echo[] = {"echo", "inherited", NULL};
    bs_spawn_opts same = {.argv = echo, .io = {BS_NULL, BS_INHERIT, BS_NULL}};
    bs_run(&same, 10, r);
    dup2(saved, 1);
    close(saved);
    CHECK_STR(slurp(at("inherited")), "inherited\n");

    /* SIGINT ignored and SIGTERM blocked here: the child gets both back */
    signal(SIGINT, SIG_IGN);
    sigset_t term, old;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    sigprocmask(SIG_BLOCK, &term, &old);
    run_sh("kill -INT $$; echo survived", true, 10, r);
    CHECK(!r->exited);
    CHECK_INT(r->signal, SIGINT);
    run_sh("kill -TERM $$; echo survived", true, 10, r);
    CHECK(!r->exited);
    CHECK_INT(r->signal, SIGTERM);
    sigprocmask(SIG_SETMASK, &old, NULL);
    signal(SIGINT, SIG_DFL);

    /* a timer signal every millisecond interrupts poll, read and waitpid */
    struct sigaction sa = {.sa_handler = on_alarm}; /* no SA_RESTART */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval every = {{0, 1000}, {0, 1000}}, off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &every, NULL);
    run_sh("sleep 0.2; echo slept; exit 4", true, 60, r);
    setitimer(ITIMER_REAL, &off, NULL);
    CHECK(alarms > 0);
    CHECK(!r->spawn_error && !r->timed_out && r->exited);
    CHECK_INT(r->code, 4);
    CHECK_STR(r->out, "slept\n");
}

/* Children started from several threads at once inherit no descriptor of
 * another's pipes: each lists the same open descriptors as one started alone. */
static void threads(void)
{
    bs_result *r = malloc(sizeof *r);
    const char *list = "ls /proc/$$/fd";
    run_sh(list, true, 10, r);
    char *alone = strdup(r->out);
    CHECK(r->exited);
    CHECK_INT(r->code, 0);
    CHECK(alone && *alone);
    free(r);
    int differ = 0;
#pragma omp parallel for num_threads(8) schedule(dynamic, 1) reduction(+ : differ)
    for (int i = 0; i < 64; i++) {
        bs_result *t = malloc(sizeof *t);
        run_sh(i % 2 ? list : "sleep 0.05", true, 60, t);
        differ += !t->exited || t->code != 0 || (i % 2 && strcmp(t->out, alone) != 0);
        free(t);
    }
    CHECK_INT(differ, 0);
    free(alone);
}

/* ---- whole files ---- */

static bool write_text(FILE *f, void *ctx)
{
    return fputs(ctx, f) >= 0;
}

static bool write_half(FILE *f, void *ctx)
{
    fputs(ctx, f);
    return false; /* a writer that fails midway */
}

/* Whether a temporary file ("*.tmp.*") is left in dir/w. */
static bool leftover_tmp(void)
{
    return any_file(at("w/*.tmp.*"));
}

/* A write lands where the path leads and keeps what the path is: through a
 * symlink into its file (the link stays), into a FIFO without replacing it;
 * a directory is refused; the mode stays; a failed write leaves the old file. */
static void whole_files(void)
{
    const char *real = at("w/real.csv"), *link = at("w/link.csv"), *fifo = at("w/fifo");
    CHECK(bs_write_atomic(real, write_text, "old\n", err, sizeof err)); /* makes w/ */
    CHECK_STR(slurp(real), "old\n");
    CHECK(symlink("real.csv", link) == 0);
    CHECK(bs_write_atomic(link, write_text, "new\n", err, sizeof err));
    struct stat st;
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    CHECK_STR(slurp(real), "new\n");

    CHECK(mkfifo(fifo, 0600) == 0);
    int fd = open(fifo, O_RDWR | O_NONBLOCK); /* both ends: the write does not block */
    CHECK(fd >= 0);
    CHECK(bs_write_atomic(fifo, write_text, "through\n", err, sizeof err));
    CHECK(stat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
    char buf[32] = "";
    CHECK(fd >= 0 && read(fd, buf, sizeof buf - 1) == 8);
    CHECK_STR(buf, "through\n");
    if (fd >= 0)
        close(fd);

    CHECK(!bs_write_atomic(at("w"), write_text, "x", err, sizeof err));
    CHECK_HAS(err, "Is a directory");
    CHECK(chmod(real, 0640) == 0);
    CHECK(!bs_write_atomic(real, write_half, "half", err, sizeof err));
    char want[1200];
    snprintf(want, sizeof want, "cannot write '%s': write failed", real);
    CHECK_STR(err, want);
    CHECK_STR(slurp(real), "new\n");
    CHECK(bs_write_atomic(real, write_text, "kept mode\n", err, sizeof err));
    CHECK(stat(real, &st) == 0 && (st.st_mode & 0777) == 0640);
    CHECK(!leftover_tmp());

    /* A writer killed before its rename leaves its temporary; the next write
     * of the path removes it, and leaves a live writer's alone. */
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    CHECK(child > 0 && waitpid(child, NULL, 0) == child); /* a pid no process has now */
    char dead[512], live[512], other[512];
    snprintf(dead, sizeof dead, "%s.tmp.%ld.0", real, (long)child);
    snprintf(live, sizeof live, "%s.tmp.1.0", real); /* init's */
    snprintf(other, sizeof other, "%s.tmp.%ld.0", at("w/other.csv"), (long)child);
    put_mode(dead, "torn", "w");
    put_mode(live, "busy", "w");
    put_mode(other, "not this path's", "w");
    CHECK(bs_write_atomic(real, write_text, "newer\n", err, sizeof err));
    CHECK_STR(slurp(real), "newer\n");
    CHECK(access(dead, F_OK) != 0);
    CHECK(access(live, F_OK) == 0 && access(other, F_OK) == 0);
    unlink(live), unlink(other);
    CHECK(!leftover_tmp());

    /* read whole: more than the first buffer, and an empty file */
    char *big = malloc(10001), *got = NULL;
    size_t len = 0;
    memset(big, 'x', 10000);
    big[10000] = '\0';
    CHECK(bs_write_atomic(real, write_text, big, err, sizeof err));
    fd = open(real, O_RDONLY);
    CHECK(fd >= 0 && bs_read_all(fd, &got, &len));
    CHECK_INT(len, 10000);
    CHECK(got && strcmp(got, big) == 0);
    free(got);
    close(fd);
    fd = open("/dev/null", O_RDONLY);
    CHECK(bs_read_all(fd, &got, &len) && len == 0 && got[0] == '\0');
    free(got);
    close(fd);
    CHECK(!bs_read_all(-1, &got, &len));
    free(big);
}

/* ---- CSV ---- */

/* Splitting in place: empty fields kept, extra fields counted. */
static void csv_split(void)
{
    char *f[4];
    char empty[] = "";
    CHECK_INT(bs_csv_split(empty, f, 4), 1);
    CHECK_STR(f[0], "");
    char edges[] = ",a,,b,";
    CHECK_INT(bs_csv_split(edges, f, 4), 5);
    CHECK_STR(f[0], "");
    CHECK_STR(f[1], "a");
    CHECK_STR(f[2], "");
    CHECK_STR(f[3], "b");
    char spaces[] = " x , y\r";
    CHECK_INT(bs_csv_split(spaces, f, 4), 2);
    CHECK_STR(f[0], " x ");
    CHECK_STR(f[1], " y\r");
    char quoted[] = "\"a,b\",c"; /* no quoting: a quote is a character */
    CHECK_INT(bs_csv_split(quoted, f, 4), 3);
    CHECK_STR(f[0], "\"a");
}

/* Joining like snprintf, and the text a field may hold. */
static void csv_join(void)
{
    const char *f[] = {"a", NULL, "ccc"};
    char buf[16];
    CHECK_INT(bs_csv_join(buf, sizeof buf, f, 3), 7);
    CHECK_STR(buf, "a,,ccc\n");
    char small[5];
    CHECK_INT(bs_csv_join(small, sizeof small, f, 3), 7);
    CHECK_STR(small, "a,,c");
    CHECK_INT(bs_csv_join(NULL, 0, f, 3), 7);
    CHECK_INT(bs_csv_join(buf, sizeof buf, f, 0), 1);
    CHECK_STR(buf, "\n");

    CHECK(bs_csv_safe("ascend910"));
    CHECK(bs_csv_safe("a b;c"));
    CHECK(!bs_csv_safe(""));
    CHECK(!bs_csv_safe(NULL));
    CHECK(!bs_csv_safe("a,b"));
    CHECK(!bs_csv_safe("say \"x\""));
    CHECK(!bs_csv_safe("two\nlines"));
    CHECK(!bs_csv_safe("cr\r"));
}

/* The shortest text that reads back as the same double. */
static void csv_numbers(void)
{
    static const struct {
        double v;
        const char *text;
    } cases[] = {{0, "0"},           {46080, "46080"},    {1234.5, "1234.5"},
                 {0.1, "0.1"},       {1e20, "100000000000000000000"},
                 {1e21, "1e+21"},    {1.0 / 3, "0.3333333333333333"}, {0.1 + 0.2, "0.30000000000000004"},
                 {-2.5e-7, "-2.5e-07"}, {1.5e-3, "0.0015"}};
    char buf[40];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        bs_csv_number(buf, sizeof buf, cases[i].v);
        CHECK_STR(buf, cases[i].text);
        CHECK_DBL(strtod(buf, NULL), cases[i].v);
    }
    bs_csv_number(buf, sizeof buf, NAN);
    CHECK_STR(buf, "");
    bs_csv_number(buf, sizeof buf, -INFINITY);
    CHECK_STR(buf, "");
}

/* FNV-1a 64 of the published test strings, and bs_fnv continuing a hash. */
static void hashes(void)
{
    char h[17];
    bs_hash_hex("", 0, h);
    CHECK_STR(h, "cbf29ce484222325");
    bs_hash_hex("a", 1, h);
    CHECK_STR(h, "af63dc4c8601ec8c");
    bs_hash_hex("foobar", 6, h);
    CHECK_STR(h, "85944171f73967e8");
    CHECK(bs_fnv(bs_fnv(BS_FNV_BASIS, "foo", 3), "bar", 3) == 0x85944171f73967e8ULL);
}

/* A growing string: appended bytes and formatted text, NUL-terminated,
 * across many reallocations. */
static void growing(void)
{
    bs_buf b = {0};
    bs_buf_add(&b, "ab\0c", 4); /* bytes, a NUL among them */
    CHECK_INT(b.len, 4);
    CHECK(b.s && memcmp(b.s, "ab\0c", 5) == 0);
    for (int i = 0; i < 1000; i++)
        bs_buf_printf(&b, "%d,", i % 10);
    CHECK_INT(b.len, 4 + 2000);
    CHECK(!b.oom && b.s[b.len] == '\0' && strncmp(b.s + 4, "0,1,2,", 6) == 0);
    free(b.s);
    bs_buf e = {0};
    bs_buf_printf(&e, "%s", "");
    CHECK(!e.oom && e.len == 0 && e.s && e.s[0] == '\0');
    free(e.s);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror(dir);
        return 1;
    }
    dirs();
    bs_result *r = malloc(sizeof *r);
    statuses(r);
    groups(r);
    streams(r);
    free(r);
    threads();
    whole_files();
    csv_split();
    csv_join();
    csv_numbers();
    hashes();
    growing();
    remove_tree(dir);
    return CHECK_DONE();
}
