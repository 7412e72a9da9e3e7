/* kernels.c — the cycle-level NPU simulator on hand-built kernels: cycle counts
 * worked by hand, GM sharing, exact functional results, each program error's message. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>
#include <time.h>

#include <gsl/gsl_rng.h>

#include "check.h"
#include "codegen.h"
#include "fixtures.h"
#include "sim.h"

/* ---- building kernels by hand ---- */

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (!q) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return q;
}

static int in_elem(sp_dtype d) { return d == SP_INT8 ? CG_INT8 : CG_FP16; }
static int acc_elem(sp_dtype d) { return d == SP_INT8 ? CG_INT32 : CG_FP32; }

/* A kernel with `ncores` empty cores and the GM tensors of problem p. */
static cg_kernel new_kernel(int ncores, sp_problem p)
{
    cg_kernel k;
    memset(&k, 0, sizeof k);
    k.target = fx_round();
    k.figures = true;
    k.problem = p;
    int64_t b = p.batch;
    const char *names[3] = {"A", "B", "C"};
    int64_t dims[3][2] = {{b * p.M, p.K}, {b * p.K, p.N}, {b * p.M, p.N}};
    for (int i = 0; i < 3; i++) {
        strcpy(k.tensors[i].name, names[i]);
        k.tensors[i].space = CG_GM;
        k.tensors[i].elem = (uint8_t)(i < 2 ? in_elem(p.dtype) : acc_elem(p.dtype));
        k.tensors[i].rows = (int32_t)dims[i][0];
        k.tensors[i].cols = (int32_t)dims[i][1];
    }
    k.cores = xrealloc(NULL, (size_t)ncores * sizeof *k.cores);
    memset(k.cores, 0, (size_t)ncores * sizeof *k.cores);
    k.ncores = ncores;
    return k;
}

static int add_buf(cg_core *c, const char *name, int space, int elem, int offset, int rows,
                   int cols)
{
    c->bufs = xrealloc(c->bufs, (size_t)(c->nbufs + 1) * sizeof *c->bufs);
    cg_buf *b = &c->bufs[c->nbufs];
    memset(b, 0, sizeof *b);
    snprintf(b->name, sizeof b->name, "%s", name);
    b->space = (uint8_t)space;
    b->elem = (uint8_t)elem;
    b->offset = offset;
    b->rows = rows;
    b->cols = cols;
    return c->nbufs++;
}

static cg_operand whole(const cg_core *c, int b)
{
    cg_operand o = {(int16_t)b, (uint16_t)c->bufs[b].rows, (uint16_t)c->bufs[b].cols, 0, 0};
    return o;
}

static cg_operand blk(int b, int r0, int c0, int rows, int cols)
{
    cg_operand o = {(int16_t)b, (uint16_t)rows, (uint16_t)cols, r0, c0};
    return o;
}

/* A block of GM tensor t (0 = A, 1 = B, 2 = C). */
static cg_operand gm(int t, int r0, int c0, int rows, int cols)
{
    return blk(-1 - t, r0, c0, rows, cols);
}

static int space_of(const cg_core *c, cg_operand o)
{
    return o.buf < 0 ? CG_GM : c->bufs[o.buf].space;
}

static void emit(cg_core *c, cg_instr in)
{
    if (!cg_emit(c, &in)) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
}

static void copy(cg_core *c, cg_operand d, cg_operand a)
{
    cg_instr in = {.op = CG_COPY, .d = d, .a = a};
    in.pipe = (uint8_t)cg_copy_pipe(space_of(c, a), space_of(c, d));
    emit(c, in);
}

static void mmad(cg_core *c, cg_operand d, cg_operand a, cg_operand b, int init)
{
    emit(c, (cg_instr){.op = CG_MMAD, .pipe = CG_M, .d = d, .a = a, .b = b, .init = (uint8_t)init});
}

static void setf(cg_core *c, int src, int dst, int ev)
{
    emit(c, (cg_instr){.op = CG_SET_FLAG, .pipe = (uint8_t)src, .src = (uint8_t)src,
                       .dst = (uint8_t)dst, .event = (uint8_t)ev});
}

static void waitf(cg_core *c, int src, int dst, int ev)
{
    emit(c, (cg_instr){.op = CG_WAIT_FLAG, .pipe = (uint8_t)dst, .src = (uint8_t)src,
                       .dst = (uint8_t)dst, .event = (uint8_t)ev});
}

static void barrier(cg_core *c, int pipe)
{
    emit(c, (cg_instr){.op = CG_BARRIER, .pipe = (uint8_t)pipe});
}

/* Numbers every instruction as if parsed: line = 100 + index. */
static void number_lines(cg_kernel *k)
{
    for (int ci = 0; ci < k->ncores; ci++)
        for (size_t i = 0; i < k->cores[ci].n; i++)
            k->cores[ci].code[i].line = (uint32_t)(100 + i);
}

/* ---- an output-stationary kernel generator (the shape codegen emits) ---- */

typedef struct {
    int64_t M, N, K, batch;
    int m, n, k;
    bool db;          /* ping-pong L1 and L0A/L0B */
    int cores;        /* C tiles dealt round-robin */
    bool no_reverse;  /* drop the MTE1->MTE2 "slot free" flags (a WAR bug) */
    sp_dtype dtype;
} os_cfg;

static int imin(int64_t a, int64_t b) { return (int)(a < b ? a : b); }

static cg_kernel os_kernel(const os_cfg *o)
{
    cg_kernel k = new_kernel(o->cores, fx_problem(o->M, o->N, o->K, o->batch, o->dtype));
    int ie = in_elem(o->dtype), ae = acc_elem(o->dtype), is = cg_elem_size(ie);
    int slots = o->db ? 2 : 1;
    int abytes = o->m * o->k * is, bbytes = o->k * o->n * is;
    int a1[2] = {0}, b1[2] = {0}, a0[2] = {0}, b0[2] = {0}, c0[1] = {0};
    int64_t tm = (o->M + o->m - 1) / o->m, tn = (o->N + o->n - 1) / o->n,
            tk = (o->K + o->k - 1) / o->k;
    for (int ci = 0; ci < o->cores; ci++) {
        cg_core *c = &k.cores[ci];
        for (int s = 0; s < slots; s++) {
            char name[16];
            snprintf(name, sizeof name, "a1_%d", s);
            a1[s] = add_buf(c, name, CG_L1, ie, s * (abytes + bbytes), o->m, o->k);
            snprintf(name, sizeof name, "b1_%d", s);
            b1[s] = add_buf(c, name, CG_L1, ie, s * (abytes + bbytes) + abytes, o->k, o->n);
            snprintf(name, sizeof name, "a0_%d", s);
            a0[s] = add_buf(c, name, CG_L0A, ie, s * abytes, o->m, o->k);
            snprintf(name, sizeof name, "b0_%d", s);
            b0[s] = add_buf(c, name, CG_L0B, ie, s * bbytes, o->k, o->n);
        }
        c0[0] = add_buf(c, "c0", CG_L0C, ae, 0, o->m, o->n);
    }
    int64_t tile = 0, step[64] = {0}, tiles_on[64] = {0};
    for (int64_t bi = 0; bi < o->batch; bi++)
        for (int64_t ti = 0; ti < tm; ti++)
            for (int64_t tj = 0; tj < tn; tj++, tile++) {
                int ci = (int)(tile % o->cores);
                cg_core *c = &k.cores[ci];
                int rm = imin(o->m, o->M - ti * o->m), rn = imin(o->n, o->N - tj * o->n);
                for (int64_t ks = 0; ks < tk; ks++, step[ci]++) {
                    int s = (int)(step[ci] % slots);
                    bool first = step[ci] < slots;
                    int rk = imin(o->k, o->K - ks * o->k);
                    if (!first && !o->no_reverse)
                        waitf(c, CG_MTE1, CG_MTE2, s);
                    copy(c, whole(c, a1[s]),
                         gm(0, (int)(bi * o->M + ti * o->m), (int)(ks * o->k), rm, rk));
                    copy(c, whole(c, b1[s]),
                         gm(1, (int)(bi * o->K + ks * o->k), (int)(tj * o->n), rk, rn));
                    setf(c, CG_MTE2, CG_MTE1, s);
                    waitf(c, CG_MTE2, CG_MTE1, s);
                    if (!first)
                        waitf(c, CG_M, CG_MTE1, s);
                    copy(c, whole(c, a0[s]), whole(c, a1[s]));
                    copy(c, whole(c, b0[s]), whole(c, b1[s]));
                    if (!o->no_reverse)
                        setf(c, CG_MTE1, CG_MTE2, s);
                    setf(c, CG_MTE1, CG_M, s);
                    waitf(c, CG_MTE1, CG_M, s);
                    if (ks == 0 && tiles_on[ci] > 0)
                        waitf(c, CG_FIX, CG_M, 0);
                    mmad(c, whole(c, c0[0]), whole(c, a0[s]), whole(c, b0[s]), ks == 0);
                    setf(c, CG_M, CG_MTE1, s);
                }
                setf(c, CG_M, CG_FIX, 0);
                waitf(c, CG_M, CG_FIX, 0);
                copy(c, gm(2, (int)(bi * o->M + ti * o->m), (int)(tj * o->n), rm, rn),
                     blk(c0[0], 0, 0, rm, rn));
                setf(c, CG_FIX, CG_M, 0);
                tiles_on[ci]++;
            }
    return k;
}

static sim_result simulate(const sp_target *t, const cg_kernel *k, bool functional, bool trace)
{
    sim_options o = {.functional = functional, .seed = 7, .trace = trace};
    sim_result r;
    CHECK(sim_run(t, k, &o, &r));
    return r;
}

/* Two one-tile problems share these buffers: A 64x64, B 64x64 fp16, C fp32. */
typedef struct {
    int a1, b1, a0, b0, c0;
} tile_bufs;

static tile_bufs tile_buffers(cg_core *c)
{
    tile_bufs b;
    b.a1 = add_buf(c, "a1", CG_L1, CG_FP16, 0, 64, 64);
    b.b1 = add_buf(c, "b1", CG_L1, CG_FP16, 8192, 64, 64);
    b.a0 = add_buf(c, "a0", CG_L0A, CG_FP16, 0, 64, 64);
    b.b0 = add_buf(c, "b0", CG_L0B, CG_FP16, 0, 64, 64);
    b.c0 = add_buf(c, "c0", CG_L0C, CG_FP32, 0, 64, 64);
    return b;
}

/* ---- timing worked by hand on fx_round (no latencies) ---- */

static void test_timing_single(void)
{
    sp_target t = fx_round();
    /* One GM->L1 copy: 64x64 fp16 = 8192 B at 64 B/cycle. */
    cg_kernel k = new_kernel(1, fx_problem(64, 64, 64, 1, SP_FP16));
    tile_bufs b = tile_buffers(&k.cores[0]);
    copy(&k.cores[0], whole(&k.cores[0], b.a1), gm(0, 0, 0, 64, 64));
    sim_result r = simulate(&t, &k, false, false);
    CHECK_INT(r.status, MS_OK);
    CHECK(r.cycles == 128);
    CHECK(r.busy[CG_MTE2] == 128);
    CHECK(r.busy[CG_S] == 1);
    CHECK(r.bytes[SP_GM_L1] == 8192);
    CHECK_INT(r.instructions, 1);
    sim_result_free(&r);
    cg_kernel_free(&k);

    /* One mmad 64x64x64: 4*4*4 fractals of 4096 MACs at 4096 MAC/cycle. */
    k = new_kernel(1, fx_problem(64, 64, 64, 1, SP_FP16));
    b = tile_buffers(&k.cores[0]);
    cg_core *c = &k.cores[0];
    mmad(c, whole(c, b.c0), whole(c, b.a0), whole(c, b.b0), 1);
    r = simulate(&t, &k, false, false);
    CHECK_INT(r.status, MS_OK);
    CHECK(r.cycles == 64);
    CHECK(r.busy[CG_M] == 64);
    sim_result_free(&r);
    cg_kernel_free(&k);

    /* A partial fractal still costs a whole one: 17x16x16 is 2 fractals. */
    k = new_kernel(1, fx_problem(64, 64, 64, 1, SP_FP16));
    b = tile_buffers(&k.cores[0]);
    c = &k.cores[0];
    mmad(c, blk(b.c0, 0, 0, 17, 16), blk(b.a0, 0, 0, 17, 16), blk(b.b0, 0, 0, 16, 16), 1);
    r = simulate(&t, &k, false, false);
    CHECK(r.cycles == 2);
    sim_result_free(&r);
    cg_kernel_free(&k);
}

static void test_timing_chain(void)
{
    sp_target t = fx_round();
    cg_kernel k = new_kernel(1, fx_problem(64, 64, 64, 1, SP_FP16));
    cg_core *c = &k.cores[0];
    tile_bufs b = tile_buffers(c);
    copy(c, whole(c, b.a1), gm(0, 0, 0, 64, 64)); /* MTE2   0..128 */
    copy(c, whole(c, b.b1), gm(1, 0, 0, 64, 64)); /* MTE2 128..256 */
    setf(c, CG_MTE2, CG_MTE1, 0);                  /* MTE2 256..257 */
    waitf(c, CG_MTE2, CG_MTE1, 0);                 /* MTE1 257..258 (issued at 3) */
    copy(c, whole(c, b.a0), whole(c, b.a1));       /* MTE1 258..274: 8192 B / 512 */
    copy(c, whole(c, b.b0), whole(c, b.b1));       /* MTE1 274..306: 8192 B / 256 */
    setf(c, CG_MTE1, CG_M, 0);                     /* MTE1 306..307 */
    waitf(c, CG_MTE1, CG_M, 0);                    /* M    307..308 */
    mmad(c, whole(c, b.c0), whole(c, b.a0), whole(c, b.b0), 1); /* M 308..372 */
    setf(c, CG_M, CG_FIX, 0);                      /* M    372..373 */
    waitf(c, CG_M, CG_FIX, 0);                     /* FIX  373..374 */
    copy(c, gm(2, 0, 0, 64, 64), whole(c, b.c0));  /* FIX  374..438: 16384 B / 256 */
    sim_result r = simulate(&t, &k, false, false);
    CHECK_INT(r.status, MS_OK);
    CHECK(r.cycles == 438);
    CHECK(r.stall[CG_MTE1] == 257 - 3);
    CHECK(r.stall[CG_M] == 307 - 7);
    CHECK(r.stall[CG_FIX] == 373 - 10);
    CHECK(r.busy[CG_MTE2] == 257);
    CHECK(r.busy[CG_MTE1] == 1 + 16 + 32 + 1);
    CHECK(r.busy[CG_M] == 1 + 64 + 1);
    CHECK(r.busy[CG_FIX] == 65);
    CHECK(r.bytes[SP_GM_L1] == 16384);
    CHECK(r.bytes[SP_L1_L0A] == 8192);
    CHECK(r.bytes[SP_L1_L0B] == 8192);
    CHECK(r.bytes[SP_L0C_UB] == 16384);
    CHECK_INT(r.instructions, 12);
    /* The same chain computes C exactly, in the same time. */
    sim_result f = simulate(&t, &k, true, false);
    CHECK_INT(f.status, MS_OK);
    CHECK_STR(f.error, "");
    CHECK(f.checked);
    CHECK(f.cycles == 438);
    sim_result_free(&f);
    sim_result_free(&r);

    /* Latencies add per instruction (ascend910: GM->L1 200, L1->L0 16, FIX 16). */
    sp_target t910 = fx_ascend910();
    r = simulate(&t910, &k, false, false);
    CHECK(r.cycles == 438 + 2 * 200 + 2 * 16 + 16);
    sim_result_free(&r);
    cg_kernel_free(&k);
}

static void test_timing_overlap_barrier(void)
{
    sp_target t = fx_round();
    /* Independent copy (MTE2, 128) and mmad (M, 64, issued at 1) overlap. */
    cg_kernel k = new_kernel(1, fx_problem(64, 64, 64, 1, SP_FP16));
    cg_core *c = &k.cores[0];
    tile_bufs b = tile_buffers(c);
    copy(c, whole(c, b.a1), gm(0, 0, 0, 64, 64));
    mmad(c, whole(c, b.c0), whole(c, b.a0), whole(c, b.b0), 1);
    sim_result r = simulate(&t, &k, false, false);
    CHECK(r.cycles == 128);
    sim_result_free(&r);
    cg_kernel_free(&k);

    /* A barrier on MTE2 between them: S waits for the copy, mmad issues at 128. */
    k = new_kernel(1, fx_problem(64, 64, 64, 1, SP_FP16));
    c = &k.cores[0];
    b = tile_buffers(c);
    copy(c, whole(c, b.a1), gm(0, 0, 0, 64, 64));
    barrier(c, CG_MTE2);
    mmad(c, whole(c, b.c0), whole(c, b.a0), whole(c, b.b0), 1);
    r = simulate(&t, &k, false, false);
    CHECK_INT(r.status, MS_OK);
    CHECK(r.cycles == 192);
    CHECK_INT(r.instructions, 3);
    sim_result_free(&r);
    cg_kernel_free(&k);
}

static void test_timing_scalar(void)
{
    /* Flags to and from S, and barriers: S itself waits and sets. */
    sp_target t = fx_round();
    cg_kernel k = new_kernel(1, fx_problem(64, 64, 64, 1, SP_FP16));
    cg_core *c = &k.cores[0];
    tile_bufs b = tile_buffers(c);
    copy(c, whole(c, b.a1), gm(0, 0, 0, 64, 64));   /* MTE2   0..128 */
    copy(c, whole(c, b.b1), gm(1, 0, 0, 64, 64));   /* MTE2 128..256 */
    setf(c, CG_MTE2, CG_S, 0);                       /* MTE2 256..257 */
    waitf(c, CG_MTE2, CG_S, 0);                      /* S: waits from 3, 257..258 */
    copy(c, whole(c, b.a0), whole(c, b.a1));         /* MTE1 258..274 */
    copy(c, whole(c, b.b0), whole(c, b.b1));         /* MTE1 274..306 */
    barrier(c, CG_MTE1);                             /* S at 260, resumes at 306 */
    setf(c, CG_S, CG_M, 0);                          /* S 306..307 */
    waitf(c, CG_S, CG_M, 0);                         /* M 307..308 */
    mmad(c, whole(c, b.c0), whole(c, b.a0), whole(c, b.b0), 1); /* M 308..372 */
    barrier(c, CG_M);                                /* S at 309, resumes at 372 */
    copy(c, gm(2, 0, 0, 64, 64), whole(c, b.c0));    /* FIX 372..436 */
    sim_result r = simulate(&t, &k, false, false);
    CHECK_INT(r.status, MS_OK);
    CHECK(r.cycles == 436);
    CHECK(r.stall[CG_S] == 257 - 3);
    CHECK(r.stall[CG_M] == 0);
    CHECK(r.busy[CG_S] == 12);
    sim_result_free(&r);
    /* Data ordered through S (the flag into S, then S's issue) is synchronised. */
    r = simulate(&t, &k, true, false);
    CHECK_INT(r.status, MS_OK);
    CHECK_STR(r.error, "");
    CHECK(r.cycles == 436);
    sim_result_free(&r);
    cg_kernel_free(&k);
}

static void test_timing_queue(void)
{
    /* 40 mmads of 64 cycles fill M's queue (32 deep): mmad #33 issues when #1
     * starts (64), ... #39 at 448; the copy after them issues at 449 and takes
     * 256x512 fp16 = 262144 B / 64 = 4096 cycles. Unbounded, it would issue at 40. */
    sp_target t = fx_round();
    cg_kernel k = new_kernel(1, fx_problem(256, 512, 512, 1, SP_FP16));
    cg_core *c = &k.cores[0];
    tile_bufs b = tile_buffers(c);
    int big = add_buf(c, "big", CG_L1, CG_FP16, 32768, 256, 512);
    for (int i = 0; i < 40; i++)
        mmad(c, whole(c, b.c0), whole(c, b.a0), whole(c, b.b0), 1);
    copy(c, whole(c, big), gm(1, 0, 0, 256, 512));
    sim_result r = simulate(&t, &k, false, false);
    CHECK_INT(r.status, MS_OK);
    CHECK(r.cycles == 449 + 4096);
    CHECK(r.busy[CG_M] == 40 * 64);
    sim_result_free(&r);
    cg_kernel_free(&k);
}

static void test_timing_granules(void)
{
    sp_target t = fx_round();
    /* A 64x10 fp16 block of A (K = 64): 64 bursts of 20 B, each rounded up to
     * 32 B = 2048 B = 32 cycles; the L1 side is 1280 B (40 x 32 B). */
    cg_kernel k = new_kernel(1, fx_problem(64, 64, 64, 1, SP_FP16));
    cg_core *c = &k.cores[0];
    tile_bufs b = tile_buffers(c);
    copy(c, whole(c, b.a1), gm(0, 0, 0, 64, 10));
    /* Whole rows of A: one contiguous burst, 4 rows = 512 B = 8 cycles. */
    copy(c, whole(c, b.b1), gm(0, 4, 0, 4, 64));
    /* L1 -> L0A of a 16x8 block (256 B): rounded to one 512-byte fractal. */
    copy(c, whole(c, b.a0), blk(b.a1, 0, 0, 16, 8));
    sim_result r = simulate(&t, &k, false, false);
    CHECK(r.bytes[SP_GM_L1] == 2048 + 512);
    CHECK(r.bytes[SP_L1_L0A] == 512);
    CHECK(r.busy[CG_MTE2] == 32 + 8);
    CHECK(r.cycles == 40); /* the L0A copy (1 cycle, from 2) ends first */
    sim_result_free(&r);
    cg_kernel_free(&k);
}

static void test_double_buffer(void)
{
    sp_target t = fx_round();
    os_cfg o = {.M = 128, .N = 128, .K = 512, .batch = 1, .m = 64, .n = 64, .k = 64,
                .db = true, .cores = 1, .dtype = SP_FP16};
    cg_kernel k = os_kernel(&o);
    sim_result db = simulate(&t, &k, false, false);
    CHECK_INT(db.status, MS_OK);
    cg_kernel_free(&k);
    o.db = false;
    k = os_kernel(&o);
    sim_result single = simulate(&t, &k, false, false);
    CHECK_INT(single.status, MS_OK);
    cg_kernel_free(&k);
    printf("os 128x128x512 tile 64: double-buffered %.0f cycles, single %.0f\n", db.cycles,
           single.cycles);
    CHECK(db.cycles < single.cycles);
    /* MTE2 is the bottleneck: 2 x 8192 B per step at 64 B/cycle = 256 per step,
     * 32 steps; double buffering hides almost everything else. */
    CHECK(db.cycles >= 32 * 256 && db.cycles < 32 * 256 * 1.05);
    sim_result_free(&db);
    sim_result_free(&single);
}

static void test_gm_sharing(void)
{
    sp_target t = fx_round();
    t.gm_bandwidth = 64; /* one GM->L1 stream already saturates GM */
    /* Each core streams 4 x 8192 B: alone 4 x 128 cycles; two cores share. */
    cg_kernel one = new_kernel(1, fx_problem(64, 64, 64, 1, SP_FP16));
    cg_kernel two = new_kernel(2, fx_problem(64, 64, 64, 1, SP_FP16));
    for (int ci = 0; ci < 3; ci++) {
        cg_core *c = ci < 1 ? &one.cores[0] : &two.cores[ci - 1];
        tile_bufs b = tile_buffers(c);
        for (int i = 0; i < 4; i++)
            copy(c, whole(c, i % 2 ? b.b1 : b.a1), gm(0, 0, 0, 64, 64));
    }
    sim_result r1 = simulate(&t, &one, false, false), r2 = simulate(&t, &two, false, false);
    CHECK(r1.cycles == 512);
    CHECK(r2.cycles == 1024);
    CHECK(r2.busy[CG_MTE2] == 2 * 1024);
    sim_result_free(&r1);
    sim_result_free(&r2);
    cg_kernel_free(&one);
    cg_kernel_free(&two);

    /* Rates change when a transfer ends: core 1 moves 4096 B, core 0 two x 8192 B.
     * Both at 32 B/cycle until 128 (core 1 done, core 0 has 4096 B left), then
     * core 0 alone at 64: 192, then its second copy: 320. */
    two = new_kernel(2, fx_problem(64, 64, 64, 1, SP_FP16));
    tile_bufs b0 = tile_buffers(&two.cores[0]), b1 = tile_buffers(&two.cores[1]);
    copy(&two.cores[0], whole(&two.cores[0], b0.a1), gm(0, 0, 0, 64, 64));
    copy(&two.cores[0], whole(&two.cores[0], b0.b1), gm(0, 0, 0, 64, 64));
    copy(&two.cores[1], whole(&two.cores[1], b1.a1), gm(0, 0, 0, 32, 64));
    r2 = simulate(&t, &two, false, false);
    CHECK(fabs(r2.cycles - 320) < 1e-9);
    sim_result_free(&r2);
    /* Latency is not shared: 200 cycles before each data phase shift the same
     * shape by 200 (first copies) and 200 again (core 0's second copy). */
    sp_target tl = t;
    tl.path[SP_GM_L1].latency = 200;
    r2 = simulate(&tl, &two, false, false);
    CHECK(fabs(r2.cycles - (320 + 400)) < 1e-9);
    sim_result_free(&r2);
    cg_kernel_free(&two);

    /* An OS kernel split over 2 cores vs 1 when GM bandwidth is the limit:
     * faster overall, slower per core. */
    os_cfg o = {.M = 256, .N = 128, .K = 256, .batch = 1, .m = 64, .n = 64, .k = 64,
                .db = true, .cores = 1, .dtype = SP_FP16};
    cg_kernel k1 = os_kernel(&o);
    o.cores = 2;
    cg_kernel k2 = os_kernel(&o);
    sp_target tg = fx_round();
    tg.gm_bandwidth = 96;
    r1 = simulate(&tg, &k1, false, false);
    r2 = simulate(&tg, &k2, false, false);
    CHECK(r2.cycles < r1.cycles);
    CHECK(r2.cycles > r1.cycles / 2 * 1.2);
    sim_result_free(&r1);
    sim_result_free(&r2);
    cg_kernel_free(&k1);
    cg_kernel_free(&k2);
}

/* ---- functional mode ---- */

static void expect_exact(const os_cfg *o, const char *what)
{
    sp_target t = fx_round();
    cg_kernel k = os_kernel(o);
    sim_result r = simulate(&t, &k, true, false);
    if (!CHECK_INT(r.status, MS_OK))
        fprintf(stderr, "  %s: %s\n", what, r.error);
    CHECK(r.checked);
    sim_result timing = simulate(&t, &k, false, false);
    CHECK(timing.cycles == r.cycles);
    sim_result_free(&r);
    sim_result_free(&timing);
    cg_kernel_free(&k);
}

static void test_functional(void)
{
    os_cfg o = {.M = 32, .N = 32, .K = 32, .batch = 1, .m = 32, .n = 32, .k = 32,
                .db = false, .cores = 1, .dtype = SP_FP16};
    expect_exact(&o, "single tile");
    /* Tails in every dimension: M = 40 over m = 32, N = 48 over 32, K = 72 over 32. */
    o = (os_cfg){.M = 40, .N = 48, .K = 72, .batch = 1, .m = 32, .n = 32, .k = 32,
                 .db = true, .cores = 1, .dtype = SP_FP16};
    expect_exact(&o, "tails");
    o.batch = 2;
    expect_exact(&o, "tails, batch 2");
    o.cores = 3;
    expect_exact(&o, "tails, batch 2, 3 cores");
    o.db = false;
    expect_exact(&o, "tails, batch 2, 3 cores, single buffer");
    o = (os_cfg){.M = 48, .N = 32, .K = 96, .batch = 2, .m = 32, .n = 32, .k = 64,
                 .db = true, .cores = 2, .dtype = SP_INT8};
    expect_exact(&o, "int8");
}

/* Regenerates the simulator's documented inputs to compute C[r][c]. */
static double reference(const cg_kernel *k, uint64_t seed, int64_t r, int64_t c)
{
    const sp_problem *p = &k->problem;
    size_t na = (size_t)(p->batch * p->M * p->K), nb = (size_t)(p->batch * p->K * p->N);
    int *v = malloc((na + nb) * sizeof *v);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, (unsigned long)seed);
    for (size_t i = 0; i < na + nb; i++)
        v[i] = (int)gsl_rng_uniform_int(rng, 9) - 4;
    gsl_rng_free(rng);
    int64_t bi = r / p->M, sum = 0;
    for (int64_t kk = 0; kk < p->K; kk++)
        sum += v[r * p->K + kk] * v[na + (bi * p->K + kk) * p->N + c];
    free(v);
    return (double)sum;
}

static size_t nth(const cg_core *c, int n, bool (*pred)(const cg_instr *))
{
    for (size_t i = 0; i < c->n; i++)
        if (pred(&c->code[i]) && n-- == 0)
            return i;
    return (size_t)-1;
}

static bool is_load_a1_0(const cg_instr *in)
{
    return in->op == CG_COPY && in->a.buf == -1 && in->d.buf == 0;
}
static bool is_read_a1_0(const cg_instr *in) { return in->op == CG_COPY && in->a.buf == 0; }
static bool is_store(const cg_instr *in) { return in->op == CG_COPY && in->d.buf == -3; }

static void test_wrong_results(void)
{
    sp_target t = fx_round();
    /* The mmad accumulates (init = 0) onto L0C that was never initialised. */
    cg_kernel k = new_kernel(1, fx_problem(64, 64, 64, 1, SP_FP16));
    cg_core *c = &k.cores[0];
    tile_bufs b = tile_buffers(c);
    copy(c, whole(c, b.a1), gm(0, 0, 0, 64, 64));
    copy(c, whole(c, b.b1), gm(1, 0, 0, 64, 64));
    setf(c, CG_MTE2, CG_MTE1, 0);
    waitf(c, CG_MTE2, CG_MTE1, 0);
    copy(c, whole(c, b.a0), whole(c, b.a1));
    copy(c, whole(c, b.b0), whole(c, b.b1));
    setf(c, CG_MTE1, CG_M, 0);
    waitf(c, CG_MTE1, CG_M, 0);
    mmad(c, whole(c, b.c0), whole(c, b.a0), whole(c, b.b0), 0);
    setf(c, CG_M, CG_FIX, 0);
    waitf(c, CG_M, CG_FIX, 0);
    copy(c, gm(2, 0, 0, 64, 64), whole(c, b.c0));
    sim_result r = simulate(&t, &k, true, false);
    CHECK_INT(r.status, MS_WRONG);
    CHECK(r.checked);
    double got = 0, want = 0;
    char tail[64] = "";
    CHECK(sscanf(r.error, "C[0][0] = %lf, expected %lf %63[^\n]", &got, &want, tail) == 3);
    CHECK(want == reference(&k, 7, 0, 0));
    CHECK(got != want);
    CHECK_STR(tail, "(4096 of 4096 elements wrong)");
    sim_result_free(&r);
    cg_kernel_free(&k);

    /* The first C tile of a 32x64 problem stored into the second's block (which
     * the second store then overwrites correctly): columns 0..32 never written. */
    os_cfg o = {.M = 32, .N = 64, .K = 32, .batch = 1, .m = 32, .n = 32, .k = 32,
                .db = false, .cores = 1, .dtype = SP_FP16};
    k = os_kernel(&o);
    c = &k.cores[0];
    c->code[nth(c, 0, is_store)].d.c0 = 32;
    r = simulate(&t, &k, true, false);
    CHECK_INT(r.status, MS_WRONG);
    CHECK_STR(r.error, "C[0][0] never written (1024 of 2048 elements wrong)");
    sim_result_free(&r);
    /* Timing mode does not look at data. */
    r = simulate(&t, &k, false, false);
    CHECK_INT(r.status, MS_OK);
    CHECK(!r.checked);
    sim_result_free(&r);
    cg_kernel_free(&k);
}

/* ---- program errors ---- */

static void expect_error(const sp_target *t, const cg_kernel *k, bool functional, int status,
                         const char *msg)
{
    sim_result r = simulate(t, k, functional, false);
    CHECK_INT(r.status, status);
    CHECK_STR(r.error, msg);
    sim_result_free(&r);
}

static void test_errors(void)
{
    sp_target t = fx_round();
    char msg[320];

    /* RAW: MTE1 reads L1 without waiting for MTE2's load. */
    cg_kernel k = new_kernel(1, fx_problem(64, 64, 64, 1, SP_FP16));
    cg_core *c = &k.cores[0];
    tile_bufs b = tile_buffers(c);
    copy(c, whole(c, b.a1), gm(0, 0, 0, 64, 64));
    copy(c, whole(c, b.a0), whole(c, b.a1));
    number_lines(&k);
    expect_error(&t, &k, true, MS_ILLEGAL,
                 "core 0 #1 (line 101): MTE1 copy reads L1 written by MTE2 at #0 (line 100) "
                 "with no set_flag/wait_flag chain between them");
    expect_error(&t, &k, false, MS_OK, ""); /* hazards are a functional-mode check */
    cg_kernel_free(&k);

    /* WAR: a ping-pong without the MTE1->MTE2 "slot free" flags: MTE2 reloads
     * a1_0 (its third load) while MTE1's first read of it is unordered. */
    os_cfg o = {.M = 32, .N = 32, .K = 128, .batch = 1, .m = 32, .n = 32, .k = 32,
                .db = true, .cores = 1, .no_reverse = true, .dtype = SP_FP16};
    k = os_kernel(&o);
    size_t w = nth(&k.cores[0], 1, is_load_a1_0), rd = nth(&k.cores[0], 0, is_read_a1_0);
    snprintf(msg, sizeof msg,
             "core 0 #%zu: MTE2 copy writes L1 read by MTE1 at #%zu with no set_flag/wait_flag "
             "chain between them", w, rd);
    expect_error(&t, &k, true, MS_ILLEGAL, msg);
    cg_kernel_free(&k);

    /* WAW through a barrier is fine; without it, two pipes write one buffer. */
    k = new_kernel(1, fx_problem(64, 64, 64, 1, SP_FP16));
    c = &k.cores[0];
    b = tile_buffers(c);
    copy(c, whole(c, b.a1), gm(0, 0, 0, 64, 64));
    copy(c, whole(c, b.b1), gm(1, 0, 0, 64, 64));
    barrier(c, CG_MTE2);
    copy(c, whole(c, b.a0), whole(c, b.a1));
    copy(c, whole(c, b.b0), whole(c, b.b1));
    barrier(c, CG_MTE1);
    mmad(c, whole(c, b.c0), whole(c, b.a0), whole(c, b.b0), 1);
    barrier(c, CG_M);
    copy(c, gm(2, 0, 0, 64, 64), whole(c, b.c0));
    sim_result r = simulate(&t, &k, true, false);
    CHECK_INT(r.status, MS_OK);
    CHECK_STR(r.error, "");
    sim_result_free(&r);
    cg_kernel_free(&k);

    /* Buffer overflow and misalignment. */
    k = new_kernel(1, fx_problem(64, 64, 64, 1, SP_FP16));
    add_buf(&k.cores[0], "a0", CG_L0A, CG_FP16, 0, 256, 256);
    expect_error(&t, &k, false, MS_ILLEGAL,
                 "buffer 'a0' (L0A, bytes 0..131072) exceeds L0A (65536 bytes)");
    cg_kernel_free(&k);
    k = new_kernel(1, fx_problem(64, 64, 64, 1, SP_FP16));
    add_buf(&k.cores[0], "a1", CG_L0A, CG_FP16, 256, 64, 64);
    expect_error(
        &t, &k, false, MS_ILLEGAL,
        "buffer 'a1' (L0A, bytes 256..8448) is misaligned: L0A offsets are multiples of 512 bytes");
    cg_kernel_free(&k);

    /* Event id beyond the target's. */
    k = new_kernel(1, fx_problem(64, 64, 64, 1, SP_FP16));
    setf(&k.cores[0], CG_MTE2, CG_MTE1, 8);
    expect_error(&t, &k, false, MS_ILLEGAL,
                 "core 0 #0: set_flag MTE2->MTE1 event 8: the target has event ids 0..7");
    cg_kernel_free(&k);

    /* A flag set twice. */
    k = new_kernel(1, fx_problem(64, 64, 64, 1, SP_FP16));
    setf(&k.cores[0], CG_MTE2, CG_MTE1, 3);
    setf(&k.cores[0], CG_MTE2, CG_MTE1, 3);
    number_lines(&k);
    expect_error(
        &t, &k, false, MS_ILLEGAL,
        "core 0 #1 (line 101): set_flag MTE2->MTE1 event 3 sets a flag that is already set");
    cg_kernel_free(&k);

    /* Deadlocks: a wait never satisfied; two pipes waiting for each other. */
    k = new_kernel(2, fx_problem(64, 64, 64, 1, SP_FP16));
    c = &k.cores[1];
    b = tile_buffers(c);
    tile_buffers(&k.cores[0]);
    copy(&k.cores[0], whole(&k.cores[0], b.a1), gm(0, 0, 0, 64, 64));
    copy(c, whole(c, b.a1), gm(0, 0, 0, 64, 64));
    waitf(c, CG_MTE2, CG_MTE1, 0);
    copy(c, whole(c, b.a0), whole(c, b.a1));
    expect_error(&t, &k, false, MS_ILLEGAL,
                 "core 1 #1: wait_flag MTE2->MTE1 event 0 waits for a flag that is never set "
                 "(deadlock: every pipe is blocked)");
    cg_kernel_free(&k);
    k = new_kernel(1, fx_problem(64, 64, 64, 1, SP_FP16));
    c = &k.cores[0];
    waitf(c, CG_M, CG_MTE1, 1);
    setf(c, CG_MTE1, CG_M, 1);
    waitf(c, CG_MTE1, CG_M, 1);
    setf(c, CG_M, CG_MTE1, 1);
    expect_error(&t, &k, true, MS_ILLEGAL,
                 "core 0 #0: wait_flag M->MTE1 event 1 waits for a flag that is never set "
                 "(deadlock: every pipe is blocked)");
    cg_kernel_free(&k);

    /* A copy on the wrong pipe, and a block outside its buffer. */
    k = new_kernel(1, fx_problem(64, 64, 64, 1, SP_FP16));
    c = &k.cores[0];
    b = tile_buffers(c);
    copy(c, whole(c, b.a1), gm(0, 0, 0, 64, 64));
    c->code[0].pipe = CG_MTE3;
    expect_error(&t, &k, false, MS_ILLEGAL, "core 0 #0: copy GM->L1 runs on MTE2, not MTE3");
    c->code[0].pipe = CG_MTE2;
    c->code[0].a.r0 = 1;
    expect_error(&t, &k, false, MS_ILLEGAL,
                 "core 0 #0: source block [1:65,0:64] lies outside 'A' (64 x 64)");
    cg_kernel_free(&k);
}

/* ---- trace ---- */

static void test_trace(void)
{
    sp_target t = fx_round();
    os_cfg o = {.M = 40, .N = 32, .K = 64, .batch = 1, .m = 32, .n = 32, .k = 32,
                .db = true, .cores = 2, .dtype = SP_FP16};
    cg_kernel k = os_kernel(&o);
    sim_result r = simulate(&t, &k, true, true);
    CHECK_INT(r.status, MS_OK);
    const char *path = "test_sim_trace.json"; /* in the working (build) directory */
    FILE *f = fopen(path, "w+");
    CHECK(f != NULL);
    if (f) {
        CHECK(sim_write_trace(f, &t, &r));
        rewind(f);
        fseek(f, 0, SEEK_END);
        long len = ftell(f);
        rewind(f);
        char *text = calloc((size_t)len + 1, 1);
        CHECK(fread(text, 1, (size_t)len, f) == (size_t)len);
        fclose(f);
        CHECK(strncmp(text, "{\"traceEvents\":[", 16) == 0);
        CHECK(strstr(text, "\"name\":\"copy a1_0 <- A[32:40,0:32]\"") != NULL);
        CHECK(strstr(text, "\"name\":\"mmad c0 = a0_0 * b0_0\"") != NULL);
        CHECK(strstr(text, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{"
                           "\"name\":\"core 1\"}}") != NULL);
        CHECK(strstr(text, "\"args\":{\"name\":\"MTE2\"}") != NULL);
        size_t spans = 0;
        for (const char *p = text; (p = strstr(p, "\"ph\":\"X\"")); p++)
            spans++;
        CHECK_INT(spans, cg_kernel_size(&k));
        free(text);
        remove(path); /* loaded as JSON by python3: tests/cli/tools.sh */
    }
    sim_result_free(&r);
    cg_kernel_free(&k);
}

/* ---- concurrent simulations (no shared state) ---- */

typedef struct {
    cg_kernel k;
    sim_result r;
} job;

static int run_job(void *arg)
{
    job *j = arg;
    sp_target t = fx_round();
    sim_options o = {.functional = true, .seed = 11};
    return sim_run(&t, &j->k, &o, &j->r) ? 0 : 1;
}

static void test_concurrent(void)
{
    enum { NJOBS = 4 };
    job jobs[NJOBS];
    thrd_t th[NJOBS];
    for (int i = 0; i < NJOBS; i++) {
        os_cfg o = {.M = 40 + 16 * i, .N = 48, .K = 72, .batch = 1 + i % 2, .m = 32, .n = 32,
                    .k = 32, .db = i % 2, .cores = 1 + i, .dtype = SP_FP16};
        jobs[i].k = os_kernel(&o);
        CHECK(thrd_create(&th[i], run_job, &jobs[i]) == thrd_success);
    }
    for (int i = 0; i < NJOBS; i++) {
        int rc = 1;
        thrd_join(th[i], &rc);
        CHECK_INT(rc, 0);
        CHECK_INT(jobs[i].r.status, MS_OK);
        /* the same kernel alone gives the same figures */
        sim_result alone;
        sp_target t = fx_round();
        sim_options o = {.functional = true, .seed = 11};
        CHECK(sim_run(&t, &jobs[i].k, &o, &alone));
        CHECK(alone.cycles == jobs[i].r.cycles);
        sim_result_free(&alone);
        sim_result_free(&jobs[i].r);
        cg_kernel_free(&jobs[i].k);
    }
}

/* ---- speed of timing mode ---- */

/* Times timing mode on a ~480k-instruction double-buffered OS kernel (one
 * core, ascend910); the goal is 2e7 simulated instructions per second. */
static void bench(bool strict)
{
    sp_target t = fx_ascend910();
    os_cfg o = {.M = 1024, .N = 1024, .K = 4608, .batch = 1, .m = 64, .n = 64, .k = 32,
                .db = true, .cores = 1, .dtype = SP_FP16};
    cg_kernel k = os_kernel(&o);
    size_t n = cg_kernel_size(&k);
    sim_result r;
    sim_options opt = {0};
    double best = 0;
    for (int rep = 0; rep < 7; rep++) { /* the best of 7: machines are noisy */
        struct timespec a, b;
        timespec_get(&a, TIME_UTC);
        CHECK(sim_run(&t, &k, &opt, &r));
        timespec_get(&b, TIME_UTC);
        double s = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
        CHECK_INT(r.status, MS_OK);
        if (n / s > best)
            best = (double)n / s;
        sim_result_free(&r);
    }
    printf("timing mode: %zu instructions, %.0f cycles, %.3g instructions/s\n", n, r.cycles, best);
    if (strict)
        CHECK(best >= 2e7);
    cg_kernel_free(&k);
}

/* The speed goal is checked only in optimised, unsanitised builds. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#if defined(NDEBUG) && !defined(SANITIZED)
#define SPEED_GOAL 1
#else
#define SPEED_GOAL 0
#endif

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--bench") == 0) {
        bench(SPEED_GOAL);
        return CHECK_DONE();
    }
    test_timing_single();
    test_timing_chain();
    test_timing_overlap_barrier();
    test_timing_scalar();
    test_timing_queue();
    test_timing_granules();
    test_double_buffer();
    test_gm_sharing();
    test_functional();
    test_wrong_results();
    test_errors();
    test_trace();
    test_concurrent();
    bench(false); /* prints the speed; `test_sim_kernels --bench` checks the goal */
    return CHECK_DONE();
}
