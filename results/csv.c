/* csv.c — formatting rows of the journal and the tuning table; the column
 * order is the contract of DESIGN.md section 7, fixed here in one place. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

const char rs_journal_header[] =
    "problem,M,N,K,batch,dtype,target,strategy,m,n,k,double_buffer,cores,split,"
    "load_volume_elems,est_cycles,backend,status,measured,unit";
const char rs_table_header[] =
    "problem,M,N,K,batch,dtype,target,strategy,m,n,k,double_buffer,cores,split,measured,unit";

/* Cycles are whole numbers; seconds keep nine significant digits. */
static void number(FILE *f, double v, const char *unit)
{
    if (strcmp(unit, "cycles") == 0)
        fprintf(f, "%.0f", v);
    else
        fprintf(f, "%.9g", v);
}

static void head(FILE *f, const rs_row *r)
{
    const sp_problem *p = r->problem;
    const sp_config *c = &r->cand->config;
    fprintf(f, "%s,%lld,%lld,%lld,%lld,%s,%s,%s,%d,%d,%d,%d,%d,%s,", p->name, (long long)p->M,
            (long long)p->N, (long long)p->K, (long long)p->batch, sp_dtype_name(p->dtype),
            r->target, sp_strategy_name(c->strategy), c->m, c->n, c->k, c->double_buffer,
            c->cores, sp_split_name(c->split));
}

static void measured(FILE *f, const rs_row *r)
{
    if (strcmp(r->status, "ok") == 0)
        number(f, r->measured, r->unit);
    fprintf(f, ",%s\n", r->unit);
}

void rs_write_journal_row(FILE *f, const rs_row *r)
{
    head(f, r);
    fprintf(f, "%.0f,%.0f,%s,%s,", r->cand->fig.load_elems, r->cand->fig.est_cycles, r->backend,
            r->status);
    measured(f, r);
}

void rs_write_table_row(FILE *f, const rs_row *r)
{
    head(f, r);
    measured(f, r);
}
