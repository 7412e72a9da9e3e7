/* pool.c — the threads of a threaded host kernel (NT_HOST_POOL in gemm.c): the pool of a
 * library of kernels (npu-tune lib) and of the timing runner, which times them as it runs. */

/* Written ahead of the library's blas.c (nt_lib_parallel static there) and of the
 * runner (NT_LIB_POOL_API empty: exported, for the kernels it loads). */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* clock_gettime, sched_getcpu */
#endif
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#ifndef __STDC_NO_THREADS__
#include <threads.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#ifndef NT_LIB_POOL_API
#define NT_LIB_POOL_API static
#endif

static double nt_lib_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#ifndef __STDC_NO_THREADS__
/* The pool: workers 1..n-1 of a call (the caller is 0) are the pool's own
 * threads, made at the first call that needs them. Between calls a worker
 * spins for nt_lib_spin seconds (NT_LIB_SPIN_US; a library reads
 * NPU_TUNE_GEMM_SPIN_US, blas.c; OMP_WAIT_POLICY is OpenMP's and does not apply), so that a
 * call soon after the last starts at once, then sleeps until the next. One
 * call at a time: another caller meanwhile (a program's own threads) runs its
 * cells one after another on its own thread. A child of fork has none of its
 * parent's workers: the pool starts afresh there. A worker that starts or
 * wakes on the caller's CPU moves off it (nt_lib_leave_caller), and a spinning
 * thread gives up its CPU now and then when another of the pool's threads is
 * on the same one: spinning there would only keep the other from its work. */
enum { NT_LIB_POOL_MAX = 256, NT_LIB_SPIN_US = 200 };
static struct {
    mtx_t lock;
    cnd_t wake;
    atomic_uint gen;        /* bumped for each call */
    atomic_uint alert;      /* bumped to rouse sleeping workers without a call */
    _Atomic double until;   /* roused workers spin at least until then (nt_lib_now) */
    atomic_int pending;     /* workers yet to finish this call (theirs, or nothing) */
    atomic_int sleepers;    /* workers waiting on wake */
    atomic_flag busy;       /* a call holds the pool */
    void (*fn)(void *, int);
    void *arg;
    int n;                  /* this call's threads */
    atomic_int made;        /* workers 1..made exist */
    unsigned born[NT_LIB_POOL_MAX]; /* the generation before worker i's first call */
    atomic_int pid;         /* of the process that made them */
    atomic_int cpu[NT_LIB_POOL_MAX]; /* where thread i (0: the caller) last spun; -1: asleep */
} nt_lib_pool = {.busy = ATOMIC_FLAG_INIT};
static double nt_lib_spin = NT_LIB_SPIN_US * 1e-6;
static once_flag nt_lib_pool_once = ONCE_FLAG_INIT;
static int nt_lib_pool_ok;

static void nt_lib_pool_init(void)
{
    nt_lib_pool_ok = mtx_init(&nt_lib_pool.lock, mtx_plain) == thrd_success &&
                     cnd_init(&nt_lib_pool.wake) == thrd_success;
}

static inline void nt_lib_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#endif
}

/* The CPU the calling thread runs on, -1 where that cannot be known. */
static inline int nt_lib_cpu(void)
{
#if defined(__linux__) && defined(_GNU_SOURCE)
    return sched_getcpu();
#else
    return -1;
#endif
}

/* Lets another thread on this CPU run when one of the pool's does (or it
 * cannot be known): thread `id` (0: the caller) spinning, at most `made`
 * workers. The caller also lets one run while a worker has not yet started on
 * the call (woken, or just made: Linux may have put it on this CPU). */
static void nt_lib_share(int id, int made)
{
    int cpu = nt_lib_cpu(), crowded = cpu < 0;
    atomic_store_explicit(&nt_lib_pool.cpu[id], cpu, memory_order_relaxed);
    for (int i = 0; i <= made && !crowded; i++) {
        int other = atomic_load_explicit(&nt_lib_pool.cpu[i], memory_order_relaxed);
        crowded = i != id && (other == cpu || (id == 0 && other < 0));
    }
    if (crowded)
        thrd_yield();
}

/* Whether a worker that last worked or woke at `since` still spins: for
 * nt_lib_spin seconds after, and until a rouse's deadline. */
static int nt_lib_spinning(double since)
{
    double now = nt_lib_now();
    return now - since < nt_lib_spin || now < atomic_load(&nt_lib_pool.until);
}

/* Moves a worker off the caller's CPU, where Linux starts a new thread, and
 * may wake a sleeping one, and leaves it for 4 to 32 ms before it spreads them
 * (seen on a 2-CPU VM): calls meanwhile run their cells in turn on one CPU,
 * and the start-up that the library measures once, then, is the scheduler's
 * (3.5 ms or 13 us asleep, 9 us awake, against 80 us and 2 us apart). Pinned to
 * the other CPUs for a moment, then let free again, the worker stays where it
 * went. At its start and at each wake-up. */
static void nt_lib_leave_caller(void)
{
#if defined(__linux__) && defined(_GNU_SOURCE)
    int caller = atomic_load_explicit(&nt_lib_pool.cpu[0], memory_order_relaxed);
    cpu_set_t all, others;
    if (caller < 0 || caller >= CPU_SETSIZE || sched_getcpu() != caller ||
        sched_getaffinity(0, sizeof all, &all) != 0)
        return;
    others = all;
    CPU_CLR(caller, &others);
    if (CPU_COUNT(&others) > 0 && sched_setaffinity(0, sizeof others, &others) == 0)
        sched_setaffinity(0, sizeof all, &all);
#endif
}

/* Worker `id` (passed as the pointer's value): runs its cell of each call. */
static int nt_lib_worker(void *p)
{
    int id = (int)(intptr_t)p;
    nt_lib_leave_caller();
    unsigned seen = nt_lib_pool.born[id]; /* not gen now: the call may have begun */
    for (;;) {
        double t0 = nt_lib_now();
        unsigned g;
        for (long spins = 0; (g = atomic_load(&nt_lib_pool.gen)) == seen; spins++) {
            if (spins & 255) {
                nt_lib_relax();
                continue;
            }
            if (nt_lib_spinning(t0)) { /* the clock every 256 spins */
                nt_lib_share(id, atomic_load(&nt_lib_pool.made));
                continue;
            }
            atomic_store(&nt_lib_pool.cpu[id], -1);
            mtx_lock(&nt_lib_pool.lock);
            unsigned alert = atomic_load(&nt_lib_pool.alert); /* before it counts as asleep */
            atomic_fetch_add(&nt_lib_pool.sleepers, 1);
            while (atomic_load(&nt_lib_pool.gen) == seen && atomic_load(&nt_lib_pool.alert) == alert)
                cnd_wait(&nt_lib_pool.wake, &nt_lib_pool.lock);
            atomic_fetch_sub(&nt_lib_pool.sleepers, 1);
            mtx_unlock(&nt_lib_pool.lock);
            nt_lib_leave_caller(); /* woken where the caller runs, as Linux may */
            t0 = nt_lib_now(); /* a call, or roused: spin again */
        }
        seen = g;
        atomic_store_explicit(&nt_lib_pool.cpu[id], nt_lib_cpu(), memory_order_relaxed);
        if (id < nt_lib_pool.n)
            nt_lib_pool.fn(nt_lib_pool.arg, id);
        atomic_fetch_sub(&nt_lib_pool.pending, 1); /* every worker, so none lags into the next */
    }
    return 0;
}

/* Runs fn(arg, t) for t < n (see NT_HOST_POOL in gemm.c): t = 0 on the
 * calling thread, the others on the pool's workers. */
NT_LIB_POOL_API void nt_lib_parallel(int n, void (*fn)(void *, int), void *arg)
{
    call_once(&nt_lib_pool_once, nt_lib_pool_init);
    if (n > NT_LIB_POOL_MAX || !nt_lib_pool_ok || atomic_flag_test_and_set(&nt_lib_pool.busy)) {
        for (int t = 0; t < n; t++)
            fn(arg, t);
        return;
    }
    if (nt_lib_pool.made && nt_lib_pool.pid != getpid()) { /* a child of fork */
        nt_lib_pool_init();
        atomic_store(&nt_lib_pool.sleepers, 0);
        nt_lib_pool.made = 0;
    }
    atomic_store_explicit(&nt_lib_pool.cpu[0], nt_lib_cpu(), memory_order_relaxed);
    while (nt_lib_pool.made < n - 1) {
        thrd_t w;
        nt_lib_pool.born[nt_lib_pool.made + 1] = atomic_load(&nt_lib_pool.gen);
        atomic_store(&nt_lib_pool.cpu[nt_lib_pool.made + 1], -1);
        if (thrd_create(&w, nt_lib_worker, (void *)(intptr_t)(nt_lib_pool.made + 1)) != thrd_success)
            break;
        thrd_detach(w);
        nt_lib_pool.made++;
        nt_lib_pool.pid = getpid();
    }
    int workers = n - 1 < nt_lib_pool.made ? n - 1 : nt_lib_pool.made;
    nt_lib_pool.fn = fn, nt_lib_pool.arg = arg, nt_lib_pool.n = workers + 1;
    atomic_store(&nt_lib_pool.pending, nt_lib_pool.made);
    atomic_fetch_add(&nt_lib_pool.gen, 1);
    if (atomic_load(&nt_lib_pool.sleepers)) {
        mtx_lock(&nt_lib_pool.lock);
        cnd_broadcast(&nt_lib_pool.wake);
        mtx_unlock(&nt_lib_pool.lock);
    }
    fn(arg, 0);
    for (int t = workers + 1; t < n; t++) /* workers that could not be made */
        fn(arg, t);
    for (long spins = 1; atomic_load(&nt_lib_pool.pending) > 0; spins++)
        if (spins & 255)
            nt_lib_relax();
        else
            nt_lib_share(0, nt_lib_pool.made);
    atomic_flag_clear(&nt_lib_pool.busy);
}
#endif
