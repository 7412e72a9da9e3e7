/* model_cmd.c — `npu-tune model`: explain one config (legal? which buffer
 * overflows, Sigma, est. cycles) or list the best tile per strategy by Sigma. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char usage_text[] =
    "usage: npu-tune model --target T --shape MxNxK [--batch B] [--dtype {dtypes}]\n"
    "                      [--strategy {strategies}] [--tile mxnxk] [--double-buffer on|off]\n"
    "                      [--cores C] [--split {splits}] [--micro MRxNR] [--pack on|off]\n"
    "                      [--format text|csv] [--op {ops}]\n";

static const char csv_header[] =
    "strategy,m,n,k,double_buffer,cores,split,legal,load_volume_elems,store_elems,"
    "est_cycles,buffer_use_bytes,grid_m,grid_n,legal_configs,violations,micro,pack\n";

static void csv_row(const sp_config *c, int legal, const sp_figures *f, long long nlegal,
                    const char *why)
{
    printf("%s,", sp_strategy_name(c->strategy));
    if (f)
        printf("%d,%d,%d,", c->m, c->n, c->k);
    else
        printf(",,,");
    printf("%d,%d,%s,%d,", c->double_buffer, c->cores, sp_split_name(c->split), legal);
    if (f)
        printf("%.0f,%.0f,%.0f,%.0f,%d,%d,", f->load_elems, f->store_elems, f->est_cycles,
               f->buffer_use, f->grid_m, f->grid_n);
    else
        printf(",,,,,,");
    printf("%lld,", nlegal);
    for (const char *s = why; s && *s; s++) /* lines become '; ', commas ';' */
        if (*s == '\n')
            fputs(s[1] ? "; " : "", stdout);
        else
            putchar(*s == ',' ? ';' : *s);
    if (c->mr || c->nr)
        printf(",%dx%d,%d\n", c->mr, c->nr, !c->nopack);
    else
        printf(",,\n");
}

static void heading(const tn_request *r)
{
    const sp_problem *p = &r->p;
    char shape[SP_SHAPE_MAX];
    sp_problem_shape(p, shape, sizeof shape);
    printf("%s, %s %s, batch %lld, double buffering %s, %d core%s, split %s\n", r->t.name,
           shape, sp_dtype_name(p->dtype), (long long)p->batch, r->c.double_buffer ? "on" : "off",
           r->c.cores, r->c.cores == 1 ? "" : "s", sp_split_name(r->c.split));
}

/* One config: legality with reasons, then the model's figures. */
static int explain(const tn_request *r)
{
    char why[1024];
    sp_figures f;
    int bad = sp_explain(&r->t, &r->p, &r->c, why, sizeof why);
    sp_model(&r->t, &r->p, &r->c, &f);
    if (r->csv) {
        fputs(csv_header, stdout);
        csv_row(&r->c, bad == 0, &f, bad == 0, why);
        return TN_OK;
    }
    heading(r);
    const tn_kind *kind = tn_kind_of(&r->t);
    kind->config(r, &f);
    printf("legal: %s\n", bad ? "no" : "yes");
    for (char *line = why, *end; *line; line = end + 1) {
        end = strchr(line, '\n');
        printf("  %.*s\n", (int)(end - line), line);
    }
    if (bad)
        printf("figures as if it ran:\n");
    kind->figures(r, &f);
    printf("  estimated: %.0f cycles (%.2f us at %.0f MHz)\n", f.est_cycles,
           f.est_cycles / r->t.clock_mhz, r->t.clock_mhz);
    return TN_OK;
}

/* No strategy has a legal tile: the request is impossible (more cores than
 * the target has, a split that leaves cores idle, ...). One line with the
 * rules the smallest tile breaks (the strategy asked for, else OS, which
 * has no k = K rule), which no larger tile meets either. */
static int impossible(const tn_request *r)
{
    const sp_dtype_info *d = sp_dtype_get(r->p.dtype);
    sp_config c = r->c;
    c.strategy = (uint8_t)(r->strategy >= 0 ? r->strategy : SP_OS);
    sp_smallest(&r->t, &r->p, &c);
    char why[1024], shape[SP_SHAPE_MAX];
    sp_explain_line(&r->t, &r->p, &c, why, sizeof why);
    sp_problem_shape(&r->p, shape, sizeof shape);
    tn_error("model: no legal tile for %s %s on %s with %d core%s, split %s%s: the "
             "smallest, %s %dx%dx%d, is not legal: %s",
             shape, d->name, r->t.name,
             c.cores, c.cores == 1 ? "" : "s", sp_split_name(c.split),
             c.double_buffer ? ", double buffering" : "", sp_strategy_name(c.strategy), c.m, c.n,
             c.k, why);
    return TN_ERROR;
}

/* Best tile per strategy by Sigma. */
static int best_per_strategy(tn_request *r)
{
    sp_space s = {.double_buffer = {!r->c.double_buffer, r->c.double_buffer}, .nsplit = 1};
    s.split[0] = (sp_split)r->c.split;
    int32_t cores = r->c.cores;
    s.cores = (sp_axis){&cores, 1};
    /* as the kind ranks them; kinds with micro-tiles on the given (or
     * default) one */
    const tn_kind *kind = tn_kind_of(&r->t);
    bool micro = sp_target_kind(&r->t)->micro;
    sp_micro u = {r->c.mr, r->c.nr};
    s.micro = &u, s.nmicro = 1;
    s.packs = r->c.nopack ? 2 : 1; /* the family asked for (--pack) */
    sp_candidate best[SP_NSTRATEGY];
    sp_counts counts[SP_NSTRATEGY];
    int have[SP_NSTRATEGY] = {0}, any = 0;
    for (int st = 0; st < SP_NSTRATEGY; st++) {
        if (r->strategy >= 0 && st != r->strategy)
            continue;
        for (int i = 0; i < SP_NSTRATEGY; i++)
            s.strategy[i] = i == st;
        size_t got = sp_rank_top(&r->t, &r->p, &s, kind->order, 1, &best[st], &counts[st]);
        if (got == (size_t)-1) {
            tn_error("model: out of memory");
            return TN_ERROR;
        }
        any |= have[st] = got == 1;
    }
    if (!any)
        return impossible(r);
    if (r->csv)
        fputs(csv_header, stdout);
    else {
        heading(r);
        printf("%s", kind->best);
        if (micro)
            printf(", micro-tile %dx%d%s", u.mr, u.nr, r->c.nopack ? ", no packing" : "");
        printf("\n");
        printf("%-8s %6s %6s %6s %14s %12s %10s %12s\n", "strategy", "m", "n", "k",
               "load_volume", "est_cycles", "buffer_KiB", "legal_tiles");
    }
    for (int st = 0; st < SP_NSTRATEGY; st++) {
        if (r->strategy >= 0 && st != r->strategy)
            continue;
        sp_config none = r->c;
        none.strategy = (uint8_t)st;
        if (r->csv) {
            csv_row(have[st] ? &best[st].config : &none, have[st], have[st] ? &best[st].fig : NULL,
                    (long long)counts[st].legal, have[st] ? "" : "no legal tile");
            continue;
        }
        if (!have[st]) {
            printf("%-8s %6s %6s %6s %14s %12s %10s %12lld\n", sp_strategy_name(st), "-", "-",
                   "-", "no legal tile", "-", "-", 0LL);
            continue;
        }
        const sp_candidate *b = &best[st];
        printf("%-8s %6d %6d %6d %14.0f %12.0f %10.1f %12lld\n", sp_strategy_name(st),
               b->config.m, b->config.n, b->config.k, b->fig.load_elems, b->fig.est_cycles,
               b->fig.buffer_use / 1024, (long long)counts[st].legal);
    }
    if (!r->csv) {
        int win = -1;
        for (int st = 0; st < SP_NSTRATEGY; st++)
            if (have[st] && (win < 0 || (kind->order == SP_BY_TIME
                                             ? sp_cmp_time(&best[st], &best[win])
                                             : sp_cmp_volume(&best[st], &best[win])) < 0))
                win = st;
        printf("%s: %s %dx%dx%d\n", kind->winner, sp_strategy_name(win), best[win].config.m,
               best[win].config.n, best[win].config.k);
    }
    return TN_OK;
}

int tn_model(int argc, char **argv)
{
    tn_request r;
    int rc = tn_parse_request(argc, argv, "model", usage_text, TN_OPT_FORMAT, &r);
    if (rc != TN_OK)
        return rc == TN_HELP ? TN_OK : rc;
    return r.have_tile ? explain(&r) : best_per_strategy(&r);
}
