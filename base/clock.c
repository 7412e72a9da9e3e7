/* clock.c — the monotonic clock every deadline, timeout and rate of the
 * project is measured on. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "base.h"

double bs_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
