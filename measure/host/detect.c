/* detect.c — what the host CPU is: cores, cache sizes per level (sysfs, else
 * the C library), the vector ISA the system compiler targets with -march=native, the clock. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "base.h"
#include "host.h"

/* "48K" / "2048K" / "1M" -> bytes; 0 if unreadable. */
static int64_t size_of(const char *text)
{
    char *end;
    long long v = strtoll(text, &end, 10);
    if (v <= 0)
        return 0;
    if (*end == 'K')
        v *= 1024;
    else if (*end == 'M')
        v *= 1024 * 1024;
    else if (*end == 'G')
        v *= 1024LL * 1024 * 1024;
    return v;
}

static bool read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return ok;
}

static void caches(hs_info *h)
{
#ifdef _SC_LEVEL1_DCACHE_SIZE
    /* the C library's view (CPUID on x86), for machines without the sysfs
     * cache directory (some VMs); sysfs below wins where it exists */
    static const int names[3] = {_SC_LEVEL1_DCACHE_SIZE, _SC_LEVEL2_CACHE_SIZE,
                                 _SC_LEVEL3_CACHE_SIZE};
    for (int l = 0; l < 3; l++) {
        long v = sysconf(names[l]);
        if (v > 0)
            h->cache[l] = v;
    }
    long assoc = sysconf(_SC_LEVEL1_DCACHE_ASSOC);
    if (assoc > 0 && assoc <= 256)
        h->l1_ways = (int)assoc;
#endif
    char path[128], level[16], type[32], size[32], ways[16];
    for (int i = 0; i < 16; i++) {
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        if (!read_line(path, level, sizeof level))
            break;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if (!read_line(path, type, sizeof type) || strcmp(type, "Instruction") == 0)
            continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        int lv = atoi(level);
        int64_t bytes = read_line(path, size, sizeof size) ? size_of(size) : 0;
        if (lv >= 1 && lv <= 3 && bytes > 0)
            h->cache[lv - 1] = bytes;
        snprintf(path, sizeof path,
                 "/sys/devices/system/cpu/cpu0/cache/index%d/ways_of_associativity", i);
        int w = lv == 1 && read_line(path, ways, sizeof ways) ? atoi(ways) : 0;
        if (w > 0 && w <= 256)
            h->l1_ways = w;
    }
}

/* The compiler's view of -march=native, through its predefined macros. */
static void simd(hs_info *h)
{
    const char *cc = getenv("CC");
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s -march=native -dM -E -x c /dev/null 2>/dev/null",
             cc && *cc ? cc : "cc");
    FILE *p = popen(cmd, "r");
    if (!p)
        return;
    char line[256];
    bool avx512 = false, avx2 = false, fma = false;
    while (fgets(line, sizeof line, p)) {
        avx512 |= strncmp(line, "#define __AVX512F__ ", 20) == 0;
        avx2 |= strncmp(line, "#define __AVX2__ ", 17) == 0;
        fma |= strncmp(line, "#define __FMA__ ", 16) == 0;
        h->bf16 |= strncmp(line, "#define __AVX512BF16__ ", 23) == 0;
    }
    pclose(p);
    if (avx512) {
        h->simd_floats = 16, h->vregs = 32;
        strcpy(h->isa, "avx512");
    } else if (avx2 && fma) {
        h->simd_floats = 8, h->vregs = 16;
        strcpy(h->isa, "avx2");
    }
}

void hs_detect(hs_info *h)
{
    memset(h, 0, sizeof *h);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    h->cores = n > 0 ? (int)n : 1;
    h->cache[0] = 32 * 1024;
    h->cache[1] = 1024 * 1024;
    h->cache[2] = 8 * 1024 * 1024;
    h->simd_floats = 4;
    h->vregs = 16;
    strcpy(h->isa, "sse");
    caches(h);
    simd(h);
}

/* The clock a busy core runs at, in MHz, on x86: chunks of ADD_CHAIN dependent
 * register adds (one cycle each), the median chunk's rate; 0 elsewhere or if
 * implausible. About 3 ms. Virtual machines report their host's nominal clock
 * in /proc/cpuinfo (2096 MHz on one whose cores ran at 3.6 GHz). */
#define ADD_CHAIN (1 << 20)
#define ADD_CHUNKS 9
static double measured_mhz(void)
{
#if defined(__x86_64__)
    double rate[ADD_CHUNKS];
    for (int c = 0; c < ADD_CHUNKS; c++) {
        uint64_t x = 0, one = 1;
        double t0 = bs_now();
        for (int i = 0; i < ADD_CHAIN / 8; i++)
            __asm__ volatile("add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
                             "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0"
                             : "+r"(x)
                             : "r"(one));
        double t = bs_now() - t0;
        rate[c] = t > 0 ? ADD_CHAIN / t * 1e-6 : 0;
    }
    gsl_sort(rate, 1, ADD_CHUNKS);
    double mhz = gsl_stats_median_from_sorted_data(rate, 1, ADD_CHUNKS);
    return mhz >= 200 && mhz <= 10000 ? mhz : 0;
#else
    return 0;
#endif
}

/* The clock in MHz: measured (x86), else cpufreq's maximum, else the first
 * "cpu MHz" of /proc/cpuinfo, else 2000. */
static double clock_mhz(void)
{
    double measured = measured_mhz();
    if (measured > 0)
        return measured;
    char line[256];
    if (read_line("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", line, sizeof line)) {
        double khz = atof(line);
        if (khz > 0)
            return khz / 1000.0;
    }
    FILE *f = fopen("/proc/cpuinfo", "r");
    double mhz = 0;
    while (f && mhz <= 0 && fgets(line, sizeof line, f))
        if (strncmp(line, "cpu MHz", 7) == 0 && strchr(line, ':'))
            mhz = atof(strchr(line, ':') + 1);
    if (f)
        fclose(f);
    return mhz > 0 ? mhz : 2000.0;
}

/* The value of the first line of /proc/cpuinfo that starts with `key`, or "". */
static void cpuinfo(const char *key, char *out, size_t len)
{
    char line[256];
    FILE *f = fopen("/proc/cpuinfo", "r");
    *out = '\0';
    while (f && !*out && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, key, strlen(key)) != 0 || !colon)
            continue;
        colon += strspn(colon + 1, " \t") + 1;
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(out, len, "%s", colon);
    }
    if (f)
        fclose(f);
}

/* Bytes as K, M or G where they divide. */
static void size_text(int64_t v, char *out, size_t len)
{
    static const char unit[] = " KMG";
    int u = 0;
    while (u < 3 && v >= 1024 && v % 1024 == 0)
        v /= 1024, u++;
    snprintf(out, len, "%lld%.*s", (long long)v, u > 0, &unit[u]);
}

void hs_node_signature(const hs_info *h, char *out, size_t len)
{
    char cache[3][32], model[128], khz[32] = "", mhz[48] = "";
    for (int l = 0; l < 3; l++)
        size_text(h->cache[l], cache[l], sizeof cache[l]);
    cpuinfo("model name", model, sizeof model);
    if (read_line("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", khz, sizeof khz) &&
        atof(khz) > 0)
        snprintf(mhz, sizeof mhz, ", max %.0f MHz", atof(khz) / 1000);
    snprintf(out, len, "%s%s, %d cores, caches %s/%s/%s, %s%s", h->isa, h->bf16 ? "+bf16" : "",
             h->cores, cache[0], cache[1], cache[2], *model ? model : "unknown CPU", mhz);
}

void hs_target(const hs_info *h, sp_target *t)
{
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "host");
    t->kind = SP_CPU;
    t->cores = h->cores;
    t->clock_mhz = clock_mhz();
    sp_cpu *u = &t->cpu;
    u->simd_floats = h->simd_floats;
    u->vregs = h->vregs;
    bool wide = h->simd_floats >= 8;
    u->fma_units = wide ? 2 : 1;
    u->load_ports = 2;
    for (int l = 0; l < SP_NCACHE; l++)
        u->cache[l] = h->cache[l];
    /* Calibratable defaults: one core pulls ~64 B/cycle from L2, ~32 from
     * L3 and ~16 from memory; memory serves ~24 B/cycle to all cores; an
     * OpenMP region on two threads costs 3-3.8 us to start and join on the
     * 2-core VM measured, ~10000 cycles of its cores (3.6 GHz by
     * their FMA peak). Each load of the micro-kernel delays its FMAs by ~0.05
     * cycles: on the AVX-512 VM, of 1050 random one-thread configs of seven
     * shapes, 12x32 and 14x32 measured 2.5-3% slower than 6x64 at the same
     * FMA count, as 0.05 says (fits gave 0.03 to 0.09, loosely pinned). A
     * row of A that its L1d set cannot hold costs ~0.4 cycles a k step: of
     * 150 random configs of 512x768x3072 (A rows 12 KiB apart, each row in
     * one set of the 12-way L1d), 14x32 (3 rows over) measured 10% and 12x32
     * (1 over) 2% slower, for the model, than 6x64 and 8x48. A line double
     * buffering prefetches costs ~2 cycles, not the 1 that issues it: with
     * 1, configs with double buffering measured 2-4% slower than the model
     * said against those without, on each of nine shapes; fitted to three of
     * them, prefetch_stall came out 1.14 (95%: 0.99 to 1.31). */
    u->bw_l2 = 64;
    u->bw_l3 = 32;
    u->bw_mem = 16;
    u->bw_mem_shared = 24;
    u->fork_join = 10000;
    u->load_stall = 0.05;
    u->prefetch_stall = 1.1;
    u->l1_ways = h->l1_ways;
    u->alias_stall = h->l1_ways ? 0.4 : 0;
    /* A line packing B writes past the panels the prefetchers follow waits
     * about an L2 hit's latency, less what the core overlaps: 8 to 12
     * cycles a line on 200x1000x64, side by side (SP_CPU_PACK_STREAMS). */
    u->pack_stall = 10;
    /* A line of B the no-pack family reads in place from rows the
     * prefetchers do not follow waits on its miss: 1x3072x768 with OS
     * 1x3072xk (k >= 64, rows 12 KiB apart) took 35-52 cycles per k step
     * of a 1x32 tile (two lines) and 25-50 of a 1x16 tile (one), side by
     * side on the 2-core VM, against 7 and 4 without the stall: ~20 a
     * line, where the same B streamed (k = 4) runs 3-5 times faster. */
    u->stride_stall = 20;
}
