/* kinds.c — how the commands show each kind of target: `model`'s explanation
 * of a config and its best blocks, a config's width in a run's summary. */
#include <stdio.h>

#include "internal.h"

static void npu_config(const tn_request *r, const sp_figures *f)
{
    const sp_config *c = &r->c;
    printf("config: %s %dx%dx%d (core grid %dx%d)\n", sp_strategy_name(c->strategy), c->m, c->n,
           c->k, f->grid_m, f->grid_n);
}

static void npu_figures(const tn_request *r, const sp_figures *f)
{
    (void)r;
    printf("  load volume (Sigma): %.0f elements into L0A+L0B (busiest core %.0f)\n",
           f->load_elems, f->core_load_elems);
    printf("  stores: %.0f elements\n  bytes:", f->store_elems);
    for (int i = 0; i < SP_NPATH; i++)
        printf(" %s %.0f%s", sp_path_name(i), f->bytes[i], i + 1 < SP_NPATH ? "," : "\n");
    printf("  buffer use: %.0f bytes of L0A+L0B+L0C\n", f->buffer_use);
}

static void cpu_config(const tn_request *r, const sp_figures *f)
{
    const sp_config *c = &r->c;
    printf("config: %s blocks %dx%dx%d, micro-tile %dx%d%s (thread grid %dx%d)\n",
           sp_strategy_name(c->strategy), c->m, c->n, c->k, c->mr, c->nr,
           c->nopack ? ", no packing" : "", f->grid_m, f->grid_n);
}

static void cpu_figures(const tn_request *r, const sp_figures *f)
{
    (void)r;
    printf("  load volume: %.0f elements packed into the A and B blocks (busiest thread %.0f)\n",
           f->load_elems, f->core_load_elems);
    printf("  C traffic: %.0f elements written (once per k block)\n", f->store_elems);
    printf("  cache use: %.0f bytes of L1d + L2 (A micro-panel, packed B block)\n",
           f->buffer_use);
}

/* The CLI's side of the registry of kinds (space/kinds.c). The model ranks
 * an NPU's tiles by load volume; a CPU packs every operand once under many
 * blocks, so its blocks are ranked by estimated time. A CPU's configs carry
 * a micro-tile: " u6x16" in the summary. */
static const tn_kind kinds[SP_NKIND] = {
    [SP_NPU] = {.config_width = 30,
                .order = SP_BY_VOLUME,
                .best = "best tile per strategy by load volume (ties: larger buffer use)",
                .winner = "lowest load volume",
                .config = npu_config,
                .figures = npu_figures},
    [SP_CPU] = {.config_width = 38,
                .order = SP_BY_TIME,
                .best = "best blocks per strategy by estimated time",
                .winner = "fastest by the model",
                .config = cpu_config,
                .figures = cpu_figures},
};

const tn_kind *tn_kind_of(const sp_target *t)
{
    return &kinds[t->kind < SP_NKIND ? t->kind : 0];
}
