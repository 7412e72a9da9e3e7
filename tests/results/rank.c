/* rank.c — Kendall's tau-b of results/rank.c against its definition, pair by
 * pair, on hand-made samples and on random ones full of ties (white-box:
 * results/internal.h). */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "internal.h"

/* tau-b by its definition: every pair once, O(n^2). */
static double tau_by_pairs(const double *x, const double *y, size_t n)
{
    long long cd = 0, pairs = 0, tx = 0, ty = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            int sx = (x[i] > x[j]) - (x[i] < x[j]), sy = (y[i] > y[j]) - (y[i] < y[j]);
            cd += sx * sy;
            pairs++;
            tx += sx == 0;
            ty += sy == 0;
        }
    double den = sqrt(((double)pairs - (double)tx) * ((double)pairs - (double)ty));
    return den > 0 ? (double)cd / den : NAN;
}

static double tau(const double *x, const double *y, size_t n)
{
    double t = 0;
    CHECK(rs_kendall_tau_b(x, y, n, &t));
    return t;
}

static void known(void)
{
    const double up[] = {1, 2, 3, 4, 5}, down[] = {50, 40, 30, 20, 10};
    CHECK_DBL(tau(up, up, 5), 1);
    CHECK_DBL(tau(up, down, 5), -1);
    /* one tie in x: 5 concordant pairs of 6, sqrt(5 * 6) */
    const double x[] = {1, 1, 2, 3}, y[] = {1, 2, 3, 4};
    CHECK_DBL(tau(x, y, 4), 5 / sqrt(30));
    /* ties in both, also joint: x 1 1 2 2, y 1 1 1 2 -> C 2, D 0, tied x 2, y 3 */
    const double a[] = {1, 1, 2, 2}, b[] = {1, 1, 1, 2};
    CHECK_DBL(tau(a, b, 4), 2 / sqrt((6.0 - 2) * (6.0 - 3)));
    /* undefined: one value, one row, none */
    const double same[] = {7, 7, 7};
    CHECK(isnan(tau(same, up, 3)));
    CHECK(isnan(tau(up, same, 3)));
    CHECK(isnan(tau(up, up, 1)));
    CHECK(isnan(tau(up, up, 0)));
}

/* Random samples of 0 to 300 values from a few levels (many ties), and one of
 * 3000: the same figure as pair by pair, to the last bit (both count pairs
 * exactly). */
static void random_samples(void)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 24);
    double *x = malloc(3000 * sizeof *x), *y = malloc(3000 * sizeof *y);
    int differ = 0;
    for (int trial = 0; trial < 400 && x && y; trial++) {
        size_t n = trial == 399 ? 3000 : gsl_rng_uniform_int(r, 301);
        unsigned long levels = 1 + gsl_rng_uniform_int(r, trial % 2 ? 5 : 1000);
        for (size_t i = 0; i < n; i++) {
            x[i] = (double)gsl_rng_uniform_int(r, levels);
            y[i] = trial % 3 ? x[i] + (double)gsl_rng_uniform_int(r, 3) : gsl_rng_uniform(r);
        }
        double fast = tau(x, y, n), slow = tau_by_pairs(x, y, n);
        if (!(fast == slow || (isnan(fast) && isnan(slow))) && differ++ < 3)
            fprintf(stderr, "n %zu, %lu levels: tau-b %.17g, pair by pair %.17g\n", n, levels,
                    fast, slow);
    }
    CHECK_INT(differ, 0);
    free(x), free(y);
    gsl_rng_free(r);
}

int main(void)
{
    known();
    random_samples();
    return CHECK_DONE();
}
