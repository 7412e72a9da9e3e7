/* cache.c — the measurements of a resumed journal in an open-addressing hash
 * map keyed by (problem name, op, its dimensions, dtype, config): O(1) lookups. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "internal.h"

struct rs_cache {
    rs_entry *e;    /* entries in the order first seen */
    size_t n, cap;
    size_t *slot;   /* index + 1 into e; 0 = empty; a power of two of them */
    size_t nslot;
};

/* Hashes the fields one by one, so struct padding never enters the key. */
static uint64_t key(const sp_problem *p, const sp_config *c)
{
    uint64_t h = bs_fnv(BS_FNV_BASIS, p->name, strlen(p->name) + 1);
    h = bs_fnv(h, p->dims, sizeof p->dims); /* all of them: 0 past the op's */
    int64_t v[] = {p->op, p->dtype, c->m, c->n, c->k, c->cores,
                   c->strategy, c->double_buffer ? 1 : 0, c->split, c->mr, c->nr,
                   c->nopack ? 1 : 0};
    return bs_fnv(h, v, sizeof v);
}

static bool same(const rs_entry *e, const sp_problem *p, const sp_config *c)
{
    const sp_problem *q = &e->problem;
    const sp_config *d = &e->config;
    return sp_problem_cmp(q, p, true) == 0 && d->m == c->m &&
           d->n == c->n && d->k == c->k && d->cores == c->cores && d->strategy == c->strategy &&
           !d->double_buffer == !c->double_buffer && d->split == c->split && d->mr == c->mr &&
           d->nr == c->nr && !d->nopack == !c->nopack;
}

/* The slot holding (p, c), or the empty slot where it would go. */
static size_t *probe(const rs_cache *c, const sp_problem *p, const sp_config *cfg)
{
    size_t mask = c->nslot - 1;
    for (size_t i = (size_t)key(p, cfg) & mask;; i = (i + 1) & mask) {
        size_t *s = &c->slot[i];
        if (!*s || same(&c->e[*s - 1], p, cfg))
            return s;
    }
}

/* An empty cache with 64 slots. */
rs_cache *rs_cache_new(void)
{
    rs_cache *c = calloc(1, sizeof *c);
    if (c && !(c->slot = calloc(c->nslot = 64, sizeof *c->slot))) {
        free(c);
        c = NULL;
    }
    return c;
}

/* Doubles the slots (load factor stays at most 1/2). */
static bool grow(rs_cache *c)
{
    size_t *old = c->slot, nold = c->nslot;
    if (!(c->slot = calloc(nold * 2, sizeof *c->slot))) {
        c->slot = old;
        return false;
    }
    c->nslot = nold * 2;
    for (size_t i = 0; i < nold; i++)
        if (old[i])
            *probe(c, &c->e[old[i] - 1].problem, &c->e[old[i] - 1].config) = old[i];
    free(old);
    return true;
}

/* Inserts e, or overwrites the entry of the same key (later rows win). */
bool rs_cache_put(rs_cache *c, const rs_entry *e)
{
    size_t *s = probe(c, &e->problem, &e->config);
    if (*s) {
        c->e[*s - 1] = *e;
        return true;
    }
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        rs_entry *ne = realloc(c->e, cap * sizeof *ne);
        if (!ne)
            return false;
        c->e = ne;
        c->cap = cap;
    }
    if (2 * (c->n + 1) > c->nslot) {
        if (!grow(c))
            return false;
        s = probe(c, &e->problem, &e->config);
    }
    c->e[c->n++] = *e;
    *s = c->n;
    return true;
}

/* O(1) expected: one hash and a short probe. */
const rs_entry *rs_cache_find(const rs_cache *c, const sp_problem *p, const sp_config *cfg)
{
    if (!c)
        return NULL;
    size_t *s = probe(c, p, cfg);
    return *s ? &c->e[*s - 1] : NULL;
}

/* Distinct (problem, config) keys held. */
size_t rs_cache_size(const rs_cache *c)
{
    return c ? c->n : 0;
}

const rs_entry *rs_cache_entry(const rs_cache *c, size_t i)
{
    return c && i < c->n ? &c->e[i] : NULL;
}

bool rs_verdict_failed(const rs_entry *e)
{
    return e->verdict[0] && strcmp(e->verdict, "ok") != 0;
}

void rs_cache_apply_verdicts(rs_cache *c)
{
    for (size_t i = 0; c && i < c->n; i++)
        if (rs_verdict_failed(&c->e[i]))
            snprintf(c->e[i].status, sizeof c->e[i].status, "%s", c->e[i].verdict);
}

/* Frees the cache (NULL is fine). */
void rs_cache_free(rs_cache *c)
{
    if (!c)
        return;
    free(c->e);
    free(c->slot);
    free(c);
}
