/* test_hostinfo.c — host detection agrees with what the machine says through
 * other channels (sysconf, sysfs, the compiler's macros). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "measure.h"

int main(void)
{
    ms_hostinfo h;
    ms_host_detect(&h);
    printf("host: %d cores, L1 %lld, L2 %lld, L3 %lld bytes, %s (%d floats, %d vector registers)%s\n",
           h.cores, (long long)h.cache[0], (long long)h.cache[1], (long long)h.cache[2], h.isa,
           h.simd_floats, h.vregs, h.bf16 ? ", bf16" : "");
    CHECK_INT(h.cores, sysconf(_SC_NPROCESSORS_ONLN));
    CHECK(h.cache[0] >= 4096 && h.cache[0] <= h.cache[1] && h.cache[1] <= h.cache[2]);
    CHECK(h.simd_floats == 4 || h.simd_floats == 8 || h.simd_floats == 16);
    CHECK(h.vregs == (h.simd_floats == 16 ? 32 : 16));
    /* The compiler's own answer, asked the plain way. */
    int avx512 = system("cc -march=native -dM -E -x c /dev/null 2>/dev/null | grep -q '__AVX512F__'") == 0;
    CHECK_INT(h.simd_floats == 16, avx512);
    /* A missing compiler leaves the portable default. */
    setenv("CC", "/nonexistent/cc", 1);
    ms_hostinfo none;
    ms_host_detect(&none);
    CHECK_INT(none.simd_floats, 4);
    CHECK_STR(none.isa, "sse");
    return CHECK_DONE();
}
