/* info.c — host detection agrees with what the machine says through
 * other channels (sysconf, sysfs, the compiler's macros); the lost-time probe
 * sees interruptions planted with a timer. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "host.h"

/* The planted interruption: a SIGALRM handler that spins PLANT_US. */
#define PLANT_US 300
static volatile sig_atomic_t planted;

static void on_alarm(int sig)
{
    (void)sig;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < PLANT_US);
    planted = planted + 1;
}

/* The probe on its own, then with a timer taking PLANT_US of every 2 ms (15%
 * of the time) from this thread: it must see at least most of that. */
static void check_lost(void)
{
    hs_lost quiet, busy;
    CHECK(hs_measure_lost(0.1, &quiet));
    printf("lost: %.2f%% of the time, %.0f gaps/s, median %.1f us\n", 100 * quiet.share,
           quiet.per_second, quiet.median_us);
    CHECK(quiet.share >= 0 && quiet.share < 1 && quiet.per_second >= 0);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
    struct itimerval every = {{0, 2000}, {0, 2000}}, off = {{0, 0}, {0, 0}};
    CHECK(setitimer(ITIMER_REAL, &every, NULL) == 0);
    CHECK(hs_measure_lost(0.2, &busy));
    CHECK(setitimer(ITIMER_REAL, &off, NULL) == 0);
    printf("lost with %d planted %d us interruptions: %.2f%%, %.0f gaps/s, median %.1f us\n",
           (int)planted, PLANT_US, 100 * busy.share, busy.per_second, busy.median_us);
    CHECK(planted >= 20);
    CHECK(busy.share >= 0.10 && busy.share < 1);
    CHECK(busy.per_second >= 100);
}

int main(void)
{
    check_lost();
    hs_info h;
    hs_detect(&h);
    printf("host: %d cores, L1 %lld, L2 %lld, L3 %lld bytes, %s (%d floats, %d vector registers)%s\n",
           h.cores, (long long)h.cache[0], (long long)h.cache[1], (long long)h.cache[2], h.isa,
           h.simd_floats, h.vregs, h.bf16 ? ", bf16" : "");
    CHECK_INT(h.cores, sysconf(_SC_NPROCESSORS_ONLN));
    /* The clock: measured on x86, read elsewhere; a real clock either way. */
    sp_target t;
    hs_target(&h, &t);
    printf("clock: %.0f MHz\n", t.clock_mhz);
    CHECK(t.clock_mhz >= 200 && t.clock_mhz <= 10000);
    CHECK(h.cache[0] >= 4096 && h.cache[0] <= h.cache[1] && h.cache[1] <= h.cache[2]);
    CHECK(h.simd_floats == 4 || h.simd_floats == 8 || h.simd_floats == 16);
    CHECK(h.vregs == (h.simd_floats == 16 ? 32 : 16));
    /* The compiler's own answer, asked the plain way. */
    int avx512 = system("cc -march=native -dM -E -x c /dev/null 2>/dev/null | grep -q '__AVX512F__'") == 0;
    CHECK_INT(h.simd_floats == 16, avx512);
    /* A missing compiler leaves the portable default. */
    setenv("CC", "/nonexistent/cc", 1);
    hs_info none;
    hs_detect(&none);
    CHECK_INT(none.simd_floats, 4);
    CHECK_STR(none.isa, "sse");
    /* The node's signature: what it detected, the same each time; another
     * ISA makes another. */
    char sig[320], again[320], other[320], want[96];
    hs_node_signature(&h, sig, sizeof sig);
    hs_node_signature(&h, again, sizeof again);
    printf("node: %s\n", sig);
    CHECK_STR(sig, again);
    snprintf(want, sizeof want, "%s%s, %d cores, caches ", h.isa, h.bf16 ? "+bf16" : "", h.cores);
    CHECK_PREFIX(sig, want);
    none.cores = h.cores;
    memcpy(none.cache, h.cache, sizeof none.cache);
    hs_node_signature(&none, other, sizeof other);
    CHECK(strcmp(sig, other) != 0 || strcmp(h.isa, "sse") == 0);
    none.cache[0] = 48 * 1024, none.cache[1] = 1280 * 1024, none.cache[2] = 3LL << 30;
    hs_node_signature(&none, other, sizeof other);
    snprintf(want, sizeof want, "sse, %d cores, caches 48K/1280K/3G, ", h.cores);
    CHECK_PREFIX(other, want);
    return CHECK_DONE();
}
