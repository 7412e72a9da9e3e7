/* wire.c — the messages between rank 0 and its workers: bytes written and
 * read in order, every read checked against the message's end. Ranks run
 * one build (tn_put_build checks it), so structs travel as their bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workers.h"

void tn_put(tn_out *o, const void *p, size_t n)
{
    if (n) /* p may be NULL then */
        bs_buf_add(o, p, n);
}

void tn_put_u32(tn_out *o, uint32_t v)
{
    tn_put(o, &v, sizeof v);
}

void tn_put_str(tn_out *o, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    tn_put_u32(o, (uint32_t)n);
    tn_put(o, s, n);
}

bool tn_get(tn_in *in, void *p, size_t n)
{
    if (in->bad || n > in->len - in->at)
        return !(in->bad = true);
    memcpy(p, in->b + in->at, n);
    in->at += n;
    return true;
}

bool tn_get_u32(tn_in *in, uint32_t *v)
{
    return tn_get(in, v, sizeof *v);
}

bool tn_get_str(tn_in *in, char *out, size_t size)
{
    uint32_t n;
    if (!tn_get_u32(in, &n) || n >= size)
        return !(in->bad = true);
    if (!tn_get(in, out, n))
        return false;
    out[n] = '\0';
    return true;
}

char *tn_get_dup(tn_in *in)
{
    uint32_t n;
    char *s = NULL;
    if (tn_get_u32(in, &n) && n <= in->len - in->at && (s = malloc((size_t)n + 1)) &&
        tn_get(in, s, n)) {
        s[n] = '\0';
        return s;
    }
    free(s);
    in->bad = true;
    return NULL;
}

/* A measurement: its figures, then its detail as long as it is. */
void tn_put_measurement(tn_out *o, const ms_measurement *m)
{
    unsigned char flags[2] = {(unsigned char)m->status, m->busy};
    double fig[5] = {m->value, m->mean, m->stddev, m->ci_lo, m->ci_hi};
    int32_t samples = m->nsamples;
    tn_put(o, flags, sizeof flags);
    tn_put(o, &samples, sizeof samples);
    tn_put(o, fig, sizeof fig);
    tn_put_str(o, m->detail);
}

bool tn_get_measurement(tn_in *in, ms_measurement *m)
{
    unsigned char flags[2];
    double fig[5];
    int32_t samples;
    memset(m, 0, sizeof *m);
    if (!tn_get(in, flags, sizeof flags) || !tn_get(in, &samples, sizeof samples) ||
        !tn_get(in, fig, sizeof fig) || !tn_get_str(in, m->detail, sizeof m->detail))
        return false;
    if (flags[0] >= MS_NSTATUS || flags[1] > 1)
        return !(in->bad = true);
    m->status = (ms_status)flags[0];
    m->busy = flags[1];
    m->nsamples = samples;
    m->value = fig[0], m->mean = fig[1], m->stddev = fig[2], m->ci_lo = fig[3], m->ci_hi = fig[4];
    return true;
}

/* The version and the sizes of the structs that travel as bytes. */
static void build_mark(char *out, size_t len)
{
    snprintf(out, len, "npu-tune %s target %zu problem %zu config %zu peak %zu",
             tn_version(), sizeof(sp_target), sizeof(sp_problem), sizeof(sp_config),
             sizeof(ms_peak));
}

void tn_put_build(tn_out *o)
{
    char mark[128];
    build_mark(mark, sizeof mark);
    tn_put_str(o, mark);
}

bool tn_get_build(tn_in *in, char *why, size_t len)
{
    char mine[128], theirs[128];
    build_mark(mine, sizeof mine);
    if (!tn_get_str(in, theirs, sizeof theirs))
        theirs[0] = '\0';
    if (strcmp(mine, theirs) == 0)
        return true;
    snprintf(why, len, "runs another build (%s) than rank 0 (%s): every rank must run the same",
             mine, *theirs ? theirs : "?");
    return false;
}
