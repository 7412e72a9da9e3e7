/* stats.c — the benchmarks' statistics leave failed measurements out: the
 * model's ranking and regret (bench/rank.h) and the host benches' medians and
 * paired ratios (bench/rounds.h). */
#define _POSIX_C_SOURCE 200809L /* rounds.h: clock_gettime */
#include <math.h>

#include "rank.h"
#include "rounds.h"
#include "check.h"

static void ranking(void)
{
    rank_score r;
    /* the second candidate failed: it is not the fastest, the pick's regret is 0 */
    const double est[] = {1, 2, 3, 4, 5}, meas[] = {10, 0, 30, 40, 50};
    const bool ok[] = {true, false, true, true, true};
    CHECK(rank_score_of(est, meas, ok, 5, 2, &r));
    CHECK_INT(r.measured, 4);
    CHECK_INT(r.pick, 0);
    CHECK_DBL(r.regret, 0);
    CHECK(fabs(r.rho - 1) < 1e-12 && fabs(r.rho_top - 1) < 1e-12);
    /* the pick failed: no regret; the others rank backwards */
    const double est2[] = {1, 2, 3}, meas2[] = {0, 20, 10};
    const bool ok2[] = {false, true, true};
    CHECK(rank_score_of(est2, meas2, ok2, 3, 100, &r));
    CHECK_INT(r.measured, 2);
    CHECK_INT(r.pick, 0);
    CHECK(isnan(r.regret));
    CHECK(fabs(r.rho + 1) < 1e-12);
    /* the pick measured, slower than the fastest */
    const bool all2[] = {true, true, true};
    const double meas3[] = {15, 20, 10};
    CHECK(rank_score_of(est2, meas3, all2, 3, 100, &r));
    CHECK(fabs(r.regret - 0.5) < 1e-12);
    /* nothing measured */
    const bool none[] = {false, false, false};
    CHECK(rank_score_of(est2, meas2, none, 3, 100, &r));
    CHECK_INT(r.measured, 0);
    CHECK(isnan(r.rho) && isnan(r.rho_top) && isnan(r.regret));
}

static void rounds(void)
{
    /* failed samples (NaN) are left out of a median */
    const double g[] = {5, NAN, NAN, 7, 6};
    CHECK_DBL(bench_median(g, 5), 6);
    const double failed[] = {NAN, NAN};
    CHECK(isnan(bench_median(failed, 2)));
    /* ... and out of a paired comparison */
    const double a[] = {2, NAN, 3, 4}, b[] = {1, 1, NAN, 2};
    int ahead, used;
    CHECK_DBL(bench_paired(a, b, 4, &ahead, &used), 2);
    CHECK_INT(used, 2);
    CHECK_INT(ahead, 2);
}

int main(void)
{
    ranking();
    rounds();
    return CHECK_DONE();
}
