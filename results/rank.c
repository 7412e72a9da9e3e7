/* rank.c — Kendall's tau-b of two samples in O(n log n) (Knight's algorithm,
 * "A Computer Method for Calculating Kendall's Tau with Ungrouped Data", 1966). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct {
    double x, y;
} pair;

static int by_x_then_y(const void *a, const void *b)
{
    const pair *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    return (p->y > q->y) - (p->y < q->y);
}

/* Sorts y[0..n) ascending by merging runs of doubling width (tmp: n more);
 * returns the swaps an exchange sort would make: the pairs i < j with
 * y[i] > y[j] (equal values are no swap). */
static uint64_t merge_count(double *y, double *tmp, size_t n)
{
    uint64_t swaps = 0;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                if (y[j] < y[i]) {
                    swaps += mid - i; /* y[j] jumps every left value still waiting */
                    tmp[k++] = y[j++];
                } else {
                    tmp[k++] = y[i++];
                }
            }
            while (i < mid)
                tmp[k++] = y[i++];
            while (j < hi)
                tmp[k++] = y[j++];
        }
        memcpy(y, tmp, n * sizeof *y); /* the next width merges these runs */
    }
    return swaps;
}

/* The pairs tied within runs of equal values: sum of t(t-1)/2. */
static uint64_t tied(size_t run)
{
    return (uint64_t)run * (run - 1) / 2;
}

bool rs_kendall_tau_b(const double *x, const double *y, size_t n, double *tau)
{
    *tau = NAN;
    if (n < 2)
        return true;
    pair *p = malloc(n * sizeof *p);
    double *ys = malloc(2 * n * sizeof *ys);
    if (!p || !ys) {
        free(p), free(ys);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        p[i] = (pair){x[i], y[i]};
    qsort(p, n, sizeof *p, by_x_then_y);
    uint64_t n0 = tied(n), n1 = 0, n2 = 0, n3 = 0;
    for (size_t i = 0, xrun = 1, xyrun = 1; i < n; i++) {
        ys[i] = p[i].y;
        bool samex = i + 1 < n && p[i + 1].x == p[i].x;
        bool samexy = samex && p[i + 1].y == p[i].y;
        if (samexy)
            xyrun++;
        else
            n3 += tied(xyrun), xyrun = 1;
        if (samex)
            xrun++;
        else
            n1 += tied(xrun), xrun = 1;
    }
    uint64_t swaps = merge_count(ys, ys + n, n);
    for (size_t i = 0, run = 1; i < n; i++) {
        if (i + 1 < n && ys[i + 1] == ys[i])
            run++;
        else
            n2 += tied(run), run = 1;
    }
    /* concordant - discordant = (n0 - n1 - n2 + n3) - 2 swaps */
    double num = (double)n0 - (double)n1 - (double)n2 + (double)n3 - 2.0 * (double)swaps;
    double den = sqrt(((double)n0 - (double)n1) * ((double)n0 - (double)n2));
    if (den > 0)
        *tau = num / den;
    free(p), free(ys);
    return true;
}
