/* kinds.c — the kernel generator of each kind of target (NPU kernel programs,
 * host C) and which kinds' journals sign the kernels they time. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "codegen.h"

/* An NPU kernel: the program (generate.c) in its text format (format.c). */
static char *npu_text(const sp_target *t, const sp_problem *p, const sp_config *c, char *err,
                      size_t errlen)
{
    cg_kernel k;
    if (!cg_generate(t, p, c, &k, err, errlen))
        return NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    bool ok = f && cg_print(f, &k);
    if (f && fclose(f) != 0)
        ok = false;
    cg_kernel_free(&k);
    if (!ok) {
        free(text);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    return text;
}

/* A CPU kernel: C source (host.c) of a config the space calls legal. */
static char *host_text(const sp_target *t, const sp_problem *p, const sp_config *c, char *err,
                       size_t errlen)
{
    if (sp_check(t, p, c)) {
        char why[1024];
        sp_explain_line(t, p, c, why, sizeof why);
        snprintf(err, errlen, "config not legal on %s: %s", t->name, why);
        return NULL;
    }
    return cg_host_text(c, p->dtype, NULL, err, errlen);
}

/* The hash of the host kernels generated for the first candidate of every
 * kind of code (cg_host_same_code) in the batches: a generator change on
 * any path the run takes changes it. */
static bool host_sign(const cg_batch *b, size_t nb, char out[17])
{
    char *all = NULL, why[256];
    size_t len = 0, nkind = 0, cap = 0;
    struct kind { const sp_problem *p; const sp_config *c; } *kinds = NULL;
    FILE *f = open_memstream(&all, &len);
    bool ok = f != NULL;
    for (size_t i = 0; ok && i < nb; i++)
        for (size_t j = 0; ok && j < b[i].n; j++) {
            const sp_config *c = &b[i].c[j].config;
            size_t k = 0;
            while (k < nkind && !cg_host_same_code(b[i].p->dtype, c, kinds[k].p->dtype, kinds[k].c))
                k++;
            if (k < nkind)
                continue;
            if (nkind == cap) {
                struct kind *more = realloc(kinds, (cap = cap ? 2 * cap : 64) * sizeof *kinds);
                if (!(ok = more != NULL))
                    break;
                kinds = more;
            }
            kinds[nkind++] = (struct kind){b[i].p, c};
            char *text = cg_host_text(c, b[i].p->dtype, "nt_sig", why, sizeof why);
            if (text)
                fputs(text, f);
            free(text);
        }
    free(kinds);
    if (f && fclose(f) != 0)
        ok = false;
    if (ok)
        bs_hash_hex(all, len, out);
    free(all);
    return ok;
}

/* The generators, one line per kind of target (space's registry of kinds).
 * sign: NULL when the kind's journals do not sign its kernels. */
static const struct {
    char *(*text)(const sp_target *t, const sp_problem *p, const sp_config *c, char *err,
                  size_t errlen);
    bool (*sign)(const cg_batch *b, size_t nb, char out[17]);
} generators[SP_NKIND] = {
    [SP_NPU] = {npu_text, NULL},
    [SP_CPU] = {host_text, host_sign},
};

/* The generator of t's kind (an NPU's if t's kind is out of range, as in space). */
#define GENERATOR(t) generators[(t)->kind < SP_NKIND ? (t)->kind : 0]

char *cg_kernel_text(const sp_target *t, const sp_problem *p, const sp_config *c, char *err,
                     size_t errlen)
{
    return GENERATOR(t).text(t, p, c, err, errlen);
}

bool cg_kernel_signature(const sp_target *t, const cg_batch *b, size_t nb, char out[17])
{
    out[0] = '\0';
    return !GENERATOR(t).sign || GENERATOR(t).sign(b, nb, out);
}
