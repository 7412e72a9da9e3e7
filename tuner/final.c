/* final.c — who takes part in a shape's final (the search's fastest ok
 * measurements within a margin of the best, the runner-up, and the model's pick), whether
 * a journal holds it whole, and whether its figures disagree with the
 * search's beyond noise. */
#include "search.h"

size_t tn_finalists(const double *value, const bool *ok, size_t n, size_t pick, size_t most,
                    double margin, size_t *out)
{
    long best = -1, next = -1;
    for (size_t i = 0; i < n; i++)
        if (ok[i] && (best < 0 || value[i] < value[best]))
            next = best, best = (long)i;
        else if (ok[i] && (next < 0 || value[i] < value[next]))
            next = (long)i;
    if (best < 0 || most == 0)
        return 0;
    /* A best alone in its margin may be a measurement the machine's drift
     * flattered (single search timings on a shared VM move by 20%): the
     * runner-up is timed beside it, so the winner and its figure are the
     * final's. */
    double limit = value[best] * (1 + margin);
    if (next >= 0 && value[next] > limit)
        limit = value[next];
    size_t nf = 0;
    for (size_t i = 0; i < n; i++) { /* insertion into the fastest `most`, in order */
        if (!ok[i] || value[i] > limit)
            continue;
        size_t at = nf;
        while (at > 0 && value[out[at - 1]] > value[i])
            at--;
        if (at == most)
            continue;
        for (size_t q = nf < most ? nf : most - 1; q > at; q--)
            out[q] = out[q - 1];
        out[at] = i;
        nf += nf < most;
    }
    bool in = pick >= n || !ok[pick];
    for (size_t k = 0; k < nf; k++)
        in |= out[k] == pick;
    if (!in)
        out[nf++] = pick;
    return nf < 2 ? 0 : nf;
}

bool tn_final_whole(const long *line, size_t n)
{
    long lo = 0, hi = 0;
    for (size_t i = 0; i < n; i++) {
        if (line[i] <= 0)
            return false;
        for (size_t j = 0; j < i; j++)
            if (line[j] == line[i])
                return false;
        if (i == 0 || line[i] < lo)
            lo = line[i];
        if (i == 0 || line[i] > hi)
            hi = line[i];
    }
    return n > 0 && hi - lo == (long)n - 1;
}

size_t tn_drift(const double *search, const double *final, size_t n, double factor, double *ratio)
{
    size_t worst = (size_t)-1;
    double most = factor;
    for (size_t i = 0; i < n; i++) {
        if (!(search[i] > 0) || !(final[i] > 0))
            continue;
        double r = final[i] > search[i] ? final[i] / search[i] : search[i] / final[i];
        if (r > most)
            most = r, worst = i;
    }
    *ratio = worst == (size_t)-1 ? 1 : most;
    return worst;
}
