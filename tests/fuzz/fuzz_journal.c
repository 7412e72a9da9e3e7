/* fuzz_journal.c — libFuzzer harness of reading and resuming a journal
 * (results/journal.c): the input is a journal beside a sidecar of this run.
 * Reading it changes nothing; a refused journal is left byte for byte as it
 * was; an accepted one may only lose a torn last line (or, torn inside its
 * header, start afresh), and takes a row at its end. */
#define _GNU_SOURCE /* memrchr */
#include "fuzz.h"

#include "results.h"

static const rs_signature sig = {.version = "0.1.0", .script = "fuzz.lua",
                                 .target = "ascend910", .target_sig = "0123456789abcdef",
                                 .space_sig = "fedcba9876543210", .measure = "sim"};

/* The journal's header line, without its line break. */
static const char header[] = "problem,M,N,K,batch,dtype,target,strategy,m,n,k,double_buffer,"
                             "cores,split,load_volume_elems,est_cycles,backend,status,measured,"
                             "unit,micro,round,op,shape,node";

/* The sidecar of sig, as the journal writes it for a new journal. */
static uint8_t *sidecar(size_t *n)
{
    static uint8_t *bytes;
    static size_t len;
    if (!bytes) {
        const char *path = fz_path(2, "new.csv");
        rs_cache *c;
        char err[1024];
        rs_journal *j = rs_journal_open(path, &sig, &c, err, sizeof err);
        FZ_CHECK(j != NULL);
        FZ_CHECK(rs_journal_close(j, err, sizeof err));
        rs_cache_free(c);
        bytes = fz_read(fz_path(2, "new.csv.sig"), &len);
        FZ_CHECK(bytes != NULL);
    }
    *n = len;
    return bytes;
}

static bool same(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
    return na == nb && (na == 0 || memcmp(a, b, na) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t nsig, nafter, nnow;
    const uint8_t *sigbytes = sidecar(&nsig);
    const char *path = fz_path(0, "j.csv"), *sigpath = fz_path(1, "j.csv.sig");
    fz_write(path, data, size);
    fz_write(sigpath, sigbytes, nsig);
    /* read as `npu-tune report` reads it: nothing changes; a row it refuses,
     * the resume refuses too */
    rs_cache *seen = NULL;
    char err[1024];
    bool read = rs_journal_read(path, false, &seen, err, sizeof err);
    FZ_CHECK(read == (seen != NULL));
    FZ_CHECK(read || (strstr(err, path) && !strchr(err, '\n')));
    uint8_t *untouched = fz_read(path, &nnow);
    FZ_CHECK(untouched && same(untouched, nnow, data, size));
    free(untouched);
    rs_cache *c = NULL;
    rs_journal *j = rs_journal_open(path, &sig, &c, err, sizeof err);
    FZ_CHECK(!j || read || !memchr(data, '\n', size));
    FZ_CHECK(!j || !read || rs_cache_size(seen) == rs_cache_size(c));
    rs_cache_free(seen);
    uint8_t *after = fz_read(path, &nafter), *sidenow = fz_read(sigpath, &nnow);
    FZ_CHECK(after && sidenow);
    FZ_CHECK(same(sidenow, nnow, sigbytes, nsig));
    if (!j) {
        FZ_CHECK(c == NULL);
        FZ_CHECK(strstr(err, path) && !strchr(err, '\n'));
        FZ_CHECK(same(after, nafter, data, size));
        free(after), free(sidenow);
        return 0;
    }
    const uint8_t *nl = size ? memrchr(data, '\n', size) : NULL;
    if (nl) /* whole, or cut after its last line break */
        FZ_CHECK(same(after, nafter, data, (size_t)(nl - data) + 1));
    else { /* a header torn before its line break (or nothing): started afresh */
        size_t hn = strlen(header);
        FZ_CHECK(size <= hn && memcmp(data, header, size) == 0);
        FZ_CHECK(nafter == hn + 1 && memcmp(after, header, hn) == 0 && after[hn] == '\n');
    }
    size_t rows = 0;
    for (size_t i = 0; i < nafter; i++)
        rows += after[i] == '\n';
    FZ_CHECK(rs_cache_size(c) < rows);

    /* the next row, in the journal's unit, goes at the end, and the journal resumes with it */
    sp_problem p = {.name = "fz", .dtype = SP_FP16};
    sp_problem_set(&p, 0, (const int64_t[]){64, 64, 64, 1});
    sp_candidate cand = {.config = {.m = 16, .n = 16, .k = 16, .cores = 1, .strategy = SP_OS}};
    rs_row row = {.problem = &p, .target = "ascend910", .cand = &cand, .backend = "sim",
                  .status = "ok", .measured = 1234, .unit = "cycles"};
    if (*rs_journal_unit(j, NULL)) /* the unit of the ok rows it holds */
        row.unit = rs_journal_unit(j, NULL);
    FZ_CHECK(rs_journal_append(j, &row, err, sizeof err));
    FZ_CHECK(rs_journal_close(j, err, sizeof err));
    uint8_t *grown = fz_read(path, &nnow);
    FZ_CHECK(grown && nnow > nafter && memcmp(grown, after, nafter) == 0 && grown[nnow - 1] == '\n');
    FZ_CHECK(memchr(grown + nafter, '\n', nnow - nafter) == grown + nnow - 1);
    size_t before = rs_cache_size(c);
    rs_cache_free(c);
    j = rs_journal_open(path, &sig, &c, err, sizeof err);
    if (!j)
        fprintf(stderr, "%s\n", err);
    FZ_CHECK(j != NULL);
    FZ_CHECK(rs_cache_size(c) == before || rs_cache_size(c) == before + 1);
    FZ_CHECK(rs_cache_find(c, &p, &cand.config) != NULL);
    FZ_CHECK(rs_journal_close(j, err, sizeof err));
    rs_cache_free(c);
    free(after), free(sidenow), free(grown);
    return 0;
}
