/* trace.c — the simulator's trace: spans recorded per pipe during a run and
 * written as Chrome trace JSON (Perfetto, chrome://tracing); instruction texts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int operand_text(char *buf, size_t n, const cg_buf *tensors, const cg_core *c,
                        const cg_operand *o)
{
    if (o->buf >= c->nbufs || o->buf < -3)
        return snprintf(buf, n, "?");
    const cg_buf *u = sim_region(tensors, c, o);
    char fallback[16];
    const char *name = u->name;
    if (!name[0]) {
        if (o->buf < 0)
            snprintf(fallback, sizeof fallback, "%c", "ABC"[-1 - o->buf]);
        else
            snprintf(fallback, sizeof fallback, "buf%d", o->buf);
        name = fallback;
    }
    const char *end = memchr(name, 0, sizeof u->name);
    int len = end ? (int)(end - name) : (int)sizeof u->name;
    if (o->r0 == 0 && o->c0 == 0 && o->rows == u->rows && o->cols == u->cols)
        return snprintf(buf, n, "%.*s", len, name);
    return snprintf(buf, n, "%.*s[%d:%lld,%d:%lld]", len, name, (int)o->r0,
                    (long long)o->r0 + o->rows, (int)o->c0, (long long)o->c0 + o->cols);
}

void sim_instr_text(char *buf, size_t n, const cg_buf *tensors, const cg_core *c,
                    const cg_instr *in)
{
    char d[64], a[64], b[64];
    const char *src = cg_pipe_name(in->src), *dst = cg_pipe_name(in->dst);
    const char *pipe = cg_pipe_name(in->pipe);
    switch (in->op) {
    case CG_COPY:
        operand_text(d, sizeof d, tensors, c, &in->d);
        operand_text(a, sizeof a, tensors, c, &in->a);
        snprintf(buf, n, "copy %s <- %s", d, a);
        break;
    case CG_MMAD:
        operand_text(d, sizeof d, tensors, c, &in->d);
        operand_text(a, sizeof a, tensors, c, &in->a);
        operand_text(b, sizeof b, tensors, c, &in->b);
        snprintf(buf, n, "mmad %s %s %s * %s", d, in->init ? "=" : "+=", a, b);
        break;
    case CG_SET_FLAG:
    case CG_WAIT_FLAG:
        snprintf(buf, n, "%s %s->%s %d", in->op == CG_SET_FLAG ? "set_flag" : "wait_flag",
                 src ? src : "?", dst ? dst : "?", in->event);
        break;
    case CG_BARRIER: snprintf(buf, n, "barrier %s", pipe ? pipe : "?"); break;
    default: snprintf(buf, n, "nop"); break;
    }
}

bool sim_trace_init(sim *s)
{
    sim_trace *tr = calloc(1, sizeof *tr);
    if (!tr)
        return false;
    s->trace = tr;
    memcpy(tr->tensors, s->k->tensors, sizeof tr->tensors);
    tr->cores = calloc((size_t)(s->ncores ? s->ncores : 1), sizeof *tr->cores);
    if (!tr->cores)
        return false;
    tr->ncores = s->ncores;
    for (int ci = 0; ci < s->ncores; ci++) {
        const cg_core *c = &s->k->cores[ci];
        cg_core *d = &tr->cores[ci];
        d->bufs = malloc((size_t)(c->nbufs ? c->nbufs : 1) * sizeof *d->bufs);
        d->code = malloc((c->n ? c->n : 1) * sizeof *d->code);
        if (!d->bufs || !d->code)
            return false;
        if (c->nbufs)
            memcpy(d->bufs, c->bufs, (size_t)c->nbufs * sizeof *d->bufs);
        if (c->n)
            memcpy(d->code, c->code, c->n * sizeof *d->code);
        d->nbufs = c->nbufs;
        d->n = d->cap = c->n;
    }
    return true;
}

bool sim_trace_span(sim *s, int core, int pipe, double start, double end, uint32_t idx)
{
    sim_trace *tr = s->trace;
    if (tr->n == tr->cap) {
        size_t cap = tr->cap ? 2 * tr->cap : 1024;
        sim_span *v = realloc(tr->v, cap * sizeof *v);
        if (!v)
            return false;
        tr->v = v;
        tr->cap = cap;
    }
    tr->v[tr->n++] = (sim_span){start, end, idx, (uint16_t)core, (uint8_t)pipe};
    return true;
}

void sim_trace_free(sim_trace *tr)
{
    if (!tr)
        return;
    if (tr->cores)
        for (int ci = 0; ci < tr->ncores; ci++) {
            free(tr->cores[ci].bufs);
            free(tr->cores[ci].code);
        }
    free(tr->cores);
    free(tr->v);
    free(tr);
}

/* Writes s as a JSON string literal. */
static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20 || ch >= 0x7f)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

bool sim_write_trace(FILE *f, const sp_target *t, const sim_result *r)
{
    const sim_trace *tr = r->trace;
    double us = t->clock_mhz > 0 ? 1.0 / t->clock_mhz : 1e-3; /* microseconds per cycle */
    const char *sep = "\n";
    fputs("{\"traceEvents\":[", f);
    int ncores = tr ? tr->ncores : 0;
    for (int ci = 0; ci < ncores; ci++) {
        fprintf(f, "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,"
                   "\"args\":{\"name\":\"core %d\"}}",
                sep, ci, ci);
        sep = ",\n";
        fprintf(f, ",\n{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,"
                   "\"args\":{\"sort_index\":%d}}",
                ci, ci);
        for (int p = 0; p < CG_NPIPE; p++) {
            fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
                       "\"args\":{\"name\":\"%s\"}}",
                    ci, p, cg_pipe_name(p));
            fprintf(f, ",\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
                       "\"args\":{\"sort_index\":%d}}",
                    ci, p, p);
        }
    }
    for (size_t i = 0; tr && i < tr->n; i++) {
        const sim_span *sp = &tr->v[i];
        const cg_core *c = &tr->cores[sp->core];
        const cg_instr *in = &c->code[sp->index];
        char name[200];
        sim_instr_text(name, sizeof name, tr->tensors, c, in);
        fputs(sep, f);
        sep = ",\n";
        fputs("{\"name\":", f);
        json_string(f, name);
        static const char *const cats[] = {"copy", "mmad", "flag", "flag", "barrier", "nop"};
        fprintf(f, ",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%.6f,\"dur\":%.6f,"
                   "\"args\":{\"index\":%u",
                in->op < 6 ? cats[in->op] : "nop", sp->core, sp->pipe, sp->start * us,
                (sp->end - sp->start) * us, sp->index);
        if (in->line)
            fprintf(f, ",\"line\":%u", in->line);
        fputs("}}", f);
    }
    fputs("\n]}\n", f);
    if (fflush(f) != 0 || ferror(f)) {
        if (!errno)
            errno = EIO;
        return false;
    }
    return true;
}
