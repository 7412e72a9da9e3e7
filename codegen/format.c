/* format.c — the text form of kernels (codegen/FORMAT.md): cg_print writes the
 * canonical text, cg_parse reads and fully validates it. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

#define LINE_MAX_BYTES 4095      /* longest accepted line, newline excluded */
#define READ_CHUNK (1 << 16)     /* bytes per fread */
#define MAX_TOKENS (SP_TARGET_NFIELDS + 1) /* the longest statement: a target line
                                          * of format 2, every field and the keyword */
#define FORMAT 2                 /* the version written when the kernel has its figures */
#define MAX_BUFS 32767           /* cg_operand.buf is an int16_t */
#define BUF_NAME_MAX 15
#define OUT_CHUNK (1 << 16)
#define OUT_LINE_ROOM (SP_TARGET_TEXT_MAX + 64) /* more than any printed line needs */

static const char *const tensor_names[3] = {"A", "B", "C"};

/* ------------------------------------------------------------------ */
/* Printing                                                            */
/* ------------------------------------------------------------------ */

typedef struct {
    FILE *f;
    char *buf;
    size_t n;
    bool bad;
} out;

static void out_flush(out *o)
{
    if (o->n && !o->bad && fwrite(o->buf, 1, o->n, o->f) != o->n)
        o->bad = true;
    o->n = 0;
}

/* Room for one line at o->buf + o->n. */
static char *out_line(out *o)
{
    if (OUT_CHUNK - o->n < OUT_LINE_ROOM)
        out_flush(o);
    return o->buf + o->n;
}

static void out_end(out *o, char *p) { o->n = (size_t)(p - o->buf); }

static char *put_str(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

/* A name field of `cap` bytes that may lack its terminator. */
static char *put_name(char *p, const char *s, size_t cap)
{
    const char *z = memchr(s, '\0', cap);
    size_t n = z ? (size_t)(z - s) : cap;
    memcpy(p, s, n);
    return p + n;
}

static char *put_i64(char *p, int64_t v)
{
    char t[24];
    int n = 0;
    uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
    if (v < 0)
        *p++ = '-';
    do {
        t[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    while (n)
        *p++ = t[--n];
    return p;
}

static const char *or_q(const char *s) { return s ? s : "?"; }

static char *put_operand(char *p, const cg_kernel *k, const cg_core *c, const cg_operand *o)
{
    const cg_buf *b = NULL;
    if (o->buf >= 0 && o->buf < c->nbufs) {
        b = &c->bufs[o->buf];
        p = put_name(p, b->name, sizeof b->name);
    } else if (o->buf < 0 && o->buf >= -3) {
        b = &k->tensors[-1 - o->buf];
        p = put_str(p, tensor_names[-1 - o->buf]);
    } else {
        *p++ = '?';
    }
    if (b && o->r0 == 0 && o->c0 == 0 && o->rows == b->rows && o->cols == b->cols)
        return p;
    *p++ = '[';
    p = put_i64(p, o->r0);
    *p++ = ':';
    p = put_i64(p, (int64_t)o->r0 + o->rows);
    *p++ = ',';
    p = put_i64(p, o->c0);
    *p++ = ':';
    p = put_i64(p, (int64_t)o->c0 + o->cols);
    *p++ = ']';
    return p;
}

static char *put_instr(char *p, const cg_kernel *k, const cg_core *c, const cg_instr *in)
{
    *p++ = ' ';
    *p++ = ' ';
    switch (in->op) {
    case CG_COPY:
        p = put_str(p, or_q(cg_pipe_name(in->pipe)));
        p = put_str(p, " copy ");
        p = put_operand(p, k, c, &in->d);
        p = put_str(p, " <- ");
        p = put_operand(p, k, c, &in->a);
        break;
    case CG_MMAD:
        p = put_str(p, or_q(cg_pipe_name(in->pipe)));
        p = put_str(p, " mmad ");
        p = put_operand(p, k, c, &in->d);
        p = put_str(p, " <- ");
        p = put_operand(p, k, c, &in->a);
        *p++ = ' ';
        p = put_operand(p, k, c, &in->b);
        p = put_str(p, in->init ? " init" : " acc");
        break;
    case CG_SET_FLAG:
    case CG_WAIT_FLAG:
        p = put_str(p, in->op == CG_SET_FLAG ? "set_flag " : "wait_flag ");
        p = put_str(p, or_q(cg_pipe_name(in->src)));
        *p++ = ' ';
        p = put_str(p, or_q(cg_pipe_name(in->dst)));
        *p++ = ' ';
        p = put_i64(p, in->event);
        break;
    case CG_BARRIER:
        p = put_str(p, "barrier ");
        p = put_str(p, or_q(cg_pipe_name(in->pipe)));
        break;
    case CG_NOP:
        p = put_str(p, or_q(cg_pipe_name(in->pipe)));
        p = put_str(p, " nop");
        break;
    default:
        p = put_str(p, "? op ");
        p = put_i64(p, in->op);
        break;
    }
    *p++ = '\n';
    return p;
}

/* Writes the canonical text of k (FORMAT.md); values out of range print as
 * "?" (text the parser rejects). False with errno set when writing failed. */
bool cg_print(FILE *f, const cg_kernel *k)
{
    out o = {.f = f, .buf = malloc(OUT_CHUNK)};
    if (!o.buf) {
        errno = ENOMEM;
        return false;
    }
    const sp_problem *pr = &k->problem;
    const sp_config *cf = &k->config;

    char *p = out_line(&o);
    p = put_str(p, k->figures ? "npu-kernel 2\ntarget " : "npu-kernel 1\ntarget ");
    if (k->figures) {
        size_t n = sp_target_print(p, SP_TARGET_TEXT_MAX, &k->target);
        p += n < SP_TARGET_TEXT_MAX ? n : SP_TARGET_TEXT_MAX - 1;
    } else {
        p = put_name(p, k->target.name, sizeof k->target.name);
    }
    p = put_str(p, "\nproblem ");
    p = put_name(p, pr->name, sizeof pr->name);
    *p++ = ' ';
    p = put_str(p, or_q(sp_dtype_name(pr->dtype)));
    p = put_str(p, " M=");
    p = put_i64(p, pr->M);
    p = put_str(p, " N=");
    p = put_i64(p, pr->N);
    p = put_str(p, " K=");
    p = put_i64(p, pr->K);
    p = put_str(p, " batch=");
    p = put_i64(p, pr->batch);
    p = put_str(p, "\nconfig ");
    p = put_str(p, or_q(sp_strategy_name(cf->strategy)));
    p = put_str(p, " m=");
    p = put_i64(p, cf->m);
    p = put_str(p, " n=");
    p = put_i64(p, cf->n);
    p = put_str(p, " k=");
    p = put_i64(p, cf->k);
    p = put_str(p, " double_buffer=");
    p = put_i64(p, cf->double_buffer);
    p = put_str(p, " cores=");
    p = put_i64(p, cf->cores);
    p = put_str(p, " split=");
    p = put_str(p, or_q(sp_split_name(cf->split)));
    *p++ = '\n';
    out_end(&o, p);
    for (int t = 0; t < 3; t++) {
        const cg_buf *b = &k->tensors[t];
        p = out_line(&o);
        p = put_str(p, "tensor ");
        p = put_str(p, tensor_names[t]);
        *p++ = ' ';
        p = put_str(p, or_q(cg_elem_name(b->elem)));
        *p++ = ' ';
        p = put_i64(p, b->rows);
        *p++ = 'x';
        p = put_i64(p, b->cols);
        *p++ = '\n';
        out_end(&o, p);
    }

    for (int ci = 0; ci < k->ncores && !o.bad; ci++) {
        const cg_core *c = &k->cores[ci];
        p = out_line(&o);
        p = put_str(p, "core ");
        p = put_i64(p, ci);
        *p++ = '\n';
        out_end(&o, p);
        for (int bi = 0; bi < c->nbufs; bi++) {
            const cg_buf *b = &c->bufs[bi];
            p = out_line(&o);
            p = put_str(p, "  buf ");
            p = put_name(p, b->name, sizeof b->name);
            *p++ = ' ';
            p = put_str(p, or_q(cg_space_name(b->space)));
            *p++ = ' ';
            p = put_i64(p, b->offset);
            *p++ = ' ';
            p = put_i64(p, b->rows);
            *p++ = 'x';
            p = put_i64(p, b->cols);
            *p++ = ' ';
            p = put_str(p, or_q(cg_elem_name(b->elem)));
            *p++ = '\n';
            out_end(&o, p);
        }
        for (size_t i = 0; i < c->n && !o.bad; i++)
            out_end(&o, put_instr(out_line(&o), k, c, &c->code[i]));
    }
    out_flush(&o);
    free(o.buf);
    if (!o.bad && fflush(f) != 0)
        o.bad = true;
    if (o.bad && errno == 0)
        errno = EIO;
    return !o.bad;
}

/* ------------------------------------------------------------------ */
/* Reading lines                                                       */
/* ------------------------------------------------------------------ */

typedef struct {
    FILE *f;
    char *buf;       /* READ_CHUNK + LINE_MAX_BYTES + 1 bytes */
    size_t pos, len; /* unread bytes are buf[pos, len) */
    bool eof;
} reader;

enum { RD_LINE, RD_EOF, RD_LONG, RD_ERROR };

/* The next line, newline replaced by a terminator (bytes may include NULs:
 * *n is its length). */
static int read_line(reader *r, char **line, size_t *n)
{
    for (;;) {
        char *start = r->buf + r->pos;
        size_t avail = r->len - r->pos;
        char *nl = memchr(start, '\n', avail);
        if (nl) {
            *n = (size_t)(nl - start);
            if (*n > LINE_MAX_BYTES)
                return RD_LONG;
            *nl = '\0';
            *line = start;
            r->pos += *n + 1;
            return RD_LINE;
        }
        if (avail > LINE_MAX_BYTES)
            return RD_LONG;
        if (r->eof) {
            if (avail == 0)
                return RD_EOF;
            start[avail] = '\0';
            *line = start;
            *n = avail;
            r->pos = r->len;
            return RD_LINE;
        }
        memmove(r->buf, start, avail);
        r->pos = 0;
        size_t got = fread(r->buf + avail, 1, READ_CHUNK, r->f);
        r->len = avail + got;
        if (got < READ_CHUNK) {
            if (ferror(r->f))
                return RD_ERROR;
            r->eof = true;
        }
    }
}

/* ------------------------------------------------------------------ */
/* Parsing                                                             */
/* ------------------------------------------------------------------ */

typedef struct {
    const char *name;
    char *err;
    size_t errlen;
    uint32_t line;
    uint32_t config_line;
    int format;     /* the file's version, 1 or 2 */
    cg_kernel k;
    int cores_cap;
    int in_elem, acc_elem;
    /* the current core: buffer capacity and name hash (indices, -1 empty) */
    int bufcap;
    int16_t *hash;
    int hcap;
    /* tokens of the current line */
    char *tok[MAX_TOKENS];
    int nt; /* MAX_TOKENS + 1: more than MAX_TOKENS */
} parser;

static bool fail(parser *ps, const char *fmt, ...)
{
    if (ps->err && ps->errlen) {
        int n = snprintf(ps->err, ps->errlen, "%s:%lu: ", ps->name, (unsigned long)ps->line);
        if (n >= 0 && (size_t)n < ps->errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return false;
}

/* A token for a message: printable ASCII only, at most 40 characters. */
typedef struct {
    char s[48];
} shown;

static shown show(const char *t)
{
    shown r;
    size_t i = 0;
    for (; t[i] && i < 40; i++) {
        unsigned char c = (unsigned char)t[i];
        r.s[i] = c > 0x20 && c < 0x7f ? (char)c : '?';
    }
    r.s[i] = '\0';
    if (t[i])
        strcat(r.s, "...");
    return r;
}

static bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Splits the line into NUL-terminated tokens; '#' starts a comment. */
static void tokenize(parser *ps, char *p)
{
    ps->nt = 0;
    for (;;) {
        while (is_ws(*p))
            p++;
        if (*p == '\0' || *p == '#')
            return;
        if (ps->nt == MAX_TOKENS) {
            ps->nt++;
            return;
        }
        ps->tok[ps->nt++] = p;
        while (*p && !is_ws(*p) && *p != '#')
            p++;
        if (*p == '#') {
            *p = '\0';
            return;
        }
        if (*p)
            *p++ = '\0';
    }
}

static bool is_word(const char *t, const char *w) { return strcmp(t, w) == 0; }

/* Decimal digits at p (no sign); *v = value, or -1 when above max. Returns
 * the end of the digits, or NULL if there are none. */
static const char *scan_num(const char *p, int64_t max, int64_t *v)
{
    if (*p < '0' || *p > '9')
        return NULL;
    int64_t x = 0;
    bool big = false;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (!big) {
            x = x * 10 + (*p - '0');
            if (x > max)
                big = true;
        }
    }
    *v = big ? -1 : x;
    return p;
}

/* A whole token as a number in [lo, hi]. */
static bool token_num(parser *ps, const char *t, const char *what, int64_t lo, int64_t hi,
                      int64_t *v)
{
    const char *e = scan_num(t, hi, v);
    if (!e || *e)
        return fail(ps, "bad %s '%s'", what, show(t).s);
    if (*v < lo)
        return fail(ps, "%s %s out of range (%lld..%lld)", what, show(t).s, (long long)lo,
                    (long long)hi);
    return true;
}

/* key=VALUE with VALUE in [lo, hi]. */
static bool key_num(parser *ps, const char *t, const char *key, int64_t lo, int64_t hi,
                    int64_t *v)
{
    size_t kl = strlen(key);
    if (strncmp(t, key, kl) != 0 || t[kl] != '=')
        return fail(ps, "expected '%s=', got '%s'", key, show(t).s);
    const char *e = scan_num(t + kl + 1, hi, v);
    if (!e || *e)
        return fail(ps, "bad value '%s'", show(t).s);
    if (*v < lo)
        return fail(ps, "%s out of range (%lld..%lld)", show(t).s, (long long)lo, (long long)hi);
    return true;
}

/* key=WORD: the word after "key=". */
static const char *key_word(parser *ps, const char *t, const char *key)
{
    size_t kl = strlen(key);
    if (strncmp(t, key, kl) != 0 || t[kl] != '=') {
        fail(ps, "expected '%s=', got '%s'", key, show(t).s);
        return NULL;
    }
    return t + kl + 1;
}

/* ROWSxCOLS, both in 1..INT32_MAX. */
static bool parse_size(parser *ps, const char *t, int32_t *rows, int32_t *cols)
{
    int64_t r, c;
    const char *e = scan_num(t, INT32_MAX, &r);
    if (!e || *e != 'x' || !(e = scan_num(e + 1, INT32_MAX, &c)) || *e)
        return fail(ps, "bad size '%s', expected ROWSxCOLS", show(t).s);
    if (r < 1 || c < 1)
        return fail(ps, "size %s out of range (1..2147483647 each)", show(t).s);
    *rows = (int32_t)r;
    *cols = (int32_t)c;
    return true;
}

static int parse_elem(const char *t)
{
    for (int e = 0; e < CG_NELEM; e++)
        if (is_word(t, cg_elem_name(e)))
            return e;
    return -1;
}

static int parse_space(const char *t)
{
    for (int s = 0; s < CG_NSPACE; s++)
        if (is_word(t, cg_space_name(s)))
            return s;
    return -1;
}

/* A buffer's name: a C-like identifier of 1 to BUF_NAME_MAX characters. */
static bool is_ident(const char *t, size_t n)
{
    bool ok = n >= 1 && n <= BUF_NAME_MAX;
    for (size_t i = 0; ok && i < n; i++) {
        char c = t[i];
        ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
             (c >= '0' && c <= '9' && i > 0);
    }
    return ok;
}

/* ---- header ---- */

/* Format 1: `target NAME`, a built-in target's name; format 2: `target NAME
 * key=value ...`, its figures. */
static bool parse_target(parser *ps)
{
    char **t = ps->tok;
    cg_kernel *k = &ps->k;
    if (ps->format == 1) {
        if (ps->nt != 2)
            return fail(ps, "expected 'target NAME' (format 1 names a built-in target)");
        size_t n = strlen(t[1]);
        if (!sp_name_ok(t[1], n, SP_NAME_MAX - 1))
            return fail(ps, "bad target name '%s' ([A-Za-z0-9_.-], 1 to %d characters)",
                        show(t[1]).s, SP_NAME_MAX - 1);
        memcpy(k->target.name, t[1], n);
        return true;
    }
    if (ps->nt > MAX_TOKENS)
        return fail(ps, "more than %d figures on the target line", SP_TARGET_NFIELDS - 1);
    char why[256];
    if (!sp_target_scan(t + 1, (size_t)ps->nt - 1, &k->target, why, sizeof why))
        return fail(ps, "%s", why);
    if (k->target.kind != SP_NPU)
        return fail(ps, "target '%s' is a %s target; kernels run on %s targets",
                    k->target.name, sp_kind_name(k->target.kind), sp_kind_name(SP_NPU));
    k->figures = true;
    return true;
}

static const char *const header_words[7] = {"npu-kernel", "target", "problem", "config",
                                            "tensor A", "tensor B", "tensor C"};

static bool parse_header(parser *ps, int state)
{
    char **t = ps->tok;
    cg_kernel *k = &ps->k;
    const char *kw = state >= 4 ? "tensor" : header_words[state];
    if (!is_word(t[0], kw))
        return fail(ps, "missing '%s' line (got '%s')", header_words[state], show(t[0]).s);
    switch (state) {
    case 0:
        if (ps->nt != 2)
            return fail(ps, "expected 'npu-kernel %d'", FORMAT);
        if (!is_word(t[1], "1") && !is_word(t[1], "2"))
            return fail(ps, "unsupported format version %s", show(t[1]).s);
        ps->format = t[1][0] - '0';
        return true;
    case 1:
        return parse_target(ps);
    case 2: {
        if (ps->nt != 7)
            return fail(ps, "expected 'problem NAME DTYPE M= N= K= batch='");
        size_t n = strlen(t[1]);
        if (!sp_label_ok(t[1], n))
            return fail(ps, "bad problem name '%s' ([A-Za-z0-9_.-], 1 to %d characters)",
                        show(t[1]).s, SP_LABEL_MAX);
        memcpy(k->problem.name, t[1], n);
        int d = sp_dtype_parse(t[2]);
        if (d < 0)
            return fail(ps, "unknown dtype '%s'", show(t[2]).s);
        k->problem.dtype = (sp_dtype)d;
        ps->in_elem = d == SP_INT8 ? CG_INT8 : CG_FP16;
        ps->acc_elem = d == SP_INT8 ? CG_INT32 : CG_FP32;
        /* the GEMM the kernel computes, of the default op */
        return key_num(ps, t[3], "M", 1, INT32_MAX, &k->problem.M) &&
               key_num(ps, t[4], "N", 1, INT32_MAX, &k->problem.N) &&
               key_num(ps, t[5], "K", 1, INT32_MAX, &k->problem.K) &&
               key_num(ps, t[6], "batch", 1, INT32_MAX, &k->problem.batch) &&
               sp_problem_from_gemm(&k->problem);
    }
    case 3: {
        if (ps->nt != 8)
            return fail(ps,
                        "expected 'config STRATEGY m= n= k= double_buffer= cores= split='");
        sp_config *c = &k->config;
        int s = sp_strategy_parse(t[1]);
        if (s < 0)
            return fail(ps, "unknown strategy '%s'", show(t[1]).s);
        c->strategy = (uint8_t)s;
        int64_t m, n, kk, db, cores;
        if (!key_num(ps, t[2], "m", 1, INT32_MAX, &m) ||
            !key_num(ps, t[3], "n", 1, INT32_MAX, &n) ||
            !key_num(ps, t[4], "k", 1, INT32_MAX, &kk) ||
            !key_num(ps, t[5], "double_buffer", 0, 1, &db) ||
            !key_num(ps, t[6], "cores", 1, INT32_MAX, &cores))
            return false;
        const char *sw = key_word(ps, t[7], "split");
        if (!sw)
            return false;
        int sp = sp_split_parse(sw);
        if (sp < 0)
            return fail(ps, "unknown split '%s'", show(sw).s);
        c->m = (int32_t)m;
        c->n = (int32_t)n;
        c->k = (int32_t)kk;
        c->double_buffer = (uint8_t)db;
        c->cores = (int32_t)cores;
        c->split = (uint8_t)sp;
        ps->config_line = ps->line;
        return true;
    }
    default: {
        int ti = state - 4;
        if (ps->nt != 4)
            return fail(ps, "expected '%s ELEM ROWSxCOLS'", header_words[state]);
        if (!is_word(t[1], tensor_names[ti]))
            return fail(ps, "expected '%s', got 'tensor %s'", header_words[state],
                        show(t[1]).s);
        int e = parse_elem(t[2]);
        if (e < 0)
            return fail(ps, "unknown element type '%s'", show(t[2]).s);
        cg_buf *b = &k->tensors[ti];
        if (!parse_size(ps, t[3], &b->rows, &b->cols))
            return false;
        b->name[0] = tensor_names[ti][0];
        b->space = CG_GM;
        b->elem = (uint8_t)e;
        const sp_problem *p = &k->problem;
        int64_t rows = ti == 1 ? p->batch * p->K : p->batch * p->M;
        int64_t cols = ti == 0 ? p->K : p->N;
        int elem = ti == 2 ? ps->acc_elem : ps->in_elem;
        if (b->rows != rows || b->cols != cols || b->elem != elem)
            return fail(ps, "tensor %s must be %s %lldx%lld for the problem", tensor_names[ti],
                        cg_elem_name(elem), (long long)rows, (long long)cols);
        return true;
    }
    }
}

/* ---- cores and buffers ---- */

static uint32_t hash_name(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

/* Index of buffer `s` (n bytes) in the current core, or -1. */
static int find_buf(const parser *ps, const char *s, size_t n)
{
    const cg_core *c = &ps->k.cores[ps->k.ncores - 1];
    if (!ps->hcap)
        return -1;
    unsigned mask = (unsigned)ps->hcap - 1;
    for (unsigned h = hash_name(s, n) & mask;; h = (h + 1) & mask) {
        int i = ps->hash[h];
        if (i < 0)
            return -1;
        const char *nm = c->bufs[i].name;
        if (memcmp(nm, s, n) == 0 && (n == sizeof c->bufs[i].name || nm[n] == '\0'))
            return i;
    }
}

static void hash_insert(parser *ps, int i)
{
    const cg_buf *b = &ps->k.cores[ps->k.ncores - 1].bufs[i];
    unsigned mask = (unsigned)ps->hcap - 1;
    unsigned h = hash_name(b->name, strlen(b->name)) & mask;
    while (ps->hash[h] >= 0)
        h = (h + 1) & mask;
    ps->hash[h] = (int16_t)i;
}

static bool parse_core(parser *ps)
{
    cg_kernel *k = &ps->k;
    int64_t idx;
    const char *e = ps->nt == 2 ? scan_num(ps->tok[1], INT32_MAX, &idx) : NULL;
    if (!e || *e || idx != k->ncores)
        return fail(ps, "expected 'core %d', got '%s%s%s'", k->ncores, ps->tok[0],
                    ps->nt > 1 ? " " : "", ps->nt > 1 ? show(ps->tok[1]).s : "");
    if (k->ncores >= k->config.cores)
        return fail(ps, "core %d exceeds config cores=%d", k->ncores, (int)k->config.cores);
    if (k->ncores == ps->cores_cap) {
        int64_t cap = ps->cores_cap ? 2 * (int64_t)ps->cores_cap : 4;
        if (cap > k->config.cores)
            cap = k->config.cores;
        cg_core *v = realloc(k->cores, (size_t)cap * sizeof *v);
        if (!v)
            return fail(ps, "out of memory");
        k->cores = v;
        ps->cores_cap = (int)cap;
    }
    memset(&k->cores[k->ncores++], 0, sizeof(cg_core));
    ps->bufcap = 0;
    if (ps->hcap)
        memset(ps->hash, 0xff, (size_t)ps->hcap * sizeof *ps->hash);
    return true;
}

static bool parse_buf(parser *ps)
{
    char **t = ps->tok;
    cg_core *c = &ps->k.cores[ps->k.ncores - 1];
    if (ps->nt != 6)
        return fail(ps, "expected 'buf NAME SPACE OFFSET ROWSxCOLS ELEM'");
    size_t n = strlen(t[1]);
    if (!is_ident(t[1], n))
        return fail(ps, "bad buffer name '%s' ([A-Za-z_][A-Za-z0-9_], at most %d characters)",
                    show(t[1]).s, BUF_NAME_MAX);
    if (n == 1 && (t[1][0] == 'A' || t[1][0] == 'B' || t[1][0] == 'C'))
        return fail(ps, "buffer name '%s' is reserved for a tensor", t[1]);
    if (find_buf(ps, t[1], n) >= 0)
        return fail(ps, "duplicate buffer '%s'", t[1]);
    int sp = parse_space(t[2]);
    if (sp < 0)
        return fail(ps, "unknown memory space '%s'", show(t[2]).s);
    if (sp == CG_GM)
        return fail(ps, "buffer '%s' cannot be in GM", t[1]);
    int64_t off;
    if (!token_num(ps, t[3], "offset", 0, INT32_MAX, &off))
        return false;
    cg_buf b = {.space = (uint8_t)sp, .offset = (int32_t)off};
    memcpy(b.name, t[1], n);
    if (!parse_size(ps, t[4], &b.rows, &b.cols))
        return false;
    int e = parse_elem(t[5]);
    if (e < 0)
        return fail(ps, "unknown element type '%s'", show(t[5]).s);
    b.elem = (uint8_t)e;
    int64_t max = INT32_MAX - off;
    if (b.rows > max / b.cols / cg_elem_size(e))
        return fail(ps, "buffer '%s' ends beyond byte %d", t[1], INT32_MAX);
    if (c->nbufs == MAX_BUFS)
        return fail(ps, "too many buffers in core %d (max %d)", ps->k.ncores - 1, MAX_BUFS);
    if (c->nbufs == ps->bufcap) {
        int cap = ps->bufcap ? 2 * ps->bufcap : 16;
        cg_buf *v = realloc(c->bufs, (size_t)cap * sizeof *v);
        if (!v)
            return fail(ps, "out of memory");
        c->bufs = v;
        ps->bufcap = cap;
    }
    c->bufs[c->nbufs++] = b;
    if (2 * c->nbufs > ps->hcap) {
        int hcap = ps->hcap ? 2 * ps->hcap : 32;
        while (2 * c->nbufs > hcap)
            hcap *= 2;
        int16_t *h = realloc(ps->hash, (size_t)hcap * sizeof *h);
        if (!h)
            return fail(ps, "out of memory");
        ps->hash = h;
        ps->hcap = hcap;
        memset(h, 0xff, (size_t)hcap * sizeof *h);
        for (int i = 0; i < c->nbufs; i++)
            hash_insert(ps, i);
    } else {
        hash_insert(ps, c->nbufs - 1);
    }
    return true;
}

/* ---- instructions ---- */

/* NAME or NAME[r0:r1,c0:c1]; *decl is the region it names. */
static bool parse_operand(parser *ps, const char *t, cg_operand *o, const cg_buf **decl)
{
    const char *br = strchr(t, '[');
    size_t n = br ? (size_t)(br - t) : strlen(t);
    if (!is_ident(t, n))
        return fail(ps, "bad operand '%s'", show(t).s);
    const cg_buf *b;
    if (n == 1 && t[0] >= 'A' && t[0] <= 'C') {
        o->buf = (int16_t)(-1 - (t[0] - 'A'));
        b = &ps->k.tensors[t[0] - 'A'];
    } else {
        int i = find_buf(ps, t, n);
        if (i < 0)
            return fail(ps, "unknown buffer '%.*s'", (int)n, t);
        o->buf = (int16_t)i;
        b = &ps->k.cores[ps->k.ncores - 1].bufs[i];
    }
    int64_t r0 = 0, r1 = b->rows, c0 = 0, c1 = b->cols;
    if (br) {
        const char *p = br + 1;
        if (!(p = scan_num(p, INT32_MAX, &r0)) || *p != ':' ||
            !(p = scan_num(p + 1, INT32_MAX, &r1)) || *p != ',' ||
            !(p = scan_num(p + 1, INT32_MAX, &c0)) || *p != ':' ||
            !(p = scan_num(p + 1, INT32_MAX, &c1)) || p[0] != ']' || p[1] != '\0')
            return fail(ps, "bad operand '%s', expected NAME or NAME[r0:r1,c0:c1]",
                        show(t).s);
        if (r0 < 0 || r1 < 0 || c0 < 0 || c1 < 0 || r1 > b->rows || c1 > b->cols)
            return fail(ps, "block '%s' out of bounds (%.*s is %dx%d)", show(t).s, (int)n, t,
                        (int)b->rows, (int)b->cols);
        if (r0 >= r1 || c0 >= c1)
            return fail(ps, "empty block '%s'", show(t).s);
    }
    if (r1 - r0 > UINT16_MAX || c1 - c0 > UINT16_MAX)
        return fail(ps, "block '%s' too large: %lldx%lld (at most 65535 rows and cols)",
                    show(t).s, (long long)(r1 - r0), (long long)(c1 - c0));
    o->r0 = (int32_t)r0;
    o->c0 = (int32_t)c0;
    o->rows = (uint16_t)(r1 - r0);
    o->cols = (uint16_t)(c1 - c0);
    *decl = b;
    return true;
}

static bool parse_copy(parser *ps, cg_instr *in)
{
    char **t = ps->tok;
    if (ps->nt != 5 || !is_word(t[3], "<-"))
        return fail(ps, "expected 'PIPE copy DST <- SRC'");
    const cg_buf *d, *s;
    if (!parse_operand(ps, t[2], &in->d, &d) || !parse_operand(ps, t[4], &in->a, &s))
        return false;
    int path = cg_copy_pipe(s->space, d->space);
    if (path < 0)
        return fail(ps, "no copy path from %s to %s", cg_space_name(s->space),
                    cg_space_name(d->space));
    if (path != in->pipe)
        return fail(ps, "copy %s -> %s runs on %s, not %s", cg_space_name(s->space),
                    cg_space_name(d->space), cg_pipe_name(path), cg_pipe_name(in->pipe));
    if (s->elem != d->elem)
        return fail(ps, "element mismatch in copy: %s -> %s", cg_elem_name(s->elem),
                    cg_elem_name(d->elem));
    if (d->space == CG_GM && (in->d.rows != in->a.rows || in->d.cols != in->a.cols))
        return fail(ps, "GM destination block %dx%d must equal source block %dx%d",
                    in->d.rows, in->d.cols, in->a.rows, in->a.cols);
    if (in->d.rows < in->a.rows || in->d.cols < in->a.cols)
        return fail(ps, "destination block %dx%d smaller than source block %dx%d", in->d.rows,
                    in->d.cols, in->a.rows, in->a.cols);
    return true;
}

static bool mmad_operand(parser *ps, const char *role, const cg_buf *b, int space, int elem)
{
    if (b->space != space)
        return fail(ps, "mmad %s must be in %s, not %s", role, cg_space_name(space),
                    cg_space_name(b->space));
    if (b->elem != elem)
        return fail(ps, "element mismatch in mmad: %s is %s, expected %s", role,
                    cg_elem_name(b->elem), cg_elem_name(elem));
    return true;
}

static bool parse_mmad(parser *ps, cg_instr *in)
{
    char **t = ps->tok;
    if (ps->nt != 7 || !is_word(t[3], "<-"))
        return fail(ps, "expected 'M mmad DST <- A B init|acc'");
    if (in->pipe != CG_M)
        return fail(ps, "mmad runs on M, not %s", cg_pipe_name(in->pipe));
    const cg_buf *d, *a, *b;
    if (!parse_operand(ps, t[2], &in->d, &d) || !parse_operand(ps, t[4], &in->a, &a) ||
        !parse_operand(ps, t[5], &in->b, &b))
        return false;
    if (is_word(t[6], "init"))
        in->init = 1;
    else if (!is_word(t[6], "acc"))
        return fail(ps, "expected 'init' or 'acc', got '%s'", show(t[6]).s);
    if (!mmad_operand(ps, "dst", d, CG_L0C, ps->acc_elem) ||
        !mmad_operand(ps, "a", a, CG_L0A, ps->in_elem) ||
        !mmad_operand(ps, "b", b, CG_L0B, ps->in_elem))
        return false;
    if (in->a.cols != in->b.rows || in->d.rows != in->a.rows || in->d.cols != in->b.cols)
        return fail(ps, "mmad shape mismatch: dst %dx%d <- a %dx%d . b %dx%d", in->d.rows,
                    in->d.cols, in->a.rows, in->a.cols, in->b.rows, in->b.cols);
    return true;
}

static bool parse_pipe(parser *ps, const char *t, int *p)
{
    *p = cg_pipe_parse(t);
    if (*p < 0)
        return fail(ps, "unknown pipe '%s'", show(t).s);
    return true;
}

static bool parse_flag(parser *ps, cg_instr *in, bool set)
{
    char **t = ps->tok;
    if (ps->nt != 4)
        return fail(ps, "expected '%s SRC DST EVENT'", set ? "set_flag" : "wait_flag");
    int src, dst;
    int64_t ev;
    if (!parse_pipe(ps, t[1], &src) || !parse_pipe(ps, t[2], &dst) ||
        !token_num(ps, t[3], "event", 0, 255, &ev))
        return false;
    in->op = set ? CG_SET_FLAG : CG_WAIT_FLAG;
    in->src = (uint8_t)src;
    in->dst = (uint8_t)dst;
    in->pipe = (uint8_t)(set ? src : dst);
    in->event = (uint8_t)ev;
    return true;
}

static bool parse_instr(parser *ps)
{
    char **t = ps->tok;
    cg_instr in;
    memset(&in, 0, sizeof in);
    in.line = ps->line;
    int p;
    char c0 = t[0][0];
    if ((c0 == 's' && is_word(t[0], "set_flag")) || (c0 == 'w' && is_word(t[0], "wait_flag"))) {
        if (!parse_flag(ps, &in, t[0][0] == 's'))
            return false;
    } else if (c0 == 'b' && is_word(t[0], "barrier")) {
        if (ps->nt != 2)
            return fail(ps, "expected 'barrier PIPE'");
        if (!parse_pipe(ps, t[1], &p))
            return false;
        in.op = CG_BARRIER;
        in.pipe = (uint8_t)p;
    } else if (ps->nt >= 2 &&
               (is_word(t[1], "copy") || is_word(t[1], "mmad") || is_word(t[1], "nop"))) {
        if (!parse_pipe(ps, t[0], &p))
            return false;
        in.pipe = (uint8_t)p;
        if (t[1][0] == 'c') {
            in.op = CG_COPY;
            if (!parse_copy(ps, &in))
                return false;
        } else if (t[1][0] == 'm') {
            in.op = CG_MMAD;
            if (!parse_mmad(ps, &in))
                return false;
        } else {
            if (ps->nt != 2)
                return fail(ps, "expected 'PIPE nop'");
            in.op = CG_NOP;
        }
    } else {
        return fail(ps, "unknown statement '%s'", show(t[0]).s);
    }
    if (!cg_emit(&ps->k.cores[ps->k.ncores - 1], &in))
        return fail(ps, "out of memory");
    return true;
}

static bool parse_lines(parser *ps, reader *r)
{
    int state = 0; /* 0..6: header line expected next; 7: cores */
    for (;;) {
        char *line;
        size_t n;
        int st = read_line(r, &line, &n);
        if (st == RD_EOF)
            break;
        if (ps->line == UINT32_MAX)
            return fail(ps, "too many lines");
        ps->line++;
        if (st == RD_LONG)
            return fail(ps, "line too long (more than %d bytes)", LINE_MAX_BYTES);
        if (st == RD_ERROR)
            return fail(ps, "read error: %s", strerror(errno));
        if (memchr(line, '\0', n))
            return fail(ps, "NUL byte in line");
        tokenize(ps, line);
        if (ps->nt == 0)
            continue;
        if (state < 7) {
            if (!parse_header(ps, state))
                return false;
            state++;
        } else if (ps->tok[0][0] == 'c' && is_word(ps->tok[0], "core")) {
            if (!parse_core(ps))
                return false;
        } else if (ps->k.ncores == 0) {
            return fail(ps, "missing 'core 0' line (got '%s')", show(ps->tok[0]).s);
        } else if (ps->tok[0][0] == 'b' && is_word(ps->tok[0], "buf")) {
            if (!parse_buf(ps))
                return false;
        } else if (!parse_instr(ps)) {
            return false;
        }
    }
    if (ps->line == 0)
        ps->line = 1;
    if (state < 7)
        return fail(ps, "unexpected end of file, missing '%s' line", header_words[state]);
    if (ps->k.ncores == 0)
        return fail(ps, "unexpected end of file, missing 'core 0' line");
    if (ps->k.ncores != ps->k.config.cores) {
        ps->line = ps->config_line;
        return fail(ps, "config cores=%d but the file has %d core section%s",
                    (int)ps->k.config.cores, ps->k.ncores, ps->k.ncores == 1 ? "" : "s");
    }
    return true;
}

/* Parses and validates a kernel (FORMAT.md). On success *k owns the result
 * (cg_kernel_free); on failure *k is zeroed and err holds "NAME:LINE: message"
 * (one line). k's previous contents are overwritten, not freed. */
bool cg_parse(FILE *f, const char *name, cg_kernel *k, char *err, size_t errlen)
{
    parser ps;
    memset(&ps, 0, sizeof ps);
    ps.name = name ? name : "<input>";
    ps.err = err;
    ps.errlen = errlen;
    if (err && errlen)
        err[0] = '\0';
    reader r = {.f = f, .buf = malloc(READ_CHUNK + LINE_MAX_BYTES + 1)};
    bool ok = r.buf ? parse_lines(&ps, &r) : fail(&ps, "out of memory");
    free(r.buf);
    free(ps.hash);
    if (ok) {
        *k = ps.k;
    } else {
        cg_kernel_free(&ps.k);
        memset(k, 0, sizeof *k);
    }
    return ok;
}
