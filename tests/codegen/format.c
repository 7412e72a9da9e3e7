/* format.c — the kernel text format (codegen/format.c): round trips of the
 * fixture and generated kernels, with and without their target's figures, every
 * class of malformed input, a fuzz loop, speed. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "codegen.h"
#include "fixtures.h"

#ifndef FORMAT_KERNELS_DIR
#error "FORMAT_KERNELS_DIR must name tests/kernels"
#endif

static const char *const fixtures[] = {"os_db.npu", "two_core.npu", "tail_int8.npu",
                                       "figures.npu"};
#define NFIXTURES ((int)(sizeof fixtures / sizeof *fixtures))

/* ---- helpers ---- */

typedef struct {
    char *s;
    size_t n;
} text;

static text read_stream(FILE *f)
{
    text t = {NULL, 0};
    size_t cap = 0;
    char chunk[1 << 14];
    size_t got;
    rewind(f);
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (t.n + got + 1 > cap) {
            cap = 2 * (t.n + got + 1);
            t.s = realloc(t.s, cap);
            if (!t.s)
                abort();
        }
        memcpy(t.s + t.n, chunk, got);
        t.n += got;
    }
    if (!t.s && !(t.s = malloc(1)))
        abort();
    t.s[t.n] = '\0';
    return t;
}

static text read_path(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", FORMAT_KERNELS_DIR, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(1);
    }
    text t = read_stream(f);
    fclose(f);
    return t;
}

static bool parse_mem(const char *s, size_t n, const char *name, cg_kernel *k, char *err,
                      size_t errlen)
{
    FILE *f = tmpfile();
    if (!f || fwrite(s, 1, n, f) != n)
        abort();
    rewind(f);
    bool ok = cg_parse(f, name, k, err, errlen);
    fclose(f);
    return ok;
}

static text print_mem(const cg_kernel *k)
{
    FILE *f = tmpfile();
    if (!f)
        abort();
    CHECK(cg_print(f, k));
    text t = read_stream(f);
    fclose(f);
    return t;
}

static bool zeroed(const cg_kernel *k)
{
    static const cg_kernel zero;
    return memcmp(k, &zero, sizeof zero) == 0;
}

static bool buf_eq(const cg_buf *a, const cg_buf *b)
{
    return strncmp(a->name, b->name, sizeof a->name) == 0 && a->space == b->space &&
           a->elem == b->elem && a->offset == b->offset && a->rows == b->rows &&
           a->cols == b->cols;
}

static bool operand_eq(const cg_operand *a, const cg_operand *b)
{
    return a->buf == b->buf && a->rows == b->rows && a->cols == b->cols && a->r0 == b->r0 &&
           a->c0 == b->c0;
}

/* Equal in every field but cg_instr.line. */
static bool kernel_eq(const cg_kernel *a, const cg_kernel *b)
{
    const sp_problem *p = &a->problem, *q = &b->problem;
    const sp_config *c = &a->config, *d = &b->config;
    if (a->figures != b->figures ||
        (a->figures ? !sp_target_same(&a->target, &b->target, NULL, 0)
                    : strncmp(a->target.name, b->target.name, sizeof a->target.name) != 0) ||
        strncmp(p->name, q->name, sizeof p->name) != 0 || p->dtype != q->dtype ||
        p->M != q->M || p->N != q->N || p->K != q->K || p->batch != q->batch ||
        c->m != d->m || c->n != d->n || c->k != d->k || c->cores != d->cores ||
        c->strategy != d->strategy || c->double_buffer != d->double_buffer ||
        c->split != d->split || a->ncores != b->ncores)
        return false;
    for (int t = 0; t < 3; t++)
        if (!buf_eq(&a->tensors[t], &b->tensors[t]))
            return false;
    for (int i = 0; i < a->ncores; i++) {
        const cg_core *x = &a->cores[i], *y = &b->cores[i];
        if (x->nbufs != y->nbufs || x->n != y->n)
            return false;
        for (int j = 0; j < x->nbufs; j++)
            if (!buf_eq(&x->bufs[j], &y->bufs[j]))
                return false;
        for (size_t j = 0; j < x->n; j++) {
            const cg_instr *u = &x->code[j], *v = &y->code[j];
            if (u->op != v->op || u->pipe != v->pipe || u->src != v->src ||
                u->dst != v->dst || u->event != v->event || u->init != v->init ||
                !operand_eq(&u->d, &v->d) || !operand_eq(&u->a, &v->a) ||
                !operand_eq(&u->b, &v->b))
                return false;
        }
    }
    return true;
}

/* print(k) parses back to k, and printing that gives the same bytes. */
static void round_trip(const cg_kernel *k, const char *what)
{
    char err[256];
    cg_kernel k2;
    text t1 = print_mem(k);
    if (!CHECK(parse_mem(t1.s, t1.n, what, &k2, err, sizeof err))) {
        fprintf(stderr, "  %s: %s\n", what, err);
        free(t1.s);
        return;
    }
    if (!CHECK(kernel_eq(k, &k2)))
        fprintf(stderr, "  %s: parse(print(k)) != k\n", what);
    text t2 = print_mem(&k2);
    CHECK(t1.n == t2.n && memcmp(t1.s, t2.s, t1.n) == 0);
    free(t1.s);
    free(t2.s);
    cg_kernel_free(&k2);
}

/* The text without its whole-line comments (the fixtures' canonical body). */
static text strip_comment_lines(const text *in)
{
    text t = {malloc(in->n + 1), 0};
    if (!t.s)
        abort();
    for (size_t i = 0; i < in->n;) {
        const char *nl = memchr(in->s + i, '\n', in->n - i);
        size_t end = nl ? (size_t)(nl - in->s) + 1 : in->n;
        if (in->s[i] != '#') {
            memcpy(t.s + t.n, in->s + i, end - i);
            t.n += end - i;
        }
        i = end;
    }
    t.s[t.n] = '\0';
    return t;
}

/* ---- fixtures ---- */

static void test_fixtures(void)
{
    for (int i = 0; i < NFIXTURES; i++) {
        char err[256];
        cg_kernel k;
        text t = read_path(fixtures[i]);
        if (!CHECK(parse_mem(t.s, t.n, fixtures[i], &k, err, sizeof err))) {
            fprintf(stderr, "  %s\n", err);
            free(t.s);
            continue;
        }
        /* the fixtures are canonical apart from their leading comments */
        text body = strip_comment_lines(&t);
        text out = print_mem(&k);
        CHECK_STR(out.s, body.s);
        round_trip(&k, fixtures[i]);
        CHECK_STR(k.target.name, i == 3 ? "tiny-npu" : "ascend910");
        CHECK_INT(k.figures, i == 3);
        CHECK_INT(k.ncores, k.config.cores);

        if (i == 0) { /* os_db.npu */
            CHECK_INT(k.config.double_buffer, 1);
            CHECK_INT(k.cores[0].nbufs, 10);
            CHECK_INT(k.cores[0].n, 6 + 4 * 13 + 2 + 2 * 9 + 7);
            const cg_instr *in = &k.cores[0].code[0];
            CHECK_INT(in->op, CG_SET_FLAG);
            CHECK_INT(in->pipe, CG_MTE1);
            CHECK_INT(in->dst, CG_MTE2);
            CHECK_INT(in->line, 22);
            CHECK_INT(k.cores[0].code[k.cores[0].n - 1].op, CG_BARRIER);
        } else if (i == 1) { /* two_core.npu */
            CHECK_INT(k.ncores, 2);
            const cg_instr *st = &k.cores[1].code[11];
            CHECK_INT(st->op, CG_COPY);
            CHECK_INT(st->pipe, CG_FIX);
            CHECK_INT(st->d.buf, -3);
            CHECK_INT(st->d.r0, 32);
            CHECK_INT(st->d.rows, 32);
        } else if (i == 3) { /* figures.npu: two_core.npu on a target of its own */
            CHECK_INT(k.target.kind, SP_NPU);
            CHECK_INT(k.target.cores, 2);
            CHECK_DBL(k.target.clock_mhz, 750.5);
            CHECK_INT(k.target.buf_bytes[SP_L0C], 4096);
            CHECK_INT(k.target.buf_align[SP_L0A], 512);
            CHECK_DBL(k.target.path[SP_L1_L0B].bandwidth, 64);
            CHECK_DBL(k.target.gm_bandwidth, 40.25);
            CHECK_INT(k.target.events, 4);
            CHECK_INT(k.cores[1].n, 13);
        } else { /* tail_int8.npu */
            CHECK_INT(k.problem.dtype, SP_INT8);
            CHECK_INT(k.tensors[2].elem, CG_INT32);
            const cg_instr *ld = &k.cores[0].code[0], *st = &k.cores[0].code[11];
            CHECK_INT(ld->d.rows, 32);
            CHECK_INT(ld->d.cols, 64);
            CHECK_INT(ld->a.buf, -1);
            CHECK_INT(ld->a.rows, 20);
            CHECK_INT(ld->a.cols, 40);
            CHECK_INT(st->d.buf, -3);
            CHECK_INT(st->a.buf, 4);
            CHECK_INT(st->a.rows, 20);
            CHECK_INT(st->a.cols, 24);
        }
        free(out.s);
        free(body.s);
        free(t.s);
        cg_kernel_free(&k);
    }
}

/* ---- the example of the brief, and edits of it ---- */

static const char *const example[] = {
    "npu-kernel 1",
    "target ascend910",
    "problem bert fp16 M=512 N=768 K=768 batch=1",
    "config OS m=256 n=256 k=128 double_buffer=0 cores=1 split=M",
    "tensor A fp16 512x768",
    "tensor B fp16 768x768",
    "tensor C fp32 512x768",
    "core 0",
    "  buf a0 L1 0 256x128 fp16",
    "  buf b0 L1 65536 128x256 fp16",
    "  buf la0 L0A 0 256x128 fp16",
    "  buf lb0 L0B 0 128x256 fp16",
    "  buf c0 L0C 0 256x256 fp32",
    "  buf u0 UB 0 128x256 fp32",
    "  MTE2 copy a0 <- A[0:256,0:128]",
    "  MTE2 copy b0 <- B[0:128,0:256]",
    "  set_flag MTE2 MTE1 0",
    "  wait_flag MTE2 MTE1 0",
    "  MTE1 copy la0 <- a0",
    "  MTE1 copy lb0 <- b0",
    "  set_flag MTE1 M 0",
    "  wait_flag MTE1 M 0",
    "  M mmad c0 <- la0 lb0 init",
    "  set_flag M FIX 0",
    "  wait_flag M FIX 0",
    "  FIX copy u0 <- c0[0:128,0:256]",
    "  set_flag FIX MTE3 0",
    "  wait_flag FIX MTE3 0",
    "  MTE3 copy C[0:128,0:256] <- u0",
    "  barrier MTE3",
};
#define NEXAMPLE ((int)(sizeof example / sizeof *example))

enum { KEEP, REPLACE, DELETE, INSERT };

/* The example with line `line` (1-based) replaced, deleted or preceded by `s`
 * (INSERT at NEXAMPLE + 1 appends); the caller frees. */
static char *edited(int line, int mode, const char *s)
{
    size_t n = 1 + (s ? strlen(s) + 1 : 0);
    for (int i = 0; i < NEXAMPLE; i++)
        n += strlen(example[i]) + 1;
    char *t = malloc(n), *p = t;
    if (!t)
        abort();
    for (int i = 1; i <= NEXAMPLE + 1; i++) {
        if (i == line && mode != KEEP && mode != DELETE)
            p += sprintf(p, "%s\n", s);
        if (i <= NEXAMPLE && !(i == line && (mode == REPLACE || mode == DELETE)))
            p += sprintf(p, "%s\n", example[i - 1]);
    }
    *p = '\0';
    return t;
}

static void expect_error(const char *s, size_t n, const char *msg, int at)
{
    char err[512];
    cg_kernel k;
    memset(&k, 0x5a, sizeof k);
    bool ok = parse_mem(s, n, "k.npu", &k, err, sizeof err);
    if (!CHECK(!ok)) {
        fprintf(stderr, "  (case at line %d parsed; expected \"%s\")\n", at, msg);
        cg_kernel_free(&k);
        return;
    }
    if (!check_str(err, msg, "err", __FILE__, at))
        fprintf(stderr, "  (case at line %d)\n", at);
    CHECK(zeroed(&k));
}

#define EDIT(line, mode, s, msg)                                                              \
    do {                                                                                      \
        char *t_ = edited(line, mode, s);                                                     \
        expect_error(t_, strlen(t_), msg, __LINE__);                                          \
        free(t_);                                                                             \
    } while (0)
#define RAW(s, msg) expect_error(s, sizeof s - 1, msg, __LINE__)

static void test_example(void)
{
    char err[256];
    cg_kernel k;
    char *t = edited(0, KEEP, NULL);
    if (!CHECK(parse_mem(t, strlen(t), "k.npu", &k, err, sizeof err))) {
        fprintf(stderr, "  %s\n", err);
        free(t);
        return;
    }
    text out = print_mem(&k);
    CHECK_STR(out.s, t); /* the example is canonical */
    free(out.s);
    free(t);

    CHECK_STR(k.problem.name, "bert");
    CHECK_INT(k.problem.M, 512);
    CHECK_INT(k.problem.batch, 1);
    CHECK_INT(k.config.strategy, SP_OS);
    CHECK_INT(k.config.m, 256);
    CHECK_INT(k.config.k, 128);
    CHECK_INT(k.config.split, SP_SPLIT_M);
    CHECK_STR(k.tensors[1].name, "B");
    CHECK_INT(k.tensors[1].space, CG_GM);
    CHECK_INT(k.tensors[1].rows, 768);
    const cg_core *c = &k.cores[0];
    CHECK_INT(c->nbufs, 6);
    CHECK_STR(c->bufs[1].name, "b0");
    CHECK_INT(c->bufs[1].space, CG_L1);
    CHECK_INT(c->bufs[1].offset, 65536);
    CHECK_INT(c->bufs[1].rows, 128);
    CHECK_INT(c->bufs[1].cols, 256);
    CHECK_INT(c->bufs[1].elem, CG_FP16);
    CHECK_INT(c->n, 16);
    const cg_instr *in = c->code;
    CHECK_INT(in[0].op, CG_COPY);
    CHECK_INT(in[0].pipe, CG_MTE2);
    CHECK_INT(in[0].line, 15);
    CHECK_INT(in[0].d.buf, 0);
    CHECK_INT(in[0].d.rows, 256);
    CHECK_INT(in[0].d.cols, 128);
    CHECK_INT(in[0].a.buf, -1);
    CHECK_INT(in[0].a.r0, 0);
    CHECK_INT(in[0].a.rows, 256);
    CHECK_INT(in[0].a.cols, 128);
    CHECK_INT(in[2].op, CG_SET_FLAG);
    CHECK_INT(in[2].pipe, CG_MTE2);
    CHECK_INT(in[2].src, CG_MTE2);
    CHECK_INT(in[2].dst, CG_MTE1);
    CHECK_INT(in[3].op, CG_WAIT_FLAG);
    CHECK_INT(in[3].pipe, CG_MTE1);
    CHECK_INT(in[8].op, CG_MMAD);
    CHECK_INT(in[8].pipe, CG_M);
    CHECK_INT(in[8].init, 1);
    CHECK_INT(in[8].b.buf, 3);
    CHECK_INT(in[11].a.buf, 4);
    CHECK_INT(in[11].a.rows, 128);
    CHECK_INT(in[14].d.buf, -3);
    CHECK_INT(in[15].op, CG_BARRIER);
    CHECK_INT(in[15].pipe, CG_MTE3);
    CHECK_INT(in[15].line, 30);
    cg_kernel_free(&k);

    /* free layout: comments, blank lines, tabs, CRLF, a missing final newline,
     * and buffers declared between instructions (before their first use) */
    static const char loose[] =
        "# a kernel\r\n\r\n npu-kernel\t1   # version\r\ntarget ascend910\r\n"
        "problem p fp16 M=16 N=16 K=16 batch=1\nconfig OS m=16 n=16 k=16 double_buffer=0 "
        "cores=1 split=M\ntensor A fp16 16x16\ntensor B fp16 16x16\ntensor C fp32 16x16\n"
        "\n\ncore 0\nbuf a L1 0 16x16 fp16\n\tMTE2 copy a <- A#load\n  buf u UB 512 16x16 fp32\n"
        "MTE3 copy C <- u\nV nop\nbarrier\tS";
    if (CHECK(parse_mem(loose, sizeof loose - 1, "loose", &k, err, sizeof err))) {
        CHECK_INT(k.cores[0].nbufs, 2);
        CHECK_INT(k.cores[0].n, 4);
        CHECK_INT(k.cores[0].code[1].line, 16);
        CHECK_INT(k.cores[0].code[1].a.buf, 1);
        CHECK_INT(k.cores[0].code[2].op, CG_NOP);
        CHECK_INT(k.cores[0].code[2].pipe, CG_V);
        CHECK_INT(k.cores[0].code[3].pipe, CG_S);
        round_trip(&k, "loose");
        cg_kernel_free(&k);
    } else {
        fprintf(stderr, "  %s\n", err);
    }
}

static void test_errors(void)
{
    /* header */
    EDIT(1, REPLACE, "npu-kernel 3", "k.npu:1: unsupported format version 3");
    EDIT(1, REPLACE, "npu-kernel 02", "k.npu:1: unsupported format version 02");
    EDIT(1, REPLACE, "npu-kernel", "k.npu:1: expected 'npu-kernel 2'");
    EDIT(1, DELETE, NULL, "k.npu:1: missing 'npu-kernel' line (got 'target')");
    EDIT(2, DELETE, NULL, "k.npu:2: missing 'target' line (got 'problem')");
    EDIT(4, DELETE, NULL, "k.npu:4: missing 'config' line (got 'tensor')");
    EDIT(2, REPLACE, "target ascend/910",
         "k.npu:2: bad target name 'ascend/910' ([A-Za-z0-9_.-], 1 to 63 characters)");
    EDIT(3, REPLACE, "problem bert fp8 M=512 N=768 K=768 batch=1",
         "k.npu:3: unknown dtype 'fp8'");
    EDIT(3, REPLACE, "problem be/rt fp16 M=512 N=768 K=768 batch=1",
         "k.npu:3: bad problem name 'be/rt' ([A-Za-z0-9_.-], 1 to 40 characters)");
    EDIT(3, REPLACE, "problem bert fp16 M=512 N=768 K=768",
         "k.npu:3: expected 'problem NAME DTYPE M= N= K= batch='");
    EDIT(3, REPLACE, "problem bert fp16 M=512 K=768 N=768 batch=1",
         "k.npu:3: expected 'N=', got 'K=768'");
    EDIT(3, REPLACE, "problem bert fp16 M=99999999999 N=768 K=768 batch=1",
         "k.npu:3: M=99999999999 out of range (1..2147483647)");
    EDIT(3, REPLACE, "problem bert fp16 M=-5 N=768 K=768 batch=1", "k.npu:3: bad value 'M=-5'");
    EDIT(4, REPLACE, "config XS m=256 n=256 k=128 double_buffer=0 cores=1 split=M",
         "k.npu:4: unknown strategy 'XS'");
    EDIT(4, REPLACE, "config OS m=256 n=256 k=128 double_buffer=2 cores=1 split=M",
         "k.npu:4: double_buffer=2 out of range (0..1)");
    EDIT(4, REPLACE, "config OS m=256 n=256 k=128 double_buffer=0 cores=1 split=K",
         "k.npu:4: unknown split 'K'");
    EDIT(4, REPLACE, "config OS m=256 n=256 k=0 double_buffer=0 cores=1 split=M",
         "k.npu:4: k=0 out of range (1..2147483647)");
    EDIT(5, REPLACE, "tensor B fp16 768x768", "k.npu:5: expected 'tensor A', got 'tensor B'");
    EDIT(5, REPLACE, "tensor A fp16 512x512",
         "k.npu:5: tensor A must be fp16 512x768 for the problem");
    EDIT(7, REPLACE, "tensor C fp16 512x768",
         "k.npu:7: tensor C must be fp32 512x768 for the problem");
    EDIT(6, REPLACE, "tensor B bf16 768x768", "k.npu:6: unknown element type 'bf16'");
    EDIT(6, REPLACE, "tensor B fp16 768*768",
         "k.npu:6: bad size '768*768', expected ROWSxCOLS");

    /* cores */
    EDIT(8, REPLACE, "core 1", "k.npu:8: expected 'core 0', got 'core 1'");
    EDIT(8, DELETE, NULL, "k.npu:8: missing 'core 0' line (got 'buf')");
    EDIT(4, REPLACE, "config OS m=256 n=256 k=128 double_buffer=0 cores=2 split=M",
         "k.npu:4: config cores=2 but the file has 1 core section");
    EDIT(NEXAMPLE + 1, INSERT, "core 1", "k.npu:31: core 1 exceeds config cores=1");
    EDIT(NEXAMPLE + 1, INSERT, "core 2", "k.npu:31: expected 'core 1', got 'core 2'");

    /* buffers */
    EDIT(10, REPLACE, "  buf a0 L1 65536 128x256 fp16", "k.npu:10: duplicate buffer 'a0'");
    EDIT(10, REPLACE, "  buf A L1 65536 128x256 fp16",
         "k.npu:10: buffer name 'A' is reserved for a tensor");
    EDIT(10, REPLACE, "  buf g0 GM 0 128x256 fp16", "k.npu:10: buffer 'g0' cannot be in GM");
    EDIT(10, REPLACE, "  buf g0 L2 0 128x256 fp16", "k.npu:10: unknown memory space 'L2'");
    EDIT(10, REPLACE, "  buf abcdefghijklmnop L1 0 1x1 fp16",
         "k.npu:10: bad buffer name 'abcdefghijklmnop' ([A-Za-z_][A-Za-z0-9_], at most 15 "
         "characters)");
    EDIT(10, REPLACE, "  buf 0b L1 0 1x1 fp16",
         "k.npu:10: bad buffer name '0b' ([A-Za-z_][A-Za-z0-9_], at most 15 characters)");
    EDIT(10, REPLACE, "  buf b0 L1 -1 128x256 fp16", "k.npu:10: bad offset '-1'");
    EDIT(10, REPLACE, "  buf b0 L1 0 0x256 fp16",
         "k.npu:10: size 0x256 out of range (1..2147483647 each)");
    EDIT(10, REPLACE, "  buf b0 L1 2000000000 65536x65536 fp16",
         "k.npu:10: buffer 'b0' ends beyond byte 2147483647");
    EDIT(10, REPLACE, "  buf b0 L1 0 128x256",
         "k.npu:10: expected 'buf NAME SPACE OFFSET ROWSxCOLS ELEM'");

    /* instructions */
    EDIT(15, REPLACE, "  MTE9 copy a0 <- A[0:256,0:128]", "k.npu:15: unknown pipe 'MTE9'");
    EDIT(17, REPLACE, "  set_flag MTE2 VEC 0", "k.npu:17: unknown pipe 'VEC'");
    EDIT(30, REPLACE, "  barrier mte3", "k.npu:30: unknown pipe 'mte3'");
    EDIT(17, REPLACE, "  set_flag MTE2 MTE1 256", "k.npu:17: event 256 out of range (0..255)");
    EDIT(17, REPLACE, "  set_flag MTE2 MTE1", "k.npu:17: expected 'set_flag SRC DST EVENT'");
    EDIT(30, REPLACE, "  barrier", "k.npu:30: expected 'barrier PIPE'");
    EDIT(30, REPLACE, "  frobnicate MTE3", "k.npu:30: unknown statement 'frobnicate'");
    EDIT(30, REPLACE, "  MTE3 nop now", "k.npu:30: expected 'PIPE nop'");
    EDIT(19, REPLACE, "  MTE1 copy la0 <- a9", "k.npu:19: unknown buffer 'a9'");
    EDIT(19, REPLACE, "  MTE1 copy la0 a0", "k.npu:19: expected 'PIPE copy DST <- SRC'");
    EDIT(19, REPLACE, "  MTE2 copy la0 <- a0",
         "k.npu:19: copy L1 -> L0A runs on MTE1, not MTE2");
    EDIT(26, REPLACE, "  FIX copy u0 <- la0", "k.npu:26: no copy path from L0A to UB");
    EDIT(29, REPLACE, "  MTE3 copy A <- u0", "k.npu:29: element mismatch in copy: fp32 -> fp16");
    EDIT(14, REPLACE, "  buf u0 UB 0 128x256 fp16",
         "k.npu:26: element mismatch in copy: fp32 -> fp16");
    EDIT(15, REPLACE, "  MTE2 copy a0 <- A[0:256,700:828]",
         "k.npu:15: block 'A[0:256,700:828]' out of bounds (A is 512x768)");
    EDIT(15, REPLACE, "  MTE2 copy a0[0:257,0:128] <- A[0:256,0:128]",
         "k.npu:15: block 'a0[0:257,0:128]' out of bounds (a0 is 256x128)");
    EDIT(15, REPLACE, "  MTE2 copy a0 <- A[0:256,0:99999999999]",
         "k.npu:15: block 'A[0:256,0:99999999999]' out of bounds (A is 512x768)");
    EDIT(15, REPLACE, "  MTE2 copy a0 <- A[5:5,0:128]", "k.npu:15: empty block 'A[5:5,0:128]'");
    EDIT(15, REPLACE, "  MTE2 copy a0 <- A[0:256;0:128]",
         "k.npu:15: bad operand 'A[0:256;0:128]', expected NAME or NAME[r0:r1,c0:c1]");
    EDIT(15, REPLACE, "  MTE2 copy a0 <- A[0:256,0:128]x",
         "k.npu:15: bad operand 'A[0:256,0:128]x', expected NAME or NAME[r0:r1,c0:c1]");
    EDIT(15, REPLACE, "  MTE2 copy a0 <- A-1", "k.npu:15: bad operand 'A-1'");
    EDIT(26, REPLACE, "  FIX copy u0 <- c0",
         "k.npu:26: destination block 128x256 smaller than source block 256x256");
    EDIT(29, REPLACE, "  MTE3 copy C[0:256,0:256] <- u0",
         "k.npu:29: GM destination block 256x256 must equal source block 128x256");
    EDIT(19, REPLACE, "  buf big L1 0 70000x1 fp16\n  MTE1 copy la0 <- big",
         "k.npu:20: block 'big' too large: 70000x1 (at most 65535 rows and cols)");
    EDIT(23, REPLACE, "  M mmad c0 <- la0[0:256,0:64] lb0 init",
         "k.npu:23: mmad shape mismatch: dst 256x256 <- a 256x64 . b 128x256");
    EDIT(23, REPLACE, "  M mmad c0[0:128,0:256] <- la0 lb0 init",
         "k.npu:23: mmad shape mismatch: dst 128x256 <- a 256x128 . b 128x256");
    EDIT(23, REPLACE, "  M mmad c0 <- lb0 la0 init", "k.npu:23: mmad a must be in L0A, not L0B");
    EDIT(23, REPLACE, "  M mmad u0 <- la0 lb0 init",
         "k.npu:23: mmad dst must be in L0C, not UB");
    EDIT(23, REPLACE, "  MTE1 mmad c0 <- la0 lb0 init", "k.npu:23: mmad runs on M, not MTE1");
    EDIT(23, REPLACE, "  M mmad c0 <- la0 lb0 zero",
         "k.npu:23: expected 'init' or 'acc', got 'zero'");
    EDIT(23, REPLACE, "  M mmad c0 <- la0 lb0", "k.npu:23: expected 'M mmad DST <- A B init|acc'");
    EDIT(13, REPLACE, "  buf c0 L0C 0 256x256 fp16",
         "k.npu:23: element mismatch in mmad: dst is fp16, expected fp32");
    EDIT(12, REPLACE, "  buf lb0 L0B 0 128x256 int8",
         "k.npu:20: element mismatch in copy: fp16 -> int8");

    /* use before declaration: u0 declared after its first use */
    {
        char *t = edited(14, DELETE, NULL);
        char *p = strstr(t, "  FIX copy");
        size_t n = strlen(t);
        char *t2 = malloc(n + 64);
        if (!t2)
            abort();
        sprintf(t2, "%.*s  buf u0 UB 0 128x256 fp32\n%s", (int)(p - t), t, p);
        cg_kernel k;
        char err[256];
        CHECK(parse_mem(t2, strlen(t2), "k.npu", &k, err, sizeof err));
        cg_kernel_free(&k);
        expect_error(t, n, "k.npu:25: unknown buffer 'u0'", __LINE__);
        free(t2);
        free(t);
    }

    /* bytes */
    RAW("", "k.npu:1: unexpected end of file, missing 'npu-kernel' line");
    RAW("# nothing\n\n", "k.npu:2: unexpected end of file, missing 'npu-kernel' line");
    RAW("\x01\x02\xff garbage\n", "k.npu:1: missing 'npu-kernel' line (got '?\?\?')");
    RAW("npu-kernel 1\n\0\0\n", "k.npu:2: NUL byte in line");
    RAW("npu-kernel 1\ntarget ascend910 # \0\n", "k.npu:2: NUL byte in line");
    RAW("npu-kernel 1\ntarget a b c d e f g h i j k\n",
        "k.npu:2: expected 'target NAME' (format 1 names a built-in target)");
    RAW("npu-kernel \x80\x81\n", "k.npu:1: unsupported format version ?\?");
    {
        char *t = malloc(20000);
        if (!t)
            abort();
        strcpy(t, "npu-kernel 1\n");
        memset(t + 13, 'x', 5000);
        strcpy(t + 5013, "\n");
        expect_error(t, strlen(t), "k.npu:2: line too long (more than 4095 bytes)", __LINE__);
        memset(t + 13, '7', 19000); /* no newline at all */
        t[19013] = '\0';
        expect_error(t, strlen(t), "k.npu:2: line too long (more than 4095 bytes)", __LINE__);
        /* a long message token is shortened */
        strcpy(t, "npu-kernel ");
        memset(t + 11, '9', 100);
        strcpy(t + 111, "\n");
        expect_error(t, strlen(t),
                     "k.npu:1: unsupported format version "
                     "9999999999999999999999999999999999999999...",
                     __LINE__);
        free(t);
    }

    /* truncated files */
    {
        char *t = edited(0, KEEP, NULL);
        char *cut = strstr(t, "tensor C fp32 512x768\n") + 22;
        expect_error(t, (size_t)(cut - t),
                     "k.npu:7: unexpected end of file, missing 'core 0' line", __LINE__);
        expect_error(t, (size_t)(strstr(t, "config") - t),
                     "k.npu:3: unexpected end of file, missing 'config' line", __LINE__);
        cut = strstr(t, "A[0:256,0:128]") + 11;
        expect_error(t, (size_t)(cut - t),
                     "k.npu:15: bad operand 'A[0:256,0:1', expected NAME or NAME[r0:r1,c0:c1]",
                     __LINE__);
        free(t);
        text tc = read_path("two_core.npu");
        cut = strstr(tc.s, "core 1\n");
        expect_error(tc.s, (size_t)(cut - tc.s),
                     "k.npu:6: config cores=2 but the file has 1 core section", __LINE__);
        /* every prefix parses or fails cleanly */
        text td = read_path("os_db.npu");
        int accepted = 0;
        for (size_t n = 0; n <= td.n; n++) {
            cg_kernel k;
            char err[256];
            if (parse_mem(td.s, n, "k.npu", &k, err, sizeof err)) {
                accepted++;
                cg_kernel_free(&k);
            } else if (!zeroed(&k) || strncmp(err, "k.npu:", 6) != 0 || strchr(err, '\n')) {
                CHECK(!"bad failure on a prefix");
                break;
            }
        }
        /* the whole file, without its last newline, and cut after the last instruction */
        CHECK(accepted >= 2);
        free(tc.s);
        free(td.s);
    }

    /* short or missing error buffers */
    {
        char *t = edited(1, REPLACE, "npu-kernel 4");
        cg_kernel k;
        char small[12];
        CHECK(!parse_mem(t, strlen(t), "k.npu", &k, small, sizeof small));
        CHECK_STR(small, "k.npu:1: un");
        CHECK(!parse_mem(t, strlen(t), "k.npu", &k, NULL, 0));
        CHECK(!parse_mem(t, strlen(t), NULL, &k, small, sizeof small));
        CHECK_STR(small, "<input>:1: ");
        free(t);
    }
}

/* ---- the target's figures (format 2) ---- */

/* The example as format 2 on target t, with `extra` appended to its target line. */
static char *example_on(const sp_target *t, const char *extra)
{
    char line[2 * SP_TARGET_TEXT_MAX] = "target ";
    sp_target_print(line + 7, SP_TARGET_TEXT_MAX, t);
    strcat(line, extra);
    char *one = edited(1, REPLACE, "npu-kernel 2");
    char *two = malloc(strlen(one) + strlen(line) + 1);
    if (!two)
        abort();
    char *rest = strchr(one, '\n') + 1;
    rest = strchr(rest, '\n') + 1; /* after `target ascend910` */
    sprintf(two, "npu-kernel 2\n%s\n%s", line, rest);
    free(one);
    return two;
}

#define ON(t, extra, msg)                                                                     \
    do {                                                                                      \
        char *t_ = example_on((t), (extra));                                                  \
        expect_error(t_, strlen(t_), msg, __LINE__);                                          \
        free(t_);                                                                             \
    } while (0)

static void test_figures(void)
{
    /* a target of its own: read back exactly, printed the same */
    const sp_target base = fx_ascend910();
    sp_target t = base;
    strcpy(t.name, "ascend910-custom");
    t.cores = 8;
    t.clock_mhz = 1234.5678901234567;
    t.buf_bytes[SP_L1] = 512 * KiB;
    t.path[SP_GM_L1].bandwidth = 0.1 + 0.2;
    char *src = example_on(&t, ""), err[512];
    cg_kernel k;
    if (CHECK(parse_mem(src, strlen(src), "k.npu", &k, err, sizeof err))) {
        CHECK(k.figures);
        char why[256] = "";
        if (!CHECK(sp_target_same(&k.target, &t, why, sizeof why)))
            fprintf(stderr, "  %s\n", why);
        text out = print_mem(&k);
        CHECK_STR(out.s, src); /* canonical */
        free(out.s);
        round_trip(&k, "figures");
        cg_kernel_free(&k);
    } else {
        fprintf(stderr, "  %s\n", err);
    }
    free(src);

    /* generated kernels carry their target */
    sp_problem p = fx_problem(100, 70, 50, 1, SP_FP16);
    sp_config c = {.m = 32, .n = 32, .k = 32, .cores = 2, .strategy = SP_OS,
                   .split = SP_SPLIT_M, .double_buffer = 1};
    if (CHECK(cg_generate(&t, &p, &c, &k, err, sizeof err))) {
        CHECK(k.figures);
        CHECK(sp_target_same(&k.target, &t, NULL, 0));
        text out = print_mem(&k);
        CHECK_PREFIX(out.s, "npu-kernel 2\ntarget ascend910-custom kind=npu cores=8 "
                            "clock_mhz=1234.5678901234567 macs.fp16=4096 ");
        CHECK_HAS(out.s, " l1=524288 l0a=65536 ");
        CHECK_HAS(out.s, " gm_l1.bandwidth=0.30000000000000004 ");
        free(out.s);
        round_trip(&k, "generated on a target of its own");
        cg_kernel_free(&k);
    }

    /* hostile target lines: one line naming the file, line 2 and the field */
    sp_target a = base;
    ON(&a, " cores=4", "k.npu:2: target 'ascend910': field 'cores' given twice");
    ON(&a, " cors=4", "k.npu:2: target 'ascend910': unknown field 'cors'");
    ON(&a, " vregs=32", "k.npu:2: target 'ascend910': field 'vregs' does not apply to npu targets");
    ON(&a, " name=x", "k.npu:2: target 'ascend910': the name is the first word, not 'name='");
    ON(&a, " figures", "k.npu:2: target 'ascend910': expected key=value, got 'figures'");
    a.cores = 0;
    ON(&a, "", "k.npu:2: target 'ascend910': field 'cores' must be a positive integer");
    a = base;
    a.buf_bytes[SP_L0A] = 1000;
    ON(&a, "", "k.npu:2: target 'ascend910': field 'l0a' (1000 bytes) is not a multiple of its "
               "alignment 512");
    EDIT(1, REPLACE, "npu-kernel 2", "k.npu:2: target 'ascend910': field 'cores' is missing");
    {
        char *x = example_on(&base, "");
        char *at = strstr(x, " events=8");
        static const char *const values[][2] = {
            {"events=99999999999999999999",
             "k.npu:2: target 'ascend910': field 'events' must be an integer from -2147483647 to "
             "2147483647, not '99999999999999999999'"},
            {"events=1e3", "k.npu:2: target 'ascend910': field 'events' must be an integer from "
                           "-2147483647 to 2147483647, not '1e3'"},
            {"events=", "k.npu:2: target 'ascend910': field 'events' must be an integer from "
                        "-2147483647 to 2147483647, not ''"},
        };
        for (size_t i = 0; at && i < sizeof values / sizeof *values; i++) {
            char *y = malloc(strlen(x) + 64);
            if (!y)
                abort();
            sprintf(y, "%.*s %s%s", (int)(at - x), x, values[i][0], at + 9);
            expect_error(y, strlen(y), values[i][1], __LINE__);
            free(y);
        }
        /* a huge number in a number field */
        at = strstr(x, "clock_mhz=1000");
        char *y = malloc(strlen(x) + 400);
        if (!y)
            abort();
        char big[320];
        memset(big, '9', 310);
        big[310] = '\0';
        sprintf(y, "%.*sclock_mhz=%s%s", (int)(at - x), x, big, at + 14);
        expect_error(y, strlen(y),
                     "k.npu:2: target 'ascend910': field 'clock_mhz' must be a finite number, not "
                     "'9999999999999999999999999999999999999999...'",
                     __LINE__);
        free(y);
        free(x);
    }
    /* a CPU's figures are no kernel's target */
    sp_target cpu = {.name = "host-custom", .kind = SP_CPU, .cores = 2, .clock_mhz = 3000,
                     .cpu = {.simd_floats = 16, .vregs = 32, .fma_units = 2, .load_ports = 2,
                             .cache = {48 * KiB, 2 * MiB, 0}, .bw_l2 = 64, .bw_l3 = 32,
                             .bw_mem = 16, .bw_mem_shared = 24}};
    ON(&cpu, "", "k.npu:2: target 'host-custom' is a cpu target; kernels run on npu targets");
    /* more words than a target has fields */
    {
        char many[1024] = "", want[64];
        for (int i = 0; i < SP_TARGET_NFIELDS + 2; i++)
            strcat(many, " x=1");
        snprintf(want, sizeof want, "k.npu:2: more than %d figures on the target line",
                 SP_TARGET_NFIELDS - 1);
        ON(&base, many, want);
    }
    /* format 1 names its target only */
    {
        char *x = example_on(&base, "");
        x[11] = '1';
        expect_error(x, strlen(x),
                     "k.npu:2: expected 'target NAME' (format 1 names a built-in target)",
                     __LINE__);
        free(x);
    }
}

/* ---- generated kernels ---- */

static uint64_t rng_state;

static uint32_t rnd(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33);
}

static int rnd_in(int lo, int hi) { return lo + (int)(rnd() % (uint32_t)(hi - lo + 1)); }

static void add_buf(cg_core *c, int space, int elem, int rows, int cols)
{
    cg_buf *b = &c->bufs[c->nbufs];
    memset(b, 0, sizeof *b);
    snprintf(b->name, sizeof b->name, "%s_%d", cg_space_name(space), c->nbufs);
    b->space = (uint8_t)space;
    b->elem = (uint8_t)elem;
    b->offset = rnd_in(0, 1 << 20);
    b->rows = rows;
    b->cols = cols;
    c->nbufs++;
}

/* Region `r` (buffer index, or -1..-3 for a tensor) of core c in k. */
static const cg_buf *region(const cg_kernel *k, const cg_core *c, int r)
{
    return r >= 0 ? &c->bufs[r] : &k->tensors[-1 - r];
}

/* A random region of space sp and element e, or false if there is none. */
static bool pick(const cg_kernel *k, const cg_core *c, int sp, int e, int *r)
{
    int cand[64], n = 0;
    if (sp == CG_GM) {
        for (int t = 0; t < 3; t++)
            if (k->tensors[t].elem == e)
                cand[n++] = -1 - t;
    } else {
        for (int i = 0; i < c->nbufs && n < 64; i++)
            if (c->bufs[i].space == sp && c->bufs[i].elem == e)
                cand[n++] = i;
    }
    if (!n)
        return false;
    *r = cand[rnd() % (uint32_t)n];
    return true;
}

/* A block rows x cols at a random place inside region r. */
static cg_operand block(const cg_kernel *k, const cg_core *c, int r, int rows, int cols)
{
    const cg_buf *b = region(k, c, r);
    cg_operand o = {.buf = (int16_t)r, .rows = (uint16_t)rows, .cols = (uint16_t)cols};
    o.r0 = rnd_in(0, b->rows - rows);
    o.c0 = rnd_in(0, b->cols - cols);
    return o;
}

static void random_kernel(cg_kernel *k, int ncores, size_t ninstr)
{
    memset(k, 0, sizeof *k);
    if (rnd() % 2) { /* format 2: a target of its own */
        k->target = fx_ascend910();
        k->target.cores = rnd_in(1, 64);
        k->target.clock_mhz = rnd_in(1, 4000) / 3.0;
        k->target.path[SP_GM_L1].bandwidth = rnd_in(1, 1000) / 7.0;
        k->figures = true;
    }
    strcpy(k->target.name, rnd() % 2 ? "ascend910b" : "my-npu.v2");
    sp_problem *p = &k->problem;
    snprintf(p->name, sizeof p->name, "gen_%u", rnd() % 1000);
    p->dtype = rnd() % 2 ? SP_FP16 : SP_INT8;
    p->M = rnd_in(1, 300);
    p->N = rnd_in(1, 300);
    p->K = rnd_in(1, 300);
    p->batch = rnd_in(1, 3);
    int in = p->dtype == SP_INT8 ? CG_INT8 : CG_FP16, acc = in == CG_INT8 ? CG_INT32 : CG_FP32;
    sp_config *cf = &k->config;
    cf->strategy = (uint8_t)(rnd() % SP_NSTRATEGY);
    cf->m = rnd_in(16, 512);
    cf->n = rnd_in(16, 512);
    cf->k = rnd_in(16, 512);
    cf->double_buffer = (uint8_t)(rnd() % 2);
    cf->cores = ncores;
    cf->split = (uint8_t)(rnd() % SP_NSPLIT);
    int64_t dims[3][2] = {{p->batch * p->M, p->K}, {p->batch * p->K, p->N},
                          {p->batch * p->M, p->N}};
    for (int t = 0; t < 3; t++) {
        cg_buf *b = &k->tensors[t];
        b->name[0] = (char)('A' + t);
        b->space = CG_GM;
        b->elem = (uint8_t)(t == 2 ? acc : in);
        b->rows = (int32_t)dims[t][0];
        b->cols = (int32_t)dims[t][1];
    }
    k->ncores = ncores;
    k->cores = calloc((size_t)ncores, sizeof *k->cores);
    if (!k->cores)
        abort();
    static const int paths[][2] = {{CG_GM, CG_L1},   {CG_GM, CG_UB},  {CG_L1, CG_L0A},
                                   {CG_L1, CG_L0B},  {CG_L0C, CG_UB}, {CG_L0C, CG_GM},
                                   {CG_UB, CG_GM}};
    for (int ci = 0; ci < ncores; ci++) {
        cg_core *c = &k->cores[ci];
        c->bufs = calloc(40, sizeof *c->bufs);
        if (!c->bufs)
            abort();
        int need[5][2] = {{CG_L1, in}, {CG_L0A, in}, {CG_L0B, in}, {CG_L0C, acc}, {CG_UB, acc}};
        for (int i = 0; i < 5; i++)
            add_buf(c, need[i][0], need[i][1], rnd_in(1, 96), rnd_in(1, 96));
        for (int i = rnd_in(0, 30); i > 0; i--)
            add_buf(c, rnd_in(CG_L1, CG_UB), rnd_in(0, CG_NELEM - 1), rnd_in(1, 96),
                    rnd_in(1, 96));
        while (c->n < ninstr) {
            cg_instr x;
            memset(&x, 0, sizeof x);
            switch (rnd() % 6) {
            case 0:
            case 1: {
                const int *pa = paths[rnd() % 7];
                int e = rnd() % 2 ? in : acc, s, d;
                if (!pick(k, c, pa[0], e, &s) || !pick(k, c, pa[1], e, &d))
                    continue;
                const cg_buf *sb = region(k, c, s), *db = region(k, c, d);
                int rows = rnd_in(1, sb->rows < db->rows ? sb->rows : db->rows);
                int cols = rnd_in(1, sb->cols < db->cols ? sb->cols : db->cols);
                x.op = CG_COPY;
                x.pipe = (uint8_t)cg_copy_pipe(pa[0], pa[1]);
                if (rnd() % 4 == 0 && sb->rows <= db->rows && sb->cols <= db->cols &&
                    sb->rows <= 65535 && sb->cols <= 65535) {
                    x.a = block(k, c, s, sb->rows, sb->cols); /* whole source */
                    rows = sb->rows;
                    cols = sb->cols;
                } else {
                    x.a = block(k, c, s, rows, cols);
                }
                if (pa[1] == CG_GM)
                    x.d = block(k, c, d, rows, cols);
                else if (rnd() % 3 == 0 && db->rows <= 65535 && db->cols <= 65535)
                    x.d = block(k, c, d, db->rows, db->cols);
                else
                    x.d = block(k, c, d, rnd_in(rows, db->rows), rnd_in(cols, db->cols));
                break;
            }
            case 2: {
                int a, b, d;
                if (!pick(k, c, CG_L0A, in, &a) || !pick(k, c, CG_L0B, in, &b) ||
                    !pick(k, c, CG_L0C, acc, &d))
                    continue;
                const cg_buf *ab = &c->bufs[a], *bb = &c->bufs[b], *dbb = &c->bufs[d];
                int m = rnd_in(1, ab->rows < dbb->rows ? ab->rows : dbb->rows);
                int kk = rnd_in(1, ab->cols < bb->rows ? ab->cols : bb->rows);
                int n = rnd_in(1, bb->cols < dbb->cols ? bb->cols : dbb->cols);
                x.op = CG_MMAD;
                x.pipe = CG_M;
                x.init = (uint8_t)(rnd() % 2);
                x.d = block(k, c, d, m, n);
                x.a = block(k, c, a, m, kk);
                x.b = block(k, c, b, kk, n);
                break;
            }
            case 3:
            case 4:
                x.op = rnd() % 2 ? CG_SET_FLAG : CG_WAIT_FLAG;
                x.src = (uint8_t)(rnd() % CG_NPIPE);
                x.dst = (uint8_t)(rnd() % CG_NPIPE);
                x.pipe = x.op == CG_SET_FLAG ? x.src : x.dst;
                x.event = (uint8_t)(rnd() % 256);
                break;
            default:
                x.op = rnd() % 3 ? CG_BARRIER : CG_NOP;
                x.pipe = (uint8_t)(rnd() % CG_NPIPE);
                break;
            }
            if (!cg_emit(c, &x))
                abort();
        }
    }
}

static void test_generated(void)
{
    rng_state = 42;
    for (int i = 0; i < 60; i++) {
        cg_kernel k;
        random_kernel(&k, rnd_in(1, 4), (size_t)rnd_in(0, 300));
        char what[32];
        snprintf(what, sizeof what, "generated %d", i);
        round_trip(&k, what);
        cg_kernel_free(&k);
    }
    /* a block of a tensor larger than 65535 rows, and a region printed by name */
    cg_kernel k;
    random_kernel(&k, 1, 0);
    k.problem.M = 40000;
    k.problem.batch = 2;
    k.tensors[0].rows = k.tensors[2].rows = 80000;
    k.tensors[1].rows = (int32_t)(2 * k.problem.K);
    cg_instr x = {.op = CG_COPY, .pipe = CG_MTE2};
    x.d = (cg_operand){.buf = 0, .rows = 1, .cols = 1};
    x.a = (cg_operand){.buf = -1, .r0 = 79999, .c0 = 0, .rows = 1, .cols = 1};
    k.cores[0].bufs[0].rows = k.cores[0].bufs[0].cols = 1;
    CHECK(cg_emit(&k.cores[0], &x));
    round_trip(&k, "large tensor");
    text t = print_mem(&k);
    CHECK_HAS(t.s, "  MTE2 copy L1_0 <- A[79999:80000,0:1]\n");
    free(t.s);
    cg_kernel_free(&k);
}

/* ---- fuzz ---- */

static void mutate(text *t)
{
    static const char interesting[] = "\n\0 \t#[]:,x=-<09AZ_";
    size_t cap = t->n * 2 + 64;
    char *s = realloc(t->s, cap);
    if (!s)
        abort();
    t->s = s;
    for (int m = rnd_in(1, 4); m > 0; m--) {
        size_t n = t->n, i = n ? rnd() % n : 0;
        switch (rnd() % 8) {
        case 0: /* delete a byte */
            if (n) {
                memmove(s + i, s + i + 1, n - i - 1);
                t->n--;
            }
            break;
        case 1: /* duplicate a byte */
            if (n && n + 1 < cap) {
                memmove(s + i + 1, s + i, n - i);
                t->n++;
            }
            break;
        case 2: /* alter a byte */
            if (n)
                s[i] = (char)(rnd() % 2 ? rnd() % 256 : (unsigned)interesting[rnd() % 18]);
            break;
        case 3: /* alter a digit */
            if (n && s[i] >= '0' && s[i] <= '9')
                s[i] = (char)('0' + rnd() % 10);
            else if (n)
                s[i] = (char)('0' + rnd() % 10);
            break;
        case 4:   /* delete a line */
        case 5: { /* duplicate a line */
            if (!n)
                break;
            size_t a = i;
            while (a > 0 && s[a - 1] != '\n')
                a--;
            char *nl = memchr(s + i, '\n', n - i);
            size_t b = nl ? (size_t)(nl - s) + 1 : n;
            if (rnd() % 2) {
                memmove(s + a, s + b, n - b);
                t->n -= b - a;
            } else if (n + (b - a) < cap) {
                memmove(s + b + (b - a), s + b, n - b);
                memcpy(s + b, s + a, b - a);
                t->n += b - a;
            }
            break;
        }
        case 6: /* a huge number */
            if (n + 24 < cap) {
                memmove(s + i + 20, s + i, n - i);
                memset(s + i, '9', 20);
                t->n += 20;
            }
            break;
        default: /* truncate */
            t->n = i;
            break;
        }
    }
}

static void test_fuzz(int iters)
{
    text base[NFIXTURES + 1];
    for (int i = 0; i < NFIXTURES; i++)
        base[i] = read_path(fixtures[i]);
    base[NFIXTURES].s = edited(0, KEEP, NULL);
    base[NFIXTURES].n = strlen(base[NFIXTURES].s);
    rng_state = 12345;
    int accepted = 0, bad = 0;
    for (int it = 0; it < iters; it++) {
        const text *b = &base[it % (NFIXTURES + 1)];
        text t = {malloc(b->n + 1), b->n};
        if (!t.s)
            abort();
        memcpy(t.s, b->s, b->n);
        mutate(&t);
        cg_kernel k;
        char err[256];
        if (parse_mem(t.s, t.n, "f.npu", &k, err, sizeof err)) {
            accepted++;
            cg_kernel k2;
            text p1 = print_mem(&k);
            if (!parse_mem(p1.s, p1.n, "f.npu", &k2, err, sizeof err)) {
                bad++;
                fprintf(stderr, "  fuzz %d: reprint failed: %s\n", it, err);
            } else {
                text p2 = print_mem(&k2);
                if (!kernel_eq(&k, &k2) || p1.n != p2.n || memcmp(p1.s, p2.s, p1.n) != 0)
                    bad++;
                free(p2.s);
                cg_kernel_free(&k2);
            }
            free(p1.s);
            cg_kernel_free(&k);
        } else if (!zeroed(&k) || strncmp(err, "f.npu:", 6) != 0 || strchr(err, '\n')) {
            bad++;
            fprintf(stderr, "  fuzz %d: bad failure: %s\n", it, err);
        }
        free(t.s);
    }
    CHECK_INT(bad, 0);
    CHECK(accepted > 0 && accepted < iters);
    printf("fuzz: %d of %d mutants accepted\n", accepted, iters);
    for (int i = 0; i <= NFIXTURES; i++)
        free(base[i].s);
}

/* ---- speed and write errors ---- */

static double now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void test_speed(size_t n)
{
    char err[256];
    cg_kernel k, k2;
    text t = read_path("os_db.npu");
    if (!CHECK(parse_mem(t.s, t.n, "os_db", &k, err, sizeof err))) {
        free(t.s);
        return;
    }
    free(t.s);
    cg_core *c = &k.cores[0];
    size_t body = c->n;
    while (c->n < n) {
        cg_instr x = c->code[c->n % body]; /* cg_emit may move c->code */
        if (!cg_emit(c, &x))
            abort();
    }
    FILE *f = tmpfile();
    if (!f)
        abort();
    double t0 = now();
    CHECK(cg_print(f, &k));
    double t1 = now();
    rewind(f);
    CHECK(cg_parse(f, "big", &k2, err, sizeof err));
    double t2 = now();
    CHECK(kernel_eq(&k, &k2));
    printf("speed: %zu instructions, %ld bytes: print %.2f M instr/s, parse %.2f M instr/s\n",
           c->n, ftell(f), (double)c->n / (t1 - t0) / 1e6, (double)c->n / (t2 - t1) / 1e6);
    fclose(f);

    /* printing to a stream that cannot be written fails */
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", FORMAT_KERNELS_DIR, fixtures[0]);
    FILE *ro = fopen(path, "r");
    if (ro) {
        CHECK(!cg_print(ro, &k));
        fclose(ro);
    }
    cg_kernel_free(&k);
    cg_kernel_free(&k2);
}

/* test_codegen_format [INSTRUCTIONS [MUTANTS]]: sizes of the speed and fuzz runs. */
int main(int argc, char **argv)
{
    size_t speed_n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 1000000;
    int fuzz_n = argc > 2 ? atoi(argv[2]) : 4000;
    test_fixtures();
    test_example();
    test_errors();
    test_figures();
    test_generated();
    test_fuzz(fuzz_n > 0 ? fuzz_n : 4000);
    test_speed(speed_n);
    return CHECK_DONE();
}
