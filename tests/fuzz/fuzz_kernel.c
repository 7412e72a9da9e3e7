/* fuzz_kernel.c — libFuzzer harness of the kernel text format (codegen/format.c):
 * parse; a parsed kernel prints, re-parses and prints the same bytes; then it is
 * simulated in functional mode on the target it describes (format 2) or names
 * (format 1, a built-in target), bounded inputs only. */
#define _GNU_SOURCE /* fmemopen, open_memstream */
#include "fuzz.h"

#include "codegen.h"
#include "script.h"
#include "sim.h"

/* What one simulation may touch: GM tensors of at most 2^20 elements each, buffers
 * ending below 16 MiB, at most 4096 instructions (the format allows 2^31 x 2^31
 * tensors and, on a target of its own, 2 GiB buffers, which the simulator would
 * allocate: an out-of-memory, not a finding). */
enum { FZ_TENSOR_MAX = 1 << 20, FZ_BUF_END_MAX = 16 << 20, FZ_INSTR_MAX = 4096 };

/* The kernel as text (malloc'd, *n bytes). */
static char *print(const cg_kernel *k, size_t *n)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, n);
    FZ_CHECK(f != NULL);
    FZ_CHECK(cg_print(f, k));
    FZ_CHECK(fclose(f) == 0);
    return text;
}

static bool parse(const void *d, size_t n, cg_kernel *k, char *err, size_t errlen)
{
    if (n == 0)
        d = "", n = 1; /* fmemopen wants a buffer; "" reads as empty text */
    FILE *f = fmemopen((void *)d, n, "r");
    FZ_CHECK(f != NULL);
    bool ok = cg_parse(f, "fuzz.npu", k, err, errlen);
    fclose(f);
    return ok;
}

/* The built-in target of that name, loaded once (each load runs Lua). */
static const sp_target *target(const char *name)
{
    static sp_target known[16];
    static size_t nknown;
    static bool loaded;
    if (!loaded) {
        loaded = true;
        char names[256], err[LS_ERR_MAX];
        snprintf(names, sizeof names, "%s", ls_builtin_names());
        for (char *save = NULL, *s = strtok_r(names, ", ", &save); s && nknown < 16;
             s = strtok_r(NULL, ", ", &save))
            FZ_CHECK(ls_builtin_target(s, &known[nknown++], err, sizeof err));
        FZ_CHECK(nknown > 0);
    }
    for (size_t i = 0; i < nknown; i++)
        if (strcmp(known[i].name, name) == 0)
            return &known[i];
    return NULL;
}

static bool small(const cg_kernel *k)
{
    for (int i = 0; i < 3; i++)
        if ((int64_t)k->tensors[i].rows * k->tensors[i].cols > FZ_TENSOR_MAX)
            return false;
    for (int b = 0; k->figures && b < SP_NBUF; b++) /* buffers are rounded up to it */
        if (k->target.buf_align[b] > FZ_BUF_END_MAX)
            return false;
    for (int c = 0; c < k->ncores; c++)
        for (int b = 0; b < k->cores[c].nbufs; b++) {
            const cg_buf *u = &k->cores[c].bufs[b];
            if (u->offset + (int64_t)u->rows * u->cols * cg_elem_size(u->elem) > FZ_BUF_END_MAX)
                return false;
        }
    return cg_kernel_size(k) <= FZ_INSTR_MAX;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cg_kernel k;
    char err[512];
    if (!parse(data, size, &k, err, sizeof err)) {
        /* one line naming the input and a line */
        FZ_CHECK(strncmp(err, "fuzz.npu:", 9) == 0 && !strchr(err, '\n'));
        return 0;
    }
    size_t n1, n2;
    char *text1 = print(&k, &n1);
    cg_kernel again;
    if (!parse(text1, n1, &again, err, sizeof err)) {
        fprintf(stderr, "printed kernel does not parse: %s\n%s", err, text1);
        FZ_CHECK(!"the printed kernel parses");
    }
    char *text2 = print(&again, &n2);
    FZ_CHECK(n1 == n2 && memcmp(text1, text2, n1) == 0);
    free(text1);
    free(text2);
    cg_kernel_free(&again);

    const sp_target *t = k.figures ? &k.target : target(k.target.name);
    if (t && small(&k)) {
        sim_options o = {.functional = true, .seed = 1};
        sim_result r;
        FZ_CHECK(sim_run(t, &k, &o, &r));
        FZ_CHECK(r.status == MS_OK || (r.error[0] && !strchr(r.error, '\n')));
        sim_result_free(&r);
    }
    cg_kernel_free(&k);
    return 0;
}
