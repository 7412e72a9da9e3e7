/* figures.c — a target's figures as data: one table of its fields (name, type,
 * place in sp_target, the kinds that have it), and its text as `key=value` words. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "space.h"

#define NPU (1u << SP_NPU)
#define CPU (1u << SP_CPU)
#define OFF(m) offsetof(sp_target, m)
#define MACS(d) (OFF(macs) + (size_t)(d) * sizeof(double))
#define BUF(b) (OFF(buf_bytes) + (size_t)(b) * sizeof(int64_t))
#define ALIGN(b) (OFF(buf_align) + (size_t)(b) * sizeof(int))
#define PATH(p, m) (OFF(path) + (size_t)(p) * sizeof(sp_copy_path) + offsetof(sp_copy_path, m))
#define UNIT(m) (OFF(cpu) + offsetof(sp_cpu, m))
#define CACHE(l) (UNIT(cache) + (size_t)(l) * sizeof(int64_t))

const sp_target_field sp_target_fields[] = {
    {"name", SP_FIELD_NAME, OFF(name), NPU | CPU, false},
    {"kind", SP_FIELD_KIND, OFF(kind), NPU | CPU, true},
    {"cores", SP_FIELD_INT, OFF(cores), NPU | CPU, false},
    {"clock_mhz", SP_FIELD_NUM, OFF(clock_mhz), NPU | CPU, false},
    {"macs.fp16", SP_FIELD_NUM, MACS(SP_FP16), NPU, false},
    {"macs.int8", SP_FIELD_NUM, MACS(SP_INT8), NPU, false},
    {"macs.fp32", SP_FIELD_NUM, MACS(SP_FP32), NPU, true},
    {"macs.bf16", SP_FIELD_NUM, MACS(SP_BF16), NPU, true},
    {"l1", SP_FIELD_I64, BUF(SP_L1), NPU, false},
    {"l0a", SP_FIELD_I64, BUF(SP_L0A), NPU, false},
    {"l0b", SP_FIELD_I64, BUF(SP_L0B), NPU, false},
    {"l0c", SP_FIELD_I64, BUF(SP_L0C), NPU, false},
    {"ub", SP_FIELD_I64, BUF(SP_UB), NPU, false},
    {"align.l1", SP_FIELD_INT, ALIGN(SP_L1), NPU, false},
    {"align.l0a", SP_FIELD_INT, ALIGN(SP_L0A), NPU, false},
    {"align.l0b", SP_FIELD_INT, ALIGN(SP_L0B), NPU, false},
    {"align.l0c", SP_FIELD_INT, ALIGN(SP_L0C), NPU, false},
    {"align.ub", SP_FIELD_INT, ALIGN(SP_UB), NPU, false},
    {"gm_l1.bandwidth", SP_FIELD_NUM, PATH(SP_GM_L1, bandwidth), NPU, false},
    {"gm_l1.latency", SP_FIELD_NUM, PATH(SP_GM_L1, latency), NPU, false},
    {"l1_l0a.bandwidth", SP_FIELD_NUM, PATH(SP_L1_L0A, bandwidth), NPU, false},
    {"l1_l0a.latency", SP_FIELD_NUM, PATH(SP_L1_L0A, latency), NPU, false},
    {"l1_l0b.bandwidth", SP_FIELD_NUM, PATH(SP_L1_L0B, bandwidth), NPU, false},
    {"l1_l0b.latency", SP_FIELD_NUM, PATH(SP_L1_L0B, latency), NPU, false},
    {"l0c_ub.bandwidth", SP_FIELD_NUM, PATH(SP_L0C_UB, bandwidth), NPU, false},
    {"l0c_ub.latency", SP_FIELD_NUM, PATH(SP_L0C_UB, latency), NPU, false},
    {"ub_gm.bandwidth", SP_FIELD_NUM, PATH(SP_UB_GM, bandwidth), NPU, false},
    {"ub_gm.latency", SP_FIELD_NUM, PATH(SP_UB_GM, latency), NPU, false},
    {"gm_bandwidth", SP_FIELD_NUM, OFF(gm_bandwidth), NPU, false},
    {"events", SP_FIELD_INT, OFF(events), NPU, false},
    {"simd_floats", SP_FIELD_INT, UNIT(simd_floats), CPU, false},
    {"vregs", SP_FIELD_INT, UNIT(vregs), CPU, false},
    {"fma_units", SP_FIELD_INT, UNIT(fma_units), CPU, false},
    {"load_ports", SP_FIELD_INT, UNIT(load_ports), CPU, false},
    {"l1", SP_FIELD_I64, CACHE(SP_CL1), CPU, false},
    {"l2", SP_FIELD_I64, CACHE(SP_CL2), CPU, false},
    {"l3", SP_FIELD_I64, CACHE(SP_CL3), CPU, false},
    {"bandwidth.l2", SP_FIELD_NUM, UNIT(bw_l2), CPU, false},
    {"bandwidth.l3", SP_FIELD_NUM, UNIT(bw_l3), CPU, false},
    {"bandwidth.mem", SP_FIELD_NUM, UNIT(bw_mem), CPU, false},
    {"bandwidth.mem_shared", SP_FIELD_NUM, UNIT(bw_mem_shared), CPU, false},
    {"fork_join", SP_FIELD_NUM, UNIT(fork_join), CPU, true},
    {"load_stall", SP_FIELD_NUM, UNIT(load_stall), CPU, true},
    {"prefetch_stall", SP_FIELD_NUM, UNIT(prefetch_stall), CPU, true},
    {"l1_ways", SP_FIELD_INT, UNIT(l1_ways), CPU, true},
    {"alias_stall", SP_FIELD_NUM, UNIT(alias_stall), CPU, true},
    {"pack_stall", SP_FIELD_NUM, UNIT(pack_stall), CPU, true},
    {"stride_stall", SP_FIELD_NUM, UNIT(stride_stall), CPU, true},
};

const char *sp_target_field_name(const sp_target *t, const void *member)
{
    size_t off = (size_t)((const char *)member - (const char *)t);
    for (size_t i = 0; i < SP_TARGET_NFIELDS; i++)
        if (sp_target_fields[i].off == off)
            return sp_target_fields[i].name;
    return "?";
}
_Static_assert(sizeof sp_target_fields / sizeof sp_target_fields[0] == SP_TARGET_NFIELDS,
               "SP_TARGET_NFIELDS counts the fields");

/* The value of field f of t as text (the kind's name; "" for the name). */
static void value_text(const sp_target *t, const sp_target_field *f, char *buf, size_t len)
{
    const char *p = (const char *)t + f->off;
    switch (f->type) {
    case SP_FIELD_KIND:
        snprintf(buf, len, "%s", t->kind < SP_NKIND ? sp_kind_name(t->kind) : "?");
        return;
    case SP_FIELD_INT: snprintf(buf, len, "%d", *(const int *)(const void *)p); return;
    case SP_FIELD_I64: snprintf(buf, len, "%" PRId64, *(const int64_t *)(const void *)p); return;
    case SP_FIELD_NUM:
        bs_csv_number(buf, len, *(const double *)(const void *)p);
        if (!*buf) /* not finite: text the reader refuses */
            snprintf(buf, len, "?");
        return;
    default: buf[0] = '\0'; return;
    }
}

/* Whether field f belongs to targets of kind k. */
static bool has(const sp_target_field *f, int k)
{
    return k >= 0 && k < SP_NKIND && (f->kinds >> k & 1);
}

size_t sp_target_print(char *buf, size_t len, const sp_target *t)
{
    const char *z = memchr(t->name, '\0', sizeof t->name);
    int used = snprintf(buf, len, "%.*s", z ? (int)(z - t->name) : (int)sizeof t->name, t->name);
    size_t n = used > 0 ? (size_t)used : 0;
    for (size_t i = 0; i < SP_TARGET_NFIELDS; i++) {
        const sp_target_field *f = &sp_target_fields[i];
        if (f->type == SP_FIELD_NAME || !has(f, t->kind))
            continue;
        char v[40];
        value_text(t, f, v, sizeof v);
        int w = snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0, " %s=%s", f->name, v);
        n += w > 0 ? (size_t)w : 0;
    }
    return n;
}

/* A word for a message: printable ASCII only, at most 40 characters. */
static const char *shown(const char *s, char out[48])
{
    size_t i = 0;
    for (; s[i] && i < 40; i++)
        out[i] = s[i] > 0x20 && s[i] < 0x7f ? s[i] : '?';
    strcpy(out + i, s[i] ? "..." : "");
    return out;
}

/* Optional '-', then decimal digits, in [lo, hi]. */
static bool integer(const char *s, int64_t lo, int64_t hi, int64_t *v)
{
    const char *d = s + (*s == '-');
    if (*d < '0' || *d > '9' || strspn(d, "0123456789") != strlen(d))
        return false;
    errno = 0;
    long long x = strtoll(s, NULL, 10);
    if (errno == ERANGE || x < lo || x > hi)
        return false;
    *v = x;
    return true;
}

/* Stores text s into field f of t; false with the reason in err. */
static bool store(const sp_target_field *f, const char *s, sp_target *t, char *err,
                  size_t errlen)
{
    char *p = (char *)t + f->off, w[48];
    int64_t i;
    double d;
    char *end;
    switch (f->type) {
    case SP_FIELD_KIND:
        /* judged before the other fields (sp_target_scan) */
        return true;
    case SP_FIELD_INT:
        if (!integer(s, INT32_MIN + 1, INT32_MAX, &i))
            break;
        *(int *)(void *)p = (int)i;
        return true;
    case SP_FIELD_I64:
        if (!integer(s, INT64_MIN, INT64_MAX, &i))
            break;
        *(int64_t *)(void *)p = i;
        return true;
    case SP_FIELD_NUM:
        d = *s && !isspace((unsigned char)*s) ? strtod(s, &end) : NAN;
        if (!isfinite(d) || *end)
            break;
        *(double *)(void *)p = d;
        return true;
    default:
        break;
    }
    snprintf(err, errlen, "target '%s': field '%s' must be %s, not '%s'", t->name, f->name,
             f->type == SP_FIELD_NUM ? "a finite number" : f->type == SP_FIELD_INT
                 ? "an integer from -2147483647 to 2147483647" : "a 64-bit integer",
             shown(s, w));
    return false;
}

double *sp_target_figure_at(sp_target *t, int field)
{
    if (field < 0 || field >= SP_TARGET_NFIELDS || sp_target_fields[field].type != SP_FIELD_NUM)
        return NULL;
    return (double *)(void *)((char *)t + sp_target_fields[field].off);
}

double sp_target_figure(const sp_target *t, int field)
{
    const double *p = sp_target_figure_at((sp_target *)t, field);
    return p ? *p : NAN;
}

/* The index of the field called key of kind k, or -1. */
static int find(const char *key, size_t len, int k)
{
    for (int i = 0; i < SP_TARGET_NFIELDS; i++)
        if (has(&sp_target_fields[i], k) && strncmp(sp_target_fields[i].name, key, len) == 0 &&
            sp_target_fields[i].name[len] == '\0')
            return i;
    return -1;
}

int sp_target_field_index(const char *name, int kind)
{
    return find(name, strlen(name), kind);
}

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return false; } while (0)

bool sp_target_scan(char *const *words, size_t n, sp_target *t, char *err, size_t errlen)
{
    char w[48];
    memset(t, 0, sizeof *t);
    if (n < 1)
        FAIL("a target needs a name");
    const char *name = words[0];
    size_t nlen = strlen(name);
    if (!sp_name_ok(name, nlen, SP_NAME_MAX - 1))
        FAIL("bad target name '%s' (1 to %d characters from A-Z a-z 0-9 _ . -)",
             shown(name, w), SP_NAME_MAX - 1);
    memcpy(t->name, name, nlen);
    /* The kind decides which fields exist: judged before the others. */
    int kind = SP_NPU;
    for (size_t i = 1; i < n; i++)
        if (strncmp(words[i], "kind=", 5) == 0 && (kind = sp_kind_parse(words[i] + 5)) < 0) {
            char kinds[64];
            FAIL("target '%s': field 'kind' must be %s, not '%s'", t->name,
                 sp_names(sp_kind_name, ", ", " or ", kinds, sizeof kinds),
                 shown(words[i] + 5, w));
        }
    t->kind = (uint8_t)kind;
    bool seen[SP_TARGET_NFIELDS] = {false};
    for (size_t i = 1; i < n; i++) {
        const char *eq = strchr(words[i], '=');
        if (!eq || eq == words[i])
            FAIL("target '%s': expected key=value, got '%s'", t->name, shown(words[i], w));
        size_t klen = (size_t)(eq - words[i]);
        int f = find(words[i], klen, kind);
        if (f < 0) {
            char key[48];
            snprintf(key, sizeof key, "%.*s", klen > 41 ? 41 : (int)klen, words[i]);
            shown(key, w);
            bool other = false; /* a field of another kind? */
            for (int k = 0; k < SP_NKIND; k++)
                other |= k != kind && find(words[i], klen, k) >= 0;
            if (other)
                FAIL("target '%s': field '%s' does not apply to %s targets", t->name, w,
                     sp_kind_name(kind));
            FAIL("target '%s': unknown field '%s'", t->name, w);
        }
        if (sp_target_fields[f].type == SP_FIELD_NAME)
            FAIL("target '%s': the name is the first word, not 'name='", t->name);
        if (seen[f])
            FAIL("target '%s': field '%s' given twice", t->name, sp_target_fields[f].name);
        seen[f] = true;
        if (!store(&sp_target_fields[f], eq + 1, t, err, errlen))
            return false;
    }
    for (size_t i = 0; i < SP_TARGET_NFIELDS; i++) {
        const sp_target_field *f = &sp_target_fields[i];
        if (has(f, kind) && !seen[i] && !f->optional && f->type != SP_FIELD_NAME)
            FAIL("target '%s': field '%s' is missing", t->name, f->name);
    }
    return sp_target_check(t, err, errlen);
}

bool sp_target_same(const sp_target *a, const sp_target *b, char *why, size_t whylen)
{
    char va[40], vb[40];
    const char *diff = NULL;
    if (strncmp(a->name, b->name, sizeof a->name) != 0) {
        if (why)
            snprintf(why, whylen, "the name is '%.*s', not '%.*s'", SP_NAME_MAX - 1, a->name,
                     SP_NAME_MAX - 1, b->name);
        return false;
    }
    for (size_t i = 0; !diff && i < SP_TARGET_NFIELDS; i++) {
        const sp_target_field *f = &sp_target_fields[i];
        if (f->type == SP_FIELD_NAME || !(has(f, a->kind) || has(f, b->kind)))
            continue;
        value_text(a, f, va, sizeof va);
        value_text(b, f, vb, sizeof vb);
        const void *pa = (const char *)a + f->off, *pb = (const char *)b + f->off;
        bool same = f->type == SP_FIELD_NUM ? *(const double *)pa == *(const double *)pb
                                            : strcmp(va, vb) == 0;
        if (!same)
            diff = f->name;
    }
    if (diff && why)
        snprintf(why, whylen, "field '%s' is %s, not %s", diff, va, vb);
    return !diff;
}
